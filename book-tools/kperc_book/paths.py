"""The repository layout, known in one place.

Every tool of the book (chapters, reproduce, report, ledger, stored datasets, the
benchmark harness) takes its folders from here. The book tools work only inside a
checkout of the repository: :func:`require_checkout` says so in one line otherwise.

The checkout is found, in this order (see :func:`find_root`):

1. the folder named by the environment variable ``KPERC_BOOK_ROOT``, if it is set;
2. the first folder above this file that holds ``_toc.yml``, ``book/`` and ``data/``
   (the ``kperc-book`` distribution installed editable from ``book-tools/``, or run
   from the checkout);
3. the first such folder above the current working directory (the distribution
   installed from a wheel, run inside a checkout).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "ROOT",
    "BOOK_DIR",
    "FIGURES_DIR",
    "GENERATED_DIR",
    "TIMINGS_DIR",
    "DATA_DIR",
    "TESTS_DIR",
    "BUILD_DIR",
    "TOC",
    "ROOT_ENV",
    "NotACheckout",
    "find_root",
    "is_checkout",
    "require_checkout",
]

#: Environment variable that names the checkout explicitly.
ROOT_ENV = "KPERC_BOOK_ROOT"


class NotACheckout(SystemExit):
    """Raised by a book tool that runs outside a checkout of the repository."""


def is_checkout(folder: Path | str) -> bool:
    """Whether ``folder`` holds ``_toc.yml``, ``book/`` and ``data/``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     before = is_checkout(tmp)
    ...     for sub in ("book", "data"):
    ...         (Path(tmp) / sub).mkdir()
    ...     _ = (Path(tmp) / "_toc.yml").write_text("root: book/index\\n")
    ...     print(before, is_checkout(tmp))
    False True
    """
    folder = Path(folder)
    return (
        (folder / "_toc.yml").is_file()
        and (folder / "book").is_dir()
        and (folder / "data").is_dir()
    )


def find_root(start: Path | str | None = None, *, cwd: Path | str | None = None) -> Path | None:
    """The checkout's root folder, or ``None`` when none is found.

    Parameters
    ----------
    start : path, optional
        Where the upward search begins first (default: this module's folder).
    cwd : path, optional
        Where the second upward search begins (default: the current directory).

    Returns
    -------
    Path or None
        The folder named by ``KPERC_BOOK_ROOT`` if that variable is set (whether or
        not it is a checkout: :func:`require_checkout` then says what is missing),
        else the nearest checkout above ``start``, else the nearest above ``cwd``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     root = Path(tmp).resolve()
    ...     for sub in ("book/deep", "data"):
    ...         (root / sub).mkdir(parents=True)
    ...     _ = (root / "_toc.yml").write_text("root: book/index\\n")
    ...     found = find_root(root / "book" / "deep", cwd=root.parent)
    ...     print(found == root)
    True
    """
    named = os.environ.get(ROOT_ENV)
    if named:
        return Path(named).expanduser().resolve()
    here = Path(__file__).resolve().parent if start is None else Path(start).resolve()
    there = Path.cwd() if cwd is None else Path(cwd)
    for origin in (here, there.resolve()):
        for folder in (origin, *origin.parents):
            if is_checkout(folder):
                return folder
    return None


_FOUND = find_root()
#: The repository root: the folder that holds ``_toc.yml``, ``book/`` and ``data/``. When
#: no checkout is found it is the folder two levels above this package (the checkout's
#: layout), and :func:`require_checkout` stops every tool with one clear line.
ROOT = _FOUND if _FOUND is not None else Path(__file__).resolve().parents[2]
BOOK_DIR = ROOT / "book"
FIGURES_DIR = BOOK_DIR / "figures"
GENERATED_DIR = BOOK_DIR / "_generated"
TIMINGS_DIR = GENERATED_DIR / "timings"
DATA_DIR = ROOT / "data"
TESTS_DIR = ROOT / "tests"
BUILD_DIR = ROOT / "_build"
TOC = ROOT / "_toc.yml"


def require_checkout() -> Path:
    """Return :data:`ROOT`, or stop with a one-line message if it is not a checkout."""
    if not (TOC.is_file() and BOOK_DIR.is_dir() and DATA_DIR.is_dir()):
        how = (
            f"{ROOT_ENV} names it"
            if os.environ.get(ROOT_ENV)
            else f"no checkout above {Path(__file__).resolve().parent} or the current directory"
        )
        raise NotACheckout(
            f"kperc_book: {ROOT} is not a kperc-book checkout (no _toc.yml, book/ and data/; "
            f"{how}); the book tools run only inside a clone of the repository: run them "
            f"from the clone, or set {ROOT_ENV} to its folder"
        )
    return ROOT

"""The repository layout, known in one place.

Every tool of the book (chapters, reproduce, report, ledger, stored datasets, the
micro-benchmarks) takes its folders from here. The book's tools (reproduce, report, the
ledger) work only inside a checkout of the repository: :func:`require_checkout` says so
in one line otherwise. A chapter runs anywhere: outside a checkout it reads the files
a chapter reads (the stored datasets, the records of other chapters, the benchmark
results) from the copy the package ships (:data:`STORED`, the same layout as the
checkout's; symbolic links in ``book-tools/kperc_book/_stored/`` to the one copy in git,
which the package's build follows) and writes its records where the reader chooses
(:mod:`kperc_book.chapter`).

The checkout is found, in this order (see :func:`find_root`):

1. the folder named by the environment variable ``KPERC_BOOK_ROOT``, if it is set;
2. the first folder above this file that holds ``_toc.yml``, ``book/`` and ``data/``
   (the ``kperc-book`` distribution installed editable from ``book-tools/``, or run
   from the checkout);
3. the first such folder above the current working directory (the distribution
   installed from a wheel, run inside a checkout).

When none is found, :data:`ROOT` is :data:`STORED`, which holds no ``_toc.yml``: the
chapters read their files there, and every tool that needs a checkout stops.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "ROOT",
    "STORED",
    "STORED_FILES",
    "BOOK_DIR",
    "FIGURES_DIR",
    "GENERATED_DIR",
    "DATA_DIR",
    "TESTS_DIR",
    "BUILD_DIR",
    "TOC",
    "ROOT_ENV",
    "LAYOUT_NAMES",
    "NotACheckout",
    "find_root",
    "is_checkout",
    "require_checkout",
    "checkout_message",
    "OutsideCheckout",
    "book_dir",
    "generated_dir",
    "figures_dir",
    "data_dir",
    "tests_dir",
    "library_tests_dir",
    "build_dir",
    "reproduce_dir",
    "scratch_dir",
    "wheel_dir",
    "toc_path",
    "runs_path",
    "manifest_path",
    "reproducibility_page",
    "constraints_path",
    "pyproject_path",
    "record_dirs",
    "figure_file",
]

# The names of the layout, spelled here and nowhere else in book-tools/
# (tests/book/test_layout.py checks it).
_BOOK = "book"
_DATA = "data"
_TESTS = "tests"
_BUILD = "_build"
_GENERATED = "_generated"
_FIGURES = "figures"
_REQUIREMENTS = "requirements"
_TOC = "_toc.yml"
#: Every folder and file name of the layout that only this module spells.
LAYOUT_NAMES = frozenset({_BOOK, _DATA, _TESTS, _BUILD, _GENERATED, _FIGURES, _REQUIREMENTS, _TOC})

#: Environment variable that names the checkout explicitly.
ROOT_ENV = "KPERC_BOOK_ROOT"


class NotACheckout(SystemExit):
    """Raised by a book tool that runs outside a checkout of the repository."""


class OutsideCheckout(RuntimeError):
    """Raised by a chapter that runs outside a checkout: it reads ``data/`` and writes
    its records under ``_build/`` of the clone, and never elsewhere (such as a virtual
    environment's ``site-packages``). Jupyter shows only its one sentence."""

    def _render_traceback_(self) -> list[str]:  # IPython's hook: no traceback
        return [f"{type(self).__name__}: {self}"]


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
    return (folder / _TOC).is_file() and (folder / _BOOK).is_dir() and (folder / _DATA).is_dir()


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


#: The files of the checkout that the package ships, in the checkout's layout (symbolic
#: links into the checkout, followed when the package is built): what a chapter reads.
STORED = Path(__file__).resolve().parent / "_stored"
#: The patterns of :data:`STORED`'s files, relative to it: the stored datasets, the
#: records of the chapters (Chapter 7 quotes them), the benchopt results and the
#: micro-benchmarks' timings, and the benchmark's configuration. ``book-tools/pyproject.toml``
#: lists the same patterns as package data (tests/book/test_layout.py checks it).
STORED_FILES = (
    f"{_DATA}/*.npz",
    f"{_DATA}/manifest.json",
    f"{_BOOK}/{_GENERATED}/ch*.json",
    f"{_BOOK}/{_GENERATED}/benchopt/book.parquet",
    f"{_BOOK}/{_GENERATED}/micro/*.json",
    "benchmark_kperc/book.yml",
)

_FOUND = find_root()
#: The repository root: the folder that holds ``_toc.yml``, ``book/`` and ``data/``. When
#: no checkout is found it is :data:`STORED` (the package's copy of what a chapter
#: reads), and :func:`require_checkout` stops every tool with one clear line.
ROOT = _FOUND if _FOUND is not None else STORED


def _root(root: Path | str | None) -> Path:
    return ROOT if root is None else Path(root)


# Each folder or file of the layout, in the checkout at ``root`` (default: :data:`ROOT`).
# Code that works on another checkout (a test's temporary copy) passes its root.
def book_dir(root: Path | str | None = None) -> Path:
    """``book/``: the notebooks and pages of the book."""
    return _root(root) / _BOOK


def record_dirs(folder: Path | str) -> tuple[Path, Path]:
    """(records folder, figures folder) of ``folder``, laid out like ``book/``.

    ``folder`` is a book folder or a staging folder of a run (``_generated/`` and
    ``figures/`` inside it, as in ``book/``).

    Examples
    --------
    >>> [p.as_posix() for p in record_dirs("stage")]
    ['stage/_generated', 'stage/figures']
    """
    return Path(folder) / _GENERATED, Path(folder) / _FIGURES


def figure_file(name: str) -> str:
    """Figure ``name`` relative to ``book/``, as the records store it.

    Examples
    --------
    >>> figure_file("ch04-rates.png")
    'figures/ch04-rates.png'
    """
    return f"{_FIGURES}/{name}"


def generated_dir(root: Path | str | None = None) -> Path:
    """``book/_generated/``: the chapters' records."""
    return record_dirs(book_dir(root))[0]


def figures_dir(root: Path | str | None = None) -> Path:
    """``book/figures/``: the chapters' saved figures."""
    return record_dirs(book_dir(root))[1]


def runs_path(root: Path | str | None = None) -> Path:
    """``_build/reproduce/runs.json``: this machine's log of the last run of each chapter
    (runtime, versions, BLAS), outside git: it changes with every run."""
    return reproduce_dir(root) / "runs.json"


def reproducibility_page(root: Path | str | None = None) -> Path:
    """``book/reproducibility.md``: the generated reproducibility page."""
    return book_dir(root) / "reproducibility.md"


def data_dir(root: Path | str | None = None) -> Path:
    """``data/``: the stored datasets."""
    return _root(root) / _DATA


def manifest_path(root: Path | str | None = None) -> Path:
    """``data/manifest.json``: the stored datasets' hashes and provenance."""
    return data_dir(root) / "manifest.json"


def tests_dir(root: Path | str | None = None) -> Path:
    """``tests/``."""
    return _root(root) / _TESTS


def library_tests_dir(root: Path | str | None = None) -> Path:
    """``tests/lib/``: the library's tests (they also run against the installed wheel)."""
    return tests_dir(root) / "lib"


def build_dir(root: Path | str | None = None) -> Path:
    """``_build/``: everything built or scratch, never committed."""
    return _root(root) / _BUILD


def singlehtml_page(root: Path | str | None = None) -> Path:
    """``_build/singlehtml/book/index.html``: the whole book as one page, printed as the PDF."""
    return build_dir(root) / "singlehtml" / "book" / "index.html"


def pdf_dir(root: Path | str | None = None) -> Path:
    """``_build/pdf/``: the book's PDF and one PDF per page."""
    return build_dir(root) / "pdf"


def reproduce_dir(root: Path | str | None = None) -> Path:
    """``_build/reproduce/``: the runs' temporary folders and their log."""
    return build_dir(root) / "reproduce"


def wheel_dir(root: Path | str | None = None) -> Path:
    """``_build/wheel/``: the virtual environments of ``python -m kperc_book.wheelcheck``."""
    return build_dir(root) / "wheel"


def scratch_dir(root: Path | str | None = None) -> Path:
    """``_build/scratch/``: where a chapter run outside the pipeline writes its records."""
    return build_dir(root) / "scratch"


def toc_path(root: Path | str | None = None) -> Path:
    """``_toc.yml``: the book's table of contents."""
    return _root(root) / _TOC


def constraints_path(root: Path | str | None = None) -> Path:
    """``requirements/constraints.txt``: the exact versions the install line installs."""
    return _root(root) / _REQUIREMENTS / "constraints.txt"


def pyproject_path(root: Path | str | None = None) -> Path:
    """``pyproject.toml`` of the library."""
    return _root(root) / "pyproject.toml"


BOOK_DIR = book_dir()
FIGURES_DIR = figures_dir()
GENERATED_DIR = generated_dir()
DATA_DIR = data_dir()
TESTS_DIR = tests_dir()
BUILD_DIR = build_dir()
TOC = toc_path()


def checkout_message() -> str:
    """The one sentence every tool says outside a checkout (see :func:`require_checkout`)."""
    if os.environ.get(ROOT_ENV):
        return (
            f"kperc_book: {ROOT} (named by {ROOT_ENV}) is not a kperc-book checkout (a clone "
            "of the repository: a folder with _toc.yml, book/ and data/); set it to a clone"
        )
    return (
        "kperc_book: the current folder is not a kperc-book checkout, nor inside one (a "
        "clone of the repository: a folder with _toc.yml, book/ and data/), so nothing was "
        f"run or written; run this from a clone, or set {ROOT_ENV} to its folder"
    )


def require_checkout() -> Path:
    """Return :data:`ROOT`, or stop with a one-line message if it is not a checkout."""
    if not (TOC.is_file() and BOOK_DIR.is_dir() and DATA_DIR.is_dir()):
        raise NotACheckout(checkout_message())
    return ROOT

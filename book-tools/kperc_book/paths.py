"""The repository layout, known in one place.

Every tool of the book (chapters, reproduce, report, ledger, stored datasets, the
benchmark harness) takes its folders from here. The book tools work only inside a
checkout of the repository: :func:`require_checkout` says so in one line otherwise.
"""

from __future__ import annotations

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
    "NotACheckout",
    "require_checkout",
]

#: The repository root: the folder that holds ``_toc.yml``, ``book/`` and ``kperc/``.
ROOT = Path(__file__).resolve().parent.parent.parent
BOOK_DIR = ROOT / "book"
FIGURES_DIR = BOOK_DIR / "figures"
GENERATED_DIR = BOOK_DIR / "_generated"
TIMINGS_DIR = GENERATED_DIR / "timings"
DATA_DIR = ROOT / "data"
TESTS_DIR = ROOT / "tests"
BUILD_DIR = ROOT / "_build"
TOC = ROOT / "_toc.yml"


class NotACheckout(SystemExit):
    """Raised by a book tool that runs outside a checkout of the repository."""


def require_checkout() -> Path:
    """Return :data:`ROOT`, or stop with a one-line message if it is not a checkout."""
    if not (TOC.is_file() and BOOK_DIR.is_dir() and DATA_DIR.is_dir()):
        raise NotACheckout(
            f"kperc_book: {ROOT} is not a kperc-book checkout (no _toc.yml, book/ and data/); "
            "the book tools run only inside a clone of the repository"
        )
    return ROOT

"""The theorem ledger: every result the book states, where it is checked, what guards it.

:data:`REGISTRY` is the static part: one :class:`Result` per ledger id (the ids of
CONTRIBUTING.md), with the result's name, a one-line statement, the explicit constant
the book uses (derived on the Sources and derivations page) and the chapter that
states it. Everything else is discovered when the ledger page (``book/ledger.ipynb``) is
regenerated:

* :func:`recorded_checks` reads ``book/_generated/chNN.json``, written by
  :meth:`kperc_book.chapter.Chapter.check` during the last regeneration of each chapter
  (``{"checks": {id: {"ok", "detail", "instances"}}}``);
* :func:`guarding_tests` scans ``tests/*.py`` statically (with :mod:`ast`) for tests
  marked ``@pytest.mark.ledger("<id>")``;
* :func:`book_labels` and :func:`check_cells` scan the chapter notebooks for the labels
  of ``prf`` blocks, figures and targets, and for the cells that call
  ``ch.check("<id>", ...)``; :func:`locate` picks the label a ledger row links to.

:func:`collect` assembles the rows and :func:`table_markdown` renders the MyST table
that the ledger page shows. ``python -m kperc_book.ledger`` prints the table, and
``--strict`` exits with status 1 if a result lacks a passing check or a guarding test.
"""

from __future__ import annotations

from .assemble import Row, collect, locate, problems, recorded_checks
from .chapters import (
    Label,
    book_labels,
    chapter_notebooks,
    check_cells,
    check_ids_in_notebooks,
    myst_labels,
)
from .cli import main
from .guards import guarding_tests
from .registry import ORIGINS, REGISTRY, Result
from .render import details_markdown, table_markdown

__all__ = [
    "Result",
    "REGISTRY",
    "ORIGINS",
    "Label",
    "Row",
    "recorded_checks",
    "guarding_tests",
    "book_labels",
    "myst_labels",
    "check_cells",
    "check_ids_in_notebooks",
    "chapter_notebooks",
    "locate",
    "collect",
    "problems",
    "table_markdown",
    "details_markdown",
    "main",
]

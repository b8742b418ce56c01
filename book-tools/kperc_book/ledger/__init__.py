"""The theorem ledger: every result the book states, where it is checked, what guards it.

One module per job; this package exports what callers use (``from kperc_book import
ledger``, then ``ledger.collect()`` and so on):

* :mod:`~kperc_book.ledger.registry`, the static part: :data:`REGISTRY` holds one
  :class:`Result` per ledger id (the one place where the ids are defined), with the
  result's name, a one-line statement, the explicit constant the book uses (derived on
  the Sources and derivations page) and the chapter that states it.

Everything else is discovered when the ledger page (``book/ledger.ipynb``) is
regenerated:

* :mod:`~kperc_book.ledger.chapters`: :func:`book_labels` reads the chapter notebooks'
  MyST (:func:`myst_labels`, with markdown-it) for the labels of ``prf`` blocks, figures
  and targets, and :func:`check_cells` finds the cells that call ``ch.check("<id>", ...)``;
* :mod:`~kperc_book.ledger.guards`: :func:`guarding_tests` scans ``tests/**/test_*.py``
  statically (with :mod:`ast`) for tests marked ``@pytest.mark.ledger("<id>")``;
* :mod:`~kperc_book.ledger.assemble`: :func:`recorded_checks` reads
  ``book/_generated/chNN.json``, written by :meth:`kperc_book.chapter.Chapter.check`
  during the last regeneration of each chapter (``{"checks": {id: {"ok", "detail",
  "instances"}}}``); :func:`locate` picks the label a ledger row links to;
  :func:`collect` assembles the rows and :func:`problems` lists the gaps;
* :mod:`~kperc_book.ledger.render`: :func:`table_markdown` and :func:`details_markdown`
  render the MyST the ledger page shows;
* :mod:`~kperc_book.ledger.cli`: ``python -m kperc_book.ledger`` prints the table, and
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

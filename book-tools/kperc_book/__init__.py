"""The book's own machinery, apart from the :mod:`kperc` library.

* :mod:`kperc_book.paths`: the repository layout, in one place;
* :mod:`kperc_book.chapter`: the helper every chapter notebook uses (checks, figures,
  glued numbers, stored datasets);
* :mod:`kperc_book.reproduce` and :mod:`kperc_book.report`: re-execute chapters with
  papermill and write the reproducibility page;
* :mod:`kperc_book.ledger`: the theorem ledger;
* :mod:`kperc_book.data`: the stored datasets and their sha256 manifest;
* :mod:`kperc_book.benchopt_results`: benchopt's result file as pandas tables;
* :mod:`kperc_book.experiments`: one module per chapter with its sweeps and checks;
* :mod:`kperc_book._sphinx`: the Sphinx extension of the API page.

It is not part of the ``kperc`` wheel: it is the second distribution of the repository,
``kperc-book`` (``book-tools/pyproject.toml``, import name ``kperc_book``), installed
next to ``kperc`` by the one install line of the README, and it runs inside a checkout of
the repository (:mod:`kperc_book.paths` finds it).
"""

__version__ = "0.1.0"

"""``python -m kperc_book.ledger [--strict]`` (:func:`kperc_book.ledger.cli.main`)."""

import sys

from .cli import main

sys.exit(main())

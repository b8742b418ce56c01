"""``python -m kperc_book.experiments.ch07``."""

import sys

from kperc_book.experiments.ch07.timings import main

sys.exit(main())

"""The micro-benchmarks' package ``bench/`` lives at the checkout's root: importable here
under plain ``pytest`` too (``python -m pytest`` has the root on the path already)."""

import sys

from kperc_book import paths

if str(paths.ROOT) not in sys.path:
    sys.path.insert(0, str(paths.ROOT))

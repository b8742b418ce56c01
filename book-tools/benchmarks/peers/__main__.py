"""``python -m benchmarks.peers``: see :mod:`benchmarks.peers.cli`."""

import sys

from benchmarks.peers.cli import main

sys.exit(main())

"""Chapter 4: what the micro-benchmarks share with the chapter.

Chapter 4 (``book/ch04_smoothed_perceptron.ipynb``) runs its experiments in the notebook.
``make bench-micro`` (``bench/test_realdata.py``, pytest-benchmark) times NKP and SNKP
on the chapter's real kernel problems and writes :data:`TIMINGS_PATH`, which the
notebook reads as data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kperc_book.paths import GENERATED_DIR

__all__ = ["REAL_PROBLEMS", "TIMINGS_PATH", "read_timings"]

#: The real kernel problems of Chapter 3 (data bundled with scikit-learn).
REAL_PROBLEMS = ("breast_cancer-rbf", "digits_3_vs_8-rbf", "circles-rbf", "moons-rbf", "xor-poly")

#: Where ``make bench-micro`` stores the timings: pytest-benchmark's JSON, one entry per
#: (problem, method) in ``benchmarks``, with ``extra_info`` (``problem``, ``n``,
#: ``method``, ``nit``) and ``stats`` (``median``, ``rounds``, ... in seconds).
TIMINGS_PATH = GENERATED_DIR / "micro" / "realdata.json"


def read_timings(path: Path | str | None = None) -> dict[str, Any]:
    """Read the JSON that ``make bench-micro`` wrote (default :data:`TIMINGS_PATH`)."""
    return json.loads(Path(TIMINGS_PATH if path is None else path).read_text())

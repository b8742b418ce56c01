"""Chapter 4: the stored timings the chapter reads.

Chapter 4 (``book/ch04_smoothed_perceptron.ipynb``) runs its experiments in the notebook.
The timings of NKP and SNKP on the chapter's real kernel problems are stored in
:data:`TIMINGS_PATH` (written by the old benchmark harness, now removed; the
micro-benchmarks of ``bench/`` replace them), which the notebook reads as data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kperc_book.paths import TIMINGS_DIR

__all__ = ["REAL_PROBLEMS", "TIMINGS_PATH", "read_timings"]

#: The real kernel problems of Chapter 3 (data bundled with scikit-learn).
REAL_PROBLEMS = ("breast_cancer-rbf", "digits_3_vs_8-rbf", "circles-rbf", "moons-rbf", "xor-poly")

#: Where the stored timings of the real problems are.
TIMINGS_PATH = TIMINGS_DIR / "ch04-realdata.json"


def read_timings(path: Path | str | None = None) -> dict[str, Any]:
    """Read the stored timings of the real problems (default :data:`TIMINGS_PATH`)."""
    return json.loads(Path(TIMINGS_PATH if path is None else path).read_text())

"""Wall-clock timings of the chapter's methods: read and shown here, measured by the benchmark.

The ``svm`` suite of the benchmark harness (``python -m benchmarks.bench --suite svm``)
writes :data:`TIMINGS_PATH`; the notebook only reads it (:func:`read_timings`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kperc_book._markdown import table
from kperc_book.paths import TIMINGS_DIR

TIMINGS_PATH = TIMINGS_DIR / "ch07-svm.json"
TIMINGS_COMMAND = "python -m benchmarks.bench --suite svm"


#: Methods timed by the benchmark's ``svm`` suite: key -> description.
TIMING_METHODS = {
    "snkp": "kperc.snkp (Alg. 4), halts at the first separator",
    "nkp": "kperc.nkp (Alg. 3), halts at the first separator",
    "svc_homogeneous": "sklearn SVC, bias-free hard margin (2n symmetrised points)",
    "svc": "sklearn SVC with intercept (n points)",
    "margin": "kperc.margin: exact max margin (NNLS on a factor of G)",
}


#: Column headers of :func:`timings_markdown`, in the words of the chapter's prose.
TIMING_LABELS = {
    "snkp": "SNKP",
    "nkp": "NKP",
    "svc_homogeneous": "bias-free SVC",
    "svc": "SVC",
    "margin": "exact margin",
}


def read_timings(path: Path | str = TIMINGS_PATH) -> dict[str, Any]:
    """Read the JSON that the benchmark's ``svm`` suite wrote.

    Raises
    ------
    FileNotFoundError
        With the command that produces the file.
    ValueError
        If a required field is missing.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path.name} is missing; produce it with `{TIMINGS_COMMAND}`")
    payload = json.loads(path.read_text())
    for field in ("date", "machine", "results", "command"):
        if field not in payload:
            raise ValueError(
                f"{path.name} has no {field!r}; regenerate it with `{TIMINGS_COMMAND}`"
            )
    for row in payload["results"]:
        for field in ("problem", "n", "method", "seconds_median", "repeats"):
            if field not in row:
                raise ValueError(f"{path.name}: a result row has no {field!r}")
    return payload


def _ms(seconds: float) -> str:
    ms = 1e3 * seconds
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.2g}"


def timings_markdown(payload: Mapping[str, Any]) -> str:
    """A markdown table ``problem x method`` of median milliseconds."""
    rows = payload["results"]
    methods = [m for m in TIMING_METHODS if any(r["method"] == m for r in rows)]
    problems = list(dict.fromkeys(r["problem"] for r in rows))
    header = ["problem", "n", *(TIMING_LABELS[m] for m in methods)]
    body = []
    for problem in problems:
        by_method = {r["method"]: r for r in rows if r["problem"] == problem}
        n = next(iter(by_method.values()))["n"]
        times = [_ms(by_method[m]["seconds_median"]) if m in by_method else "" for m in methods]
        body.append([problem, n, *times])
    return table(header, body, align="lr" + "r" * len(methods)) + "\n"

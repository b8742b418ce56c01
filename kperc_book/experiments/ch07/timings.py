"""Wall-clock timings of the chapter's methods (run outside the notebook)."""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import kperc
from kperc_book import data as kdata
from kperc_book.paths import ROOT as REPO_DIR
from kperc_book.paths import TIMINGS_DIR

TIMINGS_PATH = TIMINGS_DIR / "ch07-svm.json"
TIMINGS_COMMAND = "python -m kperc_book.experiments.ch07 --timings"


#: Methods timed by :func:`write_timings`: key -> description.
TIMING_METHODS = {
    "snkp": "kperc.snkp (Alg. 4), halts at the first separator",
    "nkp": "kperc.nkp (Alg. 3), halts at the first separator",
    "svc_homogeneous": "sklearn SVC, bias-free hard margin (2n symmetrised points)",
    "svc": "sklearn SVC with intercept (n points)",
    "margin": "kperc.margin: exact max margin (NNLS on a factor of G)",
}


def _time(func, repeats: int) -> tuple[float, list[float]]:
    func()  # warm-up (imports, caches)
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        func()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)), ts


def _machine() -> dict[str, Any]:
    from importlib import metadata

    info = {
        "python": platform.python_version(),
        "system": platform.system(),
        "machine": platform.machine(),
        "processor": platform.processor() or "unknown",
        "cpu_count": os.cpu_count(),
    }
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    for dist in ("kperc", "numpy", "scipy", "scikit-learn"):
        try:
            info[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:  # pragma: no cover
            info[dist] = "missing"
    if hasattr(os, "getloadavg"):
        info["load_average_1min_at_start"] = round(os.getloadavg()[0], 2)
    info["threads"] = {
        k: os.environ[k]
        for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
        if k in os.environ
    }
    return info


def write_timings(
    path: Path | str = TIMINGS_PATH,
    *,
    repeats: int = 7,
    problems: Sequence[str] | None = None,
    C: float = 1e6,
    tol: float = 1e-6,
) -> dict[str, Any]:
    """Time SNKP, NKP, SVC and the exact margin on the book's problems; write JSON.

    Every method gets one warm-up call and then ``repeats`` timed calls on the same
    precomputed ``G`` (building ``G`` is not timed; it is validated once, and the
    kperc calls skip validation with ``check_input=False``). The file holds the median
    seconds, the individual times, the date and the machine.

    Parameters
    ----------
    path : path
        Output JSON file (default ``book/_generated/timings/ch07-svm.json``).
    repeats : int
    problems : sequence of str, optional
        Names of :data:`kperc_book.data.PROBLEMS` (default: all).
    C, tol : float
        SVC parameters.

    Returns
    -------
    dict
        The payload written.
    """
    from sklearn.svm import SVC

    if repeats < 1:
        raise ValueError(f"repeats must be >= 1; got {repeats}")
    rows = []
    for name in problems if problems is not None else list(kdata.PROBLEMS):
        G, ds, _, _ = kdata.problem(name)
        n = G.shape[0]
        K2 = np.block([[G, -G], [-G, G]])
        y2 = np.concatenate([np.ones(n), -np.ones(n)])
        K = G * np.outer(ds.y, ds.y)
        calls = {
            "snkp": lambda G=G: kperc.snkp(G, check_input=False),
            "nkp": lambda G=G: kperc.nkp(G, check_input=False),
            "svc_homogeneous": lambda K2=K2, y2=y2: SVC(C=C, kernel="precomputed", tol=tol).fit(
                K2, y2
            ),
            "svc": lambda K=K, y=ds.y: SVC(C=C, kernel="precomputed", tol=tol).fit(K, y),
            "margin": lambda G=G: kperc.margin(G),
        }
        for method, func in calls.items():
            med, ts = _time(func, repeats)
            rows.append(
                {
                    "problem": name,
                    "n": n,
                    "method": method,
                    "seconds_median": med,
                    "seconds": ts,
                    "repeats": repeats,
                }
            )
    payload = {
        "what": "wall time of the methods compared in Chapter 7 (median over repeats)",
        "command": TIMINGS_COMMAND,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d"),
        "machine": _machine(),
        "methods": TIMING_METHODS,
        "svc": {"C": C, "tol": tol},
        "results": rows,
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)
    return payload


def read_timings(path: Path | str = TIMINGS_PATH) -> dict[str, Any]:
    """Read the JSON that :func:`write_timings` wrote.

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
    head = "| problem | n | " + " | ".join(f"`{m}`" for m in methods) + " |"
    lines = [head, "|---|---:|" + "---:|" * len(methods)]
    for p in problems:
        sel = {r["method"]: r for r in rows if r["problem"] == p}
        n = next(iter(sel.values()))["n"]
        cells = [_ms(sel[m]["seconds_median"]) if m in sel else "" for m in methods]
        lines.append(f"| {p} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m kperc_book.experiments.ch07 --timings [--repeats R] [--output PATH]``."""
    ap = argparse.ArgumentParser(
        prog="python -m kperc_book.experiments.ch07",
        description="Chapter 7 experiments run outside the book.",
    )
    ap.add_argument(
        "--timings",
        action="store_true",
        help="time SNKP, NKP, SVC and the exact margin on the book's problems "
        "and write book/_generated/timings/ch07-svm.json",
    )
    ap.add_argument("--repeats", type=int, default=7, help="timed calls per method")
    ap.add_argument("--output", default=str(TIMINGS_PATH), help="JSON file to write")
    args = ap.parse_args(argv)
    if not args.timings:
        ap.print_help()
        return 2
    payload = write_timings(args.output, repeats=args.repeats)
    print(timings_markdown(payload), end="")
    try:
        shown = Path(args.output).resolve().relative_to(REPO_DIR)
    except ValueError:
        shown = Path(args.output).name
    print(f"wrote {shown}")
    return 0

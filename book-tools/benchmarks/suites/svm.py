"""The ``svm`` suite: Chapter 7's wall times of SNKP, NKP, SVC and the exact margin.

It writes ``book/_generated/timings/ch07-svm.json`` (the format
:func:`kperc_book.experiments.ch07.read_timings` reads) and returns its rows for the
benchmark record. The chapter's notebook only reads the file.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import kperc
from benchmarks._config import BenchConfig, timings_path
from benchmarks._timing import interleaved_times, summarize
from benchmarks.record import write_json
from kperc_book import data as kdata
from kperc_book.experiments.ch07.timings import TIMING_METHODS, TIMINGS_COMMAND, TIMINGS_PATH
from kperc_book.machine import machine_info


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
    kperc calls skip validation with ``check_input=False``). The repeats of the five
    methods alternate (:func:`benchmarks._timing.round_robin`), so a busy phase of the
    machine hits them alike. The file holds the median seconds with their spread, the
    individual times, the date and the machine.

    Parameters
    ----------
    path : path
        Output JSON file (default ``book/_generated/timings/ch07-svm.json``).
    repeats : int
        Timed calls per method.
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
    load_start = machine_info(packages=())["loadavg"]
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
        times = interleaved_times(calls, repeats)
        for method, ts in times.items():
            spread = summarize(ts)
            rows.append(
                {
                    "problem": name,
                    "n": n,
                    "method": method,
                    "seconds_median": spread["median"],
                    "seconds_spread": spread,
                    "seconds": ts,
                    "repeats": repeats,
                }
            )
    machine = machine_info()
    machine["load_average_1min_at_start"] = load_start[0] if load_start else None
    payload = {
        "what": "wall time of the methods compared in Chapter 7 (median over repeats)",
        "command": TIMINGS_COMMAND,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d"),
        "machine": machine,
        "methods": TIMING_METHODS,
        "schedule": "one warm-up call each, then the repeats of the methods in round robin",
        "svc": {"C": C, "tol": tol},
        "results": rows,
    }
    write_json(Path(path), payload, indent=2)
    return payload


def suite_svm(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Chapter 7's timings, written to their file; the rows also go into the record."""
    path = timings_path(cfg, TIMINGS_PATH.name)
    payload = write_timings(path, repeats=cfg.svm_repeats, problems=cfg.svm_problems)
    for r in payload["results"]:
        s = r["seconds_spread"]
        log(
            f"svm {r['problem']:20s} {r['method']:16s} {1e3 * s['median']:.3g} ms "
            f"[{1e3 * s['min']:.3g}-{1e3 * s['max']:.3g}]"
        )
    return {"rows": payload["results"], "file": path.name}

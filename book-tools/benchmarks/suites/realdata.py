"""The ``realdata`` suite: Chapter 4's wall times of SNKP and NKP on the real problems.

It writes ``book/_generated/timings/ch04-realdata.json`` (the format
:func:`kperc_book.experiments.ch04.read_timings` reads) and returns its rows for the
benchmark record. The chapter's notebook only reads the file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import kperc
from benchmarks._config import BenchConfig, timings_path
from benchmarks._timing import interleaved_times, summarize
from benchmarks.record import write_json
from kperc_book import data as kdata
from kperc_book.experiments.ch04 import REAL_PROBLEMS, TIMINGS_PATH
from kperc_book.machine import machine_info

#: The command that writes the file (recorded in it).
COMMAND = "python -m benchmarks.bench --suite realdata"


def write_timings(
    path: Path | str | None = None, *, repeats: int = 21, names: Sequence[str] = REAL_PROBLEMS
) -> dict[str, Any]:
    """Median wall time of SNKP and NKP on each real problem; write it as JSON.

    The Gram matrix is built once per problem (not timed); each method is run once to
    warm up, then the ``repeats`` timed runs of the two methods alternate
    (:func:`benchmarks._timing.round_robin`), timed with :func:`time.perf_counter`.
    The median over repeats is reported with its spread.

    Parameters
    ----------
    path : path-like, optional
        Output file; default ``book/_generated/timings/ch04-realdata.json``.
    repeats : int
        Timed runs per (problem, method).
    names : sequence of str
        Problems of :data:`kperc_book.data.PROBLEMS`.

    Returns
    -------
    dict
        The JSON payload: ``rows`` (``problem``, ``n``, ``method``, ``nit``,
        ``seconds_median``, ``seconds_min``, ``seconds_spread``, ``repeats``),
        ``date``, ``machine``, ``command``.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1; got {repeats}")
    path = TIMINGS_PATH if path is None else Path(path)
    methods = {"nkp": kperc.nkp, "snkp": kperc.snkp}
    rows = []
    for name in names:
        G = kdata.problem(name)[0]
        nit = {m: int(f(G, check_input=False).nit) for m, f in methods.items()}
        calls = {m: (lambda f=f, G=G: f(G, check_input=False)) for m, f in methods.items()}
        times = interleaved_times(calls, repeats, warmup=False)  # the runs above warmed up
        for mname, ts in times.items():
            spread = summarize(ts)
            rows.append(
                {
                    "problem": name,
                    "n": int(G.shape[0]),
                    "method": mname,
                    "nit": nit[mname],
                    "seconds_median": spread["median"],
                    "seconds_min": spread["min"],
                    "seconds_spread": spread,
                    "repeats": int(repeats),
                }
            )
    payload = {
        "rows": rows,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "command": COMMAND,
        "note": "Gram matrix built once per problem and not timed; one warm-up "
        "run each, then the timed runs of the two methods in round robin; medians "
        "(time.perf_counter).",
    }
    write_json(path, payload, indent=2)
    return payload


def suite_realdata(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Chapter 4's timings, written to their file; the rows also go into the record."""
    path = timings_path(cfg, TIMINGS_PATH.name)
    payload = write_timings(path, repeats=cfg.realdata_repeats, names=cfg.realdata_problems)
    for r in payload["rows"]:
        s = r["seconds_spread"]
        log(
            f"realdata {r['problem']:20s} {r['method']:5s} nit={r['nit']:<5d} "
            f"{1e3 * s['median']:.3g} ms [{1e3 * s['min']:.3g}-{1e3 * s['max']:.3g}]"
        )
    return {"rows": payload["rows"], "file": path.name}

"""Timing helpers: clocks, one product, time per iteration, capped runs."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks._problems import (
    _fixed_run,
    _products,
)


def _now() -> float:
    return time.perf_counter()


def _cpu() -> float:
    """CPU time of the calling thread: what the per-iteration ratios compare.

    BLAS runs single-threaded during the measurements, so all the work of an algorithm
    is done by this thread, and its CPU time does not count the time the thread spent
    waiting for a core that other processes were using (wall time does).
    """
    return time.thread_time()


def time_matvec(
    G, repeats: int = 5, min_time: float = 0.02, clock: Callable[[], float] = _cpu
) -> float:
    """Median time (s) of one product ``G @ v`` (the factored form: ``Z (Z^T v)``)."""
    mv, _ = _products(G)
    n = G.shape[0]
    v = np.random.default_rng(1).random(n)
    mv(v)
    t0 = _now()
    mv(v)
    one = max(_now() - t0, 1e-7)
    inner = max(1, int(min_time / one))
    times = []
    for _ in range(repeats):
        t0 = clock()
        for _ in range(inner):
            mv(v)
        times.append((clock() - t0) / inner)
    return float(np.median(times))


def summarize(values: Sequence[float]) -> dict[str, Any]:
    """Median of repeated measurements with their spread.

    Returns
    -------
    dict
        ``median``, ``q1`` and ``q3`` (the interquartile range), ``min``, ``max`` and
        ``n`` (the number of values).

    Examples
    --------
    >>> from benchmarks._timing import summarize
    >>> s = summarize([3.0, 1.0, 2.0, 4.0, 5.0])
    >>> s["median"], s["q1"], s["q3"], s["min"], s["max"], s["n"]
    (3.0, 2.0, 4.0, 1.0, 5.0, 5)
    """
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        raise ValueError("summarize needs at least one value; got an empty sequence")
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    return {
        "median": float(med),
        "q1": float(q1),
        "q3": float(q3),
        "min": float(v.min()),
        "max": float(v.max()),
        "n": int(v.size),
    }


def round_robin(names: Sequence[str], repeats: int) -> list[tuple[int, str]]:
    """The order in which interleaved measurements run: ``(repeat, name)`` pairs.

    Every repeat runs each name once; the starting name rotates from one repeat to the
    next, so no command always runs first (after a pause) or last. A slow phase of a
    shared machine then hits every compared command alike instead of all the repeats
    of one of them.

    Examples
    --------
    >>> from benchmarks._timing import round_robin
    >>> round_robin(["a", "b", "c"], 2)
    [(0, 'a'), (0, 'b'), (0, 'c'), (1, 'b'), (1, 'c'), (1, 'a')]
    """
    names = list(names)
    if not names:
        return []
    order = []
    for r in range(repeats):
        k = r % len(names)
        order += [(r, x) for x in names[k:] + names[:k]]
    return order


def interleaved_times(
    calls: dict[str, Callable[[], Any]],
    repeats: int,
    *,
    clock: Callable[[], float] = _now,
    warmup: bool = True,
) -> dict[str, list[float]]:
    """Time every call ``repeats`` times, interleaved in :func:`round_robin` order.

    Each call runs once untimed first (``warmup``: imports, caches). Returns the times
    of each call in the order they were measured.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1; got {repeats}")
    if warmup:
        for f in calls.values():
            f()
    times: dict[str, list[float]] = {k: [] for k in calls}
    for _, name in round_robin(list(calls), repeats):
        t0 = clock()
        calls[name]()
        times[name].append(clock() - t0)
    return times


def _calibrate(alg: str, G, target_time: float) -> tuple[int, bool]:
    """``K`` such that ``K`` extra iterations of ``alg`` take about ``target_time``."""
    iters, full = 16, True
    while True:
        t0 = _cpu()
        r1 = _fixed_run(alg, G, iters)
        t1 = _cpu() - t0
        t0 = _cpu()
        r2 = _fixed_run(alg, G, 2 * iters)
        extra = _cpu() - t0 - t1
        full = full and r1.nit == iters and r2.nit == 2 * iters
        if extra >= 0.3 * target_time or iters >= 500_000:
            return iters, full
        grow = target_time / extra if extra > 0 else 16.0
        iters = int(min(500_000, iters * min(16.0, max(2.0, grow))))


def per_iteration_interleaved(
    algs: Sequence[str], G, repeats: int = 5, target_time: float = 0.08
) -> dict[str, dict[str, Any]]:
    """Time per iteration of several algorithms and its ratio to one product with ``G``.

    Each algorithm's run length ``K`` is calibrated first. Then every repeat measures,
    for each algorithm in :func:`round_robin` order, one product, a run of ``K`` and a
    run of ``2 K`` iterations: ``(t(2K) - t(K)) / K`` removes the setup (validation,
    first products, result assembly), and the ratio to the product measured next to it
    cancels slow phases of a loaded machine. The repeats of the compared algorithms
    alternate, so such a phase affects all of them alike. Times are the CPU time of
    this thread (:func:`_cpu`).

    Returns
    -------
    dict
        For each algorithm: ``per_iter_s``, ``matvec_s``, ``ratio`` (medians over
        repeats), ``ratio_spread`` (:func:`summarize` of the ratios), ``ratio_iqr``,
        ``matvec_first_s``, ``iters``, ``full_length`` (every run used all its
        iterations: the instance did not let it halt), ``columns_per_iter`` (NKP and
        NVN: columns of ``G`` computed per iteration in the longer run, i.e. the miss
        rate of the column cache; ``None`` otherwise) and ``order`` (the position of
        the algorithm in each repeat).
    """
    tmv = time_matvec(G, repeats=3)
    cal = {alg: _calibrate(alg, G, target_time) for alg in algs}
    per_iters: dict[str, list[float]] = {a: [] for a in algs}
    mvs: dict[str, list[float]] = {a: [] for a in algs}
    ratios: dict[str, list[float]] = {a: [] for a in algs}
    full = {a: cal[a][1] for a in algs}
    order: dict[str, list[int]] = {a: [] for a in algs}
    last: dict[str, Any] = {}
    for i, (_, alg) in enumerate(round_robin(algs, repeats)):
        iters = cal[alg][0]
        mv_t = time_matvec(G, repeats=1)
        t0 = _cpu()
        r1 = _fixed_run(alg, G, iters)
        t1 = _cpu() - t0
        t0 = _cpu()
        r2 = _fixed_run(alg, G, 2 * iters)
        t2 = _cpu() - t0
        full[alg] = full[alg] and r1.nit == iters and r2.nit == 2 * iters
        per = max(t2 - t1, 0.0) / iters
        per_iters[alg].append(per)
        mvs[alg].append(mv_t)
        ratios[alg].append(per / mv_t)
        order[alg].append(i % len(algs))  # its place in this repeat
        last[alg] = r2
    out = {}
    for alg in algs:
        r2 = last[alg]
        cols = getattr(r2, "ncol", None)  # NKP and NVN: columns of G computed (cache misses)
        spread = summarize(ratios[alg])
        out[alg] = {
            "per_iter_s": float(np.median(per_iters[alg])),
            "matvec_s": float(np.median(mvs[alg])),
            "matvec_first_s": tmv,
            "ratio": spread["median"],
            "ratio_spread": spread,
            "columns_per_iter": (cols / r2.nit) if cols is not None and r2.nit else None,
            "ratio_iqr": [spread["q1"], spread["q3"]],
            "iters": cal[alg][0],
            "full_length": bool(full[alg]),
            "order": order[alg],
        }
    return out


def per_iteration(alg: str, G, repeats: int = 5, target_time: float = 0.08) -> dict[str, Any]:
    """Time per iteration of one algorithm: :func:`per_iteration_interleaved` for ``[alg]``."""
    return per_iteration_interleaved([alg], G, repeats, target_time)[alg]


def run_capped(
    make: Callable[[int], Any], cap_s: float, *, max_iter: int = 10**9, pilot_time: float = 0.05
) -> dict[str, Any]:
    """Run ``make(max_iter)`` to completion, or for about ``cap_s`` seconds.

    kperc's algorithms stop after ``max_iter`` iterations. Pilot runs with growing
    ``max_iter`` estimate the time per iteration; the final run gets the iteration
    budget that fits in ``cap_s`` (and is repeated with a larger budget, up to four
    times, if it stops short of ``0.95 cap_s``). A run that halts within a pilot is
    the result.

    Returns
    -------
    dict
        ``result`` (the :class:`~kperc.KpercResult`), ``time_s`` (wall time of that
        complete run), ``capped`` (stopped by the cap) and ``cap_s``.
    """
    k, prev = 16, None
    while True:
        k = min(k, max_iter)
        t0 = _now()
        res = make(k)
        dt = _now() - t0
        if res.outcome != "max_iter" or k >= max_iter:
            return {
                "result": res,
                "time_s": dt,
                "capped": res.outcome == "max_iter",
                "cap_s": cap_s,
            }
        if dt >= pilot_time or dt >= cap_s:
            break
        prev = (k, dt)
        k *= 4
    # time per iteration from the last two pilots (their difference removes the setup)
    slope = dt / k
    if prev is not None and dt > prev[1]:
        slope = (dt - prev[1]) / (k - prev[0])
    # aim 20% past the cap: a stopped run must have lasted at least about cap_s, since
    # its time is quoted as a lower bound against a goal (the estimate is noisy)
    budget = int(min(max_iter, max(k + 1, k + 1.2 * (cap_s - dt) / max(slope, 1e-12))))
    if dt >= cap_s:
        return {"result": res, "time_s": dt, "capped": True, "cap_s": cap_s}
    last = (k, dt)
    for _ in range(4):
        t0 = _now()
        res = make(budget)
        dt = _now() - t0
        # An iteration can get cheaper as a run goes on (NKP's and NVN's column cache
        # fills), so the pilots may overestimate its cost and a stopped run fall short
        # of the cap; then run again, extrapolating with the cost of the iterations
        # that this run added over the previous one.
        if res.outcome != "max_iter" or dt >= 0.95 * cap_s or budget >= max_iter:
            break
        slope = (dt - last[1]) / (budget - last[0]) if dt > last[1] else dt / budget
        last = (budget, dt)
        budget = int(
            min(max_iter, max(budget + 1, budget + 1.2 * (cap_s - dt) / max(slope, 1e-12)))
        )
    return {"result": res, "time_s": dt, "capped": res.outcome == "max_iter", "cap_s": cap_s}

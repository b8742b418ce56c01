"""Timing helpers: clocks, one product, time per iteration, capped runs."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._instances import (
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


def per_iteration(alg: str, G, repeats: int = 5, target_time: float = 0.08) -> dict[str, Any]:
    """Time per iteration of ``alg`` and its ratio to one product with ``G``.

    Two run lengths ``K`` and ``2 K`` are timed, interleaved with the product, in every
    repeat; ``(t(2K) - t(K)) / K`` removes the setup (validation, first products,
    result assembly). Times are the CPU time of this thread (:func:`_cpu`). The ratio is
    the median over repeats of per-iteration time over product time, so slow phases of
    a loaded machine affect both alike.

    Returns
    -------
    dict
        ``per_iter_s``, ``matvec_s``, ``ratio``, ``iters``, ``full_length`` (every
        run used all its iterations, i.e. the instance did not let it halt) and
        ``columns_per_iter`` (NKP and NVN: columns of ``G`` computed per iteration in
        the longer run, i.e. the miss rate of the column cache; ``None`` otherwise).
    """
    tmv = time_matvec(G, repeats=3)
    iters, full = 16, True
    while True:  # calibrate K so that the K extra iterations take about target_time
        t0 = _cpu()
        r1 = _fixed_run(alg, G, iters)
        t1 = _cpu() - t0
        t0 = _cpu()
        r2 = _fixed_run(alg, G, 2 * iters)
        extra = _cpu() - t0 - t1
        full = full and r1.nit == iters and r2.nit == 2 * iters
        if extra >= 0.3 * target_time or iters >= 500_000:
            break
        grow = target_time / extra if extra > 0 else 16.0
        iters = int(min(500_000, iters * min(16.0, max(2.0, grow))))
    ratios, per_iters, mvs = [], [], []
    for _ in range(repeats):
        mv_t = time_matvec(G, repeats=1)
        t0 = _cpu()
        r1 = _fixed_run(alg, G, iters)
        t1 = _cpu() - t0
        t0 = _cpu()
        r2 = _fixed_run(alg, G, 2 * iters)
        t2 = _cpu() - t0
        full = full and r1.nit == iters and r2.nit == 2 * iters
        per = max(t2 - t1, 0.0) / iters
        per_iters.append(per)
        mvs.append(mv_t)
        ratios.append(per / mv_t)
    cols = getattr(r2, "ncol", None)  # NKP and NVN: columns of G computed (cache misses)
    return {
        "per_iter_s": float(np.median(per_iters)),
        "matvec_s": float(np.median(mvs)),
        "matvec_first_s": tmv,
        "ratio": float(np.median(ratios)),
        "columns_per_iter": (cols / r2.nit) if cols is not None and r2.nit else None,
        "ratio_iqr": [float(np.percentile(ratios, 25)), float(np.percentile(ratios, 75))],
        "iters": iters,
        "full_length": bool(full),
    }


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

"""The ``separable`` suite: how long :func:`kperc.is_separable` takes to answer exactly.

"Is my data separable?" has one documented call, :func:`kperc.is_separable`: one linear
program (HiGHS) whose separator or Gordan certificate is then checked beyond rounding.
This suite times it, end to end and in wall time, on linear problems of ``n = 2000``
points (the question's target size) and on two real data sets bundled with
scikit-learn: a planted separable problem in dimension 50 (``rho = 1e-3``), the same
with the labels of 1 % of its points flipped, and an inseparable problem of
:func:`kperc.datasets.infeasible` (dimension 5, the most that generator plants). The
target is an exact answer ("separable" or "not separable", never "undecided") within
:data:`TARGET_S` seconds at ``n = 2000``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._config import BenchConfig
from benchmarks._timing import summarize
from benchmarks.targets import target
from kperc import is_separable
from kperc.datasets import Dataset, breast_cancer, digits, infeasible, planted

#: The target: seconds to an exact answer at ``n = 2000`` (linear kernel).
TARGET_S = 1.0
#: The size the target is stated at.
TARGET_N = 2000


def _flipped(ds: Dataset, fraction: float, seed: int) -> Dataset:
    """``ds`` with the labels of ``fraction`` of its points flipped (seeded)."""
    rng = np.random.default_rng(seed)
    y = ds.y.copy()
    idx = rng.choice(len(y), max(1, int(fraction * len(y))), replace=False)
    y[idx] = -y[idx]
    return Dataset(ds.X, y, {**ds.info, "flipped": int(idx.size)})


def problems(n: int, seed: int) -> dict[str, Dataset]:
    """The problems of the suite, by name (``n`` points for the generated ones)."""
    sep = planted(n, 50, rho=1e-3, seed=seed)
    return {
        "planted": sep,
        "infeasible": infeasible(n, 5, rho=-1e-2, seed=seed),
        "planted, 1 % flipped": _flipped(sep, 0.01, seed),
        "breast cancer": breast_cancer(),
        "digits 3 vs 8": digits((3, 8)),
    }


def suite_separable(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Wall time of :func:`kperc.is_separable` and its answer, problem by problem."""
    n = 300 if cfg.quick else TARGET_N
    repeats = max(1, min(cfg.repeats, 5))
    rows = []
    for name, ds in problems(n, cfg.seed).items():
        times, res = [], None
        for _ in range(repeats):
            t0 = time.perf_counter()
            res = is_separable(ds.X, ds.y)
            times.append(time.perf_counter() - t0)
        assert res is not None
        t = summarize(times)
        row = {
            "problem": name,
            "n": int(ds.X.shape[0]),
            "d": int(ds.X.shape[1]),
            "status": str(res.status),
            "exact": bool(res.get("exact", False)),
            "time_s": t["median"],
            "time": t,
            "generated": name not in ("breast cancer", "digits 3 vs 8"),
        }
        rows.append(row)
        log(f"separable {name:<22s} n={row['n']:<5d} {row['status']:<14s} {t['median']:.3g} s")
    return {"rows": rows, "target_s": TARGET_S, "target_n": n}


def targets(result: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """One target per generated problem: an exact answer within ``TARGET_S`` seconds."""
    out: list[dict[str, Any]] = []
    for r in (result or {}).get("rows", []):
        if not r["generated"]:
            continue
        decided = r["status"] in ("separable", "not separable")
        ok = decided and r["time_s"] <= result["target_s"]
        slug = r["problem"].split(",")[0].replace(" ", "-")
        if "flipped" in r["problem"]:
            slug += "-flipped"
        out.append(
            target(
                f"separable-{slug}",
                f"kperc.is_separable, linear kernel, n = {r['n']}, d = {r['d']}: seconds to "
                f"an exact answer ({r['problem']})",
                r["time_s"],
                result["target_s"],
                ok,
                f"answered {r['status']!r} in {r['time_s']:.3g} s (median of {r['time']['n']})",
            )
        )
    return out


def summary(result: dict[str, Any]) -> list[str]:
    """Lines of the text summary: each problem's answer and time."""
    rows = (result or {}).get("rows", [])
    if not rows:
        return []
    lines = ["", "Is it separable? kperc.is_separable (linear kernel), wall time:"]
    for r in rows:
        lines.append(f"  {r['problem']:<22s} n={r['n']:<5d} {r['status']:<14s} {r['time_s']:.3g} s")
    return lines

"""The ``dist`` suite: the exact distance to the witness set, ``kperc.dist_to_witness``.

Three families of infeasible problems: two linear ones, whose witness sets
``W = {p in simplex : G p = 0}`` are large (``G`` has rank ``d``): points with a planted
negative margin in ``d = 5`` (the instances of the ``certificates`` suite) and points
with random labels in ``d = 20``; and an RBF one, whose ``W`` is thin: the mixtures of
the pairs of a point repeated under the opposite label. ``q`` is a seeded random point
of the simplex. The calls of one size run interleaved; the medians, their spread, the
distance and the certified gap (upper less lower bound) are recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from benchmarks._config import DIST_TARGET_S, BenchConfig
from benchmarks._timing import interleaved_times, summarize
from benchmarks.targets import target
from kperc._kernels import gram_matrix
from kperc._margins import dist_to_witness
from kperc_book import data as _data


def _negative_margin(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    ds = _data.infeasible(n, 5, -0.05, seed=seed)
    return ds.X, ds.y


def _random_labels(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 20)), rng.choice([-1, 1], n)


def _rbf_flipped(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Moons, with 5 % of the points repeated under the opposite label."""
    k = max(1, n // 20)
    moons = _data.moons(n - k, seed=seed)
    idx = np.random.default_rng(seed).choice(n - k, k, replace=False)
    return np.vstack([moons.X, moons.X[idx]]), np.concatenate([moons.y, -moons.y[idx]])


#: The instance families: ``name -> (maker(n, seed) -> (X, y), kernel, kernel params)``.
FAMILIES: dict[str, tuple[Callable[[int, int], tuple[np.ndarray, np.ndarray]], str, dict]] = {
    "linear, negative margin, d = 5": (_negative_margin, "linear", {}),
    "linear, random labels, d = 20": (_random_labels, "linear", {}),
    "RBF, moons with 5 % repeated under the opposite label": (
        _rbf_flipped,
        "rbf",
        {"gamma": 2.0},
    ),
}


def _solve(results: dict[str, Any], fam: str, G: np.ndarray, q: np.ndarray) -> None:
    results[fam] = dist_to_witness(G, q)


def suite_dist(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Time ``dist_to_witness`` at each ``cfg.dist_sizes`` on every family."""
    rows = []
    for n in cfg.dist_sizes:
        cases = {}
        for fam, (make, kernel, params) in FAMILIES.items():
            X, y = make(n, cfg.seed)
            G = gram_matrix(X, y, kernel, **params)
            q = np.random.default_rng(cfg.seed + 2).random(n)
            cases[fam] = (G, q / q.sum())
        results: dict[str, Any] = {}
        calls = {f: partial(_solve, results, f, *cases[f]) for f in cases}
        times = interleaved_times(calls, cfg.repeats)
        for fam, ts in times.items():
            r = results[fam]
            s = summarize(ts)
            rows.append(
                {
                    "n": n,
                    "family": fam,
                    "time_s": s["median"],
                    "time_min_s": s["min"],
                    "time_max_s": s["max"],
                    "repeats": s["n"],
                    "status": str(r.status),
                    "dist": float(r.dist),
                    "dist_lower": float(r.dist_lower),
                    "gap": float(r.gap),
                    "residual": float(r.residual),
                    "polished": bool(r.polished),
                }
            )
            log(
                f"dist n={n} {fam}: {s['median']:.3g} s [{s['min']:.3g}-{s['max']:.3g}] "
                f"dist={r.dist:.4g} gap={r.gap:.2g}"
            )
    return {"rows": rows}


def targets(dist: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """Seconds for ``dist_to_witness`` at the largest ``n`` (the slowest family)."""
    out: list[dict[str, Any]] = []
    if dist and dist["rows"]:
        big = max(r["n"] for r in dist["rows"])
        worst = max((r for r in dist["rows"] if r["n"] == big), key=lambda r: r["time_s"])
        gap = max(r["gap"] for r in dist["rows"])
        out.append(
            target(
                "dist-time",
                f"exact distance to the witness set (dist_to_witness), n = {big}, seconds",
                worst["time_s"],
                DIST_TARGET_S,
                worst["time_s"] <= DIST_TARGET_S,
                f"slowest family: {worst['family']}, median {worst['time_s']:.3g} s "
                f"(spread {worst['time_min_s']:.3g}-{worst['time_max_s']:.3g}); largest "
                f"certified gap over all runs {gap:.2g}",
            )
        )
    return out

"""The open question, sqrt(n) or sqrt(log n)? Imbalanced families, sweeps and bounds."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import kperc
from kperc.sweeps import grid, sweep
from kperc_book import data as kdata


def imbalanced(
    n: int,
    d: int = 10,
    rho: float = 0.05,
    *,
    spread: float = 0.3,
    width: float = 1.0,
    seed: int = 0,
) -> kdata.Dataset:
    """Separable data with exact normalised margin ``rho`` and one lone support point.

    With ``w* = e_1`` and ``u = e_2``, the signed normalised points are
    ``s_- = rho w* - c u`` (``c = sqrt(1 - rho^2)``) and ``n - 1`` points
    ``t_i w* + sqrt(1 - t_i^2) v_i`` with ``t_i`` uniform in
    ``[rho, min(1, rho (1 + width))]`` and unit ``v_i`` orthogonal to ``w*`` clustered
    around ``u`` (``v_i`` proportional to ``u + spread g_i``, with ``g_i`` Gaussian and
    orthogonal to ``w*`` and ``u``, so ``v_i^T u > 0``); the first
    of them is exactly ``s_+ = rho w* + c u``. Every point has ``a_i^T w* >= rho`` and the
    midpoint ``rho w*`` of ``s_+`` and ``s_-`` lies in the hull, so ``rho_2 = rho``
    exactly (the paper's Section 3).

    Starting from the barycentre of the simplex, a method must move about half of the
    weight onto the single point ``s_-``: the Euclidean prox-function of SNKPVN
    (``mu_0 = 2n``) can only do so slowly, the entropy of SNKP multiplicatively.

    Parameters
    ----------
    n : int
        Number of points, ``n >= 2``.
    d : int
        Dimension, ``d >= 2``.
    rho : float
        Margin, ``0 < rho < 1``.
    spread : float
        Spread of the majority's directions around ``u``.
    width : float
        Relative width of the band ``a_i^T w*`` of the majority above ``rho``.
    seed : int

    Returns
    -------
    Dataset
        Labels are random signs (``y_i x_i`` is the signed point); ``info`` has ``rho``,
        ``w_star`` and ``lone`` (the index of ``s_-``).
    """
    if n < 2 or d < 2:
        raise ValueError(f"imbalanced needs n >= 2 and d >= 2; got n={n}, d={d}.")
    if not 0 < rho < 1:
        raise ValueError(f"rho must be in (0, 1); got {rho}.")
    rng = np.random.default_rng(seed)
    w = np.zeros(d)
    w[0] = 1.0
    u = np.zeros(d)
    u[1] = 1.0
    c = math.sqrt(1.0 - rho * rho)
    m = n - 1
    t = rng.uniform(rho, min(1.0, rho * (1.0 + width)), m)
    t[0] = rho
    g = rng.standard_normal((m, d))
    g[:, :2] = 0.0  # perturb only orthogonally to w* and u: v_i^T u > 0
    g[0] = 0.0
    V = u[None, :] + spread * g
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    A = np.vstack([t[:, None] * w[None, :] + np.sqrt(1.0 - t * t)[:, None] * V, rho * w - c * u])
    perm = rng.permutation(n)
    A = A[perm]
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    lone = int(np.flatnonzero(perm == n - 1)[0])
    return kdata.Dataset(A * y[:, None], y, {"rho": float(rho), "w_star": w, "lone": lone})


def balanced(n: int, d: int = 10, rho: float = 0.05, *, seed: int = 0) -> kdata.Dataset:
    """:func:`kperc.datasets.planted` with every point near the margin (``near=1``).

    The directions orthogonal to ``w*`` are isotropic, so their average shrinks as
    ``n`` grows and the barycentre of the simplex is already close to a separator.
    """
    return kdata.planted(n, d, rho, near=1.0, near_width=0.5, seed=seed)


#: Instance families of the open-question sweep.
FAMILIES = {"balanced": balanced, "imbalanced": imbalanced}


def isnkpvn_call_bound(norm_q0: float, rho: float, gamma: float) -> int:
    """Upper bound on the number of SNKPVN calls ISNKPVN makes when ``rho_K > 0``.

    A dual return at call ``t`` needs ``delta_t > rho`` (its certificate has
    ``rho <= ||p||_G < delta_t``), while ``delta_t <= ||q_0||_G gamma^-(t+1)``. So dual
    returns happen only for ``t + 1 < L = log(||q_0||_G / rho) / log(gamma)``, and the
    number of calls is at most ``max(1, ceil(L))`` (the paper's Section 6).
    """
    L = math.log(norm_q0 / rho) / math.log(gamma)
    return max(1, math.ceil(L))


def lone_weight_needed(G, lone: int) -> float:
    """Weight ``beta`` that any separator ``alpha`` in the simplex must put on point ``lone``.

    With ``g_o = max_{i != lone} G_{lone, i} < 0`` (the lone point makes an obtuse angle
    with every other point), ``(G alpha)_lone <= alpha_lone + (1 - alpha_lone) g_o``,
    which is positive only if ``alpha_lone > beta = -g_o / (1 - g_o)``. Returns 0 when
    ``g_o >= 0`` (no constraint).
    """
    col = np.asarray(G.column(lone) if hasattr(G, "column") else G[lone], dtype=float)
    others = np.delete(col, lone)
    g_o = float(others.max())
    return -g_o / (1.0 - g_o) if g_o < 0 else 0.0


def snkpvn_lower_bound(n: int, beta: float) -> int:
    """Smallest halting index SNKPVN (``q = 1/n``, ``mu_0 = 2n``) can have on such data.

    Every prox point is ``Pi(q - G alpha / mu)`` with ``alpha`` in the simplex, so
    ``|G alpha| <= 1`` entrywise and each coordinate exceeds ``q_i`` by at most
    ``2 / mu`` (the threshold of the projection is at least ``-max(G alpha) / mu``).
    ``alpha_K`` is a convex combination of ``q`` and prox points with
    ``mu >= mu_{K-1} = 4n / (K (K+1))``, hence
    ``alpha_K[lone] <= 1/n + K (K+1) / (2n)``. Separating needs
    ``alpha_K[lone] > beta`` (:func:`lone_weight_needed`), so
    ``K (K+1) > 2 (n beta - 1)``: the halting index grows like ``sqrt(2 beta n)``.
    This bound is derived in this book (not in the paper).
    """
    target = 2.0 * (n * beta - 1.0)
    k = 0
    while k * (k + 1) <= target:
        k += 1
    return k


def probe_run(
    family: str,
    n: int,
    seed: int,
    *,
    rho: float = 0.05,
    d: int = 10,
    gamma: float = 2.0,
    eps: float = 1e-3,
) -> dict[str, Any]:
    """Iteration counts of SNKPVN, ISNKPVN and SNKP on one instance of a family.

    The instance is kept as a factored :func:`kperc.gram_operator` (``O(nd)`` memory),
    so ``n`` can be large. SNKPVN runs with ``q = 1/n`` and ``delta = rho / 2 < rho``
    (it can then only stop with a separator), ISNKPVN with ``gamma`` and ``eps < rho``.

    Returns
    -------
    dict
        ``rho_exact`` (:func:`kperc.margin`), ``norm_q0`` (``||1/n||_G``), the halting
        indices ``snkpvn``, ``isnkpvn``, ``snkp``, the number of ISNKPVN calls
        ``isnkpvn_calls``, the three outcomes and, for the ``imbalanced`` family,
        ``lower_bound`` (:func:`snkpvn_lower_bound`; ``None`` otherwise).
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; known: {sorted(FAMILIES)}")
    ds = FAMILIES[family](n, d, rho, seed=seed)
    G = kperc.gram_operator(ds.X, ds.y)
    exact = kperc.margin(G)
    q0 = np.full(n, 1.0 / n)
    r_vn = kperc.snkpvn(G, q0, delta=rho / 2)
    r_is = kperc.isnkpvn(G, gamma=gamma, eps=eps)
    r_s = kperc.snkp(G)
    lower = None
    if "lone" in ds.info:
        lower = snkpvn_lower_bound(n, lone_weight_needed(G, ds.info["lone"]))
    return {
        "rho_exact": float(exact),
        "lower_bound": lower,
        "norm_q0": float(G.seminorm(q0)),
        "snkpvn": int(r_vn.nit),
        "snkpvn_outcome": r_vn.outcome,
        "isnkpvn": int(r_is.nit),
        "isnkpvn_calls": int(r_is.nouter),
        "isnkpvn_outcome": r_is.outcome,
        "snkp": int(r_s.nit),
        "snkp_outcome": r_s.outcome,
    }


def n_sweep(
    ns: Sequence[int],
    seeds: Sequence[int],
    *,
    families: Sequence[str] = ("balanced", "imbalanced"),
    rho: float = 0.05,
    d: int = 10,
    gamma: float = 2.0,
    eps: float = 1e-3,
    n_jobs: int = 1,
) -> list[dict[str, Any]]:
    """Run :func:`probe_run` over ``families x ns x seeds`` (joblib, grid order).

    Returns
    -------
    list of dict
        One row per instance, with the grid values and the counts.
    """
    points = [
        dict(p, rho=rho, d=d, gamma=gamma, eps=eps)
        for p in grid(family=list(families), n=list(ns), seed=list(seeds))
    ]
    # small products: multithreaded BLAS only adds contention on a shared machine
    return sweep(probe_run, points, n_jobs=n_jobs, blas_threads=1)


COUNT_KEYS = ("snkpvn", "isnkpvn", "snkp")


def medians(
    rows: Sequence[Mapping[str, Any]], family: str, keys: Sequence[str] = COUNT_KEYS
) -> dict[str, np.ndarray]:
    """Per-``n`` medians (and minima, maxima) of the counts of one family.

    Returns
    -------
    dict
        ``n`` (sorted) and, for each key ``k``: ``k`` (median), ``k_min``, ``k_max``.
    """
    sel = [r for r in rows if r["family"] == family]
    ns = np.array(sorted({int(r["n"]) for r in sel}))
    out: dict[str, np.ndarray] = {"n": ns}
    for k in keys:
        vals = [[r[k] for r in sel if r["n"] == n] for n in ns]
        out[k] = np.array([np.median(v) for v in vals], dtype=float)
        out[k + "_min"] = np.array([np.min(v) for v in vals], dtype=float)
        out[k + "_max"] = np.array([np.max(v) for v in vals], dtype=float)
    return out


def sqrt_log_slope(n_min: float, n_max: float) -> float:
    """Average log-log slope of ``sqrt(log n)`` between ``n_min`` and ``n_max``."""
    return 0.5 * math.log(math.log(n_max) / math.log(n_min)) / math.log(n_max / n_min)


def check_bounds(
    rows: Sequence[Mapping[str, Any]], *, rho: float, gamma: float = 2.0, tol: float = 1e-9
) -> dict[str, dict[str, Any]]:
    """Check every count of :func:`n_sweep` against its explicit bound.

    * ``margin``: the built instance has margin ``rho`` (``|rho_exact - rho| <= tol``).
    * ``theorem-1``: SNKP separates with ``K (K + 1) <= 8 log n / rho^2``.
    * ``snkpvn-bound``: SNKPVN with ``delta < rho`` separates with
      ``K < 2 sqrt(2n) / rho``.
    * ``isnkpvn``: ISNKPVN separates within :func:`isnkpvn_call_bound` calls and fewer
      than ``calls * 2 sqrt(2n) / rho`` inner iterations.
    * ``snkpvn-lower`` (not a result of the paper; derived in this book): on instances
      with a ``lower_bound``, SNKPVN needs at least that many iterations
      (:func:`snkpvn_lower_bound`); ``worst`` is the largest ratio bound / count.

    Returns
    -------
    dict
        For each check: ``ok``, ``instances``, ``worst`` (largest ratio of a count to
        its bound; for ``margin`` the largest error) and ``detail`` (a rounded sentence
        for :meth:`kperc_book.chapter.Chapter.check`).
    """
    res: dict[str, dict[str, Any]] = {}
    ns = [r["n"] for r in rows]
    span = f"n = {min(ns)}..{max(ns)}, rho = {rho:g}"
    err = max(abs(r["rho_exact"] - rho) for r in rows)
    res["margin"] = {
        "ok": err <= tol,
        "instances": len(rows),
        "worst": err,
        "detail": f"every instance has margin rho to {err:.1e} ({span})",
    }
    ok1, w1, ok2, w2, ok3, w3 = True, 0.0, True, 0.0, True, 0.0
    for r in rows:
        n = r["n"]
        k = r["snkp"]
        ok1 &= r["snkp_outcome"] == "separator" and k * (k + 1) <= 8 * math.log(n) / rho**2
        w1 = max(w1, k / (2 * math.sqrt(2 * math.log(n)) / rho))
        b = 2 * math.sqrt(2 * n) / rho
        ok2 &= r["snkpvn_outcome"] == "separator" and r["snkpvn"] < b
        w2 = max(w2, r["snkpvn"] / b)
        calls = isnkpvn_call_bound(r["norm_q0"], rho, gamma)
        ok3 &= (
            r["isnkpvn_outcome"] == "separator"
            and r["isnkpvn_calls"] <= calls
            and r["isnkpvn"] < calls * b
        )
        w3 = max(w3, r["isnkpvn"] / (calls * b))
    res["theorem-1"] = {
        "ok": bool(ok1),
        "instances": len(rows),
        "worst": w1,
        "detail": f"SNKP separated with K(K+1) <= 8 log n / rho^2 ({span}); worst "
        f"K / (2 sqrt(2 log n) / rho) = {w1:.3f}",
    }
    res["snkpvn-bound"] = {
        "ok": bool(ok2),
        "instances": len(rows),
        "worst": w2,
        "detail": f"SNKPVN (q = 1/n, delta = rho/2) separated with K < 2 sqrt(2n) / rho "
        f"({span}); worst ratio {w2:.3f}",
    }
    res["isnkpvn"] = {
        "ok": bool(ok3),
        "instances": len(rows),
        "worst": w3,
        "detail": f"ISNKPVN (gamma = {gamma:g}) separated within "
        "ceil(log(||q_0||_G / rho) / log gamma) calls of fewer than "
        f"2 sqrt(2n) / rho iterations each ({span}); worst ratio {w3:.3f}",
    }
    low = [r for r in rows if r.get("lower_bound") is not None]
    wl = max((r["lower_bound"] / r["snkpvn"] for r in low if r["snkpvn"] > 0), default=0.0)
    res["snkpvn-lower"] = {
        "ok": all(r["snkpvn"] >= r["lower_bound"] for r in low),
        "instances": len(low),
        "worst": wl,
        "detail": f"SNKPVN needed at least the lower bound of the remark on all {len(low)} "
        f"imbalanced instances; largest bound / count {wl:.3f}",
    }
    return res

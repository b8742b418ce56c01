"""Chapter 4 (paper Section 4 and the Appendix): the Smoothed Normalised Kernel Perceptron.

The notebook ``book/ch04_smoothed_perceptron.ipynb`` calls these functions.

* :func:`rate_point` / :func:`rate_sweep` / :func:`fit_slopes`: halting indices of the
  Perceptron (raw data), the Normalised Perceptron (= NKP with the linear kernel) and
  SNKP on planted instances, against ``1/rho``, with their bounds.
* :func:`crowded`, :func:`n_point` / :func:`n_sweep`: the dependence on ``n`` at a fixed
  margin (Theorem 1's ``sqrt(log n)``).
* :func:`snkp_sandwich` and :func:`check_sandwich`: Lemmas 4 and 5 along SNKP runs, and
  the closed form ``mu_k = 4/((k+1)(k+2))``.
* :func:`mu0_search`: a deterministic instance on which ``mu_0 < 2`` breaks Lemma 5.
* :func:`real_data_iterations` and :func:`read_timings`: SNKP against NKP on the real
  kernel problems. Wall-clock times are measured only by the benchmark harness
  (``python -m benchmarks.bench --suite realdata``), which writes
  ``book/_generated/timings/ch04-realdata.json``; the notebook reads that file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import kperc
from kperc.sweeps import sweep
from kperc_book import data as kdata
from kperc_book.experiments._common import loglog_slope
from kperc_book.paths import TIMINGS_DIR

__all__ = [
    "REAL_PROBLEMS",
    "TIMINGS_PATH",
    "snkp_bound",
    "snkp_bound_exact",
    "rate_point",
    "rate_sweep",
    "fit_slopes",
    "summarize_rates",
    "crowded",
    "crowded_nkp_permuted",
    "n_point",
    "n_sweep",
    "mu_closed_form",
    "snkp_sandwich",
    "check_sandwich",
    "mu0_search",
    "real_data_iterations",
    "read_timings",
]

#: The real kernel problems of Chapter 3 (data bundled with scikit-learn).
REAL_PROBLEMS = ("breast_cancer-rbf", "digits_3_vs_8-rbf", "circles-rbf", "moons-rbf", "xor-poly")

#: Where the benchmark's ``realdata`` suite stores its measurements.
TIMINGS_PATH = TIMINGS_DIR / "ch04-realdata.json"


def snkp_bound(n: int, rho: float) -> float:
    """Theorem 1 in the form ``K < 2 sqrt(2 log n) / rho``."""
    return 2.0 * math.sqrt(2.0 * math.log(n)) / rho


def snkp_bound_exact(n: int, rho: float) -> float:
    """Largest ``K`` with ``K (K + 1) <= 8 log n / rho^2`` (the sharper form of Theorem 1)."""
    return (-1.0 + math.sqrt(1.0 + 32.0 * math.log(n) / rho**2)) / 2.0


def mu_closed_form(k, mu0: float = 2.0):
    """``mu_k = 2 mu_0 / ((k + 1)(k + 2))`` (``= 4/((k+1)(k+2))`` for ``mu_0 = 2``)."""
    k = np.asarray(k, dtype=float)
    return 2.0 * mu0 / ((k + 1.0) * (k + 2.0))


# ---------------------------------------------------------------------------------------
# Rates against the margin
# ---------------------------------------------------------------------------------------
def rate_point(
    rho: float,
    seed: int,
    n: int = 300,
    d: int = 20,
    near: float = 1.0,
    near_width: float = 0.2,
    norm_low: float = 0.5,
    norm_high: float = 2.0,
) -> dict[str, Any]:
    """Perceptron, Normalised Perceptron (NKP) and SNKP on one planted instance.

    The instance is :func:`kperc.datasets.planted` with normalised margin ``rho`` (exact)
    and raw norms log-uniform in ``[norm_low, norm_high]``; every non-support point sits
    within ``rho * near_width`` of the margin (``near=1``), which makes the instance hard.

    * Perceptron (Algorithm 1) on the raw data; bound ``R^2 / rho_raw^2`` with
      ``R = max ||x_i||`` and ``rho_raw`` the unnormalised margin.
    * NKP (Algorithm 3) on the linear-kernel ``G``: identical iterates to the Normalised
      Perceptron (Algorithm 2); bound ``1/rho^2``.
    * SNKP (Algorithm 4) on ``G``; bound ``2 sqrt(2 log n) / rho`` (Theorem 1).

    Returns
    -------
    dict
        ``nit_perceptron``, ``nit_nkp``, ``nit_snkp``, the bounds ``bound_perceptron``,
        ``bound_nkp``, ``bound_snkp``, ``rho_raw``, ``R``, ``n``, ``theorem1``
        (``K(K+1) <= 8 log n / rho^2``) and ``separated`` (all three found a separator).
    """
    ds = kdata.planted(
        n, d, rho, near=near, near_width=near_width, norm_range=(norm_low, norm_high), seed=seed
    )
    X, y = ds.X, ds.y
    G = kperc.gram_matrix(X, y)
    R = float(np.max(np.linalg.norm(X, axis=1)))
    rho_raw = kperc.data_margin(X, y, normalize=False)
    b_p = R**2 / rho_raw**2
    b_n = 1.0 / rho**2
    b_s = snkp_bound(n, rho)
    rp = kperc.perceptron(X, y, max_iter=int(b_p) + 2)
    rn = kperc.nkp(G, max_iter=int(b_n) + 2, check_input=False)
    rs = kperc.snkp(G, max_iter=int(b_s) + 2, check_input=False)
    k = rs.nit
    return {
        "n": n,
        "R": R,
        "rho_raw": rho_raw,
        "nit_perceptron": int(rp.nit),
        "nit_nkp": int(rn.nit),
        "nit_snkp": int(k),
        "bound_perceptron": b_p,
        "bound_nkp": b_n,
        "bound_snkp": b_s,
        "theorem1": bool(k * (k + 1) <= 8.0 * math.log(n) / rho**2),
        "separated": bool(rp.outcome == rn.outcome == rs.outcome == "separator"),
    }


def rate_sweep(
    rhos,
    seeds,
    *,
    n: int = 300,
    d: int = 20,
    near: float = 1.0,
    near_width: float = 0.2,
    n_jobs: int = 1,
) -> list[dict[str, Any]]:
    """:func:`rate_point` over a grid of margins and seeds (in parallel with joblib).

    The most expensive points (small margins) are scheduled first.

    Returns
    -------
    list of dict
        One row per (rho, seed), in grid order.
    """
    pts = [
        {"rho": float(r), "seed": int(s), "n": n, "d": d, "near": near, "near_width": near_width}
        for r in rhos
        for s in seeds
    ]
    order = sorted(range(len(pts)), key=lambda i: pts[i]["rho"])
    rows = sweep(rate_point, [pts[i] for i in order], n_jobs=n_jobs)
    out: list[dict[str, Any]] = [{}] * len(pts)
    for i, row in zip(order, rows, strict=True):
        out[i] = row
    return out


def fit_slopes(
    rows: list[dict[str, Any]], *, rho_max: float = 0.03, methods=("perceptron", "nkp", "snkp")
) -> dict[str, float]:
    """Least-squares slopes of ``log(halting index)`` against ``log(1/rho)``.

    Only rows with ``rho <= rho_max`` (the small-margin part of the sweep) and a positive
    halting index enter the fit; every seed is one point.

    Returns
    -------
    dict
        ``method -> slope``.
    """
    out = {}
    for m in methods:
        sel = [
            (r["rho"], r[f"nit_{m}"])
            for r in rows
            if r["rho"] <= rho_max * (1 + 1e-12) and r[f"nit_{m}"] > 0
        ]
        if len(sel) < 2:
            raise ValueError(f"not enough points with rho <= {rho_max} to fit a slope")
        out[m] = loglog_slope(1.0 / np.array([s[0] for s in sel]), [s[1] for s in sel])
    return out


def summarize_rates(
    rows: list[dict[str, Any]], methods=("perceptron", "nkp", "snkp")
) -> dict[str, Any]:
    """Per-margin median, minimum and maximum of each method's halting index and bound.

    Returns
    -------
    dict
        ``rho`` (sorted decreasing) and, per method ``m``, arrays ``m_median``,
        ``m_min``, ``m_max``, ``m_bound_median``, ``m_bound_min``, ``m_bound_max``;
        also ``max_ratio`` per method (largest halting index / bound) and
        ``all_within_bounds``.
    """
    rhos = sorted({r["rho"] for r in rows}, reverse=True)
    out: dict[str, Any] = {"rho": np.array(rhos)}
    within = True
    for m in methods:
        for key, src in (("", "nit"), ("_bound", "bound")):
            vals = [[r[f"{src}_{m}"] for r in rows if r["rho"] == rho] for rho in rhos]
            out[f"{m}{key}_median"] = np.array([np.median(v) for v in vals])
            out[f"{m}{key}_min"] = np.array([np.min(v) for v in vals])
            out[f"{m}{key}_max"] = np.array([np.max(v) for v in vals])
        ratios = [r[f"nit_{m}"] / r[f"bound_{m}"] for r in rows]
        out[f"{m}_max_ratio"] = float(max(ratios))
        within &= all(r[f"nit_{m}"] <= r[f"bound_{m}"] for r in rows)
    out["all_within_bounds"] = bool(within)
    return out


# ---------------------------------------------------------------------------------------
# Dependence on n
# ---------------------------------------------------------------------------------------
def crowded(
    n: int, rho: float, *, d: int = 5, jitter: float = 0.3, width: float = 0.2, seed: int = 0
) -> kdata.Dataset:
    """Separable points with margin exactly ``rho`` and a crowd next to one support point.

    Two support points ``s_+- = rho e_1 +- sqrt(1 - rho^2) e_2`` have midpoint
    ``rho e_1``; the other ``n - 2`` signed points have first coordinate ``t_i`` uniform
    in ``[rho, rho (1 + width)]`` and the rest of their direction close to ``+e_2``
    (Gaussian jitter of size ``jitter`` in the remaining coordinates). Every signed point
    has ``a_i^T e_1 >= rho``, so the hull stays at distance ``rho`` from 0 and ``rho_2 =
    rho`` exactly. The uniform average of the points is close to ``s_+``, which
    misclassifies ``s_-``: a method that starts from the uniform weights, as SNKP does,
    must move almost all of the mass, and the amount to move grows with ``n``.

    Returns
    -------
    Dataset
        ``X`` (signed points times labels, unit norm), ``y`` (alternating labels) and
        ``info["rho"]``.
    """
    if n < 3 or d < 3:
        raise ValueError("crowded needs n >= 3 and d >= 3")
    rng = np.random.default_rng([4, seed, n])
    e = np.eye(d)
    c = math.sqrt(1.0 - rho * rho)
    m = n - 2
    t = rng.uniform(rho, rho * (1.0 + width), m)
    V = np.zeros((m, d))
    V[:, 1] = 1.0
    V[:, 2:] = jitter * rng.standard_normal((m, d - 2))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    A = np.vstack(
        [
            rho * e[0] + c * e[1],
            rho * e[0] - c * e[1],
            t[:, None] * e[0] + np.sqrt(1.0 - t * t)[:, None] * V,
        ]
    )
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    return kdata.Dataset(A * y[:, None], y, {"rho": float(rho)})


def crowded_nkp_permuted(ns: Sequence[int], seeds: Sequence[int], *, rho: float) -> dict[str, Any]:
    """NKP on randomly permuted copies of :func:`crowded`: how many updates it needs.

    :func:`crowded` stores its two support points first, and NKP's first-index rule then
    finds a separator in 2 updates. Storing the same points in a random order
    (``np.random.default_rng([9, seed, n])``) shows what NKP costs when the order does not
    help; SNKP does not depend on the order.

    Returns
    -------
    dict
        ``nit`` (list of NKP halting indices, one per ``(n, seed)``), ``median``,
        ``separated`` (every run found a certified separator).
    """
    nits, ok = [], True
    for n in ns:
        for s in seeds:
            ds = crowded(int(n), rho, seed=int(s))
            perm = np.random.default_rng([9, int(s), int(n)]).permutation(int(n))
            G = kperc.gram_operator(ds.X[perm], ds.y[perm])
            res = kperc.nkp(G, max_iter=int(1.0 / rho**2) + 2)
            nits.append(int(res.nit))
            ok &= res.outcome == "separator"
    return {"nit": nits, "median": float(np.median(nits)), "separated": bool(ok)}


def n_point(family: str, n: int, rho: float, seed: int) -> dict[str, Any]:
    """SNKP and NKP at one ``n`` (factored linear-kernel ``G``, ``O(n d)`` per product).

    ``family`` is ``"planted"`` (:func:`kperc.datasets.planted` in ``R^20``, every point near
    the margin) or ``"crowded"`` (:func:`crowded`).

    Returns
    -------
    dict
        ``nit_snkp``, ``nit_nkp``, ``bound_snkp``, ``bound_nkp``, ``theorem1``.
    """
    if family == "planted":
        ds = kdata.planted(n, 20, rho, near=1.0, near_width=0.2, seed=seed)
    elif family == "crowded":
        ds = crowded(n, rho, seed=seed)
    else:
        raise ValueError(f"unknown family {family!r}")
    G = kperc.gram_operator(ds.X, ds.y)
    b_s = snkp_bound(n, rho)
    rs = kperc.snkp(G, max_iter=int(b_s) + 2, check_input=False)
    rn = kperc.nkp(G, max_iter=int(1.0 / rho**2) + 2, check_input=False)
    k = rs.nit
    return {
        "nit_snkp": int(k),
        "nit_nkp": int(rn.nit),
        "bound_snkp": b_s,
        "bound_nkp": 1.0 / rho**2,
        "theorem1": bool(k * (k + 1) <= 8.0 * math.log(n) / rho**2),
        "separated": bool(rs.outcome == rn.outcome == "separator"),
    }


def n_sweep(
    ns, seeds, *, rho: float = 0.01, families=("planted", "crowded"), n_jobs: int = 1
) -> list[dict[str, Any]]:
    """:func:`n_point` over families, sizes and seeds."""
    pts = [
        {"family": f, "n": int(n), "rho": float(rho), "seed": int(s)}
        for f in families
        for n in ns
        for s in seeds
    ]
    return sweep(n_point, pts, n_jobs=n_jobs)


# ---------------------------------------------------------------------------------------
# Lemmas 4 and 5, the closed form of mu_k, and mu_0
# ---------------------------------------------------------------------------------------
def snkp_sandwich(
    G, *, max_iter: int | None = None, mu0: float = 2.0, extra: int = 0
) -> dict[str, Any]:
    """The four terms of the sandwich along one SNKP run.

    ``L(alpha_k) - mu_k log n <= L_mu_k(alpha_k) <= -||p_k||_G^2 / 2 <= L(alpha_k)``.

    Parameters
    ----------
    G : ndarray or LinearOperator
    max_iter : int, optional
        Number of iterations. Default: the halting index plus ``extra``.
    mu0 : float
        Initial smoothing (the lemma needs ``mu0 >= 2``).
    extra : int
        Iterations beyond the halting index when ``max_iter`` is not given.

    Returns
    -------
    dict
        Arrays ``k``, ``L``, ``L_mu``, ``upper`` (``-||p_k||_G^2/2``), ``lower``
        (``L - mu_k log n``), ``mu``; ``halt`` (halting index), ``n``, and the slacks
        ``slack4`` (``L_mu - lower``), ``slack5`` (``upper - L_mu``) and ``slack_wd``
        (``L - upper``), each nonnegative when the lemma holds.
    """
    n = G.shape[0]
    r0 = kperc.snkp(G, mu0=mu0, check_input=False)
    halt = int(r0.nit) if r0.outcome == "separator" else None
    if max_iter is None:
        max_iter = (halt if halt is not None else 1000) + extra
    r = kperc.snkp(
        G, mu0=mu0, max_iter=max(int(max_iter), 1), trace=True, halt=False, check_input=False
    )
    t = r.trace
    lower = t["L"] - t["mu"] * math.log(n)
    upper = -0.5 * t["norm_p_G"] ** 2
    return {
        "k": t["k"],
        "L": t["L"],
        "L_mu": t["L_mu"],
        "upper": upper,
        "lower": lower,
        "mu": t["mu"],
        "halt": halt,
        "n": n,
        "slack4": t["L_mu"] - lower,
        "slack5": upper - t["L_mu"],
        "slack_wd": t["L"] - upper,
    }


def _sandwich_instances(planted_seeds, kernel_seeds, real: tuple[str, ...]):
    from . import ch03

    out = []
    for s in planted_seeds:
        rng = np.random.default_rng([41, s])
        rho = float(np.exp(rng.uniform(np.log(0.005), np.log(0.3))))
        n = int(rng.integers(10, 300))
        ds = kdata.planted(
            n,
            int(rng.integers(2, 30)),
            rho,
            near=float(rng.uniform(0, 1)),
            near_width=float(rng.uniform(0.1, 1.0)),
            seed=s,
        )
        out.append(("planted", kperc.gram_matrix(ds.X, ds.y), rho))
    for s in kernel_seeds:
        for kern in ("poly", "rbf"):
            inst = ch03.random_instance(kern, s)
            out.append((kern, inst["G"], inst["rho"]))
    for name in real:
        G = kdata.problem(name)[0]
        out.append((name, G, kperc.margin(G)))
    return out


#: Relative agreement of the recorded mu_k with 4/((k+1)(k+2)): equal in exact
#: arithmetic, a few 1e-15 apart after the recurrence's rounding.
TOL_MU = 1e-12


def _sandwich_case(kind: str, G, rho: float, extra: int) -> dict[str, Any]:
    s = snkp_sandwich(G, extra=extra)
    k = s["k"]
    mu_err = float(np.max(np.abs(s["mu"] / mu_closed_form(k) - 1.0)))
    halt = s["halt"]
    n = s["n"]
    thm = halt is not None and halt * (halt + 1) <= 8.0 * math.log(n) / rho**2
    return {
        "kind": kind,
        "n": n,
        "rho": rho,
        "iterates": int(k.size),
        "min_slack4": float(s["slack4"].min()),
        "min_slack5": float(s["slack5"].min()),
        "min_slack_wd": float(s["slack_wd"].min()),
        "mu_rel_err": mu_err,
        "halt": halt,
        "theorem1": bool(thm),
        "theorem1_ratio": (halt / snkp_bound(n, rho)) if halt is not None else np.inf,
    }


def check_sandwich(
    planted_seeds,
    kernel_seeds,
    *,
    real: tuple[str, ...] = REAL_PROBLEMS,
    extra: int = 200,
    n_jobs: int = 1,
    tol: float = 1e-10,
) -> dict[str, Any]:
    """Lemmas 4 and 5, weak duality, ``mu_k``'s closed form and Theorem 1 on many runs.

    Every SNKP run continues ``extra`` iterations past its halting index (the lemmas
    hold at every ``k``, not only before halting).

    Returns
    -------
    dict
        ``rows`` (one per run), ``instances``, ``iterates``, ``min_slack4``,
        ``min_slack5``, ``min_slack_wd``, ``max_mu_rel_err``, ``max_theorem1_ratio``,
        ``ok4``, ``ok5``, ``ok_mu``, ``ok_theorem1``.
    """
    cases = _sandwich_instances(planted_seeds, kernel_seeds, tuple(real))
    pts = [{"kind": k, "G": G, "rho": rho, "extra": extra} for k, G, rho in cases]
    rows = [
        {k: v for k, v in r.items() if k != "G"} for r in sweep(_sandwich_case, pts, n_jobs=n_jobs)
    ]
    s4 = min(r["min_slack4"] for r in rows)
    s5 = min(r["min_slack5"] for r in rows)
    swd = min(r["min_slack_wd"] for r in rows)
    mu = max(r["mu_rel_err"] for r in rows)
    t1 = max(r["theorem1_ratio"] for r in rows)
    return {
        "rows": rows,
        "instances": len(rows),
        "iterates": int(sum(r["iterates"] for r in rows)),
        "min_slack4": s4,
        "min_slack5": s5,
        "min_slack_wd": swd,
        "max_mu_rel_err": mu,
        "max_theorem1_ratio": t1,
        "ok4": bool(s4 >= -tol),
        "ok5": bool(s5 >= -tol and swd >= -tol),
        "tol_mu": TOL_MU,
        "ok_mu": bool(mu < TOL_MU),
        "ok_theorem1": bool(all(r["theorem1"] for r in rows)),
    }


def mu0_search(mu0: float, seeds, *, max_iter: int = 100) -> dict[str, Any] | None:
    """First seeded planted instance on which SNKP with this ``mu0`` violates Lemma 5.

    Instances: :func:`kperc.datasets.planted` with ``n`` in ``[5, 40)``, ``d`` in ``[2, 6)``
    and a log-uniform margin in ``[0.05, 0.6]``, drawn from the seed. Each run goes
    ``max_iter`` iterations without halting.

    Returns
    -------
    dict or None
        ``seed``, ``n``, ``d``, ``rho``, ``k`` (first violating iterate), ``violation``
        (largest ``L_mu + ||p||_G^2/2 > 0``), ``violations`` (how many iterates),
        ``slack_mu2_min`` (smallest Lemma-5 slack of the same instance with ``mu0 = 2``),
        ``tried`` (instances tried); ``None`` if no seed gave a violation.
    """
    for i, s in enumerate(seeds):
        rng = np.random.default_rng([42, s])
        n = int(rng.integers(5, 40))
        d = int(rng.integers(2, 6))
        rho = float(np.exp(rng.uniform(np.log(0.05), np.log(0.6))))
        ds = kdata.planted(n, d, rho, near=float(rng.uniform(0, 1)), seed=int(s))
        G = kperc.gram_matrix(ds.X, ds.y)
        sw = snkp_sandwich(G, max_iter=max_iter, mu0=mu0)
        bad = np.flatnonzero(sw["slack5"] < -1e-12)
        if bad.size:
            ref = snkp_sandwich(G, max_iter=max_iter, mu0=2.0)
            return {
                "seed": int(s),
                "n": n,
                "d": d,
                "rho": rho,
                "k": int(bad[0]),
                "violation": float(-sw["slack5"].min()),
                "violations": int(bad.size),
                "slack_mu2_min": float(ref["slack5"].min()),
                "tried": i + 1,
                "sandwich": sw,
                "sandwich_mu2": ref,
            }
    return None


# ---------------------------------------------------------------------------------------
# Real data: iterations (deterministic) and wall time (measured outside the notebook)
# ---------------------------------------------------------------------------------------
def real_data_iterations(names=REAL_PROBLEMS) -> list[dict[str, Any]]:
    """Halting indices of NKP and SNKP on the real kernel problems, with their bounds.

    Returns
    -------
    list of dict
        ``problem``, ``n``, ``rho_K``, ``nit_nkp``, ``bound_nkp``, ``nit_snkp``,
        ``bound_snkp``, ``theorem1``.
    """
    rows = []
    for name in names:
        G = kdata.problem(name)[0]
        n = G.shape[0]
        rho = kperc.margin(G)
        rn = kperc.nkp(G)
        rs = kperc.snkp(G)
        k = rs.nit
        rows.append(
            {
                "problem": name,
                "n": int(n),
                "rho_K": rho,
                "nit_nkp": int(rn.nit),
                "bound_nkp": 1.0 / rho**2,
                "nit_snkp": int(k),
                "bound_snkp": snkp_bound(n, rho),
                "theorem1": bool(k * (k + 1) <= 8.0 * math.log(n) / rho**2),
            }
        )
    return rows


def read_timings(path: Path | str | None = None) -> dict[str, Any]:
    """Read the JSON that the benchmark's ``realdata`` suite wrote.

    ``python -m benchmarks.bench --suite realdata`` writes it.
    """
    path = TIMINGS_PATH if path is None else Path(path)
    return json.loads(Path(path).read_text())

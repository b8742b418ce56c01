"""Experiments of Chapter 6 (paper Section 6): kernelised primal-dual algorithms.

Everything the notebook ``book/ch06_primal_dual.ipynb`` computes lives here:

* :func:`make_problem` (from :mod:`kperc_book.experiments._problems`),
  :func:`rbf_problem` and :func:`rbf_duplicate_problem`: the separable and inseparable
  problems, each a :class:`kperc.datasets.Dataset` with its exact margin
  (``info["rho"]``) and, when the witness set is one known point, ``info["witness"]``.
* :func:`sample_q` / :func:`lemma7_run` / :func:`lemma7_sweep`: Lemma 7, the
  Hoffman-type bound ``dist(q, W) <= sqrt(2) ||q||_G / (||q||_G + |rho_K|)``, with
  ``dist(q, W)`` computed exactly (:func:`kperc.dist_to_witness`).
* :func:`sandwich_run` / :func:`sandwich_sweep`: Lemmas 8 and 9 along SNKPVN runs.
* :func:`snkpvn_run` / :func:`snkpvn_sweep`: the SNKPVN iteration bounds, separable
  (``K < 2 sqrt(2n) / max(rho, delta)``) and infeasible (``K <= 2 sqrt(n) dist(q,W) /
  delta``).
* :func:`isnkpvn_run` / :func:`isnkpvn_sweep`: ISNKPVN against its per-call and total
  bounds, with the normalised Von Neumann algorithm on the same instance for comparison.
* :func:`isnkpvn_total_bound`: the a-priori bounds on the total number of inner
  iterations, derived in the chapter.
* :func:`slides_order_demo`: why ISNKPVN needs the guard ``||q_t||_G <= eps``.
* For the notebook: the sweep points (``*_points``), the verdicts it passes to
  :meth:`kperc_book.chapter.Chapter.check` (``*_verdict``, each its keyword arguments
  ``ok``, ``detail`` and ``instances``), its printed tables (``*_table``) and the
  numbers its prose quotes (``*_glue``, glued by :func:`glue_all`). Its figures are drawn by
  :mod:`kperc_book.experiments.ch06_figures`.

Every function is seeded and deterministic; sweeps go through
:func:`kperc.sweeps.sweep` (joblib) and return :class:`pandas.DataFrame` objects in grid
order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

import kperc
from kperc.sweeps import sweep
from kperc_book import data
from kperc_book.experiments._common import (
    ClaimError,
    GlueItems,
    Verdict,
    glue_all,
    loglog_slope,
    make_verdict,
    table_text,
)
from kperc_book.experiments._infeasible import dantzig_bound, ef_dual_bound
from kperc_book.experiments._problems import make_problem

__all__ = [
    "make_problem",
    "rbf_duplicate_problem",
    "rbf_problem",
    "sample_q",
    "Q_KINDS",
    "lemma7_bound",
    "lemma7_run",
    "lemma7_sweep",
    "sandwich_run",
    "sandwich_sweep",
    "snkpvn_run",
    "snkpvn_sweep",
    "isnkpvn_total_bound",
    "isnkpvn_call_bounds",
    "isnkpvn_run",
    "isnkpvn_sweep",
    "isnkpvn_on",
    "nvn_bound",
    "slides_order_demo",
    "Verdict",
    "GlueItems",
    "glue_all",
    "lemma7_points",
    "lemma7_verdict",
    "lemma7_table",
    "lemma7_glue",
    "sandwich_points",
    "lemma8_verdict",
    "lemma9_verdict",
    "sandwich_table",
    "sandwich_glue",
    "snkpvn_points",
    "snkpvn_verdict",
    "snkpvn_infeasible_verdict",
    "snkpvn_table",
    "snkpvn_glue",
    "slides_order_text",
    "isnkpvn_inf_points",
    "isnkpvn_feas_points",
    "isnkpvn_kernel",
    "isnkpvn_verdict",
    "ISNKPVN_COLUMNS",
    "isnkpvn_tables",
    "isnkpvn_glue",
    "feasible_medians",
    "vs_nvn_glue",
    "gamma_points",
    "gamma_means",
    "gamma_table",
    "gamma_glue",
    "gamma_bound_exercise",
    "loglog_slope",
    "sweep",
]

#: Kinds of centres ``q`` drawn by :func:`sample_q`.
Q_KINDS = ("barycentre", "vertex", "dirichlet-0.2", "dirichlet-1", "dirichlet-5", "near-witness")


def rbf_duplicate_problem(X, y, *, gamma: float = 2.0, index: int = 0) -> data.Dataset:
    """An RBF problem made infeasible by repeating one point with the opposite label.

    For distinct points the RBF Gram matrix is positive definite, so the features
    ``a_1..a_m`` are linearly independent; appending ``a_{m+1} = -a_index`` gives
    ``W = {(e_index + e_{m+1}) / 2}`` exactly (any witness must cancel every independent
    feature), and ``rho_K = 0`` (the ``m + 1`` points are affinely independent and the
    origin is the midpoint of one edge of their simplex). ``info`` has ``rho`` (0.0) and
    ``witness``.
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    m = X.shape[0]
    X2 = np.vstack([X, X[index : index + 1]])
    y2 = np.concatenate([y, -y[index : index + 1]])
    w = np.zeros(m + 1)
    w[[index, m]] = 0.5
    return data.Dataset(X2, y2, {"rho": 0.0, "witness": w}, "rbf", {"gamma": gamma})


def rbf_problem(X, y, *, gamma: float = 2.0) -> data.Dataset:
    """An RBF problem on distinct points: separable, with its exact margin ``info["rho"]``."""
    ds = data.Dataset(np.asarray(X, float), np.asarray(y, float), {}, "rbf", {"gamma": gamma})
    ds.info["rho"] = kperc.margin(ds.gram())
    return ds


def _separable(ds: data.Dataset) -> bool:
    """Separable or not, from the exact margin (positive exactly when separable)."""
    return bool(ds.info["rho"] > 0)


def _witness(ds: data.Dataset) -> np.ndarray | None:
    """The one point of the witness set when it is known in closed form, else ``None``."""
    return ds.info.get("witness")


def _dist(G: np.ndarray, witness: np.ndarray | None, q: np.ndarray) -> tuple[float, float]:
    """``dist(q, W)`` and the residual ``||B w||`` of the nearest witness."""
    if witness is not None:
        return float(np.linalg.norm(q - witness)), 0.0
    r = kperc.dist_to_witness(G, q)
    return float(r.dist), float(r.residual)


def sample_q(
    rng: np.random.Generator, n: int, kind: str, witness: np.ndarray | None = None
) -> np.ndarray:
    """A centre ``q`` in the simplex of the given kind (:data:`Q_KINDS`).

    ``"near-witness"`` mixes a witness with a random point, ``(1 - s) w + s u`` with
    ``s`` log-uniform in ``[1e-3, 1]``, to reach small ``||q||_G``.
    """
    if kind == "barycentre":
        return np.full(n, 1.0 / n)
    if kind == "vertex":
        q = np.zeros(n)
        q[rng.integers(n)] = 1.0
        return q
    if kind.startswith("dirichlet-"):
        return rng.dirichlet(np.full(n, float(kind.split("-")[1])))
    if kind == "near-witness":
        if witness is None:
            raise ValueError("near-witness needs a witness")
        s = float(np.exp(rng.uniform(np.log(1e-3), 0.0)))
        q = (1 - s) * witness + s * rng.dirichlet(np.ones(n))
        return q / q.sum()
    raise ValueError(f"unknown q kind {kind!r}")


def lemma7_bound(norm_q_G: float, rho: float) -> float:
    """Lemma 7: ``sqrt(2) ||q||_G / (||q||_G + |rho|)`` (``sqrt(2)`` when both are 0)."""
    den = norm_q_G + abs(rho)
    return math.sqrt(2.0) if den == 0 else math.sqrt(2.0) * norm_q_G / den


def lemma7_run(kind: str, n: int, d: int, rho: float, seed: int, n_q: int = 24) -> dict[str, Any]:
    """Lemma 7 on one inseparable instance, for ``n_q`` centres of every kind in turn.

    ``dist(q, W)`` is computed exactly (closed form for ``"edge"``, else
    :func:`kperc.dist_to_witness`); a solver can only over-estimate the distance, and
    the returned witness is verified (``residual``), so ``dist <= bound`` is a sound test.

    Returns
    -------
    dict
        Arrays ``norm_q_G``, ``dist``, ``bound`` and ``residual`` (one entry per ``q``),
        ``rho_exact`` and ``worst_ratio = max dist / bound``.
    """
    ds = make_problem(kind, n, d, rho, seed)
    G, rho_exact, witness = ds.gram(), float(ds.info["rho"]), _witness(ds)
    rng = np.random.default_rng(20_000 + seed)
    w0 = witness
    if w0 is None:
        w0 = kperc.min_norm_point(kperc.gram_factor(G))[1]  # a point of W
    nq, dist, bound, resid = [], [], [], []
    for i in range(n_q):
        q = sample_q(rng, n, Q_KINDS[i % len(Q_KINDS)], witness=w0)
        qn = kperc.g_seminorm(G, q)
        dd, res = _dist(G, witness, q)
        nq.append(qn)
        dist.append(dd)
        bound.append(lemma7_bound(qn, rho_exact))
        resid.append(res)
    dist, bound = np.asarray(dist), np.asarray(bound)
    return {
        "rho_exact": rho_exact,
        "norm_q_G": np.asarray(nq),
        "dist": dist,
        "bound": bound,
        "residual": np.asarray(resid),
        "worst_ratio": float(np.max(dist / bound)),
        "max_residual": float(np.max(resid)),
    }


def lemma7_sweep(points: Sequence[dict[str, Any]], *, n_jobs: int = 1) -> pd.DataFrame:
    """:func:`lemma7_run` over a list of keyword dictionaries."""
    return pd.DataFrame(sweep(lemma7_run, points, n_jobs=n_jobs))


# ---------------------------------------------------------------------------------------
# Lemmas 8 and 9, and the SNKPVN bounds
# ---------------------------------------------------------------------------------------
def _sandwich(tr: dict[str, np.ndarray], dist: float | None) -> dict[str, float]:
    L = np.asarray(tr["L"])
    Lq = np.asarray(tr["L_mu_q"])
    half = 0.5 * np.asarray(tr["norm_p_G"]) ** 2
    mu = np.asarray(tr["mu"])
    scale = 1.0 + np.abs(L) + np.abs(Lq) + mu
    tol = 1e-12 * scale
    out = {
        "lemma8_left": float(np.max(Lq + half - tol)),  # <= 0
        "lemma8_right": float(np.min(Lq - (L - mu) + tol)),
    }  # >= 0
    if dist is not None:
        out["lemma9_right"] = float(np.min(Lq + 0.5 * mu * dist**2 + tol))  # >= 0
    return out


def sandwich_run(
    kind: str,
    n: int,
    d: int,
    rho: float,
    seed: int,
    q_kind: str,
    delta: float,
    keep_trace: bool = False,
) -> dict[str, Any]:
    """One SNKPVN run with ``trace=True`` and the sandwiches of Lemmas 8 and 9.

    Returns
    -------
    dict
        ``nit``, ``outcome``, ``lemma8_left`` (``max_k L^q_mu + ||p||^2/2``, at most 0),
        ``lemma8_right`` (``min_k L^q_mu - (L - mu)``, at least 0), ``lemma9_right``
        (inseparable only: ``min_k L^q_mu + mu dist(q,W)^2 / 2``, at least 0), ``dist``
        and, with ``keep_trace``, the trace.
    """
    ds = make_problem(kind, n, d, rho, seed)
    G, witness, separable = ds.gram(), _witness(ds), _separable(ds)
    rng = np.random.default_rng(30_000 + seed)
    w0 = witness
    if w0 is None and not separable:
        w0 = kperc.min_norm_point(kperc.gram_factor(G))[1]
    q = sample_q(rng, n, q_kind, witness=w0)
    res = kperc.snkpvn(G, q, delta, trace=True)
    dist = None if separable else _dist(G, witness, q)[0]
    out = {
        "rho_exact": float(ds.info["rho"]),
        "nit": res.nit,
        "outcome": res.outcome,
        "iterates": len(res.trace["L"]),
        "dist": np.nan if dist is None else dist,
        "lemma9_right": np.nan,
        **_sandwich(res.trace, dist),
    }
    if keep_trace:
        out["trace"] = res.trace
    return out


def sandwich_sweep(points: Sequence[dict[str, Any]], *, n_jobs: int = 1) -> pd.DataFrame:
    """:func:`sandwich_run` over a list of keyword dictionaries."""
    return pd.DataFrame(sweep(sandwich_run, points, n_jobs=n_jobs))


def snkpvn_run(
    kind: str, n: int, d: int, rho: float, seed: int, q_kind: str, delta_rel: float
) -> dict[str, Any]:
    """SNKPVN(q, delta) on one instance against the bound that applies.

    Separable (``"planted"``): ``delta = delta_rel * rho``; the bound is
    ``2 sqrt(2n) / max(rho, delta)``, and for ``delta <= rho`` the run must return a
    separator. Inseparable: ``delta = delta_rel`` (absolute); the bound is
    ``2 sqrt(n) dist(q, W) / delta`` and the run must return a certificate ``p`` in the
    simplex with ``||p||_G < delta``.

    Returns
    -------
    dict
        ``delta``, ``nit``, ``outcome``, ``bound``, ``ratio = nit / bound``, ``ok``
        (outcome, verification of the output, and ``nit < bound``), ``dist``.
    """
    ds = make_problem(kind, n, d, rho, seed)
    G, rho_exact, witness = ds.gram(), float(ds.info["rho"]), _witness(ds)
    rng = np.random.default_rng(40_000 + seed)
    w0 = witness
    if w0 is None and not _separable(ds):
        w0 = kperc.min_norm_point(kperc.gram_factor(G))[1]
    q = sample_q(rng, n, q_kind, witness=w0)
    if _separable(ds):
        delta = delta_rel * rho_exact
        res = kperc.snkpvn(G, q, delta)
        bound = 2.0 * math.sqrt(2.0 * n) / max(rho_exact, delta)
        sep_ok = res.outcome == "separator" and (G @ res.alpha).min() > 0
        cert_ok = (
            res.outcome == "certificate"
            and res.p.min() >= 0
            and abs(res.p.sum() - 1) <= 1e-12
            and kperc.g_seminorm(G, res.p) < delta
        )
        ok = (sep_ok if delta <= rho_exact else (sep_ok or cert_ok)) and res.nit < bound
        dist = np.nan
    else:
        delta = delta_rel
        res = kperc.snkpvn(G, q, delta)
        dist = _dist(G, witness, q)[0]
        bound = 2.0 * math.sqrt(n) * dist / delta
        cert_ok = (
            res.outcome == "certificate"
            and res.p.min() >= 0
            and abs(res.p.sum() - 1) <= 1e-12
            and kperc.g_seminorm(G, res.p) < delta
        )
        ok = cert_ok and (res.nit < bound or (bound == 0 and res.nit == 0))
    return {
        "rho_exact": rho_exact,
        "delta": delta,
        "nit": res.nit,
        "outcome": res.outcome,
        "bound": bound,
        "ratio": res.nit / bound if bound > 0 else 0.0,
        "ok": bool(ok),
        "dist": dist,
    }


def snkpvn_sweep(points: Sequence[dict[str, Any]], *, n_jobs: int = 1) -> pd.DataFrame:
    """:func:`snkpvn_run` over a list of keyword dictionaries."""
    return pd.DataFrame(sweep(snkpvn_run, points, n_jobs=n_jobs))


# ---------------------------------------------------------------------------------------
# ISNKPVN
# ---------------------------------------------------------------------------------------
def isnkpvn_total_bound(
    n: int, gamma: float, eps: float, rho: float, norm_q0: float
) -> tuple[int, float]:
    """A-priori bounds on ISNKPVN (with the guard): number of calls and total iterations.

    Call ``t`` runs SNKPVN from ``q_t`` with ``delta_t = ||q_t||_G / gamma``, and every
    call that does not end the method returns ``||q_{t+1}||_G < ||q_t||_G / gamma``.
    Counting back from the last call ``T``, ``||q_{T-j}||_G > gamma^j ||q_T||_G``, so
    per-call bounds of the form ``c / ||q_t||_G`` sum to a geometric series.

    * Separable, ``eps < rho``: a dual return needs ``||q_t||_G > gamma rho``, so at most
      ``max(1, ceil(log(||q_0||_G / rho) / log gamma))`` calls. Call ``t`` takes fewer
      than ``2 sqrt(2n) / max(rho, delta_t)`` iterations; the last one fewer than
      ``2 sqrt(2n) / rho`` and call ``T - j`` fewer than ``2 sqrt(2n) gamma^(1-j) / rho``
      (every point of the simplex has ``||q||_G >= rho``). The total is below the smaller
      of ``calls * 2 sqrt(2n) / rho`` and ``2 sqrt(2n) (2 gamma - 1) / ((gamma - 1) rho)``.
    * Inseparable (``rho <= 0``): every call starts from ``||q_t||_G > eps`` (guard), so at
      most ``floor(log(||q_0||_G / eps) / log gamma) + 1`` calls, call ``t`` of fewer
      than ``2 sqrt(2n) gamma / (||q_t||_G + |rho|)`` iterations (Lemmas 7 and 9). The
      total is below the smaller of ``calls * 2 sqrt(2n) gamma / (eps + |rho|)`` and
      ``2 sqrt(2n) gamma^2 / ((gamma - 1) eps)``: only the first carries ``log(1/eps)``.

    Returns
    -------
    calls : int
    total : float
        Strict upper bound on the total number of inner iterations.
    """
    lg = math.log(gamma)
    c = 2.0 * math.sqrt(2.0 * n)
    if rho > 0:
        if not eps < rho:
            raise ValueError("the separable bound needs eps < rho")
        calls = max(math.ceil(math.log(norm_q0 / rho) / lg), 1)
        return calls, min(calls * c / rho, c * (2.0 * gamma - 1.0) / ((gamma - 1.0) * rho))
    if norm_q0 <= eps:
        return 0, 0.0
    calls = math.floor(math.log(norm_q0 / eps) / lg) + 1
    return calls, min(calls * c * gamma / (eps + abs(rho)), c * gamma**2 / ((gamma - 1.0) * eps))


def isnkpvn_call_bounds(
    n: int, gamma: float, rho: float, norm_q: np.ndarray, delta: np.ndarray
) -> np.ndarray:
    """Per-call bounds: ``2 sqrt(2n) / max(rho, delta_t)`` (separable) or
    ``2 sqrt(2n) gamma / (||q_t||_G + |rho|)`` (inseparable)."""
    norm_q = np.asarray(norm_q, float)
    delta = np.asarray(delta, float)
    if rho > 0:
        return 2.0 * math.sqrt(2.0 * n) / np.maximum(rho, delta)
    return 2.0 * math.sqrt(2.0 * n) * gamma / (norm_q + abs(rho))


def _run_isnkpvn(
    G: np.ndarray,
    rho: float,
    feasible: bool,
    gamma: float,
    eps: float,
    nvn_eps: float | None,
    max_iter: int,
) -> dict[str, Any]:
    n = G.shape[0]
    res = kperc.isnkpvn(G, gamma=gamma, eps=eps, max_iter=max_iter, trace=True)
    tr = res.trace
    calls = tr["outcome"] != "guard"
    calls &= tr["outcome"] != "final"
    nq = np.asarray(tr["norm_q_G"], float)
    inner = np.asarray(tr["inner_nit"], int)[calls]
    cb = isnkpvn_call_bounds(n, gamma, rho, nq[calls], np.asarray(tr["delta"])[calls])
    norm_q0 = float(nq[0])
    n_calls, total_bound = isnkpvn_total_bound(n, gamma, eps, rho, norm_q0)
    if res.outcome == "separator":
        verified = bool((G @ res.alpha).min() > 0)
    elif res.outcome == "certificate":
        verified = bool(
            res.p.min() >= 0 and abs(res.p.sum() - 1) <= 1e-12 and kperc.g_seminorm(G, res.p) <= eps
        )
    else:
        verified = False
    expected = "separator" if feasible else "certificate"
    # ||q_{t+1}||_G < ||q_t||_G / gamma after every dual return
    decrease = bool(np.all(nq[1:] < nq[:-1] / gamma + 1e-15)) if nq.size > 1 else True
    out = {
        "outcome": res.outcome,
        "nit": res.nit,
        "nouter": int(res.nouter),
        "norm_q": nq,
        "inner": inner,
        "call_ratio": float(np.max(inner / cb)) if inner.size else 0.0,
        "calls_bound": n_calls,
        "total_bound": total_bound,
        "total_ratio": res.nit / total_bound if total_bound > 0 else 0.0,
        "verified": verified and res.outcome == expected,
        "decrease": decrease,
        "final_norm": kperc.g_seminorm(G, res.p) if res.outcome == "certificate" else float("nan"),
        "ok": bool(
            verified
            and res.outcome == expected
            and decrease
            and np.all(inner < cb)
            and res.nit < max(total_bound, 1.0)
            and int(res.nouter) <= n_calls
        ),
    }
    if nvn_eps is not None:
        v = kperc.nvn(G, eps=nvn_eps, max_iter=50 * max_iter)
        out["nvn_nit"] = v.nit
        out["nvn_outcome"] = v.outcome
        out["nvn_bound"] = nvn_bound(rho, nvn_eps, norm_q0)
        if v.outcome == "separator":
            out["nvn_ok"] = bool((G @ v.alpha).min() > 0 and v.nit <= out["nvn_bound"])
        else:
            out["nvn_ok"] = bool(
                v.outcome == "certificate"
                and v.p.min() >= 0
                and kperc.g_seminorm(G, v.p) <= nvn_eps
                and v.nit <= out["nvn_bound"]
            )
    return out


def nvn_bound(rho: float, eps: float, norm_w0: float) -> float:
    """The NVN bound that applies (Chapter 5): ``1/rho^2`` if ``rho > 0``; otherwise
    Dantzig's ``ceil(1/eps^2) - 1``, or the Epelman-Freund bound if smaller (``rho < 0``).
    """
    if rho > 0:
        return 1.0 / rho**2
    b = float(dantzig_bound(eps))
    if rho < 0:
        b = min(b, float(ef_dual_bound(rho, eps, norm_w0)))
    return b


def isnkpvn_run(
    kind: str,
    n: int,
    d: int,
    rho: float,
    seed: int,
    gamma: float = 2.0,
    eps: float = 1e-3,
    nvn: bool = True,
    max_iter: int = 1_000_000,
) -> dict[str, Any]:
    """ISNKPVN(gamma, eps) on one linear instance against its bounds, and NVN beside it.

    Checks: the outcome is a separator (separable) or an ``eps``-certificate
    (inseparable) and is verified (``G alpha > 0``; ``p`` in the simplex with
    ``||p||_G <= eps``); ``||q_t||_G`` falls by more than ``gamma`` per call; every call
    respects its bound (:func:`isnkpvn_call_bounds`); the total and the number of calls
    respect :func:`isnkpvn_total_bound`. NVN runs with the same ``eps`` (separable
    problems: ``eps`` is irrelevant, the primal exit fires first).

    Returns
    -------
    dict
        ``rho_exact``, ``outcome``, ``nit`` (total inner iterations), ``nouter`` (calls),
        ``norm_q`` (``||q_t||_G`` per outer loop), ``inner`` (iterations per call),
        ``call_ratio``, ``calls_bound``, ``total_bound``, ``total_ratio``, ``verified``,
        ``decrease``, ``ok`` and ``nvn_nit``.
    """
    return isnkpvn_on(make_problem(kind, n, d, rho, seed), gamma, eps, nvn, max_iter)


def isnkpvn_sweep(points: Sequence[dict[str, Any]], *, n_jobs: int = 1) -> pd.DataFrame:
    """:func:`isnkpvn_run` over a list of keyword dictionaries."""
    return pd.DataFrame(sweep(isnkpvn_run, points, n_jobs=n_jobs))


def isnkpvn_on(
    ds: data.Dataset,
    gamma: float = 2.0,
    eps: float = 1e-3,
    nvn: bool = True,
    max_iter: int = 1_000_000,
) -> dict[str, Any]:
    """:func:`isnkpvn_run` on a prepared problem (for example a kernel one)."""
    rho = float(ds.info["rho"])
    out = _run_isnkpvn(ds.gram(), rho, _separable(ds), gamma, eps, eps if nvn else None, max_iter)
    out["rho_exact"] = rho
    return out


#: delta of the talk's order (zero) as kperc.snkpvn takes it (it refuses delta = 0).
NUMERICAL_ZERO = 1e-300


def slides_order_demo(max_iter: int = 2000) -> dict[str, Any]:
    """ISNKPVN on two copies of one point with opposite labels, with and without the guard.

    ``G = [[1, -1], [-1, 1]]`` and ``q_0 = (1/2, 1/2)`` has ``||q_0||_G = 0``. The talk's
    order computes ``delta_0 = 0`` and calls SNKPVN(q_0, 0), whose dual test
    ``||p_k||_G < 0`` can never pass and whose primal test never passes either (the
    problem is infeasible): the call runs until its cap. :func:`kperc.snkpvn` refuses
    ``delta = 0``, so the call is made with :data:`NUMERICAL_ZERO`, far below the floor
    at which ``||p||_G`` can be certified: the dual test cannot pass either. With the
    guard, ISNKPVN returns ``q_0`` at once.
    """
    G = np.array([[1.0, -1.0], [-1.0, 1.0]])
    q0 = np.full(2, 0.5)
    slides = kperc.snkpvn(G, q0, delta=NUMERICAL_ZERO, max_iter=max_iter)
    guarded = kperc.isnkpvn(G, eps=1e-3)
    return {
        "norm_q0": kperc.g_seminorm(G, q0),
        "slides_outcome": slides.outcome,
        "slides_nit": slides.nit,
        "guard_outcome": guarded.outcome,
        "guard_nit": guarded.nit,
        "guard_nouter": int(guarded.nouter),
    }


# ---------------------------------------------------------------------------------------
# What the notebook shows: sweep points, verdicts of the stated results, printed tables
# and the numbers quoted in the prose
# ---------------------------------------------------------------------------------------
def _fmt(v: float) -> str:
    return f"{v:.3g}"


def _fmt4(v: float) -> str:
    return f"{v:.4g}"


def lemma7_points(
    rhos: Sequence[float], dims: Sequence[int], n_seeds: int, n_q: int, *, n: int = 20
) -> list[dict[str, Any]]:
    """Sweep points of Lemma 7: ``"cap"`` instances at every margin, dimension and seed,
    then one ``"edge"`` instance (margin 0, seed 0) per dimension."""
    pts = [
        dict(kind="cap", n=n, d=d, rho=r, seed=s, n_q=n_q)
        for r in rhos
        for d in dims
        for s in range(n_seeds)
    ]
    pts += [dict(kind="edge", n=n, d=d, rho=0.0, seed=0, n_q=n_q) for d in dims]
    return pts


def lemma7_verdict(l7: pd.DataFrame) -> Verdict:
    """Lemma 7 on a :func:`lemma7_sweep` table: every ``dist(q, W)`` below its bound
    (to ``1e-9``) and every nearest witness verified (residual at most ``1e-8``)."""
    n_l7 = int(sum(len(v) for v in l7["dist"]))
    ok = bool(
        all((dd <= bb + 1e-9).all() for dd, bb in zip(l7["dist"], l7["bound"], strict=False))
        and l7["max_residual"].max() <= 1e-8
    )
    detail = (
        f"dist(q, W) <= sqrt(2)||q||_G/(||q||_G+|rho|) for {n_l7} centres on {len(l7)} "
        f"inseparable instances; worst ratio {l7['worst_ratio'].max():.3g}"
    )
    return make_verdict(ok, detail, n_l7)


def lemma7_table(l7: pd.DataFrame) -> str:
    """Instances and worst ratio ``dist / bound`` per kind and margin."""
    return (
        l7.groupby(["kind", "rho"])
        .agg(instances=("seed", "size"), worst_ratio=("worst_ratio", "max"))
        .pipe(table_text, {"worst_ratio": "largest dist / bound"}, float_format=_fmt)
    )


def lemma7_glue(l7: pd.DataFrame) -> GlueItems:
    """The numbers the Lemma 7 section quotes."""
    return [
        ("ch06_l7_n", int(sum(len(v) for v in l7["dist"])), 4),
        ("ch06_l7_inst", len(l7), 4),
        ("ch06_l7_worst", l7["worst_ratio"].max(), 3),
    ]


def sandwich_points(
    n: int,
    d: int,
    planted_rhos: Sequence[float],
    cap_rhos: Sequence[float],
    deltas: Sequence[float],
    n_seeds: int,
) -> list[dict[str, Any]]:
    """Sweep points of Lemmas 8 and 9: separable (``"planted"``) runs from three kinds of
    centres, then inseparable (``"cap"`` at every margin, ``"edge"``) runs, some of them
    started near a witness."""
    pts = [
        dict(kind="planted", n=n, d=d, rho=r, seed=s, q_kind=qk, delta=dl)
        for r in planted_rhos
        for s in range(n_seeds)
        for qk in ("barycentre", "dirichlet-1", "vertex")
        for dl in deltas
    ]
    pts += [
        dict(kind=k, n=n, d=d, rho=r, seed=s, q_kind=qk, delta=dl)
        for k, r in [("cap", x) for x in cap_rhos] + [("edge", 0.0)]
        for s in range(n_seeds)
        for qk in ("barycentre", "dirichlet-1", "near-witness")
        for dl in deltas
    ]
    return pts


def lemma8_verdict(sw: pd.DataFrame) -> Verdict:
    """Lemma 8 on a :func:`sandwich_sweep` table: both sides of the sandwich at every
    iterate of every run."""
    n_it = int(sw["iterates"].sum())
    n_inf = int((sw["kind"] != "planted").sum())
    ok = bool((sw["lemma8_left"] <= 0).all() and (sw["lemma8_right"] >= 0).all())
    detail = (
        f"-||p_k||^2/2 >= L^q_mu(alpha_k) >= L(alpha_k) - mu_k at all {n_it} iterates of "
        f"{len(sw)} SNKPVN runs ({n_inf} of them inseparable)"
    )
    return make_verdict(ok, detail, n_it)


def lemma9_verdict(sw: pd.DataFrame) -> Verdict:
    """Lemma 9 on the inseparable runs of a :func:`sandwich_sweep` table."""
    inf = sw[sw["kind"] != "planted"]
    n_it = int(inf["iterates"].sum())
    ok = bool((inf["lemma9_right"] >= 0).all() and (inf["lemma8_left"] <= 0).all())
    detail = (
        f"L^q_mu(alpha_k) >= -mu_k dist(q,W)^2/2 at all {n_it} "
        f"iterates of {len(inf)} inseparable runs"
    )
    return make_verdict(ok, detail, n_it)


def sandwich_table(sw: pd.DataFrame) -> str:
    """Runs, iterates and the tightest value of each sandwich, per kind and outcome."""
    return (
        sw.groupby(["kind", "outcome"])
        .agg(
            runs=("nit", "size"),
            iterates=("iterates", "sum"),
            max_left=("lemma8_left", "max"),
            min_right=("lemma8_right", "min"),
            min_lemma9=("lemma9_right", "min"),
        )
        .pipe(table_text, _SANDWICH_NAMES, float_format=_fmt, na="no W")
    )


#: Headings of the sandwich table: the smallest slack of each inequality.
_SANDWICH_NAMES = {
    "max_left": "L8 left, max",
    "min_right": "L8 right, min",
    "min_lemma9": "L9 right, min",
}


def sandwich_glue(sw: pd.DataFrame) -> GlueItems:
    """The numbers the Lemmas 8 and 9 section quotes."""
    return [("ch06_sw_iterates", int(sw["iterates"].sum()), 4), ("ch06_sw_runs", len(sw), 4)]


def snkpvn_points(
    n: int,
    d: int,
    planted_rhos: Sequence[float],
    delta_rel: Sequence[float],
    cap_rhos: Sequence[float],
    deltas: Sequence[float],
    n_seeds: int,
) -> list[dict[str, Any]]:
    """Sweep points of the SNKPVN bounds: separable runs with ``delta = delta_rel * rho``
    (below and above the margin), then inseparable runs with absolute ``delta``."""
    pts = [
        dict(kind="planted", n=n, d=d, rho=r, seed=s, q_kind=qk, delta_rel=dr)
        for r in planted_rhos
        for s in range(n_seeds)
        for qk in ("barycentre", "dirichlet-1", "vertex")
        for dr in delta_rel
    ]
    pts += [
        dict(kind=k, n=n, d=d, rho=r, seed=s, q_kind=qk, delta_rel=dl)
        for k, r in [("cap", x) for x in cap_rhos] + [("edge", 0.0)]
        for s in range(n_seeds)
        for qk in ("barycentre", "dirichlet-1", "vertex", "near-witness")
        for dl in deltas
    ]
    return pts


def snkpvn_verdict(sn: pd.DataFrame) -> Verdict:
    """The separable SNKPVN bound on the ``"planted"`` runs of a :func:`snkpvn_sweep`."""
    fe = sn[sn["kind"] == "planted"]
    below = fe[fe["delta_rel"] < 1]
    detail = (
        f"K < 2 sqrt(2n)/max(rho, delta) on {len(fe)} separable runs, and a verified "
        f"separator whenever delta < rho ({len(below)} runs); worst ratio "
        f"{fe['ratio'].max():.3g}"
    )
    return make_verdict(fe["ok"].all(), detail, len(fe))


def snkpvn_infeasible_verdict(sn: pd.DataFrame) -> Verdict:
    """The inseparable SNKPVN bound on the other runs of a :func:`snkpvn_sweep`."""
    ie = sn[sn["kind"] != "planted"]
    detail = (
        f"verified delta-certificate with K <= 2 sqrt(n) dist(q,W)/delta on {len(ie)} "
        f"inseparable runs; worst ratio {ie['ratio'].max():.3g}"
    )
    return make_verdict(ie["ok"].all(), detail, len(ie))


def snkpvn_table(sn: pd.DataFrame) -> str:
    """Runs, median and largest halting index and worst ratio, per side and outcome."""
    tab = sn.assign(
        side=np.where(
            sn["kind"] == "planted",
            np.where(sn["delta_rel"] < 1, "separable, delta < rho", "separable, delta > rho"),
            "inseparable",
        )
    )
    return (
        tab.groupby(["side", "outcome"])
        .agg(
            runs=("nit", "size"),
            median_nit=("nit", "median"),
            max_nit=("nit", "max"),
            worst_ratio=("ratio", "max"),
        )
        .pipe(
            table_text,
            {"median_nit": "median K", "max_nit": "largest K", "worst_ratio": "K / bound"},
            float_format=_fmt,
        )
    )


def snkpvn_glue(sn: pd.DataFrame) -> GlueItems:
    """The numbers the SNKPVN section quotes."""
    return [
        ("ch06_sn_worst_f", sn.loc[sn["kind"] == "planted", "ratio"].max(), 2),
        ("ch06_sn_worst_i", sn.loc[sn["kind"] != "planted", "ratio"].max(), 2),
        ("ch06_sn_n", len(sn), 4),
    ]


def slides_order_text(demo: dict[str, Any]) -> str:
    """What :func:`slides_order_demo` shows, in words.

    Raises
    ------
    ClaimError
        If the demonstration did not come out as the text says: the talk's order must
        hit its iteration cap and the guarded ISNKPVN must return a certificate.
    """
    if demo["slides_outcome"] != "max_iter" or demo["guard_outcome"] != "certificate":
        raise ClaimError(
            "the talk's order should run until its cap and the guard should return a "
            f"certificate; got {demo['slides_outcome']!r} and {demo['guard_outcome']!r}"
        )
    return (
        f"two copies of one point with opposite labels: ||q_0||_G = {demo['norm_q0']:.3g}\n"
        "in the talk's order, SNKPVN(q_0, delta_0 = 0) runs first: stopped by the cap\n"
        f"  after {demo['slides_nit']} iterations (without a cap it would never stop)\n"
        f"with the guard: a {demo['guard_outcome']} after {demo['guard_nouter']} calls and "
        f"{demo['guard_nit']} iterations"
    )


def isnkpvn_inf_points(
    n: int,
    d: int,
    cap_rhos: Sequence[float],
    eps_grid: Sequence[float],
    gamma: float,
    nvn_min_eps: float,
) -> list[dict[str, Any]]:
    """ISNKPVN against ``1/eps`` on inseparable problems: ``"cap"`` at every margin and
    ``"edge"`` (margin 0), where NVN runs beside it only down to ``nvn_min_eps``."""
    pts = [
        dict(kind="cap", n=n, d=d, rho=r, seed=0, gamma=gamma, eps=e, nvn=True)
        for r in cap_rhos
        for e in eps_grid
    ]
    pts += [
        dict(kind="edge", n=n, d=d, rho=0.0, seed=0, gamma=gamma, eps=e, nvn=e >= nvn_min_eps)
        for e in eps_grid
    ]
    return pts


def isnkpvn_feas_points(
    n: int, d: int, rhos: Sequence[float], n_seeds: int, gamma: float, eps: float
) -> list[dict[str, Any]]:
    """ISNKPVN against ``1/rho`` on separable (``"planted"``) problems, NVN beside it."""
    return [
        dict(kind="planted", n=n, d=d, rho=r, seed=s, gamma=gamma, eps=eps, nvn=True)
        for r in rhos
        for s in range(n_seeds)
    ]


def isnkpvn_kernel(
    k_sep: data.Dataset,
    k_dup: data.Dataset,
    *,
    gamma: float,
    sep_eps: float,
    dup_eps: Sequence[float],
    nvn_min_eps: float,
) -> pd.DataFrame:
    """ISNKPVN on two kernel problems: the separable ``k_sep`` (``"moons-rbf"``) at
    ``sep_eps``, and the margin-0 ``k_dup`` (``"moons-rbf-duplicate"``) at every
    tolerance of ``dup_eps``, with NVN beside it down to ``nvn_min_eps``."""
    rows = [dict(kind="moons-rbf", eps=sep_eps, **isnkpvn_on(k_sep, gamma=gamma, eps=sep_eps))]
    rows += [
        dict(
            kind="moons-rbf-duplicate",
            eps=e,
            **isnkpvn_on(k_dup, gamma=gamma, eps=e, nvn=e >= nvn_min_eps),
        )
        for e in dup_eps
    ]
    return pd.DataFrame(rows)


def isnkpvn_verdict(
    isn_inf: pd.DataFrame, isn_feas: pd.DataFrame, isn_kern: pd.DataFrame
) -> Verdict:
    """The ISNKPVN theorem on every run of the three tables (see :func:`isnkpvn_run`).

    Raises
    ------
    ClaimError
        If an output of NVN, run beside ISNKPVN for comparison, failed its verification
        (not a check of this chapter's results, but the comparison would be void).
    """
    allrows = pd.concat([isn_inf, isn_feas, isn_kern], ignore_index=True)
    nvn_rows = allrows[allrows["nvn_ok"].notna()]
    if not nvn_rows["nvn_ok"].astype(bool).all():
        raise ClaimError("an NVN output failed verification")
    detail = (
        f"{len(allrows)} runs ({int((allrows['outcome'] == 'separator').sum())} separators "
        f"with G alpha > 0, {int((allrows['outcome'] == 'certificate').sum())} certificates "
        f"with p in the simplex and ||p||_G <= eps); ||q_t||_G falls by > gamma per call; "
        f"worst call ratio {allrows['call_ratio'].max():.3g}, worst total ratio "
        f"{allrows['total_ratio'].max():.3g}, calls within the bound"
    )
    return make_verdict(allrows["ok"].all(), detail, len(allrows))


#: Columns of the per-run ISNKPVN table (inseparable and kernel runs), with headings.
ISNKPVN_COLUMNS = {
    "kind": "problem",
    "rho_exact": "margin",
    "eps": "eps",
    "outcome": "outcome",
    "nouter": "calls",
    "calls_bound": "max calls",
    "nit": "iterations",
    "total_bound": "max iter.",
    "nvn_nit": "NVN",
}

#: Shorter names of the two RBF problems in the printed table.
_KIND_SHORT = {"moons-rbf": "moons", "moons-rbf-duplicate": "moons, dup"}


def isnkpvn_tables(isn_inf: pd.DataFrame, isn_feas: pd.DataFrame, isn_kern: pd.DataFrame) -> str:
    """Two tables: every inseparable and kernel run, then the separable runs per margin.

    A run's ``NVN`` entry is ``-`` where Von Neumann was not run (tolerances it cannot
    reach at margin 0 here)."""
    show = pd.concat([isn_inf, isn_kern], ignore_index=True)[list(ISNKPVN_COLUMNS)]
    show["kind"] = show["kind"].replace(_KIND_SHORT)
    feas = (
        isn_feas.groupby("rho")
        .agg(
            nouter=("nouter", "max"),
            isnkpvn_nit=("nit", "median"),
            total_bound=("total_bound", "max"),
            nvn_nit=("nvn_nit", "median"),
            nvn_bound=("nvn_bound", "max"),
        )
        .pipe(
            table_text,
            {
                "rho": "margin",
                "nouter": "calls",
                "isnkpvn_nit": "ISNKPVN",
                "total_bound": "bound",
                "nvn_nit": "NVN",
                "nvn_bound": "NVN bound",
            },
            float_format=_fmt4,
        )
    )
    runs = table_text(show, ISNKPVN_COLUMNS, index=False, float_format=_fmt4)
    return runs + "\n\n" + feas


def isnkpvn_glue(
    isn_inf: pd.DataFrame,
    isn_feas: pd.DataFrame,
    isn_kern: pd.DataFrame,
    *,
    nvn_min_eps: float,
    moons_rho: float,
    n_moons: int,
) -> GlueItems:
    """The numbers the ISNKPVN section quotes (``n_moons``: points of the problem with
    the repeated point)."""
    allrows = pd.concat([isn_inf, isn_feas, isn_kern], ignore_index=True)
    return [
        ("ch06_nvn_min_eps", nvn_min_eps, 3),
        ("ch06_isn_runs", len(allrows), 4),
        ("ch06_isn_call_worst", allrows["call_ratio"].max(), 2),
        ("ch06_isn_total_worst", allrows["total_ratio"].max(), 2),
        ("ch06_moons_rho", moons_rho, 3),
        ("ch06_n_moons", n_moons, 4),
    ]


def feasible_medians(isn_feas: pd.DataFrame) -> pd.DataFrame:
    """Per margin (increasing): median iterations of ISNKPVN (``nit``) and NVN (``nvn``)
    and the largest of their bounds (``total_bound``, ``nvn_bound``)."""
    return (
        isn_feas.groupby("rho")
        .agg(
            nit=("nit", "median"),
            nvn=("nvn_nit", "median"),
            total_bound=("total_bound", "max"),
            nvn_bound=("nvn_bound", "max"),
        )
        .reset_index()
    )


def vs_nvn_glue(
    isn_inf: pd.DataFrame,
    isn_feas: pd.DataFrame,
    isn_kern: pd.DataFrame,
    *,
    cap_rhos: Sequence[float],
    eps_grid: Sequence[float],
) -> GlueItems:
    """The numbers the comparison with NVN quotes: fitted slopes against ``1/eps`` (margin
    0) and ``1/rho`` (separable), and iteration ratios NVN / ISNKPVN at the smallest
    tolerance each method reached."""
    edge = isn_inf[isn_inf["kind"] == "edge"].sort_values("eps")
    edge_nvn = edge[edge["nvn_nit"].notna()]
    last = edge_nvn.iloc[0]
    kernel_dup = isn_kern[isn_kern["kind"] == "moons-rbf-duplicate"].sort_values("eps")
    kdup = kernel_dup[kernel_dup["nvn_nit"].notna()].iloc[0]

    def smallest_eps(r: float) -> pd.Series:
        sub = isn_inf[(isn_inf["kind"] == "cap") & (isn_inf["rho"] == r)]
        return sub.sort_values("eps").iloc[0]

    cap_low, cap_high = smallest_eps(min(cap_rhos)), smallest_eps(max(cap_rhos))
    agg = feasible_medians(isn_feas)
    lowest_rho = agg.iloc[0]
    return [
        (
            "ch06_slope_isn_eps",
            loglog_slope(1 / edge["eps"], edge["nit"], nonpositive="drop"),
            2,
        ),
        ("ch06_slope_nvn_eps", loglog_slope(1 / edge_nvn["eps"], edge_nvn["nvn_nit"]), 2),
        ("ch06_edge_eps", last["eps"], 3),
        ("ch06_edge_ratio", last["nvn_nit"] / last["nit"], 3),
        ("ch06_edge_nvn", int(last["nvn_nit"]), 4),
        ("ch06_edge_isn", int(last["nit"]), 4),
        ("ch06_kdup_eps", kdup["eps"], 3),
        ("ch06_kdup_ratio", kdup["nvn_nit"] / kdup["nit"], 3),
        ("ch06_cap_rho", min(cap_rhos), 3),
        ("ch06_cap_ratio", cap_low["nvn_nit"] / cap_low["nit"], 3),
        ("ch06_cap2_rho", max(cap_rhos), 3),
        ("ch06_cap2_ratio", cap_high["nvn_nit"] / cap_high["nit"], 3),
        ("ch06_eps_min", min(eps_grid), 3),
        ("ch06_slope_isn_rho", loglog_slope(1 / agg["rho"], agg["nit"]), 2),
        ("ch06_slope_nvn_rho", loglog_slope(1 / agg["rho"], agg["nvn"]), 2),
        ("ch06_feas_rho", lowest_rho["rho"], 3),
        ("ch06_feas_ratio", lowest_rho["nvn"] / lowest_rho["nit"], 3),
    ]


def gamma_points(
    *,
    isn_n: int,
    isn_d: int,
    cap_rho: float,
    feas_n: int,
    feas_d: int,
    feas_rho: float,
    gammas: Sequence[float],
    eps: float,
    feas_eps: float,
    n_seeds: int,
) -> list[dict[str, Any]]:
    """ISNKPVN at every ``gamma``: an inseparable (``"cap"``) and a margin-0 (``"edge"``)
    problem at tolerance ``eps``, and a separable one at ``feas_eps``; NVN does not run."""
    pts = [
        dict(kind=k, n=isn_n, d=isn_d, rho=r, seed=s, gamma=g, eps=eps, nvn=False)
        for k, r in [("cap", cap_rho), ("edge", 0.0)]
        for s in range(n_seeds)
        for g in gammas
    ]
    pts += [
        dict(
            kind="planted",
            n=feas_n,
            d=feas_d,
            rho=feas_rho,
            seed=s,
            gamma=g,
            eps=feas_eps,
            nvn=False,
        )
        for s in range(n_seeds)
        for g in gammas
    ]
    return pts


def gamma_means(gam: pd.DataFrame) -> pd.DataFrame:
    """Mean total iterations, calls and a-priori bound per problem and ``gamma``.

    Raises
    ------
    ClaimError
        If a run of the sweep failed its checks (``ok``, see :func:`isnkpvn_run`): the
        comparison of the ``gamma`` values would then mix failed runs in.
    """
    if not gam["ok"].all():
        bad = gam.loc[~gam["ok"].astype(bool), ["kind", "rho", "seed", "gamma"]]
        raise ClaimError(f"ISNKPVN runs failed their checks:\n{bad.to_string(index=False)}")
    return (
        gam.groupby(["kind", "rho", "gamma"])
        .agg(nit=("nit", "mean"), nouter=("nouter", "mean"), bound=("total_bound", "mean"))
        .reset_index()
    )


def gamma_table(agg: pd.DataFrame) -> str:
    """Mean total iterations: one row per ``gamma``, one column per problem."""
    return agg.pivot_table(index="gamma", columns="kind", values="nit").pipe(
        table_text, float_format=_fmt4
    )


def gamma_glue(agg: pd.DataFrame, *, gamma: float, runs: int) -> GlueItems:
    """The numbers the section on ``gamma`` quotes: the best measured ``gamma`` per
    problem, the spread on the margin-0 problem, and how far the default ``gamma`` is from
    the best one (``runs``: number of runs of the sweep)."""
    best = {
        kind: float(sub.loc[sub["nit"].idxmin(), "gamma"])
        for kind in ("cap", "edge", "planted")
        for sub in [agg[agg["kind"] == kind]]
    }
    ed = agg[agg["kind"] == "edge"].set_index("gamma")["nit"]
    ratios = [
        agg[(agg["kind"] == k) & (agg["gamma"] == gamma)]["nit"].iloc[0]
        / agg[agg["kind"] == k]["nit"].min()
        for k in ("cap", "edge", "planted")
    ]
    return [
        ("ch06_gamma_best_cap", best["cap"], 3),
        ("ch06_gamma_best_edge", best["edge"], 3),
        ("ch06_gamma_best_planted", best["planted"], 3),
        ("ch06_gamma_spread", ed.max() / ed.min(), 3),
        ("ch06_gamma_default", gamma, 3),
        ("ch06_gamma_default_ratio", max(ratios), 3),
        ("ch06_gamma_runs", runs, 4),
    ]


def gamma_bound_exercise(
    n: int = 100, eps: float = 1e-6, rho: float = -0.1, norm_q0: float = 1.0
) -> str:
    """The exercise on the best ``gamma`` of the bound: on the grid ``1.5, 1.51, ...,
    10`` the a-priori total of :func:`isnkpvn_total_bound` at ``gamma = 2`` and ``10``
    relative to its smallest value, and where it is smallest. With ``rho < 0`` and
    ``eps`` far below ``|rho|`` the total is the count of calls times the per-call bound,
    which behaves like ``gamma / ln gamma``.

    Raises
    ------
    ClaimError
        If the exact bound is not smallest in ``(2, 4)``, near ``e``, the minimiser of
        ``gamma / ln gamma`` (the exercise's claim).
    """
    gam_grid = np.round(np.arange(1.5, 10.01, 0.01), 2)
    tot = np.array([isnkpvn_total_bound(n, g, eps, rho, norm_q0)[1] for g in gam_grid])
    best_g = gam_grid[np.argmin(tot)]
    if not 2.0 < best_g < 4.0:
        raise ClaimError(f"the exact bound is smallest at gamma = {best_g:.2f}, far from e")
    lines = [
        f"gamma = {g:g}: bound / smallest bound = {tot[gam_grid == g][0] / tot.min():.3f}"
        for g in (2.0, 10.0)
    ]
    lines.append(f"the exact bound is smallest at gamma = {best_g:.2f} on this grid")
    return "\n".join(lines)

"""Experiments of Chapter 6 (paper Section 6): kernelised primal-dual algorithms.

Everything the notebook ``book/ch06_primal_dual.ipynb`` computes lives here:

* :func:`instance`: the separable and inseparable test problems, with their exact
  margin and (when known in closed form) their witness set.
* :func:`sample_q` / :func:`lemma7_run` / :func:`lemma7_sweep`: Lemma 7, the
  Hoffman-type bound ``dist(q, W) <= sqrt(2) ||q||_G / (||q||_G + |rho_K|)``, with
  ``dist(q, W)`` computed exactly (:func:`kperc.dist_to_witness`).
* :func:`sandwich_run` / :func:`sandwich_sweep`: Lemmas 8 and 9 along SNKPVN runs.
* :func:`snkpvn_run` / :func:`snkpvn_sweep`: the SNKPVN iteration bounds, separable
  (``K < 2 sqrt(2n) / max(rho, delta)``) and infeasible (``K < 2 sqrt(n) dist(q,W) /
  delta``).
* :func:`isnkpvn_run` / :func:`isnkpvn_sweep`: ISNKPVN against its per-call and total
  bounds, with the normalised Von Neumann algorithm on the same instance for comparison.
* :func:`isnkpvn_total_bound`: the a-priori bounds on the total number of inner
  iterations, derived in the chapter.
* :func:`slides_order_demo`: why ISNKPVN needs the guard ``||q_t||_G <= eps``.

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
from kperc_book.experiments._common import loglog_slope
from kperc_book.experiments._infeasible import dantzig_bound, edge_instance, ef_dual_bound

__all__ = [
    "Instance",
    "instance",
    "rbf_duplicate",
    "rbf_instance",
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
    "loglog_slope",
    "sweep",
]

#: Kinds of centres ``q`` drawn by :func:`sample_q`.
Q_KINDS = ("barycentre", "vertex", "dirichlet-0.2", "dirichlet-1", "dirichlet-5", "near-witness")


class Instance(dict):
    """A test problem: ``G``, ``rho`` (exact margin), ``n``, ``feasible`` and, when the
    witness set is a single known point, ``witness`` (else ``None``)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError as e:  # pragma: no cover
            raise AttributeError(key) from e


def rbf_duplicate(X, y, *, gamma: float = 2.0, index: int = 0) -> Instance:
    """An RBF problem made infeasible by repeating one point with the opposite label.

    For distinct points the RBF Gram matrix is positive definite, so the features
    ``a_1..a_m`` are linearly independent; appending ``a_{m+1} = -a_index`` gives
    ``W = {(e_index + e_{m+1}) / 2}`` exactly (any witness must cancel every independent
    feature), and ``rho_K = 0`` (the ``m + 1`` points are affinely independent and the
    origin is the midpoint of one edge of their simplex).
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    m = X.shape[0]
    X2 = np.vstack([X, X[index : index + 1]])
    y2 = np.concatenate([y, -y[index : index + 1]])
    G = kperc.gram_matrix(X2, y2, "rbf", gamma=gamma)
    w = np.zeros(m + 1)
    w[[index, m]] = 0.5
    return Instance(G=G, rho=0.0, n=m + 1, feasible=False, witness=w, name="rbf-duplicate")


def rbf_instance(X, y, *, gamma: float = 2.0) -> Instance:
    """An RBF problem on distinct points: separable, with its exact margin."""
    G = kperc.gram_matrix(np.asarray(X, float), np.asarray(y, float), "rbf", gamma=gamma)
    return Instance(G=G, rho=kperc.margin(G), n=G.shape[0], feasible=True, witness=None, name="rbf")


def instance(kind: str, n: int, d: int, rho: float, seed: int) -> Instance:
    """A linear-kernel test problem with an exact margin.

    ``"planted"``: separable with margin ``rho > 0`` (:func:`kperc.datasets.planted`);
    ``"cap"``: inseparable with margin ``rho < 0`` (:func:`kperc.datasets.infeasible`,
    exact for ``d <= 6``); ``"edge"``: inseparable with margin 0 and a single witness
    (:func:`kperc_book.experiments._infeasible.edge_instance`).
    """
    if kind == "planted":
        ds = data.planted(n, d, rho, near=0.5, seed=seed)
        return Instance(
            G=kperc.gram_matrix(ds.X, ds.y),
            rho=float(ds.info["rho"]),
            n=n,
            feasible=True,
            witness=None,
            name=kind,
        )
    if kind == "cap":
        ds = data.infeasible(n, d, rho, seed=seed)
        return Instance(
            G=kperc.gram_matrix(ds.X, ds.y),
            rho=float(ds.info["rho"]),
            n=n,
            feasible=False,
            witness=None,
            name=kind,
        )
    if kind == "edge":
        ds = edge_instance(n, d, seed=seed)
        return Instance(
            G=kperc.gram_matrix(ds.X, ds.y),
            rho=0.0,
            n=n,
            feasible=False,
            witness=ds.info["witness"],
            name=kind,
        )
    raise ValueError(f"unknown instance kind {kind!r}")


def _dist(inst: Instance, q: np.ndarray) -> tuple[float, float]:
    """``dist(q, W)`` and the residual ``||B w||`` of the nearest witness."""
    if inst.witness is not None:
        return float(np.linalg.norm(q - inst.witness)), 0.0
    r = kperc.dist_to_witness(inst.G, q)
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
    inst = instance(kind, n, d, rho, seed)
    G = inst.G
    rng = np.random.default_rng(20_000 + seed)
    w0 = inst.witness
    if w0 is None:
        w0 = kperc.min_norm_point(kperc.gram_factor(G))[1]  # a point of W
    nq, dist, bound, resid = [], [], [], []
    for i in range(n_q):
        q = sample_q(rng, n, Q_KINDS[i % len(Q_KINDS)], witness=w0)
        qn = kperc.g_seminorm(G, q)
        dd, res = _dist(inst, q)
        nq.append(qn)
        dist.append(dd)
        bound.append(lemma7_bound(qn, inst.rho))
        resid.append(res)
    dist, bound = np.asarray(dist), np.asarray(bound)
    return {
        "rho_exact": inst.rho,
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
    inst = instance(kind, n, d, rho, seed)
    rng = np.random.default_rng(30_000 + seed)
    w0 = inst.witness
    if w0 is None and not inst.feasible:
        w0 = kperc.min_norm_point(kperc.gram_factor(inst.G))[1]
    q = sample_q(rng, n, q_kind, witness=w0)
    res = kperc.snkpvn(inst.G, q, delta, trace=True)
    dist = None if inst.feasible else _dist(inst, q)[0]
    out = {
        "rho_exact": inst.rho,
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
    inst = instance(kind, n, d, rho, seed)
    G = inst.G
    rng = np.random.default_rng(40_000 + seed)
    w0 = inst.witness
    if w0 is None and not inst.feasible:
        w0 = kperc.min_norm_point(kperc.gram_factor(G))[1]
    q = sample_q(rng, n, q_kind, witness=w0)
    if inst.feasible:
        delta = delta_rel * inst.rho
        res = kperc.snkpvn(G, q, delta)
        bound = 2.0 * math.sqrt(2.0 * n) / max(inst.rho, delta)
        sep_ok = res.outcome == "separator" and (G @ res.alpha).min() > 0
        cert_ok = (
            res.outcome == "certificate"
            and res.p.min() >= 0
            and abs(res.p.sum() - 1) <= 1e-12
            and kperc.g_seminorm(G, res.p) < delta
        )
        ok = (sep_ok if delta <= inst.rho else (sep_ok or cert_ok)) and res.nit < bound
        dist = np.nan
    else:
        delta = delta_rel
        res = kperc.snkpvn(G, q, delta)
        dist = _dist(inst, q)[0]
        bound = 2.0 * math.sqrt(n) * dist / delta
        cert_ok = (
            res.outcome == "certificate"
            and res.p.min() >= 0
            and abs(res.p.sum() - 1) <= 1e-12
            and kperc.g_seminorm(G, res.p) < delta
        )
        ok = cert_ok and (res.nit < bound or (bound == 0 and res.nit == 0))
    return {
        "rho_exact": inst.rho,
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

    * Separable, ``eps < rho``: a dual return needs ``delta_t > rho``, i.e.
      ``||q_t||_G > gamma rho``, and ``||q_t||_G <= gamma^{-t} ||q_0||_G``; so at most
      ``ceil(log(||q_0||_G / rho) / log gamma) - 1`` dual returns and one more call, each
      of fewer than ``2 sqrt(2n) / rho`` iterations.
    * Inseparable (``rho <= 0``): every call starts from ``||q_t||_G > eps`` (guard), and
      each call before the last has ``||q_t||_G >= gamma eps``; so at most
      ``floor(log(||q_0||_G / eps) / log gamma) + 1`` calls, each of fewer than
      ``2 sqrt(2n) gamma / (eps + |rho|)`` iterations (Lemmas 7 and 9).

    Returns
    -------
    calls : int
    total : float
        Strict upper bound on the total number of inner iterations.
    """
    lg = math.log(gamma)
    if rho > 0:
        if not eps < rho:
            raise ValueError("the separable bound needs eps < rho")
        calls = max(math.ceil(math.log(norm_q0 / rho) / lg), 1)
        return calls, calls * 2.0 * math.sqrt(2.0 * n) / rho
    if norm_q0 <= eps:
        return 0, 0.0
    calls = math.floor(math.log(norm_q0 / eps) / lg) + 1
    return calls, calls * 2.0 * math.sqrt(2.0 * n) * gamma / (eps + abs(rho))


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
    inst = instance(kind, n, d, rho, seed)
    out = _run_isnkpvn(inst.G, inst.rho, inst.feasible, gamma, eps, eps if nvn else None, max_iter)
    out["rho_exact"] = inst.rho
    return out


def isnkpvn_sweep(points: Sequence[dict[str, Any]], *, n_jobs: int = 1) -> pd.DataFrame:
    """:func:`isnkpvn_run` over a list of keyword dictionaries."""
    return pd.DataFrame(sweep(isnkpvn_run, points, n_jobs=n_jobs))


def isnkpvn_on(
    inst: Instance,
    gamma: float = 2.0,
    eps: float = 1e-3,
    nvn: bool = True,
    max_iter: int = 1_000_000,
) -> dict[str, Any]:
    """:func:`isnkpvn_run` on a prepared :class:`Instance` (for example a kernel one)."""
    out = _run_isnkpvn(inst.G, inst.rho, inst.feasible, gamma, eps, eps if nvn else None, max_iter)
    out["rho_exact"] = inst.rho
    return out


#: delta of the slides' order (zero) as kperc.snkpvn takes it (it refuses delta = 0).
NUMERICAL_ZERO = 1e-300


def slides_order_demo(max_iter: int = 2000) -> dict[str, Any]:
    """ISNKPVN on two copies of one point with opposite labels, with and without the guard.

    ``G = [[1, -1], [-1, 1]]`` and ``q_0 = (1/2, 1/2)`` has ``||q_0||_G = 0``. The slides'
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

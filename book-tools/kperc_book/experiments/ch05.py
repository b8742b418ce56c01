"""Experiments of Chapter 5 (paper Section 5): infeasible problems.

Everything the notebook ``book/ch05_infeasible_problems.ipynb`` computes lives here:

* :func:`lp_separation` / :func:`gordan_run` / :func:`gordan_sweep`: Gordan's
  alternative (Lemma 6) decided twice, by a linear program for a separator and by the
  exact nearest point of the hull for a certificate; exactly one side must hold.
* :func:`kernel_examples`: Theorem 2 (Gordan in an RKHS) on small kernel problems:
  an RBF kernel on distinct points (always separable), a duplicated point with opposite
  labels, a low-rank quadratic kernel, the linear kernel.
* :func:`make_problem`: the linear problems of the chapter (planted, cap, edge, gauss),
  and :func:`edge_problem`: inseparable data whose margin is exactly 0 (the origin on
  the boundary of the hull) and whose witness set is a single known point; both are
  :class:`kperc.datasets.Dataset` objects built in :mod:`kperc_book.experiments._problems`.
* :func:`nvn_path`: Algorithm 5 in linear form on 2-D data, with the hull of the signed
  points, for the figure of the iterates ``w_k``.
* :func:`nvn_run` / :func:`nvn_sweep`: Algorithm 5 in kernel form (only ``G``) against
  Dantzig's bound and both Epelman-Freund bounds, with the linear form as a cross-check.
* :func:`no_primal_exit`: what happens on separable data without the primal exit.
* :func:`theorem3_run` / :func:`theorem3_sweep`: Theorem 3 (negative margin = inradius of
  the hull) checked against the facets, sampled directions and sampled ball points.
* :func:`caveat_lift`: the infinite-dimensional caveat in miniature: 2-D data seen in
  ``R^3``, where margin (5) collapses to 0 and the span-restricted margin does not.
* What the notebook shows of these: the verdicts handed to ``ch.check`` (one
  ``*_verdict`` function per stated result, returning ``ok``, ``detail`` and
  ``instances``), the printed tables and texts (``*_table``, ``*_text``) and the numbers
  quoted in the prose (``*_numbers``). The figures are drawn by
  :mod:`kperc_book.experiments.ch05_figures`.

Every function is seeded and deterministic; sweeps go through
:func:`kperc.sweeps.sweep` (joblib) and return :class:`pandas.DataFrame` objects in grid
order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linprog
from scipy.spatial import ConvexHull

import kperc
from kperc.sweeps import grid, sweep
from kperc_book import data
from kperc_book.experiments._common import loglog_slope, make_verdict, table_text
from kperc_book.experiments._infeasible import dantzig_bound, ef_dual_bound
from kperc_book.experiments._problems import edge_problem, make_problem

__all__ = [
    "sweep",
    "ZERO_TOL",
    "lp_separation",
    "make_problem",
    "edge_problem",
    "gordan_run",
    "gordan_sweep",
    "kernel_examples",
    "kernel_gordan_run",
    "kernel_gordan_sweep",
    "nvn_path",
    "nvn_run",
    "nvn_sweep",
    "rate_points",
    "eps_points",
    "nvn_checks",
    "hull_2d",
    "direction_profile",
    "dantzig_bound",
    "ef_dual_bound",
    "no_primal_exit",
    "hull_polygon",
    "theorem3_run",
    "theorem3_sweep",
    "caveat_lift",
    "loglog_slope",
    "tidy",
    "gordan_verdict",
    "gordan_table",
    "gordan_numbers",
    "KERNEL_EXAMPLE_COLUMNS",
    "kernel_examples_table",
    "theorem2_verdict",
    "kernel_sweep_table",
    "kernel_numbers",
    "path_text",
    "stall_text",
    "rate_checks",
    "cross_check_text",
    "dantzig_verdict",
    "ef_primal_verdict",
    "ef_dual_verdict",
    "rate_table",
    "rate_traces",
    "rate_numbers",
    "theorem3_verdict",
    "theorem3_table",
    "theorem3_numbers",
    "theorem3_picture",
    "caveat_text",
    "caveat_slope",
    "weak_duality_sample",
    "weak_duality_text",
]

#: A value at or below this is treated as an exact zero (||A p||, LP value).
ZERO_TOL = 1e-9


def tidy(df: pd.DataFrame, tol: float = 1e-12) -> pd.DataFrame:
    """A copy of ``df`` with floats of magnitude below ``tol`` set to 0 (round-off noise
    such as ``1e-16`` is not reproducible across machines and says nothing)."""
    out = df.copy()
    for c in out.columns:
        if pd.api.types.is_float_dtype(out[c]):
            v = out[c].to_numpy(copy=True)
            v[np.abs(v) < tol] = 0.0
            out[c] = v
    return out


# ---------------------------------------------------------------------------------------
# Gordan's alternative, decided twice
# ---------------------------------------------------------------------------------------
def lp_separation(B: np.ndarray) -> tuple[float, np.ndarray]:
    """Largest ``t`` with ``b_i^T u >= t`` for all ``i`` over the box ``|u_j| <= 1``.

    The columns ``b_i`` are signed points (``A``, or the factor of :func:`kperc.gram_factor`).
    The value is positive exactly when some ``u`` has ``B^T u > 0``, i.e. when the
    primal is feasible; it is a linear program (HiGHS), independent of the
    nearest-point computation behind :func:`kperc.margin`.

    Returns
    -------
    value : float
        The optimal ``t`` (capped at 1).
    u : ndarray of shape (r,)
        A maximiser.
    """
    B = np.asarray(B, dtype=float)
    r, n = B.shape
    c = np.zeros(r + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-B.T, np.ones((n, 1))])  # t - b_i^T u <= 0
    res = linprog(
        c, A_ub=A_ub, b_ub=np.zeros(n), bounds=[(-1.0, 1.0)] * r + [(None, 1.0)], method="highs"
    )
    if not res.success:  # pragma: no cover - bounded and feasible (u = 0, t = min 0)
        raise RuntimeError(res.message)
    return float(-res.fun) + 0.0, res.x[:r]  # + 0.0: no "-0" in printed tables


def gordan_run(kind: str, n: int, d: int, rho: float, seed: int) -> dict[str, Any]:
    """Gordan's alternative (Lemma 6) on one linear instance, decided two ways.

    * Separator side: the LP of :func:`lp_separation` on the signed points ``A``; if its
      value is positive, ``w = u`` is verified to have ``A^T w > 0``.
    * Certificate side: the nearest point of ``conv{a_i}`` to 0
      (:func:`kperc.min_norm_point`); if it is 0, ``p`` is verified to lie in the simplex
      with ``||A p|| <= 1e-9``.

    Returns
    -------
    dict
        ``lp_value``, ``min_norm``, ``separator`` (the LP found ``w`` with ``A^T w > 0``),
        ``certificate`` (``p`` in the simplex with ``||Ap|| <= ZERO_TOL``),
        ``exactly_one`` and ``dual_gap_ok`` (for separable data ``min_i a_i^T w* =
        ||A p*||^2`` at the nearest point, so the two values agree in sign).
    """
    ds = make_problem(kind, n, d, rho, seed)
    A = kperc.signed_normalized_points(ds.X, ds.y)  # rows a_i
    value, u = lp_separation(A.T)
    mn, p = kperc.min_norm_point(A.T)
    separator = bool(value > ZERO_TOL and (A @ u).min() > 0)
    in_simplex = bool(p.min() >= 0 and abs(p.sum() - 1) <= 1e-12)
    certificate = bool(in_simplex and np.linalg.norm(A.T @ p) <= ZERO_TOL)
    wstar = A.T @ p
    # at a positive nearest point w*, min_i a_i^T w* = ||w*||^2 (optimality)
    gap_ok = certificate or abs((A @ wstar).min() - mn**2) <= 1e-9
    return {
        "lp_value": value,
        "min_norm": mn,
        "separator": separator,
        "certificate": certificate,
        "exactly_one": separator != certificate,
        "dual_gap_ok": bool(gap_ok),
        "rho_exact": float(ds.info["rho"]),
    }


def gordan_sweep(
    kinds: Sequence[str],
    seeds: Iterable[int],
    *,
    n: int = 30,
    d: Sequence[int] = (2, 3, 5),
    rho: float = 0.1,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """:func:`gordan_run` over instance kinds, dimensions and seeds.

    ``rho`` is used with the sign the kind needs (``+rho`` planted, ``-rho`` cap).
    ``"cap"`` instances are limited to ``d <= 6`` by their generator. ``"gauss"``
    instances use ``2 d + 1`` points, near the threshold where random labels stop being
    separable, so that both sides of the alternative occur.
    """
    pts = []
    for kind in kinds:
        for dd in d:
            for s in seeds:
                r = abs(rho) if kind == "planted" else -abs(rho)
                if kind == "cap" and dd > 6:
                    continue
                nn = 2 * dd + 1 if kind == "gauss" else n
                pts.append({"kind": kind, "n": nn, "d": dd, "rho": r, "seed": s})
    return pd.DataFrame(sweep(gordan_run, pts, n_jobs=n_jobs))


# ---------------------------------------------------------------------------------------
# Theorem 2 on small kernel problems
# ---------------------------------------------------------------------------------------
def _kernel_row(name: str, G: np.ndarray, note: str) -> dict[str, Any]:
    B = kperc.gram_factor(G)
    lam = np.linalg.eigvalsh(G)
    value, u = lp_separation(B)
    mn, p = kperc.min_norm_point(B)
    # a separator in coefficient space: alpha with B alpha = u, so G alpha = B^T u
    alpha = np.linalg.lstsq(B, u, rcond=None)[0]
    Galpha = G @ alpha
    separator = bool(value > ZERO_TOL and Galpha.min() > 0)
    pG = float(np.linalg.norm(B @ p))  # ||p||_G from the factor: no round-off floor
    certificate = bool(p.min() >= 0 and abs(p.sum() - 1) <= 1e-12 and pG <= ZERO_TOL)
    try:
        rho = kperc.margin(G)
    except ValueError:  # inseparable with rank > 6: no exact negative margin
        rho = float("nan")
    return {
        "example": name,
        "n": G.shape[0],
        "rank": B.shape[0],
        "lambda_min": lam[0],
        "lp_value": value,
        "min_norm_p_G": pG,
        "separator": separator,
        "certificate": certificate,
        "exactly_one": separator != certificate,
        "rho_K": rho,
        "note": note,
    }


def kernel_examples(seed: int = 0, n: int = 12) -> pd.DataFrame:
    """Theorem 2 on small kernel problems, each decided by an LP and a nearest point.

    Examples (2-D points, ``n`` of them, labels at random unless stated):

    * ``rbf-distinct``: RBF kernel, distinct points: ``G`` is positive definite, so
      ``alpha = G^{-1} 1`` gives ``G alpha = 1 > 0`` whatever the labels.
    * ``rbf-duplicate``: the same with one point repeated with the opposite label
      (``n = 6`` so that the exact margin, 0, can be computed): ``(e_i + e_j)/2``
      is a witness.
    * ``quadratic-random``: the homogeneous quadratic kernel ``(x^T z)^2``, whose feature
      space has dimension 3, with random labels: inseparable, negative margin.
    * ``quadratic-xor``: the same kernel with the XOR labels ``sign(x_1 x_2)``, separable
      by the feature ``x_1 x_2``.
    * ``linear-random``: the linear kernel on the same random labels.

    Returns
    -------
    DataFrame
        One row per example: ``rank``, ``lambda_min`` (smallest eigenvalue of ``G``),
        ``lp_value``, ``min_norm_p_G``, ``separator``, ``certificate``, ``exactly_one``,
        ``rho_K`` (``nan`` when inseparable with rank > 6) and a ``note``.
    """
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    rng.shuffle(y)
    rows = []
    G = kperc.gram_matrix(X, y, "rbf", gamma=1.0)
    row = _kernel_row("rbf-distinct", G, "G positive definite")
    a = np.linalg.solve(G, np.ones(n))
    row["note"] += f"; G G^-1 1 = 1 (min {float((G @ a).min()):.3g})"
    rows.append(row)
    m = 5
    Xd = np.vstack([X[:m], X[:1]])
    yd = np.concatenate([y[:m], -y[:1]])
    rows.append(
        _kernel_row(
            "rbf-duplicate",
            kperc.gram_matrix(Xd, yd, "rbf", gamma=1.0),
            "x_1 repeated with the opposite label",
        )
    )
    quad = {"degree": 2, "gamma": 1.0, "coef0": 0.0}
    rows.append(
        _kernel_row(
            "quadratic-random",
            kperc.gram_matrix(X, y, "poly", **quad),
            "feature space of dimension 3",
        )
    )
    yx = np.sign(X[:, 0] * X[:, 1])
    rows.append(
        _kernel_row(
            "quadratic-xor", kperc.gram_matrix(X, yx, "poly", **quad), "labels sign(x_1 x_2)"
        )
    )
    rows.append(_kernel_row("linear-random", kperc.gram_matrix(X, y), "rank 2"))
    return pd.DataFrame(rows)


def kernel_gordan_run(kind: str, n: int, seed: int) -> dict[str, Any]:
    """Theorem 2 on one random kernel problem (``n`` points in ``[-1, 1]^2``, random labels).

    ``kind``: ``"rbf"`` (RBF kernel, ``gamma = 1``), ``"rbf-dup"`` (the same, the last
    point a copy of the first with the opposite label), ``"quadratic"`` (``(x^T z)^2``,
    rank at most 3) or ``"poly2"`` (``(x^T z + 1)^2``, rank at most 6). Decided as in
    :func:`kernel_examples`; for ``"rbf"`` the separator ``G^{-1} 1`` is verified too.
    """
    rng = np.random.default_rng(50_000 + seed)
    X = rng.uniform(-1, 1, (n, 2))
    y = np.where(rng.uniform(size=n) < 0.5, 1.0, -1.0)
    if kind in ("rbf", "rbf-dup"):
        if kind == "rbf-dup":
            X[-1] = X[0]
            y[-1] = -y[0]
        G = kperc.gram_matrix(X, y, "rbf", gamma=1.0)
    elif kind == "quadratic":
        G = kperc.gram_matrix(X, y, "poly", degree=2, gamma=1.0, coef0=0.0)
    elif kind == "poly2":
        G = kperc.gram_matrix(X, y, "poly", degree=2, gamma=1.0, coef0=1.0)
    else:
        raise ValueError(f"unknown kernel kind {kind!r}")
    row = _kernel_row(kind, G, "")
    row["inverse_separator"] = bool(
        kind == "rbf" and (G @ np.linalg.solve(G, np.ones(n))).min() > 0
    )
    row.pop("example")
    row.pop("note")
    return row


def kernel_gordan_sweep(
    kinds: Sequence[str], sizes: Sequence[int], seeds: Iterable[int], *, n_jobs: int = 1
) -> pd.DataFrame:
    """:func:`kernel_gordan_run` over kernel kinds, sizes and seeds."""
    pts = grid(kind=list(kinds), n=list(sizes), seed=list(seeds))
    return pd.DataFrame(sweep(kernel_gordan_run, pts, n_jobs=n_jobs))


# ---------------------------------------------------------------------------------------
# Algorithm 5: paths, rates and bounds
# ---------------------------------------------------------------------------------------
def hull_polygon(P: np.ndarray) -> np.ndarray:
    """Vertices of the convex hull of 2-D points, counter-clockwise, closed."""
    h = ConvexHull(P)
    v = P[h.vertices]
    return np.vstack([v, v[:1]])


def nvn_path(
    X, y, *, eps: float = 1e-3, max_iter: int = 100_000, expect: str | None = None
) -> dict[str, Any]:
    """Algorithm 5 in linear form on 2-D data, with what the figure needs.

    With ``expect`` (``"certificate"`` or ``"separator"``), a run that ends otherwise, or
    whose answer fails its verification, raises :class:`AssertionError`.

    Returns
    -------
    dict
        ``A`` (signed normalised points, rows), ``hull`` (closed polygon of their hull),
        ``W`` (the iterates ``w_k``, rows), ``outcome``, ``nit``, ``p``, ``w``, ``eps`` and the
        checks ``certificate_ok`` (``p`` in the simplex and ``||A p|| <= eps``) and
        ``separator_ok`` (``A w > 0``).
    """
    res = kperc.von_neumann_linear(X, y, eps=eps, max_iter=max_iter, trace=True)
    A = kperc.signed_normalized_points(X, y)
    p = res.p
    cert = bool(
        res.outcome == "certificate"
        and p.min() >= 0
        and abs(p.sum() - 1) <= 1e-12
        and np.linalg.norm(A.T @ p) <= eps
    )
    sep = bool(res.outcome == "separator" and (A @ res.w).min() > 0)
    if expect is not None:
        verified = {"certificate": cert, "separator": sep}.get(expect)
        if verified is None:
            raise ValueError(f"expect must be 'certificate' or 'separator'; got {expect!r}")
        if res.outcome != expect or not verified:
            raise AssertionError(
                f"NVN was expected to return a verified {expect}; it returned "
                f"{res.outcome!r} after {res.nit} iterations (verified: {verified})"
            )
    return {
        "A": A,
        "hull": hull_polygon(A),
        "W": np.asarray(res.trace["w"]),
        "outcome": res.outcome,
        "nit": res.nit,
        "p": p,
        "w": res.w,
        "eps": eps,
        "certificate_ok": cert,
        "separator_ok": sep,
    }


def nvn_run(
    kind: str,
    n: int,
    d: int,
    rho: float,
    seed: int,
    eps: float = 1e-3,
    max_iter: int | None = None,
    keep_trace: bool = False,
    cross_check_max: int = 50_000,
) -> dict[str, Any]:
    """Algorithm 5 in kernel form on one instance, against every bound of Section 5.

    The run uses only ``G`` (:func:`kperc.nvn`, with the primal exit); when it stops
    within ``cross_check_max`` iterations, the linear form
    (:func:`kperc.von_neumann_linear`) is run as well and must stop at the same index
    with the same ``p`` (``linear_checked`` says whether it ran). The default
    ``max_iter`` is Dantzig's ``ceil(1/eps^2)``, which no run may reach.

    Returns
    -------
    dict
        ``rho_exact`` (exact margin), ``outcome``, ``nit``, ``norm_w0``;
        ``dantzig_ratio = max_k (k+1) ||w_k||^2`` (at most 1);
        ``dantzig_nit_bound``; ``ef_primal_bound = 1/rho^2`` (separable) and
        ``ef_dual_bound`` (``rho < 0``), ``nan`` when they do not apply;
        ``ef_step_ratio = max_k ||w_{k+1}||^2 / ((1 - rho^2) ||w_k||^2)`` (at most 1 when
        ``rho < 0``); ``bound`` (the bound that applies) and ``ratio = nit / bound``;
        ``certificate_ok``, ``separator_ok``, ``linear_agrees``, ``linear_checked``; with
        ``keep_trace`` the
        squared norms ``sq`` along the run.
    """
    ds = make_problem(kind, n, d, rho, seed)
    G = kperc.gram_matrix(ds.X, ds.y)
    rho_exact = float(ds.info["rho"])
    if max_iter is None:  # Dantzig: a certificate or separator by ceil(1/eps^2) - 1
        max_iter = int(np.ceil(1.0 / eps**2))
    res = kperc.nvn(G, eps=eps, max_iter=max_iter, trace=True)
    sq = np.asarray(res.trace["norm_w"]) ** 2
    k = np.arange(sq.size)
    dantzig_ratio = float(np.max(sq * (k + 1)))
    norm_w0 = float(np.sqrt(sq[0]))
    p = res.p
    pG = kperc.g_seminorm(G, p)
    cert = bool(
        res.outcome == "certificate" and p.min() >= 0 and abs(p.sum() - 1) <= 1e-12 and pG <= eps
    )
    sep = bool(res.outcome == "separator" and (G @ res.alpha).min() > 0)
    checked = res.nit <= cross_check_max
    agrees = True
    if checked:
        lin = kperc.von_neumann_linear(ds.X, ds.y, eps=eps, max_iter=max_iter)
        agrees = bool(
            lin.nit == res.nit
            and lin.outcome == res.outcome
            and np.allclose(lin.p, res.p, atol=1e-9)
        )
    ef_primal = 1.0 / rho_exact**2 if rho_exact > 0 else float("nan")
    if rho_exact < 0:
        efd = float(ef_dual_bound(rho_exact, eps, norm_w0))
        steps = sq[1:] / ((1.0 - rho_exact**2) * sq[:-1]) if sq.size > 1 else np.zeros(1)
        step_ratio = float(np.max(steps))
    else:
        efd, step_ratio = float("nan"), float("nan")
    dz = float(dantzig_bound(eps))
    if rho_exact > 0:
        bound = min(ef_primal, dz)
    elif rho_exact < 0:
        bound = min(efd, dz)
    else:
        bound = dz
    out = {
        "rho_exact": rho_exact,
        "outcome": res.outcome,
        "nit": res.nit,
        "norm_w0": norm_w0,
        "final_norm": float(np.sqrt(sq[-1])),
        "dantzig_ratio": dantzig_ratio,
        "dantzig_nit_bound": dz,
        "ef_primal_bound": ef_primal,
        "ef_dual_bound": efd,
        "ef_step_ratio": step_ratio,
        "bound": bound,
        "ratio": res.nit / max(bound, 1.0),
        "certificate_ok": cert,
        "separator_ok": sep,
        "linear_agrees": agrees,
        "linear_checked": checked,
    }
    if keep_trace:
        out["sq"] = sq
    return out


def nvn_sweep(points: Sequence[dict[str, Any]], *, n_jobs: int = 1) -> pd.DataFrame:
    """:func:`nvn_run` over a list of keyword dictionaries (see :func:`grid`)."""
    return pd.DataFrame(sweep(nvn_run, points, n_jobs=n_jobs))


def rate_points(
    rhos: Sequence[float],
    dims: Sequence[int],
    seeds: Iterable[int],
    *,
    n: int = 40,
    eps: float = 1e-3,
    edge_eps: float = 3e-3,
    planted_rhos: Sequence[float] = (),
    planted_seeds: Iterable[int] = (),
    planted_d: int = 5,
) -> list[dict[str, Any]]:
    """Keyword dictionaries for :func:`nvn_sweep`: ``"cap"`` instances (margins
    ``rhos``), ``"edge"`` instances (margin 0, tolerance ``edge_eps``) in every dimension,
    and ``"planted"`` separable instances in dimension ``planted_d``."""
    seeds = list(seeds)
    pts = [
        {"kind": "cap", "n": n, "d": d, "rho": r, "seed": s, "eps": eps}
        for d in dims
        for r in rhos
        for s in seeds
    ]
    pts += [
        {"kind": "edge", "n": n, "d": d, "rho": 0.0, "seed": s, "eps": edge_eps}
        for d in dims
        for s in seeds
    ]
    pts += [
        {"kind": "planted", "n": n, "d": planted_d, "rho": r, "seed": s, "eps": eps}
        for r in planted_rhos
        for s in planted_seeds
    ]
    return pts


def eps_points(
    rhos: Sequence[float],
    eps_grid: Sequence[float],
    *,
    n: int = 40,
    d: int = 2,
    seed: int = 0,
    edge_min_eps: float = 1e-3,
) -> list[dict[str, Any]]:
    """Keyword dictionaries for :func:`nvn_sweep`: one ``"cap"`` instance per margin and
    one ``"edge"`` instance, each over the tolerances ``eps_grid`` (the edge instance
    only down to ``edge_min_eps``: its cost grows like ``1/eps^2``). The run at the
    smallest tolerance of each instance keeps its trace (column ``sq``)."""
    emin = min(eps_grid)
    edge_grid = [e for e in eps_grid if e >= edge_min_eps]
    pts = [
        {"kind": "cap", "n": n, "d": d, "rho": r, "seed": seed, "eps": e, "keep_trace": e == emin}
        for r in rhos
        for e in eps_grid
    ]
    pts += [
        {
            "kind": "edge",
            "n": n,
            "d": d,
            "rho": 0.0,
            "seed": seed,
            "eps": e,
            "keep_trace": e == min(edge_grid),
        }
        for e in edge_grid
    ]
    return pts


def nvn_checks(df: pd.DataFrame) -> dict[str, Any]:
    """Summarise :func:`nvn_sweep` rows into the chapter's three checks.

    Returns
    -------
    dict
        ``dantzig_ok``/``dantzig_worst`` (``max (k+1) ||w_k||^2``, and every run without
        a separator within ``ceil(1/eps^2) - 1``), ``ef_primal_ok``/``ef_primal_worst``
        (separable runs: verified separator, ``K <= 1/rho^2``), ``ef_dual_ok``/
        ``ef_dual_step_worst``/``ef_dual_worst`` (``rho < 0``: per-step contraction and
        ``K`` within the bound), ``outputs_ok`` (every certificate and separator
        verified, kernel and linear forms agree) and the instance counts.
    """
    sep = df["rho_exact"] > 0
    neg = df["rho_exact"] < 0
    nosep = df["outcome"] != "separator"
    dantzig_ok = bool(
        (df["dantzig_ratio"] <= 1 + 1e-12).all()
        and (df.loc[nosep, "nit"] <= df.loc[nosep, "dantzig_nit_bound"]).all()
    )
    efp = df[sep]
    efp_ok = bool(
        (efp["outcome"] == "separator").all()
        and efp["separator_ok"].all()
        and (efp["nit"] <= efp["ef_primal_bound"]).all()
    )
    efd = df[neg]
    efd_ok = bool(
        (efd["outcome"] == "certificate").all()
        and (efd["ef_step_ratio"] <= 1 + 1e-9).all()
        and (efd["nit"] <= efd["ef_dual_bound"]).all()
    )
    outputs_ok = bool(
        (df["certificate_ok"] | df["separator_ok"]).all() and df["linear_agrees"].all()
    )
    return {
        "dantzig_ok": dantzig_ok,
        "dantzig_worst": float(df["dantzig_ratio"].max()),
        "ef_primal_ok": efp_ok,
        "ef_primal_worst": float((efp["nit"] / efp["ef_primal_bound"]).max())
        if len(efp)
        else float("nan"),
        "ef_dual_ok": efd_ok,
        "ef_dual_step_worst": float(efd["ef_step_ratio"].max()) if len(efd) else np.nan,
        "ef_dual_worst": float((efd["nit"] / efd["ef_dual_bound"]).max())
        if len(efd)
        else float("nan"),
        "outputs_ok": outputs_ok,
        "n_runs": len(df),
        "n_separable": len(efp),
        "n_negative": len(efd),
        "n_zero": int((df["rho_exact"] == 0).sum()),
    }


def no_primal_exit(X, y, *, eps: float = 1e-3, max_iter: int = 5000) -> dict[str, Any]:
    """Algorithm 5 as printed in the slides (no primal exit) on separable data.

    ``||w_k||`` cannot fall below the margin ``rho_2`` (``w_k`` stays in the hull), so the
    run never reaches ``eps < rho_2`` and stops only at ``max_iter``; with the primal exit
    it stops as soon as ``A^T w_k > 0``.

    Returns
    -------
    dict
        ``rho``, ``outcome``/``nit``/``final_norm`` without the exit,
        ``first_separating`` (the first ``k`` with ``A^T w_k > 0`` along that run),
        ``nit_with_exit``, ``zero_steps`` (steps with ``theta = 0`` once stalled),
        ``norms`` (``||w_k||`` along the run) and ``eps``.
    """
    G = kperc.gram_matrix(X, y)
    rho = kperc.margin(G)
    res = kperc.nvn(G, eps=eps, primal_exit=False, max_iter=max_iter, trace=True)
    mins = np.asarray(res.trace["min_Galpha"])
    first = int(np.argmax(mins > 0)) if (mins > 0).any() else -1
    with_exit = kperc.nvn(G, eps=eps)
    theta = np.asarray(res.trace["theta"])[:-1]
    return {
        "rho": rho,
        "outcome": res.outcome,
        "nit": res.nit,
        "final_norm": float(res.trace["norm_w"][-1]),
        "first_separating": first,
        "nit_with_exit": with_exit.nit,
        "outcome_with_exit": with_exit.outcome,
        "zero_steps": int(np.sum(theta == 0.0)),
        "norms": np.asarray(res.trace["norm_w"]),
        "eps": eps,
    }


# ---------------------------------------------------------------------------------------
# Theorem 3
# ---------------------------------------------------------------------------------------
def _sphere(rng, m: int, r: int) -> np.ndarray:
    u = rng.standard_normal((m, r))
    return u / np.linalg.norm(u, axis=1, keepdims=True)


def theorem3_run(n: int, d: int, rho: float, seed: int, n_dirs: int = 2000) -> dict[str, Any]:
    """Theorem 3 on one inseparable instance (``kperc.datasets.infeasible``).

    With ``B = gram_factor(G)`` (coordinates of the signed points in their span) and the
    margin ``rho_K`` and facet normal ``nu`` of :func:`kperc.margin_details`:

    * facets: the smallest facet offset of ``conv{b_i}`` (Qhull) is ``|rho_K|``;
    * attainment: ``min_i b_i^T (-nu) = rho_K`` (the facet's direction attains the
      margin);
    * sampled directions: ``min_i b_i^T u <= rho_K`` for ``n_dirs`` random unit ``u``
      (no direction beats the margin), and the best of them comes close;
    * ball: ``n_dirs`` random points of the sphere of radius ``0.999999 |rho_K|`` lie in
      the hull, while the point ``1.000001 |rho_K| nu`` does not;
    * generator: ``rho_K`` equals the generator's exact value (2-D: the target).

    Returns
    -------
    dict
        ``rho``, ``rho_target``, ``inradius``, ``attained_gap``, ``sampled_max`` (best
        sampled ``min_i b_i^T u``), ``sampled_ok``, ``ball_inside``, ``outside_ok``,
        ``ok`` (all of them) and ``dirs`` (number of directions).
    """
    ds = data.infeasible(n, d, rho, seed=seed)
    G = kperc.gram_matrix(ds.X, ds.y)
    md = kperc.margin_details(G)
    B = kperc.gram_factor(G)
    r = B.shape[0]
    hull = ConvexHull(B.T)
    offsets = -hull.equations[:, -1]
    inrad = float(offsets.min())
    nu = np.asarray(md.facet_normal)
    attained = float((B.T @ (-nu)).min())
    rng = np.random.default_rng(10_000 + seed)
    U = _sphere(rng, n_dirs, r)
    vals = (U @ B).min(axis=1)  # min_i b_i^T u for each sampled u
    sampled_max = float(vals.max())
    sampled_ok = bool(sampled_max <= md.rho + 1e-12)
    P = 0.999999 * abs(md.rho) * _sphere(rng, n_dirs, r)
    viol = P @ hull.equations[:, :-1].T + hull.equations[:, -1]
    ball_inside = bool(viol.max() <= 1e-12)
    x_out = 1.000001 * abs(md.rho) * nu
    outside_ok = bool((hull.equations[:, :-1] @ x_out + hull.equations[:, -1]).max() > 0)
    tol = TOL_INRADIUS
    ok = (
        md.rho < 0
        and abs(inrad - abs(md.rho)) <= tol
        and abs(attained - md.rho) <= tol
        and sampled_ok
        and ball_inside
        and outside_ok
        and abs(md.rho - ds.info["rho"]) <= tol
        and (d > 2 or abs(md.rho - rho) <= tol)
    )
    return {
        "rho": float(md.rho),
        "rho_target": rho,
        "inradius": inrad,
        "attained_gap": abs(attained - md.rho),
        "sampled_max": sampled_max,
        "sampled_ok": sampled_ok,
        "ball_inside": ball_inside,
        "outside_ok": outside_ok,
        "ok": bool(ok),
        "dirs": n_dirs,
        "rank": r,
    }


#: Theorem 3's quantities (the hull's inradius, the margin, the value attained by the
#: facet normal) agree in exact arithmetic; they are checked to this absolute tolerance.
TOL_INRADIUS = 1e-9


def hull_2d(X, y) -> dict[str, Any]:
    """The hull of 2-D signed points, its inscribed ball around 0 and the closest facet.

    Works with the signed points ``a_i`` directly (in 2-D they are their own span
    coordinates). Returns ``A``, ``polygon`` (closed), ``radius`` (smallest facet
    offset), ``facet`` (its two end points), ``nu`` (outward unit normal of that facet),
    ``rho`` (:func:`kperc.margin` of ``G``) and ``agree`` (``radius == -rho``).
    """
    A = kperc.signed_normalized_points(X, y)
    h = ConvexHull(A)
    c = -h.equations[:, -1]
    i = int(np.argmin(c))
    rho = kperc.margin(kperc.gram_matrix(X, y))
    return {
        "A": A,
        "polygon": hull_polygon(A),
        "radius": float(c[i]),
        "facet": A[h.simplices[i]],
        "nu": h.equations[i, :-1],
        "rho": rho,
        "agree": bool(abs(c[i] + rho) <= 1e-9),
    }


def direction_profile(A: np.ndarray, m: int = 3600) -> dict[str, np.ndarray]:
    """``min_i a_i^T u(phi)`` and ``max_i a_i^T u(phi)`` for ``u(phi) = (cos, sin)`` on a
    grid of ``m`` angles (2-D signed points ``A``, rows)."""
    phi = np.linspace(0.0, 2 * np.pi, m, endpoint=False)
    U = np.column_stack([np.cos(phi), np.sin(phi)])
    V = U @ A.T
    return {"phi": phi, "min": V.min(axis=1), "max": V.max(axis=1)}


def theorem3_sweep(
    dims: Sequence[int],
    rhos: Sequence[float],
    seeds: Iterable[int],
    *,
    n: int = 20,
    n_dirs: int = 2000,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """:func:`theorem3_run` over dimensions, target margins and seeds."""
    pts = grid(d=list(dims), rho=list(rhos), seed=list(seeds))
    for p in pts:
        p.update(n=n, n_dirs=n_dirs)
    return pd.DataFrame(sweep(theorem3_run, pts, n_jobs=n_jobs))


# ---------------------------------------------------------------------------------------
# The caveat: margin (5) in a larger space
# ---------------------------------------------------------------------------------------
def caveat_lift(
    X, y, heights: Sequence[float], *, n_dirs: int = 20000, seed: int = 0
) -> dict[str, Any]:
    """2-D inseparable data seen in ``R^3``: margin (5) against the span-restricted one.

    The points ``x_i`` are embedded as ``(x_i, 0)``. Their signed points span a plane,
    so the unit vector ``e_3`` has ``a_i^T e_3 = 0`` for all ``i`` and the margin (5)
    (a supremum over *all* unit ``w`` in ``R^3``) is 0, while the span-restricted margin
    (:func:`kperc.margin`, which only sees ``G``, the same ``G`` as in 2-D) stays
    negative. Lifting the points off the plane by ``t z_i ||x_i||`` (``z_i`` standard
    normal) makes them span ``R^3``; the margin is then the inradius of a thin 3-D hull,
    which shrinks to 0 with ``t``.

    Returns
    -------
    dict
        ``rho_2d`` (margin in the plane), ``rho_span_3d`` (:func:`kperc.margin` of the
        embedded data), ``sampled_sup`` (best ``min_i a_i^T w`` over ``n_dirs`` random
        unit ``w`` in ``R^3`` plus ``+-e_3``), ``at_e3`` (``min_i a_i^T e_3``),
        ``heights``/``rho_lifted`` (margin of the lifted data for each height) and
        ``n_dirs``.
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    rho2 = kperc.data_margin(X, y)
    X3 = np.hstack([X, np.zeros((X.shape[0], 1))])
    rho_span = kperc.margin(kperc.gram_matrix(X3, y))
    A3 = kperc.signed_normalized_points(X3, y)
    rng = np.random.default_rng(seed)
    U = np.vstack([_sphere(rng, n_dirs, 3), [[0, 0, 1.0], [0, 0, -1.0]]])
    vals = (U @ A3.T).min(axis=1)
    e3 = np.array([0.0, 0.0, 1.0])
    z = rng.standard_normal(X.shape[0]) * np.linalg.norm(X, axis=1)
    lifted = [kperc.data_margin(np.hstack([X, (t * z)[:, None]]), y) for t in heights]
    return {
        "rho_2d": rho2,
        "rho_span_3d": rho_span,
        "sampled_sup": float(vals.max()),
        "at_e3": float((A3 @ e3).min()),
        "heights": np.asarray(heights, float),
        "rho_lifted": np.asarray(lifted),
        "n_dirs": n_dirs,
    }


# ---------------------------------------------------------------------------------------
# What the notebook checks, prints and quotes
# ---------------------------------------------------------------------------------------
# Each ``*_verdict`` returns ``{"ok", "detail", "instances"}``, the keyword arguments of
# ``Chapter.check`` (``ch.check("gordan", **ch05.gordan_verdict(gordan))``).


def _fmt(digits: int, kind: str = "g"):
    return lambda v: f"{v:.{digits}{kind}}"


def gordan_verdict(gordan: pd.DataFrame) -> dict[str, Any]:
    """Gordan's alternative on the rows of :func:`gordan_sweep`: on every instance exactly
    one side holds, and the two values agree at the nearest point (``dual_gap_ok``)."""
    n = len(gordan)
    ok = n > 0 and gordan["exactly_one"].all() and gordan["dual_gap_ok"].all()
    return make_verdict(
        ok,
        f"exactly one alternative (LP separator xor nearest-point certificate) on "
        f"{n} linear instances; separable {int(gordan['separator'].sum())}, "
        f"certified {int(gordan['certificate'].sum())}",
        n,
    )


def gordan_table(gordan: pd.DataFrame) -> str:
    """Per instance kind: how many instances, separators and certificates, and the smallest
    LP value and nearest-point norm (round-off below ``1e-9`` shown as 0)."""
    table = gordan.groupby("kind").agg(
        instances=("seed", "size"),
        separator=("separator", "sum"),
        certificate=("certificate", "sum"),
        min_lp_value=("lp_value", "min"),
        min_norm_point=("min_norm", "min"),
    )
    names = {"min_lp_value": "smallest LP value", "min_norm_point": "smallest ||Ap||"}
    return table_text(tidy(table, 1e-9), names, float_format=_fmt(3))


def gordan_numbers(gordan: pd.DataFrame) -> dict[str, int]:
    """The counts the prose quotes: ``n`` instances, ``gauss_n`` random-label instances and
    ``gauss_separable`` of them separable."""
    gauss = gordan["kind"] == "gauss"
    return {
        "n": len(gordan),
        "gauss_separable": int(gordan.loc[gauss, "separator"].sum()),
        "gauss_n": int(gauss.sum()),
    }


#: The columns of :func:`kernel_examples` the chapter prints.
KERNEL_EXAMPLE_COLUMNS = [
    "example",
    "n",
    "rank",
    "lambda_min",
    "lp_value",
    "min_norm_p_G",
    "separator",
    "certificate",
    "rho_K",
]


def kernel_examples_table(examples: pd.DataFrame) -> str:
    """The rows of :func:`kernel_examples` as printed (round-off set to 0, 3 digits)."""
    shown = tidy(examples[KERNEL_EXAMPLE_COLUMNS]).replace({True: "yes", False: "no"})
    return table_text(shown, _KERNEL_EXAMPLE_NAMES, index=False, float_format=_fmt(3))


#: Headings of :func:`kernel_examples_table`.
_KERNEL_EXAMPLE_NAMES = {
    "lambda_min": "min eig",
    "lp_value": "LP value",
    "min_norm_p_G": "min ||p||_G",
    "separator": "separable",
    "certificate": "certified",
    "rho_K": "margin",
}


def theorem2_verdict(kern: pd.DataFrame, examples: pd.DataFrame) -> dict[str, Any]:
    """Theorem 2 on the rows of :func:`kernel_gordan_sweep` and :func:`kernel_examples`:
    exactly one alternative everywhere; every RBF problem on distinct points separable
    (``lambda_min > 0`` and ``G G^-1 1 = 1``); every duplicated point certified."""
    n = len(kern) + len(examples)
    rbf = kern[kern["kind"] == "rbf"]
    ok = (
        len(rbf) > 0
        and kern["exactly_one"].all()
        and examples["exactly_one"].all()
        and rbf["separator"].all()
        and rbf["inverse_separator"].all()
        and (rbf["lambda_min"] > 0).all()
        and kern.loc[kern["kind"] == "rbf-dup", "certificate"].all()
    )
    return make_verdict(
        ok,
        f"exactly one alternative (G alpha > 0 xor ||p||_G = 0) on {n} kernel "
        f"problems; every RBF problem on distinct points separable (lambda_min > 0, "
        f"G G^-1 1 = 1), every duplicated point certified",
        n,
    )


def kernel_sweep_table(kern: pd.DataFrame) -> str:
    """Per kernel and size: separable and certified problems, and the largest rank."""
    summary = kern.groupby(["kind", "n"]).agg(
        separable=("separator", "sum"), certified=("certificate", "sum"), max_rank=("rank", "max")
    )
    return table_text(summary, {"kind": "kernel", "max_rank": "largest rank"})


def kernel_numbers(kern: pd.DataFrame, examples: pd.DataFrame) -> dict[str, float]:
    """The numbers the prose quotes: ``lambda_min`` and margin of ``rbf-distinct``
    (``rbf_lmin``, ``rbf_rho``), the margins of ``quadratic-random``, ``quadratic-xor`` and
    ``linear-random`` (``quad_rho``, ``xor_rho``, ``lin_rho``), the number ``n`` of kernel
    problems and the smallest ``lambda_min`` of the random RBF problems (``rbf_min_lmin``)."""
    ex = examples.set_index("example")
    return {
        "rbf_lmin": float(ex.loc["rbf-distinct", "lambda_min"]),
        "rbf_rho": float(ex.loc["rbf-distinct", "rho_K"]),
        "quad_rho": float(ex.loc["quadratic-random", "rho_K"]),
        "xor_rho": float(ex.loc["quadratic-xor", "rho_K"]),
        "lin_rho": float(ex.loc["linear-random", "rho_K"]),
        "n": len(kern) + len(examples),
        "rbf_min_lmin": float(kern.loc[kern["kind"] == "rbf", "lambda_min"].min()),
    }


def path_text(path: dict[str, Any], name: str) -> str:
    """Two lines on a run of :func:`nvn_path`: its outcome and the verified property of
    its answer (``||A p||`` against ``eps``, or ``min_i a_i^T w``)."""
    head = f"{name}: {path['outcome']} after {path['nit']} iterations,\n"
    if path["outcome"] == "certificate":
        norm = np.linalg.norm(path["A"].T @ path["p"])
        return head + f"  ||A p|| = {norm:.3g} <= eps = {path['eps']:g}, p in the simplex"
    if path["outcome"] == "separator":
        return head + f"  min_i a_i^T w = {(path['A'] @ path['w']).min():.3g} > 0"
    raise ValueError(f"no certificate or separator to report: outcome {path['outcome']!r}")


def stall_text(stall: dict[str, Any]) -> str:
    """What :func:`no_primal_exit` shows, as printed. Raises :class:`AssertionError` unless
    the run without the exit stalled as the chapter says: stopped by its cap, with
    ``||w_k||`` never below the margin."""
    if stall["outcome"] != "max_iter" or stall["final_norm"] < stall["rho"] - 1e-12:
        raise AssertionError(
            f"the run without the primal exit did not stall above the margin: outcome "
            f"{stall['outcome']!r}, final ||w|| {stall['final_norm']:.6g}, "
            f"margin {stall['rho']:.6g}"
        )
    return (
        f"margin rho_2 = {stall['rho']:.4f}\n"
        f"without the primal exit: stopped by the cap after {stall['nit']} iterations,\n"
        f"  final ||w|| = {stall['final_norm']:.4f} (never <= eps = {stall['eps']:g})\n"
        f"along that run, A^T w_k > 0 first holds at k = {stall['first_separating']};\n"
        f"  with the exit the run stops there ({stall['outcome_with_exit']}, "
        f"{stall['nit_with_exit']} iterations)"
    )


def rate_checks(rate: pd.DataFrame, epsrun: pd.DataFrame) -> dict[str, Any]:
    """:func:`nvn_checks` on both sweeps of the rate section together, plus
    ``linear_checked`` (runs the linear form cross-checked). Raises
    :class:`AssertionError` if a certificate or separator failed its verification or the
    two forms disagreed."""
    runs = pd.concat([rate, epsrun], ignore_index=True)
    c = nvn_checks(runs)
    if not c["outputs_ok"]:
        raise AssertionError("a certificate or separator failed verification")
    c["linear_checked"] = int(runs["linear_checked"].sum())
    return c


def cross_check_text(c: dict[str, Any]) -> str:
    """The line on the kernel and linear forms (``c`` from :func:`rate_checks`)."""
    return (
        f"kernel and linear forms agree on all {c['linear_checked']} runs checked\n"
        f"  (those with at most 50000 iterations)"
    )


def dantzig_verdict(c: dict[str, Any]) -> dict[str, Any]:
    """Dantzig's bound on every run (``c`` from :func:`rate_checks`)."""
    return make_verdict(
        c["dantzig_ok"],
        f"(k+1)||w_k||^2 <= 1 at every step of {c['n_runs']} NVN runs (worst "
        f"{c['dantzig_worst']:.3g}); halting index <= ceil(1/eps^2)-1 when no separator",
        c["n_runs"],
    )


def ef_primal_verdict(c: dict[str, Any]) -> dict[str, Any]:
    """Epelman-Freund, primal side, on the separable runs (``c`` from :func:`rate_checks`)."""
    return make_verdict(
        c["ef_primal_ok"] and c["n_separable"] > 0,
        f"separator within 1/rho_2^2 on {c['n_separable']} planted instances "
        f"(worst ratio {c['ef_primal_worst']:.3g})",
        c["n_separable"],
    )


def ef_dual_verdict(c: dict[str, Any]) -> dict[str, Any]:
    """Epelman-Freund, dual side, on the runs with ``rho < 0`` (``c`` from
    :func:`rate_checks`)."""
    return make_verdict(
        c["ef_dual_ok"] and c["n_negative"] > 0,
        f"||w_(k+1)||^2 <= (1-rho^2)||w_k||^2 at every step (worst factor "
        f"{c['ef_dual_step_worst']:.4g}) and halting index within the bound (worst ratio "
        f"{c['ef_dual_worst']:.3g}) on {c['n_negative']} runs with rho < 0",
        c["n_negative"],
    )


def rate_table(rate: pd.DataFrame) -> str:
    """Per instance kind and margin: runs, median and largest halting index, the bound
    that applies and the worst ratio to it."""
    summary = rate.groupby(["kind", "rho"]).agg(
        runs=("nit", "size"),
        median_nit=("nit", "median"),
        max_nit=("nit", "max"),
        bound=("bound", "max"),
        worst_ratio=("ratio", "max"),
    )
    names = {
        "rho": "margin",
        "median_nit": "median K",
        "max_nit": "largest K",
        "worst_ratio": "K / bound",
    }
    return table_text(summary, names, float_format=_fmt(4))


def rate_traces(epsrun: pd.DataFrame) -> dict[tuple[str, float], np.ndarray]:
    """``(kind, rho) -> ||w_k||^2`` of the runs of :func:`eps_points` that kept their
    trace (the smallest tolerance of each instance)."""
    if "keep_trace" not in epsrun:
        return {}
    traced = epsrun[epsrun["keep_trace"].eq(True)]  # NaN (untraced sweeps) is not True
    return {
        (k, r): sq for k, r, sq in zip(traced["kind"], traced["rho"], traced["sq"], strict=True)
    }


def rate_numbers(epsrun: pd.DataFrame, rhos: Sequence[float]) -> dict[str, float]:
    """The numbers the prose quotes on the tolerance sweep: ``edge_slope`` (fitted
    exponent of the halting index in ``1/eps`` at margin 0), and for the first margin of
    ``rhos`` (``cap_rho``) the smallest tolerance (``cap_eps_min``) and its halting index
    (``cap_nit_small_eps``)."""
    edge = epsrun[epsrun["kind"] == "edge"]
    cap = epsrun[(epsrun["kind"] == "cap") & (epsrun["rho"] == rhos[0])]
    return {
        "edge_slope": loglog_slope(1 / edge["eps"], edge["nit"], nonpositive="drop"),
        "cap_rho": rhos[0],
        "cap_eps_min": float(cap["eps"].min()),
        "cap_nit_small_eps": int(cap.sort_values("eps")["nit"].iloc[0]),
    }


def theorem3_verdict(thm3: pd.DataFrame) -> dict[str, Any]:
    """Theorem 3 on the rows of :func:`theorem3_sweep` (every check of
    :func:`theorem3_run` held)."""
    from kperc_book.chapter import bound_text

    n = len(thm3)
    if n == 0:
        return make_verdict(False, "no instances", 0)
    return make_verdict(
        thm3["ok"].all(),
        "facet inradius = -rho_K, attained by the facet normal (gap "
        f"{bound_text(thm3['attained_gap'].max(), TOL_INRADIUS)}), "
        f"no better direction among {thm3['dirs'].max()} sampled, "
        f"sampled ball inside the hull, on {n} instances (d = "
        f"{thm3['d'].min()}..{thm3['d'].max()})",
        n,
    )


def _theorem3_slack(thm3: pd.DataFrame) -> pd.Series:
    """How far the best sampled direction falls short of the margin, per instance."""
    return thm3["rho"] - thm3["sampled_max"]


def theorem3_table(thm3: pd.DataFrame) -> str:
    """Per dimension and target margin: instances, how many passed, the margin and the
    smallest shortfall of the sampled directions."""
    return (
        thm3.assign(slack=_theorem3_slack(thm3))
        .groupby(["d", "rho_target"])
        .agg(
            instances=("ok", "size"),
            ok=("ok", "sum"),
            rho=("rho", "max"),
            best_sampled_gap=("slack", "min"),
        )
        .pipe(
            table_text,
            {
                "rho_target": "target",
                "ok": "passed",
                "rho": "margin",
                "best_sampled_gap": "best sampled gap",
            },
            float_format=_fmt(4),
        )
    )


def theorem3_numbers(thm3: pd.DataFrame) -> dict[str, float]:
    """``n`` instances and ``gap_median``, the median shortfall of the best sampled
    direction."""
    return {"n": len(thm3), "gap_median": float(_theorem3_slack(thm3).median())}


def theorem3_picture(X, y, *, m: int = 3600) -> dict[str, Any]:
    """What the figure of Theorem 3 shows on 2-D data: ``hull`` (:func:`hull_2d`) and
    ``profile`` (:func:`direction_profile` on ``m`` angles). Raises
    :class:`AssertionError` if the smallest facet offset is not ``-rho``."""
    h = hull_2d(X, y)
    if not h["agree"]:
        raise AssertionError(
            f"hull inradius {h['radius']:.12g} differs from -rho = {-h['rho']:.12g}"
        )
    return {"hull": h, "profile": direction_profile(h["A"], m=m)}


def caveat_text(cav: dict[str, Any]) -> str:
    """What :func:`caveat_lift` shows, as printed. Raises :class:`AssertionError` unless
    the span-restricted margin is unchanged by the embedding and margin (5) in ``R^3`` is
    exactly 0."""
    if not (abs(cav["rho_span_3d"] - cav["rho_2d"]) < 1e-9 and cav["sampled_sup"] == 0.0):
        raise AssertionError(
            f"embedding in R^3: span margin {cav['rho_span_3d']:.12g} (plane "
            f"{cav['rho_2d']:.12g}), sampled margin (5) {cav['sampled_sup']:.12g} (want 0)"
        )
    lines = [
        f"span-restricted margin in the plane:           {cav['rho_2d']:.4f}",
        f"kperc.margin of the points embedded in R^3:    {cav['rho_span_3d']:.4f}",
        f"margin (5) in R^3: best of {cav['n_dirs']} sampled unit w and +-e_3: "
        f"{cav['sampled_sup']:.4f}\n  (min_i a_i^T e_3 = {cav['at_e3']:.4f})",
    ]
    lines += [
        f"  lifted by height {t:<6g}: margin in R^3 = {r:.5f}"
        for t, r in zip(cav["heights"], cav["rho_lifted"], strict=True)
    ]
    return "\n".join(lines)


def caveat_slope(cav: dict[str, Any]) -> float:
    """Fitted exponent of ``|rho|`` of the lifted points in the height."""
    return loglog_slope(cav["heights"], -cav["rho_lifted"], nonpositive="drop")


def weak_duality_sample(
    n: int = 40,
    d: int = 3,
    rho: float = 0.1,
    *,
    seed: int = 0,
    m: int = 2000,
    concentrations: Sequence[float] = (0.05, 1.0),
) -> dict[str, Any]:
    """Weak duality ``||A p|| >= rho_2`` on a planted instance (the chapter's exercise).

    Samples ``m`` points of the simplex from a Dirichlet distribution for each
    concentration (small ones give near-vertices) and compares the smallest ``||A p||``
    with :func:`kperc.data_margin`. Raises :class:`AssertionError` if a sampled point
    falls below ``rho_2``.

    Returns
    -------
    dict
        ``rho2``, ``min_norm`` (smallest ``||A p||``) and ``points`` (how many).
    """
    import kperc.datasets

    ds = kperc.datasets.planted(n, d, rho, seed=seed)
    A = (ds.y[:, None] * ds.X / np.linalg.norm(ds.X, axis=1, keepdims=True)).T
    rho2 = kperc.data_margin(ds.X, ds.y)
    rng = np.random.default_rng(seed)
    P = np.vstack([rng.dirichlet(np.full(n, a), size=m) for a in concentrations])
    norms = np.linalg.norm(A @ P.T, axis=0)
    if norms.min() < rho2 - 1e-12:
        raise AssertionError(f"||A p|| = {norms.min():.12g} < rho_2 = {rho2:.12g}")
    return {"rho2": rho2, "min_norm": float(norms.min()), "points": len(P)}


def weak_duality_text(wd: dict[str, Any]) -> str:
    """The line the exercise prints (``wd`` from :func:`weak_duality_sample`)."""
    return (
        f"rho_2 = {wd['rho2']:.4f}; smallest ||Ap|| over {wd['points']} points p: "
        f"{wd['min_norm']:.4f}"
    )

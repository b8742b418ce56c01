"""Perceptrons against the max-margin SVM, and the margin of their iterates."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import kperc
from kperc.sweeps import sweep
from kperc_book import data as kdata


def separator_margin(G: np.ndarray, alpha: np.ndarray) -> float:
    """Normalised margin ``min_i (G alpha)_i / ||alpha||_G`` of the function ``f_alpha``."""
    ga = G @ alpha
    return float(ga.min() / math.sqrt(max(float(alpha @ ga), 1e-300)))


def svc_homogeneous(
    G: np.ndarray, *, C: float = 1e6, tol: float = 1e-6
) -> tuple[np.ndarray, dict[str, Any]]:
    """The bias-free hard-margin SVM on a normalised signed Gram matrix, via SVC.

    :class:`sklearn.svm.SVC` always fits an intercept, while the paper's separators are
    homogeneous (``f`` with no offset). Training SVC on the ``2n`` signed points
    ``a_1..a_n, -a_1..-a_n`` with labels ``+1`` and ``-1`` (precomputed kernel
    ``[[G, -G], [-G, G]]``) removes the difference: the problem is symmetric under
    ``a -> -a``, so with ``(f, b)`` also ``(f, -b)`` is optimal, and by convexity
    ``(f, 0)``; the optimal ``f`` is unique and is the homogeneous max-margin
    separator, whose margin is ``rho_K`` (the paper's Section 3).

    Parameters
    ----------
    G : ndarray of shape (n, n)
    C : float
        Box constraint; large, so that the soft-margin SVM is the hard-margin one
        (``hard_margin`` in the returned info says whether every dual variable stayed
        below ``C``).
    tol : float
        Stopping tolerance of libsvm.

    Returns
    -------
    alpha : ndarray of shape (n,)
        Coefficients of ``f = sum_i alpha_i a_i``.
    info : dict
        ``intercept`` (close to 0), ``hard_margin`` (bool), ``n_support``.
    """
    from sklearn.svm import SVC

    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    K2 = np.block([[G, -G], [-G, G]])
    y2 = np.concatenate([np.ones(n), -np.ones(n)])
    svc = SVC(C=C, kernel="precomputed", tol=tol).fit(K2, y2)
    dc = np.zeros(2 * n)
    dc[svc.support_] = svc.dual_coef_[0]
    alpha = dc[:n] - dc[n:]
    hard = bool(np.max(np.abs(svc.dual_coef_)) < C * (1 - 1e-9))
    return alpha, {
        "intercept": float(svc.intercept_[0]),
        "hard_margin": hard,
        "n_support": int(svc.support_.size),
    }


def load_problems(problems: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """Gram matrix, labels, kernel and exact margin of each of the book's problems.

    Parameters
    ----------
    problems : sequence of str, optional
        Names of :data:`kperc_book.data.PROBLEMS` (default: all).

    Returns
    -------
    dict
        ``name -> {"G", "y", "kernel", "rho"}`` with ``rho`` from :func:`kperc.margin`.
    """
    out = {}
    for name in problems if problems is not None else list(kdata.PROBLEMS):
        G, ds, kernel, _ = kdata.problem(name)
        out[name] = {"G": G, "y": ds.y, "kernel": kernel, "rho": float(kperc.margin(G))}
    return out


def svm_comparison(
    problems: Mapping[str, Mapping[str, Any]] | None = None, *, C: float = 1e6, tol: float = 1e-6
) -> list[dict[str, Any]]:
    """Margins of the separators SNKP, NKP and the SVM return, on the book's problems.

    Parameters
    ----------
    problems : mapping, optional
        Output of :func:`load_problems` (default: every problem).
    C, tol : float
        SVC parameters (:func:`svc_homogeneous`).

    Returns
    -------
    list of dict
        Per problem: ``problem``, ``n``, ``kernel``, ``rho`` (exact,
        :func:`kperc.margin`), ``snkp`` / ``nkp`` (margins of their separators),
        ``snkp_nit`` / ``nkp_nit``, ``svm`` (bias-free SVC), ``svm_hard``,
        ``svm_intercept``.
    """
    problems = load_problems() if problems is None else problems
    # small products: multithreaded BLAS only adds contention on a shared machine
    run = functools.partial(_compare_run, problems=problems, C=C, tol=tol)
    return sweep(run, [{"problem": name} for name in problems], blas_threads=1)


def _compare_run(
    problem: str, *, problems: Mapping[str, Mapping[str, Any]], C: float, tol: float
) -> dict[str, Any]:
    return _compare_one(problem, problems[problem], C, tol)


def _compare_one(name: str, pb: Mapping[str, Any], C: float, tol: float) -> dict[str, Any]:
    G = pb["G"]
    r_s = kperc.snkp(G)
    r_n = kperc.nkp(G, check_input=False)
    a_svm, info = svc_homogeneous(G, C=C, tol=tol)
    return {
        "problem": name,
        "n": int(G.shape[0]),
        "kernel": pb["kernel"],
        "rho": float(pb["rho"]),
        "snkp": separator_margin(G, r_s.alpha),
        "snkp_nit": int(r_s.nit),
        "snkp_outcome": r_s.outcome,
        "nkp": separator_margin(G, r_n.alpha),
        "nkp_nit": int(r_n.nit),
        "nkp_outcome": r_n.outcome,
        "svm": separator_margin(G, a_svm),
        "svm_hard": info["hard_margin"],
        "svm_intercept": info["intercept"],
    }


def svm_checks(
    rows: Sequence[Mapping[str, Any]], *, rel_tol: float = 1e-4
) -> dict[str, dict[str, Any]]:
    """Check the rows of :func:`svm_comparison` against the results they illustrate.

    * ``minimax-margin``: the bias-free SVC attains ``rho_K = min_p ||p||_G`` to a
      relative ``rel_tol`` as a hard-margin fit, and no returned separator has a
      larger margin than ``rho_K``.
    * ``nkp-bound``: NKP halted within ``1 / rho_K^2``.
    * ``theorem-1``: SNKP halted with ``K (K + 1) <= 8 log n / rho_K^2``.

    Returns
    -------
    dict
        For each check: ``ok``, ``instances``, ``worst`` and ``detail``.
    """
    m = len(rows)
    err = max(abs(r["svm"] - r["rho"]) / r["rho"] for r in rows)
    below = all(max(r["svm"], r["snkp"], r["nkp"]) <= r["rho"] * (1 + 1e-9) for r in rows)
    ok_mm = below and err <= rel_tol and all(r["svm_hard"] for r in rows)
    w_nkp = max(r["nkp_nit"] * r["rho"] ** 2 for r in rows)
    ok_nkp = all(
        r["nkp_outcome"] == "separator" and r["nkp_nit"] <= 1 / r["rho"] ** 2 for r in rows
    )
    w_snkp = max(r["snkp_nit"] * r["rho"] / (2 * math.sqrt(2 * math.log(r["n"]))) for r in rows)
    ok_snkp = all(
        r["snkp_outcome"] == "separator"
        and r["snkp_nit"] * (r["snkp_nit"] + 1) <= 8 * math.log(r["n"]) / r["rho"] ** 2
        for r in rows
    )
    return {
        "minimax-margin": {
            "ok": bool(ok_mm),
            "instances": m,
            "worst": err,
            "detail": f"on {m} real kernel problems the bias-free SVC attains "
            f"rho_K = min_p ||p||_G to a relative {err:.1e}, and no returned "
            "separator has a larger margin",
        },
        "nkp-bound": {
            "ok": bool(ok_nkp),
            "instances": m,
            "worst": w_nkp,
            "detail": f"NKP halted within 1/rho_K^2 on {m} real kernel problems; worst "
            f"ratio {w_nkp:.3f}",
        },
        "theorem-1": {
            "ok": bool(ok_snkp),
            "instances": m,
            "worst": w_snkp,
            "detail": f"SNKP halted with K(K+1) <= 8 log n / rho_K^2 on {m} real kernel "
            f"problems; worst K / (2 sqrt(2 log n) / rho_K) = {w_snkp:.3f}",
        },
    }


def margin_paths(
    problems: Mapping[str, Mapping[str, Any]] | None = None, *, max_iter: int = 2000
) -> dict[str, dict[str, Any]]:
    """Margin of the NKP and SNKP iterates, continued after the first separator.

    Both methods run with ``halt=False`` for ``max_iter`` iterations. NKP is a
    subgradient method and SNKP a smoothed one for the loss ``L`` whose minimiser is
    ``rho_K f*`` (the paper's Section 4), so their margins keep growing towards
    ``rho_K``.

    Parameters
    ----------
    problems : mapping, optional
        Output of :func:`load_problems` (default: every problem).
    max_iter : int

    Returns
    -------
    dict
        ``problem -> {"rho", "nkp", "snkp", "nkp_first", "snkp_first"}``: the margin of
        every iterate as a ratio to ``rho_K`` (negative before the first separating
        iterate) and the index of that iterate.
    """
    problems = load_problems() if problems is None else problems
    run = functools.partial(_path_run, problems=problems, max_iter=max_iter)
    rows = sweep(run, [{"problem": name} for name in problems], blas_threads=1)
    return {row.pop("problem"): row for row in rows}


def _path_run(
    problem: str, *, problems: Mapping[str, Mapping[str, Any]], max_iter: int
) -> dict[str, Any]:
    G, rho = problems[problem]["G"], problems[problem]["rho"]
    r_n = kperc.nkp(G, max_iter=max_iter, halt=False, trace=True, check_input=False)
    r_s = kperc.snkp(G, max_iter=max_iter, halt=False, trace=True, check_input=False)
    return {
        "rho": float(rho),
        "nkp": np.asarray(r_n.trace["margin"]) / rho,
        "snkp": np.asarray(r_s.trace["margin"]) / rho,
        "nkp_first": r_n.first_separator_nit,
        "snkp_first": r_s.first_separator_nit,
    }

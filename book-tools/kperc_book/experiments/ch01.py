"""Experiments of Chapter 1 (paper Section 1): problems, margins and the cone view.

Everything the notebook ``book/ch01_introduction.ipynb`` computes lives here:

* :func:`cone_geometry`: for 2-D data, the signed normalised points on the unit
  circle, the arc of all separating unit directions (the dual cone), the max-margin
  direction, and the identity "normalised margin = sine of the arc's half-width".
* :func:`separating_fraction`: a brute-force check of that arc on a grid of directions.
* :func:`lift_paraboloid`, :func:`circles_margins`: a data set no line separates, and
  its lift ``(x1, x2, x1^2 + x2^2)`` that a plane separates.
* :func:`kernel_separation`: the same data separated by SNKP with an RBF kernel, via
  :class:`kperc.SNKPClassifier`, cross-checked against :func:`kperc.snkp` on the stored
  problem ``"circles-rbf"``.
* :data:`ROADMAP` and :func:`roadmap_markdown`: the table paper section -> chapter ->
  algorithms -> ``kperc`` functions.
* :func:`cone_report`, :func:`circles_report`, :func:`roadmap_report`: the lines the
  notebook prints, after checking the claims its text makes about them (they raise
  :class:`ClaimError` when a claim fails); :func:`glue_cone`, :func:`glue_circles` and
  :func:`glue_roadmap`: the values the prose quotes, glued in the notebook's order.

The figures are drawn by :mod:`kperc_book.experiments.ch01_figures`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import kperc
from kperc_book import data
from kperc_book._markdown import table
from kperc_book.experiments._common import ClaimError

__all__ = [
    "ClaimError",
    "cone_geometry",
    "separating_fraction",
    "lift_paraboloid",
    "with_intercept",
    "circles_margins",
    "kernel_separation",
    "decision_grid",
    "ROADMAP",
    "roadmap_markdown",
    "roadmap_functions",
    "cone_report",
    "glue_cone",
    "circles_report",
    "glue_circles",
    "roadmap_report",
    "glue_roadmap",
]


# ---------------------------------------------------------------------------------------
# The cone view in 2-D
# ---------------------------------------------------------------------------------------
def _wrap(a: np.ndarray | float) -> np.ndarray | float:
    """Angles wrapped to ``(-pi, pi]``."""
    return np.pi - np.mod(np.pi - np.asarray(a), 2 * np.pi)


def cone_geometry(X, y) -> dict[str, Any]:
    """Signed normalised points, separating arc and max-margin direction of 2-D data.

    A unit ``w`` separates the data iff ``a_i^T w > 0`` for every signed normalised
    point ``a_i = y_i x_i / ||x_i||``, i.e. iff ``w`` lies in the (open) dual cone of
    the ``a_i``. In the plane the ``a_i`` fill an arc of angular width ``s < pi``
    (when the data are separable) and the separating directions fill the open arc
    ``(theta_max - pi/2, theta_min + pi/2)`` of width ``pi - s``. Its midpoint is the
    max-margin direction and the normalised margin is ``rho_2 = cos(s/2)``, the sine of
    the half-width of the separating arc.

    Parameters
    ----------
    X : array_like of shape (n_samples, 2)
    y : array_like of shape (n_samples,)

    Returns
    -------
    dict
        ``A`` (rows ``a_i``), ``theta`` (their angles), ``arc`` (the two end angles of
        the separating arc, increasing), ``arc_width``, ``w_star`` (max-margin unit
        direction from :func:`kperc.margin_details`), ``rho2`` (from
        :func:`kperc.margin_details`), ``rho2_arc`` (``sin(arc_width / 2)``),
        ``w_mid_angle`` (angle of the arc's midpoint), ``w_star_angle`` and
        ``support`` (indices with ``a_i^T w* = rho_2`` up to round-off).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"cone_geometry needs 2-D points; got shape {X.shape}.")
    A = X * (y / np.linalg.norm(X, axis=1))[:, None]
    det = kperc.margin_details(kperc.gram_matrix(X, y))
    if not det.separable:
        raise ValueError("the data are not separable by a line through the origin.")
    w = A.T @ det.p
    w = w / np.linalg.norm(w)
    wang = float(np.arctan2(w[1], w[0]))
    theta = np.arctan2(A[:, 1], A[:, 0])
    rel = _wrap(theta - wang)  # every a_i is within pi/2 of w*
    lo = wang + float(rel.max()) - np.pi / 2
    hi = wang + float(rel.min()) + np.pi / 2
    width = hi - lo
    return {
        "A": A,
        "theta": theta,
        "arc": (float(lo), float(hi)),
        "arc_width": float(width),
        "w_star": w,
        "w_star_angle": wang,
        "w_mid_angle": float(_wrap(0.5 * (lo + hi))),
        "rho2": float(det.rho),
        "rho2_arc": float(np.sin(width / 2)),
        "support": np.flatnonzero(A @ w <= det.rho + 1e-9),
    }


def separating_fraction(X, y, arc: tuple[float, float], n_grid: int = 3600) -> dict[str, float]:
    """Brute-force check of the separating arc on ``n_grid`` equally spaced directions.

    Returns
    -------
    dict
        ``fraction`` of the circle whose directions separate the data,
        ``predicted`` (``arc_width / 2 pi``), and ``mismatches``: the number of grid
        directions strictly inside (outside) the arc, by more than one grid step, that do
        not (do) separate.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    phi = np.arange(n_grid) * (2 * np.pi / n_grid)
    W = np.column_stack([np.cos(phi), np.sin(phi)])
    sep = np.all((X * y[:, None]) @ W.T > 0, axis=0)
    lo, hi = arc
    mid = 0.5 * (lo + hi)
    dist = np.abs(_wrap(phi - mid))  # angular distance to the arc's midpoint
    half = 0.5 * (hi - lo)
    step = 2 * np.pi / n_grid
    inside = dist < half - step
    outside = dist > half + step
    mism = int(np.sum(inside & ~sep) + np.sum(outside & sep))
    return {
        "fraction": float(sep.mean()),
        "predicted": float((hi - lo) / (2 * np.pi)),
        "mismatches": mism,
    }


# ---------------------------------------------------------------------------------------
# A nonlinear example: circles, the paraboloid lift, and a kernel separator
# ---------------------------------------------------------------------------------------
def lift_paraboloid(X) -> np.ndarray:
    """The feature map ``(x1, x2) -> (x1, x2, x1^2 + x2^2)``."""
    X = np.asarray(X, dtype=float)
    return np.column_stack([X, np.sum(X * X, axis=1)])


def with_intercept(X, c: float = 1.0) -> np.ndarray:
    """Append a constant feature ``c``: affine separators become homogeneous ones."""
    X = np.asarray(X, dtype=float)
    return np.column_stack([X, np.full(X.shape[0], float(c))])


def circles_margins(X, y) -> dict[str, float]:
    """Normalised margins of 2-D data, raw and lifted, each with a constant feature.

    Homogeneous separators of ``(x, 1)`` are the affine lines of the plane; those of
    ``(x1, x2, x1^2 + x2^2, 1)`` are the circles (and lines) of the plane.

    Returns
    -------
    dict
        ``rho2_plane`` (:func:`kperc.data_margin` of ``(x, 1)``; negative: no affine line
        separates) and ``rho2_lifted`` (of the lifted points with a constant; positive:
        a plane separates them), plus ``w_lifted``, a max-margin separator of the lifted
        points (unit vector in ``R^4``), and ``radius``, the circle it draws in the plane.
    """
    Xp = with_intercept(X)
    Xl = with_intercept(lift_paraboloid(X))
    rho_plane = kperc.data_margin(Xp, y)
    det = kperc.margin_details(kperc.gram_matrix(Xl, y))
    Al = Xl * (np.asarray(y, float) / np.linalg.norm(Xl, axis=1))[:, None]
    w = Al.T @ det.p
    w = w / np.linalg.norm(w)
    # w1 x1 + w2 x2 + w3 (x1^2 + x2^2) + w4 = 0 is a circle when w3 != 0
    c = -w[:2] / (2 * w[2])
    rad2 = float(c @ c - w[3] / w[2])
    return {
        "rho2_plane": float(rho_plane),
        "rho2_lifted": float(det.rho),
        "w_lifted": w,
        "center": c,
        "radius": float(np.sqrt(rad2)) if rad2 > 0 else float("nan"),
    }


def kernel_separation(name: str = "circles-rbf", *, max_iter: int = 20_000) -> dict[str, Any]:
    """Separate a stored kernel problem with SNKP, two ways that must agree.

    :func:`kperc.snkp` runs on the normalised signed Gram matrix of
    :func:`kperc_book.data.problem`, and :class:`kperc.SNKPClassifier` (same kernel, no
    intercept) is fitted on the raw data.

    Returns
    -------
    dict
        ``clf`` (the fitted classifier), ``X``, ``y``, ``kernel``, ``params``,
        ``nit_snkp``, ``nit_clf``, ``train_accuracy``, ``rho_K`` (exact,
        :func:`kperc.margin`), ``n`` and ``snkp_bound`` (``2 sqrt(2 log n) / rho_K``,
        Theorem 1 of Chapter 4).
    """
    G, ds, kernel, params = data.problem(name)
    res = kperc.snkp(G, max_iter=max_iter)
    clf = kperc.SNKPClassifier(kernel=kernel, fit_intercept=False, max_iter=max_iter, **params).fit(
        ds.X, ds.y
    )
    rho = kperc.margin(G)
    n = G.shape[0]
    return {
        "clf": clf,
        "X": ds.X,
        "y": ds.y,
        "kernel": kernel,
        "params": params,
        "nit_snkp": int(res.nit),
        "sep_snkp": res.outcome == "separator",
        "nit_clf": int(clf.halting_index_),
        "train_accuracy": float(np.mean(clf.predict(ds.X) == ds.y)),
        "rho_K": float(rho),
        "n": n,
        "snkp_bound": float(2 * np.sqrt(2 * np.log(n)) / rho),
    }


def decision_grid(
    clf, xlim: tuple[float, float], ylim: tuple[float, float], n: int = 200
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decision function of a fitted classifier on an ``n x n`` grid (for contour plots)."""
    gx = np.linspace(*xlim, n)
    gy = np.linspace(*ylim, n)
    XX, YY = np.meshgrid(gx, gy)
    Z = clf.decision_function(np.column_stack([XX.ravel(), YY.ravel()]))
    return XX, YY, Z.reshape(XX.shape)


# ---------------------------------------------------------------------------------------
# Roadmap of the book
# ---------------------------------------------------------------------------------------
#: (paper section, chapter document, chapter title, algorithms and results,
#:  kperc functions)
ROADMAP: list[tuple[str, str, str, str, tuple[str, ...]]] = [
    (
        "1 Introduction",
        "ch01_introduction",
        "Introduction",
        "problems (1)-(3); unnormalised and normalised margins; the cone view",
        ("data_margin", "margin_details", "SNKPClassifier"),
    ),
    (
        "2 Linear feasibility",
        "ch02_linear_feasibility",
        "Linear feasibility",
        "Algorithm 1 (Perceptron), Algorithm 2 (Normalised Perceptron), Block-Novikoff, "
        "normalised margins, Winnow",
        ("perceptron", "normalized_perceptron", "winnow", "data_margin", "linf_margin"),
    ),
    (
        "3 Kernels and RKHSs",
        "ch03_kernels",
        "Kernels",
        "normalised Gram matrix, loss L, Lemmas 1-3, Algorithm 3 (NKP)",
        ("gram_matrix", "gram_operator", "loss", "margin", "nkp"),
    ),
    (
        "4 Smoothed perceptron",
        "ch04_smoothed_perceptron",
        "SNKP",
        "entropy smoothing, Lemmas 4-5, Algorithm 4 (SNKP), Theorem 1",
        ("snkp", "smoothed_loss", "entropy_prox", "SNKPClassifier"),
    ),
    (
        "5 Infeasible problems",
        "ch05_infeasible_problems",
        "Infeasible problems",
        "Gordan's theorem, Algorithm 5 (normalised Von Neumann), negative margins, Theorems 2-3",
        ("nvn", "von_neumann_linear", "margin_details"),
    ),
    (
        "6 Primal-dual algorithms",
        "ch06_primal_dual",
        "Primal-dual",
        "Lemmas 7-9, Algorithm 6 (SNKPVN), Algorithm 7 (ISNKPVN)",
        ("snkpvn", "isnkpvn", "smoothed_loss_q", "euclidean_prox", "dist_to_witness"),
    ),
    (
        "7 Discussion",
        "ch07_discussion",
        "Discussion",
        "open problems: sqrt(log n) for the primal-dual method, smoothed Winnow",
        (),
    ),
    (
        "back matter",
        "ledger",
        "Theorem ledger",
        "every stated result with its numerical checks and tests",
        (),
    ),
    ("back matter", "benchmarks", "Benchmarks", "all algorithms on the shared kernel problems", ()),
    (
        "back matter",
        "reproducibility",
        "Reproducibility",
        "datasets, figures and hashes; how to regenerate",
        (),
    ),
    ("back matter", "api", "API", "reference of the kperc package", ()),
]


def roadmap_functions() -> list[str]:
    """Every ``kperc`` name listed in :data:`ROADMAP` (sorted, without repeats)."""
    return sorted({f for row in ROADMAP for f in row[4]})


def roadmap_markdown(rows: Sequence[tuple[str, str, str, str, tuple[str, ...]]] = ROADMAP) -> str:
    """The roadmap as a MyST table (chapter links as ``{doc}`` roles)."""
    body = []
    for section, doc, title, what, functions in rows:
        listed = ", ".join(f"`{f}`" for f in functions) if functions else "-"
        body.append([section, f"{{doc}}`{title} <{doc}>`", what, listed])
    return table(["paper section", "chapter", "algorithms and results", "`kperc`"], body)


# ---------------------------------------------------------------------------------------
# What the notebook prints and glues
# ---------------------------------------------------------------------------------------
def cone_report(X, geo: dict[str, Any], brute: dict[str, float], n_grid: int) -> str:
    """The lines the notebook prints about the cone view, after checking its claims.

    Parameters
    ----------
    X : array_like of shape (n_samples, 2)
        The data (only its shape is printed).
    geo : dict
        :func:`cone_geometry` of the data.
    brute : dict
        :func:`separating_fraction` of the data on ``n_grid`` directions.
    n_grid : int

    Raises
    ------
    ClaimError
        ``rho_2`` differs from the sine of the arc's half-width by ``1e-9`` or more, or
        the brute-force scan disagrees with the arc away from its end points.
    """
    if not abs(geo["rho2"] - geo["rho2_arc"]) < 1e-9:
        raise ClaimError(
            f"rho_2 = {geo['rho2']!r} is not the sine of the separating arc's half-width "
            f"({geo['rho2_arc']!r})"
        )
    if brute["mismatches"] != 0:
        raise ClaimError(
            f"{brute['mismatches']} of {n_grid} grid directions away from the arc's end "
            "points disagree with the arc"
        )
    X = np.asarray(X)
    mid = abs(geo["w_star_angle"] - geo["w_mid_angle"]) < 1e-9
    return "\n".join(
        [
            f"n = {X.shape[0]} points in R^{X.shape[1]}",
            f"rho_2 (minimum-norm point of the hull) = {geo['rho2']:.6f}",
            f"sin(half-width of the separating arc)  = {geo['rho2_arc']:.6f}",
            f"arc of separating directions: width {np.degrees(geo['arc_width']):.3f} degrees",
            f"fraction of {n_grid} grid directions that separate: {brute['fraction']:.4f} "
            f"(arc predicts {brute['predicted']:.4f}; mismatches away from the end points: "
            f"{brute['mismatches']})",
            f"max-margin direction = midpoint of the arc: {mid}",
        ]
    )


def glue_cone(ch, geo: dict[str, Any], n_grid: int) -> None:
    """Glue the numbers the cone section quotes (``ch`` is the chapter's ``Chapter``)."""
    ch.glue("ch01_rho2_planted", geo["rho2"], digits=4)
    ch.glue("ch01_arc_deg", float(np.degrees(geo["arc_width"])), digits=4)
    ch.glue("ch01_n_grid", n_grid)


def circles_report(cm: dict[str, Any], ks: dict[str, Any]) -> str:
    """The lines the notebook prints about ``circles``, after checking its claims.

    Parameters
    ----------
    cm : dict
        :func:`circles_margins` of the data.
    ks : dict
        :func:`kernel_separation` of the stored problem.

    Raises
    ------
    ClaimError
        No line separates but the lift does (``rho2_plane < 0 < rho2_lifted``) fails; or
        SNKP did not separate, the classifier's run differs from it or misclassifies a
        training point; or SNKP's halting index is not below Theorem 1's bound.
    """
    if not cm["rho2_plane"] < 0 < cm["rho2_lifted"]:
        raise ClaimError(
            "expected no separating line and a separating plane in the lift; margins "
            f"{cm['rho2_plane']!r} (plane) and {cm['rho2_lifted']!r} (lift)"
        )
    if not (ks["sep_snkp"] and ks["nit_snkp"] == ks["nit_clf"] and ks["train_accuracy"] == 1.0):
        raise ClaimError(
            f"SNKP (separated: {ks['sep_snkp']}, halting index {ks['nit_snkp']}) and "
            f"SNKPClassifier (halting index {ks['nit_clf']}, training accuracy "
            f"{ks['train_accuracy']!r}) should agree and separate"
        )
    if not ks["nit_snkp"] < ks["snkp_bound"]:
        raise ClaimError(
            f"SNKP's halting index {ks['nit_snkp']} is not below Theorem 1's bound "
            f"{ks['snkp_bound']!r}"
        )
    return "\n".join(
        [
            f"normalised margin, points (x1, x2, 1):               {cm['rho2_plane']:+.4f}",
            f"normalised margin, lifted points (x1, x2, |x|^2, 1): {cm['rho2_lifted']:+.4f}",
            f"max-margin plane in the lift = circle of radius {cm['radius']:.4f} in the plane",
            f"RBF kernel, gamma = {ks['params']['gamma']}: rho_K = {ks['rho_K']:.4f}",
            f"SNKP on the Gram matrix:       halting index {ks['nit_snkp']}",
            f"SNKPClassifier on the raw data: halting index {ks['nit_clf']}, "
            f"training accuracy {ks['train_accuracy']:.3f}",
            f"Theorem 1 bound 2 sqrt(2 log n) / rho_K = {ks['snkp_bound']:.1f}",
        ]
    )


def glue_circles(ch, cm: dict[str, Any], ks: dict[str, Any]) -> None:
    """Glue the numbers the kernel section quotes (``ch`` is the chapter's ``Chapter``)."""
    ch.glue("ch01_rho_plane", cm["rho2_plane"], digits=3)
    ch.glue("ch01_rho_lifted", cm["rho2_lifted"], digits=3)
    ch.glue("ch01_circle_radius", cm["radius"], digits=3)
    ch.glue("ch01_rho_rbf", ks["rho_K"], digits=3)
    ch.glue("ch01_nit_snkp", ks["nit_snkp"])
    ch.glue("ch01_snkp_bound", ks["snkp_bound"], digits=3)
    ch.glue("ch01_gamma", ks["params"]["gamma"], digits=3)


def roadmap_report(package: Any = kperc) -> str:
    """The line the notebook prints about the roadmap: every function it names exists.

    Parameters
    ----------
    package : module, optional
        Where the roadmap's functions must be found (default :mod:`kperc`).

    Raises
    ------
    ClaimError
        The roadmap names a function ``package`` does not have.
    """
    names = roadmap_functions()
    missing = [f for f in names if not hasattr(package, f)]
    if missing:
        raise ClaimError(f"the roadmap names functions kperc does not have: {missing}")
    return (
        f"kperc functions named in the roadmap: {len(names)}, missing from the package: {missing}"
    )


def glue_roadmap() -> None:
    """Glue the roadmap table (:func:`roadmap_markdown`) as MyST under ``ch01-roadmap``."""
    from IPython.display import Markdown
    from myst_nb import glue

    glue("ch01-roadmap", Markdown(roadmap_markdown()), display=False)

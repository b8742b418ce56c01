"""Exact margins and distances (paper Sections 2.2, 3, 5.2 and 6).

* :func:`margin`: the signed normalised margin ``rho_K`` of a Gram matrix. Positive:
  ``min_{p in simplex} ||p||_G`` (minimax duality, Section 3), computed by an exact
  reduction to non-negative least squares and certified by the optimality conditions.
  Negative: minus the radius of the largest ball around 0 inside the hull of the
  signed points, within their span (Section 5.2), by facet enumeration with Qhull.
* :func:`data_margin`: the same for raw or normalised data, ``rho`` and ``rho_2``.
* :func:`linf_margin`: Winnow's l_inf-normalised margin ``rho_inf`` (a linear program).
* :func:`dist_to_witness`: ``dist(q, W)``, the Euclidean distance from ``q`` to the set
  ``W`` of exact certificates (Lemma 7).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.optimize import OptimizeResult, linprog, nnls
from scipy.sparse.linalg import LinearOperator
from scipy.spatial import ConvexHull, QhullError

from ._exact import ETA as _ETA
from ._exact import U as _U
from ._exact import dot2_rows, exact_rank_at_most, exactly_zero
from ._gram_matrix import GramOperator
from ._kernel_values import _check_diag
from ._typing import ArrayLike, GramLike
from ._validation import (
    TrustedGramOperator,
    check_bool,
    check_gram,
    check_operator,
    check_simplex,
    check_Xy,
    gram_provenance,
    pow2_scale,
    row_norms,
)

__all__ = [
    "margin",
    "margin_details",
    "data_margin",
    "linf_margin",
    "dist_to_witness",
    "gram_factor",
    "min_norm_point",
    "MAX_HULL_RANK",
]

#: Largest rank of G for which the negative margin is computed (facet enumeration).
MAX_HULL_RANK = 6
#: Values of ``min ||p||_G`` at or below this are treated as 0 (the origin is in the hull).
ZERO_TOL = 1e-10
#: Relative eigenvalue cut-off for the rank of G.
RANK_TOL = 1e-10


def gram_factor(G: GramLike) -> np.ndarray:
    """A factor ``B`` (shape ``(r, n)``, ``r = rank G``) with ``G = B^T B``.

    Column ``b_i`` holds the coordinates of the signed point ``a_i`` in an orthonormal
    basis of their span (Section 5.2 of the paper, step 1). For a
    :class:`~kperc.GramOperator` the stored points are used directly (reduced to their
    span when they do not span ``R^d``).

    Examples
    --------
    >>> import numpy as np, kperc
    >>> G = np.array([[1.0, 0.6], [0.6, 1.0]])
    >>> B = kperc.gram_factor(G)
    >>> bool(np.allclose(B.T @ B, G))
    True
    """
    return _factors(_checked_gram(G))[0]


def _checked_gram(G):
    """``G`` validated once, at the boundary: a :class:`~kperc.GramOperator` (its factor
    checked), or a dense validated matrix. Any other LinearOperator is densified from
    its products (``G @ I``; a ``KernelGramOperator`` by :func:`kperc.gram_matrix`),
    then validated as a matrix; products of the wrong shape are refused naming ``G``."""
    if isinstance(G, GramOperator):
        check_gram(G)
        return G
    if isinstance(G, LinearOperator):
        check_operator(G, probe=False)  # square, non-empty, real
        if isinstance(G, TrustedGramOperator) and hasattr(G, "toarray"):
            G = G.toarray()
        else:
            G = _operator_matrix(G)
    return check_gram(G)


def _operator_matrix(G: LinearOperator) -> np.ndarray:
    """``G @ I`` for a LinearOperator, refusing products of the wrong shape naming ``G``."""
    n = G.shape[0]
    kind = type(G).__name__
    try:
        M = np.asarray(G.matmat(np.eye(n)))
    except ValueError as exc:  # scipy's reshape of a wrong-sized product
        raise ValueError(
            f"G (a {kind}) returned a product of the wrong shape (expected ({n},)): {exc}"
        ) from exc
    if M.shape != (n, n):
        raise ValueError(
            f"G (a {kind}) returned products of shape {M.shape} for the {n} columns of the "
            f"identity; expected ({n}, {n})."
        )
    return M


def _factors(G) -> tuple[np.ndarray, np.ndarray]:
    """The rank-reduced factor of :func:`gram_factor` and a full-precision factor.

    The reduced factor drops the directions whose eigenvalue is below
    ``RANK_TOL * n * lambda_max``: that is what decides separability and the span of the
    hull robustly (round-off makes the eigenvalues of a singular ``G`` slightly nonzero).
    Those small eigenvalues can however be genuine (an RBF Gram matrix is full rank with
    eigenvalues decaying to 1e-17), and dropping them changes ``min ||p||_G`` by up to
    ``sqrt(RANK_TOL n lambda_max)``-sized amounts, far above 1e-9. The full factor keeps
    every nonnegative eigenvalue (``G = B^T B`` up to round-off) and is used to compute
    the positive margin to full accuracy.
    """
    if isinstance(G, GramOperator):
        Z = G.dense_factor()  # a sparse factor is densified: the SVD needs it
        U, s, Vt = np.linalg.svd(Z.T, full_matrices=False)
        r = int(np.sum(s > RANK_TOL * max(s[0], 1e-300)))
        reduced = (U[:, :r].T @ Z.T) if r < Z.shape[1] else Z.T.copy()
        return reduced, Z.T.copy()
    lam, V = np.linalg.eigh(G)  # G: a validated dense matrix (_checked_gram)
    keep = lam > RANK_TOL * max(lam[-1], 1e-300) * max(1, G.shape[0])
    reduced = (V[:, keep] * np.sqrt(lam[keep])).T
    full = (V * np.sqrt(np.clip(lam, 0.0, None))).T
    return reduced, full


def min_norm_point(B: np.ndarray) -> tuple[float, np.ndarray]:
    """Nearest point of ``conv{b_1..b_n}`` to the origin: ``min_{p in simplex} ||B p||``.

    Exact reduction: minimising ``f(u) = ||B u||^2 + (1 - 1^T u)^2`` over ``u >= 0``
    and setting ``p = u / 1^T u`` solves the problem (for ``u = t p`` the inner minimum
    over ``t`` is ``||Bp||^2 / (1 + ||Bp||^2)``, increasing in ``||Bp||``). The NNLS
    problem is solved by Lawson-Hanson (:func:`scipy.optimize.nnls`), then polished on
    its support by the KKT system.

    Returns
    -------
    value : float
        ``min ||B p||``.
    p : ndarray of shape (n,)
        A minimiser in the simplex.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> B = np.array([[1.0, -1.0, 0.0], [1.0, 1.0, 2.0]])  # columns are the points
    >>> value, p = kperc.min_norm_point(B)
    >>> round(value, 4), p.round(4).tolist()
    (1.0, [0.5, 0.5, 0.0])
    """
    if np.iscomplexobj(B):
        raise TypeError("B must be real; got a complex array.")
    B = np.asarray(B, dtype=np.float64)
    if B.ndim != 2 or B.shape[1] == 0:
        # scipy's nnls aborts the interpreter on an empty problem: refuse it here
        raise ValueError(
            f"B must be 2-D of shape (r, n) with n >= 1 columns (the points); got {B.shape}."
        )
    if not np.all(np.isfinite(B)):
        raise ValueError("B contains NaN or inf.")
    top = float(np.max(np.abs(B)))
    if top == 0.0:
        return 0.0, np.full(B.shape[1], 1.0 / B.shape[1])
    # homogeneous in B: solved for B / s, s a power of two (exact), then rescaled, so that
    # entries of size 1e+-300 neither overflow nor vanish next to the row of ones
    s = pow2_scale(top)
    if s != 1.0:
        value, p = min_norm_point(B / s)
        return value * s, p
    r, n = B.shape
    M = np.vstack([B, np.ones((1, n))])
    rhs = np.zeros(r + 1)
    rhs[-1] = 1.0
    u, _ = nnls(M, rhs, maxiter=50 * n)
    if u.sum() <= 0:  # pragma: no cover - f(0) = 1 is never optimal
        raise RuntimeError("NNLS returned u = 0")
    p = u / u.sum()
    p = _polish_min_norm(B, p)
    return float(np.linalg.norm(B @ p)), p


def _polish_min_norm(B: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Finish the NNLS reduction of :func:`min_norm_point` by an active-set solve.

    On the support ``S`` of ``p`` the NNLS problem ``min ||M u - e||`` (``M = [B; 1^T]``)
    is an unconstrained least-squares problem. It is solved with an orthogonal
    factorisation of ``M_S`` itself (never the normal equations ``B_S^T B_S``, which
    square the condition number), followed by one step of iterative refinement; an index
    whose NNLS multiplier ``(M^T (e - M u))_j`` is positive joins the support. The
    result makes ``(G p)_i`` equal on the support to a few ulps, so that the optimality
    conditions ``min_i (G p)_i = p^T G p`` hold to rounding whatever the accuracy of the
    Lawson-Hanson iterations of the installed SciPy. The polished point is kept only if
    it stays in the simplex and does not increase ``||B p||``.
    """
    r, n = B.shape
    M = np.vstack([B, np.ones((1, n))])
    e = np.zeros(r + 1)
    e[-1] = 1.0
    S = p > 0
    best = p
    best_val = float(np.linalg.norm(B @ p))
    for _ in range(min(n, 50) + 1):
        idx = np.flatnonzero(S)
        MS = M[:, idx]
        uS = np.linalg.lstsq(MS, e, rcond=None)[0]
        uS = uS + np.linalg.lstsq(MS, e - MS @ uS, rcond=None)[0]
        if uS.min() <= 0 or uS.sum() <= 0:
            break
        u = np.zeros(n)
        u[idx] = uS
        cand = u / u.sum()
        val = float(np.linalg.norm(B @ cand))
        if val <= best_val:
            best, best_val = cand, val
        w = M.T @ (e - M @ u)
        w[S] = -np.inf
        j = int(np.argmax(w))
        if w[j] <= 1e-15 * max(1.0, float(np.abs(M).max())):
            break
        S = S.copy()
        S[j] = True
    return best


def _negative_margin(B: np.ndarray) -> tuple[float, np.ndarray | None]:
    """Inradius (around 0) of ``conv{b_i}`` in ``R^r`` and the minimising facet normal."""
    r = B.shape[0]
    if r > MAX_HULL_RANK:
        raise ValueError(
            f"the problem is not certified separable and rank(G) = {r} > {MAX_HULL_RANK}: the "
            "negative (span-restricted) margin needs facet enumeration of the hull, which "
            "kperc only does exactly for rank <= 6. To decide whether the data are "
            "separable at all, use kperc.is_separable (one linear program, exact answer); "
            "for a certificate that no separator has a margin above eps, kperc.isnkpvn."
        )
    if r == 1:
        b = B[0]
        c = min(b.max(), -b.min())
        nu = np.array([1.0]) if b.max() <= -b.min() else np.array([-1.0])
        return max(c, 0.0), nu
    try:
        hull = ConvexHull(B.T)
    except QhullError:
        hull = ConvexHull(B.T, qhull_options="QJ")
    # equations: nu^T x + off <= 0 inside, ||nu|| = 1; the facet is nu^T x = c = -off
    c = -hull.equations[:, -1]
    i = int(np.argmin(c))
    return max(float(c[i]), 0.0), hull.equations[i, :-1]


def _apply_exact(G):
    """``v -> G v`` from the checked input itself (not from a factor) and its size bound.

    Returns the product function and ``c`` such that, for ``p`` in the simplex, each
    computed ``(G p)_i`` is within ``c * u`` of the exact value (``u`` the unit
    round-off): ``c = n`` for a dense ``G`` with ``|G_ij| <= 1``; for a
    :class:`~kperc.GramOperator` ``G p = Z (Z^T p)`` with unit rows, ``c = n + d``.
    """
    if isinstance(G, GramOperator):
        Z = G.dense_factor()
        return (lambda v: Z @ (Z.T @ v)), float(sum(Z.shape) + 2)
    return (lambda v: G @ v), float(G.shape[0] + 2)


def margin_details(G: GramLike) -> OptimizeResult:
    """The signed normalised margin ``rho_K`` with its certificate.

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator
        Normalised signed Gram matrix. A LinearOperator other than a
        :class:`~kperc.GramOperator` is densified from its products (``G @ I``).

    Returns
    -------
    OptimizeResult
        ``rho`` (the margin), ``separable`` (bool), ``status`` (``"separable"``,
        ``"inseparable"``, ``"zero"`` or ``"undecided"``, see Notes), ``rho_bounds`` (an interval
        that contains ``rho_K`` despite rounding, see "What is certified"), ``p`` (the
        minimiser of ``||p||_G`` over the simplex), ``alpha`` (for ``rho > 0``:
        ``p / ||p||_G``, a unit-norm max-margin function ``f_alpha``), ``rank`` (of
        ``G``, numerically), ``kkt_gap`` (``max(0, rho^2 - min_i (G p)_i)``, zero at an
        exact optimum) and, when not separable, ``facet_normal`` (in the coordinates of
        :func:`gram_factor`); with "inseparable", ``hull_rank``, the dimension of the
        span in which the depth was measured.

    Warns
    -----
    RuntimeWarning
        When floating point cannot decide the sign of the margin (``status ==
        "undecided"``); ``rho`` is then 0.0 and ``rho_bounds`` says how far from 0 the
        true value can be.

    Notes
    -----
    What is certified depends on where ``G`` comes from.

    * A matrix returned by :func:`kperc.gram_matrix` (built-in kernels), as is, or a
      :class:`kperc.ValidatedGram` of one, or a :class:`~kperc.GramOperator` or
      ``KernelGramOperator``: the answer holds for the **exact** normalised signed Gram
      matrix ``G*`` of the data. ``gram_matrix`` bounds the rounding of its
      construction, ``|G_ij - G*_ij| <= delta``, and every test below is made against
      ``G*``: a separator must satisfy ``(G p)_i > delta + c u`` for each ``i``, and the
      bounds widen by ``delta``. A margin whose square is below about ``delta`` (about
      ``1e-7`` for ``d = 10`` features) cannot be told from the rounding of ``G`` and is
      ``"undecided"``; a factored :class:`~kperc.GramOperator` (or
      :func:`data_margin`) resolves margins down to about ``n u``.
    * Any other matrix (your own, a copy or a slice of one, a LinearOperator densified):
      the answer is about that matrix as given, and evidence at the scale of its own
      rounding is not accepted: a separator must satisfy ``(G p)_i > c u`` for the
      computed product (``c`` about ``n``), so margins below about ``sqrt(n u)`` are
      ``"undecided"`` rather than decided by the last bits of ``G``.

    Statuses (``u = 2^-53``):

    * ``"separable"``: the minimiser ``p`` satisfies ``min_i (G p)_i`` above the bound
      of its rounding (and of ``delta``), decided by the plain product or, for a
      matrix built from data and a factor, with error-free dot products; then
      ``alpha = p`` is a separator (Lemma 1) and ``rho_K > 0``. ``rho_bounds`` follows
      from the optimality sandwich ``2 min_i (G p)_i - p^T G p <= rho_K^2 <= p^T G p``.
      For a :class:`~kperc.GramOperator` (or :func:`data_margin`) a ``w`` with every
      ``a_i^T w > 0`` decided by an error-free dot product is also accepted, which
      resolves margins down to about ``n u``; the result then holds that certified
      separator as ``w`` (in the coordinates of the operator's factor, the data's
      features for the linear kernel), while ``alpha``, the max-margin direction computed
      in floating point, need not separate at margins that close to the rounding. ``w``
      is None whenever ``alpha`` itself was certified.
    * ``"inseparable"``: ``min ||p||_G`` over the simplex is zero within rounding and
      the origin lies inside the hull of the signed points at a depth above the
      rounding slack of the factor (and of ``delta``) (Theorem 3); ``rho = -depth``.
    * ``"zero"``: some ``p >= 0`` has ``sum_i p_i a_i = 0`` exactly, so the problem is
      not separable, and no depth above the rounding slack exists: ``rho = 0`` within
      ``rho_bounds`` (whose upper end is 0). The exact cancellation is checked on the
      factor of a :class:`~kperc.GramOperator`, on the equal points of the data for a
      matrix built by :func:`kperc.gram_matrix` (a point repeated under both labels),
      and as ``G p = 0`` in the entries of any other matrix.
    * ``"undecided"``: none of these holds; a warning is issued and ``rho = 0.0``.

    A negative margin is measured in the span of ``G``'s factor (numerical rank). The
    exact matrix ``G*`` may have a larger rank, by eigenvalues below the rounding of
    ``G``, and along those directions the data may be separable (the RBF kernel's matrix
    of distinct points is positive definite: such data are always separable). So an
    ``"inseparable"`` answer presumes that span. :func:`kperc.gram_matrix` records a bound
    on ``rank(G*)`` known exactly from the data and the kernel (the number of features
    for the linear kernel, the dimension of the polynomial kernel's feature space, the
    number of distinct points for every built-in kernel): where the span is smaller, the
    answer is ``"undecided"``. A :class:`~kperc.GramOperator` checks the rank of its
    factor exactly, as :func:`data_margin` does for the data.

    *Compared with* :func:`kperc.is_separable`, which answers only the sign: both
    certify for the exact Gram matrix of the data. ``is_separable`` tries a ridge solve
    and a linear program (HiGHS, tolerances near ``1e-7``) and then the minimiser ``p``
    computed here, so what this function certifies as ``"separable"`` it certifies too
    (with ``margin_lower`` at most ``rho``); it calls data "not separable" only with an
    exact certificate, and otherwise "undecided" with a bound ``margin_upper`` from its
    own certificate. Below the floor of about ``sqrt(delta)`` (``delta`` the rounding of
    ``G``'s entries) neither can decide.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> G = np.array([[1.0, 0.6], [0.6, 1.0]])  # two points at 53 degrees
    >>> res = kperc.margin_details(G)
    >>> round(res.rho, 4), bool(res.separable), res.p.round(4).tolist()
    (0.8944, True, [0.5, 0.5])
    """
    G = _checked_gram(G)
    B, B_full = _factors(G)
    apply, c = _apply_exact(G)
    eps = np.finfo(np.float64).eps
    # singular values of the factor: from the eigenvalues of G (accurate to n eps lam_max)
    # for a dense G, directly (accurate to eps s_max) for a factor
    n, d = B_full.shape[1], B_full.shape[0]
    if isinstance(G, GramOperator):
        fine = warn = 16 * (n + d) * eps
        certifier: _RowCertifier | _DenseCertifier = _RowCertifier(
            G.dense_factor(),
            normalized=False,
            row_error=G.row_error,
            exact_rows=G.exact_rows,
        )
        det = _certified_margin(B, B_full, apply, c * eps, fine, warn, certifier=certifier)
        Z = G.dense_factor()
        if det.status == "inseparable" and det.hull_rank < Z.shape[1]:
            # the depth holds in the factor's span only if the points have no component
            # outside it: proved when the rows are exactly proportional to the points
            exact = G.exact_rows is None or bool(np.all(G.exact_rows))
            if not (exact and exact_rank_at_most(Z, det.hull_rank)):
                assert isinstance(certifier, _RowCertifier)
                _span_undecided(det, certifier.upper(det.p))
        return det
    info = gram_provenance(G)
    delta = None if info is None else info.entry_error
    fine, warn = math.sqrt(4 * n * eps), 2 * math.sqrt(eps)
    if delta is not None:
        # G is within (n - 1) delta of G* in norm: its factor's points within the square
        # root of that (plus the eigensolver's n eps lam_max) of G*'s
        lam_max = float(np.max(np.einsum("ij,ij->i", B_full, B_full), initial=0.0))
        fine = math.sqrt(4 * n * eps + (n - 1) * delta / max(lam_max, 1e-300))
        warn = max(warn, fine)
    certifier = _DenseCertifier(G, delta, info)
    err = c * eps + (0.0 if delta is None else delta)
    # The depth is measured in the span of G's factor; G* may have a larger rank, by
    # eigenvalues below the rounding of G, along which it may be separable (the RBF
    # kernel's matrix of distinct points is positive definite: always separable). A
    # provenance that bounds rank(G*) (``max_rank``) lets the depth stand only when the
    # span reaches that bound.
    max_rank = None if info is None else info.max_rank
    det = _certified_margin(
        B, B_full, apply, err, fine, warn, certifier=certifier, max_rank=max_rank
    )
    if det.status == "inseparable" and max_rank is not None and det.hull_rank < max_rank:
        warnings.warn(
            f"margin: the depth {-det.rho:.3g} of the origin was measured in a span of rank "
            f"{det.hull_rank}, but the exact kernel matrix may have rank up to {max_rank} "
            "(directions below the rounding of G); its margin is not certified. rho = 0.0 "
            "is reported with status 'undecided'.",
            RuntimeWarning,
            stacklevel=2,
        )
        up = max(float(det.rho_bounds[1]), math.sqrt(max(float(det.p @ apply(det.p)), 0.0) + err))
        det.update(rho=0.0, status="undecided", separable=False, rho_bounds=(det.rho_bounds[0], up))
    return det


def _certified_margin(
    B, B_full, apply, err, fine_cut, warn_cut, *, certifier=None, max_rank=None
) -> OptimizeResult:
    """Core of :func:`margin_details`: ``apply(p)`` computes ``G p`` within ``err``.

    Singular values of ``B_full`` below ``fine_cut * s_max`` are treated as rounding;
    above ``warn_cut * s_max`` they may be genuine. ``certifier`` (a
    :class:`_RowCertifier` or :class:`_DenseCertifier`) decides signs exactly when
    ``min_i (G p)_i`` is below the rounding bound ``err`` of the plain product.
    ``max_rank`` bounds the exact matrix's rank: a hull of larger rank than
    ``MAX_HULL_RANK`` but below it is not enumerated (its depth would not be certified,
    :func:`margin_details`), and the answer is "undecided" instead of an error.
    """
    value, p = min_norm_point(B_full)
    _, p_red = min_norm_point(B)
    if float(np.linalg.norm(B_full @ p_red)) < value:
        value, p = float(np.linalg.norm(B_full @ p_red)), p_red
    Gp = apply(p)
    pGp = float(p @ Gp)
    min_gp = float(Gp.min())
    low = math.sqrt(max(2.0 * min_gp - pGp - 3.0 * err, 0.0))
    up = math.sqrt(max(pGp, 0.0) + err)
    gap = max(0.0, value**2 - min_gp)

    def separable(low_bound, up_bound, w=None):
        rho = min(max(value, low_bound), up_bound)
        return OptimizeResult(
            w=w,
            rho=rho,
            separable=True,
            status="separable",
            rho_bounds=(low_bound, up_bound),
            p=p,
            alpha=p / rho,
            rank=B.shape[0],
            kkt_gap=gap,
            facet_normal=None,
        )

    if min_gp > err:
        return separable(low, up)
    if certifier is not None:
        # below the rounding of the plain product: a separator checked with exact signs
        cert_low = certifier.separator(p)
        if cert_low is not None:
            up_c = min(up, certifier.upper(p)) if hasattr(certifier, "upper") else up
            w = getattr(certifier, "w", None)  # a _RowCertifier's separator is a primal w
            return separable(max(cert_low, low), max(up_c, cert_low, low), w)
    # The hull is taken in the span of every direction above the rounding level (the
    # RANK_TOL span of gram_factor would discard a small but genuine eigen-direction that
    # carries the depth), when that span is small enough for facet enumeration.
    U, sv, _ = np.linalg.svd(B_full, full_matrices=False)
    kf = int(np.sum(sv > fine_cut * max(sv[0], 1e-300)))
    Bh = B
    if B.shape[0] < kf <= MAX_HULL_RANK:
        Bh = U[:, :kf].T @ B_full
    slack = fine_cut * float(sv[0])  # accuracy of the factor's coordinates (and depth)
    hull = max_rank is None or not MAX_HULL_RANK < Bh.shape[0] < max_rank
    # without the hull the depth is at most 1 (the points have unit norm)
    inrad, nu = _negative_margin(Bh) if hull else (1.0, None)  # refuses rank > 6
    if hull and inrad > slack and value <= math.sqrt(err):
        upper = -inrad + slack
        if kf > Bh.shape[0] or (sv.size > Bh.shape[0] and sv[Bh.shape[0]] > warn_cut * sv[0]):
            # a direction left out of the hull's span may be genuine: along it the depth is
            # at most its singular value, so only rho <= 0 is certain
            upper = 0.0
            warnings.warn(
                f"margin: the problem is not separable, but the depth {inrad:.3g} is computed "
                f"in a span of rank {Bh.shape[0]}; a direction of singular value "
                f"{float(sv[Bh.shape[0]]):.3g} was left out, and the margin may lie anywhere "
                f"in [{-inrad:.3g}, 0].",
                RuntimeWarning,
                stacklevel=3,
            )
        return OptimizeResult(
            rho=-inrad,
            separable=False,
            status="inseparable",
            rho_bounds=(-inrad - slack, upper),
            p=p,
            alpha=None,
            rank=B.shape[0],
            kkt_gap=gap,
            facet_normal=nu,
            hull_rank=Bh.shape[0],
        )
    depth = slack + inrad if hull else 1.0
    if certifier is not None and hasattr(certifier, "upper"):
        up = min(up, certifier.upper(p))
    if certifier is not None and certifier.origin_in_hull(p):
        # p >= 0 with G p = 0 exactly: not separable; no depth above the rounding level
        return OptimizeResult(
            rho=0.0,
            separable=False,
            status="zero",
            rho_bounds=(-depth, 0.0),
            p=p,
            alpha=None,
            rank=B.shape[0],
            kkt_gap=gap,
            facet_normal=nu,
        )
    warnings.warn(
        f"margin: floating point cannot certify the sign of the margin of this G; it "
        f"lies in [{-depth:.3g}, {up:.3g}] (min_i (G p)_i = {min_gp:.3g} is within the "
        f"rounding bound {err:.3g}, and no separator could be verified with exact signs). "
        "rho = 0.0 is reported with status 'undecided'.",
        RuntimeWarning,
        stacklevel=3,
    )
    return OptimizeResult(
        rho=0.0,
        separable=False,
        status="undecided",
        rho_bounds=(-depth, up),
        p=p,
        alpha=None,
        rank=B.shape[0],
        kkt_gap=gap,
        facet_normal=nu,
    )


def _pow2_rows(A: np.ndarray) -> np.ndarray:
    """Each row of ``A`` times a power of two, so that its largest entry is in [0.5, 1)."""
    return _pow2_rows_exact(A)[0]


def _pow2_rows_exact(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Each row of ``A`` times ``2^-e_i``, exactly where possible; the ``e_i``, and whether
    every row was scaled exactly.

    The target puts the largest entry in [0.5, 1). Scaling up is exact; scaling down
    drops the bits of tiny entries below ``2^-1074`` (``0.5 * 5e-324`` rounds to 0), so a
    row is scaled down only as far as its smallest entry allows, unless its largest entry
    would stay above ``2^990`` (then the row is scaled fully, and inexactly).
    """
    absA = np.abs(A)
    amax = np.max(absA, axis=1)
    e = np.frexp(np.where(amax > 0, amax, 1.0))[1]
    exact = True
    if np.any(e > 0):
        nonzero = absA > 0
        f = np.frexp(np.where(nonzero, absA, 1.0))[1]
        fmin = np.min(np.where(nonzero, f, 10**6), axis=1)
        # a value 2^f m (m in [1/2, 1)) keeps its last bit 2^(f - 53) iff f - 53 - e >= -1074
        lossless = np.maximum(fmin + 1021, 0)
        capped = np.where(e > 0, np.minimum(e, lossless), e)
        ok = e - capped <= 990
        exact = bool(np.all(ok))
        e = np.where(ok, capped, e)
    return np.ldexp(A, -e[:, None]), e, exact


def _rounded_candidates(p: np.ndarray) -> list[np.ndarray]:
    """``p`` and copies rounded to coarser dyadic grids (nonnegative, not all zero).

    A combination ``sum_i p_i a_i`` that vanishes exactly usually has simple weights
    (a point and its opposite: ``1/2, 1/2``), which the solver returns up to rounding;
    rounding to ``2^-k`` recovers them. Any nonnegative nonzero vector is a valid
    certificate, so the rounding needs no justification.
    """
    out = [p] if np.any(p > 0) else []
    top = float(np.max(p)) if p.size else 0.0
    if not top > 0:
        return out
    for k in (10, 20, 30, 40):
        grid = np.ldexp(1.0, np.frexp(top)[1] - k)
        v = np.round(p / grid) * grid
        if np.any(v > 0) and np.all(v >= 0):
            out.append(v)
    return out


class _RowCertifier:
    """Exact-sign certificates for signed points ``a_i`` (rows of ``A``, any positive scale).

    ``separator(p)`` looks for ``w`` with ``a_i^T w > 0`` for every ``i``, the signs
    decided by :func:`kperc._exact.dot2_rows` with its error bound: first
    ``w = sum_i p_i a_i / ||a_i||``, then the hard-margin form ``a_i^T w = 1`` on a
    support grown from that of ``p`` (a least-squares solve whose residual is relative
    to 1, not to ``rho^2``: it resolves margins down to about ``n u`` where the first
    candidate stops near ``sqrt(n u)``). It returns a rigorous lower bound on the
    normalised margin, or None. ``origin_in_hull(p)`` says whether ``sum_i p_i a_i = 0``
    exactly (also for ``p_i / ||a_i||``): then the data are not separable.
    """

    def __init__(
        self,
        A: np.ndarray,
        *,
        normalized: bool = True,
        row_error: float = 0.0,
        exact_rows: np.ndarray | None = None,
    ):
        self.A, e, self.exact = _pow2_rows_exact(A)  # exact unless self.exact is False
        #: ``||a_i - a*_i|| <= row_error ||a_i||`` for the points ``a*_i`` the answer is
        #: about (0: the rows as given); ``exact_rows``: rows known to be exactly
        #: proportional to those points (None: all of them)
        self.row_error = row_error
        self.exact_rows = exact_rows
        norms = row_norms(self.A)
        self.ok = bool(np.all(norms > 0))
        self.norms = np.where(norms > 0, norms, 1.0)
        self.Zn = self.A / self.norms[:, None]
        d = A.shape[1]
        grow = 1.0 + 4.0 * (d + 4) * _U  # bounds the rounding of the computed norms
        self.normalized = normalized
        self.raw = A
        if normalized:  # the margin of the directions a_i / ||a_i||
            self.unit = self.norms * grow
        else:  # the margin of the rows as given: a_i = A_i * 2^e_i exactly
            self.unit = np.ldexp(1.0, -e)

    def _check(self, w: np.ndarray) -> float | None:
        if not np.all(np.isfinite(w)) or not np.any(w):
            return None
        w = _pow2_rows(w[None, :])[0]  # a positive scaling: the signs are those of w's
        n, d = self.A.shape
        m, e = dot2_rows(self.A, w)
        lower = m - e - 8.0 * d * _ETA  # also the entries that underflowed in _pow2_rows
        w_norm = float(row_norms(w[None, :])[0]) * (1.0 + 4.0 * (d + 4) * _U)
        if self.row_error:  # |(a_i - a*_i)^T w| <= row_error ||a_i|| ||w||
            lower = lower - self.row_error * (self.norms * (1.0 + 4.0 * (d + 4) * _U)) * w_norm
        if not lower.min() > 0:
            return None
        self.w = w  # the certified separator, in the coordinates of the rows
        return float(np.min(lower / self.unit)) / w_norm * (1.0 - 8 * _U)

    def upper(self, p: np.ndarray) -> float:
        """A rigorous upper bound on the margin: ``||sum_i p_i a_i||`` for ``p`` in the simplex."""
        M = self.Zn if self.normalized else self.raw
        res, err = dot2_rows(np.ascontiguousarray(M.T), p)
        d = M.shape[1]
        val = float(row_norms((np.abs(res) + err)[None, :])[0]) * (1.0 + 4.0 * (d + 4) * _U)
        if self.normalized:  # the rows of Zn are unit directions up to their rounding
            val += 4.0 * (d + 4) * _U
        if self.row_error:  # the points the answer is about differ by row_error ||a_i||
            val += self.row_error * float(np.max(self.norms * self.unit)) * (1.0 + 8 * d * _U)
        return val / max(float(p.sum()), 1e-300) * (1.0 + 4 * p.size * _U)

    def separator(self, p: np.ndarray) -> float | None:
        if not self.ok:
            return None
        low = self._check(self.Zn.T @ p)
        if low is not None:
            return low
        n = self.A.shape[0]
        S = p > 0
        if not S.any():
            S = p >= p.max()
        for _ in range(min(n, 50)):
            idx = np.flatnonzero(S)
            w = np.linalg.lstsq(self.Zn[idx], np.ones(idx.size), rcond=None)[0]
            low = self._check(w)
            if low is not None:
                return low
            m = np.where(S, np.inf, self.Zn @ w)
            j = int(np.argmin(m))
            if not m[j] < 0.5:
                return None
            S = S.copy()
            S[j] = True
        return None

    def origin_in_hull(self, p: np.ndarray) -> bool:
        if not np.any(p > 0) or not self.exact:
            return False
        cands = _rounded_candidates(p) + _rounded_candidates(p / self.norms)
        if self.exact_rows is not None:  # only rows exactly proportional to the points
            cands = [v for v in cands if np.all(self.exact_rows[v > 0])]
        return any(exactly_zero(self.A.T, v) for v in cands)


class _DenseCertifier:
    """Exact-sign certificates from a dense ``G`` itself (see :class:`_RowCertifier`).

    For a matrix built from data (``delta``, the bound on ``|G_ij - G*_ij|``, is known):
    ``separator(p)`` accepts ``p`` when every ``(G p)_i`` exceeds ``delta ||p||_1`` beyond
    the error of :func:`kperc._exact.dot2_rows` (so ``G* p > 0``), and returns the lower
    bound ``sqrt(2 min_i (G* p)_i - p^T G* p)`` of the optimality sandwich (possibly 0);
    ``origin_in_hull(p)`` holds when the points in the support of ``p`` cancel exactly
    in the data: each group of equal points has ``sum_i y_i p_i = 0``.

    For any other matrix no separator is accepted below the rounding of the plain product
    (``separator`` returns None), and ``origin_in_hull(p)`` means ``G p = 0`` exactly in
    the given entries.
    """

    def __init__(self, G: np.ndarray, delta: float | None, info):
        self.G = G
        self.delta = delta
        self.groups = None if info is None else info.groups
        self.labels = None if info is None else info.labels

    def separator(self, p: np.ndarray) -> float | None:
        if self.delta is None:
            return None
        l1 = float(p.sum()) * (1.0 + 4 * p.size * _U)
        m, e = dot2_rows(self.G, p)
        lo = (m - e) - self.delta * l1
        if lo.min() <= 0:
            return None
        pgp = (float(p @ (m + e)) + self.delta * l1 * l1) * (1.0 + 4 * p.size * _U)
        return math.sqrt(max(2.0 * float(lo.min()) * (1.0 - 4 * _U) - pgp, 0.0))

    def origin_in_hull(self, p: np.ndarray) -> bool:
        if self.delta is None:
            return any(exactly_zero(self.G, v) for v in _rounded_candidates(p))
        groups, labels = self.groups, self.labels
        if groups is None or labels is None:
            return False
        return any(_groups_cancel(v, groups, labels) for v in _rounded_candidates(p))


def _groups_cancel(v: np.ndarray, groups: np.ndarray, labels: np.ndarray) -> bool:
    """Whether ``sum_i v_i y_i phi(x_i) = 0`` exactly because equal points cancel: for each
    group of equal points, ``sum_i y_i v_i = 0`` (:func:`math.fsum`, correctly rounded:
    zero exactly when the exact sum is)."""
    idx = np.flatnonzero(v)
    if idx.size == 0:
        return False
    signed = v[idx] * labels[idx]  # exact: sign flips
    order = np.argsort(groups[idx], kind="stable")
    g, signed = groups[idx][order], signed[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    ends = np.r_[starts[1:], g.size]
    return all(math.fsum(signed[a:b].tolist()) == 0.0 for a, b in zip(starts, ends, strict=True))


def margin(G: GramLike) -> float:
    """The signed normalised margin ``rho_K`` of a normalised signed Gram matrix.

    * If the problem is separable, ``rho_K = min_{p in simplex} ||p||_G > 0``
      (Section 3 of the paper), solved exactly (NNLS reduction plus KKT polish).
    * Otherwise ``rho_K <= 0`` is the span-restricted margin of Section 5.2: minus the
      radius of the largest ball centred at 0, inside the span of the signed points,
      contained in their convex hull (Theorem 3), computed by facet enumeration for
      ``rank(G) <= 6``.

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``G`` is invalid, or the problem is not certified separable, ``rank(G) > 6``
        and the exact matrix is not known to have a larger rank (then the answer is
        "undecided", see :func:`margin_details`).

    Notes
    -----
    On a matrix returned by :func:`kperc.gram_matrix` the value is certified for the
    exact Gram matrix of the data; on any other matrix, for that matrix as given, above
    the rounding of its products. Where rounding cannot decide the sign, 0.0 is returned
    with a warning; :func:`margin_details` says which case applies and gives the bounds.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> X = np.array([[1.0, 0.2], [0.2, 1.0]])
    >>> rho = kperc.margin(kperc.gram_matrix(X, [1, 1]))
    >>> round(rho, 6), round(float(np.sqrt((1 + 0.4 / 1.04) / 2)), 6)  # sqrt((1 + cos) / 2)
    (0.83205, 0.83205)
    """
    return float(margin_details(G).rho)


def data_margin(X: ArrayLike, y: ArrayLike, *, normalize: bool = True) -> float:
    """Linear margin of data: ``rho_2`` (normalised) or ``rho`` (raw), paper Section 2.2.

    ``rho = max_{||w|| = 1} min_i y_i x_i^T w``. For separable data this equals
    ``min_{p in simplex} ||sum_i p_i y_i x_i||``; for inseparable data the
    span-restricted negative value is returned (rank at most 6).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
    normalize : bool
        ``True`` for ``rho_2`` (points scaled to unit norm), ``False`` for ``rho``.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, kperc
    >>> X, y = np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([1, -1])
    >>> round(kperc.data_margin(X, y), 4), round(kperc.data_margin(X, y, normalize=False), 4)
    (0.3162, 0.7071)
    """
    det, scale = _data_margin_details(X, y, normalize)
    if det.status == "undecided":
        warnings.warn(
            "data_margin: floating point cannot certify the sign of the margin; it lies in "
            f"[{det.rho_bounds[0] * scale:.3g}, {det.rho_bounds[1] * scale:.3g}]; 0.0 is "
            "returned.",
            RuntimeWarning,
            stacklevel=2,
        )
    return float(det.rho) * scale


def _span_undecided(det: OptimizeResult, upper: float) -> None:
    """Turn an "inseparable" ``det`` whose depth was measured in a span smaller than the
    points' own into "undecided" (``rho = 0.0``), with ``upper``, a bound on the margin
    of the points themselves, as the top of ``rho_bounds``."""
    up = max(float(det.rho_bounds[1]), float(upper))
    det.update(rho=0.0, status="undecided", separable=False, rho_bounds=(det.rho_bounds[0], up))


def _data_margin_details(X, y, normalize: bool = True) -> tuple[OptimizeResult, float]:
    """The certified margin of :func:`data_margin` (at unit scale) and the scale factor."""
    normalize = check_bool(normalize, "normalize")
    X, y = check_Xy(X, y)
    norms = row_norms(X)
    signed = X * y[:, None]  # exact: sign flips
    raw = X  # the data as given
    if normalize:
        _check_diag(norms)  # norms > 0 iff K(x_i, x_i) > 0; norms**2 may underflow
        X = _pow2_rows(X)  # exact unless a row spans more than the exponent range
        X = X / row_norms(X)[:, None]
        scale = 1.0
    else:
        scale = float(norms.max())
        if not scale > 0:
            raise ValueError("X has only zero rows; the margin of zero vectors is undefined.")
        X = X / scale  # the margin is homogeneous: compute at unit scale, rescale at the end
    # A negative margin is measured in the span of the points computed with. Those are
    # within u of the data's in norm (so the bounds on the margin hold), but the data's
    # own span may be larger by a direction below rounding, along which they may be
    # separable ([[1, t], [-1, t]] for any t > 0): the value is certified only when the
    # span has the dimension d of the data or the data's rank is proved (exactly) to be
    # no larger, and never when entries lost their relative precision by underflowing
    # below the normal range ([[2^1000, 2^-80], [-2^1000, 2^-80]], a segment through 0
    # once rounded).
    lossy = bool(np.any((raw != 0) & (np.abs(X) < 2.0**-1022)))
    Z = X * y[:, None]
    U, s, _ = np.linalg.svd(Z.T, full_matrices=False)
    r = int(np.sum(s > RANK_TOL * max(s[0], 1e-300)))
    B = U[:, :r].T @ Z.T
    err = float(sum(Z.shape) + 2) * np.finfo(np.float64).eps
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        certifier = (
            _RowCertifier(signed, normalized=True)
            if normalize
            else _RowCertifier(Z, normalized=False)
        )
        det = _certified_margin(
            B, Z.T, lambda v: Z @ (Z.T @ v), err, 16 * err, 16 * err, certifier=certifier
        )
    if det.status == "inseparable" and (
        lossy or (det.hull_rank < X.shape[1] and not exact_rank_at_most(raw, det.hull_rank))
    ):
        _span_undecided(det, certifier.upper(det.p))
    elif det.status == "zero" and not normalize:
        # the exact cancellation was found in X / scale, which is rounded: recheck it in
        # the data as given
        if not _RowCertifier(signed, normalized=False).origin_in_hull(det.p):
            det.update(status="undecided", rho_bounds=(det.rho_bounds[0], certifier.upper(det.p)))
    return det, scale


def linf_margin(X: ArrayLike, y: ArrayLike) -> OptimizeResult:
    """Winnow's margin ``rho_inf`` (Section 2.2 of the paper), as a linear program.

    ``rho_inf = max_{v in simplex_{2d}} min_i b_i^T v`` with
    ``b_i = y_i (x_i, -x_i) / ||x_i||_inf`` (features duplicated so that nonnegative
    weights can carry either sign). Solved with :func:`scipy.optimize.linprog` (HiGHS).

    Returns
    -------
    OptimizeResult
        ``rho`` and ``w = v[:d] - v[d:]`` (with ``||w||_1 <= 1``).

    Examples
    --------
    >>> import numpy as np, kperc
    >>> X, y = np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([1, -1])
    >>> res = kperc.linf_margin(X, y)
    >>> round(res.rho, 4), res.w.round(4).tolist()
    (0.25, [-0.5, 0.5])
    """
    X, y = check_Xy(X, y)
    ninf = np.max(np.abs(X), axis=1)
    _check_diag(ninf)
    Bm = np.hstack([X, -X]) * (y / ninf)[:, None]
    n, D = Bm.shape
    # variables (v, t): maximise t  s.t.  t - b_i^T v <= 0, sum v = 1, v >= 0
    c = np.zeros(D + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-Bm, np.ones((n, 1))])
    A_eq = np.zeros((1, D + 1))
    A_eq[0, :D] = 1.0
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(n),
        A_eq=A_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * D + [(None, None)],
        method="highs",
    )
    if not res.success:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"linprog failed: {res.message}")
    v = res.x[:D]
    d = X.shape[1]
    return OptimizeResult(rho=float(-res.fun), w=v[:d] - v[d:], v=v)


def dist_to_witness(G: GramLike, q: ArrayLike) -> OptimizeResult:
    """Euclidean distance from ``q`` to ``W = {p in simplex : G p = 0}`` (Lemma 7).

    With ``G = B^T B`` (:func:`gram_factor`, ``B`` of shape ``(r, n)``), the distance
    solves the convex quadratic program

        ``min 1/2 ||p - q||_2^2``  s.t.  ``B p = 0``, ``1^T p = 1``, ``p >= 0``,

    whose constraint matrix has ``O(n r)`` nonzeros. It is solved by the Clarabel
    interior-point solver, then polished on the active set: on the support ``S`` of the
    solution the problem is the projection of ``q_S`` onto an affine subspace, solved in
    closed form (a few primal-dual active-set steps fix a misjudged support). If no
    polished point is feasible up to rounding, the relaxation ``||B p|| <= tau`` (a
    second-order cone, ``tau`` the rounding floor of ``||B p||`` on ``W``, which
    includes the error of the computed factor) is solved and polished instead.

    The answer is bracketed (``bracket == "W"``): ``dist`` is the distance to the
    returned witness ``w``, which is feasible up to rounding (``w >= 0``, ``sum w = 1``,
    ``||B w|| = residual`` at most the rounding floor), so it is an upper bound;
    ``dist_lower`` is the Lagrange dual at the multipliers, a lower bound by weak
    duality (evaluated in long double, less a bound on its rounding).
    ``gap = dist - dist_lower`` certifies the accuracy.

    If no point feasible up to rounding was found (``polished`` False and ``residual``
    above the floor), ``w`` is only a point of the relaxation
    ``{p in simplex : ||B p|| <= residual}``, which contains ``W``: ``dist`` can then be
    *below* ``dist(q, W)`` and bounds nothing about it. Such a result says so:
    ``bracket == "relaxation"``, ``gap = inf``, and ``dist_lower`` (the dual bound of the
    relaxation with ``tau`` at the floor, valid for ``W`` since ``W`` lies inside it) is
    the only claim: ``dist_lower <= dist(q, W)``.

    Parameters
    ----------
    G : array_like, LinearOperator or GramOperator
        The Gram matrix of the signed normalised points, shape ``(n, n)``.
    q : array_like
        A point of the simplex, shape ``(n,)``.

    Returns
    -------
    OptimizeResult
        ``dist`` (``inf`` when ``W`` is empty, i.e. the problem is separable), ``w`` (the
        nearest witness), ``residual`` (``||B w||``; ``min ||B p||`` over the simplex when
        ``W`` is empty), ``dist_lower`` (a lower bound on the distance from the dual),
        ``gap`` (``dist - dist_lower``; ``inf`` when ``w`` is not in ``W``), ``bracket``
        (``"W"`` when ``dist_lower <= dist(q, W) <= dist``, ``"relaxation"`` when only
        ``dist_lower <= dist(q, W)`` holds, see above), ``status`` (the interior-point
        solver's) and ``polished`` (whether ``w`` solves the problem on its support
        exactly).

    Examples
    --------
    >>> import numpy as np, kperc
    >>> G = kperc.gram_matrix(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), [1, -1, 1])
    >>> res = kperc.dist_to_witness(G, np.full(3, 1 / 3))
    >>> round(res.dist, 4), res.w.round(4).tolist()
    (0.4082, [0.5, 0.5, 0.0])
    >>> bool(res.dist_lower <= res.dist <= res.dist_lower + 1e-9)
    True
    """
    B = gram_factor(G)
    r, n = B.shape
    q = check_simplex(q, n)
    value, p0 = min_norm_point(B)
    if value > ZERO_TOL:
        return OptimizeResult(
            dist=np.inf,
            w=None,
            residual=value,
            dist_lower=np.inf,
            gap=0.0,
            bracket="W",
            status="separable",
            polished=False,
        )
    feas_tol = _feasibility_tol(B, eig_factor=not isinstance(G, GramOperator))
    w, lam, status = _projection_qp(B, q, 0.0)
    w, lower, polished = _polish_active_set(B, q, w, lam, feas_tol=feas_tol)
    lower_relaxed = 0.0
    if not polished:
        # The interior point did not converge or its support could not be polished
        # (``W`` thinner than rounding): solve the relaxation ``||B p|| <= tau``, with
        # ``tau`` the rounding floor or the attained ``min ||B p||``; its dual bound is a
        # lower bound for ``W`` too, since ``W`` lies inside the relaxation (``feas_tol``
        # bounds ``||B w||`` on ``W``, the factor's error included).
        tau = max(value, feas_tol)
        w2, lam2, status = _projection_qp(B, q, tau)
        w2, lower_relaxed, polished = _polish_active_set(B, q, w2, lam2, tau=tau, feas_tol=feas_tol)
        # the last resort is the minimum-norm point found above (``||B p0|| <= ZERO_TOL``)
        w = w2 if np.all(np.isfinite(w2)) else p0
    dist = float(np.linalg.norm(w - q))
    residual = float(np.linalg.norm(B @ w))
    if polished or residual <= feas_tol:
        # w is in W up to rounding, so dist is an upper bound; the duals stay lower bounds,
        # and dist < lower only when rounding in ``B w = 0`` is magnified by large
        # multipliers (thin witness sets)
        lower = min(max(lower, lower_relaxed), dist)
        bracket, gap = "W", dist - lower
    else:
        # w is a point of the relaxation only: dist may lie below dist(q, W). The dual of
        # the exact ``B p = 0`` is a bound for the computed factor's null space, which may
        # miss W by the factor's error; the relaxation's bound holds for W itself.
        lower = lower_relaxed
        bracket, gap = "relaxation", np.inf
    return OptimizeResult(
        dist=dist,
        w=w,
        residual=residual,
        dist_lower=lower,
        gap=gap,
        bracket=bracket,
        status=status,
        polished=polished,
    )


def _feasibility_tol(B: np.ndarray, *, eig_factor: bool = True) -> float:
    """Rounding floor of ``||B w||`` (and of ``|1^T w - 1|``) for a witness ``w`` of ``W``.

    Two errors add up. Evaluating ``B p`` for ``p`` in the simplex rounds by at most
    about ``n eps ||B||`` (here ``64 n eps max(1, ||B||)``). And a factor computed from
    ``G`` by :func:`numpy.linalg.eigh` (``eig_factor``) annihilates the null vectors of
    ``G`` only up to its own error: the computed eigenpairs are exact for ``G + E`` with
    ``||E|| <= p(n) eps ||G||`` (backward stability; ``p(n) = n`` here), so
    ``(G + E) V = V Lam`` gives, for ``G w = 0``, ``B w = Lam^(1/2) V^T w =
    Lam^(-1/2) V^T E w``, hence ``||B w|| <= n eps ||B||^2 ||w|| / s_min(B)`` with
    ``||G|| = ||B||^2``, ``s_min(B)`` the smallest kept singular value and ``||w|| <= 1``
    on the simplex. With small genuine eigenvalues kept (an RBF kernel, ``s_min`` near
    ``sqrt(RANK_TOL n ||G||)``) this term exceeds the first one: exactly dependent
    columns of ``G`` (a point repeated with the opposite label) cancel in ``B`` only to
    about ``eps ||B||^2 / s_min``, a size that depends on the LAPACK build. A factor
    made of the stored points of a :class:`~kperc.GramOperator` has no such error.
    """
    r, n = B.shape
    if not r:
        return 64 * n * np.finfo(float).eps
    sv = np.linalg.svd(B, compute_uv=False)
    eps = np.finfo(float).eps
    tol = 64 * n * eps * max(1.0, float(sv[0]))
    if eig_factor and sv[-1] > 0.0:
        tol += n * eps * float(sv[0]) ** 2 / float(sv[-1])
    return tol


def _projection_qp(B: np.ndarray, q: np.ndarray, tau: float) -> tuple[np.ndarray, np.ndarray, str]:
    """Clarabel on ``min 1/2||p - q||^2`` s.t. ``||B p|| <= tau``, ``1^T p = 1``, ``p >= 0``.

    ``tau = 0`` is the QP with ``B p = 0`` (a zero cone); ``tau > 0`` a second-order cone.
    Either way the constraint matrix holds ``B`` once: ``O(n r)`` nonzeros. Returns the
    primal solution (clipped at 0; NaN when the solver gave none), the multipliers
    ``lam = (y, t)`` of ``B p`` and ``1^T p = 1`` (stationarity:
    ``p - q + B^T y + t 1 - z = 0`` with ``z >= 0``) and the solver's status.
    """
    import clarabel
    from scipy import sparse

    r, n = B.shape
    P = sparse.identity(n, format="csc")
    one = sparse.csc_matrix(np.ones((1, n)))
    neg_eye = -sparse.identity(n, format="csc")
    if tau == 0.0:
        A = sparse.vstack([sparse.csc_matrix(B), one, neg_eye], format="csc")
        b = np.zeros(r + 1 + n)
        b[r] = 1.0
        cones = [clarabel.ZeroConeT(r + 1), clarabel.NonnegativeConeT(n)]
    else:
        # s = (tau, B p) in the second-order cone, written s = b - A p
        A = sparse.vstack(
            [one, sparse.csc_matrix((1, n)), sparse.csc_matrix(-B), neg_eye], format="csc"
        )
        b = np.zeros(r + 2 + n)
        b[0], b[1] = 1.0, tau
        cones = [
            clarabel.ZeroConeT(1),
            clarabel.SecondOrderConeT(r + 1),
            clarabel.NonnegativeConeT(n),
        ]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    if hasattr(settings, "max_threads"):  # clarabel >= 0.10 (multithreaded factorisation)
        settings.max_threads = 1  # deterministic, and the problems are small
    # Clarabel's default tolerances (1e-8): tighter ones make it diverge once the primal
    # residual stalls at the conditioning of B on thin witness sets; the active-set
    # polish then makes the answer exact
    sol = clarabel.DefaultSolver(P, -q, A, b, cones, settings).solve()
    status = str(sol.status)
    x = np.asarray(sol.x, dtype=float)
    z = np.asarray(sol.z, dtype=float)
    if tau == 0.0:
        lam = z[: r + 1]
    else:
        lam = np.concatenate([-z[2 : r + 2], z[:1]])
    if x.shape != (n,) or not np.all(np.isfinite(x)):
        x = np.full(n, np.nan)
    if not np.all(np.isfinite(lam)):
        lam = np.zeros(r + 1)
    return np.clip(x, 0.0, None), lam, status


def _projection_on_support(
    C: np.ndarray, d: np.ndarray, qS: np.ndarray, lam0: np.ndarray, tol: float
) -> tuple[np.ndarray, np.ndarray]:
    """Nearest point ``x`` to ``qS`` of ``{x : C x = d}``, and multipliers ``lam``.

    ``x = qS - C^T lam``. From one SVD of ``C``, whose singular values at or below
    ``tol`` (the rounding floor of the factor) count as zero: a witness set makes the
    columns of ``C`` dependent, and their computed factor is dependent only up to
    rounding. When ``C^T`` has a null space the multipliers are not unique; the ones
    nearest to ``lam0`` are returned.
    """
    U, s, Vt = np.linalg.svd(C, full_matrices=False)
    k = int(np.sum(s > tol))
    U, s, Vt = U[:, :k], s[:k], Vt[:k]
    xp = Vt.T @ ((U.T @ d) / s)
    v = qS - xp
    x = xp + v - Vt.T @ (Vt @ v)
    lam = lam0 + U @ ((Vt @ ((qS - x) - C.T @ lam0)) / s)
    return x, lam


def _polish_active_set(
    B: np.ndarray,
    q: np.ndarray,
    w: np.ndarray,
    lam: np.ndarray,
    tau: float = 0.0,
    feas_tol: float | None = None,
):
    """Exact solution on the active set guessed from the interior-point solution.

    Primal-dual active-set steps from the support ``S = {w_i > z_i}``: project ``q_S``
    onto ``{B_S x = 0, 1^T x = 1}`` (closed form), then drop the indices where ``x < 0``
    and add those whose bound multiplier ``z_i = (B^T y + t)_i - q_i`` is negative. Every
    feasible point met is a candidate (the nearest to ``q`` is kept) and every set of
    multipliers gives a dual lower bound (the largest is kept); the steps stop once the
    two meet. Returns ``(w, lower, polished)``; ``w`` is the solver's point when no step
    gave a point feasible up to rounding (``polished`` is then False). ``lower`` is a
    lower bound on the distance to ``{p in simplex : ||B p|| <= tau}``.
    """
    r, n = B.shape
    if not np.all(np.isfinite(w)):
        return w, _dual_lower_bound(B, q, lam, tau), False
    Bt = np.vstack([B, np.ones((1, n))])
    d = np.zeros(r + 1)
    d[-1] = 1.0
    if feas_tol is None:
        feas_tol = _feasibility_tol(B)
    z_tol = 64 * n * np.finfo(float).eps * (1.0 + float(np.abs(lam).max(initial=0.0)))
    best, best_dist, polished = w, float(np.linalg.norm(w - q)), False
    lower = _dual_lower_bound(B, q, lam, tau)
    S = w > np.clip(Bt.T @ lam - q + w, 0.0, None)
    if not S.any():
        S = w >= w.max()
    for _ in range(10):
        # The columns of a computed factor that a witness makes dependent are dependent
        # only up to the factor's own error (an RBF kernel's small eigen-directions), which
        # ``feas_tol`` bounds: the same number is the rank cut and the feasibility test
        xS, lam_S = _projection_on_support(Bt[:, S], d, q[S], lam, feas_tol)
        x = np.zeros(n)
        x[S] = xS
        lower = max(lower, _dual_lower_bound(B, q, lam_S, tau))
        feasible = x.min() >= -feas_tol and float(np.linalg.norm(Bt @ x - d)) <= feas_tol
        z = Bt.T @ lam_S - q
        z[S] = 0.0
        neg_x = S & (x < 0.0)
        neg_z = ~S & (z < -z_tol)
        if feasible:
            x = np.clip(x, 0.0, None)
            x /= x.sum()
            dx = float(np.linalg.norm(x - q))
            if not polished or dx < best_dist:
                best, best_dist, polished = x, dx, True
        if polished and best_dist - lower <= 1e-12 * max(1.0, best_dist):
            break
        if not (neg_x.any() or neg_z.any()):
            break
        S = (S & ~neg_x) | neg_z
        if not S.any():
            break
    if not polished:
        best = w / w.sum() if w.sum() > 0 else w
    elif best_dist - lower > 1e-12 * max(1.0, best_dist):
        lower = max(lower, _dual_ladder(Bt, q, best, lam, tau, feas_tol))
    return best, lower, polished


def _dual_ladder(
    Bt: np.ndarray, q: np.ndarray, w: np.ndarray, lam0: np.ndarray, tau: float, base: float
) -> float:
    """The best dual lower bound from multipliers fitted to the witness ``w``.

    At the optimum, ``q_S - w_S = B_S^T y + t`` on the support ``S`` of ``w``. The columns
    that a witness makes dependent are dependent in a computed factor only up to its error
    (singular values of 1e-12 whose size depends on the BLAS kernel that computed the
    factor), so a fixed rank cut can leave a residual of 1e-9 in this system, and the
    bound loses as much. Here the multipliers nearest to the solver's ``lam0`` that solve
    the system are computed for every cut of a ladder (0, then the rounding floor times
    powers of 10); any multipliers give a valid bound (weak duality), so the largest is
    kept.
    """
    S = w > 0
    C = Bt[:, S]
    U, sv, Vt = np.linalg.svd(C, full_matrices=False)
    coef = Vt @ ((q[S] - w[S]) - C.T @ lam0)
    best = 0.0
    for cut in [0.0] + [base * 10.0**k for k in range(0, 7)]:
        keep = sv > cut
        if not keep.any():
            break
        lam = lam0 + U[:, keep] @ (coef[keep] / sv[keep])
        if np.all(np.isfinite(lam)):
            best = max(best, _dual_lower_bound(Bt[:-1], q, lam, tau))
    return best


def _dual_lower_bound(B: np.ndarray, q: np.ndarray, lam: np.ndarray, tau: float = 0.0) -> float:
    """Weak-duality lower bound on ``dist(q, W_tau)`` from multipliers ``lam = (y, t)``.

    ``W_tau = {p in simplex : ||B p|| <= tau}``. For any ``y, t`` and ``z >= 0`` the
    Lagrangian's minimum over ``p`` is a lower bound on ``1/2 dist^2``; the best ``z``
    gives ``1/2 ||q||^2 - t - 1/2 ||(q - B^T y - t)_+||^2 - tau ||y||``, evaluated in long
    double with a bound on its rounding subtracted.
    """
    r, n = B.shape
    if not np.all(np.isfinite(lam)):
        return 0.0
    eps = float(np.finfo(np.longdouble).eps)
    Bl = B.astype(np.longdouble)
    y = np.asarray(lam[:-1], dtype=np.longdouble)
    t = np.longdouble(lam[-1])
    ql = q.astype(np.longdouble)
    u = Bl.T @ y + t
    h = np.clip(ql - u, 0, None)
    g = 0.5 * np.sum(ql * ql) - t - 0.5 * np.sum(h * h) - tau * np.sqrt(np.sum(y * y))
    # rounding of the evaluation: |error of u_i| <= (r + 2) eps (|B|^T |y| + |t|)_i, and
    # the sums add at most (n + 3) eps times their absolute terms
    err_u = (r + 2) * eps * (np.abs(Bl).T @ np.abs(y) + abs(t))
    err = float(
        (n + 3)
        * eps
        * (0.5 * np.sum(ql * ql) + abs(t) + 0.5 * np.sum(h * h) + tau * np.sqrt(np.sum(y * y)))
        + np.sum((h + err_u) * err_u)
    )
    g = float(g) - err
    if not np.isfinite(g) or g <= 0.0:
        return 0.0
    return math.sqrt(2.0 * g) * (1.0 - 4 * np.finfo(float).eps)

"""An exact, certified answer to "are these data separable?", by linear programming.

Gordan's theorem (the alternative behind Section 2 of Ramdas & Pena, 2014): for signed
normalised points ``a_i``, exactly one of the two holds,

* a separator: some ``w`` with ``<w, a_i> > 0`` for every ``i``;
* a certificate: some ``p`` in the simplex with ``sum_i p_i a_i = 0``
  (in kernel form: ``||p||_G = 0``).

A linear program gives both objects at once: its solution is a candidate separator and
its dual solution a candidate certificate (for kernels a ridge solve and the max-margin
direction of :func:`kperc.margin_details` give more candidate separators). None is
trusted as it comes out of the solver (HiGHS, through :func:`scipy.optimize.linprog`,
works to tolerances near ``1e-7``): each is checked afterwards against the data as
given, in floating point with a bound on the rounding error or in exact arithmetic,
and only a check that passes gives an answer. "Not separable" needs an exact
certificate; a certificate up to rounding gives "undecided" with its bound.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.optimize import OptimizeResult, linprog

from ._exact import ETA as _ETA
from ._exact import fraction_row_dots, lossless_row_shifts, scale_rows_exactly
from ._typing import ArrayLike, KernelLike
from ._validation import check_labels, check_X, row_norms

__all__ = ["SeparabilityResult", "is_separable", "conflicting_pairs"]

_U = np.finfo(np.float64).eps / 2  # unit round-off of float64
#: The exact check of a linear certificate runs when its support has at most this many
#: points (in machine integers modulo primes, then one exact product: about 0.07 s at 53
#: points of the digits data in 64 dimensions; exact rational elimination, its fallback,
#: costs ``support^2 d`` big-integer operations).
EXACT_MAX_SUPPORT = 64


class SeparabilityResult(OptimizeResult):
    """The answer of :func:`kperc.is_separable`, with the object that proves it.

    A dictionary with attribute access (a :class:`scipy.optimize.OptimizeResult`).

    Attributes
    ----------
    status : {"separable", "not separable", "undecided"}
        The answer. "separable" only with a separator checked against the data beyond
        rounding (exactly where rounding cannot decide); "not separable" only with an
        exact proof (``exact`` is then True); "undecided" otherwise: a margin so small,
        positive or not, that double precision cannot tell. An "undecided" answer may
        carry a certificate ``p`` with its bound ``margin_upper`` (at most ``tol``): no
        separator has a normalised margin above it, but data separable with a smaller
        margin are not told apart from inseparable data, so they are not called "not
        separable".
    separable : bool or None
        True, False, or None for "undecided".
    success : bool
        Whether the question was decided.
    message : str
        A sentence that says what was proved, and how.
    w : ndarray of shape (n_features,) or None
        Linear kernel: a separator, ``y_i w . x_i > 0`` for every ``i`` (with the
        appended constant feature last when ``fit_intercept``).
    alpha : ndarray of shape (n_samples,) or None
        Other kernels: a separator in kernel form, ``(G* alpha)_i > 0`` for every ``i``
        (the function ``sum_j alpha_j y_j K(x_j, .)`` separates), with
        ``||alpha||_1 = 1``: the solution of ``(G + lambda I) alpha = 1`` (signs mixed)
        when that separates, else a point of the simplex from the linear program.
    margin_lower : float or None
        With a separator: a lower bound on the normalised margin
        ``min_i y_i w . x_i / (||w|| ||x_i||)`` of that separator (so on the margin of
        the data), rounding included (for other kernels, of the exact kernel matrix of
        the data, the rounding of its construction included).
    p : ndarray of shape (n_samples,) or None
        A point of the simplex whose signed normalised points (nearly) cancel,
        ``sum_i p_i y_i x_i / ||x_i|| ~ 0`` (kernel form: ``||p||_G ~ 0``). With "not
        separable" the signed points in its support cancel exactly with positive
        weights (``p`` is their floating-point approximation); with "undecided" it
        proves the bound ``margin_upper``.
    margin_upper : float or None
        With a certificate ``p``: an upper bound on the normalised margin of the data,
        rounding included. It is 0 when ``exact``.
    exact : bool
        Whether the certificate is exact (always so with "not separable"): a point
        repeated with both labels (any kernel), a zero point (linear kernel), or a
        certificate whose cancellation was verified in exact arithmetic on the data
        as given (linear kernel).
    conflicts : ndarray of shape (n_conflicts, 2)
        Pairs ``(i, j)`` of training points with identical features and opposite
        labels; each pair makes the data inseparable for every kernel.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    >>> res = kperc.is_separable(X, [1, 1, -1, -1], fit_intercept=True)  # XOR
    >>> res.status, res.separable, res.exact, float(res.margin_upper)
    ('not separable', False, True, 0.0)
    >>> res.p.round(3).tolist()  # the four signed points cancel with equal weights
    [0.25, 0.25, 0.25, 0.25]
    """


def conflicting_pairs(X, y) -> np.ndarray:
    """Pairs of points with identical features and opposite labels.

    Each such pair makes the data inseparable for every kernel: the two signed points
    cancel exactly. Found in ``O(n log n)`` by sorting the rows.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.

    Returns
    -------
    ndarray of int, shape (n_conflicts, 2)
        One pair ``(i, j)``, ``i < j``, per point ``i`` (the first occurrence of its
        features) and each later copy ``j`` with the other label.

    Examples
    --------
    >>> from kperc._separable import conflicting_pairs
    >>> conflicting_pairs([[0.0, 1.0], [2.0, 3.0], [0.0, 1.0]], [1, -1, -1]).tolist()
    [[0, 2]]
    """
    X = check_X(X)
    y = check_labels(y)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels.")
    return _conflicting_pairs(X, y)


def _conflicting_pairs(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`conflicting_pairs` without input checks (finite ``X``, labels +-1).

    Each row gets a key, a fixed random combination of its entries (of at most 32 of its
    columns) computed column by column (:func:`kperc._kernel_values.row_keys`: identical rows
    get equal keys); sorting the keys
    brings identical rows together in ``O(n log n + n d)``. Only the runs of equal keys
    that hold both labels are compared exactly, row by row. (``np.unique(X, axis=0)``
    would do it all, but takes about 30 s at ``n = 10^6``, ``d = 10``.)
    """
    from ._kernel_values import row_keys

    n = X.shape[0]
    empty = np.zeros((0, 2), dtype=np.intp)
    if n < 2:
        return empty
    key = row_keys(X)  # at most 32 columns: a Python loop over 2308 took 3.6 ms
    order = np.argsort(key, kind="stable")
    ks = key[order]
    starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    sizes = np.diff(np.r_[starts, n])
    pos = np.add.reduceat((y[order] > 0).astype(np.intp), starts)
    mixed = np.flatnonzero((sizes >= 2) & (pos > 0) & (pos < sizes))
    pairs: set[tuple[int, int]] = set()
    for run in mixed:
        cand = order[starts[run] : starts[run] + sizes[run]]
        _, inv = np.unique(X[cand], axis=0, return_inverse=True)
        inv = np.asarray(inv).reshape(-1)
        for g in np.unique(inv):
            group = np.sort(cand[inv == g])
            p, m = group[y[group] > 0], group[y[group] < 0]
            if p.size and m.size:  # every copy paired with the first of the other label
                pairs.update((min(int(i), int(m[0])), max(int(i), int(m[0]))) for i in p)
                pairs.update((min(int(j), int(p[0])), max(int(j), int(p[0]))) for j in m)
    if not pairs:
        return empty
    return np.array(sorted(pairs), dtype=np.intp).reshape(-1, 2)


def is_separable(
    X: ArrayLike,
    y: ArrayLike,
    *,
    kernel: KernelLike = "linear",
    fit_intercept: bool = False,
    tol: float | None = None,
    **kernel_params: Any,
) -> SeparabilityResult:
    """Decide whether labelled data are separable, with a checked proof either way.

    "Separable" means that some ``w`` in the kernel's feature space has
    ``y_i <w, phi(x_i)> > 0`` for every point (through the origin, as in the paper;
    ``fit_intercept=True`` appends a constant feature, which decides separability by an
    affine function for the linear kernel).

    One linear program, solved by HiGHS (:func:`scipy.optimize.linprog`), maximises the
    smallest value ``y_i w . x_i`` over a box (linear kernel; rows normalised) or
    ``min_i (G alpha)_i`` over the simplex (other kernels, on
    ``G = kperc.gram_matrix(X, y, kernel)``); its dual solution is a point ``p`` of the
    simplex that makes the signed points nearly cancel. The answer is

    * "separable" only when the separator passes a check of ``y_i w . x_i > 0`` (or
      ``(G alpha)_i > 0``) beyond the rounding error of the products;
    * "not separable" only with an exact certificate ``p``: a point repeated with
      both labels, a zero point, or an exact rational check that the signed points in
      its support cancel with positive weights (linear kernel);
    * "undecided" otherwise, with ``p`` and ``margin_upper`` when a certificate up to
      rounding bounds the margin by at most ``tol``: separable data with a margin
      below that bound are undecided, never "not separable".

    For a kernel other than the linear one, both checks hold for the exact kernel
    matrix ``G*`` of the data, not only for its rounded copy ``G``: they count the
    bound ``delta`` on ``|G_ij - G*_ij|`` that :func:`kperc.gram_matrix` derives from its
    construction, so a separator that lives in a direction created by that rounding is
    not returned. A kernel callable's values are taken as given (``delta = 0``).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.
    kernel : {"linear", "rbf", "poly"} or callable, default="linear"
        As for :func:`kperc.gram_matrix`. Non-linear kernels build the dense
        ``n x n`` matrix (timings in Notes).
    fit_intercept : bool, default=False
        Append a constant feature 1 to every point.
    tol : float or None, default=None
        Largest ``margin_upper`` of a certificate that is not exact for which that
        certificate is reported (with "undecided"). None: the rounding level,
        ``1e3 (n + d) u`` for the linear kernel (``u = 2^-53``) and, for other kernels,
        4 times the smallest bound on ``||p||_G`` that can be certified for the data's
        exact kernel matrix (about
        ``sqrt(2 n u_ld + delta)``: long double ``u_ld``, and ``delta`` the rounding of
        the entries of ``G``, see :func:`kperc.gram_matrix`).
    **kernel_params
        ``gamma``, ``degree``, ``coef0`` (see :func:`kperc.gram_matrix`).

    Returns
    -------
    SeparabilityResult
        ``status``, ``separable``, the separator (``w`` or ``alpha``) or certificate
        (``p``) with its bound, ``exact`` and the conflicting pairs.

    See Also
    --------
    kperc.margin : the exact margin (a quadratic program, slower).

    Notes
    -----
    *Linear kernel.* The LP runs on the rows scaled by powers of two (only as far as
    that is exact) and normalised; when that decides nothing and the columns have
    different scales, once more on columns scaled by powers of two (separability, not
    the margin, is invariant under positive column scalings). Every separator is then
    checked against the data as given, in floating point with a rounding bound and in
    exact rational arithmetic where that bound cannot decide, so data whose rows span
    more than the exponent range (``[2^1000, 2^-80]``) or hold subnormals are decided
    correctly or called "undecided". ``margin_lower`` is 0.0 when the margin is below
    ``2^-1000`` (too small for a relative rounding bound). At ``n = 2000`` points the
    decision takes well under a second.

    *Other kernels.* First ``(G + lambda I) alpha = 1`` is solved by Cholesky for a few
    ridges ``lambda`` (``n^3 / 3`` operations each; the RBF kernel's matrix of distinct
    points is positive definite, so this decides most RBF problems); then the LP with
    ``n`` variables and ``n`` dense constraints, whose cost grows faster than ``n^3``
    (about 2 s at ``n = 600`` here; 21.6 s and 82 s at ``n`` near 1500 in issue 36); then,
    as :func:`kperc.margin` does, the max-margin direction from an eigendecomposition
    (``O(n^3)``). Measured on 2 busy cores at ``n = 1500``: planted RBF data and
    ``make_classification`` (``d = 56``) 2 to 5 s, two moons 9 s, each decided by the
    ridge solve; ``bench/test_separable.py`` compares it with the LP alone (at
    ``n = 800``: 0.03 s against 0.3 to 0.55 s).

    *Compared with* :func:`kperc.margin` *on the same kernel matrix.* Both certify for
    the exact kernel matrix of the data. ``margin`` says "separable" when its
    max-margin direction ``p`` has ``(G p)_i`` above the rounding of ``G``; this
    function tries that same direction last, so a margin that ``margin`` certifies is
    also certified here (``margin_lower`` at most ``margin``). Where neither certifies,
    ``margin`` warns and returns 0.0 (status "undecided"), and this function answers
    "undecided" with the bound ``margin_upper`` when it is at most ``tol``.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> X = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -1.5], [-2.0, -0.5]])
    >>> y = np.array([1, 1, -1, -1])
    >>> res = kperc.is_separable(X, y)
    >>> res.status, bool(np.all(y * (X @ res.w) > 0))
    ('separable', True)
    >>> X2 = np.vstack([X, X[:1]])  # the first point again, with the other label
    >>> res = kperc.is_separable(X2, np.append(y, -1))
    >>> res.status, res.exact, res.conflicts.tolist()
    ('not separable', True, [[0, 4]])
    """
    X = check_X(X)
    y = check_labels(y)
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} rows but y has {y.shape[0]} labels; they must describe "
            "the same points."
        )
    if not isinstance(fit_intercept, (bool, np.bool_)):
        raise ValueError(f"fit_intercept must be True or False; got {fit_intercept!r}.")
    if tol is not None:
        from ._validation import check_positive

        tol = check_positive(tol, "tol")
    if fit_intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    linear = isinstance(kernel, str) and kernel == "linear"
    if linear and kernel_params:
        raise ValueError(f"the linear kernel takes no parameters; got {sorted(kernel_params)}.")
    conflicts = _conflicting_pairs(X, y)
    if conflicts.shape[0]:
        i, j = conflicts[0]
        p = np.zeros(X.shape[0])
        p[[i, j]] = 0.5
        return _result(
            "not separable",
            f"not separable, exactly: points {i} and {j} have identical features and "
            f"opposite labels ({conflicts.shape[0]} such pair(s), listed in conflicts), "
            "which no kernel can separate.",
            p=p,
            margin_upper=0.0,
            exact=True,
            conflicts=conflicts,
        )
    if linear:
        return _linear(X, y, tol, conflicts)
    return _kernel(X, y, kernel, kernel_params, tol, conflicts)


def _result(status, message, **fields) -> SeparabilityResult:
    base = {
        "w": None,
        "alpha": None,
        "p": None,
        "margin_lower": None,
        "margin_upper": None,
        "exact": False,
        "conflicts": np.zeros((0, 2), dtype=np.intp),
    }
    base.update(fields)
    sep = {"separable": True, "not separable": False, "undecided": None}[status]
    return SeparabilityResult(
        status=status, separable=sep, success=sep is not None, message=message, **base
    )


def _solve(A_ub, bounds, n_var, eq=None) -> OptimizeResult:
    """``max s`` s.t. ``A_ub z >= s`` (rows), ``z`` in ``bounds``: returns linprog's result.

    Variables ``(z, s)``; the constraints are written ``-A z + s <= 0``.
    """
    m = A_ub.shape[0]
    c = np.zeros(n_var + 1)
    c[-1] = -1.0
    A = np.hstack([-A_ub, np.ones((m, 1))])
    kw = {}
    if eq is not None:
        kw = {"A_eq": np.append(eq, 0.0)[None, :], "b_eq": [1.0]}
    return linprog(
        c,
        A_ub=A,
        b_ub=np.zeros(m),
        bounds=[*bounds, (None, 1.0)],
        method="highs",
        **kw,
    )


def _dual_point(res, n) -> np.ndarray | None:
    """The simplex point of the LP's dual solution (the multipliers of the rows)."""
    marg = getattr(getattr(res, "ineqlin", None), "marginals", None)
    if marg is None or len(marg) != n:
        return None
    p = np.clip(-np.asarray(marg, dtype=np.float64), 0.0, None)
    total = p.sum()
    if not total > 0:
        return None
    return p / total


def _linear(X, y, tol, conflicts) -> SeparabilityResult:
    n, d = X.shape
    zero = np.flatnonzero(~np.any(X != 0, axis=1))
    if zero.size:
        p = np.zeros(n)
        p[zero[0]] = 1.0
        return _result(
            "not separable",
            f"not separable, exactly: point {zero[0]} is the zero vector, which no "
            "linear function through the origin classifies (set fit_intercept=True for "
            "an affine separator).",
            p=p,
            margin_upper=0.0,
            exact=True,
            conflicts=conflicts,
        )
    # First the data's own geometry: each row scaled by a power of two (exactly, see
    # lossless_row_shifts), then to unit norm (rounded), so the LP's dual bounds the
    # normalised margin of the data. Then, if that decides nothing and the columns have
    # different scales, the same LP on columns balanced by powers of two
    # (:func:`_column_shifts`): separability is invariant under positive column scalings
    # (w_j -> w_j / c_j), and columns of scales 2^1000 and 2^-80 no longer round each
    # other away (the margin is not invariant: only the first LP bounds it). Whatever the
    # LPs return is only a candidate: a separator is checked against the user's X
    # (:func:`_certify_separator`), an exact certificate in exact arithmetic on the
    # user's X (:func:`_exact_certificate`).
    c = _column_shifts(X)
    tries = [np.zeros(d, dtype=np.int64)] + ([c] if np.ptp(c) > 0 else [])
    first = None
    first_A = None
    for shift in tries:
        if shift.any():  # x_ij 2^(c_j - m_i), the row's largest shifted exponent m_i
            _, ex = np.frexp(X)
            m = np.max(np.where(X != 0, ex + shift[None, :], np.iinfo(np.int32).min), axis=1)
            Xs = np.ldexp(X, shift[None, :] - m[:, None])  # no overflow; tiny ones underflow
        else:
            Xs = np.ldexp(X, -lossless_row_shifts(X)[:, None])
        norms = row_norms(Xs)
        keep = norms > 0  # all of them, unless a column scaling underflowed a row to 0
        A = np.zeros_like(Xs)
        A[keep] = (y[keep] / norms[keep])[:, None] * Xs[keep]  # signed normalised points
        res = _solve(A[keep], [(-1.0, 1.0)] * d, d)
        if res.status == 0:  # tried even when the LP's value is 0: w may still separate
            w = _to_data_coordinates(np.asarray(res.x[:d], dtype=np.float64), shift)
            cert = _certify_separator(X, y, w)
            if cert is not None:
                w, low = cert
                size = (
                    f"with normalised margin at least {low:.3g}"
                    if low > 0
                    else "with a normalised margin below 2^-1000, too small to bound"
                )
                return _result(
                    "separable",
                    "separable: w separates every point, checked against the data "
                    f"beyond rounding (exactly where rounding could not decide), {size}.",
                    w=w,
                    margin_lower=low,
                    conflicts=conflicts,
                )
        dual = _dual_point(res, int(keep.sum())) if res.status == 0 else None
        if dual is None:
            continue
        p = np.zeros(n)
        p[keep] = _polish_certificate(A[keep], dual)
        if first_A is None:
            first_A = A  # the data's own geometry (rows scaled exactly, then normalised)
        if _exact_certificate(X, y, p):
            if shift.any():  # weights of the column-scaled points: refit on the support
                q = _polish_certificate(first_A, p)
                p = q if _exact_certificate(X, y, q) else p
            return _result(
                "not separable",
                f"not separable, exactly: the {np.count_nonzero(p)} signed points in the "
                "support of p cancel with positive weights, verified in exact arithmetic "
                "on the data (p is a Gordan certificate).",
                p=p,
                margin_upper=0.0,
                exact=True,
                conflicts=conflicts,
            )
        if first is None and not shift.any():
            # only the data's own geometry bounds the normalised margin of the data; the
            # rows of A are the normalised points up to (d + 4) u, underflow included
            first = (p, _linear_certificate_bound(A, p, d))
    limit = 1e3 * (n + d) * _U if tol is None else tol
    if first is not None and first[1] <= limit:
        p, upper = first
        return _result(
            "undecided",
            f"undecided: no separator has normalised margin above {upper:.3g} (p is a "
            "certificate up to rounding), but no separator was found either: the data "
            "are separable with a smaller margin, or not separable, and floating point "
            "cannot tell which.",
            p=p,
            margin_upper=float(upper),
            conflicts=conflicts,
        )
    return _result(
        "undecided",
        "undecided: neither the separator nor the certificate found by the linear program "
        f"passed its check beyond rounding (solver: {res.message.strip()}); the margin is "
        "at the level of rounding error.",
        conflicts=conflicts,
    )


def _column_shifts(X: np.ndarray, rounds: int = 8) -> np.ndarray:
    """Integer exponents ``c_j`` that balance the columns of ``X`` in the geometric
    sense: with row exponents ``r_i``, each nonzero ``log2 |x_ij| + r_i + c_j`` near 0
    (alternating means over the nonzero entries, as in geometric scaling of LPs).

    The column maxima alone are misled by rows of another scale: in
    ``diag(2^r) Z diag(2^c)`` (``Z`` integer) the mean exponents recover ``c`` up to
    the spread of ``Z``, the maxima need not."""
    nz = X != 0
    L = np.where(nz, np.frexp(X)[1], 0).astype(np.float64)
    n_r = np.maximum(nz.sum(axis=1), 1)
    n_c = np.maximum(nz.sum(axis=0), 1)
    c = np.zeros(X.shape[1])
    for _ in range(rounds):
        r = -np.where(nz, L + c[None, :], 0.0).sum(axis=1) / n_r
        c = -np.where(nz, L + r[:, None], 0.0).sum(axis=0) / n_c
    return np.round(c - c.max()).astype(np.int64)


def _to_data_coordinates(w: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """A separator of the columns scaled by ``2^shift`` as one of the data: ``w_j 2^shift_j``,
    times one power of two so that its largest entry is in [0.5, 1) (entries far below
    it may underflow to 0; the check decides)."""
    if not shift.any() or not np.any(w):
        return w
    e = np.frexp(w)[1] + shift
    top = int(np.max(np.where(w != 0, e, np.iinfo(np.int64).min)))
    return np.ldexp(w, shift - top)


def _certify_separator(X, y, w) -> tuple[np.ndarray, float] | None:
    """Check ``y_i x_i . w > 0`` for every point of the data ``X`` as given.

    Returns ``(w, low)``, ``w`` scaled by a power of two, ``low`` a lower bound on its
    normalised margin ``min_i y_i x_i . w / (||x_i|| ||w||)`` (0.0 when that is below
    ``2^-1000``, where relative rounding bounds no longer hold); None when some point is
    not separated.

    The rows are scaled exactly by powers of two (:func:`kperc._exact.scale_rows_exactly`,
    positive: the signs are unchanged). In floating point ``|fl(x . w) - x . w| <=
    gamma_{d+2} |x| . |w| + 2 (d + 1) 2^-1074`` (underflow included); the rows this cannot
    decide (a value within its bound, or an overflow) are decided in exact rational
    arithmetic.
    """
    if not np.all(np.isfinite(w)) or not np.any(w):
        return None
    amax = float(np.max(np.abs(w)))
    w = np.ldexp(w, -math.frexp(amax)[1])  # largest entry in [0.5, 1); this w is returned
    d = X.shape[1]
    Xs, _ = scale_rows_exactly(X)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        vals = y * (Xs @ w)
        err = (d + 2) * _U / (1 - (d + 2) * _U) * (np.abs(Xs) @ np.abs(w)) + 2 * (d + 1) * _ETA
        low = vals - err
    sure = np.isfinite(low) & np.isfinite(err) & (low > 0)
    if np.any(np.isfinite(vals + err) & (vals + err < 0)):
        return None  # some point is certainly on the wrong side
    norms = row_norms(Xs) * (1.0 + 4.0 * (d + 4) * _U)
    wn = float(row_norms(w[None, :])[0]) * (1.0 + 4.0 * (d + 4) * _U)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        row_low = np.where(sure, low, 0.0) / norms
    rest = np.flatnonzero(~sure)
    if rest.size:
        exact = fraction_row_dots(Xs * y[:, None], w, rest)
        if not all(v > 0 for v in exact):
            return None
        for i, v in zip(rest.tolist(), exact, strict=True):
            if math.isfinite(norms[i]):
                q = float(v / Fraction(float(norms[i])))  # correctly rounded
                row_low[i] = np.nextafter(q, 0.0)  # below the exact quotient
    bound = float(np.min(row_low)) / wn * (1.0 - 8 * _U)
    return w, bound if math.isfinite(bound) and bound >= 2.0**-1000 else 0.0


def _linear_certificate_bound(A, p, d) -> float:
    """An upper bound on the normalised margin from a point ``p`` of the simplex.

    For a unit ``w``, ``min_i w . a_i <= sum_i p_i w . a_i / sum_i p_i
    <= ||A^T p|| / sum_i p_i``. The rows ``a_i`` of ``A`` are the exactly normalised
    points up to ``(d + 4) u`` relative error each, and the sum over ``n`` points adds
    ``gamma_n``: both enter as ``(n + d + 8) u sum_i p_i``.
    """
    n = A.shape[0]
    r = float(np.linalg.norm(A.T @ p))
    s = float(p.sum())
    err = (n + d + 8) * _U * s
    return (r + err) * (1 + 4 * _U) / (s * (1 - (n + 2) * _U))


def _polish_certificate(A, p) -> np.ndarray:
    """Refine the solver's ``p`` on its support: the least ``||A_S^T q||`` with ``sum q = 1``.

    The solver's dual is accurate to about ``1e-7``; on its support ``S`` the exact
    certificate solves a small least-squares problem. The refined point is kept only if
    it stays in the simplex and cancels better.
    """
    S = np.flatnonzero(p > 1e-9 * p.max())
    M = A[S].T  # d x k
    k = S.size
    # minimise ||M q||^2 s.t. sum q = 1: the KKT system [[M^T M, 1], [1^T, 0]]
    K = np.zeros((k + 1, k + 1))
    K[:k, :k] = M.T @ M
    K[:k, k] = K[k, :k] = 1.0
    rhs = np.zeros(k + 1)
    rhs[k] = 1.0
    try:
        sol = np.linalg.lstsq(K, rhs, rcond=None)[0][:k]
    except np.linalg.LinAlgError:  # pragma: no cover - lstsq does not raise on singular K
        return p
    if not (np.all(np.isfinite(sol)) and np.all(sol >= 0) and sol.sum() > 0):
        return p
    q = np.zeros_like(p)
    q[S] = sol / sol.sum()
    if np.linalg.norm(A.T @ q) <= np.linalg.norm(A.T @ p):
        return q
    return p


def _integer_columns(X, y, S) -> list[list[int]] | None:
    """``[y_i x_i]_{i in S}`` as exact integers (all scaled by one power of two).

    Every double is ``m 2^e`` with an integer ``m``; multiplying all entries by
    ``2^-min(e)`` makes them integers without changing the null space. None when the
    exponents span too wide a range for that to be cheap.
    """
    parts = _integer_parts(X[S] * y[S, None])
    if parts is None:
        return None
    m, t = parts
    return [
        [int(a) << int(b) for a, b in zip(mr, tr, strict=True)] for mr, tr in zip(m, t, strict=True)
    ]


def _integer_parts(vals: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``vals`` (finite doubles) as ``m * 2^t`` exactly, with one power of two divided
    out of all entries: ``m`` odd or 0 (int64, ``|m| < 2^53``), ``t >= 0`` (int64), and
    ``t = 0`` for some nonzero entry. None when ``t`` would exceed 4096."""
    f, e = np.frexp(vals)
    m = np.ldexp(f, 53).astype(np.int64)  # exact: |f| < 1 has at most 53 bits
    t = e.astype(np.int64) - 53
    nz = m != 0
    if not nz.any():
        return np.zeros_like(m), np.zeros_like(t)
    low = np.where(nz, m & -m, 1)  # lowest set bit of each mantissa
    tz = np.round(np.log2(np.abs(low).astype(np.float64))).astype(np.int64)
    m = np.where(nz, m >> tz, 0)
    t = np.where(nz, t + tz, 0)
    t = np.where(nz, t - int(t[nz].min()), 0)
    if int(t.max()) > 4096:
        return None
    return m, t


def _exact_certificate(X, y, p) -> bool:
    """Whether the support of ``p`` carries an exact Gordan certificate.

    On the support ``S`` (at most :data:`EXACT_MAX_SUPPORT` points) the matrix
    ``M = [y_i x_i]_{i in S}^T`` is an integer matrix (the data are binary fractions,
    scaled by one power of two). The answer is True when ``M`` has a one-dimensional null
    space spanned by a vector ``q`` of one sign, ``M q = 0`` checked exactly: then no
    ``w`` has ``y_i w . x_i > 0`` on ``S``.

    :func:`_modular_certificate` decides it in machine integers (residues modulo primes,
    then ``M q = 0`` verified in exact integers); when it cannot decide (a prime divides a
    minor it needs, or the integers are too long), exact rational elimination
    (:func:`_bareiss_certificate`) does.
    """
    S = np.flatnonzero(p > 0)
    if S.size == 0 or S.size > EXACT_MAX_SUPPORT or S.size > X.shape[1] + 1:
        return False  # more than d + 1 points: a null space of dimension 2 or more
    fast = _modular_certificate(X, y, S)
    if fast is not None:
        return fast
    return _bareiss_certificate(X, y, S)


def _bareiss_certificate(X, y, S) -> bool:
    """:func:`_exact_certificate` by fraction-free Gaussian elimination in Python integers,
    then back-substitution in rationals (slow: ``k^2 d`` big-integer operations for a
    support of ``k`` points in ``d`` dimensions)."""
    cols = _integer_columns(X, y, S)
    if cols is None:
        return False
    d, k = X.shape[1], S.size
    M = [[cols[j][r] for j in range(k)] for r in range(d)]  # d x k, integers
    orig = [row[:] for row in M]
    pivots, row, prev = [], 0, 1
    for col in range(k):  # Bareiss: every division below is exact
        piv = next((r for r in range(row, d) if M[r][col] != 0), None)
        if piv is None:
            continue
        M[row], M[piv] = M[piv], M[row]
        top = M[row]
        for r in range(row + 1, d):
            cur = M[r]
            f = cur[col]
            M[r] = [(top[col] * cur[j] - f * top[j]) // prev for j in range(k)]
        prev = top[col]
        pivots.append(col)
        row += 1
        if row == d:
            break
    free = [c for c in range(k) if c not in pivots]
    if len(free) != 1:
        return False  # a null space of another dimension: no single certificate here
    q = [Fraction(0)] * k
    q[free[0]] = Fraction(1)
    for r in range(len(pivots) - 1, -1, -1):
        c = pivots[r]
        acc = sum((M[r][j] * q[j] for j in range(c + 1, k) if q[j]), Fraction(0))
        q[c] = -acc / M[r][c]
    signs = {(v > 0) - (v < 0) for v in q}
    if signs not in ({1}, {-1}):
        return False
    den = math.lcm(*(v.denominator for v in q))
    qi = [int(v * den) for v in q]
    return all(sum(a * b for a, b in zip(r_, qi, strict=True)) == 0 for r_ in orig)


#: :func:`_modular_certificate` leaves to exact rational elimination a support whose
#: null vector would need more primes than this (integers of more than about 6000 bits).
MODULAR_MAX_PRIMES = 200


@functools.lru_cache(maxsize=1)
def _primes() -> np.ndarray:
    """The largest primes below ``2^31``, in decreasing order (products of two residues
    fit in int64)."""
    hi = 2**31
    lo = hi - 200_000
    sieve = np.ones(46_342, dtype=bool)  # sqrt(2^31) < 46342
    sieve[:2] = False
    for q in range(2, 216):  # 216^2 > 46342
        if sieve[q]:
            sieve[q * q :: q] = False
    is_p = np.ones(hi - lo, dtype=bool)
    for sp in np.flatnonzero(sieve).tolist():
        is_p[(-lo) % sp :: sp] = False
    return (lo + np.flatnonzero(is_p))[::-1].astype(np.int64)


def _residues(m: np.ndarray, t: np.ndarray, P: np.ndarray) -> np.ndarray:
    """``m 2^t mod P[s]`` for each prime (shape ``(len(P), *m.shape)``; ``t >= 0``)."""
    pow2 = np.ones((P.size, int(t.max(initial=0)) + 1), dtype=np.int64)
    for e in range(1, pow2.shape[1]):  # 2^e mod p by doubling
        pow2[:, e] = 2 * pow2[:, e - 1] % P
    shape = (P.size,) + (1,) * m.ndim
    return (m[None] % P.reshape(shape)) * pow2[:, t] % P.reshape(shape)


def _modular_certificate(X, y, S) -> bool | None:
    """:func:`_exact_certificate` in machine integers, or None when it cannot decide.

    With ``M`` the ``d x k`` integer matrix of the support:

    1. Elimination modulo one prime ``p`` gives the rank of ``M mod p``, at most the
       rank of ``M``. Rank ``k`` proves the null space trivial (False). Rank ``k - 1``
       gives ``k - 1`` rows ``R`` and columns ``C`` with ``det M[R, C] != 0``; a smaller
       rank cannot decide (None).
    2. The integer null vector of ``M[R]`` by Cramer's rule, ``v_C = -adj(M[R, C])
       M[R, f]`` and ``v_f = det M[R, C]`` (``f`` the free column), is computed modulo
       enough primes that their product exceeds twice Hadamard's bound on its entries,
       then recovered by the Chinese remainder theorem.
    3. ``M v = 0`` is checked in exact integers on all ``d`` rows. It then spans the null
       space of ``M`` (of dimension at most 1 by step 1), and the answer is whether it
       has one sign. A failed check (an unlucky prime) gives None.
    """
    parts = _integer_parts((X[S] * y[S, None]).T)  # d x k
    if parts is None:
        return None
    m, t = parts
    d, k = m.shape
    primes = _primes()
    p0 = primes[:1]
    A = _residues(m, t, p0)[0]
    rows, cols = _eliminate_rows(A, int(p0[0]))
    if len(cols) == k:
        return False  # M mod p has full column rank, so M does
    if len(cols) != k - 1:
        return None
    free = next(c for c in range(k) if c not in cols)
    order = [*cols, free]
    # Hadamard: |minor| <= prod of the column norms of M[R] (k - 1 of the k columns);
    # norms from the scaled floats m 2^(t - tmax), rounded up generously (1 bit)
    sub_m, sub_t = m[np.ix_(rows, order)], t[np.ix_(rows, order)]
    tmax = int(sub_t.max(initial=0))
    norms = np.sqrt(np.sum(np.ldexp(sub_m.astype(np.float64), sub_t - tmax) ** 2, axis=0))
    with np.errstate(divide="ignore"):
        col_bits = np.maximum(np.log2(norms) + tmax + 1.0, 0.0)
    need = float(np.sum(np.sort(col_bits)[1:])) + 2  # log2 of 2 * bound, with slack
    n_p = int(math.ceil(need / 30.0))
    if n_p > MODULAR_MAX_PRIMES:
        return None
    P = primes[:n_p]
    B = _residues(sub_m, sub_t, P)
    v_mod = _cramer_null_vector(B, P)  # (n_p, k), in the column order ``order``
    if v_mod is None:
        return None
    v = _crt([int(q) for q in P], v_mod)
    q = [0] * k
    for pos, c in enumerate(order):
        q[c] = v[pos]
    if not any(q):
        return None
    Mint = _integer_columns(X, y, S)
    assert Mint is not None  # _integer_parts succeeded above
    # M v in exact Python integers (an object array's product adds them in C)
    if any(np.dot(np.array(q, dtype=object), np.array(Mint, dtype=object))):
        return None
    signs = {(x > 0) - (x < 0) for x in q}
    return signs in ({1}, {-1})


def _eliminate_rows(A: np.ndarray, p: int) -> tuple[list[int], list[int]]:
    """Gaussian elimination of ``A`` (``d x k``) modulo ``p``: the pivot rows (as row
    indices of ``A``) and pivot columns, in order."""
    A = A.copy()
    d, k = A.shape
    idx = np.arange(d)
    rows: list[int] = []
    cols: list[int] = []
    r = 0
    for c in range(k):
        if r == d:
            break
        nz = np.flatnonzero(A[r:, c])
        if nz.size == 0:
            continue
        i = r + int(nz[0])
        A[[r, i]] = A[[i, r]]
        idx[[r, i]] = idx[[i, r]]
        inv = pow(int(A[r, c]), -1, p)
        A[r] = A[r] * inv % p
        f = A[r + 1 :, c].copy()
        A[r + 1 :] = (A[r + 1 :] - f[:, None] * A[r]) % p
        rows.append(int(idx[r]))
        cols.append(c)
        r += 1
    return rows, cols


def _cramer_null_vector(B: np.ndarray, P: np.ndarray) -> np.ndarray | None:
    """For each prime ``P[s]``: ``(-adj(N) b, det N) mod P[s]`` with ``[N | b] = B[s]``
    (``(k - 1) x k``), by Gaussian elimination and back-substitution; None when some
    ``det N`` is 0 modulo its prime (the prime divides it)."""
    B = B.copy()
    n_p, r_, k = B.shape
    pc, p3 = P[:, None], P[:, None, None]
    det = np.ones(n_p, dtype=np.int64)
    invs = np.empty((n_p, r_), dtype=np.int64)
    plist = P.tolist()
    for c in range(r_):
        nz = B[:, c:, c] != 0
        if not np.all(nz.any(axis=1)):
            return None
        i = c + nz.argmax(axis=1)
        swap = np.flatnonzero(i != c)
        if swap.size:
            top = B[swap, i[swap]].copy()
            B[swap, i[swap]] = B[swap, c]
            B[swap, c] = top
        piv = B[:, c, c].copy()
        det[swap] = (P[swap] - det[swap]) % P[swap]
        det = det * piv % P
        inv = np.array([pow(a, -1, q) for a, q in zip(piv.tolist(), plist, strict=True)])
        invs[:, c] = inv
        # rows below c: subtract (B_jc / piv) row c; columns before c are already 0
        f = B[:, c + 1 :, c] * inv[:, None] % pc
        B[:, c + 1 :, c:] = (B[:, c + 1 :, c:] - f[:, :, None] * B[:, c, c:][:, None, :]) % p3
    # N is now upper triangular: solve N x = -b from the bottom up, modulo each prime
    x = np.zeros((n_p, r_), dtype=np.int64)
    for r in range(r_ - 1, -1, -1):
        acc = B[:, r, r_] + (B[:, r, r + 1 : r_] * x[:, r + 1 :] % pc).sum(axis=1)
        x[:, r] = (pc[:, 0] - acc % P) % P * invs[:, r] % P
    # the null vector of [N | b] is (x, 1); times det N it is the integer one
    out = np.empty((n_p, k), dtype=np.int64)
    out[:, :r_] = x * det[:, None] % pc
    out[:, r_] = det
    return out


def _crt(P: list[int], R: np.ndarray) -> list[int]:
    """The integers of least absolute value with residues ``R[s, j]`` modulo ``P[s]``."""
    prod = math.prod(P)
    coef = [(prod // q) * pow(prod // q % q, -1, q) for q in P]
    out = []
    for col in R.T.tolist():
        x = sum(c * r for c, r in zip(coef, col, strict=True)) % prod
        out.append(x - prod if x > prod // 2 else x)
    return out


def _kernel(X, y, kernel, kernel_params, tol, conflicts) -> SeparabilityResult:
    """The kernel path: the LP on ``G = gram_matrix(X, y, kernel)``, its answers checked
    for the exact Gram matrix ``G*`` of the data (:func:`_kernel_separator_bound`,
    :func:`_kernel_certificate_bound`)."""
    from ._gram import _DenseGram, seminorm_floor
    from ._gram_matrix import gram_matrix

    G = gram_matrix(X, y, kernel, **kernel_params)
    gram = _DenseGram(G)  # its entry_error: the rounding of G's construction (0: as given)
    n = G.shape[0]
    alpha = _solve_separator(G)
    if alpha is not None:
        low = _kernel_separator_bound(gram, alpha)
        if low > 0:
            return _result(
                "separable",
                f"separable: alpha, the solution of (G + lambda I) alpha = 1, separates "
                f"every point in the kernel's feature space, with normalised margin at "
                f"least {low:.3g} (checked beyond rounding, for the exact kernel matrix of "
                "the data).",
                alpha=alpha,
                margin_lower=float(low),
                conflicts=conflicts,
            )
    res = _solve(G, [(0.0, None)] * n, n, eq=np.ones(n))
    if res.status == 0 and res.x[-1] > 0:
        alpha = np.clip(np.asarray(res.x[:n], dtype=np.float64), 0.0, None)
        alpha /= alpha.sum()
        low = _kernel_separator_bound(gram, alpha)
        if low > 0:
            return _result(
                "separable",
                f"separable: alpha separates every point in the kernel's feature space, "
                f"with normalised margin at least {low:.3g} (checked beyond rounding, for "
                "the exact kernel matrix of the data).",
                alpha=alpha,
                margin_lower=float(low),
                conflicts=conflicts,
            )
    found = _max_margin_separator(G, gram)  # what kperc.margin certifies, as a last try
    if found is not None:
        alpha, low = found
        return _result(
            "separable",
            f"separable: alpha, the max-margin direction of kperc.margin_details, "
            f"separates every point in the kernel's feature space, with normalised "
            f"margin at least {low:.3g} (checked beyond rounding, for the exact kernel "
            "matrix of the data).",
            alpha=alpha,
            margin_lower=float(low),
            conflicts=conflicts,
        )
    p = _dual_point(res, n) if res.status == 0 else None
    floor = seminorm_floor(gram)  # of G*: sqrt(entry_error) and more
    limit = 4 * floor if tol is None else tol
    if p is not None:
        upper = _kernel_certificate_bound(gram, p)
        if upper <= limit:
            return _result(
                "undecided",
                f"undecided: p is a point of the simplex with ||p||_G <= {upper:.3g} for "
                "the exact kernel matrix of the data, so no separator has normalised "
                "margin above that, but none was found either: the data are separable "
                "with a smaller margin, or not separable, and floating point cannot tell "
                "which.",
                p=p,
                margin_upper=float(upper),
                conflicts=conflicts,
            )
    why = (
        f"; G's construction rounds its entries by up to {gram.entry_error:.2g}, so a "
        f"certificate of the data cannot be certified below about {floor:.2g}"
        if gram.from_data
        else ""
    )
    return _result(
        "undecided",
        "undecided: no separator (from a ridge solve, the linear program or the "
        "max-margin direction of kperc.margin_details) and no certificate passed its "
        "check beyond rounding; the margin is at or below the level of rounding error"
        f"{why}.",
        conflicts=conflicts,
    )


def _max_margin_separator(G: np.ndarray, gram) -> tuple[np.ndarray, float] | None:
    """The minimiser ``p`` of ``||p||_G`` over the simplex (:func:`kperc.margin_details`:
    an eigendecomposition and non-negative least squares, ``O(n^3)``), when it passes
    :func:`_kernel_separator_bound`: the LP's separator, accurate to HiGHS's tolerances
    near ``1e-7``, fails its check on ill-conditioned matrices whose margin ``margin``
    certifies. None when it does not pass (or ``margin_details`` refuses)."""
    import warnings

    from ._margins import margin_details

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            det = margin_details(G)
    except ValueError:
        return None
    if det.status != "separable":
        return None
    alpha = np.asarray(det.p, dtype=np.float64)
    alpha = alpha / alpha.sum()
    low = _kernel_separator_bound(gram, alpha)
    return (alpha, low) if low > 0 else None


#: The ridges ``lambda`` of the direct solves that :func:`_solve_separator` tries.
RIDGES = (0.0, 1e-10, 1e-8, 1e-6)


def _solve_separator(G: np.ndarray) -> np.ndarray | None:
    """A candidate separator in ``O(n^3 / 3)`` per try: ``alpha`` solving
    ``(G + lambda I) alpha = 1`` by Cholesky, scaled to ``||alpha||_1 = 1``, for the first
    ridge of :data:`RIDGES` that gives ``min_i (G alpha)_i`` above its rounding bound;
    None when none does.

    Then ``G alpha = 1 - lambda alpha`` is positive when ``lambda |alpha_i| < 1``: for
    distinct points the RBF kernel's matrix is positive definite, and where it is not
    too ill-conditioned this decides separability long before the linear program
    (whose cost grows much faster with ``n``). ``alpha`` may have both signs: it still
    defines the function ``sum_i alpha_i y_i K(x_i, .)`` of the feature space.
    """
    from scipy.linalg import LinAlgError, cho_factor, cho_solve

    n = G.shape[0]
    ones = np.ones(n)
    for lam in RIDGES:
        try:
            with np.errstate(all="ignore"):
                alpha = cho_solve(cho_factor(G + lam * np.eye(n) if lam else G), ones)
        except (LinAlgError, ValueError):
            continue
        total = float(np.abs(alpha).sum())
        if not (math.isfinite(total) and total > 0):
            continue
        alpha = alpha / total
        if float((G @ alpha).min()) > data_product_error(n, 1.0, 0.0):
            return alpha
    return None


def _kernel_separator_bound(gram, alpha: np.ndarray) -> float:
    """A lower bound on the normalised margin ``min_i (G* alpha)_i / ||alpha||_{G*}`` of
    ``alpha`` (of any signs) for the exact Gram matrix ``G*`` of the data; 0.0 when
    ``G* alpha > 0`` is not certain.

    ``G = gram.G`` is within ``delta = gram.entry_error`` of ``G*`` entrywise (0 for a
    matrix taken as given), and ``|G*_ij| <= 1`` (Cauchy-Schwarz, unit diagonal), so
    ``|G_ij| <= 1 + delta``. A computed ``(G alpha)_i``, a sum of ``n`` products, is
    within ``gamma_n (1 + delta) ||alpha||_1`` of the exact ``(G alpha)_i``, which is
    within ``delta ||alpha||_1`` of ``(G* alpha)_i``; the computed ``sum(alpha)`` is at
    least ``(1 - gamma_n) ||alpha||_1``. The denominator is bounded above by
    :meth:`~kperc._gram._DenseGram.data_bound`.
    """
    from ._gram import _dense_seminorm_bound

    gmin = float((gram.G @ alpha).min())
    err = data_product_error(gram.n, float(np.abs(alpha).sum()), gram.entry_error)
    if not gmin > err:
        return 0.0
    _, upper = _dense_seminorm_bound(gram.G, alpha)
    norm_up = gram.data_bound(alpha, upper)
    return float((gmin - err) / norm_up * (1.0 - 4 * _U))


def data_product_error(n: int, alpha_sum: float, delta: float) -> float:
    """A bound on ``|fl(G alpha)_i - (G* alpha)_i|`` for ``alpha`` whose computed
    ``||alpha||_1`` is ``alpha_sum``: ``G`` an ``n x n`` matrix within ``delta`` of ``G*`` entrywise
    (0 for a matrix taken as given), ``G*`` a normalised Gram matrix (``|G*_ij| <= 1``),
    and the product computed in double precision, in any order of summation.

    ``|G_ij| <= 1 + delta``, so the rounding of the ``n`` products and their sum is at
    most ``gamma_n (1 + delta) ||alpha||_1``, and ``|((G - G*) alpha)_i| <= delta
    ||alpha||_1``; ``||alpha||_1 <= alpha_sum / (1 - gamma_n)``. (``gamma_{n + 2}``
    and the factor ``1 + 4 u`` cover the rounding of this bound itself.)
    """
    from ._ties import gamma

    l1 = alpha_sum / (1.0 - gamma(n))
    return (gamma(n + 2) * (1.0 + delta) + delta) * l1 * (1.0 + 4 * _U)


def _kernel_certificate_bound(gram, p: np.ndarray) -> float:
    """An upper bound on the normalised margin of the data from ``p >= 0``:
    ``||p||_{G*} / ||p||_1`` (no unit ``w`` has ``min_i <w, a_i>`` above it), with
    ``||p||_{G*}`` bounded by :meth:`~kperc._gram._DenseGram.data_bound` and
    ``||p||_1`` from below by its computed value times ``1 - gamma_n``."""
    from ._gram import _dense_seminorm_bound
    from ._ties import gamma

    _, upper = _dense_seminorm_bound(gram.G, p)
    bound = gram.data_bound(p, upper)
    l1 = float(p.sum()) * (1.0 - gamma(gram.n))
    return float(bound / l1 * (1.0 + 4 * _U))

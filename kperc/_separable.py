"""An exact, certified answer to "are these data separable?", by linear programming.

Gordan's theorem (the alternative behind Section 2 of Ramdas & Pena, 2014): for signed
normalised points ``a_i``, exactly one of the two holds,

* a separator: some ``w`` with ``<w, a_i> > 0`` for every ``i``;
* a certificate: some ``p`` in the simplex with ``sum_i p_i a_i = 0``
  (in kernel form: ``||p||_G = 0``).

One linear program decides which, and gives both objects at once: its solution is a
candidate separator and its dual solution a candidate certificate. Neither is trusted
as it comes out of the solver (HiGHS, through :func:`scipy.optimize.linprog`, works to
tolerances near ``1e-7``): each is checked afterwards in floating point with a bound on
the rounding error, and only a check that passes gives an answer.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.optimize import OptimizeResult, linprog

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
        The answer. "separable" and "not separable" are given only with a proof that
        passed a check beyond rounding error; "undecided" when neither check passed
        (a margin so small, positive or not, that double precision cannot tell).
        "not separable" with ``exact`` False means: no separator has a normalised
        margin above ``margin_upper`` (at most ``tol``); data separable with a margin
        below that rounding-level value are not told apart from inseparable data.
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
        Other kernels: a separator in kernel form, a point of the simplex with
        ``(G alpha)_i > 0`` for every ``i``.
    margin_lower : float or None
        With a separator: a lower bound on the normalised margin
        ``min_i y_i w . x_i / (||w|| ||x_i||)`` of that separator (so on the margin of
        the data), rounding included (for other kernels, of the exact kernel matrix of
        the data, the rounding of its construction included).
    p : ndarray of shape (n_samples,) or None
        With "not separable": a point of the simplex whose signed normalised points
        cancel, ``sum_i p_i y_i x_i / ||x_i|| = 0`` (kernel form: ``||p||_G = 0``).
    margin_upper : float or None
        With a certificate ``p``: an upper bound on the normalised margin of the data,
        rounding included. It is 0 when ``exact``.
    exact : bool
        Whether the certificate is exact: a point repeated with both labels (any
        kernel), a zero point (linear kernel), or a certificate whose cancellation was
        verified in exact rational arithmetic (linear kernel). Otherwise the
        certificate proves only that no separator has normalised margin above
        ``margin_upper``, a value at the level of rounding error.
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
    * "not separable" only with a certificate ``p`` that passes a check: exactly (a
      point repeated with both labels, a zero point, or an exact rational check of
      ``sum_i p_i y_i x_i = 0`` for the linear kernel) or up to rounding (an upper
      bound ``margin_upper`` on the normalised margin, at most ``tol``);
    * "undecided" otherwise.

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
        ``n x n`` matrix and solve a linear program with ``n`` variables.
    fit_intercept : bool, default=False
        Append a constant feature 1 to every point.
    tol : float or None, default=None
        Largest ``margin_upper`` accepted as "not separable" for a certificate that is
        not exact. None: the rounding level, ``1e3 (n + d) u`` for the linear kernel
        (``u = 2^-53``) and, for other kernels, 4 times the smallest bound on ``||p||_G``
        that can be certified for the data's exact kernel matrix (about
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
    For the linear kernel at ``n = 2000`` points the decision takes well under a
    second. Rescaling a point by a power of two does not change the answer (for the
    linear kernel each point is so rescaled first, so subnormal data are decided too).

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
    # Scale each row by a power of two (exact) so that its largest entry is in [0.5, 1):
    # neither the separator's signs nor the normalised points change, ordinary data give
    # the same bits as before, and subnormal rows (X * 2^-1060) no longer make 1 / ||x_i||
    # overflow into an LP that scipy refuses.
    amax = np.max(np.abs(X), axis=1)
    X = np.ldexp(X, -np.frexp(np.where(amax > 0, amax, 1.0))[1][:, None])
    norms = row_norms(X)
    zero = np.flatnonzero(norms == 0)
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
    A = (y / norms)[:, None] * X  # signed normalised points, rows of norm 1 (rounded)
    res = _solve(A, [(-1.0, 1.0)] * d, d)
    if res.status == 0 and res.x[-1] > 0:
        w = np.asarray(res.x[:d], dtype=np.float64)
        low = _linear_separator_bound(X, y, norms, w)
        if low > 0:
            return _result(
                "separable",
                f"separable: w separates every point, with normalised margin at least "
                f"{low:.3g} (checked beyond rounding).",
                w=w,
                margin_lower=low,
                conflicts=conflicts,
            )
    dual = _dual_point(res, n) if res.status == 0 else None
    if dual is not None:
        p = _polish_certificate(A, dual)
        exact = _exact_certificate(X, y, p)
        upper = 0.0 if exact else _linear_certificate_bound(A, p, d)
        limit = 1e3 * (n + d) * _U if tol is None else tol
        if exact or upper <= limit:
            how = (
                "exactly (verified in rational arithmetic)"
                if exact
                else f"up to rounding: no separator has normalised margin above {upper:.3g}"
            )
            return _result(
                "not separable",
                f"not separable, {how}: the {np.count_nonzero(p)} signed normalised "
                "points in the support of p cancel (p is a Gordan certificate).",
                p=p,
                margin_upper=upper,
                exact=exact,
                conflicts=conflicts,
            )
    return _result(
        "undecided",
        "undecided: neither the separator nor the certificate found by the linear program "
        f"passed its check beyond rounding (solver: {res.message.strip()}); the margin is "
        "at the level of rounding error.",
        conflicts=conflicts,
    )


def _linear_separator_bound(X, y, norms, w) -> float:
    """A lower bound on ``min_i y_i w . x_i / (||w|| ||x_i||)``, rounding included.

    ``fl(x . w)`` differs from ``x . w`` by at most ``gamma_d |x| . |w|``
    (``gamma_d = d u / (1 - d u)``); the norms are divided out with a relative slack.
    """
    d = X.shape[1]
    gam = (d + 2) * _U / (1 - (d + 2) * _U)
    vals = y * (X @ w)
    err = gam * (np.abs(X) @ np.abs(w))
    low = vals - err
    if not np.all(low > 0):
        return 0.0
    wn = float(np.linalg.norm(w))
    slack = 1.0 - 4 * (d + 4) * _U  # norms of x_i and w within a few d u
    return float(np.min(low / norms) / wn * slack)


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
    p = _dual_point(res, n) if res.status == 0 else None
    floor = seminorm_floor(gram)  # of G*: sqrt(entry_error) and more
    limit = 4 * floor if tol is None else tol
    if p is not None:
        upper = _kernel_certificate_bound(gram, p)
        if upper <= limit:
            return _result(
                "not separable",
                f"not separable up to rounding: p is a point of the simplex with "
                f"||p||_G <= {upper:.3g} for the exact kernel matrix of the data, so no "
                "separator has normalised margin above that.",
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
        "undecided: neither the separator nor the certificate found by the linear program "
        "passed its check beyond rounding; the margin is at the level of rounding error"
        f"{why}.",
        conflicts=conflicts,
    )


def _kernel_separator_bound(gram, alpha: np.ndarray) -> float:
    """A lower bound on the normalised margin ``min_i (G* alpha)_i / ||alpha||_{G*}`` of
    ``alpha`` (``alpha >= 0``) for the exact Gram matrix ``G*`` of the data; 0.0 when
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
    err = data_product_error(gram.n, float(alpha.sum()), gram.entry_error)
    if not gmin > err:
        return 0.0
    _, upper = _dense_seminorm_bound(gram.G, alpha)
    norm_up = gram.data_bound(alpha, upper)
    return float((gmin - err) / norm_up * (1.0 - 4 * _U))


def data_product_error(n: int, alpha_sum: float, delta: float) -> float:
    """A bound on ``|fl(G alpha)_i - (G* alpha)_i|`` for ``alpha >= 0`` whose computed
    sum is ``alpha_sum``: ``G`` an ``n x n`` matrix within ``delta`` of ``G*`` entrywise
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

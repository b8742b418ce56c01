"""Normalised signed Gram matrices built from data (paper Sections 2 and 3).

The algorithms of the paper see the data only through the normalised signed Gram
matrix

.. math:: G_{ij} = \\frac{y_i y_j K(x_i, x_j)}{\\sqrt{K(x_i, x_i) K(x_j, x_j)}},

which is positive semidefinite with a unit diagonal. :func:`gram_matrix` builds it
densely for any kernel, with a bound on its entries' rounding; :func:`gram_operator` keeps
the linear-kernel ``G = A^T A`` in factored form (:class:`GramOperator`) so that a product
costs ``O(n d)`` and a million points fit in memory. The private cores
(``_gram_matrix_bounded``, ``_signed_normalized_points``) trust their input.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse

from . import _array_api, _device
from ._kernel_values import (
    _ETA,
    _U,
    _check_diag,
    _check_kernel_args,
    _entry_error,
    _kernel_diagonal,
    _kernel_values,
    _may_repeat_rows,
    _needs_psd_check,
    _poly_needs_scaling,
)
from ._rbf import rbf_values_affine
from ._typing import ArrayLike, KernelLike
from ._validation import (
    DIAG_TOL,
    PSD_CHECK_MAX_N,
    PSD_TOL,
    GramProvenance,
    TrustedGramOperator,
    check_factor,
    check_index,
    check_psd_matrix,
    check_unit_rows,
    check_Xy,
    check_Xy_sparse,
    row_norms,
    sparse_row_norms,
    trust_gram,
)


def gram_matrix(
    X: ArrayLike, y: ArrayLike, kernel: KernelLike = "linear", **kernel_params: Any
) -> np.ndarray:
    """Normalised signed Gram matrix ``G`` (paper Sections 2 and 3).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.
    kernel : {"linear", "poly", "rbf"} or callable
        See :func:`kernel_matrix`.
    **kernel_params
        Kernel parameters: ``gamma`` for ``"rbf"``; ``gamma``, ``degree`` and
        ``coef0`` for ``"poly"``; none for ``"linear"`` (a parameter the kernel does not
        use is refused). Their values as in :func:`kernel_matrix` (``gamma`` may be
        ``"scale"``, the default of :class:`kperc.SNKPClassifier`).

    Returns
    -------
    G : ndarray of shape (n_samples, n_samples)
        Symmetric, positive semidefinite, with ``G_ii = 1`` exactly. **Read-only**: kperc
        knows how it was built, so every algorithm and :func:`kperc.margin` skip its
        validation (the positive semidefiniteness test alone costs hundreds of
        products ``G @ v`` at ``n = 2000``) and certify their answers for the exact Gram
        matrix of the data. Use it as any array (``G @ alpha``, slices, ``G.copy()``);
        to change it, change a copy, which is then validated like any matrix you build.

    Raises
    ------
    ValueError
        For bad data or labels, bad kernel parameters (``gamma`` must be ``> 0`` and
        finite, ``None`` or ``"scale"``, ``degree`` a positive integer, ``coef0``
        finite, and a kernel takes only its own parameters), when some
        ``K(x_i, x_i) <= 0``, or when a kernel callable (or ``"poly"`` with
        ``coef0 < 0``) gives a matrix that is not symmetric positive semidefinite.
    TypeError
        For complex or object data.

    Notes
    -----
    ``X`` may be a scipy.sparse matrix (it is densified) or a pandas DataFrame. Data of
    any scale is accepted: the linear kernel normalises each row first, and the RBF and
    polynomial kernels are evaluated from scaled data when the entries exceed
    ``1e+-100``, so that entries of size 1e+-300 neither overflow nor underflow.

    Rounding. For the built-in kernels (``"poly"`` with ``coef0 >= 0``) a bound
    ``delta`` on ``|G_ij - G*_ij|`` is derived from the construction, ``G*`` being the
    exact normalised signed Gram matrix of the data (for example
    ``(2 d + 10) u`` for the linear kernel in ``d`` features, ``u = 2^-53``; the RBF
    values stay accurate at any ``gamma``, recomputed from differences where
    ``||x||^2 + ||z||^2 - 2 x.z`` cancels). ``G*`` is positive semidefinite, so ``G`` is
    within ``(n - 1) delta`` of a positive semidefinite matrix in norm; when ``delta``
    exceeds the tolerance of the positive semidefiniteness test (``1e-8``), the test is
    run once here instead. A kernel callable (or
    ``"poly"`` with ``coef0 < 0``) is tested here once; its values are taken as given.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> G = kperc.gram_matrix(np.array([[1.0, 0.0], [0.0, 2.0]]), [1, -1])
    >>> G.tolist()
    [[1.0, -0.0], [-0.0, 1.0]]
    >>> G.flags.writeable
    False
    """
    if _array_api.is_foreign(X):  # torch, CuPy, ...: formed on X's device (kperc._device)
        return _device.device_gram_matrix(X, y, kernel, **kernel_params)
    X, y = check_Xy(X, y)
    return _gram_matrix(X, y, kernel, _check_kernel_args(kernel, kernel_params, X))


def _gram_matrix(X: np.ndarray, y: np.ndarray, kernel: KernelLike, kernel_params: dict):
    """:func:`gram_matrix` of checked data, labels and kernel parameters: the read-only
    matrix, registered with what is known about it (:func:`trust_gram`)."""
    G, delta, groups = _gram_matrix_bounded(X, y, kernel, kernel_params)
    labels = y
    if isinstance(kernel, str) and kernel == "linear":
        groups, orient = _line_groups(X)
        labels = y * orient
    if G.base is not None:
        G = G.copy()  # the registered buffer must be ours alone
    n = G.shape[0]
    if delta is None:  # a callable or "poly" with coef0 < 0: tested in _gram_matrix
        info = GramProvenance(psd_exact=n <= PSD_CHECK_MAX_N)
    else:
        if not delta <= PSD_TOL:  # rounding beyond the test's tolerance: test it once
            check_psd_matrix(G, name="the kernel's normalised Gram matrix")
        info = GramProvenance(
            psd_exact=bool(delta <= PSD_TOL or n <= PSD_CHECK_MAX_N),
            entry_error=float(delta),
            groups=groups,
            labels=labels if groups is not None else None,
            max_rank=_max_rank(X, kernel, kernel_params, groups),
        )
    return trust_gram(G, info)


def _max_rank(X: np.ndarray, kernel: KernelLike, kernel_params: dict, groups) -> int | None:
    """An upper bound on the rank of the exact ``G*`` of checked data, known exactly: the
    dimension of the kernel's feature space and the number of distinct points (the
    points, or for the linear kernel the lines through the origin, that ``groups`` merges).

    With ``d`` the number of features not identically zero: ``d`` for the linear kernel,
    and for ``(gamma <x, z> + coef0)^degree`` the dimension of the polynomials of degree
    at most ``degree`` in ``d`` variables, ``C(d + degree, degree)``, or of the
    homogeneous ones, ``C(d + degree - 1, degree)``, when ``coef0 == 0``. The RBF kernel
    is strictly positive definite: the matrix of distinct points has full rank. None for
    a kernel callable.
    """
    if callable(kernel):
        return None
    distinct = X.shape[0] if groups is None else int(np.unique(groups).size)
    if kernel == "rbf":
        return distinct
    d = int(np.count_nonzero(np.any(X != 0, axis=0)))
    if kernel == "poly":
        k = int(kernel_params.get("degree", 3))
        d = math.comb(d + k, k) if kernel_params.get("coef0", 1) != 0 else math.comb(d + k - 1, k)
    return min(d, distinct)


def _line_groups(X: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """Points on one line through the origin, exactly: a group number per point (None
    when every line holds one point) and each point's orientation ``s_i = +-1`` on it.

    ``x_i / ||x_i|| = s_i u_g`` exactly for the unit vector ``u_g`` of its group, so the
    normalised signed points of a group are ``y_i s_i u_g``: a combination cancels in the
    data when its signed weights cancel in each group (:class:`GramProvenance`). Rows
    with equal keys ``x_i / x_im`` (``m`` the entry of largest magnitude: a correctly
    rounded quotient, equal for exactly proportional rows) are candidates; each is
    checked exactly against the first of its key (``x_ik x_rm = x_rk x_im``, products
    split by :func:`kperc._exact.two_prod`); a row that fails is a group of its own.
    """
    from ._exact import two_prod

    n = X.shape[0]
    r = np.arange(n)
    m = np.argmax(np.abs(X), axis=1)
    xm = X[r, m]
    orient = np.where(xm > 0, 1.0, -1.0)
    keys = np.column_stack([m.astype(np.float64), X / xm[:, None]])
    if not _may_repeat_rows(keys):
        return None, orient
    _, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    first = np.full(inv.max() + 1, n)
    np.minimum.at(first, inv, r)
    ref = first[inv]
    # scale each row by a power of two (exact where no bits are lost; checked below)
    e = np.frexp(np.where(xm != 0, np.abs(xm), 1.0))[1]
    Xs = np.ldexp(X, -e[:, None])
    lost = np.any(np.ldexp(Xs, e[:, None]) != X, axis=1)
    xsm = Xs[r, m]
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        h1, e1 = two_prod(Xs, xsm[ref][:, None])
        h2, e2 = two_prod(Xs[ref], xsm[:, None])
        tiny = np.any(
            (h1 != 0) & (np.abs(h1) < 2.0**-960) | (h2 != 0) & (np.abs(h2) < 2.0**-960), axis=1
        )
        ok = np.all((h1 == h2) & (e1 == e2), axis=1) & ~tiny & ~lost & ~lost[ref]
    groups = np.where(ok, ref, n + r)  # a failed row: a group of its own
    if np.unique(groups).size == n:
        return None, orient
    return groups, orient


def _gram_matrix_bounded(
    X: np.ndarray, y: np.ndarray, kernel: KernelLike, kernel_params: dict
) -> tuple[np.ndarray, float | None, np.ndarray | None]:
    """``G``, the bound on its entries' rounding (:func:`_entry_error`, None for a
    callable or ``"poly"`` with ``coef0 < 0``) and the groups of equal points (None
    when all points differ)."""
    if isinstance(kernel, str) and kernel == "linear":
        # The normalised linear G does not depend on the scale of each row: scale row i
        # by a power of 4 so that max_j |x_ij| is near 1. Products, sums and square roots
        # of the diagonal then round exactly as before (no effect on ordinary data), and
        # rows of size 1e+-300 neither overflow nor underflow.
        amax = np.max(np.abs(X), axis=1)
        k = np.round(np.log2(np.where(amax > 0, amax, 1.0)) / 2)
        if np.any(k):
            # ldexp, not a product with 4.0**-k: a row whose largest entry is subnormal
            # (k = -525 at 1e-316) needs 2^1050, which overflows as a factor
            X = np.ldexp(X, (-2 * k).astype(np.int64)[:, None])
    # Repeated points must give identical rows of G with an exact -1 between two copies
    # with opposite labels, so that such a pair is an exact witness (G p = 0).
    # Kernel round-off does not ensure it (sklearn's RBF gives
    # K(x, x') = 1 - 1.1e-16 for a copy x' of x, enough for SNKP to return a spurious
    # "separator" with margin 5e-17), so repeated points are evaluated once and expanded.
    # np.unique(X, axis=0) sorts rows field by field (6 ms for 63 rows of 2308 features):
    # it runs only when two rows share a key, as every pair of equal rows does
    U, inv = X, np.arange(X.shape[0])
    if _may_repeat_rows(X):
        U, inv = np.unique(X, axis=0, return_inverse=True)
    if U.shape[0] < X.shape[0]:
        inv = inv.reshape(-1)
        if not _poly_needs_scaling(U, kernel, kernel_params):
            # report a bad point by its index in X, not in U
            _check_diag(_kernel_diagonal(U, kernel, kernel_params)[inv])
        if U.shape[0] > 1:
            N, delta, _ = _gram_matrix_bounded(U, np.ones(U.shape[0]), kernel, kernel_params)
        else:
            N, delta = np.ones((1, 1)), _entry_error(U, kernel, kernel_params)
        # rows, then columns: two contiguous gathers (N[np.ix_(inv, inv)] is about twice
        # as slow), signed as they are copied; the same values, so the same delta
        R = N.take(inv, axis=0)
        del N
        R *= y[:, None]
        G = R.take(inv, axis=1)
        del R
        G *= y[None, :]
        return G, delta, inv
    if isinstance(kernel, str) and kernel == "rbf":
        G, delta = _rbf_gram(X, y, kernel_params["gamma"])
        return G, delta, None
    delta = _entry_error(X, kernel, kernel_params)
    if _poly_needs_scaling(X, kernel, kernel_params):
        return _poly_gram_scaled(X, y, kernel_params), delta, None
    K = _kernel_values(X, X, kernel, kernel_params)  # checked symmetric and PSD below
    if callable(kernel) or not (K.flags.writeable and K.flags.owndata):
        K = np.array(K, dtype=np.float64, order="C")  # never write to the caller's array
    diag = np.diag(K).copy()
    _check_diag(diag)
    if callable(kernel):
        asym = float(np.max(np.abs(K - K.T)) / np.max(diag))
        if asym > DIAG_TOL:
            raise ValueError(
                f"the kernel callable is not symmetric (max |K - K.T| = {asym:.3g} relative "
                "to the largest K(x_i, x_i)); a kernel must satisfy K(x, z) = K(z, x)."
            )
    s = y / np.sqrt(diag)
    # In place, so that building G needs no n x n temporary beyond the kernel matrix:
    # the same operations as G = K * s[:, None] * s[None, :]; G = 0.5 * (G + G.T).
    G = K
    G *= s[:, None]
    G *= s[None, :]
    _symmetrize_inplace(G)
    np.fill_diagonal(G, 1.0)
    if not np.isfinite(G).all():
        raise ValueError("the kernel produced NaN or inf values.")
    if _needs_psd_check(kernel, kernel_params):
        check_psd_matrix(G, name="the kernel's normalised Gram matrix")
    return np.ascontiguousarray(G), delta, None


#: :func:`gram_matrix` keeps scikit-learn's RBF values where the bound on their exponent's
#: error is at most this (about 1e-9: ``entry_error`` stays below the positive
#: semidefiniteness test's tolerance, 1e-8), and recomputes the others from differences.
#: The stricter default of :mod:`kperc._rbf` (``2^-40``) would recompute most entries of
#: standardised data in many dimensions (ISLP's Caravan: 85 features), at ``O(n^2 d)``.
GRAM_REPAIR_TOL = 2.0**-30


def _rbf_gram(X: np.ndarray, y: np.ndarray, gamma) -> tuple[np.ndarray, float]:
    """The normalised signed RBF ``G`` of distinct checked points, and a bound on
    ``|G_ij - G*_ij|``.

    The values are :func:`kperc._rbf.rbf_values_affine`'s (scikit-learn's where they are
    accurate, recomputed from differences where ``||x||^2 + ||z||^2 - 2 x.z`` cancels,
    as at large ``gamma``), each within ``dk`` of the exact kernel. ``K(x, x) = 1``
    exactly, so the normalisation is the signs ``y_i y_j`` (exact); symmetrising averages
    two values within ``dk`` (adding ``u`` for its rounding), and the diagonal is set
    to 1.
    """
    bk = rbf_values_affine(X, X, gamma, repair_tol=GRAM_REPAIR_TOL)
    dk = bk.absolute + bk.relative if bk.err is None else float(np.max(bk.err))
    G = bk.K
    G *= y[:, None]
    G *= y[None, :]
    _symmetrize_inplace(G)
    np.fill_diagonal(G, 1.0)
    return G, float((dk + 2 * _U) * (1 + 4 * _U))


def _poly_gram_scaled(X: np.ndarray, y: np.ndarray, kernel_params: dict) -> np.ndarray:
    """The normalised signed polynomial Gram matrix from scaled quantities.

    With ``t_i = sqrt(gamma ||x_i||^2 + c)`` (a ``hypot``, no overflow),
    ``G_ij = y_i y_j (b_i^T b_j + e_i e_j)^degree`` for ``b_i = sqrt(gamma) x_i / t_i`` and
    ``e_i = sqrt(c) / t_i``: every quantity is at most 1, whatever the scale of ``X``.
    """
    degree = kernel_params.get("degree", 3)
    gamma = kernel_params["gamma"]
    c = kernel_params.get("coef0", 1)
    if c == 0:  # homogeneous: G does not depend on the scale of each row; scale exactly
        amax = np.max(np.abs(X), axis=1)
        X = np.ldexp(X, -np.frexp(np.where(amax > 0, amax, 1.0))[1][:, None])
    norms = row_norms(X)
    t = np.hypot(np.sqrt(gamma) * norms, np.sqrt(c))
    _check_diag(t)
    B = X * (np.sqrt(gamma) / t)[:, None]
    e = np.sqrt(c) / t
    with np.errstate(under="ignore"):
        R = B @ B.T + np.outer(e, e)
        np.clip(R, -1.0, 1.0, out=R)
        G = R**degree
    G *= y[:, None]
    G *= y[None, :]
    _symmetrize_inplace(G)
    np.fill_diagonal(G, 1.0)
    return np.ascontiguousarray(G)


def _symmetrize_inplace(G: np.ndarray, block: int = 256) -> None:
    """``G <- (G + G^T) / 2`` in place, by blocks (bit-identical to the allocating form)."""
    n = G.shape[0]
    for i0 in range(0, n, block):
        i1 = min(n, i0 + block)
        D = G[i0:i1, i0:i1]
        D[...] = 0.5 * (D + D.T)
        for j0 in range(i1, n, block):
            j1 = min(n, j0 + block)
            S = 0.5 * (G[i0:i1, j0:j1] + G[j0:j1, i0:i1].T)
            G[i0:i1, j0:j1] = S
            G[j0:j1, i0:i1] = S.T


def signed_normalized_points(X: ArrayLike, y: ArrayLike) -> Any:
    """Rows ``a_i = y_i x_i / ||x_i||_2`` (paper Section 2), shape (n_samples, n_features).

    A scipy.sparse ``X`` gives a ``scipy.sparse.csr_matrix`` with the same nonzero
    pattern (nothing is densified); any other ``X`` gives an ndarray.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> A = kperc.signed_normalized_points(np.array([[3.0, 4.0], [0.0, 2.0]]), [1, -1])
    >>> A.round(4).tolist()
    [[0.6, 0.8], [-0.0, -1.0]]
    """
    return _signed_normalized_points(*check_Xy_sparse(X, y))


def _signed_normalized_points(X, y: np.ndarray):
    """:func:`signed_normalized_points` of checked data and labels (a CSR matrix stays
    sparse; its nonzeros get exactly the values that the dense computation gives)."""
    if scipy.sparse.issparse(X):
        return _sparse_signed_normalized_points(X, y)
    # Each row times a power of two (exact) so that its largest entry is in [0.5, 1):
    # subnormal rows regain their full precision before the division (dividing a
    # subnormal row by its norm gave unit-norm errors of 7%), huge rows cannot overflow.
    amax = np.max(np.abs(X), axis=1)
    Xs = np.ldexp(X, -np.frexp(np.where(amax > 0, amax, 1.0))[1][:, None])
    norms = row_norms(Xs)
    _check_diag(norms)
    return Xs / norms[:, None] * y[:, None]


def sparse_pow2_rows(X: scipy.sparse.csr_matrix):
    """Each row of a CSR ``X`` scaled by the power of two that brings its largest entry
    into ``[0.5, 1)`` (exact, so no sum of squares overflows or underflows): the scaled
    matrix, the row index of each stored entry, and the scaled rows' norms."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    amax = np.zeros(X.shape[0])
    np.maximum.at(amax, rows, np.abs(X.data))
    e = np.frexp(np.where(amax > 0, amax, 1.0))[1]
    Xs = scipy.sparse.csr_matrix((np.ldexp(X.data, -e[rows]), X.indices, X.indptr), X.shape)
    return Xs, rows, sparse_row_norms(Xs)


def _sparse_signed_normalized_points(X: scipy.sparse.csr_matrix, y: np.ndarray):
    """The sparse form of :func:`_signed_normalized_points`: the same exact power-of-two
    scaling of each row, then its division by the row's norm, on the stored entries."""
    Xs, rows, norms = sparse_pow2_rows(X)
    _check_diag(norms)
    Xs.data = Xs.data / norms[rows] * y[rows]
    return Xs


def _sparse_counts(Z) -> tuple[int, int]:
    """The most nonzeros in a row and in a column of a CSR matrix."""
    row = int(np.diff(Z.indptr).max()) if Z.shape[0] else 0
    col = int(np.bincount(Z.indices, minlength=Z.shape[1]).max()) if Z.nnz else 0
    return row, col


class GramOperator(TrustedGramOperator):
    """The linear-kernel ``G = A^T A`` kept in factored form.

    ``A`` has the signed normalised points as columns; this class stores them as the
    rows of ``Z`` (shape ``(n, d)``), so ``G v = Z (Z^T v)`` costs ``O(n d)`` and a
    column of ``G`` is ``Z z_j``.

    ``Z`` may be a scipy.sparse matrix (kept as CSR: products are sparse mat-vecs and
    memory is ``O(nnz)``; :func:`kperc.gram_operator` of a sparse ``X`` builds one).
    Rounding: a computed ``(G v)_i = (Z (Z^T v))_i`` with ``v >= 0`` is within
    ``(c + r_i) u ||v||_1`` of the exact value, up to terms in ``u^2`` (``u`` the unit
    round-off), where ``r_i`` is the number of nonzeros of row ``i`` of ``Z`` and ``c``
    the largest number of nonzeros in a column: each entry of ``w = Z^T v`` is a sum of
    at most ``c`` products, off by at most ``c u sum_j |z_jk| v_j``; the dot product of
    row ``i`` with ``w`` adds ``r_i`` more roundings; and
    ``sum_k |z_ik| sum_j |z_jk| v_j <= ||v||_1`` for unit rows (Cauchy-Schwarz). The
    algorithms accept a separator only when
    ``min_i (G alpha)_i > (n + max_i r_i + 2) u ||alpha||_1`` (``c <= n``; the ``n``
    also covers NKP's sum of at most ``n`` columns). For a dense ``Z``, ``r_i = d``;
    for a sparse one the bound depends on the nonzeros per row, not on the number of
    features.

    Parameters
    ----------
    Z : array_like or scipy.sparse matrix of shape (n_samples, n_features)
        Rows of unit Euclidean norm (checked to ``1e-8``), real and finite: the signed
        normalised points of :func:`kperc.signed_normalized_points`. Anything else is
        refused with a :class:`ValueError` (complex input with a :class:`TypeError`):
        a factor with other row norms stands for a ``G`` without a unit diagonal, on
        which the algorithms' certificates would be false.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> X, y = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), np.array([1, -1, 1])
    >>> op = kperc.gram_operator(X, y)
    >>> v = np.array([0.2, 0.3, 0.5])
    >>> bool(np.allclose(op @ v, kperc.gram_matrix(X, y) @ v))
    True
    """

    def __init__(self, Z: ArrayLike) -> None:
        self.Z = check_factor(Z, "Z")
        n = self.Z.shape[0]
        self.sparse = scipy.sparse.issparse(self.Z)
        #: the most nonzeros in a row and in a column of ``Z`` (``d`` and ``n`` if dense)
        self.row_nnz: int = self.Z.shape[1]
        self.col_nnz: int = n
        if self.sparse:
            self.row_nnz, self.col_nnz = _sparse_counts(self.Z)
        #: what the factor stands for: built by :func:`kperc.gram_operator`, the data's
        #: directions, each row within ``row_error`` of its exact direction, and
        #: ``exact_rows`` (bool per row) exactly proportional to it; built from ``Z``
        #: directly, the rows as given (0 and None)
        self.row_error = 0.0
        self.exact_rows: np.ndarray | None = None
        super().__init__(dtype=np.float64, shape=(n, n))

    def _check_stored(self, name: str) -> None:
        """A dense factor is public and writeable: finite with unit rows (``O(n d)``)."""
        if isinstance(self.Z, np.ndarray):
            check_unit_rows(self.Z, f"{name}.Z")

    def _matvec(self, v):
        v = np.asarray(v, dtype=np.float64).reshape(-1)
        return self.Z @ (self.Z.T @ v)

    def _rmatvec(self, v):
        return self._matvec(v)

    def _matmat(self, V):
        return self.Z @ (self.Z.T @ V)

    def _adjoint(self):
        return self

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` of ``G``: ``(a_i^T a_j)_i`` (``j`` an integer index)."""
        j = check_index(j, self.shape[0])
        if self.sparse:
            return self.Z @ self.Z[j].toarray().reshape(-1)
        return self.Z @ self.Z[j]

    def diagonal(self) -> np.ndarray:
        """The diagonal of ``G`` (all ones up to round-off)."""
        if self.sparse:
            return np.asarray(self.Z.multiply(self.Z).sum(axis=1)).reshape(-1)
        return np.einsum("ij,ij->i", self.Z, self.Z)

    def dense_factor(self) -> np.ndarray:
        """``Z`` as a dense ndarray (itself when dense; a densified copy when sparse)."""
        return self.Z.toarray() if self.sparse else self.Z

    def seminorm(self, p: np.ndarray) -> float:
        """``||p||_G = ||A p||_2``, computed from the factor (no round-off floor)."""
        return float(np.linalg.norm(self.Z.T @ p))

    def seminorm_bound(self, p: np.ndarray) -> tuple[float, float]:
        """``||A p||`` and an upper bound on its exact value despite rounding.

        Each entry of ``A p`` is a sum of ``n`` terms with ``|z_ij| <= 1``: its error is
        at most ``(n + 2) u ||p||_1``, so the vector's error is at most ``sqrt(d)`` times
        that (``u`` the unit round-off). For a sparse ``Z``, entry ``k`` sums at most
        ``c`` terms (the most nonzeros in a column) and is off by at most
        ``(c + 2) u sum_i |z_ik| |p_i|``; the 2-norm of those errors is at most
        ``(c + 2) u sum_i |p_i| ||z_i|| = (c + 2) u ||p||_1`` (unit rows).
        """
        val = self.seminorm(p)
        if self.sparse:
            return val, val + (self.col_nnz + 2) * _U * float(np.abs(p).sum())
        n, d = self.Z.shape
        err = (n + 2) * _U * float(np.abs(p).sum()) * np.sqrt(d)
        return val, val + err

    def toarray(self) -> np.ndarray:
        """The dense ``n x n`` matrix (for small ``n`` only)."""
        if self.sparse:
            return (self.Z @ self.Z.T).toarray()
        return self.Z @ self.Z.T


def gram_operator(X: ArrayLike, y: ArrayLike) -> GramOperator:
    """Linear-kernel normalised signed Gram matrix as a factored operator.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)

    Returns
    -------
    GramOperator
        Behaves like ``gram_matrix(X, y)`` for products, with ``O(n d)`` memory. A
        scipy.sparse ``X`` stays sparse: the factor ``Z`` is a CSR matrix with the
        nonzero pattern of ``X`` (memory ``O(nnz)``), and every product is a sparse
        mat-vec.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> X, y = np.array([[3.0, 4.0], [0.0, 2.0]]), np.array([1, -1])
    >>> op = kperc.gram_operator(X, y)
    >>> op.shape, op.Z.round(4).tolist()
    ((2, 2), [[0.6, 0.8], [-0.0, -1.0]])
    """
    X, y = check_Xy_sparse(X, y)
    Z = _signed_normalized_points(X, y)  # a sparse Z has the stored entries of X
    exact_rows = _proportional_rows(X, y, Z)
    op = GramOperator(Z)
    # the factor is the data's directions rounded: each row within (d + 6) u of its
    # exact direction (a power-of-two scaling, a norm, a division), and rows that are
    # exactly proportional to the signed data are known (exact cancellations in them are
    # the data's)
    op.row_error = factor_row_error(op.row_nnz)
    op.exact_rows = exact_rows
    return op


def factor_row_error(d: int) -> float:
    """A bound on ``||z_i - a*_i||`` for a row ``z_i`` of :func:`signed_normalized_points`
    with ``d`` (stored) entries and its exact direction ``a*_i = y_i x_i / ||x_i||``: a
    power-of-two scaling (exact), a norm and a division, ``(d + 6) u`` (with underflow)."""
    return (d + 6.0) * _U * 1.01 + 4.0 * np.sqrt(d) * _ETA


def _proportional_rows(X, y: np.ndarray, Z) -> np.ndarray:
    """Rows ``i`` where ``Z_i = c y_i x_i`` exactly for some ``c > 0``.

    Against the entry of largest magnitude ``m`` of each row: ``z_ij x_im = z_im x_ij`` for
    every ``j``, each product split exactly by :func:`kperc._exact.two_prod` (equal exact
    products have equal splits); a row where some product of nonzero factors is below
    ``2^-960`` (not split exactly) is not counted.
    """
    from ._exact import two_prod

    if scipy.sparse.issparse(X):
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        xs, zs = X.data, np.asarray(Z.data)
        order = np.lexsort((-np.abs(xs), rows))
        first = order[np.r_[0, np.flatnonzero(np.diff(rows[order])) + 1]] if xs.size else order
        ref_x = np.zeros(X.shape[0])
        ref_z = np.zeros(X.shape[0])
        ref_x[rows[first]], ref_z[rows[first]] = xs[first], zs[first]
        xs, xm, zm = xs, ref_x[rows], ref_z[rows]
    else:
        rows = None
        idx = np.argmax(np.abs(X), axis=1)
        r = np.arange(X.shape[0])
        xm, zm = X[r, idx][:, None], Z[r, idx][:, None]
        ref_x, ref_z = xm[:, 0], zm[:, 0]
        xs, zs = X, Z
    # rows beyond 2^990 are scaled down by a power of two (Dekker's splitting overflows
    # above 2^995); a row that loses bits by it is not counted
    e = np.frexp(np.where(ref_x != 0, np.abs(ref_x), 1.0))[1]
    e = np.where(e > 990, e, 0)
    if rows is not None:
        e, xm = e[rows], xm * np.ldexp(1.0, -e[rows])
        lost = np.ldexp(np.ldexp(xs, -e), e) != xs
        xs = np.ldexp(xs, -e)
    else:
        xm = xm * np.ldexp(1.0, -e)[:, None]
        lost = np.ldexp(np.ldexp(xs, -e[:, None]), e[:, None]) != xs
        xs = np.ldexp(xs, -e[:, None])
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        h1, e1 = two_prod(zs, xm)
        h2, e2 = two_prod(xs, zm)
        tiny = ((zs != 0) & (xm != 0) & (np.abs(zs * xm) < 2.0**-960)) | (
            (xs != 0) & (zm != 0) & (np.abs(xs * zm) < 2.0**-960)
        )
        bad = (h1 != h2) | (e1 != e2) | tiny | lost
    if rows is None:
        ok = ~np.any(bad, axis=1)
    else:
        ok = np.bincount(rows[bad.nonzero()[0]], minlength=X.shape[0]) == 0
    same_sign = np.sign(ref_z) == np.sign(ref_x) * y
    return ok & same_sign & (ref_x != 0)

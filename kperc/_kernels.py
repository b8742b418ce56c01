"""Kernels and normalised signed Gram matrices (paper Sections 2 and 3).

The algorithms of the paper see the data only through the normalised signed Gram
matrix

.. math:: G_{ij} = \\frac{y_i y_j K(x_i, x_j)}{\\sqrt{K(x_i, x_i) K(x_j, x_j)}},

which is positive semidefinite with a unit diagonal. :func:`gram_matrix` builds it
densely for any kernel; :func:`gram_operator` keeps the linear-kernel ``G = A^T A`` in
factored form so that a product costs ``O(n d)`` and a million points fit in memory.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse
from scipy.sparse.linalg import LinearOperator
from sklearn.metrics.pairwise import pairwise_kernels

from ._rbf import rbf_values_affine
from ._typing import ArrayLike, KernelLike
from ._validation import (
    DIAG_TOL,
    PSD_CHECK_MAX_N,
    PSD_TOL,
    GramProvenance,
    TrustedGramOperator,
    check_factor,
    check_finite,
    check_gram,
    check_index,
    check_operator,
    check_operator_output,
    check_positive,
    check_psd_matrix,
    check_unit_rows,
    check_X,
    check_Xy,
    check_Xy_sparse,
    gram_provenance,
    pow2_scale,
    row_norms,
    sparse_row_norms,
    trust_gram,
)

KERNELS = ("linear", "poly", "rbf")
#: The parameters each built-in kernel takes (any other is refused, not ignored).
KERNEL_PARAMS = {"linear": (), "rbf": ("gamma",), "poly": ("gamma", "degree", "coef0")}


def _check_kernel_args(kernel, kernel_params) -> dict:
    """Refuse an unknown kernel name or keyword, or a bad value; return the checked values.

    Shared by every public entry that takes kernel parameters: ``gamma`` must be ``None``
    (the default ``1 / n_features``) or a finite number ``> 0``, ``degree`` a positive
    integer and ``coef0`` a finite number.
    """
    if not callable(kernel) and (not isinstance(kernel, str) or kernel not in KERNELS):
        raise ValueError(f"kernel must be one of {KERNELS} or a callable; got {kernel!r}.")
    unknown = set(kernel_params) - {"gamma", "degree", "coef0"}
    if unknown:
        raise ValueError(
            f"unknown kernel parameter(s) {sorted(unknown)}; the kernels take gamma, degree "
            "and coef0."
        )
    if isinstance(kernel, str):
        unused = sorted(set(kernel_params) - set(KERNEL_PARAMS[kernel]))
        if unused:
            takes = ", ".join(KERNEL_PARAMS[kernel]) or "no parameters"
            raise ValueError(
                f"kernel={kernel!r} does not use {', '.join(unused)} (it takes {takes}); "
                f"remove {', '.join(unused)}."
            )
    params = dict(kernel_params)
    if params.get("gamma") is not None:
        params["gamma"] = check_positive(params["gamma"], "gamma")
    if "degree" in params:
        params["degree"] = check_positive(params["degree"], "degree", integer=True)
    if "coef0" in params:
        params["coef0"] = check_finite(params["coef0"], "coef0")
    return params


def _needs_psd_check(kernel, kernel_params) -> bool:
    """Whether a kernel may fail to be positive semidefinite: callables, and ``"poly"``
    with ``coef0 < 0`` (the other built-in kernels are PSD for valid parameters)."""
    return callable(kernel) or (kernel == "poly" and kernel_params.get("coef0", 1) < 0)


def _check_callable_output(K, shape: tuple[int, int]) -> np.ndarray:
    """The matrix returned by a kernel callable: real, of shape ``shape``, finite."""
    try:
        arr = np.asarray(K)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the kernel callable must return a numeric array: {exc}") from exc
    if arr.dtype.kind == "c":
        raise TypeError("the kernel callable returned a complex array; a kernel is real.")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"the kernel callable returned dtype {arr.dtype}; a kernel is real.")
    if arr.shape != shape:
        raise ValueError(f"the kernel callable returned shape {arr.shape}; expected {shape}.")
    arr = np.asarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError("the kernel callable returned NaN or inf values.")
    return arr


DEFAULT_CACHE_SIZE = 200.0
"""Megabytes of the column cache of NKP and NVN on a LinearOperator (scikit-learn's
``SVC(cache_size=200)`` default)."""


def kernel_matrix(
    X: ArrayLike, Z: ArrayLike | None = None, kernel: KernelLike = "linear", **kernel_params: Any
) -> np.ndarray:
    """Kernel values ``K(x_i, z_j)`` computed with :mod:`sklearn.metrics.pairwise`.

    Parameters
    ----------
    X : array_like of shape (n_samples_X, n_features)
    Z : array_like of shape (n_samples_Z, n_features), optional
        Defaults to ``X``.
    kernel : {"linear", "poly", "rbf"} or callable
        A callable receives two data matrices and returns their kernel matrix, as in
        :class:`sklearn.svm.SVC`.
    **kernel_params
        Passed to the kernel: ``gamma`` (``> 0`` and finite; ``None`` means
        ``1 / n_features``), ``degree`` (a positive integer), ``coef0`` (finite).

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Z)
        A callable's output is checked: real, finite, of this shape. When ``Z`` is
        omitted, a kernel that may not be positive semidefinite (a callable, or
        ``"poly"`` with ``coef0 < 0``) must also give a symmetric positive semidefinite
        ``K`` with ``K(x, x) >= 0``, as :func:`gram_matrix` requires; with a separate
        ``Z`` that cannot be checked (``K`` is rectangular).

    Examples
    --------
    >>> import numpy as np, kperc
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> kperc.kernel_matrix(X, kernel="linear").tolist()
    [[1.0, 0.0], [0.0, 4.0]]
    >>> kperc.kernel_matrix(X, kernel="rbf", gamma=0.5).round(4).tolist()
    [[1.0, 0.0821], [0.0821, 1.0]]
    """
    X = check_X(X)
    Z = X if Z is None else check_X(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features but Z has {Z.shape[1]}.")
    kernel_params = _check_kernel_args(kernel, kernel_params)
    K = _kernel_values(X, Z, kernel, kernel_params)
    if Z is X and _needs_psd_check(kernel, kernel_params):
        _check_kernel_matrix(K)
    return K


# The public functions of this module validate their arguments once; the private
# functions below (``_kernel_diagonal``, ``_gram_matrix``, ``_signed_normalized_points``)
# take checked arrays (float64, 2-D, finite; labels in {-1, +1}) and checked kernel
# parameters, and are what the rest of the package calls after its own validation.


def _kernel_values(X: np.ndarray, Z: np.ndarray, kernel, kernel_params: dict) -> np.ndarray:
    """The kernel matrix of checked inputs (no symmetry or PSD check)."""
    if callable(kernel):
        return _check_callable_output(kernel(X, Z), (X.shape[0], Z.shape[0]))
    if kernel == "rbf":
        return _rbf_kernel(X, Z, kernel_params.get("gamma"))
    K = pairwise_kernels(X, Z, metric=kernel, **kernel_params)
    if not np.all(np.isfinite(K)):
        raise ValueError(
            f"the {kernel!r} kernel's values overflow float64 for this data (entries up to "
            f"{max(np.max(np.abs(X)), np.max(np.abs(Z))):.3g}); rescale X, or use "
            "kperc.gram_matrix, whose normalised values are computed from scaled data."
        )
    return K


def _check_kernel_matrix(K: np.ndarray) -> None:
    """A square kernel matrix: ``K(x, x) >= 0``, symmetric and PSD (relative to its size)."""
    diag = np.diag(K)
    bad = np.flatnonzero(diag < 0)
    if bad.size:
        raise ValueError(
            f"the kernel gives K(x_i, x_i) = {diag[bad[0]]:.3g} < 0 at point {bad[0]}; a kernel "
            "has K(x, x) >= 0."
        )
    scale = float(np.max(np.abs(K)))
    if scale == 0.0:
        return
    asym = float(np.max(np.abs(K - K.T))) / scale
    if asym > DIAG_TOL:
        raise ValueError(
            f"the kernel is not symmetric (max |K - K.T| = {asym:.3g} relative to max |K|); "
            "a kernel must satisfy K(x, z) = K(z, x)."
        )
    check_psd_matrix(0.5 * (K + K.T) / scale, name="the kernel matrix")


#: Entries beyond this size make squared distances overflow (or, below its inverse,
#: underflow); the RBF kernel is then evaluated on scaled data.
_SAFE_SCALE = 1e100


def _rbf_kernel(X: np.ndarray, Z: np.ndarray, gamma) -> np.ndarray:
    """``exp(-gamma ||x - z||^2)`` as sklearn computes it, and from scaled data for entries
    beyond ``1e+-100`` (whose squared distances overflow or underflow), where sklearn's
    ``||x||^2 + ||z||^2 - 2 x.z`` gives ``inf - inf = NaN``."""
    gamma = 1.0 / X.shape[1] if gamma is None else gamma
    amax = max(float(np.max(np.abs(X))), float(np.max(np.abs(Z))))
    if amax == 0 or 1 / _SAFE_SCALE <= amax <= _SAFE_SCALE:
        return pairwise_kernels(X, Z, metric="rbf", gamma=gamma)
    s = pow2_scale(amax)  # exact scaling
    Xs, Zs = X / s, Z / s
    # differences, not ||x||^2 + ||z||^2 - 2 x.z: a point and its copy are at distance 0
    # exactly (sklearn's formula leaves 1e-16, which the factor s^2 below blows up)
    D2 = np.empty((X.shape[0], Z.shape[0]))
    block = max(1, 2**20 // max(1, Z.shape[0] * X.shape[1]))
    for i0 in range(0, X.shape[0], block):
        diff = Xs[i0 : i0 + block, None, :] - Zs[None, :, :]
        D2[i0 : i0 + block] = np.einsum("ijk,ijk->ij", diff, diff)
    with np.errstate(over="ignore", under="ignore"):
        t = (gamma * D2) * s * s  # inf where it overflows: exp(-inf) = 0 is right
        K = np.exp(-np.where(D2 > 0, t, 0.0))
    return K


def kernel_diagonal(
    X: ArrayLike, kernel: KernelLike = "linear", **kernel_params: Any
) -> np.ndarray:
    """The values ``K(x_i, x_i)`` without forming the full kernel matrix.

    The RBF diagonal is exactly 1. The linear and polynomial diagonals are computed from
    scaled row norms (no overflow in the squares); when the true value is not
    representable in float64 (for example ``(gamma ||x||^2 + coef0)^degree`` for
    entries near 1e300) a :class:`ValueError` says so. :func:`gram_matrix` still builds
    the normalised ``G`` of such data, from scaled quantities.
    """
    return _kernel_diagonal(check_X(X), kernel, _check_kernel_args(kernel, kernel_params))


def _kernel_diagonal(X: Any, kernel: KernelLike, kernel_params: dict) -> np.ndarray:
    """:func:`kernel_diagonal` of checked data and kernel parameters (a CSR ``X`` only
    for the linear kernel)."""
    if scipy.sparse.issparse(X):
        if kernel != "linear":  # pragma: no cover - callers refuse it first
            raise TypeError(f"a sparse X needs kernel='linear'; got kernel={kernel!r}.")
        with np.errstate(over="ignore", under="ignore"):
            d = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).reshape(-1)
        _check_representable(d, kernel, np.diff(scipy.sparse.csr_matrix(X).indptr) > 0)
        return d
    nonzero = np.any(X != 0, axis=1)
    if kernel == "linear":
        with np.errstate(over="ignore", under="ignore"):
            d = np.einsum("ij,ij->i", X, X)
        _check_representable(d, kernel, nonzero)
        return d
    if kernel == "rbf":
        return np.ones(X.shape[0])
    if kernel == "poly":
        degree = kernel_params.get("degree", 3)
        gamma = kernel_params.get("gamma")
        gamma = 1.0 / X.shape[1] if gamma is None else gamma
        coef0 = kernel_params.get("coef0", 1)
        with np.errstate(over="ignore", invalid="ignore"):
            d = (gamma * np.einsum("ij,ij->i", X, X) + coef0) ** degree
            if not np.all(np.isfinite(d)):
                d = (gamma * row_norms(X) ** 2 + coef0) ** degree
        _check_representable(d, kernel, nonzero if coef0 == 0 else None)
        return d
    return np.array(
        [
            _kernel_values(X[i : i + 1], X[i : i + 1], kernel, kernel_params)[0, 0]
            for i in range(X.shape[0])
        ]
    )


def linear_norms(X: Any) -> np.ndarray:
    """``||x_i|| = sqrt(K(x_i, x_i))`` of the linear kernel for a checked dense or CSR
    ``X``, accurate wherever it is representable (``inf`` beyond).

    The squared norm is used where it is a normal float64; a row whose square overflows
    or falls below the normal range (entries beyond about ``1e+-154``) is first scaled by
    the power of two that brings its largest entry into ``[0.5, 1)`` (exact), as
    :func:`gram_matrix` does.
    """
    sparse = scipy.sparse.issparse(X)
    with np.errstate(over="ignore", under="ignore"):
        if sparse:
            X = scipy.sparse.csr_matrix(X)
            d = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).reshape(-1)
            nonzero = np.diff(X.indptr) > 0
        else:
            d = np.einsum("ij,ij->i", X, X)
            nonzero = np.any(X != 0, axis=1)
    norms = np.sqrt(d)
    bad = np.flatnonzero(~(d < np.inf) | (nonzero & ~(d >= np.finfo(np.float64).tiny)))
    if bad.size:
        rows = X[bad]
        if sparse:
            amax = np.asarray(abs(rows).max(axis=1).todense(), dtype=np.float64).reshape(-1)
        else:
            amax = np.max(np.abs(rows), axis=1)
        e = np.frexp(np.where(amax > 0, amax, 1.0))[1]
        if sparse:
            r = np.repeat(np.arange(bad.size), np.diff(rows.indptr))
            rows = scipy.sparse.csr_matrix(
                (np.ldexp(rows.data, -e[r]), rows.indices, rows.indptr), rows.shape
            )
            scaled = sparse_row_norms(rows)
        else:
            scaled = row_norms(np.ldexp(rows, -e[:, None]))
        with np.errstate(over="ignore"):
            norms[bad] = np.ldexp(scaled, e)
    return norms


def _check_representable(d: np.ndarray, kernel, nonzero: np.ndarray | None) -> None:
    bad = ~np.isfinite(d)
    if nonzero is not None:
        bad |= (d == 0) & nonzero  # the square of a nonzero point underflowed
    bad = np.flatnonzero(bad)
    if bad.size:
        raise ValueError(
            f"K(x_i, x_i) of the {kernel!r} kernel overflows or underflows float64 for "
            f"{bad.size} point(s) "
            f"(first index {bad[0]}): the value is not representable. Rescale X; "
            "kperc.gram_matrix computes the normalised G of such data from scaled values."
        )


def _check_diag(diag: np.ndarray) -> None:
    bad = np.flatnonzero(~(diag > 0))
    if bad.size:
        raise ValueError(
            f"K(x_i, x_i) <= 0 for {bad.size} point(s) (first index {bad[0]}): the "
            "normalisation K(x_i,x_i)^(-1/2) is undefined. With the linear kernel this is a "
            "zero vector x_i; remove such points or add a constant feature (an intercept). "
            "(Such a point makes the strict problem infeasible: e_i is a certificate.)"
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
        use is refused).

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
        finite, ``degree`` a positive integer, ``coef0`` finite, and a kernel takes only
        its own parameters), when some ``K(x_i, x_i) <= 0``, or when a kernel callable
        (or ``"poly"`` with ``coef0 < 0``) gives a matrix that is not symmetric positive
        semidefinite.
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
    X, y = check_Xy(X, y)
    kernel_params = _check_kernel_args(kernel, kernel_params)
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
        )
    return trust_gram(G, info)


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


def _gram_matrix(
    X: np.ndarray, y: np.ndarray, kernel: KernelLike, kernel_params: dict
) -> np.ndarray:
    """:func:`gram_matrix` of checked data, labels and kernel parameters (a plain,
    writeable array)."""
    return _gram_matrix_bounded(X, y, kernel, kernel_params)[0]


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
        G, delta = _rbf_gram(X, y, kernel_params.get("gamma"))
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
    gamma = 1.0 / X.shape[1] if gamma is None else float(gamma)
    bk = rbf_values_affine(X, X, gamma, repair_tol=GRAM_REPAIR_TOL)
    dk = bk.absolute + bk.relative if bk.err is None else float(np.max(bk.err))
    G = bk.K
    G *= y[:, None]
    G *= y[None, :]
    _symmetrize_inplace(G)
    np.fill_diagonal(G, 1.0)
    return G, float((dk + 2 * _U) * (1 + 4 * _U))


_U = np.finfo(np.float64).eps / 2  # unit round-off of float64
_ETA = 2.0**-1074  # the absolute error of an underflowed product


def _entry_error(X: np.ndarray, kernel, kernel_params: dict) -> float | None:
    """A bound on ``|G_ij - G*_ij|`` for the ``G`` that :func:`_gram_matrix_bounded`
    computes from these (checked, and for the linear kernel row-scaled) points; ``G*``
    is the exact normalised signed Gram matrix of the points, ``u = 2^-53``.

    Standard bounds: a dot product of length ``d`` is off by at most
    ``gamma_d |x|^T |z| <= gamma_d ||x|| ||z||`` (``gamma_d = d u / (1 - d u)``), every
    other operation by a relative ``u`` (``exp`` and ``**`` by ``4 u``), and an
    underflowed product by ``2^-1074``. Then, with ``s_i = 1 / sqrt(K_ii)``:

    * linear: ``|K_ij - x_i^T x_j| <= gamma_d ||x_i|| ||x_j||`` and ``s_i`` is off by a
      relative ``gamma_d / 2 + 2 u``: ``(2 d + 8) u`` plus second-order terms;
    * rbf: the squared distance ``||x||^2 + ||z||^2 - 2 x^T z`` is off by at most
      ``4 (d + 3) u R^2`` (``R = max ||x_i||``), and ``exp(-t)`` is 1-Lipschitz for
      ``t >= 0``: ``K_ij`` is off by ``gamma 4 (d + 3) u R^2 + 6 u``; the data scaled for
      entries beyond ``1e+-100`` gives distances off by a relative ``(d + 8) u`` instead,
      and ``t e^-t <= 1``; the normalisation doubles the bound and adds ``9 u``;
    * poly (``coef0 >= 0``): by Cauchy-Schwarz ``|gamma x^T z + c| <= sqrt(k_ii k_jj)``
      for the base ``k = gamma x^T z + c``, so the normalised base ``r_ij`` is off by
      ``2 (d + 4) u`` and ``r^degree`` by ``degree`` times that times
      ``(1 + e)^(degree - 1)``; the scaled form clips ``r`` to ``[-1, 1]``.

    None for a callable or ``"poly"`` with ``coef0 < 0`` (no bound: the values are
    taken as given), and ``inf`` when the bound overflows.
    """
    n, d = X.shape
    gd = d * _U / (1.0 - d * _U)
    if isinstance(kernel, str) and kernel == "linear":
        # rows scaled so that max |x_ij| is in [1/2, 2]: ||x_i|| >= 1/2
        return (2.0 * gd + 10.0 * _U) * 1.01 + 16.0 * d * _ETA
    if callable(kernel) or (kernel == "poly" and kernel_params.get("coef0", 1) < 0):
        return None
    gamma = kernel_params.get("gamma")
    gamma = 1.0 / d if gamma is None else float(gamma)
    amax = float(np.max(np.abs(X))) if X.size else 0.0
    if kernel == "rbf":
        if amax == 0 or 1 / _SAFE_SCALE <= amax <= _SAFE_SCALE:
            r2 = float(np.max(row_norms(X))) ** 2 * (1.0 + 4 * (d + 4) * _U)
            lip = gamma * 4.0 * (gd + 3.0 * _U) * r2 * 1.02
            if not lip <= 0.1:
                return float(min(lip, np.inf))
            dk = 1.12 * lip + 6.0 * _U + gamma * 8.0 * d * _ETA
        else:
            sc = pow2_scale(amax)
            with np.errstate(over="ignore"):
                dk = (d + 8.0) * _U * 1.01 + 6.0 * _U + gamma * sc * sc * (d + 2.0) * _ETA
        return float(2.05 * dk + 9.0 * _U)
    degree = int(kernel_params.get("degree", 3))
    c = float(kernel_params.get("coef0", 1))
    if _poly_needs_scaling(X, kernel, kernel_params):  # r clipped to [-1, 1]
        e = (2.0 * d + 30.0) * _U * 1.02 + 8.0 * d * _ETA
        return float(min(degree * e + 6.0 * _U, np.inf))
    norms = row_norms(X)
    base_min = float(np.min(gamma * norms * norms + c))
    e = 2.0 * (gd + 4.0 * _U) * 1.01
    if base_min > 0:
        e += 4.0 * d * gamma * _ETA / base_min
    else:
        return np.inf
    if not degree * e <= 0.1:
        return np.inf
    grow = math.exp((degree - 1) * math.log1p(e))  # (1 + e)^(degree - 1) <= e^0.1
    return float(degree * e * grow + (1.0 + e) * grow * 14.0 * _U)


#: Columns of ``X`` combined into a row key (:func:`row_keys`); equal rows have equal
#: keys whatever columns are used, so more would only make fewer distinct rows collide.
ROW_KEY_COLUMNS = 32
_ROW_KEY_SEED = 20140621


def row_keys(X: np.ndarray) -> np.ndarray:
    """A key per row of a finite ``X``: equal rows get equal keys (compared with ``==``).

    The key is a fixed random combination of at most :data:`ROW_KEY_COLUMNS` columns (a
    seeded choice when there are more), computed column by column, elementwise, on ``X``
    divided by a power of two into ``[-2, 2]``: rows equal entry by entry go through the
    same operations on equal numbers (``-0.0`` and ``0.0`` compare equal), so their keys
    are equal, and no key overflows. Distinct rows may share a key; callers compare those
    exactly.
    """
    n, d = X.shape
    rng = np.random.default_rng(_ROW_KEY_SEED)
    r = rng.uniform(1.0, 2.0, (d,))
    cols = np.arange(d)
    if d > ROW_KEY_COLUMNS:
        cols = np.sort(rng.choice(d, ROW_KEY_COLUMNS, replace=False))
    amax = float(np.max(np.abs(X))) if X.size else 0.0
    # divided by a power of two (exactly) into [-2, 2], so that no key overflows
    scale = pow2_scale(amax) if amax > 0 else 1.0
    key = np.zeros(n)
    for j in cols:
        key += (X[:, j] / scale) * r[j]
    return key


def _may_repeat_rows(X: np.ndarray) -> bool:
    """False only when no two rows of the finite ``X`` are equal (their keys all differ)."""
    if X.shape[0] < 2:
        return False
    ks = np.sort(row_keys(X))
    return bool(np.any(ks[1:] == ks[:-1]))


def _poly_needs_scaling(X: np.ndarray, kernel, kernel_params: dict) -> bool:
    """Whether ``X`` is too large or too small for the plain polynomial kernel
    (entries beyond ``1e+-100``: ``x^T z`` overflows or underflows); only for
    ``coef0 >= 0``, where the scaled form below applies."""
    if kernel != "poly" or kernel_params.get("coef0", 1) < 0:
        return False
    amax = float(np.max(np.abs(X)))
    if amax > 0 and not (1 / _SAFE_SCALE <= amax <= _SAFE_SCALE):
        return True
    # the diagonal (gamma ||x||^2 + c)^degree itself may leave the float64 range
    norms = row_norms(X)
    nonzero = norms[norms > 0]
    if nonzero.size == 0:
        return False
    gamma = kernel_params.get("gamma")
    gamma = 1.0 / X.shape[1] if gamma is None else gamma
    c = kernel_params.get("coef0", 1)
    degree = kernel_params.get("degree", 3)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        ends = gamma * np.array([nonzero.min(), nonzero.max()]) ** 2 + c
        logs = degree * np.log(ends)
    return bool(np.any(~np.isfinite(logs)) or np.max(np.abs(logs)) > 600.0)


def _poly_gram_scaled(X: np.ndarray, y: np.ndarray, kernel_params: dict) -> np.ndarray:
    """The normalised signed polynomial Gram matrix from scaled quantities.

    With ``t_i = sqrt(gamma ||x_i||^2 + c)`` (a ``hypot``, no overflow),
    ``G_ij = y_i y_j (b_i^T b_j + e_i e_j)^degree`` for ``b_i = sqrt(gamma) x_i / t_i`` and
    ``e_i = sqrt(c) / t_i``: every quantity is at most 1, whatever the scale of ``X``.
    """
    degree = kernel_params.get("degree", 3)
    gamma = kernel_params.get("gamma")
    gamma = 1.0 / X.shape[1] if gamma is None else gamma
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


def _dense_seminorm_bound(G: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """``sqrt(p^T G p)`` accumulated in long double, and an upper bound (see _DenseGram).

    ``G`` is converted to long double ``block`` rows at a time; ``block = n / 32`` keeps that
    copy (16 bytes an entry) at 1/16 of ``G``'s own memory whatever ``n``.
    """
    pl = np.asarray(p, dtype=np.longdouble)
    q: Any = np.longdouble(0.0)  # a long-double scalar (numpy's stubs say ndarray)
    block = max(16, G.shape[0] // 32)
    for start in range(0, G.shape[0], block):
        stop = start + block
        q += pl[start:stop] @ (G[start:stop].astype(np.longdouble) @ pl)
    ul = np.finfo(np.longdouble).eps / 2
    l1 = float(np.abs(p).sum())
    err = float(2 * (G.shape[0] + 2) * ul) * l1 * l1  # |G_ij| <= 1 (+ validation slack)
    qf = max(float(q), 0.0)
    return float(np.sqrt(qf)), float(np.sqrt(qf + err))


def quick_seminorm_bound(gram, p: np.ndarray, *, data: bool = True) -> tuple[float, float]:
    """``gram.seminorm_bound(p)``, from one BLAS product when that is accurate enough;
    with ``data`` (the default) the bound holds for the exact Gram matrix of the data
    when ``G`` was built from data (:meth:`_DenseGram.data_bound`).

    On a dense ``G`` the bound accumulates ``p^T G p`` in extended precision without BLAS,
    which costs about 25 products at ``n = 2000``. In double precision ``p^T (G p)`` is
    off by at most ``2 (n + 2) u ||p||_1^2`` (each ``(G p)_i`` by ``(n + 2) u ||p||_1``,
    ``|G_ij| <= 1``). When that error is below ``1e-8`` of the computed value, the double
    value and its bound are returned (the value is then within ``1e-8`` relative of the
    extended one); otherwise, where the sum cancels, the extended computation decides.
    """
    if not isinstance(gram, _DenseGram):
        val, upper = gram.seminorm_bound(p)
    else:
        q = float(p @ (gram.G @ p))
        l1 = float(np.abs(p).sum())
        err = 2.0 * (gram.n + 2) * _U * l1 * l1
        if q > 0 and err <= 1e-8 * q:
            val, upper = float(np.sqrt(q)), float(np.sqrt(q + err))
        else:
            val, upper = gram.seminorm_bound(p)
    return val, (gram.data_bound(p, upper) if data else upper)


def seminorm_floor(gram, *, data: bool = True) -> float:
    """The smallest ``||p||_G`` bound attainable for ``p`` in the simplex (``p = 0`` ideal).

    An ``eps`` (or ``delta``) at or below this value cannot be certified in floating
    point; the algorithms refuse it. With ``data`` (the default), for a ``G`` built from
    data (:func:`gram_matrix`, :func:`gram_operator`) the floor is that of the exact
    Gram matrix ``G*`` of the data (:meth:`_DenseGram.data_bound`): about
    ``sqrt(entry_error)`` for a dense ``G``, ``row_error`` more for a factor.
    """
    if isinstance(gram, _DenseGram):
        ul = np.finfo(np.longdouble).eps / 2
        floor2 = 2 * (gram.n + 2) * ul + (gram.entry_error if data else 0.0)
        return float(np.sqrt(floor2))
    G = getattr(gram, "G", None)
    if isinstance(G, GramOperator):
        if G.sparse:  # see GramOperator.seminorm_bound
            floor = float((G.col_nnz + 2) * _U)
        else:
            floor = float((G.shape[0] + 2) * _U * np.sqrt(G.Z.shape[1]))
        return floor + (G.row_error if data else 0.0)
    return float(np.sqrt(2 * (gram.n + 2) * _U))


def check_attainable(value: float, name: str, gram) -> float:
    """Refuse a tolerance on ``||p||_G`` that floating point cannot certify for ``G`` as
    given (:func:`data_certifiable` tells whether it can be for the data)."""
    floor = seminorm_floor(gram, data=False)
    if value <= 2.0 * floor:
        raise ValueError(
            f"{name}={value:g} is below the accuracy with which ||p||_G can be certified "
            f"for this G (about {floor:.2g}: rounding in p^T G p, n = {gram.n}); use "
            f"{name} > {2.0 * floor:.2g}, or a kperc.GramOperator (factored G), whose "
            "floor is lower."
        )
    return value


def data_certifiable(value: float, gram) -> bool:
    """Whether a bound ``||p||_G <= value`` can be certified for what ``G`` stands for.

    True for a matrix or operator taken as given (its own floor is checked by
    :func:`check_attainable`). For one built from data, whether ``value`` is above twice
    the floor of the exact Gram matrix of the data (:func:`seminorm_floor`); when it is
    not, the algorithms test their certificate on ``G`` as rounded and report the
    outcome ``"undecided"`` (:func:`undecided_certificate`) instead of a certificate.
    """
    return not gram.from_data or value > 2.0 * seminorm_floor(gram)


def undecided_certificate(name: str, value: float, gram, stacklevel: int = 3) -> str:
    """Warn (RuntimeWarning) that a certificate at ``name=value`` holds for ``G`` as
    rounded but cannot be certified for the data; the sentence is returned for the
    result's message."""
    import warnings

    floor = 2.0 * seminorm_floor(gram)
    message = (
        f"undecided: a point p of the simplex has ||p||_G <= {name}={value:g} for G as "
        f"rounded, but G was built from data (its entries within {gram.entry_error:.2g} "
        f"of the data's exact Gram matrix), for which ||p|| can be certified only above "
        f"{floor:.2g}: {name}={value:g} is below that floor. Use {name} > {floor:.2g}, or "
        "pass np.array(G) to certify the matrix as given."
    )
    warnings.warn(message, RuntimeWarning, stacklevel=stacklevel)
    return message


def certified_separates(Z, w: np.ndarray, row_error: float = 0.0) -> tuple[bool, float]:
    """Whether ``Z w > 0`` holds beyond rounding; also the computed ``min_i (Z w)_i``.

    Each ``(Z w)_i`` is a sum of ``d`` products; its error is at most
    ``(d + 2) u (|Z| |w|)_i`` (``u`` the unit round-off), computed here entry-wise. For a
    scipy.sparse ``Z`` row ``i`` sums only its ``r_i`` stored entries, so ``d`` becomes
    ``r_i``: the bound depends on the nonzeros per row, not on the number of features.
    With ``row_error`` (each row within that of the point ``a*_i`` it stands for, as
    :func:`factor_row_error`), ``|(z_i - a*_i)^T w| <= row_error ||w||`` is added, so
    that ``a*_i^T w > 0`` holds for the data.
    """
    m = np.asarray(Z @ w).reshape(-1)
    if scipy.sparse.issparse(Z):
        terms = np.diff(scipy.sparse.csr_matrix(Z).indptr) + 2.0
        bound = terms * _U * np.asarray(abs(Z) @ np.abs(w)).reshape(-1)
    else:
        bound = (Z.shape[1] + 2) * _U * (np.abs(Z) @ np.abs(w))
    if row_error:
        bound = bound + row_error * float(np.linalg.norm(w)) * 1.01
    return bool(np.all(m > bound)), float(m.min())


def certified_positive(gmin: float, n: int, alpha_l1: float) -> bool:
    """Whether a computed ``min_i (G alpha)_i`` is positive beyond rounding error.

    Each ``(G alpha)_i`` is a sum of ``n`` products with ``|G_ij| <= 1``, so its
    floating-point error is at most about ``n u ||alpha||_1`` (``u = 2^-53``). The
    algorithms pass their ``gram.rounding_terms`` as ``n``: the size of ``G``, or for a
    factored :class:`GramOperator` that plus the most nonzeros in a row of its factor
    plus 2 (``n + d + 2`` for a dense factor with ``d`` columns). A smaller
    positive value does not prove separation: with a point repeated under the other
    label the exact value is 0, and BLAS can return ``+5e-17`` for it.
    """
    return bool(gmin > n * (np.finfo(np.float64).eps / 2) * alpha_l1)


def _refuse_false_certificate(G, j: int, value: float) -> None:
    raise ValueError(
        f"G (a {type(G).__name__}) has G[{j}, {j}] = {value:.6g}, not 1, at a point of the "
        "certificate p: on such a G a small ||p||_G proves nothing, and no certificate is "
        "returned. G must be a normalised signed Gram matrix (unit diagonal); check_input="
        "False skipped its validation."
    )


class _DenseGram:
    """Uniform access to a dense G for the algorithms."""

    column_evals = 0  # rows of a dense G are read, never computed

    def __init__(self, G: np.ndarray):
        self.G = G
        self.n = G.shape[0]
        #: ``c`` of :func:`certified_positive`: a computed ``(G v)_i`` sums ``n`` terms;
        #: for a matrix built by :func:`gram_matrix`, ``delta / u`` more, so that a
        #: separator holds for the exact Gram matrix of the data (``|G_ij - G*_ij| <=
        #: delta``, :class:`~kperc._validation.GramProvenance`)
        info = gram_provenance(G)
        delta = None if info is None else info.entry_error
        extra = 0 if delta is None else math.ceil(delta / _U) if delta < 1.0 else 2**53
        self.rounding_terms = self.n + extra
        #: built from data: certificates are bounded for ``G*`` (:meth:`data_bound`)
        self.from_data = delta is not None
        self.entry_error = 0.0 if delta is None else float(delta)

    def matvec(self, v):
        return self.G @ v

    def matvec_into(self, v, out):
        """``out[:] = G @ v`` without allocating (the same BLAS call as ``G @ v``)."""
        np.matmul(self.G, v, out=out)

    def column(self, j):
        return self.G[j]  # symmetric: row j is column j, and rows are contiguous

    def column_into(self, j, out):
        """Return column ``j``; dense rows are views, so ``out`` is not needed."""
        return self.G[j]

    def diagonal(self):
        return np.diag(self.G).copy()

    def check_certificate(self, p) -> None:
        """Refuse a certificate ``p`` unless ``G_jj = 1`` on its support (``O(|supp p|)``)."""
        idx = np.flatnonzero(p)
        d = self.G[idx, idx]
        bad = np.flatnonzero(~(np.abs(d - 1.0) <= DIAG_TOL))
        if bad.size:
            _refuse_false_certificate(self.G, int(idx[bad[0]]), float(d[bad[0]]))

    def seminorm(self, p):
        return self.seminorm_bound(p)[0]

    def seminorm_bound(self, p):
        """``||p||_G`` from ``p^T G p`` in extended precision, and an upper bound on it.

        ``p^T G p`` near 0 is a cancellation: in double precision its rounding error
        (up to ``(n + 1) u ||p||_1^2``) can hide a ``||p||_G`` of 1e-8. The quadratic form
        is accumulated in ``np.longdouble`` by row blocks, and the bound uses that type's
        round-off (the same as double on platforms without extended precision).
        """
        return _dense_seminorm_bound(self.G, p)

    def data_bound(self, p, upper: float) -> float:
        """An upper bound on ``||p||_{G*}`` from one (``upper``) on ``||p||_G``.

        ``G*`` is the exact Gram matrix of the data, ``|G_ij - G*_ij| <= delta``
        (``entry_error``), so ``|p^T (G - G*) p| <= delta ||p||_1^2`` and
        ``||p||_{G*}^2 <= upper^2 + delta ||p||_1^2`` (``delta ||p||_1^2 = delta`` on the
        simplex: the floor of a certificate is about ``sqrt(delta)``). ``upper`` itself
        for a matrix taken as given.
        """
        if not self.from_data:
            return upper
        l1 = float(np.abs(p).sum()) * (1.0 + 2 * self.n * _U)
        return float(np.sqrt(upper * upper + self.entry_error * l1 * l1)) * (1.0 + 4 * _U)


class _ColumnCache:
    """Least-recently-used cache of columns of ``G``, as in LIBSVM's kernel cache.

    NKP and NVN use one column ``G e_j`` per iteration, and the chosen ``j`` keep coming
    back (the points near the margin), so an operator whose column costs ``O(n d)``
    (:class:`GramOperator`) or a full product (any other LinearOperator) is asked for
    each distinct column once while it stays in the cache. At most
    ``m = min(n, cache_size MB / (8 n bytes))`` columns are kept. They live in blocks of
    about 2 MB allocated as the cache fills: with one large preallocated slab, the first
    write into each row was measured (n = 4000) to cost several times more than
    computing the column. The returned rows are views into the blocks and must not be
    written to.
    """

    BLOCK_BYTES = 1 << 21

    def __init__(
        self, compute_into: Callable[[int, np.ndarray], np.ndarray], n: int, cache_size: float
    ):
        self._compute_into = compute_into
        self.n = n
        self.capacity = int(min(n, (cache_size * 2**20) // (8 * n)))
        self._block_rows = max(1, min(self.capacity, self.BLOCK_BYTES // (8 * n)))
        self._rows: list[np.ndarray] = []  # row views of the allocated blocks
        self._slots: OrderedDict[int, np.ndarray] = OrderedDict()  # j -> row, oldest first
        self.misses = 0

    def get(self, j: int, out: np.ndarray) -> np.ndarray:
        """Column ``j``: from the cache, else computed (into the cache, or ``out``)."""
        slots = self._slots
        row = slots.get(j)
        if row is not None:
            slots.move_to_end(j)
            return row
        self.misses += 1
        if not self.capacity:
            return self._compute_into(j, out)
        if len(slots) < self.capacity:
            if len(slots) == len(self._rows):  # every allocated row is in use: grow
                rows = min(self._block_rows, self.capacity - len(self._rows))
                self._rows.extend(np.empty((rows, self.n)))
            row = self._rows[len(slots)]
        else:
            row = slots.popitem(last=False)[1]  # evict the least recently used
        col = self._compute_into(j, row)
        if col is not row:
            row[:] = col
        slots[j] = row
        return row


class _OperatorGram:
    """Uniform access to a LinearOperator G for the algorithms."""

    def __init__(self, G: LinearOperator, cache_size: float = 0.0):
        self.G = G
        self.n = G.shape[0]
        self._has_column = hasattr(G, "column")
        # Factored linear kernel: call BLAS on Z directly (the same products as
        # GramOperator._matvec) and skip the LinearOperator dispatch, which costs as much
        # as the product itself for small n.
        factored = isinstance(G, GramOperator)
        self._Z = G.Z if factored and not G.sparse else None
        self._w = np.empty(0 if self._Z is None else self._Z.shape[1])  # Z^T v, reused
        # a sparse factor: CSR products, with Z^T in CSR too (a row-wise mat-vec)
        self._S = G.Z if factored and G.sparse else None
        self._ST = self._S.T.tocsr() if self._S is not None else None
        #: ``c`` of :func:`certified_positive` (see :class:`GramOperator`): a factored
        #: ``(Z (Z^T v))_i`` sums ``n`` products, then the most nonzeros in a row of
        #: ``Z`` (``d`` for a dense factor), so ``n + row_nnz + 2``; ``n`` otherwise
        self.rounding_terms = self.n + G.row_nnz + 2 if factored else self.n
        #: a factor built from data (:func:`gram_operator`): each row ``z_i`` within
        #: ``r = row_error`` of the exact direction ``a*_i`` (a unit vector), so
        #: ``|z_i^T z_j - a*_i^T a*_j| <= |(z_i - a*_i)^T z_j| + |a*_i^T (z_j - a*_j)|
        #: <= r (1 + r) + r = r (2 + r)``: each ``(G alpha)_i`` is within
        #: ``r (2 + r) ||alpha||_1`` of the data's, ``r (2 + r) / u`` terms more, so that
        #: a separator holds for the exact Gram matrix of the data
        self.row_error = float(G.row_error) if factored else 0.0
        self.from_data = self.row_error > 0
        self.entry_error = self.row_error * (2.0 + self.row_error)
        if self.from_data:
            self.rounding_terms += math.ceil(self.entry_error / _U)
        self._cache = _ColumnCache(self._compute_column_into, self.n, cache_size)
        self.column_into = self._cache.get

    @property
    def column_evals(self) -> int:
        """Columns of ``G`` computed so far by :meth:`column_into` (cache misses)."""
        return self._cache.misses

    def matvec(self, v):
        if self._Z is not None:
            return self._Z @ (self._Z.T @ v)
        if self._S is not None:
            return self._S @ (self._ST @ v)
        try:
            out = self.G.matvec(v)
        except ValueError as exc:  # scipy's reshape of a wrong-sized product
            raise ValueError(
                f"G (a {type(self.G).__name__}) returned a product of the wrong shape "
                f"(expected ({self.n},)): {exc}"
            ) from exc
        return check_operator_output(out, self.n, "product G @ v", self.G)

    def matvec_into(self, v, out):
        """``out[:] = G @ v``; allocation-free for a :class:`GramOperator`."""
        if self._Z is not None:
            np.matmul(self._Z.T, v, out=self._w)
            np.matmul(self._Z, self._w, out=out)
        else:
            out[:] = self.matvec(v)

    def column(self, j):
        if self._has_column:
            return check_operator_output(self.G.column(j), self.n, f"column {j}", self.G)
        e = np.zeros(self.n)
        e[j] = 1.0
        return self.matvec(e)

    def _compute_column_into(self, j, out):
        """Column ``j`` of ``G``, written into ``out`` when that saves an allocation."""
        if self._Z is not None:
            np.matmul(self._Z, self._Z[j], out=out)
            return out
        if self._S is not None:
            return self._S @ self._S[j].toarray().reshape(-1)
        return self.column(j)

    def check_certificate(self, p) -> None:
        """Refuse a certificate ``p`` unless ``G_jj = 1`` on its support.

        A :class:`GramOperator`'s rows on the support are checked (``O(|supp p| d)``); a
        ``KernelGramOperator``'s diagonal is 1 by construction; any other operator's
        diagonal entries on the support are read (from ``diagonal()``, else one column
        each).
        """
        idx = np.flatnonzero(p)
        if isinstance(self.G, TrustedGramOperator) and self.G.exact_unit_diagonal:
            return
        if self._Z is not None:
            r = row_norms(self._Z[idx])
            d = r * r
        elif hasattr(self.G, "diagonal"):
            d = self.diagonal()[idx]
        else:
            d = np.array([self.column(int(j))[j] for j in idx])
        bad = np.flatnonzero(~(np.abs(d - 1.0) <= DIAG_TOL))
        if bad.size:
            _refuse_false_certificate(self.G, int(idx[bad[0]]), float(d[bad[0]]))

    def diagonal(self):
        if hasattr(self.G, "diagonal"):
            return check_operator_output(self.G.diagonal(), self.n, "diagonal", self.G)
        return np.array([self.column(j)[j] for j in range(self.n)])

    def seminorm(self, p):
        if hasattr(self.G, "seminorm"):
            return float(self.G.seminorm(p))
        return float(np.sqrt(max(float(p @ self.matvec(p)), 0.0)))

    def seminorm_bound(self, p):
        """``||p||_G`` and an upper bound on its exact value despite rounding."""
        if hasattr(self.G, "seminorm_bound"):
            return self.G.seminorm_bound(p)
        q = float(p @ self.matvec(p))
        l1 = float(np.abs(p).sum())
        val = float(np.sqrt(max(q, 0.0)))
        return val, float(np.sqrt(max(q, 0.0) + 2 * (self.n + 2) * _U * l1 * l1))

    def data_bound(self, p, upper: float) -> float:
        """An upper bound on ``||p||_{G*}`` from one (``upper``) on ``||p||_G``.

        For a factor built from data, ``||A* p|| <= ||Z^T p|| + ||(A* - Z)^T p||`` and
        ``||(A* - Z)^T p|| <= sum_i |p_i| ||a*_i - z_i|| <= row_error ||p||_1`` (see
        ``rounding_terms``): ``upper + row_error ||p||_1``. ``upper`` itself otherwise.
        """
        if not self.from_data:
            return upper
        l1 = float(np.abs(p).sum()) * (1.0 + 2 * self.n * _U)
        return (upper + self.row_error * l1) * (1.0 + 2 * _U)


def as_gram(G, *, check_psd: bool | None = None, validate: bool = True, cache_size: float = 0.0):
    """Validate ``G`` and wrap it for the algorithms (dense array or LinearOperator).

    With ``validate=False`` (the algorithms' ``check_input=False``) only the shape is
    checked: the ``O(n^2)`` symmetry, diagonal and finiteness scans are skipped, which
    matters when a cheap algorithm is called many times on the same matrix.
    ``cache_size`` (megabytes) sizes the column cache of a LinearOperator
    (a least-recently-used cache); a dense ``G`` needs none, its rows are views.
    """
    if not validate:
        if isinstance(G, LinearOperator):
            check_operator(G, probe=False)  # shape and dtype: O(1), or O(n d) for a factor
            return _OperatorGram(G, cache_size)
        if scipy.sparse.issparse(G):
            G = G.toarray()
        arr = np.asarray(G)
        if arr.dtype.kind not in "biuf":  # complex or object: never cast silently
            raise TypeError(f"G must be a real numeric matrix; got dtype {arr.dtype}.")
        arr = np.ascontiguousarray(arr, dtype=np.float64)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
            raise ValueError(f"G must be a non-empty square (n, n) matrix; got {arr.shape}.")
        return _DenseGram(arr)
    G = check_gram(G, check_psd=check_psd)
    if isinstance(G, LinearOperator):
        return _OperatorGram(G, cache_size)
    return _DenseGram(G)

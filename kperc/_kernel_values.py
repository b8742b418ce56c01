"""Kernel values ``K(x, z)`` and the bounds on their rounding (paper Section 3).

The kernels and their parameters (checked by :func:`_check_kernel_args`), the values
(:func:`kernel_matrix`), the diagonal and the bound on the rounding of each entry of a
normalised Gram matrix (:func:`_entry_error`). The public functions validate their
arguments; the private ones (``_kernel_values``, ``_kernel_diagonal``) trust them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse
from sklearn.metrics.pairwise import pairwise_kernels

from ._typing import ArrayLike, KernelLike
from ._validation import (
    DIAG_TOL,
    check_finite,
    check_positive,
    check_psd_matrix,
    check_X,
    pow2_scale,
    row_norms,
    sparse_row_norms,
)

_U = np.finfo(np.float64).eps / 2  # unit round-off of float64
_ETA = 2.0**-1074  # the absolute error of an underflowed product

KERNELS = ("linear", "poly", "rbf")
#: The parameters each built-in kernel takes (any other is refused, not ignored).
KERNEL_PARAMS = {"linear": (), "rbf": ("gamma",), "poly": ("gamma", "degree", "coef0")}


def _check_kernel_args(kernel, kernel_params, X=None) -> dict:
    """Refuse an unknown kernel name or keyword, or a bad value; return the checked values.

    Shared by every public entry that takes kernel parameters: ``gamma`` as
    :func:`resolve_gamma` takes it (resolved for the checked data ``X``, and set for the
    ``"rbf"`` and ``"poly"`` kernels, so that the private functions get a number),
    ``degree`` a positive integer and ``coef0`` a finite number. Without ``X`` (the
    estimator, which resolves its own ``gamma``) a given ``gamma`` must be a number.
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
    if X is not None and ("gamma" in params or kernel in ("rbf", "poly")):
        params["gamma"] = resolve_gamma(params.get("gamma"), X)
    elif params.get("gamma") is not None:
        params["gamma"] = check_positive(params["gamma"], "gamma")
    if "degree" in params:
        params["degree"] = check_positive(params["degree"], "degree", integer=True)
    if "coef0" in params:
        params["coef0"] = check_finite(params["coef0"], "coef0")
    return params


def resolve_gamma(gamma, X) -> float:
    """``gamma`` of the ``"rbf"`` and ``"poly"`` kernels for the data ``X`` (dense or
    scipy.sparse), with the values every function and the estimator take (documented
    once, in :func:`kernel_matrix`).

    For ``"scale"``, ``X.var()`` is computed on ``X`` over a power of two near its largest
    entry (exact: no square overflows or underflows) and ``gamma`` divided by that power's
    square last; where the result is not a normal float64 (entries beyond about
    ``1e+-154``) no float64 ``gamma`` stands for it, and a :class:`ValueError` says so.

    Examples
    --------
    >>> import numpy as np
    >>> from kperc._kernel_values import resolve_gamma
    >>> X = np.array([[0.0, 2.0], [2.0, 0.0]])
    >>> resolve_gamma(None, X), resolve_gamma("scale", X), resolve_gamma(0.5, X)
    (0.5, 0.5, 0.5)
    >>> resolve_gamma("scale", X * 2.0**-500) == 0.5 * 4.0**500  # exact, far from 1
    True
    >>> resolve_gamma("scale", X * 1e300)
    Traceback (most recent call last):
    ...
    ValueError: gamma='scale' is 1 / (n_features X.var()), about 1e-600 for this X ...
    """
    if gamma is None:
        return 1.0 / X.shape[1]
    if not isinstance(gamma, str):
        return check_positive(gamma, "gamma")
    if gamma != "scale":
        raise ValueError(f"gamma must be a positive number, 'scale' or None; got {gamma!r}.")
    n, d = X.shape
    amax = float(abs(X).max()) if n and d else 0.0
    if amax == 0:
        return 1.0
    scale = pow2_scale(amax)
    Xs = X / scale
    if scipy.sparse.issparse(Xs):
        mean = Xs.sum() / (n * d)
        var = float(Xs.multiply(Xs).sum() / (n * d) - mean**2)
    else:
        var = float(Xs.var())
    if var == 0:
        return 1.0
    with np.errstate(over="ignore", under="ignore"):
        g = 1.0 / (d * var) / scale / scale
    if not np.finfo(np.float64).tiny <= g < np.inf:
        e10 = -(math.log10(d * var) + 2 * math.log10(scale))
        raise ValueError(
            f"gamma='scale' is 1 / (n_features X.var()), about 1e{e10:+.0f} for this X "
            f"(entries up to {amax:.3g}), outside the normal range of float64. Rescale X "
            "(the RBF kernel with gamma='scale' is the same at every scale of X), or pass "
            "gamma as a number."
        )
    return g


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
        Passed to the kernel: ``gamma`` (``None``, the default, means ``1 / n_features``;
        ``"scale"``, the default of :class:`kperc.SNKPClassifier`, means
        ``1 / (n_features X.var())`` for the (training) ``X``, 1 when ``X.var() = 0``,
        and is refused with a :class:`ValueError` where it is outside the normal
        float64 range; or a finite number ``> 0``), ``degree`` (a positive integer),
        ``coef0`` (finite). Every function of kperc takes these values.

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
    kernel_params = _check_kernel_args(kernel, kernel_params, X)
    K = _kernel_values(X, Z, kernel, kernel_params)
    if Z is X and _needs_psd_check(kernel, kernel_params):
        _check_kernel_matrix(K)
    return K


def _kernel_values(X: np.ndarray, Z: np.ndarray, kernel, kernel_params: dict) -> np.ndarray:
    """The kernel matrix of checked inputs (no symmetry or PSD check)."""
    if callable(kernel):
        return _check_callable_output(kernel(X, Z), (X.shape[0], Z.shape[0]))
    if kernel == "rbf":
        return _rbf_kernel(X, Z, kernel_params["gamma"])
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
    X = check_X(X)
    return _kernel_diagonal(X, kernel, _check_kernel_args(kernel, kernel_params, X))


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
        gamma = kernel_params["gamma"]
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
    gamma = float(kernel_params["gamma"])
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
    gamma = kernel_params["gamma"]
    c = kernel_params.get("coef0", 1)
    degree = kernel_params.get("degree", 3)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        ends = gamma * np.array([nonzero.min(), nonzero.max()]) ** 2 + c
        logs = degree * np.log(ends)
    return bool(np.any(~np.isfinite(logs)) or np.max(np.abs(logs)) > 600.0)

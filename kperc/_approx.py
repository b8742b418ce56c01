"""Low-rank kernel operators (Nystroem, random Fourier features) and an exact-kernel check.

A kernel problem with ``n`` points needs the ``n x n`` matrix ``G`` when it is built
densely (:func:`kperc.gram_matrix`). An explicit feature map ``z`` with
``z(x)^T z(x') ~ K(x, x')`` replaces it by a factor: with rows
``y_i z(x_i) / ||z(x_i)||`` the normalised signed Gram matrix of the *approximate*
kernel is ``Z Z^T``, kept as a :class:`kperc.GramOperator` (memory ``O(n m)`` for ``m``
features, a product costs ``O(n m)``), so every algorithm runs on it unchanged.

The algorithms certify a separator against the operator they are given, here the
approximate kernel. :func:`exact_margin_check` then measures the same ``alpha`` under the
exact kernel, computing ``G alpha`` by row blocks without forming ``G``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.kernel_approximation import Nystroem, RBFSampler

from ._kernel_columns import check_kernel_sample
from ._kernels import (
    GramOperator,
    _check_kernel_args,
    _kernel_values,
    _needs_psd_check,
    certified_positive,
    kernel_diagonal,
)
from ._typing import ArrayLike, KernelLike, RandomStateLike
from ._validation import as_real_array, check_positive, check_Xy

__all__ = ["ApproxGramOperator", "ExactMarginCheck", "approx_gram_operator", "exact_margin_check"]

METHODS = ("nystroem", "rff")

TRANSFORM_BLOCK_BYTES = 1 << 24
"""Memory (16 MB) of one row block of features while they are computed."""

CHECK_BLOCK_BYTES = 1 << 23
"""Memory (8 MB) of one block of exact kernel values in :func:`exact_margin_check`."""


class ApproxGramOperator(GramOperator):
    """Normalised signed Gram matrix of an approximate kernel, in factored form.

    A :class:`kperc.GramOperator` whose rows are ``y_i z(x_i) / ||z(x_i)||`` for a fitted
    feature map ``z`` (built by :func:`approx_gram_operator`); the algorithms use its
    factored products.

    Attributes
    ----------
    transformer : sklearn.kernel_approximation.Nystroem or sklearn.kernel_approximation.RBFSampler
        The fitted feature map; ``transformer.transform(X_new)`` maps new points.
    method : {"nystroem", "rff"}
    feature_norms : ndarray of shape (n_samples,)
        ``||z(x_i)||``; for Nystroem ``||z(x_i)||^2 / K(x_i, x_i)`` is the fraction of the
        point's kernel norm that the landmarks capture (1 for a landmark).

    Examples
    --------
    >>> import kperc
    >>> X, y = kperc.datasets.circles(100, seed=0)
    >>> G = kperc.approx_gram_operator(X, y, gamma=2.0, n_components=30, random_state=0)
    >>> G.Z.shape, G.method
    ((100, 30), 'nystroem')
    """

    def __init__(
        self, Z: np.ndarray, transformer: Any, method: str, feature_norms: np.ndarray
    ) -> None:
        super().__init__(Z)
        self.transformer = transformer
        self.method = method
        self.feature_norms = feature_norms


def _rbf_gamma(kernel_params: dict, n_features: int) -> float:
    """The RBF ``gamma`` as :func:`sklearn.metrics.pairwise.rbf_kernel` defaults it."""
    gamma = kernel_params.get("gamma")
    if gamma is None:
        return 1.0 / n_features
    return check_positive(gamma, "gamma")


def approx_gram_operator(
    X: ArrayLike,
    y: ArrayLike,
    kernel: KernelLike = "rbf",
    *,
    n_components: int = 100,
    method: str = "nystroem",
    random_state: RandomStateLike = None,
    **kernel_params: Any,
) -> ApproxGramOperator:
    """Normalised signed Gram matrix of a low-rank kernel approximation, as an operator.

    Fits :class:`sklearn.kernel_approximation.Nystroem` (any kernel) or
    :class:`sklearn.kernel_approximation.RBFSampler` (random Fourier features, RBF kernel
    only) on ``X`` and returns the factored operator with rows
    ``y_i z(x_i) / ||z(x_i)||``: the normalised signed Gram matrix (paper Section 3) of
    the approximate kernel ``z(x)^T z(x')``. Every algorithm accepts it; memory and the
    cost of a product are ``O(n m)`` with ``m = n_components``.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.
    kernel : {"rbf", "poly", "linear"} or callable, default="rbf"
        The kernel to approximate; ``method="rff"`` needs ``"rbf"``.
    n_components : int, default=100
        Number of features ``m``: landmarks for Nystroem (at most ``n_samples`` are used;
        with ``n_components >= n_samples`` every point is a landmark and the operator equals
        :func:`kperc.gram_matrix` up to round-off when the kernel matrix is well
        conditioned), random frequencies for ``"rff"``.
    method : {"nystroem", "rff"}, default="nystroem"
    random_state : int, RandomState instance or None
        Seeds the choice of landmarks or frequencies; pass an int for reproducible runs.
    **kernel_params
        ``gamma``, ``degree``, ``coef0`` as in :func:`kperc.gram_matrix` (same defaults:
        the RBF ``gamma`` defaults to ``1 / n_features`` for both methods).

    Returns
    -------
    ApproxGramOperator

    Raises
    ------
    ValueError
        For bad parameters, or when some point has a zero feature vector (increase
        ``n_components``).

    Examples
    --------
    >>> import kperc
    >>> X, y = kperc.datasets.circles(200, seed=0)
    >>> G = kperc.approx_gram_operator(X, y, gamma=2.0, n_components=50, random_state=0)
    >>> kperc.snkp(G).outcome
    'separator'
    """
    X, y = check_Xy(X, y)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}.")
    n_components = check_positive(n_components, "n_components", integer=True)
    kernel_params = _check_kernel_args(kernel, kernel_params)
    return _approx_gram_operator(X, y, kernel, n_components, method, random_state, kernel_params)


def _approx_gram_operator(
    X: np.ndarray,
    y: np.ndarray,
    kernel: KernelLike,
    n_components: int,
    method: str,
    random_state: RandomStateLike,
    kernel_params: dict,
) -> ApproxGramOperator:
    """:func:`approx_gram_operator` of checked data, labels and parameters."""
    n, d = X.shape
    if _needs_psd_check(kernel, kernel_params):  # checked on a sample of 256 points
        check_kernel_sample(X, kernel, kernel_params)
    amax = float(np.max(np.abs(X)))
    if method == "nystroem" and amax > 0 and not (2.0**-500 <= amax <= 2.0**500):
        # sklearn's Nystroem evaluates the kernel as ||x||^2 + ||z||^2 - 2 x.z (RBF) or
        # x.z: at this scale those overflow or underflow to NaN, inf or 0
        raise ValueError(
            f"X has entries of size {amax:.3g}, beyond 2**+-500 (about 3e+-150): the "
            "Nystroem feature map "
            "cannot be evaluated at this scale (the kernel values overflow or underflow). "
            "Rescale X; for the RBF kernel, K(x, z) = exp(-gamma ||x - z||^2) is unchanged "
            "when X is divided by s and gamma multiplied by s^2."
        )
    if method == "rff":
        if kernel != "rbf":
            raise ValueError(
                f"method='rff' (random Fourier features) approximates the 'rbf' kernel only; "
                f"got kernel={kernel!r}. Use method='nystroem' for other kernels."
            )
        transformer = RBFSampler(
            gamma=_rbf_gamma(kernel_params, d),
            n_components=n_components,
            random_state=random_state,
        )
    else:
        params = dict(kernel_params)
        if kernel == "rbf":
            params["gamma"] = _rbf_gamma(kernel_params, d)
        transformer = Nystroem(
            kernel=kernel,
            n_components=min(n_components, n),  # sklearn would warn and clip
            random_state=random_state,
            **params,
        )
    transformer.fit(X)
    # Transform by row blocks into one preallocated array: the whole-X transform would hold
    # two more n x m temporaries (the kernel block and its product), tripling peak memory.
    first = np.asarray(transformer.transform(X[:1]), dtype=np.float64)
    F = np.empty((n, first.shape[1]))
    block = max(1, TRANSFORM_BLOCK_BYTES // (8 * max(first.shape[1], 1)))
    for i0 in range(0, n, block):
        F[i0 : i0 + block] = transformer.transform(X[i0 : i0 + block])
    norms = np.sqrt(np.einsum("ij,ij->i", F, F))  # no n x m temporary, unlike linalg.norm
    bad = np.flatnonzero(~(norms > 0) | ~np.isfinite(norms))
    if bad.size:
        raise ValueError(
            f"{bad.size} point(s) (first index {bad[0]}) have a zero or non-finite feature "
            f"vector under method={method!r} with n_components={n_components}, so the "
            "normalisation z(x)/||z(x)|| is undefined; increase n_components or change the "
            "kernel parameters."
        )
    F *= (y / norms)[:, None]
    return ApproxGramOperator(F, transformer, method, norms)


@dataclass(frozen=True)
class ExactMarginCheck:
    """How a dual vector ``alpha`` separates under the exact kernel.

    Attributes
    ----------
    Galpha : ndarray of shape (n_samples,) or (n_rows,)
        ``G alpha`` with ``G`` the exact normalised signed Gram matrix, on the checked rows.
    min_Galpha : float
        ``min_i (G alpha)_i``.
    fraction_separated : float
        Fraction of points with ``(G alpha)_i`` positive beyond rounding.
    certified : bool
        Whether ``min_i (G alpha)_i`` is positive beyond rounding (``alpha`` separates
        every point under the exact kernel).

    Examples
    --------
    >>> import numpy as np, kperc
    >>> X, y = np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1.0, -1.0])
    >>> check = kperc.exact_margin_check(X, y, [0.5, 0.5], "linear")
    >>> check.min_Galpha, check.fraction_separated, check.certified
    (1.0, 1.0, True)
    """

    Galpha: np.ndarray
    min_Galpha: float
    fraction_separated: float
    certified: bool


def exact_margin_check(
    X: ArrayLike,
    y: ArrayLike,
    alpha: ArrayLike,
    kernel: KernelLike = "rbf",
    *,
    block_size: int | None = None,
    rows: ArrayLike | None = None,
    **kernel_params: Any,
) -> ExactMarginCheck:
    """Evaluate ``G alpha`` for the exact kernel by row blocks, without forming ``G``.

    Used after a run on an approximate operator (:func:`approx_gram_operator`), whose
    separator is certified for the approximate kernel only: this reports whether, and on
    how many points, the same ``alpha`` separates under the exact kernel.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
    alpha : array_like of shape (n_samples,)
        Non-negative dual vector (``result.alpha`` of an algorithm).
    kernel : {"rbf", "poly", "linear"} or callable, default="rbf"
    block_size : int, optional
        Rows of ``G`` evaluated at a time; memory is ``O(block_size * s)`` for ``s`` the
        number of non-zero entries of ``alpha``. By default blocks of about 8 MB.
    rows : array_like of int, optional
        Check only these points (for example a random subsample when ``n`` is too large
        for all ``n * s`` kernel values); ``Galpha`` then has one entry per row, and
        ``certified`` speaks for these points only.
    **kernel_params
        As in :func:`kperc.gram_matrix`.

    Returns
    -------
    ExactMarginCheck

    Examples
    --------
    >>> import kperc
    >>> X, y = kperc.datasets.circles(200, seed=0)
    >>> G = kperc.approx_gram_operator(X, y, gamma=2.0, n_components=50, random_state=0)
    >>> res = kperc.snkp(G)
    >>> kperc.exact_margin_check(X, y, res.alpha, gamma=2.0).certified
    True
    """
    X, y = check_Xy(X, y)
    n = X.shape[0]
    if block_size is not None:
        block_size = check_positive(block_size, "block_size", integer=True)
    kernel_params = _check_kernel_args(kernel, kernel_params)
    a = as_real_array(alpha, "alpha")
    if a.shape != (n,):
        raise ValueError(f"alpha must have shape ({n},) like y; got {a.shape}.")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError("alpha must be finite and non-negative (a result's alpha is).")
    if _needs_psd_check(kernel, kernel_params):  # symmetric PSD on a sample, as gram_matrix
        check_kernel_sample(X, kernel, kernel_params)
    diag = kernel_diagonal(X, kernel, **kernel_params)
    if np.any(~(diag > 0)):
        raise ValueError("K(x_i, x_i) <= 0 for some point: the normalised kernel is undefined.")
    s = y / np.sqrt(diag)
    if rows is None:
        rows = np.arange(n)
    else:
        rows = np.asarray(rows)
        if rows.ndim != 1 or rows.size == 0 or not np.issubdtype(rows.dtype, np.integer):
            raise ValueError("rows must be a non-empty 1-D array of point indices.")
        if rows.min() < -n or rows.max() >= n:
            raise ValueError(f"rows must index the {n} points; got values out of range.")
    support = np.flatnonzero(a)
    Xs = X[support]
    w = (s * a)[support]
    m = rows.size
    if block_size is None:
        block_size = max(1, CHECK_BLOCK_BYTES // (8 * max(support.size, 1)))
    Galpha = np.zeros(m)
    for i0 in range(0, m if support.size else 0, block_size):
        r = rows[i0 : i0 + block_size]
        K = _kernel_values(X[r], Xs, kernel, kernel_params)  # finite, scaled RBF
        Galpha[i0 : i0 + r.size] = s[r] * (K @ w)
    gmin = float(Galpha.min())
    l1 = float(a.sum())
    tol = n * (np.finfo(np.float64).eps / 2) * l1  # the rounding bound of certified_positive
    return ExactMarginCheck(
        Galpha=Galpha,
        min_Galpha=gmin,
        fraction_separated=float(np.mean(Galpha > tol)),
        certified=bool(certified_positive(gmin, n, l1)),
    )

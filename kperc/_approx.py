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

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import OptimizeResult
from sklearn.kernel_approximation import Nystroem, RBFSampler

from ._gram import certified_positive
from ._gram_matrix import GramOperator
from ._kernel_columns import check_kernel_sample
from ._kernel_values import (
    _check_kernel_args,
    _kernel_diagonal,
    _kernel_values,
    _needs_psd_check,
    resolve_gamma,
)
from ._perceptrons import snkp
from ._rbf import RbfBound, rbf_values_affine
from ._typing import ArrayLike, KernelLike, RandomStateLike
from ._validation import TrustedGramOperator, as_real_array, check_positive, check_Xy

_U64 = np.finfo(np.float64).eps / 2  # unit round-off of float64

__all__ = [
    "ApproxGramOperator",
    "ExactMarginCheck",
    "NystroemResult",
    "approx_gram_operator",
    "exact_margin_check",
    "snkp_nystroem",
]

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
        ``gamma``, ``degree``, ``coef0`` as in :func:`kperc.kernel_matrix` (same values
        and defaults, for both methods).

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
    kernel_params = _check_kernel_args(kernel, kernel_params, X)
    return _approx_gram_operator(X, y, kernel, n_components, method, random_state, kernel_params)


def _approx_gram_operator(
    X: np.ndarray,
    y: np.ndarray,
    kernel: KernelLike,
    n_components: int,
    method: str,
    random_state: RandomStateLike,
    kernel_params: dict,
    dtype: type = np.float64,
) -> Any:
    """:func:`approx_gram_operator` of checked data, labels and parameters.

    With ``dtype=np.float32`` the rows are computed in float64 and stored rounded to
    float32 (half the memory), in a :class:`_Float32Products` operator for
    :func:`snkp_nystroem`; the default returns the public :class:`ApproxGramOperator`.
    """
    n = X.shape[0]
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
            gamma=kernel_params["gamma"],
            n_components=n_components,
            random_state=random_state,
        )
    else:
        transformer = Nystroem(
            kernel=kernel,
            n_components=min(n_components, n),  # sklearn would warn and clip
            random_state=random_state,
            **kernel_params,
        )
    transformer.fit(X)
    # Transform by row blocks into one preallocated array: the whole-X transform would hold
    # two more n x m temporaries (the kernel block and its product), tripling peak memory.
    first = np.asarray(transformer.transform(X[:1]), dtype=np.float64)
    F: np.ndarray = np.empty((n, first.shape[1]), dtype=dtype)
    block = max(1, TRANSFORM_BLOCK_BYTES // (8 * max(first.shape[1], 1)))
    if dtype is np.float64:
        for i0 in range(0, n, block):
            F[i0 : i0 + block] = transformer.transform(X[i0 : i0 + block])
        norms = np.sqrt(np.einsum("ij,ij->i", F, F))  # no n x m temporary, unlike linalg.norm
    else:  # each block normalised in float64, then rounded once to the storage type
        norms = np.empty(n)
        for i0 in range(0, n, block):
            Fb = transformer.transform(X[i0 : i0 + block])
            nb = norms[i0 : i0 + block] = np.sqrt(np.einsum("ij,ij->i", Fb, Fb))
            ok = np.where((nb > 0) & np.isfinite(nb), nb, 1.0)
            F[i0 : i0 + block] = Fb * (y[i0 : i0 + block] / ok)[:, None]
    bad = np.flatnonzero(~(norms > 0) | ~np.isfinite(norms))
    if bad.size:
        raise ValueError(
            f"{bad.size} point(s) (first index {bad[0]}) have a zero or non-finite feature "
            f"vector under method={method!r} with n_components={n_components}, so the "
            "normalisation z(x)/||z(x)|| is undefined; increase n_components or change the "
            "kernel parameters."
        )
    if dtype is not np.float64:
        return _Float32Products(F, transformer, norms)
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
        every point under the exact kernel). For the RBF kernel "rounding" includes a
        bound on the error of each kernel value, which stays small at any ``gamma``.

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
    kernel_params = _check_kernel_args(kernel, kernel_params, X)
    a = as_real_array(alpha, "alpha")
    if a.shape != (n,):
        raise ValueError(f"alpha must have shape ({n},) like y; got {a.shape}.")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError("alpha must be finite and non-negative (a result's alpha is).")
    if rows is None:
        rows = np.arange(n)
    else:
        rows = np.asarray(rows)
        if rows.ndim != 1 or rows.size == 0 or not np.issubdtype(rows.dtype, np.integer):
            raise ValueError("rows must be a non-empty 1-D array of point indices.")
        if rows.min() < -n or rows.max() >= n:
            raise ValueError(f"rows must index the {n} points; got values out of range.")
    if _needs_psd_check(kernel, kernel_params):  # symmetric PSD on a sample, as gram_matrix
        check_kernel_sample(X, kernel, kernel_params)
    return _exact_margin_check(X, y, a, kernel, kernel_params, rows, block_size)


def _exact_margin_check(X, y, a, kernel, kernel_params: dict, rows, block_size):
    """:func:`exact_margin_check` of checked data, labels, weights, kernel parameters and
    row indices (a kernel that may not be PSD already checked on a sample)."""
    n = X.shape[0]
    diag = _kernel_diagonal(X, kernel, kernel_params)
    if np.any(~(diag > 0)):
        raise ValueError("K(x_i, x_i) <= 0 for some point: the normalised kernel is undefined.")
    s = y / np.sqrt(diag)
    Galpha, bound = _exact_galpha(X, a, s, kernel, kernel_params, rows, block_size)
    gmin = float(Galpha.min())
    separated = Galpha > bound
    return ExactMarginCheck(
        Galpha=Galpha,
        min_Galpha=gmin,
        fraction_separated=float(np.mean(separated)),
        certified=bool(certified_positive(gmin, n, float(a.sum())) and np.all(separated)),
    )


def _exact_galpha(X, a, s, kernel, kernel_params: dict, rows, block_size) -> tuple:
    """``G alpha`` on ``rows`` for checked data, and a bound on each entry's error: the
    rounding bound of :func:`certified_positive` and, for the RBF kernel, the error of
    its kernel values (:func:`kperc._rbf.rbf_values_affine`) plus the sum's rounding.

    For the RBF kernel on every row with every ``alpha_j > 0`` (SNKP's iterates), the
    kernel matrix is symmetric: each off-diagonal block is evaluated once and used for
    both of its row blocks (half the kernel values). A block and its transpose may
    differ in rounding; either is within the bound of the exact values, which is all
    the check uses.
    """
    n = X.shape[0]
    support = np.flatnonzero(a)
    w = s * a
    aw = np.abs(w)
    l1 = float(a.sum())
    m = rows.size
    if block_size is None:
        block_size = max(1, CHECK_BLOCK_BYTES // (8 * max(support.size, 1)))
    Galpha, scale, kerr = np.zeros(m), np.zeros(m), np.zeros(m)
    if kernel == "rbf":
        gamma = kernel_params["gamma"]
        if support.size == n and m == n and np.array_equal(rows, np.arange(n)):
            b = max(1, int(np.sqrt(CHECK_BLOCK_BYTES / 8)))
            starts = range(0, n, b)
            for i0 in starts:
                rb = slice(i0, i0 + b)
                for j0 in starts[i0 // b :]:
                    cb = slice(j0, j0 + b)
                    bk = rbf_values_affine(X[rb], X[cb], gamma)
                    _add_block(bk, w[cb], aw[cb], Galpha[rb], scale[rb], kerr[rb])
                    if j0 != i0:
                        _add_block(bk, w[rb], aw[rb], Galpha[cb], scale[cb], kerr[cb], T=True)
            Galpha *= s
            terms = n + len(starts) + 2  # the partial sums of the blocks, then their sum
        else:
            Xs, ws, aws = X[support], w[support], aw[support]
            for i0 in range(0, m if support.size else 0, block_size):
                r = rows[i0 : i0 + block_size]
                blk = slice(i0, i0 + r.size)
                bk = rbf_values_affine(X[r], Xs, gamma)
                _add_block(bk, ws, aws, Galpha[blk], scale[blk], kerr[blk])
            Galpha *= s[rows]
            terms = support.size + 2
        # nonnegative sums rounded: inflate by their own relative rounding
        kerr = (kerr + terms * _U64 * scale) * (1 + 2 * (terms + 4) * _U64)
    else:
        Xs, ws = X[support], w[support]
        for i0 in range(0, m if support.size else 0, block_size):
            r = rows[i0 : i0 + block_size]
            K = _kernel_values(X[r], Xs, kernel, kernel_params)  # finite, from scaled data
            Galpha[i0 : i0 + r.size] = s[r] * (K @ ws)
    return Galpha, np.maximum(n * _U64 * l1, kerr)


def _add_block(bk: RbfBound, w, aw, g, scale, kerr, T: bool = False) -> None:
    """Add ``K w`` to ``g``, ``K |w|`` to ``scale`` and the bound of the kernel values'
    error times ``|w|`` to ``kerr``, for the RBF values ``K = bk.K`` or their transpose
    (``T``)."""
    K = bk.K.T if T else bk.K
    kw = K @ np.column_stack([w, aw])
    g += kw[:, 0]
    scale += kw[:, 1]
    kerr += bk.absolute * float(aw.sum()) + bk.relative * kw[:, 1]
    if bk.err is not None:
        kerr += (bk.err.T if T else bk.err) @ aw


class _Float32Products(TrustedGramOperator):
    """``G = Z Z^T`` with the rows of ``Z`` stored in float32: products at half the memory
    traffic.

    Used only inside :func:`snkp_nystroem`. A product rounds ``v`` to float32 and runs
    single-precision BLAS, so it carries a relative error of order ``m 2^-24``, far above
    float64's: an SNKP run on this operator only *proposes* a separator, which counts
    only after the float64 check under the exact kernel (:func:`_landmark_check`). The
    operator is not exported: :func:`kperc.snkp` would call its proposal a separator.
    Its rows are the unit rows of :func:`_approx_gram_operator` rounded to float32, so it
    is a valid Gram form by construction (a :class:`~kperc._validation.TrustedGramOperator`:
    SNKP takes it without probes, as every operator kperc builds).
    """

    def __init__(self, Z32: np.ndarray, transformer: Any, feature_norms: np.ndarray) -> None:
        super().__init__(dtype=np.float64, shape=(Z32.shape[0], Z32.shape[0]))
        self.Z32 = Z32
        self.transformer = transformer
        self.feature_norms = feature_norms
        self._v = np.empty(Z32.shape[0], dtype=np.float32)
        self._w = np.empty(Z32.shape[1], dtype=np.float32)
        self._out = np.empty(Z32.shape[0], dtype=np.float32)

    def _matvec(self, v):
        self._v[:] = np.asarray(v).reshape(-1)
        np.matmul(self.Z32.T, self._v, out=self._w)
        np.matmul(self.Z32, self._w, out=self._out)
        return self._out.astype(np.float64)

    def _rmatvec(self, v):
        return self._matvec(v)

    def coef(self, alpha: np.ndarray) -> np.ndarray:
        """``Z^T alpha`` accumulated in float64 (by row blocks of the float32 rows)."""
        v = np.zeros(self.Z32.shape[1])
        block = max(1, TRANSFORM_BLOCK_BYTES // (8 * max(self.Z32.shape[1], 1)))
        for i0 in range(0, self.Z32.shape[0], block):
            v += alpha[i0 : i0 + block] @ self.Z32[i0 : i0 + block].astype(np.float64)
        return v


@dataclass(frozen=True)
class _LandmarkCheck:
    yf: np.ndarray  # y_i g(x_i), as computed
    bound: np.ndarray  # rounding bound of each entry
    certified: bool


def _landmark_check(
    X: np.ndarray, y: np.ndarray, landmarks: np.ndarray, beta: np.ndarray, gamma: float
) -> _LandmarkCheck:
    """Whether ``g(x) = sum_l beta_l exp(-gamma ||x - z_l||^2)`` separates every point,
    beyond rounding, under the exact RBF kernel.

    ``g`` is the function a Nystroem model computes (``z(x) . v = K(x, Z_L) N^T v`` with
    ``beta = N^T v``), so this checks the model that predicts, with exact kernel values,
    at ``O(n m)`` cost. Rounding bound of ``y_i g(x_i)`` (``u = 2^-53``):

    * scikit-learn computes ``d2 = ||x||^2 + ||z||^2 - 2 x.z``; each term has error at
      most ``gamma_d (||x||^2 + ||z||^2)`` and the sums add ``4u`` times as much, so
      ``|d2~ - d2| <= (2d + 8) u (||x||^2 + ||z||^2)`` (and ``d2~ <= 2(||x||^2 + ||z||^2)``);
    * ``exp(-gamma d2~)`` then has relative error at most
      ``r = gamma (2d + 10) u (||x||^2 + ||z||^2) + 4u`` (the argument's error and the
      correctly-rounded-within-an-ulp ``exp``); with ``r <= 1/2``,
      ``|K~ - K| <= 2 r K~``, plus ``2^-1022`` for a value flushed to 0;
    * the sum over ``m`` landmarks adds ``gamma_m sum_l |K~_il beta_l|``.

    So ``|y_i g~(x_i) - y_i g(x_i)| <= (2 r_i + (m + 2) u) (K~_i . |beta|) + 2^-1022 ||beta||_1``,
    with ``r_i`` at the largest landmark norm; the computed ``K~_i . |beta|`` is inflated
    by ``1 + 4 m u`` for its own rounding. A point counts as separated when ``y_i g~(x_i)``
    exceeds this bound.
    """
    n, d = X.shape
    m = landmarks.shape[0]
    u = np.finfo(np.float64).eps / 2
    sq_x = np.einsum("ij,ij->i", X, X)
    sq_l = float(np.max(np.einsum("ij,ij->i", landmarks, landmarks)))
    r = gamma * (2 * d + 10) * u * (sq_x + sq_l) + 4 * u
    abs_beta = np.abs(beta)
    yf = np.empty(n)
    scale = np.empty(n)
    block = max(1, CHECK_BLOCK_BYTES // (8 * max(m, 1)))
    for i0 in range(0, n, block):
        K = _kernel_values(X[i0 : i0 + block], landmarks, "rbf", {"gamma": gamma})
        yf[i0 : i0 + block] = y[i0 : i0 + block] * (K @ beta)
        scale[i0 : i0 + block] = K @ abs_beta
    bound = (2 * r + (m + 2) * u) * scale * (1 + 4 * m * u) + 2.0**-1022 * float(abs_beta.sum())
    ok = bool(np.all(r <= 0.5) and np.all(yf > bound) and np.all(np.isfinite(yf)))
    return _LandmarkCheck(yf=yf, bound=bound, certified=ok)


PRODUCTS = ("float32", "float64")

#: :func:`snkp_nystroem`: a stage's iteration budget is this many times the previous one
#: (the rank doubles). The iterations SNKP needs grow as ``1 / rho`` whatever the rank, so
#: the budget must outgrow the rank; with 4 the stages' costs ``m K`` grow eightfold, and
#: the failed stages cost at most a seventh of a full last stage.
STAGE_ITER_GROWTH = 4
#: :func:`snkp_nystroem` tests a certificate under the exact kernel up to this many
#: points (``n^2`` kernel values: about 0.1 s at ``n = 7000`` in 3 dimensions).
CERTIFICATE_MAX_N = 20_000
CERTIFY = ("landmarks", "dual")
#: :func:`snkp_nystroem`'s default ``max_residual``: the rank stops growing when the
#: features of the largest rank are predicted to miss more than this fraction of an
#: average point's kernel norm. Measured on ``planted_rbf`` (``n = 2 10^4``,
#: ``gamma = 2``, ``rho = 1e-3``; rank 4096): the fraction missed was ``4e-8`` at
#: ``d = 3``, ``3e-5`` at ``d = 4``, ``5e-3`` at ``d = 5`` and ``0.27`` at ``d = 8``,
#: where the grown rank answered only at the cap, after minutes (``SVC``: 20 s).
MAX_RESIDUAL = 0.1


class NystroemResult(OptimizeResult):
    """Outcome of :func:`snkp_nystroem` (a :class:`scipy.optimize.OptimizeResult`).

    Attributes
    ----------
    certified : bool
        Whether the returned separator passed the float64 check under the exact kernel
        (beyond rounding) on every training point.
    outcome : {"separator", "certificate", "not certified"}
    stop : {"certified", "certificate", "max_components", "max_iter", "residual"}
        Why the rank stopped growing: a certified separator; a ``tol``-certificate
        under the exact kernel (with ``tol`` given); the cap
        ``max_components`` (or every point a landmark) reached without one; the
        total iteration budget ``max_iter`` used up; or features predicted to miss
        more than ``max_residual`` of the kernel even at the cap.
    message : str
    n_components : int
        The rank ``m`` of the last stage (the one returned).
    nit : int
        SNKP iterations over all stages.
    alpha : ndarray of shape (n_samples,)
        SNKP's dual vector of the last stage (on the simplex).
    coef : ndarray of shape (n_components,)
        ``v = Z^T alpha``: the model is ``f(x) = transformer.transform(x) . v``.
    landmarks : ndarray of shape (n_components, n_features)
    landmark_coef : ndarray of shape (n_components,)
        ``beta``, with ``f(x) = sum_l beta_l K(x, landmarks_l)`` (the same function).
    transformer : sklearn.kernel_approximation.Nystroem
        The feature map of the last stage.
    feature_norms : ndarray of shape (n_samples,)
        ``||z(x_i)||`` under that feature map (the normalisation of the rows of ``Z``).
    yf : ndarray of shape (n_samples,)
        ``y_i f(x_i)`` computed with exact kernel values (``certify="landmarks"``), or
        ``(G alpha)_i`` of the exact kernel (``certify="dual"``).
    margin : float or None
        ``min_i y_i f(x_i) / ||f||`` in the kernel's feature space (RBF: ``K(x, x) = 1``),
        when certified.
    p : ndarray of shape (n_samples,) or None
        With a certificate: the point of the simplex whose signed feature-space images
        nearly cancel under the exact kernel.
    norm_p_G : float or None
        With a certificate: an upper bound on ``||p||_G`` (exact kernel, rounding
        included), at most ``tol``.
    stages : list of dict
        One per rank tried: ``n_components``, ``max_iter`` (its budget), ``nit``,
        ``snkp`` (SNKP's outcome on the Nystroem features, ``"certificate screen"``
        when the screen of ``tol`` stopped it), ``screened`` (whether the screen fired),
        ``certified``, ``certificate`` (whether the exact-kernel bound passed),
        ``sampled_out`` (whether a sampled estimate of ``p^T G p`` skipped that check),
        ``min_yf`` (``min_i`` of ``yf``, or None without a proposal), ``residual``
        (the mean of ``1 - ||z(x_i)||^2`` over the points that are not landmarks: the
        fraction of the kernel that the features miss), ``seconds``.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted_rbf
    >>> ds = planted_rbf(500, 2, rho=0.05, gamma=2.0, seed=0)
    >>> res = kperc.snkp_nystroem(ds.X, ds.y, gamma=2.0, n_components=4, random_state=0)
    >>> res.outcome, res.stop, [(s["n_components"], s["snkp"]) for s in res.stages]
    ('separator', 'certified', [(4, 'max_iter'), (8, 'separator')])
    """


def _seed_of(random_state: RandomStateLike) -> int:
    """One int seed for every stage, so that the landmarks of rank ``m`` are the first
    ``m`` of rank ``2m`` (scikit-learn's Nystroem takes the first ``m`` indices of one
    seeded permutation of the points)."""
    if random_state is None:
        return int(np.random.default_rng().integers(2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31 - 1))
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(
        random_state, (int, np.integer)
    ):
        raise ValueError(
            "random_state must be None, an int, a RandomState or a Generator; got "
            f"{random_state!r}."
        )
    if not 0 <= random_state < 2**32:
        raise ValueError(f"random_state must be in [0, 2**32); got {random_state}.")
    return int(random_state)


def _residual_fraction(op) -> float:
    """The mean, over the points that are not landmarks, of ``1 - ||z(x_i)||^2``: the
    fraction of a point's RBF kernel norm (``K(x, x) = 1``) that Nystroem features
    ``op`` leave out (0 when every point is a landmark)."""
    norms = op.feature_norms
    out = np.ones(norms.size, dtype=bool)
    out[op.transformer.component_indices_] = False
    if not out.any():
        return 0.0
    return float(np.mean(np.clip(1.0 - norms[out] * norms[out], 0.0, 1.0)))


def _predicted_residual(residuals: list[float], doublings: float) -> float:
    """The residual fraction predicted ``doublings`` rank doublings after the last of
    ``residuals`` (at least three, one per doubling of the rank).

    The logarithm of the residual falls by ``D_k`` at the ``k``-th doubling; the
    prediction lets these drops keep growing by their last ratio ``c = D_k / D_{k-1}``
    (at least 1): for the RBF kernel, whose spectrum decays faster than any power, the
    drops grow, and letting them grow geometrically errs on the side of growing the rank.
    A residual that stopped falling (``D_k = 0``) is predicted to stay.

    Examples
    --------
    >>> from kperc._approx import _predicted_residual
    >>> round(_predicted_residual([0.8, 0.4, 0.2], 2), 4)  # halving at each doubling
    0.05
    >>> _predicted_residual([0.9, 0.9, 0.9], 4)  # the doubling stopped paying
    0.9
    """
    r2, r1, r0 = (max(r, np.finfo(np.float64).tiny) for r in residuals[-3:])
    last = min(np.log(r0) - np.log(r1), 0.0)
    prev = min(np.log(r1) - np.log(r2), 0.0)
    if last == 0.0:
        return r0
    if prev == 0.0:  # the residual just started to fall: no trend to extrapolate
        return 0.0
    c = max(last / prev, 1.0)
    steps = int(np.ceil(doublings))
    drop = last * (steps if c == 1.0 else c * (c**steps - 1) / (c - 1))
    return float(r0 * np.exp(max(drop, -700.0)))


def _certificate_screen(op, tol: float | None, n: int):
    """A callback for SNKP on Nystroem features ``op``: it stops the stage once the dual
    iterate ``p`` has ``||Z^T p|| <= tol`` (the screen of :func:`snkp_nystroem`'s
    certificate); ``found`` then holds ``p``. No screen without ``tol`` or above
    :data:`CERTIFICATE_MAX_N` points."""
    found: dict[str, Any] = {}
    if tol is None or n > CERTIFICATE_MAX_N:
        return None, found

    def watch(r):
        k = r.nit
        if k < 8 or not (k & (k - 1) == 0 or k % 256 == 0):
            return
        p = r.get("p")
        total = float(np.sum(p)) if p is not None else 0.0
        if not total > 0:
            return
        p = p / total
        zp = op.coef(p) if isinstance(op, _Float32Products) else op.Z.T @ p
        if float(np.linalg.norm(zp)) <= tol:
            found["p"] = p
            raise StopIteration

    return watch, found


def _stage_separator(res, op, X, y, gamma: float, certify: str):
    """A stage's model and whether it is a separator under the exact kernel:
    ``v = Z^T alpha``, ``beta`` (the same model over the landmarks), ``ok`` and the
    checked values ``yf`` (None when SNKP proposed no separator)."""
    v = op.coef(res.alpha) if isinstance(op, _Float32Products) else op.Z.T @ res.alpha
    tr = op.transformer
    beta = tr.normalization_.T @ v
    if res.outcome != "separator":
        return v, beta, False, None
    if certify == "landmarks":
        chk = _landmark_check(X, y, tr.components_, beta, gamma)
        return v, beta, chk.certified, chk.yf
    dual = _exact_margin_check(X, y, res.alpha, "rbf", {"gamma": gamma}, np.arange(len(y)), None)
    return v, beta, dual.certified, dual.Galpha


#: :func:`snkp_nystroem` estimates ``p^T G p`` from this many sampled rows of the exact
#: kernel before the ``O(n^2)`` certificate check, from :data:`SAMPLED_SCREEN_MIN_N` points;
#: an undecided estimate doubles its rows, up to ``n / 8`` (a quarter of the check's cost).
SAMPLED_SCREEN_ROWS = 128
SAMPLED_SCREEN_MIN_N = 4096


def _certificate_hopeless(X, y, p, gamma: float, tol: float | None, seed: int) -> bool:
    """Whether the exact check of the certificate ``p`` would almost surely fail: an
    estimate of ``p^T G p`` (exact kernel) exceeds ``tol^2`` by four standard errors.

    ``p^T G p = ||p||_1 E[(G p)_I]`` for a row ``I`` drawn with probability
    ``p_I / ||p||_1``. :data:`SAMPLED_SCREEN_ROWS` rows (seeded) cost that many times
    ``n`` kernel values, against ``n^2 / 2`` for the check; while the estimate is within
    four standard errors of ``tol^2`` from above, as many rows again are drawn, up to
    ``n / 8`` rows. A wrong "hopeless" only skips a check (the rank doubles, as after a
    failed one): no answer depends on it. Never hopeless below
    :data:`SAMPLED_SCREEN_MIN_N` points, where the check is cheap.
    """
    n = len(p)
    if tol is None or n < SAMPLED_SCREEN_MIN_N:
        return False
    l1 = float(np.sum(p))
    rng = np.random.default_rng(seed)
    vals = np.empty(0)
    batch = SAMPLED_SCREEN_ROWS
    while vals.size + batch <= max(SAMPLED_SCREEN_ROWS, n // 8):
        rows = rng.choice(n, size=batch, p=p / l1)
        Gp, _ = _exact_galpha(X, p, y, "rbf", {"gamma": gamma}, rows, None)
        vals = np.concatenate([vals, l1 * Gp])
        mean = float(np.mean(vals))
        se = float(np.std(vals, ddof=1)) / np.sqrt(vals.size)
        if mean - 4.0 * se > tol * tol:
            return True
        if mean + 4.0 * se <= tol * tol:  # the check may well succeed: run it
            return False
        batch = vals.size
    return False


def _exact_certificate(X, y, p, gamma: float, tol) -> dict[str, Any] | None:
    """``p`` and a bound on ``||p||_G`` under the exact RBF kernel, if the bound is at most
    ``tol``; else None.

    Each computed ``(G p)_i`` is within ``e_i`` of the exact one (:func:`_exact_galpha`:
    the kernel values' errors and the sum's rounding), and ``p^T (G p)`` rounds by at most
    ``(n + 2) u sum_i p_i |(G p)_i| <= (n + 2) u ||p||_1^2 (1 + max e)``
    (``|G_ij| <= 1``), so ``p^T G p <= computed + p^T e + that`` (``u = 2^-53``).
    """
    n = len(p)
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    Gp, err = _exact_galpha(X, p, y, "rbf", {"gamma": gamma}, np.arange(n), None)
    l1 = float(np.sum(p))
    value = float(p @ Gp)
    slack = float(p @ err) + (n + 2) * _U64 * l1 * l1 * (1 + float(err.max()))
    bound = float(np.sqrt(max(value, 0.0) + slack * (1 + 4 * _U64)))
    return {"p": p, "bound": bound} if bound <= tol else None


def snkp_nystroem(
    X: ArrayLike,
    y: ArrayLike,
    *,
    gamma: float | str | None = None,
    n_components: int = 64,
    max_components: int = 4096,
    stage_iter: int = 1024,
    max_iter: int = 100_000,
    products: str = "float32",
    certify: str = "landmarks",
    tol: float | None = None,
    max_residual: float | None = MAX_RESIDUAL,
    random_state: RandomStateLike = None,
) -> NystroemResult:
    """SNKP on Nystroem features of the RBF kernel, the rank doubled until the separator
    holds under the exact kernel.

    A stage runs :func:`kperc.snkp` (Algorithm 4) on ``m`` Nystroem features
    (:func:`approx_gram_operator`) for at most ``stage_iter`` iterations (the budget
    grows fourfold each time ``m`` doubles; the stage at the cap gets what remains of
    ``max_iter``). A separator of the approximate kernel is then checked in float64
    under the exact kernel; if SNKP found none, or the check refuses it, ``m`` doubles, up to
    ``max_components`` (and ``n``). Only a separator that passes the check is called
    one; otherwise the result says it could not be certified, and why the rank stopped.

    Why this rule: a product with the features costs ``O(n m)``, so the smallest rank
    whose features separate is the fastest, and on easy problems it is far below a fixed
    500. A rank too small fails in one of two ways, both caught: the features do not
    separate (SNKP runs out of its stage budget; after ``K`` iterations without a
    separator, Theorem 1 bounds the features' margin by ``sqrt(8 log n / (K (K + 1)))``),
    or they separate a function that the exact kernel does not (the check refuses it).
    Doubling keeps the wasted work a constant fraction of the last stage's. The landmarks
    of each rank extend those of the previous one (one seed). The SNKP run is not
    warm-started from the previous stage's ``alpha``: Theorem 1's bound assumes the
    prox-centre ``1/n`` and ``mu_0 = 2``.

    What is certified (``certify``):

    * ``"landmarks"`` (default): the model's own decision function,
      ``f(x) = sum_l beta_l K(x, z_l)`` over the ``m`` landmarks ``z_l``, which is what
      a Nystroem model evaluates (``z(x) . v`` with ``v = Z^T alpha``). Its values at
      the ``n`` points are computed from exact kernel values, with a rounding bound,
      at cost ``O(n m)``; it is an exact-kernel separator with ``m`` support vectors,
      the same test the benchmarks apply to ``SVC``'s decision function.
    * ``"dual"``: the dual expansion ``sum_i alpha_i y_i K(x_i, .)`` over every training
      point, by :func:`exact_margin_check`. SNKP gives every point a weight, so this
      costs ``O(n^2)`` kernel values per check, and it asks more of the rank: the
      features must approximate the kernel within the margin at every point.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.
    gamma : float, "scale" or None, default=None
        RBF parameter, ``K(x, z) = exp(-gamma ||x - z||^2)``: ``None`` is
        ``1 / n_features``, ``"scale"`` ``1 / (n_features X.var())``, as for
        :func:`kperc.kernel_matrix`.
    n_components : int, default=64
        The first rank.
    max_components : int, default=4096
        The largest rank (memory ``4 n m`` bytes with float32 products).
    stage_iter : int, default=1024
        SNKP iterations allowed at the first rank, four times more at each doubling of the
        rank. Iterations at a small rank are cheap, and a rank that separates within a
        few more of them saves a whole stage: measured on ``planted_rbf`` with
        ``rho = 1e-3`` (``d = 3``), 1024 reached a certificate at rank 128 where 256
        needed rank 256, in about half the time at ``n = 10^4`` and 10% less at
        ``n = 10^5`` (one run each, on a busy 2-core machine).
    max_iter : int, default=100000
        SNKP iterations over all stages.
    products : {"float32", "float64"}, default="float32"
        Storage of the features, and so of every product with them. float32 halves the
        memory and, measured, takes about half the time per iteration; its rounding
        only affects the search, never the certificate, which is computed in float64
        from the exact kernel.
    certify : {"landmarks", "dual"}, default="landmarks"
    tol : float, optional
        Also stop, with a certificate, on data that no separator with a normalised
        margin above ``tol`` classifies (exact kernel). SNKP's dual iterate ``p`` is
        tested at iterations 8, 16, 32, ... and every 256 after 256: when its norm under
        the features, ``||Z^T p||``, is at most ``tol``, its norm under the exact kernel,
        ``sqrt(p^T G p)``, is computed in float64 from exact kernel values with a
        rounding bound (``O(n^2)`` kernel values, done only up to
        20,000 points). A Nystroem kernel never exceeds the exact one
        (``G - Z Z^T`` is positive semidefinite), so the first test only screens; the
        second decides. If the exact bound is at most ``tol`` the run stops with that
        ``p``; otherwise the stage ends and the rank doubles, as for a refused separator.
        From 4096 points an estimate of ``p^T G p`` from 128 sampled rows of the exact
        kernel (more, up to ``n / 8``, while it is undecided) comes first: when it
        exceeds ``tol^2`` by four standard errors, the ``O(n^2)`` check is skipped as
        hopeless (a skipped check only costs a stage).
    max_residual : float or None, default=0.1
        Stop growing the rank when its features are predicted to stay far from the
        exact kernel. After each stage without an answer, from the third on, the
        fraction of a point's kernel norm that the features miss,
        ``1 - ||z(x)||^2`` averaged over the points that are not landmarks (free: the
        rows' norms are computed anyway; recorded as ``stages[k]["residual"]``), is
        extrapolated to the largest rank from its last three values (the drop of its
        logarithm per doubling grows geometrically, which errs towards growing). When
        both the current and the predicted fractions exceed ``max_residual``, the run
        stops (``stop == "residual"``) with a message that names the exact kernel and
        a soft-margin method: the rank would most likely have to grow to
        ``max_components``, where building the features alone costs ``n m^2``.
        The fraction depends on ``X`` and ``gamma`` only, not on the labels; as the
        stop comes only after stages without an answer, an easy labelling still ends
        at an early rank. The stop is a prediction of cost, not a statement about the
        data: growing further can still end with an answer at the cap. Never used
        when every point can be a landmark (``max_components >= n``). None grows the
        rank whatever the features miss. With the default 0.1, on
        ``planted_rbf`` (``gamma = 2``, ``n = 2 10^4``, ``rho = 1e-3``; one BLAS
        thread on a busy 2-core machine), ``d = 6`` grows to rank 1024 and ends with a
        certificate (40 s); ``d = 7`` stops at rank 512 (13% predicted at rank 4096;
        21 s); ``d = 8`` stops after rank 256 (20% predicted, 27% measured at rank
        4096, where the run without the stop ended with a certificate after 5 to 6
        minutes, against 2 to 3 s for the stop and 20 s for ``SVC(C=1e6)``).
    random_state : int, RandomState instance, Generator or None
        Seeds the landmarks (one seed for every stage).

    Returns
    -------
    NystroemResult

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted_rbf
    >>> ds = planted_rbf(2000, 3, rho=0.01, gamma=2.0, seed=0)
    >>> res = kperc.snkp_nystroem(ds.X, ds.y, gamma=2.0, random_state=0)
    >>> res.certified, res.stop, res.n_components <= 4096
    (True, 'certified', True)
    >>> bool(((res.transformer.transform(ds.X) @ res.coef) * ds.y > 0).all())
    True

    A narrow kernel in 8 dimensions: the features miss most of it, and barely less at
    each rank, so the rank stops growing after three ranks instead of running to its cap.

    >>> ds8 = planted_rbf(800, 8, rho=1e-3, gamma=2.0, seed=0)
    >>> res = kperc.snkp_nystroem(
    ...     ds8.X, ds8.y, gamma=2.0, n_components=8, max_components=256, tol=0.03,
    ...     random_state=0,
    ... )
    >>> res.stop, [s["n_components"] for s in res.stages], res.stages[-1]["residual"] > 0.9
    ('residual', [8, 16, 32], True)
    """
    X, y = check_Xy(X, y)
    gamma = resolve_gamma(gamma, X)
    n_components = check_positive(n_components, "n_components", integer=True)
    max_components = check_positive(max_components, "max_components", integer=True)
    stage_iter = check_positive(stage_iter, "stage_iter", integer=True)
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    if products not in PRODUCTS:
        raise ValueError(f"products must be one of {PRODUCTS}; got {products!r}.")
    if certify not in CERTIFY:
        raise ValueError(f"certify must be one of {CERTIFY}; got {certify!r}.")
    if tol is not None:
        tol = check_positive(tol, "tol")
    if max_residual is not None:
        max_residual = check_positive(max_residual, "max_residual")
    if n_components > max_components:
        raise ValueError(
            f"n_components (the first rank, {n_components}) must not exceed max_components "
            f"({max_components})."
        )
    if len(np.unique(y)) < 2:
        raise ValueError("y must contain both labels -1 and +1 to be separated.")
    return _snkp_nystroem(
        X,
        y,
        gamma=gamma,
        n_components=n_components,
        max_components=max_components,
        max_iter=max_iter,
        tol=tol,
        random_state=random_state,
        stage_iter=stage_iter,
        products=products,
        certify=certify,
        max_residual=max_residual,
    )


def _snkp_nystroem(
    X: np.ndarray,
    y: np.ndarray,
    *,
    gamma: float,
    n_components: int,
    max_components: int,
    max_iter: int,
    tol: float | None,
    random_state: RandomStateLike,
    stage_iter: int = 1024,
    products: str = "float32",
    certify: str = "landmarks",
    max_residual: float | None = MAX_RESIDUAL,
) -> NystroemResult:
    """:func:`snkp_nystroem` of checked data, labels in {-1, +1} (both present) and
    checked parameters: the stages (:func:`_nystroem_stage`) until one stops the run
    (:func:`_stop_reason`), then the result."""
    n = X.shape[0]
    seed = _seed_of(random_state)
    dtype = np.float32 if products == "float32" else np.float64
    cap = min(max_components, n)
    m, budget, total = min(n_components, cap), stage_iter, 0
    stages: list[_Stage] = []
    while True:
        last = m >= cap
        it = max_iter - total if last else min(budget, max_iter - total)
        stage = _nystroem_stage(
            X, y, m, it, max_iter - total, last, gamma, seed, dtype, tol, certify
        )
        stages.append(stage)
        total += stage.record["nit"]
        stop, predicted = _stop_reason(stages, last, total, max_iter, max_residual, cap, n)
        if stop is not None:
            break
        m, budget = min(2 * m, cap), STAGE_ITER_GROWTH * budget
    records = [st.record for st in stages]
    why = _stop_message(stop, records, predicted, cap, n, max_iter, max_residual, tol, stage.cert)
    ok, cert, tr = stage.ok, stage.cert, stage.op.transformer
    return NystroemResult(
        certified=ok,
        outcome="separator" if ok else "certificate" if cert else "not certified",
        p=cert["p"] if cert else None,
        norm_p_G=cert["bound"] if cert else None,
        stop=stop,
        message=why[0].upper() + why[1:] + ".",
        n_components=records[-1]["n_components"],
        nit=total,
        alpha=stage.res.alpha,
        coef=stage.v,
        landmarks=tr.components_,
        landmark_coef=stage.beta,
        transformer=tr,
        feature_norms=stage.op.feature_norms,
        yf=stage.yf,
        margin=_certified_margin(stage, certify, gamma),
        stages=records,
    )


@dataclass(frozen=True)
class _Stage:
    """One stage of :func:`snkp_nystroem`: the SNKP run on the features ``op``, its model
    (``v = Z^T alpha``, ``beta`` over the landmarks), whether it is an exact-kernel
    separator (``ok``, with the checked values ``yf``), the exact certificate (or None)
    and the stage's record in ``NystroemResult.stages``."""

    res: Any
    op: Any
    v: np.ndarray
    beta: np.ndarray
    ok: bool
    yf: np.ndarray | None
    cert: dict[str, Any] | None
    record: dict[str, Any]


def _nystroem_stage(X, y, m, it, left, last, gamma, seed, dtype, tol, certify) -> _Stage:
    """SNKP for ``it`` iterations on ``m`` Nystroem features, with the certificate screen;
    the exact check of a screened certificate and of a separator. A last stage (``last``:
    the rank cannot grow) whose certificate failed runs on without the screen, within the
    ``left`` iterations of the whole run."""
    t0 = time.perf_counter()
    op = _approx_gram_operator(X, y, "rbf", m, "nystroem", seed, {"gamma": gamma}, dtype)
    watch, found = _certificate_screen(op, tol, X.shape[0])
    res = snkp(op, max_iter=it, callback=watch)
    nit = res.nit
    hopeless = bool(found) and _certificate_hopeless(X, y, found["p"], gamma, tol, seed)
    cert = _exact_certificate(X, y, found["p"], gamma, tol) if found and not hopeless else None
    if found and not cert and last and nit < left:
        res = snkp(op, max_iter=left - nit)
        nit += res.nit
    v, beta, ok, yf = _stage_separator(res, op, X, y, gamma, certify)
    record = {
        "n_components": int(op.transformer.components_.shape[0]),
        "max_iter": int(it),
        "nit": int(nit),
        "snkp": "certificate screen" if found and res.outcome == "callback" else res.outcome,
        "screened": bool(found),
        "sampled_out": hopeless,
        "certified": ok,
        "certificate": cert is not None,
        "min_yf": None if yf is None else float(yf.min()),
        "residual": _residual_fraction(op),
        "seconds": time.perf_counter() - t0,
    }
    return _Stage(res, op, v, beta, ok, yf, cert, record)


def _stop_reason(stages, last, total, max_iter, max_residual, cap, n) -> tuple[str | None, float]:
    """Why the run stops after the last of ``stages`` (None: the rank doubles), and the
    residual fraction predicted at rank ``cap`` (1 when not predicted)."""
    st = stages[-1]
    stop = (
        "certified" if st.ok else "certificate" if st.cert else "max_components" if last else None
    )
    if stop is None and total >= max_iter:
        stop = "max_iter"
    predicted = 1.0
    if stop is None and max_residual is not None and len(stages) >= 3 and cap < n:
        seen = [s.record["residual"] for s in stages]
        predicted = _predicted_residual(seen, np.log2(cap / st.record["n_components"]))
        if seen[-1] > max_residual and predicted > max_residual:
            stop = "residual"
    return stop, predicted


def _certified_margin(stage: _Stage, certify: str, gamma: float) -> float | None:
    """The normalised exact-kernel margin of a certified separator (None otherwise):
    ``min_i y_i f(x_i)`` over the RKHS norm of the certified function ``f``."""
    if not (stage.ok and stage.yf is not None):
        return None
    if certify == "landmarks":
        L = stage.op.transformer.components_
        K_ll = _kernel_values(L, L, "rbf", {"gamma": gamma})
        norm = float(np.sqrt(max(float(stage.beta @ K_ll @ stage.beta), 0.0)))
    else:
        norm = float(np.sqrt(max(float(stage.res.alpha @ stage.yf), 0.0)))
    return float(stage.yf.min()) / norm if norm > 0 else None


def _stop_message(stop, stages, predicted, cap, n, max_iter, max_residual, tol, cert) -> str:
    """The sentence of :attr:`NystroemResult.message` for the reason ``stop``."""
    m_last = stages[-1]["n_components"]
    if stop == "certified":
        return f"a separator certified under the exact kernel at rank {m_last}"
    if stop == "max_components":
        return f"no separator could be certified up to rank {m_last} (the cap)"
    if stop == "max_iter":
        return (
            f"no separator could be certified within max_iter={max_iter} SNKP "
            f"iterations (last rank {m_last})"
        )
    if stop == "residual":
        return (
            f"the rank stopped growing at {m_last}, where the Nystroem features "
            f"miss {100 * stages[-1]['residual']:.2g}% of an average point's kernel norm: the "
            f"trend of ranks {stages[0]['n_components']}-{m_last} predicts "
            f"{100 * predicted:.2g}% at rank {cap}, "
            f"more than max_residual={max_residual}, so the rank would most likely have to "
            f"grow to {cap}, where building the features alone costs about n m^2 = "
            f"{float(n) * cap * cap:.1g} multiply-adds (max_residual=None grows it anyway); "
            "for a certified answer use the exact kernel (kperc.gram_matrix, 8 n^2 bytes, "
            "then kperc.snkp), for noisy data a soft-margin method such as "
            "sklearn.svm.SVC; no separator or certificate was certified"
        )
    return (
        f"a certificate that no separator has a normalised margin above "
        f"tol={tol:g} under the exact kernel (||p||_G <= {cert['bound']:.3g}; rank {m_last})"
    )

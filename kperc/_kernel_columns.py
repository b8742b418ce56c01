"""A kernel Gram operator that evaluates columns of ``G`` on demand.

NKP and NVN (Algorithms 3 and 5) use one column of ``G`` per iteration. This operator
computes that column from the data with :mod:`sklearn.metrics.pairwise` when asked, in
``O(n d)`` time and memory, and the algorithms keep recently used columns in their
least-recently-used column cache (as LIBSVM's SMO does), so no ``n x n`` matrix is ever
formed. Products ``G v`` (used by NVN to refresh its iterate) are computed by row blocks
in ``O(block_size * n)`` memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _array_api, _device
from ._gram_matrix import _gram_matrix, _gram_matrix_bounded
from ._kernel_values import (
    _check_diag,
    _check_kernel_args,
    _kernel_diagonal,
    _kernel_values,
    _needs_psd_check,
)
from ._rbf import rbf_values
from ._typing import ArrayLike, KernelLike
from ._validation import TrustedGramOperator, check_index, check_positive, check_Xy

__all__ = ["KernelGramOperator", "kernel_gram_operator"]

PSD_SAMPLE = 256
"""Points on which a kernel that may not be PSD (a callable) is checked when the operator
is built."""

BLOCK_BYTES = 1 << 23
"""Default memory (8 MB) of one row block of a product ``G v``."""


class KernelGramOperator(TrustedGramOperator):
    """The normalised signed Gram matrix of a kernel, with columns computed on demand.

    ``G_ij = y_i y_j K(x_i, x_j) / sqrt(K(x_i, x_i) K(x_j, x_j))`` (paper Section 3) is
    never stored: its ``column`` method evaluates one column from the data, and products are
    computed by row blocks. Build it with :func:`kperc.kernel_gram_operator`.

    Columns are exact where :func:`kperc.gram_matrix` is: ``G_jj = 1``, and a point
    repeated under the other label gives an exact ``-1``, so that such a pair is an exact
    witness. RBF values keep a relative error of about ``2^-40`` or less at any ``gamma``
    (scikit-learn's ``||x||^2 + ||z||^2 - 2 x.z`` loses them when ``gamma`` is large).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.
    kernel : {"rbf", "poly", "linear"} or callable
    kernel_params : dict, optional
        ``gamma``, ``degree``, ``coef0``.
    block_size : int, optional
        Rows per block of a product; by default blocks of about 8 MB.

    Every parameter is checked as in :func:`kperc.kernel_gram_operator` (which is the
    usual way to build one); a kernel that may not be positive semidefinite (a callable,
    or ``"poly"`` with ``coef0 < 0``) is checked symmetric positive semidefinite on a
    sample of ``PSD_SAMPLE`` points spread over the data in lexicographic order (so the
    sample does not depend on the order in which the points are stored).

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    kernel : str or callable
    kernel_params : dict
    block_size : int
        Rows per block of a product.

    Examples
    --------
    >>> import kperc
    >>> X, y = kperc.datasets.circles(50, seed=0)
    >>> G = kperc.kernel_gram_operator(X, y, gamma=2.0)
    >>> bool(G.column(3)[3] == 1.0), G.shape
    (True, (50, 50))
    """

    exact_unit_diagonal = True  # columns are normalised exactly: G_jj = 1

    def __init__(
        self,
        X: ArrayLike,
        y: ArrayLike,
        kernel: KernelLike = "rbf",
        kernel_params: dict[str, Any] | None = None,
        block_size: int | None = None,
    ) -> None:
        X, y = check_Xy(X, y)
        kernel_params = _check_kernel_args(kernel, kernel_params or {}, X)
        n = X.shape[0]
        if block_size is None:
            block_size = max(1, min(n, BLOCK_BYTES // (8 * n)))
        else:
            block_size = check_positive(block_size, "block_size", integer=True)
        if _needs_psd_check(kernel, kernel_params):
            check_kernel_sample(X, kernel, kernel_params)
        self.X = X
        self.y = y
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.block_size = block_size
        if kernel == "linear" or (kernel == "poly" and kernel_params.get("coef0", 1) == 0):
            # homogeneous kernels: the normalised G does not depend on the scale of each
            # row, so rows are scaled by powers of two (exact) and never overflow
            amax = np.max(np.abs(X), axis=1)
            Xk = np.ldexp(X, -np.frexp(np.where(amax > 0, amax, 1.0))[1][:, None])
        else:
            Xk = X
        self._Xk = Xk
        diag = _kernel_diagonal(Xk, kernel, kernel_params)
        _check_diag(diag)
        self._s = y / np.sqrt(diag)
        n = X.shape[0]
        _, inv = np.unique(X, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        self._inv = inv
        self._has_repeats = int(inv.max()) + 1 < n
        if self._has_repeats:
            self._order = np.argsort(inv, kind="stable")
            self._starts = np.searchsorted(inv[self._order], np.arange(int(inv.max()) + 2))
        super().__init__(dtype=np.float64, shape=(n, n))

    def _kernel(self, A, B) -> np.ndarray:
        # checked (finite, right shape), and evaluated from scaled data at extreme scales;
        # RBF values stay accurate at any gamma (kperc._rbf), where ||x||^2 + ||z||^2 -
        # 2 x.z cancels (at gamma = 1e16 it gave K(x, x) = 2e-8)
        if self.kernel == "rbf":
            return rbf_values(A, B, self.kernel_params["gamma"])
        return _kernel_values(A, B, self.kernel, self.kernel_params)

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` of ``G`` (``j`` an integer index), in ``O(n d)`` time and memory."""
        j = check_index(j, self.shape[0])
        col = self._kernel(self._Xk, self._Xk[j : j + 1]).reshape(-1)
        col *= self._s
        col *= self._s[j]
        if self._has_repeats:  # copies of x_j: exactly y_i y_j, as in gram_matrix
            u = self._inv[j]
            same = self._order[self._starts[u] : self._starts[u + 1]]
            col[same] = self.y[same] * self.y[j]
        else:
            col[j] = 1.0
        return col

    def _matvec(self, v):
        v = np.asarray(v, dtype=np.float64).reshape(-1)
        w = self._s * v
        out = np.empty(self.shape[0])
        b = self.block_size
        for i0 in range(0, self.shape[0], b):
            i1 = min(self.shape[0], i0 + b)
            out[i0:i1] = self._s[i0:i1] * (self._kernel(self._Xk[i0:i1], self._Xk) @ w)
        return out

    def _rmatvec(self, v):
        return self._matvec(v)

    def _adjoint(self):
        return self

    def diagonal(self) -> np.ndarray:
        """The diagonal of ``G``: exactly ones."""
        return np.ones(self.shape[0])

    def seminorm(self, p: np.ndarray) -> float:
        """``||p||_G = sqrt(p^T G p)`` from one blocked product."""
        return float(np.sqrt(max(float(p @ self._matvec(p)), 0.0)))

    def toarray(self) -> np.ndarray:
        """The dense ``n x n`` matrix, :func:`kperc.gram_matrix` (for small ``n`` only)."""
        return _gram_matrix(self.X, self.y, self.kernel, self.kernel_params)


def kernel_gram_operator(
    X: ArrayLike,
    y: ArrayLike,
    kernel: KernelLike = "rbf",
    *,
    block_size: int | None = None,
    **kernel_params: Any,
) -> KernelGramOperator:
    """Normalised signed Gram matrix of a kernel as an operator with on-demand columns.

    For :func:`kperc.nkp` and :func:`kperc.nvn` on kernel problems too large for the dense
    :func:`kperc.gram_matrix`: each iteration asks for one column of ``G``, computed from
    the data with :mod:`sklearn.metrics.pairwise` in ``O(n d)`` and kept in the
    algorithms' column cache (``cache_size`` megabytes), so memory is
    ``O(n d + cache_size)`` and no ``n x n`` matrix is formed. Algorithms that need full
    products each iteration (SNKP, SNKPVN) accept it too, at ``O(n^2 d)`` time per product.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.
    kernel : {"rbf", "poly", "linear"} or callable, default="rbf"
        See :func:`kperc.kernel_matrix`.
    block_size : int, optional
        Rows per block of a product ``G v``; by default blocks of about 8 MB.
    **kernel_params
        ``gamma``, ``degree``, ``coef0``, as in :func:`kperc.gram_matrix`.

    Returns
    -------
    KernelGramOperator

    Examples
    --------
    >>> import kperc
    >>> X, y = kperc.datasets.circles(200, seed=0)
    >>> G = kperc.kernel_gram_operator(X, y, gamma=2.0)
    >>> res = kperc.nkp(G)
    >>> res.outcome, res.nit == kperc.nkp(kperc.gram_matrix(X, y, "rbf", gamma=2.0)).nit
    ('separator', True)
    """
    if _array_api.is_foreign(X):  # torch, CuPy, ...: products on X's device (kperc._device)
        return _device.device_kernel_gram_operator(
            X, y, kernel, block_size=block_size, **kernel_params
        )
    return KernelGramOperator(X, y, kernel, dict(kernel_params), block_size)


def check_kernel_sample(X: np.ndarray, kernel, kernel_params: dict) -> None:
    """Check a kernel that may not be PSD on a sample of ``PSD_SAMPLE`` points of ``X``.

    The Gram matrix of the sample (built as :func:`kperc.gram_matrix` builds it) refuses
    a kernel that is not symmetric, not positive semidefinite or has ``K(x, x) <= 0``
    there. The sample is spread evenly over the points in lexicographic order, so it does
    not depend on their storage order.
    """
    n = X.shape[0]
    m = min(n, PSD_SAMPLE)
    order = np.lexsort(X.T[::-1])
    idx = order[np.unique(np.linspace(0, n - 1, m).round().astype(np.int64))]
    _gram_matrix_bounded(X[idx], np.ones(idx.size), kernel, kernel_params)

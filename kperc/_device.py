"""kperc on arrays of any array-API namespace (torch on CPU or CUDA, CuPy, ...).

**What runs where.** The ``O(n^2)`` work (forming ``G``, every product ``G v``, the
products that certify an exit, an on-the-fly kernel's blocks) runs on the input's device,
in its namespace and in the input's precision. The ``O(n)`` bookkeeping of the loops
(the three-line step of SNKP, NKP's running margins, the tie rule) runs on the host in
float64, by the same code as the numpy path: one vector goes to the device and one comes
back per product (``8 n`` bytes each way, 0.8 MB at ``n = 10^5``, against the ``4 n^2``
bytes of ``G`` that the product reads). That is why the decisions (``nit``, the outcome,
NKP's choices) are those of the numpy path wherever rounding can decide, and why the
results (``alpha``, ``p``) come back as arrays of the input's namespace on its device
(a callback sees host numpy copies, as on the numpy path; so does ``trace``).

**Certified in any precision.** The iterations may run in float32 (a float32 ``G`` or
float32 data). An exit is never taken on a float32 product: a separator is checked with a
float64 product (``G``'s float32 entries are exact in float64, so that product is within
``n u ||alpha||_1`` of ``G alpha``, ``u = 2^-53``), plus the construction error ``delta``
of ``G``'s entries against the data's exact Gram matrix when ``G`` was built by
:func:`kperc.gram_matrix` or :func:`kperc.kernel_gram_operator` (``(2 d + 14) u_32`` for
the linear kernel in float32, about ``(d + 9) u_32`` for the RBF kernel). A certificate
``||p||_G <= eps`` is bounded likewise from a float64 product, ``+ delta ||p||_1^2``.
When float32 found ``G alpha > 0`` but the float64 check cannot confirm it beyond that
bound, the run ends ``"undecided"`` at ``max_iter`` instead of ``"max_iter"``.

**Beyond memory.** :class:`DeviceKernelOperator` (what :func:`kperc.kernel_gram_operator`
returns for device data) never forms ``G``: a product ``G v`` runs by row blocks of
``b`` rows, each a ``b x n`` kernel block formed, used and freed on the device, so memory
is ``O(n d + b n)``; ``b`` comes from the device's free memory
(:func:`kperc._array_api.free_bytes`).
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from . import _array_api as aa
from ._validation import DIAG_TOL, check_gram, check_labels, check_positive

__all__ = [
    "DeviceGram",
    "DeviceKernelOperator",
    "device_gram",
    "device_gram_matrix",
    "device_kernel_gram_operator",
]

_U = 2.0**-53

#: entry errors of the Gram matrices this module built, by ``id`` (dropped with the array)
_PROVENANCE: dict[int, float] = {}


def _unit(dtype, xp) -> float:
    """Unit round-off of a floating dtype of ``xp``."""
    return float(xp.finfo(dtype).eps) / 2


def _gamma(m: float, u: float) -> float:
    mu = m * u
    return mu / (1.0 - mu) if mu < 0.5 else math.inf


def _register(G, entry_error: float):
    """Record ``G``'s construction error until ``G`` is freed. An array type without weak
    references keeps none: its exits are then certified for ``G`` as given."""
    key = id(G)
    try:
        weakref.finalize(G, _PROVENANCE.pop, key, None)
    except TypeError:  # pragma: no cover - torch, CuPy and array-api-strict arrays have them
        return G
    _PROVENANCE[key] = float(entry_error)
    return G


def _float_dtype(X, xp):
    """X's dtype if real floating, else float64; complex data are refused."""
    if xp.isdtype(X.dtype, "real floating"):
        return X.dtype
    if xp.isdtype(X.dtype, "complex floating"):
        raise TypeError(f"X must be real; got dtype {X.dtype}.")
    return xp.float64


def _check_device_Xy(X, y):
    """``X`` (2-D, finite, non-empty, real floating) and ``y`` in {-1, +1} as arrays of
    X's namespace and dtype on its device."""
    xp = aa.namespace(X)
    dev = aa.device_of(X)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array; got shape {tuple(X.shape)}.")
    dt = _float_dtype(X, xp)
    X = xp.astype(X, dt)
    if not bool(xp.all(xp.isfinite(X))):
        raise ValueError("X must be finite (no NaN or inf).")
    y_host = check_labels(aa.to_numpy(y) if aa.is_foreign(y) else y)
    if y_host.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y_host.shape[0]} labels.")
    return xp, dev, X, aa.to_namespace(y_host, xp, dev, dt)


def _unit_diagonal_blocks(G, xp, dev, dtype, n: int, b: int = 1024) -> None:
    """Set ``G_ii = 1`` exactly, by ``b x b`` diagonal blocks (``O(b^2)`` extra memory)."""
    for s in range(0, n, b):
        e = min(n, s + b)
        eye = xp.eye(e - s, dtype=xp.bool, device=dev)
        G[s:e, s:e] = xp.where(eye, xp.asarray(1.0, dtype=dtype, device=dev), G[s:e, s:e])


def _row_scaled(X, xp):
    """Rows divided by their largest magnitude (a relative ``u`` per entry), so that no
    norm overflows or underflows; the kernel's normalisation makes the scale irrelevant."""
    amax = xp.max(xp.abs(X), axis=1)
    if not bool(xp.all(amax > 0)):
        raise ValueError("X has a zero row: K(x, x) = 0, so G is undefined there.")
    return X / amax[:, None]


def _linear_factor(X, y, xp):
    """Rows ``y_i x_i / ||x_i||`` and the bound ``delta`` on ``|z_i^T z_j - G*_ij|``."""
    Z = _row_scaled(X, xp)
    Z = Z / xp.sqrt(xp.sum(Z * Z, axis=1))[:, None] * y[:, None]
    u = _unit(X.dtype, xp)
    d = X.shape[1]
    return Z, (2.0 * _gamma(d, u) + 14.0 * u) * 1.01


def _rbf_gamma(kernel_params: dict, d: int) -> float:
    gamma = kernel_params.get("gamma")
    return 1.0 / d if gamma is None else check_positive(gamma, "gamma")


def _rbf_block_diff(A, B, gamma: float, xp):
    """``exp(-gamma ||a_i - b_j||^2)`` from the differences: each squared distance within
    a relative ``gamma_{d+3}`` of its exact value (no cancellation), so each value within
    ``gamma_{d+4} / e + 4 u`` of the exact kernel value (``t e^-t <= 1/e``)."""
    diff = xp.expand_dims(A, axis=1) - xp.expand_dims(B, axis=0)
    return xp.exp(-gamma * xp.sum(diff * diff, axis=2))


def _check_kernel(kernel, kernel_params: dict) -> dict:
    if not (isinstance(kernel, str) and kernel in ("linear", "rbf")):
        raise ValueError(
            f"kernel={kernel!r} is not available on device arrays (only 'linear' and "
            "'rbf'); build G with numpy arrays, or pass kernel='rbf' or 'linear'."
        )
    allowed = {"rbf": {"gamma"}, "linear": set()}[kernel]
    extra = set(kernel_params) - allowed
    if extra:
        raise ValueError(f"kernel={kernel!r} takes no parameter {sorted(extra)}.")
    return dict(kernel_params)


def device_gram_matrix(X, y, kernel="linear", **kernel_params: Any):
    """:func:`kperc.gram_matrix` on the device of ``X``, in ``X``'s precision.

    Returns an ``n x n`` array of ``X``'s namespace with ``G_ii = 1`` exactly, formed
    by row blocks (``O(n^2 + b n d)`` memory). Its construction error ``delta`` is
    recorded, so that the algorithms certify their exits for the exact Gram matrix of
    the data: treat it as read-only.
    """
    kernel_params = _check_kernel(kernel, kernel_params)
    xp, dev, X, yd = _check_device_Xy(X, y)
    n, d = X.shape
    dt = X.dtype
    u = _unit(dt, xp)
    itemsize = 4 if dt == xp.float32 else 8
    G = xp.empty((n, n), dtype=dt, device=dev)
    if kernel == "linear":
        Z, delta = _linear_factor(X, yd, xp)
        b = aa.block_rows(n, 2 * n * itemsize, aa.free_bytes(X))
        for s in range(0, n, b):
            G[s : s + b, :] = Z[s : s + b, :] @ Z.T
    else:
        gamma = _rbf_gamma(kernel_params, d)
        b = aa.block_rows(n, 3 * n * d * itemsize, aa.free_bytes(X))
        for s in range(0, n, b):
            K = _rbf_block_diff(X[s : s + b, :], X, gamma, xp)
            G[s : s + b, :] = K * yd[s : s + b, None] * yd[None, :]
        # the underflow of a squared difference (2^-149 in float32) adds gamma d eta
        delta = (_gamma(d + 4, u) / math.e + 4.0 * u) * 1.01 + gamma * d * float(
            xp.finfo(dt).smallest_normal
        )
    _unit_diagonal_blocks(G, xp, dev, dt, n)
    return _register(G, delta)


class DeviceKernelOperator:
    """The normalised signed Gram matrix of a kernel on a device, never formed.

    ``G v`` is computed by row blocks: block ``[s, s + b)`` forms the ``b x n`` kernel
    block on the device, multiplies it by ``y * v`` and is freed, so memory is
    ``O(n d + b n)``. ``b`` is chosen from the device's free memory
    (``torch.cuda.mem_get_info`` on CUDA, a fixed 256 MB budget on the CPU) unless given.
    The RBF block is ``exp(-gamma (||x||^2 + ||z||^2 - 2 x.z))`` (one matrix product per
    block, the device's fastest form), whose values are within ``delta = 1.12 gamma 4
    (gamma_d + 3 u) R^2 + 6 u`` of the exact ones (``R = max ||x_i||``); the linear kernel
    is the factor ``Z (Z^T v)``. Build it with :func:`kperc.kernel_gram_operator`.
    """

    _kperc_device_operator = True

    def __init__(self, X, y, kernel="rbf", kernel_params=None, block_size=None):
        kernel_params = _check_kernel(kernel, {} if kernel_params is None else kernel_params)
        xp, dev, X, yd = _check_device_Xy(X, y)
        self.xp, self.device, self.dtype = xp, dev, X.dtype
        self.kernel, self.kernel_params = kernel, kernel_params
        n, d = X.shape
        self.shape = (n, n)
        self.n = n
        self._X = X
        self._y = yd
        if block_size is None:
            # a block's statement holds up to four b x n temporaries (in float64 at most)
            block_size = aa.block_rows(n, 4 * n * 8, aa.free_bytes(X))
        self.block_size = check_positive(block_size, "block_size", integer=True)
        if kernel == "linear":
            self._Z = {X.dtype: _linear_factor(X, yd, xp)[0]}
            self._Z[xp.float64] = _linear_factor(xp.astype(X, xp.float64), yd, xp)[0]
        else:
            self.gamma = _rbf_gamma(kernel_params, d)
            self._Xs = {}
            for dt in (X.dtype, xp.float64):
                Xd = xp.astype(X, dt)
                self._Xs[dt] = (Xd, xp.sum(Xd * Xd, axis=1))
            r2 = float(xp.max(self._Xs[xp.float64][1]))
            self._r2 = r2
        self.entry_errors = {dt: self._entry_error(dt) for dt in (X.dtype, xp.float64)}

    def _entry_error(self, dt) -> float:
        u = _unit(dt, self.xp)
        d = self._X.shape[1]
        if self.kernel == "linear":  # rows z_i within r of the exact directions
            r = (_gamma(d, u) + 7.0 * u) * 1.01
            return r * (2.0 + r)
        lip = (
            self.gamma * 4.0 * (_gamma(d, u) + 3.0 * u) * self._r2 * (1.0 + 4 * (d + 4) * u) * 1.02
        )
        return float(min(1.12 * lip + 6.0 * u, math.inf)) if lip <= 0.1 else float(lip)

    def _rbf_rows(self, s: int, e: int, dt):
        xp = self.xp
        X, sq = self._Xs[dt]
        D = sq[s:e, None] + sq[None, :] - 2.0 * (X[s:e, :] @ X.T)
        K = xp.exp(-self.gamma * xp.maximum(D, xp.asarray(0.0, dtype=dt, device=self.device)))
        eye = xp.eye(e - s, dtype=xp.bool, device=self.device)
        K[:, s:e] = xp.where(eye, xp.asarray(1.0, dtype=dt, device=self.device), K[:, s:e])
        return K

    def product(self, v, dt):
        """``G v`` on the device in the precision ``dt`` (``v`` an array of the namespace)."""
        xp = self.xp
        v = xp.astype(v, dt)
        if self.kernel == "linear":
            Z = self._Z[dt]
            return Z @ (Z.T @ v)
        y = xp.astype(self._y, dt)
        w = y * v
        out = xp.empty((self.n,), dtype=dt, device=self.device)
        b = self.block_size
        for s in range(0, self.n, b):
            e = min(self.n, s + b)
            out[s:e] = y[s:e] * (self._rbf_rows(s, e, dt) @ w)
        return out

    def column(self, j: int):
        """Column ``j`` of ``G`` in float64 on the device (``O(n d)``)."""
        xp = self.xp
        f64 = xp.float64
        y = xp.astype(self._y, f64)
        if self.kernel == "linear":
            Z = self._Z[f64]
            col = Z @ Z[j, :]
        else:
            X, sq = self._Xs[f64]
            D = sq + sq[j] - 2.0 * (X @ X[j, :])
            col = xp.exp(
                -self.gamma * xp.maximum(D, xp.asarray(0.0, dtype=f64, device=self.device))
            )
            col = col * y * y[j]
        col[j] = 1.0
        return col

    def __matmul__(self, v):
        return self.product(v, self.dtype if v.dtype == self.dtype else v.dtype)


def device_kernel_gram_operator(X, y, kernel="rbf", *, block_size=None, **kernel_params):
    """:func:`kperc.kernel_gram_operator` for device data: a :class:`DeviceKernelOperator`."""
    return DeviceKernelOperator(X, y, kernel, dict(kernel_params), block_size)


class DeviceGram:
    """What the algorithms' loops see of a ``G`` on a device (the interface of the numpy
    path's ``_DenseGram``): products and columns come back to the host in float64."""

    def __init__(self, G, *, validate: bool = True):
        self.op = G if isinstance(G, DeviceKernelOperator) else None
        self._host = None
        if self.op is not None:
            self.xp, self.device, self.dtype = G.xp, G.device, G.dtype
            self.n = G.n
            delta = G.entry_errors[self.xp.float64]  # exits are checked in float64
            factored = G.kernel == "linear"
        else:
            xp = aa.namespace(G)
            self.xp, self.device = xp, aa.device_of(G)
            if G.ndim != 2 or G.shape[0] != G.shape[1] or G.shape[0] == 0:
                raise ValueError(
                    f"G must be a non-empty square (n, n) matrix; got {tuple(G.shape)}."
                )
            if not xp.isdtype(G.dtype, "real floating"):
                raise TypeError(f"G must be a real floating matrix; got dtype {G.dtype}.")
            self.dtype = G.dtype
            self.n = int(G.shape[0])
            delta = _PROVENANCE.get(id(G))
            if delta is None and validate:
                check_gram(aa.to_numpy(G))  # the numpy path's checks, on a host copy
            factored = False
            # on the CPU, a view of G's memory (DLPack, no copy): columns are then rows of
            # that view, as on the numpy path (NKP and NVN take one per iteration)
            self._host = aa.host_view(G)
        self.G = G
        self.low_precision = self.dtype != self.xp.float64
        extra = 0 if delta is None else math.ceil(delta / _U) if delta < 1.0 else 2**53
        #: terms of a float64 product ``(G v)_i``: ``n``, then ``d + 2`` for a factor
        self._product_terms = self.n + 2 + (G._X.shape[1] + 2 if factored else 0)
        self.rounding_terms = self._product_terms - 2 + extra
        self.from_data = delta is not None
        self.entry_error = 0.0 if delta is None else float(delta)
        self._column_evals = 0
        itemsize = 8
        self._cert_block = aa.block_rows(self.n, self.n * itemsize, aa.free_bytes(self._probe))

    @property
    def _probe(self):
        return self.op._X if self.op is not None else self.G

    @property
    def column_evals(self) -> int:
        return self._column_evals if self.op is not None else 0

    def _to(self, v: np.ndarray, dt):
        return aa.to_namespace(np.asarray(v), self.xp, self.device, dt)

    def matvec(self, v) -> np.ndarray:
        """``G v`` in float64 (the product that certifies an exit), on the host."""
        xp = self.xp
        v64 = self._to(v, xp.float64)
        if self.op is not None:
            return aa.to_numpy(self.op.product(v64, xp.float64))
        if not self.low_precision:
            return aa.to_numpy(self.G @ v64)
        out = np.empty(self.n)
        b = self._cert_block  # float32 entries are exact in float64: convert by blocks
        for s in range(0, self.n, b):
            out[s : s + b] = aa.to_numpy(xp.astype(self.G[s : s + b, :], xp.float64) @ v64)
        return out

    def matvec_into(self, v, out) -> None:
        """``out[:] = G v`` in the working precision (the iterations' product)."""
        vd = self._to(v, self.dtype)
        r = self.op.product(vd, self.dtype) if self.op is not None else self.G @ vd
        out[:] = aa.to_numpy(r)

    def column(self, j: int) -> np.ndarray:
        if self.op is not None:
            self._column_evals += 1
            return aa.to_numpy(self.op.column(j))
        if self._host is not None:
            return np.asarray(self._host[j], dtype=np.float64)
        return aa.to_numpy(self.G[j, :])  # symmetric: row j is column j

    def column_into(self, j: int, out) -> np.ndarray:
        """Column ``j``: a view of a float64 ``G`` in host memory, else copied into ``out``."""
        if self.op is None and self._host is not None and self._host.dtype == np.float64:
            return self._host[j]
        out[:] = self.column(j)
        return out

    def diagonal(self) -> np.ndarray:
        if self.op is not None:
            return np.ones(self.n)
        if self._host is not None:
            return np.diag(self._host).astype(np.float64)
        xp, n, b = self.xp, self.n, 1024
        out = np.empty(n)
        for s in range(0, n, b):
            e = min(n, s + b)
            eye = xp.eye(e - s, dtype=self.dtype, device=self.device)
            out[s:e] = aa.to_numpy(xp.sum(self.G[s:e, s:e] * eye, axis=1))
        return out

    def check_certificate(self, p) -> None:
        """Refuse a certificate unless ``G_jj = 1`` on its support."""
        if self.op is not None:
            return
        d = self.diagonal()
        bad = np.flatnonzero((np.asarray(p) != 0) & ~(np.abs(d - 1.0) <= DIAG_TOL))
        if bad.size:
            j = int(bad[0])
            raise ValueError(
                f"G has G[{j}, {j}] = {d[j]:.6g}, not 1, at a point of the certificate p: "
                "on such a G a small ||p||_G proves nothing, and no certificate is returned."
            )

    def seminorm_bound(self, p) -> tuple[float, float]:
        """``||p||_G`` from a float64 product and an upper bound: ``p^T (G p)`` is within
        ``2 (n + 2) u ||p||_1^2`` of ``p^T G p`` (``|G_ij| <= 1``)."""
        p = np.asarray(p, dtype=np.float64)
        q = max(float(p @ self.matvec(p)), 0.0)
        l1 = float(np.abs(p).sum())
        err = 2.0 * self._product_terms * _U * l1 * l1
        return float(np.sqrt(q)), float(np.sqrt(q + err))

    def seminorm(self, p) -> float:
        return self.seminorm_bound(p)[0]

    def data_bound(self, p, upper: float) -> float:
        """``||p||_{G*}^2 <= upper^2 + delta ||p||_1^2`` for a ``G`` built from data."""
        if not self.from_data:
            return upper
        l1 = float(np.abs(p).sum()) * (1.0 + 2 * self.n * _U)
        return float(np.sqrt(upper * upper + self.entry_error * l1 * l1)) * (1.0 + 4 * _U)

    def seminorm_floor(self, data: bool = True) -> float:
        """The smallest certifiable bound on ``||p||_G`` (``p = 0`` ideal)."""
        floor2 = 2.0 * (self.n + 2) * _U + (self.entry_error if data else 0.0)
        return float(np.sqrt(floor2))

    def to_result(self, v):
        """A host float64 vector as a float64 array of the input's namespace and device."""
        return None if v is None else self._to(np.ascontiguousarray(v), self.xp.float64)


def device_gram(G, *, validate: bool = True) -> DeviceGram:
    """Wrap a device ``G`` (array or :class:`DeviceKernelOperator`) for the algorithms."""
    return DeviceGram(G, validate=validate)

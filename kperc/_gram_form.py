"""How :class:`kperc.SNKPClassifier` represents its training kernel, and building it.

Three forms, chosen from ``n_components``, the kernel and the number of points:

* ``"dense"``: the exact normalised signed Gram matrix (``8 n^2`` bytes);
* ``"factored"``: the exact linear-kernel operator ``G = Z Z^T`` (memory ``O(n d)``);
* ``"nystroem"``: Nystroem features, of a fixed rank, or of a rank grown until the
  separator holds under the exact kernel (:mod:`kperc._grown_rank`).

The exact dense form signs a normalised kernel matrix formed once per fit
(:class:`SharedKernel`), which one-vs-rest shares between its classes
(:class:`SignedGram`). The functions here trust their input: ``X`` was validated once
by the estimator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._approx import _approx_gram_operator
from ._gram import as_gram, quick_seminorm_bound
from ._gram_matrix import (
    GramOperator,
    _gram_matrix_bounded,
    _signed_normalized_points,
    factor_row_error,
)
from ._kernel_values import _kernel_diagonal, linear_norms
from ._validation import PSD_TOL, GramProvenance, trust_gram

#: ``n_components="auto"``: the largest ``n`` trained on the exact dense ``n x n`` matrix
#: (non-linear kernels). At 5,000 points ``G`` takes 200 MB and under a second to build.
AUTO_EXACT_MAX_N = 5_000

#: ``n_components="auto"``: Nystroem features used above :data:`AUTO_EXACT_MAX_N` points
#: when the rank does not grow (``kernel="poly"``, ``algorithm`` other than "snkp", or
#: ``halt=False``; memory ``8 n m`` bytes: 0.4 GB at ``n = 10^5``, 4 GB at ``n = 10^6``).
AUTO_N_COMPONENTS = 500

#: ``n_components="auto"``, RBF kernel, SNKP: the first and largest rank of
#: :func:`kperc.snkp_nystroem` (float32 features: ``4 n m`` bytes, 1 GB at ``n = 10^5``
#: and ``m = 2048``).
AUTO_N_START = 64
AUTO_N_MAX = 4096


@dataclass(frozen=True)
class GramForm:
    """The representation of the training kernel: ``form`` ("dense", "factored" or
    "nystroem"), the number of Nystroem features ``n_components`` (the first rank when
    the rank ``grows``; None for an exact form)."""

    form: str
    n_components: int | None = None
    grows: bool = False


def choose_gram_form(est: Any, n: int) -> GramForm:
    """The form for ``n`` training points under the estimator's parameters (checked)."""
    named = not callable(est.kernel)
    if est.device is not None:
        return device_gram_form(est, n)
    if est.n_components is None:
        return GramForm("dense")
    if not isinstance(est.n_components, str):
        return GramForm("nystroem", int(est.n_components))
    # n_components="auto"
    if named and est.kernel == "linear":
        return GramForm("factored")
    if not named or n <= AUTO_EXACT_MAX_N:
        return GramForm("dense")
    if est.kernel == "rbf" and est.algorithm == "snkp" and bool(est.halt):
        return GramForm("nystroem", AUTO_N_START, grows=True)
    return GramForm("nystroem", AUTO_N_COMPONENTS)


def sqrt_diagonal(Xa, kernel, params: dict) -> np.ndarray:
    """``sqrt(K(x_i, x_i))``: for the linear kernel ``||x_i||`` from rows scaled by powers
    of two (:func:`kperc._kernel_values.linear_norms`), so rows of size ``1e+-300`` neither
    overflow nor underflow, as in :func:`kperc.gram_matrix`."""
    if not callable(kernel) and kernel == "linear":
        return linear_norms(Xa)
    return np.sqrt(_kernel_diagonal(Xa, kernel, params))


def point_scales(Xa, ypm: np.ndarray, kernel, params: dict) -> np.ndarray:
    """``s_i = y_i / sqrt(K(x_i, x_i))``, the normalisation of each point.

    Raises
    ------
    ValueError
        When ``K(x_i, x_i) <= 0`` for some point (the zero vector, linear kernel), or,
        linear kernel, when ``||x_i||`` or ``1 / ||x_i||`` is not representable.
    """
    root = sqrt_diagonal(Xa, kernel, params)
    if np.any(~(root > 0)):
        raise ValueError(
            "K(x_i, x_i) <= 0 for some training point (a zero vector with the linear "
            "kernel); set fit_intercept=True or remove such points."
        )
    bad = np.flatnonzero(~(root < np.inf) | ~(root >= np.finfo(np.float64).tiny))
    if bad.size:  # linear kernel only: the others' diagonals were checked finite
        raise ValueError(
            f"X: the norm of {bad.size} training point(s) (first index {bad[0]}, "
            f"||x|| = {root[bad[0]]:.3g}) or its inverse overflows float64, so the "
            "point's weight y_i / ||x_i|| cannot be stored. Rescale X (a factor applied "
            "to all of X changes no prediction of the linear kernel)."
        )
    return ypm / root


def build_fixed_gram(Xa, ypm: np.ndarray, kernel, params: dict, choice: GramForm, random_state):
    """The training kernel of a form that does not grow: ``(G, s)`` with ``G`` a dense
    matrix, a :class:`kperc.GramOperator` or Nystroem features, and the per-point scale
    ``s`` of :func:`point_scales` (for Nystroem features, that of the approximate kernel)."""
    s = point_scales(Xa, ypm, kernel, params)
    if choice.form == "dense":  # exact, also for points repeated with the other label
        return data_gram(Xa, ypm, kernel, params), s
    if choice.form == "factored":  # linear kernel: G = Z Z^T with O(n d) memory, exact
        op = GramOperator(_signed_normalized_points(Xa, ypm))
        op.row_error = factor_row_error(op.row_nnz)  # as gram_operator: rows of the data
        return op, s
    m = int(choice.n_components or 0)
    G = _approx_gram_operator(Xa, ypm, kernel, m, "nystroem", random_state, params)
    return G, ypm / G.feature_norms


def data_gram(Xa, ypm: np.ndarray, kernel, params: dict) -> np.ndarray:
    """The dense training ``G`` of checked data, carrying the bound on its construction's
    rounding (:class:`~kperc._validation.GramProvenance`, as :func:`kperc.gram_matrix`
    does), so that the algorithms certify their separators and certificates for the
    exact kernel matrix of the data. A kernel callable's matrix is returned as a plain
    array: its values are taken as given."""
    G, delta, _ = _gram_matrix_bounded(Xa, ypm, kernel, params)
    return with_entry_error(G, delta)


def with_entry_error(G: np.ndarray, delta: float | None) -> np.ndarray:
    """``G``, built from data with entries off by at most ``delta``, registered with that
    bound (:func:`~kperc._validation.trust_gram`); as given when ``delta`` is None."""
    if delta is None:
        return G
    if G.base is not None or not G.flags.owndata or not G.flags.c_contiguous:
        G = np.array(G, order="C")
    return trust_gram(G, GramProvenance(psd_exact=bool(delta <= PSD_TOL), entry_error=delta))


class SharedKernel:
    """The normalised kernel matrix ``K~`` of the training points, formed once per fit.

    ``K~_ij = K(x_i, x_j) / sqrt(K(x_i, x_i) K(x_j, x_j))`` carries the bound ``delta``
    on its entries' rounding (registered with :func:`with_entry_error`). A binary problem
    with labels ``y`` trains on ``G = D K~ D``, ``D = diag(y)``: the signs are exact, so
    ``G`` carries the same bound, and one-vs-rest shares ``K~`` between its classes
    (:class:`SignedGram`), with its float32 copy, built once, for SNKP's products.
    """

    def __init__(self, Xa, kernel, params: dict) -> None:
        K, delta, _ = _gram_matrix_bounded(Xa, np.ones(Xa.shape[0]), kernel, params)
        self.delta = delta
        self.K = with_entry_error(K, delta)
        self._K32: np.ndarray | None = None
        self.lockstep: Any = None  # set by one-vs-rest: SNKP's runs share their products

    @property
    def K32(self) -> np.ndarray:
        if self._K32 is None:
            self._K32 = self.K.astype(np.float32)
        return self._K32

    def signed(self, train: np.ndarray, ypm: np.ndarray) -> np.ndarray:
        """The dense ``G = D K~ D`` of the points ``train``, with the bound of ``K~``."""
        K = self.K
        G = K.take(train, axis=0).take(train, axis=1) if train.size < K.shape[0] else K.copy()
        G *= ypm[:, None]
        G *= ypm[None, :]
        return with_entry_error(G, self.delta)


class SignedGram:
    """``G = D K~ D`` for a :class:`SharedKernel` and the labels ``y`` of every training
    point, never formed: ``G v = y * (K~ (y * v))``, whose rounding is that of ``G v``
    (a product with ``D`` is exact). SNKP's float32 products (:meth:`float32`) only
    propose; separators and certificates are checked with the float64 ``K~``."""

    def __init__(self, shared: SharedKernel, ypm: np.ndarray) -> None:
        self.shared = shared
        self.y = ypm
        self.n = int(ypm.size)
        self.shape = (self.n, self.n)
        self.dtype = shared.K.dtype  # its products are computed in float64
        self.entry_error = float(shared.delta or 0.0)
        self.lockstep: Any = None  # while SNKP runs in one-vs-rest: its shared products
        self.member = 0

    def matvec(self, v: np.ndarray) -> np.ndarray:
        if self.lockstep is not None:
            return self.y * self.lockstep.product(self.member, self.shared.K, self.y * v)
        return self.y * (self.shared.K @ (self.y * v))

    def close(self) -> None:
        """The run ended: leave the shared products (if any)."""
        if self.lockstep is not None:
            self.lockstep.leave(self.member)
            self.lockstep = None

    def seminorm_upper(self, p: np.ndarray) -> float:
        """An upper bound on ``||p||_G`` for the exact kernel matrix of the data."""
        return float(quick_seminorm_bound(as_gram(self.shared.K, validate=False), self.y * p)[1])


def resolve_device(device: Any):
    """The ``torch.device`` of ``SNKPClassifier(device=...)`` (checked), imported lazily.

    Raises
    ------
    ImportError
        When torch is not installed.
    ValueError
        When ``device`` names no torch device, or a CUDA device that this machine lacks.
    """
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - the test extra installs torch
        raise ImportError(
            f"device={device!r} fits on a torch device: pip install torch array-api-compat "
            "(or use device=None, numpy)."
        ) from exc
    try:
        dev = device if isinstance(device, torch.device) else torch.device(device)
    except (RuntimeError, TypeError, ValueError) as exc:
        raise ValueError(
            f"device={device!r} is not a torch device: use None (numpy), 'cpu', 'cuda', "
            "'cuda:0', ... or a torch.device."
        ) from exc
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"device={device!r}: SNKPClassifier fits on 'cpu' or 'cuda' only.")
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r}, but torch finds no CUDA GPU on this machine.")
    return dev


def device_gram_form(est: Any, n: int) -> GramForm:
    """The exact form of a device fit: the factored operator for the linear kernel
    (``n_components="auto"``), else the dense float32 ``G`` where it fits (always for
    ``n_components=None``; on CUDA, half the device's free memory; on the CPU, up to
    :data:`AUTO_EXACT_MAX_N` points), else the on-the-fly operator."""
    if est.n_components is not None and est.kernel == "linear":
        return GramForm("factored")
    if est.n_components is None:
        return GramForm("dense")
    dev = resolve_device(est.device)
    if dev.type == "cuda":
        import torch

        free, _ = torch.cuda.mem_get_info(dev)
        return GramForm("dense" if 4 * n * n <= free // 2 else "on-the-fly")
    return GramForm("dense" if n <= AUTO_EXACT_MAX_N else "on-the-fly")


class DeviceForm:
    """The training kernel of a fit on a torch device (``SNKPClassifier(device=...)``).

    The algorithm iterates on ``products``: the points rounded to float32 on the device,
    as the dense ``G`` of :func:`kperc.gram_matrix` or the operator of
    :func:`kperc.kernel_gram_operator` (the factor ``Z (Z^T v)`` of the linear kernel,
    RBF blocks formed on the fly). Nothing claimed rests on float32: every separator,
    certificate and margin bound is checked (:meth:`matvec`, :meth:`seminorm_upper`,
    :meth:`confirm`) with float64 products of ``exact``, the on-the-fly operator of the
    float64 points on the same device, whose entries are within their bound of the exact
    kernel matrix of the data.
    """

    def __init__(self, Xt, ypm: np.ndarray, kernel: str, params: dict, device, form: str):
        import torch

        from ._device import DeviceGram, DeviceKernelOperator, device_gram_matrix

        big = float(np.finfo(np.float32).max)
        if Xt.size and not float(np.max(np.abs(Xt))) < big:
            raise ValueError(
                f"device={device!r} fits in float32, whose largest value is {big:.3g}: X "
                "has larger entries. Rescale X, or use device=None (float64)."
            )
        dev = resolve_device(device)
        self.n = int(ypm.size)
        self.shape = (self.n, self.n)
        X32 = torch.asarray(Xt, dtype=torch.float32, device=dev)
        y32 = torch.asarray(ypm, dtype=torch.float32, device=dev)
        if form == "dense":
            self.products: Any = device_gram_matrix(X32, y32, kernel, **params)
        else:
            self.products = DeviceKernelOperator(X32, y32, kernel, params)
        X64 = torch.asarray(Xt, dtype=torch.float64, device=dev)
        y64 = torch.asarray(ypm, dtype=torch.float64, device=dev)
        self._op = DeviceKernelOperator(X64, y64, kernel, params)
        self.exact = DeviceGram(self._op)
        self._fast = DeviceGram(self.products, validate=False)

    def surely_above(self, p: np.ndarray, tol: float) -> bool:
        """Whether ``||p||_G > tol`` is clear from one float32 product: a screen that only
        spares :meth:`seminorm_upper` its float64 product (it skips a test, never makes
        a claim). Its slack, times ``||p||_1^2``, is four times the rounding of ``p^T G p``
        in float32 (``(n + 2) u_32``), of ``G``'s entries (its entry error) and of the
        points to float32 (``u_32 (1 + R sqrt(gamma))`` for RBF, ``R`` the largest norm;
        ``u_32 sqrt(d)`` for the linear kernel), so it skips only where ``||p||_G`` is
        clearly above ``tol``."""
        out = np.empty(self.n)
        self._fast.matvec_into(p, out)
        l1 = float(np.sum(p))
        u32 = float(np.finfo(np.float32).eps) / 2
        op = self._op
        linear = op.kernel == "linear"
        points = np.sqrt(op._X.shape[1]) if linear else 1.0 + np.sqrt(op._r2 * op.gamma)
        slack = 4.0 * ((self.n + 2) * u32 + self._fast.entry_error + u32 * points)
        return float(p @ out) - slack * l1 * l1 > tol * tol

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """``G v`` in float64 on the host, from the float64 points."""
        return self.exact.matvec(_host(v))

    def seminorm_upper(self, p) -> float:
        """An upper bound on ``||p||_G`` for the exact kernel matrix of the data."""
        p = _host(p)
        return self.exact.data_bound(p, self.exact.seminorm_bound(p)[1])

    def separates(self, alpha) -> bool:
        """Whether ``G* alpha > 0`` surely, for the exact kernel matrix ``G*`` of the data."""
        from ._gram import certified_positive

        alpha = _host(alpha)
        gmin = float(self.matvec(alpha).min())
        return certified_positive(gmin, self.exact.rounding_terms, float(alpha.sum()))

    def confirm(self, res: Any, tol: float) -> Any:
        """``res`` with host arrays, its exit checked in float64 for the data: a separator
        or a certificate that does not hold there becomes ``"undecided"``."""
        for key in ("alpha", "p"):
            if res.get(key) is not None:
                res[key] = _host(res[key])
        doubt = None
        if res.outcome == "separator" and not self.separates(res.alpha):
            doubt = "min G alpha > 0 held for the float32 points, not beyond rounding for X"
        if res.outcome == "certificate" and not res.norm_p_G <= tol:
            doubt = f"||p||_G <= {tol:.3g} held for the float32 points, not for X"
        if doubt:
            res.update(outcome="undecided", success=False)
            res.message = (
                f"undecided after {res.nit} iterations on the device: {doubt}; device=None "
                "(float64) may decide"
            )
        return res


def _host(v) -> np.ndarray:
    """A float64 numpy copy of a vector of any namespace (numpy as given)."""
    from . import _array_api as aa

    return aa.to_numpy(v) if aa.is_foreign(v) else np.asarray(v, dtype=np.float64)

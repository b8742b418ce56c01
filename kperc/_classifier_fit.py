"""One binary fit of :class:`kperc.SNKPClassifier`, on data it has validated once.

The steps after validation: points repeated with both labels (:func:`conflicts`), the
tolerance (:func:`resolve_tol`), the run of the chosen algorithm with the classifier's
certificate watch (:func:`run_algorithm`), and the sentence that says why a fit found no
separator (:func:`inseparable_message`). Nothing here validates ``X`` again.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse
from scipy.sparse.linalg import LinearOperator
from sklearn.utils.sparsefuncs import mean_variance_axis

from ._gram import _DenseGram, _OperatorGram, as_gram, quick_seminorm_bound, seminorm_floor
from ._gram_matrix import GramOperator
from ._kernel_values import _U
from ._perceptrons import nkp, snkp
from ._primal_dual import isnkpvn
from ._result import KpercResult
from ._separable import _conflicting_pairs, data_product_error
from ._validation import gram_provenance, pow2_scale

ALGORITHMS: dict[str, Callable[..., KpercResult]] = {"snkp": snkp, "nkp": nkp, "isnkpvn": isnkpvn}

#: ``tol="auto"`` for ``algorithm="isnkpvn"`` (and the linear kernel).
ISNKPVN_TOL = 1e-3

#: ``verbose=2``: seconds between two progress lines of a running algorithm.
PROGRESS_SECONDS = 1.0

#: A dense ``G`` with at least this many rows is multiplied in float32 by SNKP
#: (:class:`_Float32Dense`): beyond the processor's caches a product streams ``G`` from
#: memory, and float32 halves that traffic (at ``n = 4000``, 7 ms instead of 14 ms).
FLOAT32_MIN_N = 2_000

# the progress quantities that the algorithms' callbacks report, in display order
_PROGRESS_FIELDS = ("mu", "min_Galpha", "norm_p_G", "nouter")


class _Float32Dense(LinearOperator):
    """A dense ``G`` stored in float32: products at half the memory traffic.

    A product rounds ``v`` and ``G`` to float32, so it carries a relative error of order
    ``n 2^-24``, far above float64's: a run on this operator only *proposes* a separator,
    which :func:`run_algorithm` then checks in float64 against ``G`` itself. The
    classifier's certificate watch always uses the float64 ``G``.
    """

    def __init__(self, G: np.ndarray) -> None:
        super().__init__(dtype=np.float64, shape=G.shape)
        self.G32 = G.astype(np.float32)
        self._v = np.empty(G.shape[0], dtype=np.float32)
        self._out = np.empty(G.shape[0], dtype=np.float32)

    def _matvec(self, v):
        self._v[:] = np.asarray(v).reshape(-1)
        np.matmul(self.G32, self._v, out=self._out)
        return self._out.astype(np.float64)

    def _rmatvec(self, v):
        return self._matvec(v)


def budget_tol(algorithm: str, max_iter: int, n: int) -> float:
    """The smallest margin that ``algorithm`` is guaranteed to separate within
    ``max_iter`` iterations: ``2 sqrt(2 log n) / max_iter`` for SNKP (Theorem 1),
    ``1 / sqrt(max_iter)`` for NKP; :data:`ISNKPVN_TOL` for ISNKPVN."""
    if algorithm == "isnkpvn":
        return ISNKPVN_TOL
    if algorithm == "snkp":  # Theorem 1: K < 2 sqrt(2 log n) / rho
        return 2.0 * np.sqrt(2.0 * np.log(max(n, 2))) / max_iter
    return 1.0 / np.sqrt(max_iter)  # NKP: K <= 1 / rho^2


def resolve_tol(tol: Any, algorithm: str, max_iter: int, n: int, linear: bool) -> float:
    """The value of ``tol`` (see the ``tol`` parameter of :class:`kperc.SNKPClassifier`).

    ``"auto"``: :func:`budget_tol` for the linear kernel; for the other kernels the
    larger of that and ``1 / sqrt(n)``, the normalised margin of ``n`` points whose
    feature-space images are orthonormal (a kernel that tells every point apart from
    every other separates any labelling of them with that margin).
    """
    if not isinstance(tol, str):
        return float(tol)
    budget = budget_tol(algorithm, max_iter, n)
    return budget if linear else max(budget, 1.0 / np.sqrt(max(n, 1)))


def progress_callback(verbose: Any, algorithm: str) -> Callable[[Any], None] | None:
    """The callback that prints ``verbose=2`` progress lines (None below 2)."""
    if not (isinstance(verbose, (int, np.integer)) and verbose >= 2):
        return None
    name = algorithm.upper()
    t0 = time.perf_counter()
    last = [-np.inf]

    def progress(r):
        now = time.perf_counter()
        if r.nit == 0 or now - last[0] >= PROGRESS_SECONDS:
            last[0] = now
            shown = "".join(
                f", {key}={r[key]:.4g}" if key != "nouter" else f", call {r[key] + 1}"
                for key in _PROGRESS_FIELDS
                if key in r
            )
            print(f"[SNKPClassifier] {name} iteration {r.nit}: {now - t0:.2f} s{shown}", flush=True)

    return progress


def _surely_above(G: np.ndarray, p: np.ndarray, tol: float) -> bool:
    """Whether ``||p||_G > tol`` is certain from ``p^T G p`` computed in double precision.

    One BLAS product instead of the extended-precision quadratic form of
    ``seminorm_bound`` (not BLAS: about 60 products at ``n = 400``). For ``p >= 0`` and
    ``|G_ij| <= 1`` (a normalised Gram matrix, up to rounding) the computed ``p^T G p``
    is within ``2 (n + 2) u ||p||_1^2`` of the exact value (``u`` the unit round-off);
    the bound used here is twice that. When the computed value minus the bound still
    exceeds ``tol^2``, the exact ``||p||_G`` exceeds ``tol``, so ``seminorm_bound``'s
    upper bound does too and ``p`` is no ``tol``-certificate: the screen never changes
    the decision, it only skips the expensive form when that form cannot certify.
    """
    q = float(p @ (G @ p))
    l1 = float(np.sum(p))
    return q - 4.0 * (G.shape[0] + 2) * _U * l1 * l1 > tol * tol


def watched(k: int, every: int) -> bool:
    """Whether the certificate watch tests iteration ``k``: 8, 16, 32, ... and every
    ``every`` iterations from ``every`` on."""
    return k >= 8 and (k & (k - 1) == 0 or k % every == 0)


def certificate_watch(
    G: Any, tol: float, every: int = 256
) -> tuple[Callable[[Any], None], dict[str, Any]]:
    """A callback that stops the run once the algorithm's ``p`` is a ``tol``-certificate.

    SNKP's dual iterate ``p`` (NKP's ``alpha``) tends to the point of smallest
    ``||p||_G`` when no separator exists. It is tested at iterations 8, 16, 32, ...
    and every ``every`` iterations (:func:`watched`), each test one product with ``G``;
    the bound on ``||p||_G`` includes the rounding error of ``p^T G p``. SNKP's own
    iterations cost a product each, so its watch tests every 16 (at most 1/16 more
    products, and a certificate is seen at most 16 iterations late); NKP's cost
    ``O(n)``, so its watch tests every 256.
    """
    gram = as_gram(G, validate=False)
    dense = isinstance(gram, _DenseGram)
    found: dict[str, Any] = {}

    def watch(r):
        k = r.nit
        if not watched(k, every):
            return
        p = r.get("p")
        p = r.alpha if p is None else p
        total = float(np.sum(p))
        if not total > 0 or np.any(p < 0):
            return
        p = p / total
        if dense and _surely_above(gram.G, p, tol):
            return  # the bound below would say the same
        _, upper = quick_seminorm_bound(gram, p)
        if upper <= tol:
            found.update(p=p, bound=float(upper), nit=k)
            raise StopIteration

    return watch, found


def run_algorithm(
    G: Any,
    algorithm: str,
    *,
    max_iter: int,
    halt: bool,
    tol: float,
    verbose: Any,
    lower_floor: str = "",
) -> tuple[KpercResult, dict[str, Any] | None]:
    """Run ``algorithm`` on ``G``: its :class:`~kperc.KpercResult` and, when it stopped
    on a certificate found by the classifier's watch, that certificate (or None).

    Raises
    ------
    ValueError
        For ISNKPVN, when ``tol`` is at or below twice the accuracy with which
        ``||p||_G`` can be certified for ``G`` (:func:`kperc._gram.seminorm_floor`,
        the check ISNKPVN makes of its ``eps``); the message names ``tol``, the floor
        and ``lower_floor``, a form of the kernel whose floor is lower (if any).
    """
    if algorithm == "isnkpvn":
        gram = as_gram(G, validate=False)
        floor = seminorm_floor(gram, data=False)
        if not tol > 2.0 * floor:
            raise ValueError(
                f"tol={tol:g} is below the accuracy with which ISNKPVN can certify "
                f"||p||_G for this kernel matrix (about {floor:.2g}: the rounding of "
                f"p^T G p for n = {gram.n} training points); use tol > {2.0 * floor:.2g}"
                f"{lower_floor}."
            )
    # SNKP only: its iterations are products with G; NKP's read one column each, which
    # a LinearOperator would compute as a whole product
    fast = isinstance(G, np.ndarray) and algorithm == "snkp" and G.shape[0] >= FLOAT32_MIN_N
    if fast:
        res, found = _run(_Float32Dense(G), G, algorithm, max_iter, halt, tol, verbose)
        if res.outcome != "separator" or _separates(G, res.alpha):
            return res, found
        # the float32 proposal does not hold in float64 (rare): run again on G itself
    return _run(G, G, algorithm, max_iter, halt, tol, verbose)


def _separates(G: np.ndarray, alpha: np.ndarray) -> bool:
    """Whether ``G* alpha > 0`` surely, for the exact kernel matrix ``G*`` of the data.

    ``alpha`` comes from a run on the float32 copy of ``G``, whose products carry a
    relative error of order ``n 2^-24``: nothing of that run is trusted. ``G alpha`` is
    computed afresh in double precision from ``G`` itself, so the float32 rounding
    does not enter; what does is the rounding of this product and of the sum of
    ``alpha`` (``gamma_n``, ``u = 2^-53``) and, for a ``G`` built from data, the bound
    ``delta`` on ``|G_ij - G*_ij|`` of its construction
    (:func:`kperc._separable.data_product_error`). The separator holds when the
    smallest computed ``(G alpha)_i`` exceeds that bound, which scales with
    ``||alpha||_1``.
    """
    info = gram_provenance(G)
    delta = 0.0 if info is None or info.entry_error is None else float(info.entry_error)
    bound = data_product_error(G.shape[0], float(np.sum(alpha)), delta)
    return bool(float((G @ alpha).min()) > bound)


def _run(products, G, algorithm, max_iter, halt, tol, verbose):
    progress = progress_callback(verbose, algorithm)
    kw: dict[str, Any] = {"max_iter": max_iter, "check_input": False}
    found: dict[str, Any] = {}
    if algorithm == "isnkpvn":
        kw.update(eps=tol, callback=progress)
    else:
        watch, found = certificate_watch(G, tol, every=16 if algorithm == "snkp" else 256)

        def callback(r):
            if progress is not None:
                progress(r)
            watch(r)

        kw.update(halt=halt, callback=callback)
    with warnings.catch_warnings():
        # ISNKPVN's "undecided" (tol below what the data's exact kernel matrix lets it
        # certify) is said once, by the fit's InseparableDataWarning (inseparable_message)
        warnings.filterwarnings("ignore", message="undecided:", category=RuntimeWarning)
        res = ALGORITHMS[algorithm](products, **kw)
    if res.outcome == "certificate" and res.get("p") is not None:
        # ISNKPVN reports ||p||_G as computed on G; the classifier's certificate_norm_
        # is an upper bound for the exact kernel matrix of the data (rounding included)
        res["norm_p_G"] = float(quick_seminorm_bound(as_gram(G, validate=False), res.p)[1])
    return res, (found if res.outcome == "callback" and found else None)


def margin_upper_bound(G: Any, res: KpercResult) -> float | None:
    """An upper bound on the normalised margin of the training data, from the run's last
    dual iterate ``p`` (NKP's ``alpha``): no separator has a margin above ``||p||_G``
    for any ``p`` of the simplex (rounding included). None when there is no such ``p``."""
    p = res.get("p")
    p = res.get("alpha") if p is None else p
    if p is None or np.any(p < 0) or not float(np.sum(p)) > 0:
        return None
    p = p / float(np.sum(p))
    return float(quick_seminorm_bound(as_gram(G, validate=False), p)[1])


def conflicts(Xa, ypm: np.ndarray) -> np.ndarray:
    """Pairs of training points with identical features and opposite labels."""
    if scipy.sparse.issparse(Xa):
        return _sparse_conflicts(Xa, ypm)
    return _conflicting_pairs(Xa, ypm)  # X is finite: the classifier refused NaN and inf


def _sparse_conflicts(Xa, ypm):
    """:func:`conflicts` of a canonical CSR matrix without densifying it: rows are
    grouped by a key (their product with a fixed random vector: identical rows store
    identical entries in the same order, so get bitwise identical keys), and only groups
    of equal keys that hold both labels are densified and compared exactly."""
    n = Xa.shape[0]
    if n < 2:
        return np.zeros((0, 2), dtype=np.intp)
    r = np.random.default_rng(20140621).uniform(1.0, 2.0, (Xa.shape[1],))
    amax = float(np.max(np.abs(Xa.data))) if Xa.nnz else 0.0
    scale = pow2_scale(amax) if amax > 0 else 1.0
    key = np.asarray((Xa / scale) @ r).reshape(-1)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    sizes = np.diff(np.r_[starts, n])
    pos = np.add.reduceat((ypm[order] > 0).astype(np.intp), starts)
    mixed = np.flatnonzero((sizes >= 2) & (pos > 0) & (pos < sizes))
    if mixed.size == 0:
        return np.zeros((0, 2), dtype=np.intp)
    cand = np.sort(np.concatenate([order[starts[i] : starts[i] + sizes[i]] for i in mixed]))
    sub = _conflicting_pairs(Xa[cand].toarray(), ypm[cand])
    return cand[sub] if sub.size else sub


def variance(X) -> float:
    """The variance of all entries of ``X`` (dense or sparse), as ``X.var()``, computed
    on ``X`` over a power of two near its largest entry (exact): entries of size
    ``1e+-300`` give the variance's value (``inf`` or 0 only when it is not
    representable), without overflow in the squares."""
    amax = float(abs(X).max()) if X.shape[0] and X.shape[1] else 0.0
    scale = pow2_scale(amax) if amax > 0 else 1.0
    X = X / scale
    if scipy.sparse.issparse(X):
        mean = X.sum() / (X.shape[0] * X.shape[1])
        v = float(X.multiply(X).sum() / (X.shape[0] * X.shape[1]) - mean**2)
    else:
        v = float(X.var())
    with np.errstate(over="ignore", under="ignore"):
        return float(np.float64(v) * scale * scale)


_SOFT = (
    " A hard-margin classifier has no useful answer here; for noisy data use a "
    "soft-margin method such as sklearn.svm.SVC (or pass a smaller tol to look for a "
    "separator with a smaller margin)."
)


def inseparable_message(est: Any, X) -> str:
    """The one sentence of the :class:`~kperc.InseparableDataWarning` of a binary fit
    ``est`` (fitted, not converged) on the training data ``X``."""
    name = est.algorithm.upper()
    tail = (
        "; the model keeps an iterate that does not separate the training data, and its "
        f"predictions carry no guarantee.{scale_hint(est, X)}"
    )
    if est.outcome_ == "conflict":
        pairs = ", ".join(f"({i}, {j})" for i, j in est.conflicts_[:5])
        more = ", ..." if est.conflicts_.shape[0] > 5 else ""
        return (
            f"the training data are not separable by any kernel: "
            f"{est.conflicts_.shape[0]} pair(s) of points have identical features and "
            f"opposite labels ({pairs}{more}; conflicts_, witnesses_). Trained without "
            f"them, {name} {est._rest_note}" + tail
        )
    if est.outcome_ == "certificate":
        witnesses = est.witnesses_
        shown = ", ".join(str(i) for i in witnesses[:10])
        more = ", ..." if witnesses.size > 10 else ""
        why = ""
        if isinstance(est.tol, str) and est._tol_is_memorising:
            why = (
                f" (tol='auto' is 1/sqrt(n) for n = {est._n_train} points: the margin of "
                "points that a kernel maps to orthonormal features, so a smaller margin "
                "separates these data no better than memorising each point)"
            )
        return (
            f"no separator of the training data has a normalised margin above "
            f"{est.certificate_norm_:.3g} in this kernel's feature space, which is below "
            f"the tolerance tol_ = {est.tol_:.3g}{why}: {name} found a point p of the "
            f"simplex with ||p||_G <= {est.certificate_norm_:.3g}, whose support is "
            f"{witnesses.size} training points (witnesses_ = [{shown}{more}]); the data "
            "may be separable with a smaller margin" + tail + _SOFT
        )
    if est.outcome_ == "undecided":
        floor = certifiable_floor(est, X)
        return (
            f"whether the training data have a separator with a normalised margin near "
            f"tol_ = {est.tol_:.3g} is undecided: {name} found a point p of the simplex "
            f"with ||p||_G <= {est.tol_:.3g} for the kernel matrix as rounded, but its "
            "construction rounds each entry, and for the exact kernel matrix of the "
            f"training data ||p||_G can be certified only above about {floor:.2g}. Use "
            f"tol > {floor:.2g}" + tail + _SOFT
        )
    if est._grown_message:  # n_components="auto" grew the Nystroem rank
        msg = est._grown_message
        # a rank that stopped growing (stop "residual") has already named the exact
        # kernel's cost: say it once
        cost = "" if est._grown_stop == "residual" else " (8 n^2 bytes)"
        return (
            f"{name} on Nystroem features of a growing rank: {msg[0].lower()}{msg[1:-1]} "
            "under the exact kernel; n_components=None trains on the exact n x n kernel "
            f"matrix{cost}" + tail
        )
    bound = (
        f"; its last dual iterate shows that no separator has a normalised margin above "
        f"{est._margin_bound:.3g} (normalised margins are at most 1)"
        if est._margin_bound is not None
        else ""
    )
    return (
        f"{name} found no separator of the training data within max_iter="
        f"{int(est.max_iter)} iterations{bound}. A separator, if one exists, has a "
        "smaller margin, which this budget does not reach: raise max_iter "
        "(kperc.is_separable decides separability exactly)" + tail
    )


def certifiable_floor(est: Any, X) -> float:
    """Twice the smallest bound on ``||p||_G`` that can be certified for the exact kernel
    matrix of the binary fit's training points (:func:`kperc._gram.seminorm_floor`,
    for the form the fit used: below it ISNKPVN ends "undecided")."""
    from ._gram_matrix import _signed_normalized_points, factor_row_error
    from ._kernel_values import _entry_error

    Xa = est._augment(X)
    train = np.setdiff1d(np.arange(Xa.shape[0]), est.conflicts_.ravel())
    Xt = Xa[train]
    ypm = np.ones(train.size)
    if est.gram_form_ == "factored":
        op = GramOperator(_signed_normalized_points(Xt, ypm))
        op.row_error = factor_row_error(op.row_nnz)
        return 2.0 * seminorm_floor(_OperatorGram(op))
    Xt = Xt.toarray() if scipy.sparse.issparse(Xt) else Xt
    delta = _entry_error(Xt, est.kernel, est._kernel_params()) or 0.0
    ul = float(np.finfo(np.longdouble).eps) / 2
    return 2.0 * float(np.sqrt(2 * (train.size + 2) * ul + delta))


def scale_hint(est: Any, X) -> str:
    """A sentence suggesting rescaling when the features' scales, ``gamma`` or the
    intercept, rather than the data, are the likely reason for a tiny margin."""
    hints = []
    # the spreads' ratio does not depend on X's scale: X over a power of two near its
    # largest entry (exact), so that entries of size 1e+-300 neither overflow nor vanish
    amax = float(abs(X).max()) if X.shape[0] > 1 and X.shape[1] else 0.0
    Xs = X / pow2_scale(amax) if amax > 0 else X
    if X.shape[0] <= 1:
        std = np.zeros(X.shape[1])
    elif scipy.sparse.issparse(Xs):
        std = np.sqrt(mean_variance_axis(scipy.sparse.csr_matrix(Xs), axis=0)[1])
    else:
        std = Xs.std(axis=0)
    pos = std[std > 0]
    if pos.size >= 2 and pos.max() / pos.min() > 1e3:
        hints.append(
            f"the features' spreads differ by a factor {pos.max() / pos.min():.2g}; "
            "standardise X (sklearn.preprocessing.StandardScaler)"
        )
    if est.intercept_feature_ is not None and not (1e-3 <= float(est.intercept_scaling) <= 1e3):
        hints.append(
            f"intercept_scaling={float(est.intercept_scaling):g} makes the constant "
            "feature far larger or smaller than the points; try a value near 1"
        )
    if not callable(est.kernel) and est.kernel == "rbf" and X.shape[0] > 1:
        sub = X[: min(X.shape[0], 200)]
        d2 = np.sum((sub[:, None, :] - sub[None, :, :]) ** 2, axis=-1)
        med = float(np.median(d2[np.triu_indices(sub.shape[0], 1)]))
        g = est._gamma * med
        if med > 0 and (g > 50 or g < 1e-4):
            hints.append(
                f"gamma * (median squared distance) = {g:.2g} makes the RBF kernel "
                f"{'nearly the identity' if g > 50 else 'nearly constant'}; try "
                "gamma='scale'"
            )
    return (" Hint: " + "; ".join(hints) + ".") if hints else ""

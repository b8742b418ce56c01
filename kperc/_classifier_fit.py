"""The fit of :class:`kperc.SNKPClassifier`, on data it has validated once.

:func:`fit_problems` fits the binary problems (one, or one per class for one-vs-rest)
on what they share, computed once: the augmented ``X``, ``gamma`` and the normalised
kernel matrix (:class:`~kperc._gram_form.SharedKernel`), whose products the classes'
SNKP runs share (:class:`Lockstep`). :func:`fit_binary` is one binary fit: points
repeated with both labels (:func:`conflicts`), the tolerance (:func:`resolve_tol`), the
training kernel (:func:`build_gram`), the run of the chosen algorithm with the
classifier's certificate watch (:func:`run_algorithm`) and the fitted attributes
(:func:`record`). :func:`fit_warning` names what a fit without a separator proved.
Nothing here validates ``X`` again.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse
from scipy.sparse.linalg import LinearOperator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.sparsefuncs import mean_variance_axis

from . import _gram_form
from ._gram import _DenseGram, _OperatorGram, as_gram, quick_seminorm_bound, seminorm_floor
from ._gram_form import (
    DeviceForm,
    GramForm,
    SharedKernel,
    SignedGram,
    build_fixed_gram,
    choose_gram_form,
    point_scales,
    resolve_device,
    sqrt_diagonal,
)
from ._gram_matrix import GramOperator
from ._grown_rank import GrownNystroem, fit_grown_rank
from ._kernel_values import _U, linear_norms, resolve_gamma
from ._perceptrons import nkp, snkp
from ._primal_dual import isnkpvn
from ._result import KpercResult
from ._separable import _conflicting_pairs, data_product_error
from ._validation import as_real_array, check_sparse_X, gram_provenance, pow2_scale

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


class InseparableDataWarning(ConvergenceWarning):
    """The classifier's training data were proved inseparable by every kernel.

    A subclass of :class:`sklearn.exceptions.ConvergenceWarning`, emitted once, by
    :meth:`~kperc.SNKPClassifier.fit`, when some training points are repeated with both
    labels (``outcome_ == "conflict"``): no kernel separates them. The fitted model's
    ``converged_`` is then False and its predictions come from an iterate trained on the
    other points. :meth:`~kperc.SNKPClassifier.predict` and
    :meth:`~kperc.SNKPClassifier.decision_function` do not warn again.

    Examples
    --------
    >>> import warnings
    >>> from kperc import SNKPClassifier
    >>> X, y = [[1.0], [1.0]], [0, 1]  # one point, with both labels
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     clf = SNKPClassifier(kernel="linear", algorithm="isnkpvn").fit(X, y)
    >>> caught[0].category.__name__, clf.outcome_, clf.witnesses_.tolist()
    ('InseparableDataWarning', 'conflict', [0, 1])
    """


class SmallMarginWarning(ConvergenceWarning):
    """No separator of the training data has a normalised margin above ``tol``.

    A subclass of :class:`sklearn.exceptions.ConvergenceWarning`, emitted once, by
    :meth:`~kperc.SNKPClassifier.fit`, when the fit stopped on a certificate
    (``outcome_ == "certificate"``): a point ``p`` of the simplex with ``||p||_G <=
    certificate_norm_ <= tol_`` under the exact kernel matrix of the data, which proves
    that no separator has a normalised margin above ``certificate_norm_``. The data may
    still be separable with a smaller margin: the message states the smallest ``tol``
    that can be certified for these data; pass a ``tol`` between the two (and a larger
    ``max_iter``) to look for such a separator, or use :func:`kperc.is_separable`. The
    fitted model's ``converged_`` is False.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from kperc import SNKPClassifier
    >>> X = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.01], [-1.0, 0.01]])
    >>> y = [0, 0, 1, 1]  # separable by x_2 > 0.005, with a margin near 0.005
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     clf = SNKPClassifier(kernel="linear", fit_intercept=False, tol=0.1).fit(X, y)
    >>> caught[0].category.__name__, clf.outcome_, bool(clf.certificate_norm_ <= 0.1)
    ('SmallMarginWarning', 'certificate', True)
    """


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


class _Float32Signed(LinearOperator):
    """The products of a :class:`~kperc._gram_form.SignedGram` with the float32 copy of
    its shared ``K~``: ``y * (K32 (y * v))``, bit for bit :class:`_Float32Dense` of
    ``G = D K~ D`` (rounding to float32 and products with ``+-1`` commute). In
    one-vs-rest the classes' runs share each product (:class:`Lockstep`)."""

    def __init__(self, G: SignedGram) -> None:
        super().__init__(dtype=np.float64, shape=G.shape)
        self.G = G
        self.K32 = G.shared.K32
        self._v = np.empty(G.n, dtype=np.float32)
        self._out = np.empty(G.n, dtype=np.float32)

    def _matvec(self, v):
        y = self.G.y
        self._v[:] = y * np.asarray(v).reshape(-1)
        if self.G.lockstep is not None:
            return y * self.G.lockstep.product(self.G.member, self.K32, self._v)
        np.matmul(self.K32, self._v, out=self._out)
        return y * self._out.astype(np.float64)

    def _rmatvec(self, v):
        return self._matvec(v)


class Lockstep:
    """SNKP's runs of the classes of one-vs-rest, one thread each, meeting at every
    product with the shared ``K~``: when every class still running has asked for one,
    one blocked product serves them all (:func:`_shared_product`), reading ``K~`` from
    memory once instead of once per class (the reading is the cost of a product). Each
    class asks for its products in a fixed order and a round serves exactly one request
    of each class still running, so the rounds, and the results, do not depend on the
    threads' timing."""

    def __init__(self, members: int) -> None:
        self._cond = threading.Condition()
        self._running = set(range(members))
        self._asked: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._answers: dict[int, Any] = {}

    def product(self, member: int, M: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``M x`` (``M`` symmetric), computed with the other classes' products."""
        with self._cond:
            self._asked[member] = (M, x.copy())
            self._serve()
            while member not in self._answers:
                self._cond.wait()
            out = self._answers.pop(member)
        if isinstance(out, BaseException):
            raise out
        return out

    def leave(self, member: int) -> None:
        """The class's run ended: the others no longer wait for it (idempotent)."""
        with self._cond:
            self._running.discard(member)
            self._serve()

    def _serve(self) -> None:
        if not self._asked or not self._running <= set(self._asked):
            return
        groups: dict[int, list[int]] = {}
        for m in sorted(self._asked):
            groups.setdefault(id(self._asked[m][0]), []).append(m)
        try:
            for members in groups.values():
                M = self._asked[members[0]][0]
                if len(members) == 1:
                    self._answers[members[0]] = np.asarray(
                        M @ self._asked[members[0]][1], dtype=np.float64
                    )
                    continue
                out = _shared_product(M, np.stack([self._asked[m][1] for m in members], axis=1))
                for j, m in enumerate(members):
                    self._answers[m] = out[:, j].astype(np.float64)
        except BaseException as exc:  # noqa: BLE001 - handed to every waiting class
            for m in self._asked:
                self._answers[m] = exc
        self._asked.clear()
        self._cond.notify_all()


#: Bytes of ``K~`` per block of :func:`_shared_product`: a block stays in the processor's
#: L2 cache while it multiplies every class's vector.
BLOCK_BYTES = 2**19


def _shared_product(M: np.ndarray, V: np.ndarray) -> np.ndarray:
    """``M V`` for a few columns ``V``, by blocks of rows of ``M``: each block is read
    from memory once for all columns. One ``M @ V`` would first pack (copy) all of
    ``M``, which costs as much memory traffic as a product per column."""
    n = M.shape[0]
    rows = max(1, BLOCK_BYTES // (M.shape[1] * M.itemsize))
    out = np.empty((n, V.shape[1]), dtype=np.result_type(M, V))
    for i in range(0, n, rows):
        np.matmul(M[i : i + rows], V, out=out[i : i + rows])
    return out


def gram_product(G: Any, v: np.ndarray) -> np.ndarray:
    """``G v`` in float64, for a dense ``G``, a :class:`~kperc._gram_form.SignedGram` or a
    :class:`~kperc._gram_form.DeviceForm`."""
    return G.matvec(v) if isinstance(G, (SignedGram, DeviceForm)) else G @ v


def seminorm_upper(G: Any, p: np.ndarray) -> float:
    """An upper bound on ``||p||_G`` for the exact kernel matrix of the data (rounding
    included) when ``G`` was built from data."""
    if isinstance(G, (SignedGram, DeviceForm)):
        return G.seminorm_upper(p)
    return float(quick_seminorm_bound(as_gram(G, validate=False), p)[1])


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


def _surely_above(G: Any, p: np.ndarray, tol: float) -> bool:
    """Whether ``||p||_G > tol`` is certain from ``p^T G p`` computed in double precision.

    One BLAS product instead of the extended-precision quadratic form of
    ``seminorm_bound`` (not BLAS: about 60 products at ``n = 400``). For ``p >= 0`` and
    ``|G_ij| <= 1`` (a normalised Gram matrix, up to rounding) the computed ``p^T G p``
    is within ``2 (n + 2) u ||p||_1^2`` of the exact value (``u`` the unit round-off),
    whatever the order of the sums; the bound used here is twice that. When the
    computed value minus the bound still exceeds ``tol^2``, the exact ``||p||_G``
    exceeds ``tol``, so ``seminorm_bound``'s upper bound does too and ``p`` is no
    ``tol``-certificate: the screen never changes the decision, it only skips the
    expensive form when that form cannot certify.
    """
    q = float(p @ gram_product(G, p))
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
    # a device's float64 product costs as much as the bound: its float32 screen instead
    dense = isinstance(G, SignedGram) or (
        not isinstance(G, DeviceForm) and isinstance(as_gram(G, validate=False), _DenseGram)
    )
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
        if isinstance(G, DeviceForm) and G.surely_above(p, tol):
            return  # the float64 bound below would say the same
        if dense and _surely_above(G, p, tol):
            return  # the bound below would say the same
        upper = seminorm_upper(G, p)
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
        gram = G.exact if isinstance(G, DeviceForm) else as_gram(G, validate=False)
        floor = seminorm_floor(gram, data=False)
        if not tol > 2.0 * floor:
            raise ValueError(
                f"tol={tol:g} is below the accuracy with which ISNKPVN can certify "
                f"||p||_G for this kernel matrix (about {floor:.2g}: the rounding of "
                f"p^T G p for n = {gram.n} training points); use tol > {2.0 * floor:.2g}"
                f"{lower_floor}."
            )
    if isinstance(G, DeviceForm):  # iterations on the device, every claim in float64
        res, found = _run(G.products, G, algorithm, max_iter, halt, tol, verbose)
        return G.confirm(res, tol), found
    # SNKP only: its iterations are products with G; NKP's read one column each, which
    # a LinearOperator would compute as a whole product
    if isinstance(G, SignedGram):  # SNKP, at least FLOAT32_MIN_N points
        try:
            res, found = _run(_Float32Signed(G), G, algorithm, max_iter, halt, tol, verbose)
        finally:
            G.close()
        if res.outcome != "separator" or _separates(G, res.alpha):
            return res, found
        # the float32 proposal does not hold in float64 (rare): run again on G itself
        D = G.shared.signed(np.arange(G.n), G.y)
        return _run(D, D, algorithm, max_iter, halt, tol, verbose)
    fast = isinstance(G, np.ndarray) and algorithm == "snkp" and G.shape[0] >= FLOAT32_MIN_N
    if fast:
        res, found = _run(_Float32Dense(G), G, algorithm, max_iter, halt, tol, verbose)
        if res.outcome != "separator" or _separates(G, res.alpha):
            return res, found
    return _run(G, G, algorithm, max_iter, halt, tol, verbose)


def _separates(G: Any, alpha: np.ndarray) -> bool:
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
    if isinstance(G, SignedGram):
        delta = G.entry_error
    else:
        info = gram_provenance(G)
        delta = 0.0 if info is None or info.entry_error is None else float(info.entry_error)
    bound = data_product_error(G.shape[0], float(np.sum(alpha)), delta)
    return bool(float(gram_product(G, alpha).min()) > bound)


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
    if algorithm == "isnkpvn":
        with warnings.catch_warnings():
            # ISNKPVN's "undecided" (tol below what the data's exact kernel matrix lets
            # it certify) is said once, by the fit's warning (fit_warning)
            warnings.filterwarnings("ignore", message="undecided:", category=RuntimeWarning)
            res = isnkpvn(products, **kw)
    else:  # no catch_warnings: it is not thread-safe, and one-vs-rest runs SNKP in threads
        res = ALGORITHMS[algorithm](products, **kw)
    if res.outcome == "certificate" and res.get("p") is not None:
        # ISNKPVN reports ||p||_G as computed on G; the classifier's certificate_norm_
        # is an upper bound for the exact kernel matrix of the data (rounding included)
        res["norm_p_G"] = seminorm_upper(G, res.p)
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
    return seminorm_upper(G, p)


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


def fit_warning(est: Any, X) -> tuple[type[Warning], str]:
    """The warning of a binary fit ``est`` (fitted, not converged) on the training data
    ``X``: its class, which names what the fit proved, and its one sentence.

    :class:`~kperc.InseparableDataWarning` for points repeated with both labels (no
    kernel separates them); :class:`~kperc.SmallMarginWarning` for a certificate (no
    separator with a margin above ``tol``; the data may be separable with a smaller
    one); :class:`~sklearn.exceptions.ConvergenceWarning` when neither was proved
    (``max_iter``, or "undecided").
    """
    name = est.algorithm.upper()
    tail = (
        "; the model keeps an iterate that does not separate the training data, and its "
        f"predictions carry no guarantee.{scale_hint(est, X)}"
    )
    if est.outcome_ == "conflict":
        pairs = ", ".join(f"({i}, {j})" for i, j in est.conflicts_[:5])
        more = ", ..." if est.conflicts_.shape[0] > 5 else ""
        return InseparableDataWarning, (
            f"the training data are not separable by any kernel: "
            f"{est.conflicts_.shape[0]} pair(s) of points have identical features and "
            f"opposite labels ({pairs}{more}; conflicts_, witnesses_). Trained without "
            f"them, {name} {est._rest_note}" + tail + " For noisy data a soft-margin "
            "method such as sklearn.svm.SVC trades training errors against the margin."
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
        floor = certifiable_floor(est, X)
        return SmallMarginWarning, (
            f"no separator of the training data has a normalised margin above "
            f"{est.certificate_norm_:.3g} in this kernel's feature space, which is below "
            f"the tolerance tol_ = {est.tol_:.3g}{why}: {name} found a point p of the "
            f"simplex with ||p||_G <= {est.certificate_norm_:.3g} under the exact kernel "
            f"matrix of the data, whose support is {witnesses.size} training points "
            f"(witnesses_ = [{shown}{more}]). The data may be separable with a smaller "
            f"margin: to look for such a separator pass a smaller tol, above "
            f"{floor:.2g} (the smallest that can be certified for these data), with "
            "max_iter of about 2 sqrt(2 log n) / tol for SNKP, or decide it with "
            "kperc.is_separable" + tail + " If a margin this small is of no use (noisy "
            "data), a soft-margin method such as sklearn.svm.SVC trades training errors "
            "against the margin."
        )
    if est.outcome_ == "undecided" and est._device_message:
        return ConvergenceWarning, f"{name}: {est._device_message}" + tail
    if est.outcome_ == "undecided":
        floor = certifiable_floor(est, X)
        return ConvergenceWarning, (
            f"whether the training data have a separator with a normalised margin near "
            f"tol_ = {est.tol_:.3g} is undecided: {name} found a point p of the simplex "
            f"with ||p||_G <= {est.tol_:.3g} for the kernel matrix as rounded, but its "
            "construction rounds each entry, and for the exact kernel matrix of the "
            f"training data ||p||_G can be certified only above about {floor:.2g}. Use "
            f"tol > {floor:.2g}" + tail
        )
    if est._grown_message:  # n_components="auto" grew the Nystroem rank
        msg = est._grown_message
        # a rank that stopped growing (stop "residual") has already named the exact
        # kernel's cost: say it once
        cost = "" if est._grown_stop == "residual" else " (8 n^2 bytes)"
        return ConvergenceWarning, (
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
    return ConvergenceWarning, (
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

    Xa = augment(est, X)
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


# -- the fit, after the estimator's one validation of X --------------------------------


#: The numeric parameters: scikit-learn's ``Interval`` takes ``True`` for 1.
_NUMBERS: tuple[str, ...] = ("gamma", "degree", "coef0", "intercept_scaling", "max_iter")
_NUMBERS += ("tol", "n_components", "n_threads")


def check_combinations(est: Any) -> None:
    """What ``_parameter_constraints`` cannot express: a bool passed as a number, and
    the combinations of parameters that cannot work together."""
    for name in _NUMBERS:
        if isinstance(getattr(est, name), (bool, np.bool_)):
            raise ValueError(f"{name} must be a number, not a bool; got {getattr(est, name)!r}.")
    if callable(est.kernel) and not (est.n_components is None or est.n_components == "auto"):
        raise ValueError(
            "n_components (Nystroem features) needs a named kernel ('rbf', 'poly' or "
            "'linear'): scikit-learn's Nystroem would call a callable kernel once per "
            "pair of points. Use n_components='auto' or None (the exact kernel)."
        )
    if est.device is not None:
        if callable(est.kernel) or est.kernel not in ("rbf", "linear"):
            raise ValueError(
                f"device={est.device!r} fits the 'rbf' and 'linear' kernels only; got "
                f"kernel={est.kernel!r}. Use device=None (numpy) for this kernel."
            )
        if not (est.n_components is None or est.n_components == "auto"):
            raise ValueError(
                f"device={est.device!r} fits the exact kernel (n_components='auto' or "
                f"None); got n_components={est.n_components!r} (Nystroem features, numpy "
                "only)."
            )
        resolve_device(est.device)
    if not est.halt and est.algorithm == "isnkpvn":
        raise ValueError(
            "halt=False keeps improving a separator, which only algorithm='snkp' or "
            "'nkp' can do; ISNKPVN always stops at its first separator."
        )


def gamma_of(est: Any, X) -> float:
    """The kernel's ``gamma`` for the (rescaled) training ``X``
    (:func:`kperc._kernel_values.resolve_gamma`); 1.0, unused, for the linear kernel and
    a callable one, so that their fits never fail on a ``gamma`` they do not use."""
    if callable(est.kernel) or est.kernel == "linear":
        return 1.0
    return resolve_gamma(est.gamma, X)


#: ``gamma="scale"``: ``X`` is rescaled (exactly, by ``2^-k``) only when its standard
#: deviation is outside ``2^+-SCALE_EXPONENT``, where ``gamma`` or ``X.var()`` may not be
#: representable.
SCALE_EXPONENT = 128


def data_exponent(est: Any, X) -> int:
    """``k`` such that the model trains and predicts on ``X * 2^-k``, exactly.

    With ``gamma="scale"`` the RBF and polynomial kernels are those of ``X / std(X)``, so
    a power of two applied to ``X`` changes nothing but the representability of
    ``gamma = 1 / (n_features X.var())``, which is not a normal float64 for entries
    beyond about ``1e+-154`` (:func:`kperc._kernel_values.resolve_gamma` refuses it).
    ``k`` is 0 unless the standard deviation of the entries is outside
    ``2^+-SCALE_EXPONENT`` and the scaling is exact (no entry underflows).
    """
    if est.gamma != "scale" or callable(est.kernel) or est.kernel == "linear":
        return 0
    if scipy.sparse.issparse(X) or X.size == 0:
        return 0
    amax = float(np.max(np.abs(X)))
    if not amax > 0:
        return 0
    top = int(np.frexp(amax)[1])
    v = float(np.ldexp(X, -top).var())  # entries at most 1: no overflow
    if not v > 0:
        return 0
    k = top + int(np.round(0.5 * np.log2(v)))
    if abs(k) <= SCALE_EXPONENT or not np.array_equal(np.ldexp(np.ldexp(X, -k), k), X):
        return 0
    return k


def intercept_feature(est: Any, X) -> float | None:
    """The appended constant feature: ``intercept_scaling`` times the power of two nearest
    the root-mean-square norm of the rows (None when no feature is appended)."""
    if not (bool(est.fit_intercept) and (callable(est.kernel) or est.kernel != "rbf")):
        return None
    norms = linear_norms(X)  # rows of size 1e+-300: no overflow in the squares
    top = float(np.max(norms)) if norms.size else 0.0
    rms = top * float(np.sqrt(np.mean((norms / top) ** 2))) if top > 0 else 0.0
    scale = pow2_scale(rms) if rms > 0 and np.isfinite(rms) else 1.0
    return float(est.intercept_scaling) * scale


def augment(est: Any, X):
    """``X`` with the intercept feature of ``est`` appended (if any)."""
    c = est.intercept_feature_
    if c is None:
        return X
    if scipy.sparse.issparse(X):
        col = scipy.sparse.csr_matrix(np.full((X.shape[0], 1), c))
        return scipy.sparse.hstack([X, col], format="csr")
    return np.hstack([X, np.full((X.shape[0], 1), c)])


def trusted_X(est: Any, X):
    """``X`` after :func:`~sklearn.utils.validation.validate_data`: sparse only where the
    linear kernel's factored operator takes it, real and finite also with
    ``check_input=False``."""
    if scipy.sparse.issparse(X):
        if est.device is not None:
            raise TypeError(
                f"X is a scipy.sparse matrix, which device={est.device!r} does not take: "
                "pass X.toarray(), or use device=None (the sparse factored operator)."
            )
        if not est._linear():
            raise TypeError(
                f"X is a scipy.sparse matrix, which SNKPClassifier takes only with "
                f"kernel='linear' (trained through a sparse factored operator); "
                f"kernel={est.kernel!r} needs dense X: pass X.toarray(), or use "
                "kernel='linear'."
            )
        if est.n_components is None or not isinstance(est.n_components, str):
            what = (
                "the dense n x n matrix that n_components=None asks for"
                if est.n_components is None
                else f"the Nystroem features of n_components={est.n_components!r}"
            )
            raise TypeError(
                "X is a scipy.sparse matrix, which the linear kernel trains on through its "
                f"exact sparse factored operator, not {what}: use n_components='auto' "
                "(also exact), or pass X.toarray()."
            )
        return check_sparse_X(X, "X")  # a CSR copy: real, finite (check_input or not)
    if est.check_input:  # validate_data made it a finite float64 array
        return X
    X = as_real_array(X, "X")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or inf; remove or impute those entries first.")
    return X


def fit_problems(models: list[Any], X, labels: list[np.ndarray]) -> None:
    """Fit each model on its binary problem (labels in {-1, +1}) on the validated ``X``.

    What the problems share is computed once: the augmented ``X``, ``gamma``, and, for
    the exact dense form, the normalised kernel matrix ``K~`` with its entry-error bound
    and its float32 copy (:class:`~kperc._gram_form.SharedKernel`); each class trains on
    ``G_c = D_c K~ D_c``, certified against the exact kernel matrix of the data. With
    SNKP on at least :data:`FLOAT32_MIN_N` points the classes run in lockstep, one
    thread each, sharing every product with ``K~`` (:class:`Lockstep`).
    """
    est = models[0]
    Xa = augment(est, X)
    n = Xa.shape[0]
    shared = None
    named = not callable(est.kernel)
    many = len(models) > 1
    snkp32 = est.algorithm == "snkp" and n >= FLOAT32_MIN_N
    if (
        named
        and est.device is None  # a device fit runs class by class, each on the device
        and (many or (snkp32 and not conflicts(Xa, labels[0]).size))  # else: a copy
        and choose_gram_form(est, n).form == "dense"
        and not scipy.sparse.issparse(Xa)
        and bool(np.all(sqrt_diagonal(Xa, est.kernel, est._kernel_params()) > 0))
    ):
        t0 = time.perf_counter()
        shared = SharedKernel(Xa, est.kernel, est._kernel_params())
        shared_by = f", shared by the {len(models)} classes" if many else ""
        est._log(f"normalised kernel matrix of {n} points{shared_by}", t0)
    if not (many and shared is not None and snkp32):
        for m, ypm in zip(models, labels, strict=True):
            fit_binary(m, X, Xa, ypm, shared)
        return
    shared.lockstep = Lockstep(len(models))
    shared.K32  # formed once, here: the classes' threads share this copy  # noqa: B018
    errors: list[BaseException | None] = [None] * len(models)

    def run(c: int) -> None:
        try:
            with models[c]._threads():  # BLAS settings may be per thread
                fit_binary(models[c], X, Xa, labels[c], shared, member=c)
        except BaseException as exc:  # noqa: BLE001 - raised by the fit's thread below
            errors[c] = exc
        finally:
            shared.lockstep.leave(c)

    threads = [threading.Thread(target=run, args=(c,)) for c in range(len(models))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shared.lockstep = None
    for exc in errors:
        if exc is not None:
            raise exc


def fit_binary(est: Any, X, Xa, ypm: np.ndarray, shared: SharedKernel | None, member: int = 0):
    """Fit ``est`` on the (augmented) validated points ``Xa`` with labels ``ypm`` in
    {-1, +1} and record the binary fitted attributes."""
    n = Xa.shape[0]
    # points repeated with both labels: no kernel separates them, so no run can
    # succeed; they are left out of the training run (and named)
    est.conflicts_ = conflicts(Xa, ypm)
    train = np.setdiff1d(np.arange(n), est.conflicts_.ravel())
    est._n_train = max(train.size, 1)
    linear = est._linear()
    est.tol_ = resolve_tol(est.tol, est.algorithm, int(est.max_iter), est._n_train, linear)
    est._tol_is_memorising = est.tol_ == 1.0 / np.sqrt(est._n_train)
    alpha, s = np.zeros(n), np.zeros(n)
    res = found = G = None
    est.gram_form_ = choose_gram_form(est, n).form
    est.n_components_ = None
    est._grown_message = est._grown_stop = None
    est._margin_bound = est._device_message = None
    params = est._kernel_params()
    if train.size and np.unique(ypm[train]).size == 2:
        t0 = time.perf_counter()
        G, s[train], form = build_gram(est, Xa, train, ypm[train], shared, member)
        est.gram_form_, est.n_components_ = form.form, form.n_components
        if isinstance(G, GrownNystroem):
            est._grown_message, est._grown_stop = G.result.message, G.result.stop
        est._log(f"kernel={est.kernel!r}, gamma={est._gamma:.4g}: {_what(est, form, Xa)}", t0)
        t0 = time.perf_counter()
        name = est.algorithm.upper()
        est._log(f"running {name} (max_iter={int(est.max_iter)})")
        if isinstance(G, GrownNystroem):  # SNKP already ran while the rank grew
            res, found = G.kperc_result(), G.certificate()
        else:
            res, found = run_algorithm(
                G,
                est.algorithm,
                max_iter=int(est.max_iter),
                halt=bool(est.halt),
                tol=est.tol_,
                verbose=est.verbose,
                lower_floor=(
                    ", or n_components='auto' (the factored linear-kernel operator, whose "
                    "floor is lower)"
                    if linear and est.gram_form_ == "dense"
                    else ""
                ),
            )
        est._log(f"{name}: {'certificate found' if found else res.message}", t0)
        if isinstance(G, DeviceForm) and res.outcome == "undecided":
            est._device_message = res.message
        alpha[train] = res.alpha
    elif train.size:  # one class left: its points get equal weights
        s[train] = point_scales(Xa[train], ypm[train], est.kernel, params)
        alpha[train] = 1.0 / train.size
    record(est, Xa, train, alpha, s, res, found, G)


def _what(est: Any, form: GramForm, Xa) -> str:
    n = est._n_train
    return {
        "dense": f"dense Gram matrix {n}x{n}",
        "factored": f"factored linear-kernel Gram operator ({n}x{Xa.shape[1]} factor)",
        "nystroem": f"Nystroem Gram operator ({n}x{form.n_components} features)",
        "on-the-fly": f"on-the-fly Gram operator ({n}x{n}, never formed)",
    }[form.form] + ("" if est.device is None else f", float32 on device {est.device!r}")


def record(est: Any, Xa, train, alpha, s, res, found, G) -> None:
    """The fitted attributes of a binary fit."""
    est.halting_index_ = int(res.nit) if res is not None else 0
    est.n_iter_ = est.halting_index_ + 1
    est.witnesses_ = est.certificate_norm_ = None
    if est.conflicts_.shape[0]:
        est.outcome_ = "conflict"
        est.witnesses_ = np.unique(est.conflicts_)
        est.certificate_norm_ = 0.0
    elif found is not None:
        est.outcome_ = "certificate"
        est.witnesses_ = train[np.flatnonzero(found["p"] > 0)]
        est.certificate_norm_ = found["bound"]
    else:
        assert res is not None  # no run only when conflicts left one class
        est.outcome_ = res.outcome if res.outcome != "callback" else "max_iter"
        if res.outcome == "certificate":
            est.witnesses_ = train[np.flatnonzero(res.p > 0)]
            est.certificate_norm_ = float(res.norm_p_G)
        elif est.outcome_ == "max_iter" and not isinstance(G, GrownNystroem):
            est._margin_bound = margin_upper_bound(G, res)
    est.converged_ = est.outcome_ == "separator"
    est._rest_note = (
        "had only one class left to train on"
        if res is None
        else "separated the other points"
        if res.outcome == "separator"
        else "did not separate the other points either"
    )
    est.support_ = np.flatnonzero(alpha != 0)
    est.support_vectors_ = Xa[est.support_]
    est.dual_coef_ = (alpha * s)[est.support_]
    # f(x) = (Z^T alpha) . z(x) / ||z(x)|| for Nystroem features z; None when exact
    est.feature_map_ = est.feature_coef_ = None
    if est.gram_form_ == "nystroem" and G is not None:
        est.feature_map_ = G.transformer
        est.feature_coef_ = G.result.coef if isinstance(G, GrownNystroem) else G.Z.T @ alpha[train]


def build_gram(est: Any, Xa, train, ypm, shared: SharedKernel | None, member: int = 0):
    """The training kernel of the points ``Xa[train]`` with labels ``ypm``, trusted by
    the runs that follow: ``(G, s, form)``, with ``s`` the per-point scale
    ``y_i / sqrt(K(x_i, x_i))`` (of the approximate kernel for Nystroem features) and
    ``form`` the :class:`~kperc._gram_form.GramForm` used (its rank as reached).

    The dense form signs the shared ``K~`` (``shared``, when given): a
    :class:`~kperc._gram_form.SignedGram` for SNKP on at least :data:`FLOAT32_MIN_N`
    points, which is never formed, else the matrix ``D K~ D``.
    """
    params = est._kernel_params()
    choice = choose_gram_form(est, train.size)
    Xt = Xa[train]
    G: Any
    if choice.form == "dense" and shared is not None:
        s = point_scales(Xt, ypm, est.kernel, params)
        full = train.size == shared.K.shape[0]
        if full and est.algorithm == "snkp" and train.size >= FLOAT32_MIN_N:
            signed = SignedGram(shared, ypm)
            signed.lockstep, signed.member = shared.lockstep, member
            return signed, s, choice
        if shared.lockstep is not None:  # this class trains on its own copy
            shared.lockstep.leave(member)
        return shared.signed(train, ypm), s, choice
    if est.device is not None:  # the exact kernel on the device (float32 iterations)
        s = point_scales(Xt, ypm, est.kernel, params)
        return DeviceForm(Xt, ypm, est.kernel, params, est.device, choice.form), s, choice
    if choice.form == "nystroem" and isinstance(est.n_components, str):
        announce_nystroem(est, Xt.shape[0], choice)
    if choice.grows:  # the rank is chosen by running SNKP: G carries its result
        point_scales(Xt, ypm, est.kernel, params)  # K(x, x) = 1: nothing to refuse
        G, s = fit_grown_rank(
            Xt,
            ypm,
            first_rank=int(choice.n_components or 1),
            gamma=params["gamma"],
            max_iter=int(est.max_iter),
            tol=est.tol_,
            random_state=est.random_state,
            log=est._log,
        )
    else:
        G, s = build_fixed_gram(Xt, ypm, est.kernel, params, choice, est.random_state)
    if choice.form == "nystroem":
        choice = GramForm("nystroem", int(G.transformer.components_.shape[0]), choice.grows)
    return G, s, choice


def announce_nystroem(est: Any, n: int, choice: GramForm) -> None:
    """Say that ``n_components="auto"`` approximates the kernel. A grown rank certifies
    its answer under the exact kernel, so it is only logged; a fixed rank certifies it
    for the approximate kernel only, so a ``UserWarning`` says so."""
    top = _gram_form.AUTO_EXACT_MAX_N
    if choice.grows:
        est._log(
            f"n_components='auto': {n} points are more than {top}: Nystroem "
            f"features whose rank starts at {choice.n_components} and doubles until SNKP's "
            f"answer is certified under the exact kernel (at most {_gram_form.AUTO_N_MAX}; "
            "kperc.snkp_nystroem), or until the features are predicted to stay far from "
            "the kernel"
        )
        return
    warnings.warn(
        f"n_components='auto': {n} training points are more than {top}, so "
        f"the {est.kernel!r} kernel is approximated by {choice.n_components} Nystroem "
        "features (the separator is certified for the approximate kernel; "
        "gram_form_='nystroem'). Pass n_components=None for the exact kernel (8 n^2 "
        "bytes) or an int to choose the number of features.",
        UserWarning,
        stacklevel=7,  # the caller of SNKPClassifier.fit
    )

"""A scikit-learn classifier built on the Smoothed Normalised Kernel Perceptron."""

from __future__ import annotations

import contextlib
import functools
import numbers
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.sparsefuncs import mean_variance_axis
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from ._approx import NystroemResult, _approx_gram_operator, snkp_nystroem
from ._kernels import (
    _U,
    GramOperator,
    _check_kernel_args,
    _DenseGram,
    _gram_matrix,
    _kernel_diagonal,
    _kernel_values,
    _signed_normalized_points,
    as_gram,
)
from ._perceptrons import nkp, snkp
from ._primal_dual import isnkpvn
from ._result import STATUS, KpercResult
from ._separable import _conflicting_pairs
from ._typing import ArrayLike, KernelLike, RandomStateLike
from ._validation import (
    as_real_array,
    check_positive,
    check_sparse_X,
    pow2_scale,
    row_norms,
    sparse_row_norms,
)

__all__ = ["SNKPClassifier", "InseparableDataWarning", "expected_failed_checks"]

_ALGORITHMS: dict[str, Callable[..., KpercResult]] = {"snkp": snkp, "nkp": nkp, "isnkpvn": isnkpvn}
_KERNELS = ("rbf", "linear", "poly")

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

#: ``tol="auto"`` for ``algorithm="isnkpvn"``.
ISNKPVN_TOL = 1e-3

#: ``verbose=2``: seconds between two progress lines of a running algorithm.
PROGRESS_SECONDS = 1.0

# the progress quantities that the algorithms' callbacks report, in display order
_PROGRESS_FIELDS = ("mu", "min_Galpha", "norm_p_G", "nouter")


class InseparableDataWarning(ConvergenceWarning):
    """The classifier's training data were not separated by its kernel.

    A subclass of :class:`sklearn.exceptions.ConvergenceWarning`, emitted once, by
    :meth:`~kperc.SNKPClassifier.fit`, when no separator of the training data was
    found; the fitted model's ``converged_`` is then False and its predictions come
    from an iterate that does not separate the training data.
    :meth:`~kperc.SNKPClassifier.predict` and
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


_ZERO_POINT_REASON = (
    "hard-margin normalised kernel: with the linear kernel and no intercept the check's "
    "integer-cast data contain a zero vector x = 0, for which K(x, x) = 0 and the "
    "normalisation K(x, x)^(-1/2) is undefined (no homogeneous classifier can have "
    "y f(0) > 0); fit refuses it with a ValueError"
)

_INSEPARABLE_TRAIN_REASON = (
    "hard-margin method: the check's two standardised blobs overlap, so no linear or "
    "polynomial-kernel separator exists (min ||p||_G = 0), and with the RBF kernel the "
    "margin is about 6e-4, so NKP's 1/rho^2 bound (about 2.6e6 iterations) exceeds "
    "max_iter; the last iterate of a perceptron on data it cannot separate carries no "
    "accuracy guarantee, so the check's accuracy > 0.83 may or may not be met"
)


def expected_failed_checks(estimator: SNKPClassifier) -> dict[str, str]:
    """Checks of :func:`sklearn.utils.estimator_checks.check_estimator` that cannot apply.

    Pass the result as ``expected_failed_checks`` to ``check_estimator`` or
    ``parametrize_with_checks`` (scikit-learn 1.9). With the default parameters the
    dictionary is empty: every check passes.

    Parameters
    ----------
    estimator : SNKPClassifier

    Returns
    -------
    dict of str to str
        Check name -> the reason it cannot pass for this configuration.
    """
    expected = {}
    if estimator.algorithm in ("nkp", "isnkpvn") or estimator.kernel in ("linear", "poly"):
        expected["check_classifiers_train"] = _INSEPARABLE_TRAIN_REASON
    if estimator.kernel in ("linear", "poly") and not estimator.fit_intercept:
        if estimator.kernel == "linear" or estimator.coef0 == 0:
            expected["check_estimators_dtypes"] = _ZERO_POINT_REASON
    return expected


class SNKPClassifier(ClassifierMixin, BaseEstimator):
    """Hard-margin kernel classifier trained by SNKP, NKP or ISNKPVN.

    Finds ``f = sum_i alpha_i y_i K(x_i, .) / sqrt(K(x_i, x_i))`` with ``y_i f(x_i) > 0``
    on every training point, by the Smoothed Normalised Kernel Perceptron (Algorithm 4
    of Ramdas & Pena, 2014), the Normalised Kernel Perceptron (Algorithm 3) or the
    iterated primal-dual method ISNKPVN (Algorithm 7). On data that no separator with a
    margin above ``tol`` can classify, every algorithm stops early with a certificate
    that says so and names the training points responsible. Binary only; any two class
    labels are accepted and mapped to -1/+1.

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly"} or callable, default="rbf"
        A callable receives two data matrices and returns their kernel matrix.
    gamma : float or "scale", default="scale"
        Kernel coefficient for "rbf" and "poly"; "scale" uses
        ``1 / (n_features * X.var())`` computed on the training ``X`` (without the
        intercept feature), exactly as :class:`sklearn.svm.SVC` does.
    degree : int, default=3
        Degree of the "poly" kernel.
    coef0 : float, default=1.0
        Constant term of the "poly" kernel.
    fit_intercept : bool, default=True
        Append a constant feature to every point, so that the linear and polynomial
        kernels (and a callable one) can learn an offset (the paper's problems are
        homogeneous). The RBF kernel depends only on differences ``x - z``, which a
        constant feature does not change: it is not appended for ``kernel="rbf"``.
    intercept_scaling : float, default=1.0
        Value of the appended constant feature, relative to the size of the training
        points: the feature is ``intercept_scaling * s``, where ``s`` is the power of two
        nearest the root-mean-square norm of the training rows (recorded in
        ``intercept_feature_``). Scaling ``X`` by a power of two therefore gives the same
        model. A larger value makes an offset cheaper in the margin, as in
        :class:`sklearn.svm.LinearSVC`. Ignored when ``fit_intercept`` is False.
    algorithm : {"snkp", "nkp", "isnkpvn"}, default="snkp"
        Training algorithm. "snkp" needs at most ``2 sqrt(2 log n) / rho`` iterations
        of cost ``O(n^2)`` on data with normalised margin ``rho`` (Theorem 1); "nkp"
        needs ``1 / rho^2`` iterations of cost ``O(n)``; "isnkpvn" costs as much per
        iteration as "snkp" and stops with a certificate once no separator can have a
        margin above ``tol`` (Section 6).

        Which algorithm when: the fastest of the three to a certified separator at the
        hardest instance of each problem family of the book's benchmarks page (section
        "Who wins, family by family", where every run is listed):

        =====================  ========  ==============================================
        problems               fastest   why
        =====================  ========  ==============================================
        planted, unit norms    "snkp"    ``1/rho`` iterations where the others need
                                         about ``1/rho^2``
        planted, spread norms  "snkp"    only the normalised margin counts
        crowded                "snkp"    no order of the points helps the others
        two rays               "snkp"    a large normalised margin: a few iterations
        RBF, planted           "nkp"     an ``O(n)`` update against a product with
                                         the ``n x n`` matrix
        small real problems    any       all three finish within milliseconds
        =====================  ========  ==============================================

        The default follows the table. Every algorithm stops early, with a certificate
        that names its reason, on data that no separator with a margin above ``tol`` can
        classify.
    max_iter : int, default=100000
        Cap on the iterations of the algorithm (for "isnkpvn", on its total inner
        iterations). Reaching it without a separator emits an
        :class:`~kperc.InseparableDataWarning`. The default is that of
        :func:`kperc.snkp`: SNKP's bound above stays below it for margins down to about
        ``1e-4`` at ``n = 10^4``. NKP's iterations are cheaper (``O(n)``) but its bound
        is ``1 / rho^2``: with ``algorithm="nkp"`` a larger cap, such as the ``10^6`` of
        :func:`kperc.nkp`, may be needed.
    tol : float or "auto", default="auto"
        Stop with a certificate once a point ``p`` of the simplex with
        ``||p||_G <= tol`` is found (rounding included): it proves that no separator
        has a normalised margin above ``tol``, so the data are not separable with a
        margin above ``tol`` (they may be separable with a smaller one). ISNKPVN builds
        ``p`` by its primal-dual iteration; SNKP's ``p`` is its dual iterate and NKP's
        is ``alpha`` itself, tested at iterations 8, 16, 32, ... and then every 256
        (one product with ``G`` per test). ``"auto"`` is ``1e-3`` for "isnkpvn"; for
        "snkp" it is ``2 sqrt(2 log n) / max_iter`` and for "nkp"
        ``1 / sqrt(max_iter)``: the smallest margins that Theorem 1 and NKP's
        ``1 / rho^2`` bound guarantee to separate within ``max_iter`` iterations, so
        that data these algorithms are sure to separate never stop early, and data
        they could not be sure to separate within ``max_iter`` do not use it up.
    halt : bool, default=True
        Stop at the first separator. With ``halt=False`` SNKP and NKP keep iterating
        to ``max_iter``, improving the margin of the separator (``algorithm="isnkpvn"``
        always stops at its first separator).
    check_input : bool, default=True
        Validate ``X`` and ``y`` (finite values, shapes, two classes) in ``fit`` and
        ``X`` in ``predict`` with :func:`sklearn.utils.validation.validate_data`.
        Setting it to False skips that function's dtype conversion and finiteness
        checks; kperc still refuses complex, object, NaN and inf entries by name, and
        still checks shapes and classes.
    verbose : int, default=0
        With ``verbose=1``, print one line per stage of the fit (kernel, Gram
        matrix, algorithm and its outcome) with the time it took. With ``verbose=2``,
        also print progress lines while the algorithm runs: one at its first iteration
        and then one about every second, with the iteration, the elapsed time and the
        algorithm's progress quantities (``min_Galpha``, ``min_i (G alpha)_i``, which
        turns positive at a separator; ``mu`` for SNKP and ISNKPVN; ``norm_p_G`` for
        ISNKPVN), through the algorithm's ``callback`` (which copies ``alpha`` at every
        iteration: negligible for SNKP and ISNKPVN, whose iterations cost a product with
        ``G``, but about doubling the time of NKP's ``O(n)`` iterations).
    n_components : "auto", int or None, default="auto"
        How the training kernel is represented.

        * ``"auto"``: the linear kernel uses the exact factored operator
          (:func:`kperc.gram_operator`: memory ``O(n d)``, no ``n x n`` matrix) at any
          ``n``; other kernels use the exact dense ``n x n`` matrix up to
          ``n = 5000`` points (200 MB), and above that Nystroem features; the switch
          is announced by a ``UserWarning`` at fit. With the RBF kernel and
          ``algorithm="snkp"`` (``halt=True``) the rank is grown by
          :func:`kperc.snkp_nystroem`: it starts at 64 landmarks and doubles until
          SNKP's separator is certified, in float64, under the exact kernel on every
          training point, or until SNKP's dual iterate is a ``tol``-certificate
          under the exact kernel (up to 20,000 points; the fit then ends with
          ``outcome_ == "certificate"``) (at most 4096 landmarks and ``max_iter``
          iterations in all; float32 features; ``verbose`` prints one line per rank
          tried, instead of per-iteration progress). Otherwise (``"poly"``, another algorithm, or
          ``halt=False``) ``500`` Nystroem features are used, as an int would (memory
          ``O(n m)``: 0.4 GB at ``n = 10^5``). A callable kernel always uses the exact
          dense matrix.
        * an int ``m``: train and predict with ``m`` Nystroem features (named kernels
          only)
          (:func:`kperc.approx_gram_operator`): memory ``O(n m)`` instead of
          ``O(n^2)``, and the separator is certified for the approximate kernel.
          ``random_state`` seeds the choice of landmarks.
        * ``None``: the exact dense ``n x n`` matrix whatever ``n`` (``8 n^2`` bytes).

        The representation used is recorded in ``gram_form_``.
    random_state : int, RandomState instance or None, default=None
        Seeds the Nystroem landmarks (used only when Nystroem features are used).
    n_threads : int or None, default=1
        BLAS threads used by ``fit``, ``predict`` and ``decision_function`` (through
        ``threadpoolctl``). One thread is the safe default on a shared machine: each
        iteration is one matrix-vector product, which more threads speed up little when
        the cores are free and slow down many times over when they are busy. None leaves
        the BLAS setting of the process unchanged.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two class labels; ``classes_[1]`` is the positive class.
    support_ : ndarray of int
        Indices of training points with nonzero weight ``alpha_i``. SNKP's entropy
        prox-map gives every point a positive weight, so for "snkp" this is usually
        every training point; NKP's iterates are sparse.
    support_vectors_ : ndarray of shape (n_support, n_columns)
        Those training points, with the intercept feature appended when it is used
        (``fit_intercept`` and a kernel other than "rbf": ``n_columns =
        n_features + 1``, else ``n_features``).
    dual_coef_ : ndarray of shape (n_support,)
        ``alpha_i y_i / sqrt(K(x_i, x_i))`` for the support points.
    coef_ : ndarray of shape (1, n_features)
        Weight vector in input space; only for ``kernel="linear"``.
    intercept_ : ndarray of shape (1,)
        Offset; only for ``kernel="linear"`` (zero when ``fit_intercept`` is False).
        The sign of ``X @ coef_.T + intercept_`` is that of :meth:`decision_function`.
    intercept_feature_ : float or None
        The value of the appended constant feature (see ``intercept_scaling``); None
        when no feature is appended.
    halting_index_ : int
        The halting index ``K`` of the run: the number of updates made. This is the
        quantity that the paper's iteration bounds count (Theorem 1 for SNKP).
    n_iter_ : int
        Number of iterates examined, ``halting_index_ + 1`` (the exit test runs on
        ``alpha_0, ..., alpha_K``); at least 1, as scikit-learn expects.
    outcome_ : {"separator", "certificate", "conflict", "max_iter"}
        How the run ended: a certified separator of the training data; a certificate
        that no separator has a normalised margin above ``tol`` (``tol_`` below); a
        conflict, some training points repeated with both labels, which no kernel can
        separate (found before any iteration; the algorithm is then trained on the
        other points); or the iteration cap.
    converged_ : bool
        Whether a separator of the training data was found (``outcome_ == "separator"``).
    witnesses_ : ndarray of int or None
        With a certificate: indices of the training points in its support, whose
        feature-space images, with signs ``y_i`` and weights ``p_i``, nearly cancel
        (``||p||_G <= certificate_norm_``). SNKP's ``p`` gives every point a positive
        weight, so its certificate names every training point; ISNKPVN's is sparser.
        With a conflict: the points repeated with both labels (see ``conflicts_``),
        which are the only ones to blame. None otherwise.
    conflicts_ : ndarray of shape (n_conflicts, 2)
        Pairs ``(i, j)`` of training points with identical features and opposite
        labels (empty when there are none).
    certificate_norm_ : float or None
        An upper bound on ``||p||_G`` for the certificate, and so on the normalised
        margin of the training data; 0.0 for a conflict. None otherwise.
    tol_ : float
        The ``tol`` used (the value of ``"auto"``).
    gram_form_ : {"dense", "factored", "nystroem"}
        How the training kernel was represented (see ``n_components``): the exact
        dense matrix, the exact factored linear-kernel operator, or Nystroem features.
    n_components_ : int or None
        The number of Nystroem features used (with a grown rank, the rank reached);
        None for an exact kernel.
    feature_map_ : sklearn.kernel_approximation.Nystroem or None
        With Nystroem features: the fitted feature map ``z``.
    feature_coef_ : ndarray of shape (n_features_out,) or None
        With Nystroem features: ``Z^T alpha``, so that ``f(x) = z(x) . Z^T alpha``
        (one entry per Nystroem feature: ``n_components_`` of them).
    n_features_in_ : int
        Number of features seen during fit.

    Notes
    -----
    *Data that cannot be separated.* A hard-margin method has no meaningful answer on
    such data. When no separator is found the fit emits one
    :class:`~kperc.InseparableDataWarning` (a
    :class:`~sklearn.exceptions.ConvergenceWarning`) that says why (a conflict, a
    certificate, or the iteration cap), names the witnesses, suggests rescaling when
    the scale of the features or of the intercept is the likely cause, and keeps the
    last iterate; ``converged_`` is False. Predictions of such a model carry no
    guarantee; they do not warn again. :func:`kperc.is_separable` answers the question
    "are these data separable?" exactly, by linear programming.

    *Weights.* A hard-margin separator must classify every training point, so there is
    nothing for point or class weights to trade off: ``fit`` refuses
    ``sample_weight`` (and any other fit parameter) with a :class:`TypeError`, and the
    estimator has no ``class_weight``.

    *scikit-learn compatibility.* With its default parameters the estimator passes every
    check of :func:`sklearn.utils.estimator_checks.check_estimator` (scikit-learn 1.9),
    so the ``expected_failed_checks`` list is empty (with ``gamma="scale"`` the RBF
    kernel separates the checks' data, and SNKP's bound ``2 sqrt(2 log n) / rho`` is
    within ``max_iter``). The checks that cannot apply to some hard-margin
    configurations are returned by the method ``expected_failed_checks()``:

    * ``check_classifiers_train`` with ``algorithm="nkp"`` or ``"isnkpvn"``, or a
      linear/polynomial kernel: the check's two blobs overlap, so these kernels cannot
      separate them (NKP needs about ``1/rho^2 = 2.6e6`` iterations with the RBF
      kernel, and ISNKPVN stops with a ``tol``-certificate); the last iterate on
      inseparable data carries no accuracy guarantee.

    * ``check_estimators_dtypes`` with ``kernel="linear"`` (or a homogeneous ``"poly"``,
      ``coef0=0``) and ``fit_intercept=False``: the check's data contain the zero vector,
      where ``K(x, x) = 0`` and the normalised kernel is undefined; fit raises a
      ``ValueError`` that says so.

    Examples
    --------
    >>> from kperc import SNKPClassifier
    >>> from kperc.datasets import circles
    >>> X, y = circles(100, seed=0)
    >>> clf = SNKPClassifier(kernel="rbf", gamma=2.0).fit(X, y)
    >>> clf.converged_, float(clf.score(X, y))
    (True, 1.0)
    >>> clf.gram_form_  # n_components="auto": the exact dense G up to 5000 points
    'dense'
    """

    def __init__(
        self,
        kernel: KernelLike = "rbf",
        *,
        gamma: float | str = "scale",
        degree: int = 3,
        coef0: float = 1.0,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        algorithm: str = "snkp",
        max_iter: int = 100_000,
        tol: float | str = "auto",
        halt: bool = True,
        check_input: bool = True,
        verbose: int = 0,
        n_components: int | str = "auto",
        random_state: RandomStateLike = None,
        n_threads: int | None = 1,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.algorithm = algorithm
        self.max_iter = max_iter
        self.tol = tol
        self.halt = halt
        self.check_input = check_input
        self.verbose = verbose
        self.n_components = n_components
        self.random_state = random_state
        self.n_threads = n_threads

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        # scipy.sparse X: the linear kernel trains on a sparse factored operator
        tags.input_tags.sparse = self._linear()
        return tags

    def _linear(self):
        return not callable(self.kernel) and self.kernel == "linear"

    def expected_failed_checks(self) -> dict[str, str]:
        """Checks of :func:`sklearn.utils.estimator_checks.check_estimator` that cannot
        apply to this configuration, with the reason (empty for the defaults).

        Pass the result as ``expected_failed_checks`` to ``check_estimator`` or
        ``parametrize_with_checks``.

        Returns
        -------
        dict of str to str
        """
        return expected_failed_checks(self)

    def _uses_intercept_feature(self):
        return bool(self.fit_intercept) and (callable(self.kernel) or self.kernel != "rbf")

    def _augment(self, X):
        c = getattr(self, "intercept_feature_", None)
        if c is not None:
            if scipy.sparse.issparse(X):
                col = scipy.sparse.csr_matrix(np.full((X.shape[0], 1), c))
                return scipy.sparse.hstack([X, col], format="csr")
            return np.hstack([X, np.full((X.shape[0], 1), c)])
        return X

    def _kernel_params(self):
        """The kernel's parameters, checked (an error names gamma, degree or coef0)."""
        if callable(self.kernel) or self.kernel == "linear":
            return {}
        params = {"gamma": self._gamma}
        if self.kernel == "poly":
            params.update(degree=self.degree, coef0=self.coef0)
        return _check_kernel_args(self.kernel, params)

    def _log(self, msg, t0=None):
        if self.verbose:
            tail = "" if t0 is None else f" ({time.perf_counter() - t0:.2f} s)"
            print(f"[SNKPClassifier] {msg}{tail}", flush=True)

    def _progress_callback(self):
        """The callback that prints ``verbose=2`` progress lines (None below 2)."""
        if not (isinstance(self.verbose, (int, np.integer)) and self.verbose >= 2):
            return None
        name = self.algorithm.upper()
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
                print(
                    f"[SNKPClassifier] {name} iteration {r.nit}: {now - t0:.2f} s{shown}",
                    flush=True,
                )

        return progress

    def _gram_form(self, n):
        """Which representation of the training kernel to use for ``n`` points, and the
        number of Nystroem features: ``("dense" | "factored" | "nystroem", m or None)``."""
        if self.n_components is None:
            return "dense", None
        if isinstance(self.n_components, str):  # "auto" (checked in _check_params)
            if not callable(self.kernel) and self.kernel == "linear":
                return "factored", None
            if callable(self.kernel) or n <= AUTO_EXACT_MAX_N:
                return "dense", None
            return "nystroem", AUTO_N_COMPONENTS
        return "nystroem", self.n_components

    def _grows(self, n):
        """Whether ``n_components="auto"`` grows the Nystroem rank for ``n`` points
        (:func:`kperc.snkp_nystroem`): RBF kernel, SNKP stopping at its first separator."""
        return (
            isinstance(self.n_components, str)
            and not callable(self.kernel)
            and self.kernel == "rbf"
            and self.algorithm == "snkp"
            and bool(self.halt)
            and n > AUTO_EXACT_MAX_N
        )

    def _validate(self, X, y=None, *, fitting):
        # sparse X is accepted here and refused by _trusted with a message naming the
        # kernel, unless the kernel is linear
        kw: dict[str, Any] = {"dtype": np.float64, "accept_sparse": ("csr", "csc")}
        if not self.check_input:
            kw = {"dtype": None, "ensure_all_finite": False, "accept_sparse": ("csr", "csc")}
        # The one validation of X: the private kernel functions called after it trust X.
        # With check_input=False, complex, object, NaN and inf entries are still refused
        # by name (they would give silent NaN scores or drop imaginary parts).
        if not fitting:
            return self._trusted(validate_data(self, X, reset=False, **kw))
        X, y = validate_data(self, X, y, **kw)  # y=None gets scikit-learn's message
        return self._trusted(X), y

    def _trusted(self, X):
        if scipy.sparse.issparse(X):
            if not self._linear():
                raise TypeError(
                    f"X is a scipy.sparse matrix, which SNKPClassifier takes only with "
                    f"kernel='linear' (trained through a sparse factored operator); "
                    f"kernel={self.kernel!r} needs dense X: pass X.toarray(), or use "
                    "kernel='linear'."
                )
            if self.n_components is not None and not isinstance(self.n_components, str):
                raise TypeError(
                    f"X is a scipy.sparse matrix, which the linear kernel trains on through "
                    f"its exact sparse factored operator; n_components={self.n_components!r} "
                    "(Nystroem features) needs dense X: use n_components='auto', or pass "
                    "X.toarray()."
                )
            if self.n_components is None:
                raise TypeError(
                    "X is a scipy.sparse matrix, which the linear kernel trains on through "
                    "its exact sparse factored operator, not the dense n x n matrix that "
                    "n_components=None asks for: use n_components='auto' (also exact), or "
                    "pass X.toarray()."
                )
            return check_sparse_X(X, "X")  # a CSR copy: real, finite (check_input or not)
        X = as_real_array(X, "X")
        if not self.check_input and not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or inf; remove or impute those entries first.")
        return X

    def _check_params(self):
        algo = self.algorithm
        if not isinstance(algo, str) or algo not in _ALGORITHMS:
            raise ValueError(f"algorithm must be one of {sorted(_ALGORITHMS)}; got {algo!r}.")
        named = isinstance(self.kernel, str) and self.kernel in _KERNELS
        if not (callable(self.kernel) or named):
            raise ValueError(
                f"kernel must be one of {list(_KERNELS)} or a callable; got {self.kernel!r}."
            )
        if (
            isinstance(self.max_iter, bool)
            or not isinstance(self.max_iter, (int, np.integer, float))
            or not np.isfinite(self.max_iter)
            or int(self.max_iter) != self.max_iter
            or self.max_iter <= 0
        ):
            raise ValueError(f"max_iter must be a positive integer; got {self.max_iter!r}.")
        if isinstance(self.gamma, str) and self.gamma != "scale":
            raise ValueError(f"gamma must be a positive number or 'scale'; got {self.gamma!r}")
        if not isinstance(self.gamma, str) and not (
            _is_real(self.gamma) and np.isfinite(self.gamma) and self.gamma > 0
        ):
            raise ValueError(f"gamma must be a positive number or 'scale'; got {self.gamma!r}")
        for name in ("fit_intercept", "halt"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False; got {getattr(self, name)!r}.")
        c = self.intercept_scaling
        if not (_is_real(c) and np.isfinite(c) and c > 0):
            raise ValueError(
                f"intercept_scaling must be a positive finite number; got {c!r}"
                f"{'' if _is_real(c) else f' of type {type(c).__name__}'}."
            )
        if isinstance(self.n_components, str) and self.n_components != "auto":
            raise ValueError(
                f"n_components must be 'auto', a positive integer or None; got "
                f"{self.n_components!r}."
            )
        if not (self.n_components is None or isinstance(self.n_components, str)):
            check_positive(self.n_components, "n_components", integer=True)
        if callable(self.kernel) and not (self.n_components is None or self.n_components == "auto"):
            raise ValueError(
                "n_components (Nystroem features) needs a named kernel ('rbf', 'poly' or "
                "'linear'): scikit-learn's Nystroem would call a callable kernel once per "
                "pair of points. Use n_components='auto' or None (the exact kernel)."
            )
        tol = self.tol
        if not (
            (isinstance(tol, str) and tol == "auto")
            or (_is_real(tol) and np.isfinite(tol) and float(tol) > 0)
        ):
            raise ValueError(f"tol must be 'auto' or a positive number; got {tol!r}.")
        if not self.halt and algo == "isnkpvn":
            raise ValueError(
                "halt=False keeps improving a separator, which only algorithm='snkp' or "
                "'nkp' can do; ISNKPVN always stops at its first separator."
            )
        nt = self.n_threads
        if nt is not None and (
            isinstance(nt, (bool, np.bool_)) or not isinstance(nt, (int, np.integer)) or nt < 1
        ):
            raise ValueError(f"n_threads must be a positive integer or None; got {nt!r}.")

    def _threads(self):
        """A context that limits BLAS to ``n_threads`` (a no-op for None)."""
        if self.n_threads is None:
            return contextlib.nullcontext()
        return _threadpool_controller().limit(limits=int(self.n_threads), user_api="blas")

    def _resolve_tol(self, n):
        if not isinstance(self.tol, str):
            return float(self.tol)
        if self.algorithm == "isnkpvn":
            return ISNKPVN_TOL
        if self.algorithm == "snkp":  # Theorem 1: K < 2 sqrt(2 log n) / rho
            return 2.0 * np.sqrt(2.0 * np.log(max(n, 2))) / int(self.max_iter)
        return 1.0 / np.sqrt(int(self.max_iter))  # NKP: K <= 1 / rho^2

    def _build_gram(self, Xa, ypm):
        """The one step that builds the training kernel: ``(G, s)`` with the normalised
        signed Gram matrix ``G`` and the per-point scale ``s_i = y_i / sqrt(K(x_i, x_i))``."""
        self._grown_message = None
        params = self._kernel_params()
        diag = _kernel_diagonal(Xa, self.kernel, params)
        if np.any(~(diag > 0)):
            raise ValueError(
                "K(x_i, x_i) <= 0 for some training point (a zero vector with the linear "
                "kernel); set fit_intercept=True or remove such points."
            )
        s = ypm / np.sqrt(diag)
        form, m = self._gram_form(Xa.shape[0])
        G: Any  # a dense matrix, a GramOperator or an ApproxGramOperator
        if form == "dense":  # the package's own G: exact for points repeated with the other label
            G = _gram_matrix(Xa, ypm, self.kernel, params)
        elif form == "factored":  # linear kernel: G = Z Z^T with O(n d) memory, exact
            G = GramOperator(_signed_normalized_points(Xa, ypm))
        else:  # Nystroem features: an O(n m) factored operator instead of the n x n matrix
            grows = self._grows(Xa.shape[0])
            if isinstance(self.n_components, str):
                how = (
                    f"Nystroem features whose rank starts at {AUTO_N_START} and doubles "
                    "until SNKP's separator is certified under the exact kernel (at most "
                    f"{AUTO_N_MAX}; kperc.snkp_nystroem)"
                    if grows
                    else f"{m} Nystroem features (the separator is certified for the "
                    "approximate kernel)"
                )
                warnings.warn(
                    f"n_components='auto': {Xa.shape[0]} training points are more than "
                    f"{AUTO_EXACT_MAX_N}, so the {self.kernel!r} kernel is approximated by "
                    f"{how} (gram_form_='nystroem'). Pass n_components=None for the "
                    "exact kernel (8 n^2 bytes) or an int to choose the number of features.",
                    UserWarning,
                    stacklevel=3,
                )
            if grows:  # the rank is chosen by running SNKP: G carries its result
                G = _GrownNystroem(
                    snkp_nystroem(
                        Xa,
                        ypm,
                        gamma=params["gamma"],
                        n_components=AUTO_N_START,
                        max_components=AUTO_N_MAX,
                        max_iter=int(self.max_iter),
                        tol=self.tol_,
                        random_state=self.random_state,
                    )
                )
                self._grown_message = G.result.message
                for st in G.result.stages:
                    self._log(
                        f"Nystroem rank {st['n_components']}: SNKP {st['snkp']} after "
                        f"{st['nit']} iterations, certified under the exact kernel: "
                        f"{st['certified']} ({st['seconds']:.2f} s)"
                    )
            else:
                G = _approx_gram_operator(
                    Xa, ypm, self.kernel, int(m), "nystroem", self.random_state, params
                )
            s = ypm / G.feature_norms  # the approximate kernel's normalisation
        self.gram_form_ = form
        self.n_components_ = None if form != "nystroem" else int(G.transformer.components_.shape[0])
        return G, s

    def _certificate_watch(self, G, tol):
        """A callback that stops the run once the algorithm's ``p`` is a ``tol``-certificate.

        SNKP's dual iterate ``p`` (NKP's ``alpha``) tends to the point of smallest
        ``||p||_G`` when no separator exists. It is tested at iterations 8, 16, 32, ...
        and every 256 iterations after 256, each test one product with ``G``; the bound
        on ``||p||_G`` includes the rounding error of ``p^T G p``.
        """
        gram = as_gram(G, validate=False)
        dense = isinstance(gram, _DenseGram)
        found: dict[str, Any] = {}

        def watch(r):
            k = r.nit
            if k < 8 or not (k & (k - 1) == 0 or k % 256 == 0):
                return
            p = r.get("p")
            p = r.alpha if p is None else p
            total = float(np.sum(p))
            if not total > 0 or np.any(p < 0):
                return
            p = p / total
            if dense and _surely_above(gram.G, p, tol):
                return  # the extended-precision bound below would say the same
            _, upper = gram.seminorm_bound(p)
            if upper <= tol:
                found.update(p=p, bound=float(upper), nit=k)
                raise StopIteration

        return watch, found

    def _run(self, G, tol):
        """Run the chosen algorithm on ``G``: its :class:`~kperc.KpercResult` and, when it
        stopped on a certificate found by the classifier, that certificate (or None)."""
        if isinstance(G, _GrownNystroem):  # SNKP already ran while the rank grew
            return G.kperc_result(), G.certificate()
        progress = self._progress_callback()
        kw: dict[str, Any] = {"max_iter": int(self.max_iter), "check_input": False}
        found: dict[str, Any] = {}
        if self.algorithm == "isnkpvn":
            kw["eps"] = tol
            kw["callback"] = progress
        else:
            kw["halt"] = bool(self.halt)
            watch, found = self._certificate_watch(G, tol)

            def callback(r):
                if progress is not None:
                    progress(r)
                watch(r)

            kw["callback"] = callback
        res = _ALGORITHMS[self.algorithm](G, **kw)
        if res.outcome == "callback" and found:
            return res, found
        return res, None

    def fit(self, X: ArrayLike, y: ArrayLike, **fit_params: Any) -> SNKPClassifier:
        """Train on ``X`` with two classes ``y``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Training points. A sparse ``X`` (CSR or CSC; other formats are converted) is
            accepted with ``kernel="linear"`` only, and never densified: the model trains
            on the sparse factored operator (see :class:`kperc.GramOperator`); other
            kernels refuse it with a :class:`TypeError`.
        y : array-like of shape (n_samples,)
            Labels; exactly two distinct values (any type scikit-learn accepts).
        **fit_params
            Refused: a hard-margin classifier takes no ``sample_weight`` (see Notes of
            the class).

        Returns
        -------
        self : SNKPClassifier
            The fitted estimator.

        Raises
        ------
        TypeError
            When a fit parameter such as ``sample_weight`` is passed.

        Warns
        -----
        InseparableDataWarning
            When no separator of the training data was found (see Notes of the class).
        UserWarning
            When ``n_components="auto"`` switches to Nystroem features.
        """
        if fit_params:
            names = ", ".join(sorted(fit_params))
            raise TypeError(
                f"SNKPClassifier.fit does not accept {names}: a hard-margin classifier "
                "separates every training point, so there is nothing for sample or class "
                "weights to trade off. Resample the data instead, or use a soft-margin "
                "method such as sklearn.svm.SVC."
            )
        self._check_params()
        X, y = self._validate(X, y, fitting=True)
        # one type_of_target (it scans y); a binary y passes scikit-learn's own check,
        # which runs for any other y (its error for a regression target, its warning)
        y_type = type_of_target(y, input_name="y")
        if y_type != "binary":
            check_classification_targets(y)
            raise ValueError(
                f"Only binary classification is supported. The type of the target is "
                f"{y_type}; SNKPClassifier needs exactly 2 classes (use a "
                "sklearn.multiclass wrapper for more)."
            )
        self.classes_ = np.unique(y)
        if self.classes_.size != 2:
            raise ValueError(
                f"SNKPClassifier is a binary classifier and needs exactly 2 classes; got "
                f"{self.classes_.size} class(es) in y. Use sklearn.multiclass wrappers for "
                "more classes."
            )
        with self._threads():
            self._fit(X, np.where(y == self.classes_[1], 1.0, -1.0))
        if not self.converged_:
            warnings.warn(self._inseparable_message(X), InseparableDataWarning, stacklevel=2)
        return self

    def _fit(self, X, ypm):
        if self.gamma == "scale":  # as sklearn.svm.SVC: on X, without the intercept column
            var = _variance(X)
            self._gamma = 1.0 / (X.shape[1] * var) if var != 0 else 1.0
        else:
            self._gamma = float(self.gamma)
        self.intercept_feature_ = None
        if self._uses_intercept_feature():
            norms = sparse_row_norms(X) if scipy.sparse.issparse(X) else row_norms(X)
            rms = float(np.sqrt(np.mean(norms**2))) if norms.size else 0.0
            scale = pow2_scale(rms) if rms > 0 and np.isfinite(rms) else 1.0
            self.intercept_feature_ = float(self.intercept_scaling) * scale
        Xa = self._augment(X)
        n = Xa.shape[0]

        # points repeated with both labels: no kernel separates them, so no run can
        # succeed; they are left out of the training run (and named)
        self.conflicts_ = _conflicts(Xa, ypm)
        train = np.arange(n)
        if self.conflicts_.shape[0]:
            # the pairs name every copy of every conflicting point
            train = np.setdiff1d(np.arange(n), self.conflicts_.ravel())
        self.tol_ = self._resolve_tol(max(train.size, 1))

        alpha = np.zeros(n)
        s = np.zeros(n)
        res = found = None
        self.gram_form_ = self._gram_form(n)[0]
        self.n_components_ = None
        G = None
        if train.size and np.unique(ypm[train]).size == 2:
            t0 = time.perf_counter()
            G, s_train = self._build_gram(Xa[train], ypm[train])
            what = {
                "dense": f"dense Gram matrix {train.size}x{train.size}",
                "factored": f"factored linear-kernel Gram operator ({train.size}x"
                f"{Xa.shape[1]} factor)",
                "nystroem": f"Nystroem Gram operator ({train.size}x{self.n_components_} features)",
            }[self.gram_form_]
            self._log(f"kernel={self.kernel!r}, gamma={self._gamma:.4g}: {what}", t0)
            t0 = time.perf_counter()
            self._log(f"running {self.algorithm.upper()} (max_iter={int(self.max_iter)})")
            res, found = self._run(G, self.tol_)
            msg = res.message if found is None else "certificate found"
            self._log(f"{self.algorithm.upper()}: {msg}", t0)
            alpha[train] = res.alpha
            s[train] = s_train
        elif train.size:  # one class left: its points get equal weights
            _, s_train = self._build_gram(Xa[train], ypm[train])
            alpha[train] = 1.0 / train.size
            s[train] = s_train

        self.halting_index_ = int(res.nit) if res is not None else 0
        self.n_iter_ = self.halting_index_ + 1
        self.witnesses_ = None
        self.certificate_norm_ = None
        if self.conflicts_.shape[0]:
            self.outcome_ = "conflict"
            self.witnesses_ = np.unique(self.conflicts_)
            self.certificate_norm_ = 0.0
        elif found is not None:
            self.outcome_ = "certificate"
            self.witnesses_ = train[np.flatnonzero(found["p"] > 0)]
            self.certificate_norm_ = found["bound"]
        else:
            assert res is not None  # no run only when conflicts left one class
            self.outcome_ = res.outcome if res.outcome != "callback" else "max_iter"
            if res.outcome == "certificate":
                self.witnesses_ = train[np.flatnonzero(res.p > 0)]
                self.certificate_norm_ = float(res.norm_p_G)
        self.converged_ = self.outcome_ == "separator"
        if res is None:
            self._rest_note = "had only one class left to train on"
        elif res.outcome == "separator":
            self._rest_note = "separated the other points"
        else:
            self._rest_note = "did not separate the other points either"
        self.support_ = np.flatnonzero(alpha != 0)
        self.support_vectors_ = Xa[self.support_]
        self.dual_coef_ = (alpha * s)[self.support_]
        # f(x) = (Z^T alpha) . z(x) / ||z(x)|| for Nystroem features z; None when exact
        self.feature_map_ = self.feature_coef_ = None
        if self.gram_form_ == "nystroem" and G is not None:
            self.feature_map_ = G.transformer
            self.feature_coef_ = (
                G.result.coef if isinstance(G, _GrownNystroem) else G.Z.T @ alpha[train]
            )

    def _inseparable_message(self, X):
        name = self.algorithm.upper()
        hint = self._scale_hint(X)
        tail = (
            "; the model keeps an iterate that does not separate the training data, and its "
            f"predictions carry no guarantee.{hint}"
        )
        if self.outcome_ == "conflict":
            pairs = ", ".join(f"({i}, {j})" for i, j in self.conflicts_[:5])
            more = ", ..." if self.conflicts_.shape[0] > 5 else ""
            return (
                f"the training data are not separable by any kernel: "
                f"{self.conflicts_.shape[0]} pair(s) of points have identical features and "
                f"opposite labels ({pairs}{more}; conflicts_, witnesses_). Trained without "
                f"them, {name} {self._rest_note}" + tail
            )
        if self.outcome_ == "certificate":
            witnesses = self.witnesses_
            assert witnesses is not None  # set with outcome_ == "certificate"
            shown = ", ".join(str(i) for i in witnesses[:10])
            more = ", ..." if witnesses.size > 10 else ""
            return (
                f"no separator of the training data has a normalised margin above "
                f"{self.certificate_norm_:.3g} in this kernel's feature space (they may "
                f"be separable with a smaller margin): {name} found a point p of the "
                f"simplex with ||p||_G <= {self.certificate_norm_:.3g} <= tol_ = "
                f"{self.tol_:.3g}, whose support is {witnesses.size} training points "
                f"(witnesses_ = [{shown}{more}])" + tail
            )
        grown = getattr(self, "_grown_message", None)
        if grown:  # n_components="auto" grew the Nystroem rank (kperc.snkp_nystroem)
            return (
                f"{name} on Nystroem features of a growing rank: {grown[0].lower()}"
                f"{grown[1:-1]} under the exact kernel" + tail
            )
        return (
            f"{name} found no separator of the training data within max_iter="
            f"{int(self.max_iter)} iterations, nor a certificate that none with margin "
            f"above tol_ = {self.tol_:.3g} exists: the margin, if any, is too small for "
            "this budget (kperc.is_separable decides separability exactly)" + tail
        )

    def _scale_hint(self, X):
        """A sentence suggesting rescaling when the features' scales, ``gamma`` or the
        intercept, rather than the data, are the likely reason for a tiny margin."""
        hints = []
        if X.shape[0] <= 1:
            std = np.zeros(X.shape[1])
        elif scipy.sparse.issparse(X):
            std = np.sqrt(mean_variance_axis(X, axis=0)[1])
        else:
            std = X.std(axis=0)
        pos = std[std > 0]
        if pos.size >= 2 and pos.max() / pos.min() > 1e3:
            hints.append(
                f"the features' spreads differ by a factor {pos.max() / pos.min():.2g}; "
                "standardise X (sklearn.preprocessing.StandardScaler)"
            )
        if self.intercept_feature_ is not None and not (
            1e-3 <= float(self.intercept_scaling) <= 1e3
        ):
            hints.append(
                f"intercept_scaling={float(self.intercept_scaling):g} makes the constant "
                "feature far larger or smaller than the points; try a value near 1"
            )
        if not callable(self.kernel) and self.kernel == "rbf" and X.shape[0] > 1:
            sub = X[: min(X.shape[0], 200)]
            d2 = np.sum((sub[:, None, :] - sub[None, :, :]) ** 2, axis=-1)
            med = float(np.median(d2[np.triu_indices(sub.shape[0], 1)]))
            g = self._gamma * med
            if med > 0 and (g > 50 or g < 1e-4):
                hints.append(
                    f"gamma * (median squared distance) = {g:.2g} makes the RBF kernel "
                    f"{'nearly the identity' if g > 50 else 'nearly constant'}; try "
                    "gamma='scale'"
                )
        return (" Hint: " + "; ".join(hints) + ".") if hints else ""

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Normalised score ``f(x) / sqrt(K(x, x))``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Points to score. A sparse ``X`` (CSR or CSC; other formats are converted) is
            accepted with ``kernel="linear"`` only, and never densified: the model trains
            on the sparse factored operator (see :class:`kperc.GramOperator`); other
            kernels refuse it with a :class:`TypeError`.

        Returns
        -------
        ndarray of shape (n_samples,)
            Positive values predict ``classes_[1]``, negative ones ``classes_[0]``.
            On the training data of a converged model every ``y_i * score_i > 0``.
            A model that did not converge (``converged_`` False, warned at fit) scores
            with its last iterate, which carries no guarantee.
        """
        check_is_fitted(self)
        X = self._validate(X, fitting=False)
        with self._threads():
            return self._decision(X)

    def _decision(self, X):
        Xa = self._augment(X)
        if self.feature_map_ is not None:
            F = self.feature_map_.transform(Xa)
            norms = np.sqrt(np.einsum("ij,ij->i", F, F))
            return (F @ self.feature_coef_) / np.where(norms > 0, norms, 1.0)
        params = self._kernel_params()
        if not callable(self.kernel) and self.kernel == "linear":
            # f(x) = x . w with w = sum_i dual_coef_i x_i: O(d) per point, whatever the
            # number of support vectors (SNKP gives weight to every training point)
            f = np.asarray(Xa @ self._weights()).reshape(-1)
        elif self.support_.size == 0:
            f = np.zeros(Xa.shape[0])
        else:
            Kx = _kernel_values(Xa, self.support_vectors_, self.kernel, params)
            f = Kx @ self.dual_coef_
        kxx = _kernel_diagonal(Xa, self.kernel, params)
        scale = np.where(kxx > 0, np.sqrt(np.where(kxx > 0, kxx, 1.0)), 1.0)
        return f / scale

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class labels.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Points to classify. A sparse ``X`` (CSR or CSC; other formats are converted) is
            accepted with ``kernel="linear"`` only, and never densified: the model trains
            on the sparse factored operator (see :class:`kperc.GramOperator`); other
            kernels refuse it with a :class:`TypeError`.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``classes_[1]`` where :meth:`decision_function` is positive, else
            ``classes_[0]``.
        """
        scores = self.decision_function(X)  # checks that the model is fitted first
        return self.classes_[(scores > 0).astype(int)]

    def _linear_weights(self, name):
        check_is_fitted(self)
        if self.kernel != "linear":
            raise AttributeError(f"{name} is only available when kernel='linear'.")
        if self.feature_map_ is not None:
            raise AttributeError(f"{name} is not available with n_components (Nystroem).")
        return self._weights()

    def _weights(self):
        """``w = sum_i dual_coef_i x_i`` over the (augmented) support vectors."""
        if self.support_.size == 0:
            return np.zeros(self.n_features_in_ + (self.intercept_feature_ is not None))
        if scipy.sparse.issparse(self.support_vectors_):
            return np.asarray(self.support_vectors_.T @ self.dual_coef_).reshape(-1)
        return self.dual_coef_ @ self.support_vectors_

    @property
    def coef_(self):
        """Weight vector in input space, shape (1, n_features); ``kernel="linear"`` only."""
        w = self._linear_weights("coef_")
        return w[None, : self.n_features_in_]

    @property
    def intercept_(self):
        """Offset, shape (1,); ``kernel="linear"`` only (0 without ``fit_intercept``)."""
        w = self._linear_weights("intercept_")
        if self.intercept_feature_ is None:
            return np.zeros(1)
        return np.array([w[-1] * self.intercept_feature_])


@functools.cache
def _threadpool_controller() -> ThreadpoolController:
    """One controller for the process: building it inspects the loaded libraries
    (milliseconds), limiting threads with it afterwards takes microseconds."""
    return ThreadpoolController()


def _variance(X) -> float:
    """The variance of all entries of ``X`` (dense or sparse), as ``X.var()``."""
    if scipy.sparse.issparse(X):
        mean = X.sum() / (X.shape[0] * X.shape[1])
        return float(X.multiply(X).sum() / (X.shape[0] * X.shape[1]) - mean**2)
    return float(X.var())


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


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


def _conflicts(Xa, ypm):
    """Pairs of training points with identical features and opposite labels."""
    if scipy.sparse.issparse(Xa):
        return _sparse_conflicts(Xa, ypm)
    if not np.all(np.isfinite(Xa)):  # check_input=False with NaN: nothing to compare
        return np.zeros((0, 2), dtype=np.intp)
    return _conflicting_pairs(Xa, ypm)


def _sparse_conflicts(Xa, ypm):
    """:func:`_conflicts` of a canonical CSR matrix without densifying it: rows are
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


class _GrownNystroem:
    """The training kernel of a grown Nystroem rank (:func:`kperc.snkp_nystroem`): the
    last stage's feature map and norms, and the SNKP run that chose the rank."""

    def __init__(self, result: NystroemResult) -> None:
        self.result = result
        self.transformer = result.transformer
        self.feature_norms = result.feature_norms

    def certificate(self) -> dict[str, Any] | None:
        """The ``tol``-certificate under the exact kernel that stopped the run, in the
        form of the classifier's own certificate watch (``p``, ``bound``, ``nit``)."""
        r = self.result
        if r.p is None:
            return None
        return {"p": r.p, "bound": float(r.norm_p_G), "nit": int(r.nit)}

    def kperc_result(self) -> KpercResult:
        """The run as the other algorithms report it: a separator only when certified
        under the exact kernel; a stop on a certificate as the classifier's watch
        reports one (``"callback"``); otherwise the budget (``max_iter``) ran out."""
        r = self.result
        ok = bool(r.certified)
        how = "separator" if ok else "callback" if r.p is not None else "max_iter"
        return KpercResult(
            outcome=how,
            success=ok,
            status=STATUS[how],
            message=r.message,
            nit=int(r.nit),
            alpha=r.alpha,
            p=None,
            w=None,
            trace=None,
        )

"""A scikit-learn classifier built on the Smoothed Normalised Kernel Perceptron.

The estimator: its parameters, the one validation of ``X`` and ``y``, and prediction.
The binary fits (one per class for one-vs-rest, on a shared kernel) are in
:mod:`kperc._classifier_fit`, the training kernel's form in :mod:`kperc._gram_form`.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from . import _classifier_fit as _fit
from ._classifier_fit import InseparableDataWarning, SmallMarginWarning
from ._gram_form import (
    AUTO_EXACT_MAX_N,
    AUTO_N_COMPONENTS,
    AUTO_N_MAX,
    AUTO_N_START,
    sqrt_diagonal,
)
from ._kernel_values import _check_kernel_args, _kernel_values
from ._typing import ArrayLike, KernelLike, RandomStateLike

__all__ = [
    "SNKPClassifier",
    "InseparableDataWarning",
    "SmallMarginWarning",
    "expected_failed_checks",
    "AUTO_EXACT_MAX_N",
    "AUTO_N_COMPONENTS",
    "AUTO_N_START",
    "AUTO_N_MAX",
]

_MAX = float(np.finfo(np.float64).max)  # the largest finite value: inf is refused


_ZERO_POINT_REASON = (
    "hard-margin normalised kernel: with the linear kernel and no intercept the check's "
    "integer-cast data contain a zero vector x = 0, for which K(x, x) = 0 and the "
    "normalisation K(x, x)^(-1/2) is undefined (no homogeneous classifier can have "
    "y f(0) > 0); fit refuses it with a ValueError"
)

_NKP_TRAIN_REASON = (
    "NKP needs about 1/rho^2 iterations: on the check's two standardised blobs (RBF "
    "margin about 6e-4, about 2.6e6 iterations; a linear or polynomial kernel cannot "
    "separate them) it stops on the iteration cap or a tol-certificate, and its last "
    "iterate misses the check's accuracy of 0.83"
)


class _TorchDeviceType(type):
    def __instancecheck__(cls, val: Any) -> bool:
        torch = sys.modules.get("torch")  # a torch.device exists only if torch was imported
        return torch is not None and isinstance(val, torch.device)


class _TorchDevice(metaclass=_TorchDeviceType):
    """``torch.device`` for ``_parameter_constraints``, without importing torch."""

    __module__, __qualname__ = "torch", "device"  # scikit-learn's message: 'torch.device'


_DEVICE_REASON = (
    "the check sets n_components=1 (Nystroem features, numpy only), which a fit with "
    "device refuses with a ValueError naming both: a device fits the exact kernel"
)
_N_COMPONENTS_CHECKS = (
    "check_dont_overwrite_parameters",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1sample",
    "check_fit2d_1feature",
    "check_fit2d_predict1d",
)


def expected_failed_checks(estimator: SNKPClassifier) -> dict[str, str]:
    """Checks of :func:`sklearn.utils.estimator_checks.check_estimator` that fail.

    Pass the result as ``expected_failed_checks`` to ``check_estimator`` or
    ``parametrize_with_checks`` (scikit-learn 1.9). With the default parameters the
    dictionary is empty: every check passes.

    Parameters
    ----------
    estimator : SNKPClassifier

    Returns
    -------
    dict of str to str
        Check name -> the reason it fails for this configuration.
    """
    expected = {}
    if estimator.device is not None:
        expected.update(dict.fromkeys(_N_COMPONENTS_CHECKS, _DEVICE_REASON))
    if estimator.algorithm == "nkp":
        expected["check_classifiers_train"] = _NKP_TRAIN_REASON
    if estimator.kernel in ("linear", "poly") and not estimator.fit_intercept:
        if estimator.kernel == "linear" or estimator.coef0 == 0:
            expected["check_estimators_dtypes"] = _ZERO_POINT_REASON
    return expected


class SNKPClassifier(ClassifierMixin, BaseEstimator):
    """Hard-margin kernel classifier trained by SNKP, NKP or ISNKPVN.

    Finds ``f = sum_i alpha_i y_i K(x_i, .) / sqrt(K(x_i, x_i))`` with ``y_i f(x_i) > 0``
    on every training point, by the Smoothed Normalised Kernel Perceptron (Algorithm 4
    of Ramdas & Pena, 2014), the Normalised Kernel Perceptron (Algorithm 3) or the
    iterated primal-dual method ISNKPVN (Algorithm 7), or stops with a certificate that
    no separator has a normalised margin above ``tol``. More than two classes are fitted
    one-vs-rest.

    Read more in the :ref:`user guide <clf-in-detail>`.

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly"} or callable, default="rbf"
        A callable receives two data matrices and returns their kernel matrix.
    gamma : float or "scale", default="scale"
        Coefficient of "rbf" and "poly"; "scale" is ``1 / (n_features * X.var())`` on
        the training ``X``, as in :class:`sklearn.svm.SVC`, at every finite scale of ``X``.
    degree : int, default=3
        Degree of the "poly" kernel.
    coef0 : float, default=1.0
        Constant term of the "poly" kernel.
    fit_intercept : bool, default=True
        Append a constant feature, so that the model can learn an offset (not with
        "rbf", whose values a constant feature does not change).
    intercept_scaling : float, default=1.0
        The constant feature relative to the root-mean-square norm of the training rows;
        a larger value makes an offset cheaper in the margin. Ignored without an intercept.
    algorithm : {"snkp", "nkp", "isnkpvn"}, default="snkp"
        At a normalised margin ``rho``, "snkp" needs at most ``2 sqrt(2 log n) / rho``
        iterations of cost ``O(n^2)`` and "nkp" ``1 / rho^2`` of cost ``O(n)``; "isnkpvn"
        costs as "snkp" does. The user guide compares them on the book's benchmark.
    max_iter : int, default=100000
        Cap on the iterations (for "isnkpvn", its inner ones); reaching it warns. With
        "nkp" a larger cap, such as ``10^6``, may be needed.
    tol : float or "auto", default="auto"
        Stop with a certificate once no separator can have a normalised margin above
        ``tol``. "auto" follows from the kernel, ``n`` and ``max_iter``.
    halt : bool, default=True
        Stop at the first separator; False lets "snkp" and "nkp" widen its margin.
    check_input : bool, default=True
        Validate ``X`` and ``y`` with scikit-learn; False skips its dtype conversion and
        finiteness checks (complex, object, NaN and inf are still refused).
    verbose : int, default=0
        1: one line per stage of the fit, with its time; 2: also a progress line about
        every second (which about doubles the time of "nkp").
    n_components : "auto", int or None, default="auto"
        The training kernel: None, the exact dense ``n x n`` matrix; an int ``m``, ``m``
        Nystroem features (certified for that approximate kernel); "auto", the exact
        kernel ("linear" factored; others up to 5000 points), else Nystroem features.
    random_state : int, RandomState instance or None, default=None
        Seeds the Nystroem landmarks.
    n_threads : int or None, default=1
        BLAS threads of ``fit``, ``predict`` and ``decision_function``; None leaves the
        process's setting. One thread is the safe choice on a shared machine.
    device : str, torch.device or None, default=None
        None: numpy. A torch device (``"cpu"``, ``"cuda"``, ...): the exact "rbf" or
        "linear" kernel is formed and iterated there in float32, every answer is checked
        in float64, and the fitted model predicts on the host with numpy.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels; with two, ``classes_[1]`` is the positive class.
    estimators_ : list of SNKPClassifier or None
        With more than two classes, the binary model of each class against the rest,
        which holds the attributes below; None with two classes.
    support_ : ndarray of int
        Indices of the training points of nonzero weight (with "snkp", usually all).
    support_vectors_ : ndarray of shape (n_support, n_columns)
        Those training points, with the intercept feature appended when it is used.
    dual_coef_ : ndarray of shape (n_support,)
        ``alpha_i y_i / sqrt(K(x_i, x_i))`` for the support points.
    coef_ : ndarray of shape (1, n_features)
        Weight vector in input space; only for ``kernel="linear"``.
    intercept_ : ndarray of shape (1,)
        Offset; only for ``kernel="linear"`` (zero when ``fit_intercept`` is False).
    intercept_feature_ : float or None
        The value of the appended constant feature; None when none is appended.
    halting_index_ : int
        The number of updates made: the ``K`` that the paper's iteration bounds count.
    n_iter_ : int
        Number of iterates examined, ``halting_index_ + 1``.
    outcome_ : {"separator", "certificate", "conflict", "max_iter", "undecided"}
        How the fit ended. The first three hold for the exact kernel matrix of the
        training data; "max_iter" and "undecided" prove nothing, and a warning says so.
    converged_ : bool
        Whether a separator of the training data was found.
    witnesses_ : ndarray of int or None
        The points to blame for a certificate or a conflict; None otherwise.
    conflicts_ : ndarray of shape (n_conflicts, 2)
        Pairs ``(i, j)`` of identical points with opposite labels (empty when none).
    certificate_norm_ : float or None
        With a certificate, an upper bound on the data's normalised margin (0.0 for a
        conflict); None otherwise.
    tol_ : float
        The ``tol`` used (the value of "auto").
    gram_form_ : {"dense", "factored", "nystroem", "on-the-fly"}
        How the training kernel was represented (see ``n_components`` and ``device``).
    n_components_ : int or None
        The number of Nystroem features used; None for an exact kernel.
    feature_map_ : sklearn.kernel_approximation.Nystroem or None
        With Nystroem features, the fitted feature map ``z``.
    feature_coef_ : ndarray of shape (n_features_out,) or None
        With Nystroem features, ``Z^T alpha``, so that ``f(x) = z(x) . feature_coef_``.
    n_features_in_ : int
        Number of features seen during fit.

    Notes
    -----
    A separator is returned only if ``y_i f(x_i) > 0`` is certified, beyond rounding, for
    the exact kernel matrix of the training data; otherwise the fit ends with a proof
    that holds for that matrix (a certificate, or points repeated with both labels), or
    with "undecided" or the iteration cap, and one warning. On noisy data, separable only
    with a tiny margin, the default ``tol`` ends the fit with a certificate: a soft-margin
    method such as :class:`sklearn.svm.SVC` suits such data. See the
    :ref:`user guide <clf-in-detail>`.

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

    # one value per class with more than two classes (one-vs-rest)
    outcome_: Any
    tol_: Any
    estimators_: list[SNKPClassifier] | None
    converged_: bool
    n_iter_: int
    gram_form_: str

    _parameter_constraints: dict = {
        "kernel": [StrOptions({"rbf", "linear", "poly"}), callable],
        "gamma": [StrOptions({"scale"}), Interval(Real, 0, _MAX, closed="right")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, -_MAX, _MAX, closed="both")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, _MAX, closed="right")],
        "algorithm": [StrOptions(set(_fit.ALGORITHMS))],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [StrOptions({"auto"}), Interval(Real, 0, _MAX, closed="right")],
        "halt": ["boolean"],
        "check_input": ["boolean"],
        "verbose": ["verbose"],
        "n_components": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "n_threads": [Interval(Integral, 1, None, closed="left"), None],
        "device": [None, str, _TorchDevice],
    }

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
        n_components: int | str | None = "auto",
        random_state: RandomStateLike = None,
        n_threads: int | None = 1,
        device: Any = None,
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
        self.device = device

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True  # one-vs-rest
        # scipy.sparse X: the linear kernel trains on a sparse factored operator
        tags.input_tags.sparse = self._linear()
        return tags

    def expected_failed_checks(self) -> dict[str, str]:
        """Checks of :func:`sklearn.utils.estimator_checks.check_estimator` that fail for
        this configuration, with the reason (empty for the defaults).

        Pass the result as ``expected_failed_checks`` to ``check_estimator`` or
        ``parametrize_with_checks``.

        Returns
        -------
        dict of str to str
        """
        return expected_failed_checks(self)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike, **fit_params: Any) -> SNKPClassifier:
        """Train on ``X`` with labels ``y`` (two classes, or one-vs-rest for more).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Training points. A sparse ``X`` (CSR or CSC; other formats are converted) is
            accepted with ``kernel="linear"`` only, and never densified: the model trains
            on the sparse factored operator (see :class:`kperc.GramOperator`); other
            kernels refuse it with a :class:`TypeError`.
        y : array-like of shape (n_samples,)
            Labels; at least two distinct values (any type scikit-learn accepts). With
            more than two, one binary model per class separates it from the others
            (one-vs-rest, as :class:`sklearn.linear_model.Perceptron` does).
        **fit_params
            Refused: a hard-margin classifier takes no ``sample_weight`` (see the
            :ref:`user guide <clf-weights>`).

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
            Once, when points repeated with both labels prove the training data
            inseparable (for more than two classes: some class from the others).
        SmallMarginWarning
            Once, when a certificate proves that no separator has a normalised margin
            above ``tol`` (the data may be separable with a smaller one).
        sklearn.exceptions.ConvergenceWarning
            Once, when the fit ended with neither (``max_iter``, or "undecided"), or
            when the classes of one-vs-rest ended in different ways.
        UserWarning
            When ``n_components="auto"`` switches to Nystroem features of a fixed rank
            (see ``n_components``).
        """
        if fit_params:
            raise TypeError(
                f"SNKPClassifier.fit does not accept {', '.join(sorted(fit_params))}: a "
                "hard-margin classifier separates every training point, so there is "
                "nothing for sample or class weights to trade off. Resample the data "
                "instead, or use a soft-margin method such as sklearn.svm.SVC."
            )
        _fit.check_combinations(self)
        X, y = self._validate(X, y, fitting=True)
        check_classification_targets(y)  # scikit-learn's error for a regression target
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(
                f"SNKPClassifier needs at least 2 classes to separate; got "
                f"{self.classes_.size} class in y."
            )
        self._x_exponent = _fit.data_exponent(self, X)  # 0 unless X's scale is extreme
        X = np.ldexp(X, -self._x_exponent) if self._x_exponent else X
        self._gamma = _fit.gamma_of(self, X)
        self.intercept_feature_ = _fit.intercept_feature(self, X)
        two = self.classes_.size == 2
        models = [self] if two else [clone(self) for _ in self.classes_]
        for m in models:
            m.n_features_in_, m._gamma = self.n_features_in_, self._gamma
            m._x_exponent = self._x_exponent
            m.intercept_feature_, m.estimators_ = self.intercept_feature_, None
            m.classes_ = self.classes_ if two else np.array([0, 1])  # 1: the class
        labels = [y == c for c in (self.classes_[1:] if two else self.classes_)]
        with self._threads():
            _fit.fit_problems(models, X, [np.where(lab, 1.0, -1.0) for lab in labels])
        self.estimators_ = None if two else models
        if not two:
            self.converged_ = all(m.converged_ for m in models)
            self.outcome_ = np.array([m.outcome_ for m in models], dtype=object)
            self.n_iter_ = max(m.n_iter_ for m in models)
            self.tol_ = np.array([m.tol_ for m in models])
            self.gram_form_ = models[0].gram_form_
        said = [
            (c, _fit.fit_warning(m, X))
            for c, m in zip(self.classes_[-len(models) :], models, strict=True)
            if not m.converged_
        ]
        if said:  # one warning, of the class that names what was proved
            kinds = {kind for _, (kind, _) in said}
            kind = kinds.pop() if len(kinds) == 1 else ConvergenceWarning
            text = (msg if two else f"class {c} against the rest: {msg}" for c, (_, msg) in said)
            warnings.warn(" | ".join(text), kind, stacklevel=3)
        return self

    def _linear(self):
        return not callable(self.kernel) and self.kernel == "linear"

    def _validate(self, X, y=None, *, fitting):
        """The one validation of ``X`` (and ``y``): everything after it trusts them."""
        kw: dict[str, Any] = {"dtype": np.float64, "accept_sparse": ("csr", "csc")}
        if not self.check_input:  # complex, object, NaN and inf are still refused
            kw = {"dtype": None, "ensure_all_finite": False, "accept_sparse": ("csr", "csc")}
        if not fitting:
            X = _fit.trusted_X(self, validate_data(self, X, reset=False, **kw))
            return np.ldexp(X, -self._x_exponent) if self._x_exponent else X
        X, y = validate_data(self, X, y, **kw)  # y=None gets scikit-learn's message
        return _fit.trusted_X(self, X), y

    def _kernel_params(self):
        """The kernel's parameters (checked by ``_parameter_constraints``)."""
        if callable(self.kernel) or self.kernel == "linear":
            return {}
        params = {"gamma": self._gamma}
        if self.kernel == "poly":
            params.update(degree=self.degree, coef0=self.coef0)
        return _check_kernel_args(self.kernel, params)

    def _threads(self):
        """A context that limits BLAS to ``n_threads`` (a no-op for None)."""
        if self.n_threads is None:
            return contextlib.nullcontext()
        limit = _threadpool_controller().limit(limits=int(self.n_threads), user_api="blas")
        torch = sys.modules.get("torch")  # a device fit: torch's own threads too
        if self.device is None or torch is None:
            return limit
        return _torch_threads(limit, torch, int(self.n_threads))

    def _log(self, msg, t0=None):
        if self.verbose:
            tail = "" if t0 is None else f" ({time.perf_counter() - t0:.2f} s)"
            print(f"[SNKPClassifier] {msg}{tail}", flush=True)

    # -- prediction --------------------------------------------------------------------

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
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Two classes: positive values predict ``classes_[1]``, negative ones
            ``classes_[0]``; on the training data of a converged model every
            ``y_i * score_i > 0``. More classes: column ``k`` is the score of class
            ``classes_[k]`` against the rest. A model that did not converge
            (``converged_`` False, warned at fit) scores with its last iterate, which
            carries no guarantee.
        """
        check_is_fitted(self)
        X = self._validate(X, fitting=False)
        with self._threads():
            if self.estimators_ is not None:
                return np.column_stack([est._decision(X) for est in self.estimators_])
            return self._decision(X)

    def _decision(self, X):
        Xa = _fit.augment(self, X)
        if self.feature_map_ is not None:
            F = self.feature_map_.transform(Xa)
            norms = np.sqrt(np.einsum("ij,ij->i", F, F))
            return (F @ self.feature_coef_) / np.where(norms > 0, norms, 1.0)
        params = self._kernel_params()
        if self._linear():
            # f(x) = x . w with w = sum_i dual_coef_i x_i: O(d) per point, whatever the
            # number of support vectors (SNKP gives weight to every training point)
            f = np.asarray(Xa @ self._weights()).reshape(-1)
        elif self.support_.size == 0:
            f = np.zeros(Xa.shape[0])
        else:
            f = _kernel_values(Xa, self.support_vectors_, self.kernel, params) @ self.dual_coef_
        root = sqrt_diagonal(Xa, self.kernel, params)
        return f / np.where(root > 0, root, 1.0)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class labels.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Points to classify (sparse with ``kernel="linear"`` only, as in :meth:`fit`).

        Returns
        -------
        ndarray of shape (n_samples,)
            Two classes: ``classes_[1]`` where :meth:`decision_function` is positive,
            else ``classes_[0]``. More classes: the class of the largest score.
        """
        scores = self.decision_function(X)  # checks that the model is fitted first
        if scores.ndim == 2:
            return self.classes_[np.argmax(scores, axis=1)]
        return self.classes_[(scores > 0).astype(int)]

    def _linear_weights(self, name):
        check_is_fitted(self)
        if not self._linear():
            raise AttributeError(f"{name} is only available when kernel='linear'.")
        models = self.estimators_ if self.estimators_ is not None else [self]
        if any(m.feature_map_ is not None for m in models):
            raise AttributeError(f"{name} is not available with n_components (Nystroem).")
        return np.vstack([m._weights() for m in models])

    def _weights(self):
        """``w = sum_i dual_coef_i x_i`` over the (augmented) support vectors."""
        if self.support_.size == 0:
            return np.zeros(self.n_features_in_ + (self.intercept_feature_ is not None))
        if scipy.sparse.issparse(self.support_vectors_):
            return np.asarray(self.support_vectors_.T @ self.dual_coef_).reshape(-1)
        return self.dual_coef_ @ self.support_vectors_

    @property
    def coef_(self):
        """Weight vectors in input space, shape (1, n_features) for two classes, else
        (n_classes, n_features); ``kernel="linear"`` only."""
        return self._linear_weights("coef_")[:, : self.n_features_in_]

    @property
    def intercept_(self):
        """Offsets, shape (1,) or (n_classes,); ``kernel="linear"`` only (zero without
        ``fit_intercept``)."""
        w = self._linear_weights("intercept_")
        if self.intercept_feature_ is None:
            return np.zeros(w.shape[0])
        return w[:, -1] * self.intercept_feature_


@contextlib.contextmanager
def _torch_threads(limit, torch, n: int):
    """``limit`` (BLAS), and torch's CPU threads limited to ``n`` (restored after)."""
    with limit:
        old = torch.get_num_threads()
        torch.set_num_threads(n)
        try:
            yield
        finally:
            torch.set_num_threads(old)


@functools.cache
def _threadpool_controller() -> ThreadpoolController:
    """One controller for the process: building it inspects the loaded libraries
    (milliseconds), limiting threads with it afterwards takes microseconds."""
    return ThreadpoolController()

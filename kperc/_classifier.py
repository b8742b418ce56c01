"""A scikit-learn classifier built on the Smoothed Normalised Kernel Perceptron."""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ._approx import approx_gram_operator
from ._kernels import gram_matrix, gram_operator, kernel_diagonal, kernel_matrix
from ._perceptrons import nkp, snkp
from ._primal_dual import isnkpvn

__all__ = ["SNKPClassifier", "InseparableDataWarning", "expected_failed_checks"]

_ALGORITHMS = {"snkp": snkp, "nkp": nkp, "isnkpvn": isnkpvn}

#: ``n_components="auto"``: the largest ``n`` trained on the exact dense ``n x n`` matrix
#: (non-linear kernels). At 5,000 points ``G`` takes 200 MB and under a second to build.
AUTO_EXACT_MAX_N = 5_000

#: ``n_components="auto"``: Nystroem features used above :data:`AUTO_EXACT_MAX_N` points
#: (memory ``8 n m`` bytes: 0.4 GB at ``n = 10^5``, 4 GB at ``n = 10^6``).
AUTO_N_COMPONENTS = 500

#: ``verbose=2``: seconds between two progress lines of a running algorithm.
PROGRESS_SECONDS = 1.0

# the progress quantities that the algorithms' callbacks report, in display order
_PROGRESS_FIELDS = ("mu", "min_Galpha", "norm_p_G", "nouter")


class InseparableDataWarning(ConvergenceWarning):
    """The classifier's training data were not separated by its kernel.

    A subclass of :class:`sklearn.exceptions.ConvergenceWarning`. Emitted by
    :meth:`~kperc.SNKPClassifier.fit` when no separator was found, and again by
    :meth:`~kperc.SNKPClassifier.predict` and
    :meth:`~kperc.SNKPClassifier.decision_function` of such
    a model, whose predictions come from an iterate that does not separate the
    training data.

    Examples
    --------
    >>> import warnings
    >>> from kperc import SNKPClassifier
    >>> X, y = [[1.0], [1.0]], [0, 1]  # one point, with both labels
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     clf = SNKPClassifier(kernel="linear", algorithm="isnkpvn").fit(X, y)
    >>> caught[0].category.__name__, clf.outcome_, clf.witnesses_.tolist()
    ('InseparableDataWarning', 'certificate', [0, 1])
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
    iterated primal-dual method ISNKPVN (Algorithm 7), which, when the data cannot be
    separated, returns a certificate that names the training points responsible. Binary
    only; any two class labels are accepted and mapped to -1/+1.

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
        Append a constant feature ``intercept_scaling`` to every point, so that the
        linear and polynomial kernels can learn an offset (the paper's problems are
        homogeneous).
    intercept_scaling : float, default=1.0
        Value of the appended constant feature. With the linear kernel the learnt offset
        is ``intercept_scaling * w_last``; a larger value makes an offset cheaper in the
        margin, as in :class:`sklearn.svm.LinearSVC`. Ignored when ``fit_intercept`` is
        False.
    algorithm : {"snkp", "nkp", "isnkpvn"}, default="snkp"
        Training algorithm. "snkp" needs at most ``2 sqrt(2 log n) / rho`` iterations
        of cost ``O(n^2)`` on data with normalised margin ``rho`` (Theorem 1); "nkp"
        needs ``1 / rho^2`` iterations of cost ``O(n)``; "isnkpvn" costs as much per
        iteration as "snkp" and, on data it cannot separate, stops with a certificate
        (see ``witnesses_``) instead of running to ``max_iter``.
    max_iter : int, default=100000
        Cap on the iterations of the algorithm (for "isnkpvn", on its total inner
        iterations). Reaching it without a separator emits an
        :class:`~kperc._classifier.InseparableDataWarning`. The default is that of
        :func:`kperc.snkp`: SNKP's bound above stays below it for margins down to about
        ``1e-4`` at ``n = 10^4``. NKP's iterations are cheaper (``O(n)``) but its bound
        is ``1 / rho^2``: with ``algorithm="nkp"`` a larger cap, such as the ``10^6`` of
        :func:`kperc.nkp`, may be needed.
    tol : float, default=1e-3
        For "isnkpvn" only: stop with a certificate once a point ``p`` of the simplex
        with ``||p||_G <= tol`` is found, which proves that no separator has normalised
        margin above ``tol``.
    check_input : bool, default=True
        Validate ``X`` and ``y`` (finite values, shapes, two classes) in ``fit`` and
        ``X`` in ``predict``. Setting it to False skips only the finiteness and
        dtype conversion checks of :func:`sklearn.utils.validation.validate_data` for
        speed on trusted input; shapes and classes are still checked.
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
          ``n = 5000`` points (200 MB), and above that ``500`` Nystroem features, as
          an int would (memory ``O(n m)``: 0.4 GB at ``n = 10^5``). A callable kernel
          always uses the exact dense matrix.
        * an int ``m``: train and predict with ``m`` Nystroem features (named kernels
          only)
          (:func:`kperc.approx_gram_operator`): memory ``O(n m)`` instead of
          ``O(n^2)``, and the separator is certified for the approximate kernel.
          ``random_state`` seeds the choice of landmarks.
        * ``None``: the exact dense ``n x n`` matrix whatever ``n`` (``8 n^2`` bytes).

        The representation used is recorded in ``gram_form_``.
    random_state : int, RandomState instance or None, default=None
        Seeds the Nystroem landmarks (used only when Nystroem features are used).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two class labels; ``classes_[1]`` is the positive class.
    support_ : ndarray of int
        Indices of training points with nonzero weight ``alpha_i``. SNKP's entropy
        prox-map gives every point a positive weight, so for "snkp" this is usually
        every training point; NKP's iterates are sparse.
    support_vectors_ : ndarray of shape (n_support, n_columns)
        Those training points, with the intercept feature appended when
        ``fit_intercept`` (``n_columns = n_features + 1``, else ``n_features``).
    dual_coef_ : ndarray of shape (n_support,)
        ``alpha_i y_i / sqrt(K(x_i, x_i))`` for the support points.
    coef_ : ndarray of shape (1, n_features)
        Weight vector in input space; only for ``kernel="linear"``.
    intercept_ : ndarray of shape (1,)
        Offset; only for ``kernel="linear"`` (zero when ``fit_intercept`` is False).
        The sign of ``X @ coef_.T + intercept_`` is that of :meth:`decision_function`.
    halting_index_ : int
        The halting index ``K`` of the run: the number of updates made. This is the
        quantity that the paper's iteration bounds count (Theorem 1 for SNKP).
    n_iter_ : int
        Number of iterates examined, ``halting_index_ + 1`` (the exit test runs on
        ``alpha_0, ..., alpha_K``); at least 1, as scikit-learn expects.
    outcome_ : {"separator", "certificate", "max_iter"}
        How the run ended: a certified separator of the training data, a certificate
        that no separator with margin above ``tol`` exists ("isnkpvn" only), or the
        iteration cap.
    converged_ : bool
        Whether a separator of the training data was found (``outcome_ == "separator"``).
    witnesses_ : ndarray of int or None
        With ``outcome_ == "certificate"``: indices of the training points in the
        support of the certificate ``p``. Their feature-space images, with signs
        ``y_i`` and weights ``p_i``, nearly cancel (``||p||_G = certificate_norm_``),
        which is why no separator with a larger margin exists. None otherwise.
    certificate_norm_ : float or None
        ``||p||_G`` of the certificate, an upper bound on the normalised margin of the
        training data. None when there is no certificate.
    gram_form_ : {"dense", "factored", "nystroem"}
        How the training kernel was represented (see ``n_components``): the exact
        dense matrix, the exact factored linear-kernel operator, or Nystroem features.
    n_components_ : int or None
        The number of Nystroem features used; None for an exact kernel.
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
    such data. When no separator is found the fit emits an
    :class:`~kperc._classifier.InseparableDataWarning` (a
    :class:`~sklearn.exceptions.ConvergenceWarning`) that says so, names the witnesses
    when there is a certificate, and keeps the last iterate; ``converged_`` is False,
    and every later call of :meth:`predict` or :meth:`decision_function` warns again,
    since those predictions carry no guarantee.

    *scikit-learn compatibility.* With its default parameters the estimator passes every
    check of :func:`sklearn.utils.estimator_checks.check_estimator` (scikit-learn 1.9),
    so the ``expected_failed_checks`` list is empty (with ``gamma="scale"`` the RBF
    kernel separates the checks' data, and SNKP's bound ``2 sqrt(2 log n) / rho`` is
    within ``max_iter``). The checks that cannot apply to some hard-margin
    configurations are returned by ``kperc._classifier.expected_failed_checks(estimator)``:

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
        kernel="rbf",
        *,
        gamma="scale",
        degree=3,
        coef0=1.0,
        fit_intercept=True,
        intercept_scaling=1.0,
        algorithm="snkp",
        max_iter=100_000,
        tol=1e-3,
        check_input=True,
        verbose=0,
        n_components="auto",
        random_state=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.algorithm = algorithm
        self.max_iter = max_iter
        self.tol = tol
        self.check_input = check_input
        self.verbose = verbose
        self.n_components = n_components
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _augment(self, X):
        if self.fit_intercept:
            col = np.full((X.shape[0], 1), float(self.intercept_scaling))
            return np.hstack([X, col])
        return X

    def _kernel_params(self):
        if callable(self.kernel) or self.kernel == "linear":
            return {}
        params = {"gamma": self._gamma}
        if self.kernel == "poly":
            params.update(degree=self.degree, coef0=self.coef0)
        return params

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

    def _validate(self, X, y=None, *, fitting):
        kw = {"dtype": np.float64}
        if not self.check_input:
            kw = {"dtype": None, "ensure_all_finite": False}
        if not fitting:
            return np.asarray(validate_data(self, X, reset=False, **kw), dtype=np.float64)
        X, y = validate_data(self, X, y, **kw)  # y=None gets scikit-learn's message
        return np.asarray(X, dtype=np.float64), y

    def _check_params(self):
        if self.algorithm not in _ALGORITHMS:
            raise ValueError(
                f"algorithm must be one of {sorted(_ALGORITHMS)}; got {self.algorithm!r}."
            )
        if (
            isinstance(self.max_iter, bool)
            or not isinstance(self.max_iter, (int, np.integer, float))
            or int(self.max_iter) != self.max_iter
            or self.max_iter <= 0
        ):
            raise ValueError(f"max_iter must be a positive integer; got {self.max_iter!r}.")
        if isinstance(self.gamma, str) and self.gamma != "scale":
            raise ValueError(f"gamma must be a positive number or 'scale'; got {self.gamma!r}")
        if not isinstance(self.gamma, str) and not self.gamma > 0:
            raise ValueError(f"gamma must be a positive number or 'scale'; got {self.gamma!r}")
        if isinstance(self.n_components, str) and self.n_components != "auto":
            raise ValueError(
                f"n_components must be 'auto', a positive integer or None; got "
                f"{self.n_components!r}."
            )
        if callable(self.kernel) and not (self.n_components is None or self.n_components == "auto"):
            raise ValueError(
                "n_components (Nystroem features) needs a named kernel ('rbf', 'poly' or "
                "'linear'): scikit-learn's Nystroem would call a callable kernel once per "
                "pair of points. Use n_components='auto' or None (the exact kernel)."
            )
        if self.algorithm == "isnkpvn" and not (
            isinstance(self.tol, (int, float, np.floating)) and self.tol > 0
        ):
            raise ValueError(f"tol must be a positive number; got {self.tol!r}.")

    def _build_gram(self, Xa, ypm):
        """The one step that builds the training kernel: ``(G, s)`` with the normalised
        signed Gram matrix ``G`` and the per-point scale ``s_i = y_i / sqrt(K(x_i, x_i))``."""
        params = self._kernel_params()
        diag = kernel_diagonal(Xa, kernel=self.kernel, **params)
        if np.any(~(diag > 0)):
            raise ValueError(
                "K(x_i, x_i) <= 0 for some training point (a zero vector with the linear "
                "kernel); set fit_intercept=True or remove such points."
            )
        s = ypm / np.sqrt(diag)
        form, m = self._gram_form(Xa.shape[0])
        if form == "dense":  # the package's own G: exact for points repeated with the other label
            G = gram_matrix(Xa, ypm, self.kernel, **params)
        elif form == "factored":  # linear kernel: G = Z Z^T with O(n d) memory, exact
            G = gram_operator(Xa, ypm)
        else:  # Nystroem features: an O(n m) factored operator instead of the n x n matrix
            G = approx_gram_operator(
                Xa,
                ypm,
                self.kernel,
                n_components=m,
                random_state=self.random_state,
                **params,
            )
            s = ypm / G.feature_norms  # the approximate kernel's normalisation
        self.gram_form_ = form
        self.n_components_ = None if form != "nystroem" else int(G.Z.shape[1])
        return G, s

    def _run(self, G):
        """Run the chosen algorithm on ``G``; returns its :class:`~kperc.KpercResult`."""
        kw = {
            "max_iter": int(self.max_iter),
            "check_input": False,
            "callback": self._progress_callback(),
        }
        if self.algorithm == "isnkpvn":
            kw["eps"] = float(self.tol)
        return _ALGORITHMS[self.algorithm](G, **kw)

    def fit(self, X, y):
        """Train on ``X`` with two classes ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points.
        y : array-like of shape (n_samples,)
            Labels; exactly two distinct values (any type scikit-learn accepts).

        Returns
        -------
        self : SNKPClassifier
            The fitted estimator.

        Warns
        -----
        InseparableDataWarning
            When no separator of the training data was found (see Notes of the class).
        """
        self._check_params()
        X, y = self._validate(X, y, fitting=True)
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type != "binary":
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
        ypm = np.where(y == self.classes_[1], 1.0, -1.0)
        if self.gamma == "scale":  # as sklearn.svm.SVC: on X, without the intercept column
            var = X.var()
            self._gamma = 1.0 / (X.shape[1] * var) if var != 0 else 1.0
        else:
            self._gamma = float(self.gamma)
        Xa = self._augment(X)
        n = Xa.shape[0]

        t0 = time.perf_counter()
        G, s = self._build_gram(Xa, ypm)
        what = {
            "dense": f"dense Gram matrix {n}x{n}",
            "factored": f"factored linear-kernel Gram operator ({n}x{Xa.shape[1]} factor)",
            "nystroem": f"Nystroem Gram operator ({n}x{self.n_components_} features)",
        }[self.gram_form_]
        self._log(f"kernel={self.kernel!r}, gamma={self._gamma:.4g}: {what}", t0)

        t0 = time.perf_counter()
        self._log(f"running {self.algorithm.upper()} (max_iter={int(self.max_iter)})")
        res = self._run(G)
        self._log(f"{self.algorithm.upper()}: {res.message}", t0)

        self.halting_index_ = int(res.nit)
        self.n_iter_ = self.halting_index_ + 1
        self.outcome_ = res.outcome
        self.converged_ = res.outcome == "separator"
        self.witnesses_ = None
        self.certificate_norm_ = None
        if res.outcome == "certificate":
            self.witnesses_ = np.flatnonzero(res.p > 0)
            self.certificate_norm_ = float(res.norm_p_G)
        alpha = res.alpha
        self.support_ = np.flatnonzero(alpha != 0)
        self.support_vectors_ = Xa[self.support_]
        self.dual_coef_ = (alpha * s)[self.support_]
        # f(x) = (Z^T alpha) . z(x) / ||z(x)|| for Nystroem features z; None when exact
        nystroem = self.gram_form_ == "nystroem"
        self.feature_map_ = G.transformer if nystroem else None
        self.feature_coef_ = G.Z.T @ alpha if nystroem else None
        if not self.converged_:
            warnings.warn(self._inseparable_message(), InseparableDataWarning, stacklevel=2)
        return self

    def _inseparable_message(self):
        name = self.algorithm.upper()
        if self.outcome_ == "certificate":
            shown = ", ".join(str(i) for i in self.witnesses_[:10])
            more = ", ..." if self.witnesses_.size > 10 else ""
            return (
                f"the training data are not separable with margin above "
                f"{self.certificate_norm_:.3g} in this kernel's feature space: {name} found "
                f"a certificate p with ||p||_G = {self.certificate_norm_:.3g} <= tol, whose "
                f"support is {self.witnesses_.size} training points (witnesses_ = [{shown}"
                f"{more}]); the model keeps an iterate that does not separate them, and its "
                "predictions carry no guarantee."
            )
        hint = "" if self.algorithm == "isnkpvn" else " (algorithm='isnkpvn' can say why)"
        return (
            f"{name} found no separator of the training data within max_iter="
            f"{int(self.max_iter)} iterations: the data may be inseparable in this kernel's "
            f"feature space{hint}; the model keeps the last iterate, and its predictions "
            "carry no guarantee."
        )

    def decision_function(self, X):
        """Normalised score ``f(x) / sqrt(K(x, x))``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to score.

        Returns
        -------
        ndarray of shape (n_samples,)
            Positive values predict ``classes_[1]``, negative ones ``classes_[0]``.
            On the training data of a converged model every ``y_i * score_i > 0``.

        Warns
        -----
        InseparableDataWarning
            When the model did not separate its training data (``converged_`` is False).
        """
        check_is_fitted(self)
        X = self._validate(X, fitting=False)
        if not self.converged_:
            warnings.warn(
                "this SNKPClassifier did not separate its training data "
                f"(outcome_={self.outcome_!r}); its scores come from an iterate that "
                "carries no guarantee.",
                InseparableDataWarning,
                stacklevel=2,
            )
        Xa = self._augment(X)
        if self.feature_map_ is not None:
            F = self.feature_map_.transform(Xa)
            norms = np.sqrt(np.einsum("ij,ij->i", F, F))
            return (F @ self.feature_coef_) / np.where(norms > 0, norms, 1.0)
        params = self._kernel_params()
        if not callable(self.kernel) and self.kernel == "linear":
            # f(x) = x . w with w = sum_i dual_coef_i x_i: O(d) per point, whatever the
            # number of support vectors (SNKP gives weight to every training point)
            f = Xa @ (self.dual_coef_ @ self.support_vectors_)
        else:
            Kx = kernel_matrix(Xa, self.support_vectors_, kernel=self.kernel, **params)
            f = Kx @ self.dual_coef_
        kxx = kernel_diagonal(Xa, kernel=self.kernel, **params)
        scale = np.where(kxx > 0, np.sqrt(np.where(kxx > 0, kxx, 1.0)), 1.0)
        return f / scale

    def predict(self, X):
        """Class labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to classify.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``classes_[1]`` where :meth:`decision_function` is positive, else
            ``classes_[0]``.

        Warns
        -----
        InseparableDataWarning
            When the model did not separate its training data (``converged_`` is False).
        """
        scores = self.decision_function(X)  # checks that the model is fitted first
        return self.classes_[(scores > 0).astype(int)]

    def _linear_weights(self, name):
        check_is_fitted(self)
        if self.kernel != "linear":
            raise AttributeError(f"{name} is only available when kernel='linear'.")
        if self.feature_map_ is not None:
            raise AttributeError(f"{name} is not available with n_components (Nystroem).")
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
        if not self.fit_intercept:
            return np.zeros(1)
        return np.array([w[-1] * float(self.intercept_scaling)])

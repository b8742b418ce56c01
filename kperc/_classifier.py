"""A scikit-learn classifier built on the Smoothed Normalised Kernel Perceptron."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ._approx import approx_gram_operator
from ._kernels import gram_matrix, kernel_diagonal, kernel_matrix
from ._perceptrons import nkp, snkp

__all__ = ["SNKPClassifier", "expected_failed_checks"]

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
    if estimator.algorithm == "nkp" or estimator.kernel in ("linear", "poly"):
        expected["check_classifiers_train"] = _INSEPARABLE_TRAIN_REASON
    if estimator.kernel in ("linear", "poly") and not estimator.fit_intercept:
        if estimator.kernel == "linear" or estimator.coef0 == 0:
            expected["check_estimators_dtypes"] = _ZERO_POINT_REASON
    return expected


class SNKPClassifier(ClassifierMixin, BaseEstimator):
    """Hard-margin kernel classifier trained by SNKP (or NKP).

        Finds ``f = sum_i alpha_i y_i K(x_i, .) / sqrt(K(x_i, x_i))`` with
        ``y_i f(x_i) > 0`` on every training point, by the Smoothed Normalised Kernel
        Perceptron (Algorithm 4 of Ramdas & Pena, 2014). Binary only; any two class labels
        are accepted and mapped to -1/+1.

        Parameters
        ----------
        kernel : {"rbf", "linear", "poly"} or callable, default="rbf"
            A callable receives two data matrices and returns their kernel matrix.
        gamma : float or "scale", default="scale"
            Kernel coefficient for "rbf" and "poly"; "scale" uses
            ``1 / (n_features * X.var())`` as :class:`sklearn.svm.SVC` does.
        degree : int, default=3
            Degree of the "poly" kernel.
        coef0 : float, default=1.0
            Constant term of the "poly" kernel.
        fit_intercept : bool, default=True
            Append a constant feature ``intercept_scaling`` to every point, so that the
            linear and polynomial kernels can learn an offset (the paper's problems are
            homogeneous).
        intercept_scaling : float, default=1.0
        algorithm : {"snkp", "nkp"}, default="snkp"
        max_iter : int, default=20000
            Iteration cap; reaching it emits a :class:`~sklearn.exceptions.ConvergenceWarning`.
        n_components : int or None, default=None
            ``None`` trains on the exact ``n x n`` Gram matrix; an int trains and predicts
            with that many Nystroem features (:func:`kperc.approx_gram_operator`): memory
            ``O(n m)`` instead of ``O(n^2)``, and the separator is certified for the
            approximate kernel. ``random_state`` seeds the choice of landmarks.
        random_state : int, RandomState instance or None, default=None

        Attributes
        ----------
        classes_ : ndarray of shape (2,)
        support_ : ndarray of int
            Indices of training points with ``alpha_i > 0``.
        support_vectors_ : ndarray
            Those training points (with the intercept feature when ``fit_intercept``).
        dual_coef_ : ndarray
            ``alpha_i y_i / sqrt(K(x_i, x_i))`` for the support points.
        n_iter_ : int
            Halting index of the run.
        converged_ : bool
            Whether a separator of the training data was found.
        feature_map_ : sklearn.kernel_approximation.Nystroem or None
            With ``n_components``: the fitted feature map ``z``.
        feature_coef_ : ndarray of shape (n_components,) or None
            With ``n_components``: ``Z^T alpha``, so that ``f(x) = z(x) . Z^T alpha``.
        n_features_in_ : int

        Notes
        -----
        scikit-learn compatibility: with its default parameters the estimator passes every
        check of :func:`sklearn.utils.estimator_checks.check_estimator` (scikit-learn 1.9),
        so the ``expected_failed_checks`` list is empty (with ``gamma="scale"`` the RBF
        kernel separates the checks' data, and SNKP's bound ``2 sqrt(2 log n) / rho`` is
        within ``max_iter``). The checks that cannot apply to some hard-margin
        configurations are returned by :func:`expected_failed_checks`:

        * ``check_classifiers_train`` with ``algorithm="nkp"`` or a linear/polynomial
          kernel: the check's two blobs overlap, so these kernels cannot separate them (and
          NKP needs about ``1/rho^2 = 2.6e6`` iterations with the RBF kernel); the last
          iterate on inseparable data carries no accuracy guarantee.

        * ``check_estimators_dtypes`` with ``kernel="linear"`` (or a homogeneous ``"poly"``,
          ``coef0=0``) and ``fit_intercept=False``: the check's data contain the zero vector,
          where ``K(x, x) = 0`` and the normalised kernel is undefined; fit raises a
          ``ValueError`` that says so.

        On training data that it cannot separate within ``max_iter`` iterations (for
        example a point repeated with both labels) the fit emits a
        :class:`~sklearn.exceptions.ConvergenceWarning` and keeps the last iterate.

        Examples
        --------
        >>> from kperc import SNKPClassifier
    from kperc_book import data
        >>> X, y = data.circles(100, seed=0)
        >>> clf = SNKPClassifier(kernel="rbf", gamma=2.0).fit(X, y)
        >>> bool((clf.predict(X) == y).all())
        True
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
        max_iter=20000,
        n_components=None,
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

    def fit(self, X, y):
        """Fit on training data ``X`` (n_samples, n_features) with two classes ``y``."""
        X, y = validate_data(self, X, y, dtype=np.float64)
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
        if self.algorithm not in ("snkp", "nkp"):
            raise ValueError(f"algorithm must be 'snkp' or 'nkp'; got {self.algorithm!r}.")
        if (
            isinstance(self.max_iter, bool)
            or int(self.max_iter) != self.max_iter
            or self.max_iter <= 0
        ):
            raise ValueError(f"max_iter must be a positive integer; got {self.max_iter!r}.")
        ypm = np.where(y == self.classes_[1], 1.0, -1.0)
        Xa = self._augment(X)
        if self.gamma == "scale":
            var = Xa.var()
            self._gamma = 1.0 / (Xa.shape[1] * var) if var > 0 else 1.0
        elif isinstance(self.gamma, str):
            raise ValueError(f"gamma must be a positive number or 'scale'; got {self.gamma!r}")
        else:
            self._gamma = float(self.gamma)
        params = self._kernel_params()
        diag = kernel_diagonal(Xa, kernel=self.kernel, **params)
        if np.any(~(diag > 0)):
            raise ValueError(
                "K(x_i, x_i) <= 0 for some training point (a zero vector with the linear "
                "kernel); set fit_intercept=True or remove such points."
            )
        s = ypm / np.sqrt(diag)
        # the package's own G: exact for points repeated with the other label
        if self.n_components is None:
            G = gram_matrix(Xa, ypm, self.kernel, **params)
        else:  # Nystroem features: an O(n m) factored operator instead of the n x n matrix
            G = approx_gram_operator(
                Xa,
                ypm,
                self.kernel,
                n_components=self.n_components,
                random_state=self.random_state,
                **params,
            )
            s = ypm / G.feature_norms  # the approximate kernel's normalisation
        run = snkp if self.algorithm == "snkp" else nkp
        res = run(G, max_iter=int(self.max_iter), check_input=False)
        self.n_iter_ = res.nit
        self.converged_ = res.outcome == "separator"
        if not self.converged_:
            warnings.warn(
                f"{self.algorithm.upper()} found no separator of the training data within "
                f"max_iter={self.max_iter} iterations (the data may be inseparable in this "
                "kernel's feature space); the last iterate is used.",
                ConvergenceWarning,
                stacklevel=2,
            )
        alpha = res.alpha
        self.support_ = np.flatnonzero(alpha > 0)
        self.support_vectors_ = Xa[self.support_]
        self.dual_coef_ = (alpha * s)[self.support_]
        # f(x) = (Z^T alpha) . z(x) / ||z(x)|| for Nystroem features z; None when exact
        self.feature_map_ = None if self.n_components is None else G.transformer
        self.feature_coef_ = None if self.n_components is None else G.Z.T @ alpha
        return self

    def decision_function(self, X):
        """Normalised score ``f(x) / sqrt(K(x, x))``; positive means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Xa = self._augment(X)
        if self.feature_map_ is not None:
            F = self.feature_map_.transform(Xa)
            norms = np.linalg.norm(F, axis=1)
            return (F @ self.feature_coef_) / np.where(norms > 0, norms, 1.0)
        Kx = kernel_matrix(Xa, self.support_vectors_, kernel=self.kernel, **self._kernel_params())
        f = Kx @ self.dual_coef_
        kxx = kernel_diagonal(Xa, kernel=self.kernel, **self._kernel_params())
        scale = np.where(kxx > 0, np.sqrt(np.where(kxx > 0, kxx, 1.0)), 1.0)
        return f / scale

    def predict(self, X):
        """Class labels: ``classes_[1]`` where the decision function is positive."""
        scores = self.decision_function(X)  # checks that the model is fitted first
        return self.classes_[(scores > 0).astype(int)]

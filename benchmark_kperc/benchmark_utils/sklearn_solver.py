"""The base of the ``sklearn-*`` solvers: one scikit-learn estimator, refitted from scratch
with a growing iteration budget (benchopt's "iteration" sampling strategy).

``run(n_iter)`` is the timed part: the estimator's ``fit`` with ``max_iter=n_iter`` on the
data as given (``n_iter = 0`` is the zero function, the start of every curve). Every
model here is homogeneous (``fit_intercept=False``) except ``SVC``, which always fits an
intercept; its answer then carries it. A fit that stops at ``max_iter`` warns
(``ConvergenceWarning``); that is what a point of the curve is, so the warning is
silenced.
"""

import warnings

import numpy as np
from benchopt import BaseSolver
from sklearn.exceptions import ConvergenceWarning

from benchmark_utils.stopping import AnswerStable


class SklearnSolver(BaseSolver):
    """Subclasses set ``name``, ``linear_only`` and :meth:`estimator`."""

    requirements = ["pip::scikit-learn"]
    sampling_strategy = "iteration"
    stopping_criterion = AnswerStable(strategy="iteration")
    #: Whether the model is linear in the inputs (skipped on kernel problems).
    linear_only = True

    def skip(self, X, y, kernel, kernel_params):
        if self.linear_only and kernel != "linear":
            return True, f"{self.name} is a linear model (linear kernel only)"
        return False, None

    def set_objective(self, X, y, kernel, kernel_params):
        self.X, self.y, self.kernel, self.kernel_params = X, y, kernel, kernel_params
        self.model = None

    def estimator(self, n_iter):
        """The unfitted estimator with ``max_iter=n_iter``."""
        raise NotImplementedError

    def run(self, n_iter):
        if n_iter == 0:
            self.model = None
            return
        self.model = self.estimator(n_iter)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.model.fit(self.X, self.y)

    def get_result(self):
        if self.model is None:
            return dict(w=np.zeros(self.X.shape[1]))
        return dict(w=self.model.coef_.ravel().copy())

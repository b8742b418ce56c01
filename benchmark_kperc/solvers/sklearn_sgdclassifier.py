from benchmark_utils.sklearn_solver import SklearnSolver
from sklearn.linear_model import SGDClassifier


class Solver(SklearnSolver):
    """scikit-learn's ``SGDClassifier`` with its defaults (hinge loss, ``alpha = 1e-4``, its
    own stopping rule ``tol = 1e-3``), no intercept: ``n_iter`` epochs at most. (Without
    its stopping rule its answer would change at every epoch, and the curve would only end
    at the timeout.)"""

    name = "sklearn-sgdclassifier"
    parameters = {"random_state": [0]}

    def estimator(self, n_iter):
        return SGDClassifier(fit_intercept=False, max_iter=n_iter, random_state=self.random_state)

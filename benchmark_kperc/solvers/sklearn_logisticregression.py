from benchmark_utils.sklearn_solver import SklearnSolver
from sklearn.linear_model import LogisticRegression


class Solver(SklearnSolver):
    """scikit-learn's ``LogisticRegression`` (lbfgs) with a large ``C``, no intercept:
    ``n_iter`` lbfgs iterations at most."""

    name = "sklearn-logisticregression"
    parameters = {"C": [1e6]}

    def estimator(self, n_iter):
        return LogisticRegression(C=self.C, fit_intercept=False, max_iter=n_iter, tol=1e-8)

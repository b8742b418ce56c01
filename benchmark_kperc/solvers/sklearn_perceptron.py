from benchmark_utils.sklearn_solver import SklearnSolver
from sklearn.linear_model import Perceptron


class Solver(SklearnSolver):
    """scikit-learn's ``Perceptron``: ``n_iter`` epochs, no intercept, no early stop (once
    it separates the data it makes no more updates, so its answer stops changing)."""

    name = "sklearn-perceptron"
    parameters = {"random_state": [0]}

    def estimator(self, n_iter):
        return Perceptron(
            fit_intercept=False, max_iter=n_iter, tol=None, random_state=self.random_state
        )

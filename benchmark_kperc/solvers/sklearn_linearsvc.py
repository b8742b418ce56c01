from benchmark_utils.sklearn_solver import SklearnSolver
from sklearn.svm import LinearSVC


class Solver(SklearnSolver):
    """scikit-learn's ``LinearSVC`` with the hinge loss and ``C = 1e6`` (liblinear's dual
    coordinate descent: the hinge loss has no primal solver there), no intercept:
    ``n_iter`` passes at most."""

    name = "sklearn-linearsvc"
    parameters = {"C": [1e6], "random_state": [0]}

    def estimator(self, n_iter):
        return LinearSVC(
            loss="hinge",
            C=self.C,
            dual=True,
            fit_intercept=False,
            tol=1e-5,
            max_iter=n_iter,
            random_state=self.random_state,
        )

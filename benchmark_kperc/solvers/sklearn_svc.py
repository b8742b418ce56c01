import numpy as np
from benchmark_utils.kernels import full_params, kernel_diagonal
from benchmark_utils.sklearn_solver import SklearnSolver
from sklearn.svm import SVC


class Solver(SklearnSolver):
    """scikit-learn's ``SVC`` (libsvm's SMO) with the problem's kernel and ``C = 1e6`` (a
    hard margin): ``n_iter`` SMO steps at most. It fits an intercept ``b``.

    The answer: for the linear kernel ``w`` and ``b``; otherwise the dual weights in kperc's
    form, ``alpha_j = |c_j| sqrt(K(x_j, x_j))`` on the support vectors (``c`` is
    ``dual_coef_``, so that ``f(x) = sum_j c_j K(x_j, x) + b``), and ``b``.
    """

    name = "sklearn-svc"
    linear_only = False
    parameters = {"C": [1e6]}

    def estimator(self, n_iter):
        params = full_params(self.kernel, self.kernel_params, self.X.shape[1])
        return SVC(kernel=self.kernel, C=self.C, max_iter=n_iter, **params)

    def get_result(self):
        if self.model is None:
            return dict(alpha=np.zeros(len(self.y)))
        b = float(self.model.intercept_[0])
        if self.kernel == "linear":
            return dict(w=self.model.coef_.ravel().copy(), intercept=b)
        S = self.model.support_
        diag = kernel_diagonal(self.X[S], self.kernel, self.kernel_params)
        alpha = np.zeros(len(self.y))
        alpha[S] = np.abs(self.model.dual_coef_.ravel()) * np.sqrt(diag)
        return dict(alpha=alpha, intercept=b)

"""The base of the ``kperc-*`` solvers: one call to a kperc algorithm with a growing
iteration cap (benchopt's "iteration" sampling strategy).

``run(n_iter)`` is the timed part, end to end, exactly what a user's call costs: it builds
the Gram matrix (the factored operator :func:`kperc.gram_operator` for the linear kernel,
the dense :func:`kperc.gram_matrix` otherwise) and runs the algorithm with
``max_iter=n_iter``; the answer is its last iterate, a certified separator when it halted
by itself. ``n_iter = 0`` gives the first iterate (its callback stops it there). Once the
algorithm halts before the cap, a larger cap returns the same answer and the curve ends
(:class:`benchmark_utils.stopping.AnswerStable`).

(benchopt's "callback" strategy would follow one run iterate by iterate, but kperc's
callback hands over a fresh copy of ``alpha`` at every iteration: an O(n) cost inside the
timed part that doubles the time of an O(n) NKP iteration on a dense ``G``.)
"""

import numpy as np
from benchopt import BaseSolver

import kperc
from benchmark_utils.stopping import AnswerStable


def _first_iterate(intermediate):
    raise StopIteration


class KpercSolver(BaseSolver):
    """Subclasses set ``name``, ``linear_only`` and :meth:`algorithm`."""

    # kperc comes from the checkout (the README's install line), not from a package index
    requirements = []
    sampling_strategy = "iteration"
    stopping_criterion = AnswerStable(strategy="iteration")
    #: Whether the algorithm takes the data themselves (the perceptrons), not a Gram matrix.
    linear_only = False

    def skip(self, X, y, kernel, kernel_params):
        if self.linear_only and kernel != "linear":
            return True, f"{self.name} runs on the data themselves (linear kernel only)"
        return False, None

    def set_objective(self, X, y, kernel, kernel_params):
        self.X, self.y, self.kernel, self.kernel_params = X, y, kernel, kernel_params
        self.alpha = np.zeros(len(y))

    def gram(self):
        """The normalised signed Gram matrix the algorithm runs on (timed)."""
        if self.kernel == "linear":
            return kperc.gram_operator(self.X, self.y)
        return kperc.gram_matrix(self.X, self.y, self.kernel, **self.kernel_params)

    def algorithm(self, max_iter, callback):
        """Run the algorithm and return its :class:`kperc.KpercResult`."""
        raise NotImplementedError

    def run(self, n_iter):
        if n_iter == 0:
            self.alpha = self.algorithm(1, _first_iterate).alpha
        else:
            self.alpha = self.algorithm(n_iter, None).alpha

    def get_result(self):
        return dict(alpha=self.alpha)

"""The base of the ``kperc-*`` solvers: one kperc algorithm, watched through its callback.

``run(callback)`` is the timed part, end to end: it builds the Gram matrix (the factored
operator :func:`kperc.gram_operator` for the linear kernel, the dense
:func:`kperc.gram_matrix` otherwise) and runs the algorithm with benchopt's callback
wrapped in kperc's: kperc calls it on every iterate before the update, with a copy of
``alpha`` (an O(n) copy per iteration, inside the timed part). When benchopt's callback
says stop, kperc's raises ``StopIteration``. When the algorithm halts by itself (a
certified separator, a certificate or ``max_iter``), benchopt's callback is called once
more on the final iterate where benchopt would not log it, so the curve ends on the answer
the algorithm returned.
"""

import numpy as np
from benchopt import BaseSolver

import kperc
from benchmark_utils.stopping import AnswerStable

#: kperc's iteration cap: high enough that only benchopt's timeout or max-runs stop a run.
MAX_ITER = 10**9


class KpercSolver(BaseSolver):
    """Subclasses set ``name``, ``linear_only`` and :meth:`algorithm`."""

    # kperc comes from the checkout (the README's install line), not from a package index
    requirements = []
    sampling_strategy = "callback"
    stopping_criterion = AnswerStable(strategy="callback")
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

    def algorithm(self, callback):
        """Run the algorithm with ``callback`` and return its :class:`kperc.KpercResult`."""
        raise NotImplementedError

    def run(self, callback):
        calls, logged = 0, False

        def watch(intermediate):
            nonlocal calls, logged
            self.alpha = intermediate.alpha
            before = len(callback.curve)
            go = callback()
            calls, logged = calls + 1, len(callback.curve) > before
            if not go:
                raise StopIteration

        res = self.algorithm(watch)
        self.alpha = res.alpha
        # Halted by itself. benchopt logs the final answer after run() returns, unless its
        # callback was never called (the first iterate passed the exit test) or has just
        # logged the previous iterate: then one more call logs it (its stop_val one too
        # high in the second case, unless benchopt's schedule samples it).
        if res.outcome != "callback" and (calls == 0 or logged):
            callback()

    def get_result(self):
        return dict(alpha=self.alpha)

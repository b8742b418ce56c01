from benchmark_utils.kperc_solver import MAX_ITER, KpercSolver

import kperc


class Solver(KpercSolver):
    """kperc's perceptron (Algorithm 1 of the paper) on the data as given."""

    name = "kperc-perceptron"
    linear_only = True

    def algorithm(self, callback):
        return kperc.perceptron(self.X, self.y, max_iter=MAX_ITER, callback=callback)

from benchmark_utils.kperc_solver import KpercSolver

import kperc


class Solver(KpercSolver):
    """kperc's perceptron (Algorithm 1 of the paper) on the data as given."""

    name = "kperc-perceptron"
    linear_only = True

    def algorithm(self, max_iter, callback):
        return kperc.perceptron(self.X, self.y, max_iter=max_iter, callback=callback)

from benchmark_utils.kperc_solver import KpercSolver

import kperc


class Solver(KpercSolver):
    """kperc's normalised perceptron (Algorithm 2 of the paper), on unit-norm points."""

    name = "kperc-normalized-perceptron"
    linear_only = True

    def algorithm(self, max_iter, callback):
        return kperc.normalized_perceptron(self.X, self.y, max_iter=max_iter, callback=callback)

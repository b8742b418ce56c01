from benchmark_utils.kperc_solver import MAX_ITER, KpercSolver

import kperc


class Solver(KpercSolver):
    """kperc's normalised perceptron (Algorithm 2 of the paper), on unit-norm points."""

    name = "kperc-normalized-perceptron"
    linear_only = True

    def algorithm(self, callback):
        return kperc.normalized_perceptron(self.X, self.y, max_iter=MAX_ITER, callback=callback)

from benchmark_utils.kperc_solver import KpercSolver

import kperc


class Solver(KpercSolver):
    """kperc's smoothed normalised kernel perceptron, SNKP (Algorithm 4 of the paper)."""

    name = "kperc-snkp"

    def algorithm(self, max_iter, callback):
        return kperc.snkp(self.gram(), max_iter=max_iter, check_input=False, callback=callback)

from benchmark_utils.kperc_solver import MAX_ITER, KpercSolver

import kperc


class Solver(KpercSolver):
    """kperc's smoothed normalised kernel perceptron, SNKP (Algorithm 4 of the paper)."""

    name = "kperc-snkp"

    def algorithm(self, callback):
        return kperc.snkp(self.gram(), max_iter=MAX_ITER, check_input=False, callback=callback)

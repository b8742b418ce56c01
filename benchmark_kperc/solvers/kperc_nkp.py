from benchmark_utils.kperc_solver import MAX_ITER, KpercSolver

import kperc


class Solver(KpercSolver):
    """kperc's normalised kernel perceptron, NKP (Algorithm 3 of the paper)."""

    name = "kperc-nkp"

    def algorithm(self, callback):
        return kperc.nkp(self.gram(), max_iter=MAX_ITER, check_input=False, callback=callback)

from benchmark_utils.kperc_solver import KpercSolver

import kperc


class Solver(KpercSolver):
    """kperc's normalised kernel perceptron, NKP (Algorithm 3 of the paper)."""

    name = "kperc-nkp"

    def algorithm(self, max_iter, callback):
        return kperc.nkp(self.gram(), max_iter=max_iter, check_input=False, callback=callback)

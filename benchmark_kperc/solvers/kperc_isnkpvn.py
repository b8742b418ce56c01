from benchmark_utils.kperc_solver import KpercSolver

import kperc


class Solver(KpercSolver):
    """kperc's ISNKPVN (Algorithm 7 of the paper): a separator, or a certificate that no
    separator has a margin above ``eps`` (then ``separated`` is 0)."""

    name = "kperc-isnkpvn"
    parameters = {"eps": [1e-6], "device": ["cpu"]}

    def algorithm(self, max_iter, callback):
        G = self.gram()
        return kperc.isnkpvn(
            G, eps=self.eps, max_iter=max_iter, check_input=False, callback=callback
        )

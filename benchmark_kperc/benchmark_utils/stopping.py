"""When a solver's curve ends: once its answer has stopped changing.

benchopt's default criterion (``SufficientProgressCriterion``) stops a curve after three
evaluations without a new best value. The normalised margin of a perceptron-type
iterate is not monotone (NKP is a subgradient method), so that rule would cut a curve
before the solver reaches a separator. :class:`AnswerStable` stops only when
``patience`` successive evaluations report exactly the same ``separated`` and
``min_margin``: the solver returns the same answer however long it is given (for the
iteration strategy: it has met its own stopping rule). Otherwise the curve ends when
the solver halts by itself (kperc's algorithms stop at a certified separator), at
``--timeout`` or at ``--max-runs``.
"""

from benchopt.stopping_criterion import StoppingCriterion


class AnswerStable(StoppingCriterion):
    """Stop after ``patience`` successive evaluations with the same answer."""

    def __init__(self, patience=3, strategy=None, key_to_monitor="min_margin", minimize=False):
        self.patience = patience
        super().__init__(
            patience=patience, strategy=strategy, key_to_monitor=key_to_monitor, minimize=minimize
        )

    def check_convergence(self, objective_list):
        keys = ("objective_separated", "objective_min_margin")
        last = [tuple(entry[k] for k in keys) for entry in objective_list[-self.patience - 1 :]]
        stop = len(last) == self.patience + 1 and all(v == last[0] for v in last)
        return stop, 1.0 if stop else 0.0

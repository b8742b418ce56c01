"""When a solver's curve ends: once its answer has stopped changing.

Every solver of this benchmark is called from scratch with a growing iteration cap
(benchopt's "iteration" strategy). benchopt's default criterion
(``SufficientProgressCriterion``) ends a curve after three evaluations without a new best
value; the normalised margin of a perceptron-type iterate is not monotone (NKP is a
subgradient method, SMO's iterates misclassify on the way), so that rule would cut a
curve before the solver reaches a separator. :class:`AnswerStable` ends it only after
``patience`` successive evaluations with exactly the same ``separated`` and
``min_margin``: the solver has stopped by itself before the cap (kperc's algorithms at a
certified separator or certificate, scikit-learn's at their own tolerance), and a larger
cap returns the same answer. Otherwise the curve ends at ``--timeout`` or ``--max-runs``.
The comparison is exact on purpose: the calls run in one process with the same data, and
a last-bit difference between two of them (another memory alignment, say) costs only a
longer curve, never a wrong result.
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

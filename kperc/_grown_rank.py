"""The grown-rank fit of :class:`kperc.SNKPClassifier`: SNKP on Nystroem features whose
rank doubles until the separator holds under the exact kernel (:func:`kperc.snkp_nystroem`).

Used with ``n_components="auto"``, the RBF kernel and SNKP stopping at its first
separator, above :data:`kperc._gram_form.AUTO_EXACT_MAX_N` points. It runs SNKP itself,
so its result stands for the algorithm's run (:meth:`GrownNystroem.kperc_result`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _gram_form
from ._approx import NystroemResult, _snkp_nystroem
from ._result import STATUS, KpercResult


class GrownNystroem:
    """The training kernel of a grown Nystroem rank: the last stage's feature map and
    norms, and the SNKP run that chose the rank (``result``)."""

    def __init__(self, result: NystroemResult) -> None:
        self.result = result
        self.transformer = result.transformer
        self.feature_norms = result.feature_norms

    def certificate(self) -> dict[str, Any] | None:
        """The ``tol``-certificate under the exact kernel that stopped the run, in the
        form of the classifier's own certificate watch (``p``, ``bound``, ``nit``)."""
        r = self.result
        if r.p is None:
            return None
        return {"p": r.p, "bound": float(r.norm_p_G), "nit": int(r.nit)}

    def kperc_result(self) -> KpercResult:
        """The run as the other algorithms report it: a separator only when certified
        under the exact kernel; a stop on a certificate as the classifier's watch
        reports one (``"callback"``); otherwise the budget (``max_iter``) ran out."""
        r = self.result
        ok = bool(r.certified)
        how = "separator" if ok else "callback" if r.p is not None else "max_iter"
        return KpercResult(
            outcome=how,
            success=ok,
            status=STATUS[how],
            message=r.message,
            nit=int(r.nit),
            alpha=r.alpha,
            p=None,
            w=None,
            trace=None,
        )


def fit_grown_rank(
    Xa: np.ndarray,
    ypm: np.ndarray,
    *,
    first_rank: int,
    gamma: float,
    max_iter: int,
    tol: float,
    random_state: Any,
    log: Callable[[str], None],
) -> tuple[GrownNystroem, np.ndarray]:
    """Run :func:`kperc.snkp_nystroem` from rank ``first_rank`` up to
    :data:`kperc._gram_form.AUTO_N_MAX`: the grown kernel and the per-point scale
    ``y_i / ||z(x_i)||``. The rank stops growing early, with a message that names the
    exact kernel and a soft-margin method, when its features are predicted to miss
    more than :data:`kperc._approx.MAX_RESIDUAL` of the kernel even at the cap (the
    default ``max_residual`` of :func:`kperc.snkp_nystroem`)."""
    G = GrownNystroem(
        _snkp_nystroem(
            Xa,
            ypm,
            gamma=gamma,
            n_components=first_rank,
            max_components=_gram_form.AUTO_N_MAX,
            max_iter=max_iter,
            tol=tol,
            random_state=random_state,
        )
    )
    for st in G.result.stages:
        log(
            f"Nystroem rank {st['n_components']}: SNKP {st['snkp']} after {st['nit']} "
            f"iterations; {stage_answer(st)}; the features miss {st['residual']:.2g} of the "
            f"kernel ({st['seconds']:.2f} s)"
        )
    return G, ypm / G.feature_norms


def stage_answer(stage: dict[str, Any]) -> str:
    """What one rank of :func:`kperc.snkp_nystroem` established under the exact kernel,
    in words that are true whichever way the stage ended."""
    if stage["certified"]:
        return "its separator is certified under the exact kernel"
    if stage["certificate"]:
        return "its tol-certificate holds under the exact kernel"
    if stage["sampled_out"]:
        return (
            "its tol-certificate of the features was not checked under the exact kernel "
            "(a sampled estimate put it above tol)"
        )
    if stage["screened"]:
        return "its tol-certificate of the features does not hold under the exact kernel"
    return "no separator certified under the exact kernel"

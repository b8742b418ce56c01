"""kperc: margins, kernels and non-linear smoothed perceptrons.

Every algorithm of Ramdas & Pena, *Margins, Kernels and Non-linear Smoothed
Perceptrons* (ICML 2014), with exact margins, the paper's loss functions, seeded data
generators and a scikit-learn classifier. The mathematical reference is PAPER.md; each
docstring names the section it implements.
"""

from ._result import KpercResult
from .classifier import SNKPClassifier
from .kernels import (
    GramOperator,
    gram_matrix,
    gram_operator,
    kernel_matrix,
    signed_normalized_points,
)
from .losses import g_seminorm, loss, smoothed_loss, smoothed_loss_q
from .margins import (
    data_margin,
    dist_to_witness,
    gram_factor,
    linf_margin,
    margin,
    margin_details,
    min_norm_point,
)
from .perceptrons import nkp, normalized_perceptron, perceptron, snkp, winnow
from .primal_dual import isnkpvn, snkpvn
from .smoothing import entropy, entropy_prox, euclidean_prox, project_simplex
from .von_neumann import nvn, von_neumann_linear

__version__ = "0.1.0"


_LAZY = ("data", "book", "sweeps", "experiments", "ledger", "bench", "report", "reproduce")


def __getattr__(name):
    # Submodules that are not needed by the algorithms are imported lazily, so that
    # ``python -m kperc.data`` runs cleanly and ``kperc.book.Chapter`` works after
    # a plain ``import kperc``.
    if name in _LAZY:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'kperc' has no attribute {name!r}")


__all__ = [
    "KpercResult",
    "SNKPClassifier",
    "GramOperator",
    "gram_matrix",
    "gram_operator",
    "kernel_matrix",
    "signed_normalized_points",
    "loss",
    "smoothed_loss",
    "smoothed_loss_q",
    "g_seminorm",
    "margin",
    "margin_details",
    "data_margin",
    "linf_margin",
    "dist_to_witness",
    "gram_factor",
    "min_norm_point",
    "perceptron",
    "normalized_perceptron",
    "nkp",
    "snkp",
    "winnow",
    "nvn",
    "von_neumann_linear",
    "snkpvn",
    "isnkpvn",
    "entropy",
    "entropy_prox",
    "euclidean_prox",
    "project_simplex",
    "data",
]

"""kperc: margins, kernels and non-linear smoothed perceptrons.

Every algorithm of Ramdas & Pena, *Margins, Kernels and Non-linear Smoothed
Perceptrons* (ICML 2014), with exact margins, the paper's loss functions, seeded data
generators (:mod:`kperc.datasets`), a scikit-learn classifier, and the kernel
algorithms written for reading (:mod:`kperc.reference`). Each docstring names
the part of the paper (Section, Algorithm, Lemma, Theorem) it implements.

Sparse data: :func:`gram_operator`, :func:`signed_normalized_points`,
:func:`decision_function` and :func:`predict` (linear kernel) and
``SNKPClassifier(kernel="linear")`` keep a scipy.sparse ``X`` sparse, and the algorithms
run on the sparse factored operator with sparse mat-vecs. Every other function that
takes data ``X`` or a matrix ``G`` densifies a scipy.sparse input, and :func:`margin`,
:func:`margin_details`, :func:`gram_factor` and :func:`dist_to_witness` densify a sparse
factor (they factorise it).
"""

from ._approx import (
    ApproxGramOperator,
    ExactMarginCheck,
    NystroemResult,
    approx_gram_operator,
    exact_margin_check,
    snkp_nystroem,
)
from ._classifier import InseparableDataWarning, SmallMarginWarning, SNKPClassifier
from ._gram import ValidatedGram
from ._gram_matrix import GramOperator, gram_matrix, gram_operator, signed_normalized_points
from ._kernel_columns import KernelGramOperator, kernel_gram_operator
from ._kernel_values import kernel_matrix
from ._losses import g_seminorm, loss, smoothed_loss, smoothed_loss_q
from ._margins import (
    data_margin,
    dist_to_witness,
    gram_factor,
    linf_margin,
    margin,
    margin_details,
    min_norm_point,
)
from ._perceptrons import nkp, normalized_perceptron, perceptron, snkp, winnow
from ._predict import decision_function, predict
from ._primal_dual import isnkpvn, snkpvn
from ._result import KpercResult
from ._separable import SeparabilityResult, is_separable
from ._smoothing import entropy, entropy_prox, euclidean_prox, project_simplex
from ._von_neumann import nvn, von_neumann_linear

__version__ = "0.1.0"


def __getattr__(name):
    # ``kperc.datasets``, ``kperc.sweeps`` and ``kperc.reference`` are public submodules
    # loaded on first use, so that ``import kperc`` stays light.
    if name in ("datasets", "sweeps", "reference"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'kperc' has no attribute {name!r}")


__all__ = [
    "KpercResult",
    "SNKPClassifier",
    "InseparableDataWarning",
    "SmallMarginWarning",
    "GramOperator",
    "ApproxGramOperator",
    "approx_gram_operator",
    "ExactMarginCheck",
    "exact_margin_check",
    "snkp_nystroem",
    "NystroemResult",
    "KernelGramOperator",
    "kernel_gram_operator",
    "gram_matrix",
    "gram_operator",
    "ValidatedGram",
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
    "is_separable",
    "SeparabilityResult",
    "perceptron",
    "normalized_perceptron",
    "nkp",
    "snkp",
    "winnow",
    "nvn",
    "von_neumann_linear",
    "snkpvn",
    "isnkpvn",
    "decision_function",
    "predict",
    "entropy",
    "entropy_prox",
    "euclidean_prox",
    "project_simplex",
    "datasets",
    "sweeps",
    "reference",
]

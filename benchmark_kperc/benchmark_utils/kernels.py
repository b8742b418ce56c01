"""The kernels of kperc (:func:`kperc.kernel_matrix`) spelled out for scikit-learn's SVC,
and their diagonal ``K(x_i, x_i)``."""

import numpy as np


def full_params(kernel, kernel_params, n_features):
    """``kernel_params`` with kperc's defaults filled in: ``gamma = 1 / n_features``, and
    for "poly" ``degree = 3``, ``coef0 = 1`` (scikit-learn's pairwise kernels, which kperc
    computes with; ``SVC``'s own defaults differ)."""
    params = dict(kernel_params)
    if kernel in ("rbf", "poly") and params.get("gamma") is None:
        params["gamma"] = 1.0 / n_features
    if kernel == "poly":
        params.setdefault("degree", 3)
        params.setdefault("coef0", 1.0)
    return params


def kernel_diagonal(X, kernel, kernel_params):
    """``K(x_i, x_i)`` for every row of ``X``."""
    p = full_params(kernel, kernel_params, X.shape[1])
    if kernel == "rbf":
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X)
    if kernel == "linear":
        return sq
    return (p["gamma"] * sq + p["coef0"]) ** p["degree"]

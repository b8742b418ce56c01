"""Classifying new points with the dual weights ``alpha`` of a kernel algorithm.

NKP, SNKP, NVN, SNKPVN and ISNKPVN run on the normalised signed Gram matrix
``G_ij = y_i y_j K(x_i, x_j) / sqrt(K(x_i, x_i) K(x_j, x_j))`` and return weights
``alpha`` with ``G alpha > 0`` when they find a separator (paper Sections 3 and 4). The
separator they stand for is the function

.. math:: f(x) = \\sum_i \\alpha_i y_i \\frac{K(x_i, x)}{\\sqrt{K(x_i, x_i)}},

and ``y_j f(x_j) / sqrt(K(x_j, x_j)) = (G alpha)_j`` on the training points. The two
functions here evaluate it on new points.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse

from ._gram_matrix import _signed_normalized_points, sparse_pow2_rows
from ._kernel_values import _check_diag, _check_kernel_args, _kernel_diagonal, _kernel_values
from ._result import KpercResult
from ._typing import ArrayLike, KernelLike
from ._validation import (
    as_real_array,
    check_sparse_X,
    check_X,
    check_Xy,
    check_Xy_sparse,
    row_norms,
)

__all__ = ["decision_function", "predict"]

#: Kernel values computed at once: new points are scored in blocks of about this many
#: entries of ``K(X_new, X)`` (32 MB), so memory stays ``O(n)`` per block.
_BLOCK_ENTRIES = 1 << 22


def decision_function(
    alpha: KpercResult | ArrayLike,
    X: ArrayLike,
    y: ArrayLike,
    X_new: ArrayLike,
    kernel: KernelLike = "linear",
    **kernel_params: Any,
) -> np.ndarray:
    """Normalised score ``f(x) / sqrt(K(x, x))`` of new points under dual weights ``alpha``.

    ``f(x) = sum_i alpha_i y_i K(x_i, x) / sqrt(K(x_i, x_i))`` is the separator that the
    kernel algorithms (:func:`kperc.nkp`, :func:`kperc.snkp`, :func:`kperc.nvn`,
    :func:`kperc.snkpvn`, :func:`kperc.isnkpvn`) return as ``alpha`` (paper Sections 3
    and 4); it is the score of :meth:`kperc.SNKPClassifier.decision_function`. On the
    training points ``y_j * score_j = (G alpha)_j`` for ``G = gram_matrix(X, y, kernel,
    **kernel_params)``, up to the rounding of the kernel values.

    Parameters
    ----------
    alpha : KpercResult or array_like of shape (n_samples,)
        A result of a kernel algorithm (its ``alpha`` is used) or the weights
        themselves: non-negative, not all zero. They must come from the ``G`` of the
        same ``X``, ``y``, ``kernel`` and ``kernel_params`` (:func:`kperc.gram_matrix`,
        :func:`kperc.gram_operator` or :func:`kperc.kernel_gram_operator`); weights
        trained on Nystroem or random features (:func:`kperc.approx_gram_operator`)
        belong to that approximate kernel, not to this one.
    X : array_like or scipy.sparse matrix of shape (n_samples, n_features)
        The training points.
    y : array_like of shape (n_samples,)
        The training labels, -1 and +1.
    X_new : array_like or scipy.sparse matrix of shape (n_new, n_features)
        The points to score.
    kernel : {"linear", "poly", "rbf"} or callable, default="linear"
        See :func:`kperc.kernel_matrix`.
    **kernel_params
        ``gamma``, ``degree``, ``coef0``, as given to :func:`kperc.gram_matrix`.

    Returns
    -------
    ndarray of shape (n_new,)
        Positive values are predicted +1, others -1 (:func:`kperc.predict`). A point
        with ``K(x, x) = 0`` (``x = 0`` with the linear kernel) scores 0.

    Raises
    ------
    ValueError
        For bad data (naming ``X``, ``y`` or ``X_new``: NaN or inf, wrong dimensions,
        mismatched lengths or numbers of features), an ``alpha`` that does not have one
        finite entry per training point, has a negative entry or is all zero (the
        algorithms' weights are non-negative and not all zero), a result without
        ``alpha`` (the linear-form algorithms return ``w`` instead), or bad kernel
        parameters.
    TypeError
        For complex or non-numeric ``X``, ``y``, ``X_new`` or ``alpha``.

    Notes
    -----
    With the linear kernel the weights are folded into one vector
    ``w = sum_i alpha_i y_i x_i / ||x_i||`` (each point ``O(d)``), and scipy.sparse
    ``X`` and ``X_new`` stay sparse. With the other kernels ``K(X_new, X)`` is computed
    in blocks of new points (about 32 MB each), and sparse input is densified.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> from kperc.datasets import circles
    >>> X, y = circles(60, seed=0)
    >>> res = kperc.snkp(kperc.gram_matrix(X, y, "rbf", gamma=2.0))
    >>> res.outcome
    'separator'
    >>> scores = kperc.decision_function(res, X, y, X, kernel="rbf", gamma=2.0)
    >>> bool(np.all(y * scores > 0))
    True
    >>> new = [[0.0, 0.0], [2.0, 0.0]]  # the inner circle's centre, a point far outside
    >>> np.sign(kperc.decision_function(res, X, y, new, "rbf", gamma=2.0)).tolist()
    [1.0, -1.0]
    """
    Xt: Any  # the checked training points: an ndarray, or a CSR matrix (linear kernel)
    Xn: Any
    if isinstance(kernel, str) and kernel == "linear":
        Xt, yt = check_Xy_sparse(X, y)
        sparse_new = scipy.sparse.issparse(X_new)
        Xn = check_sparse_X(X_new, "X_new") if sparse_new else check_X(X_new, "X_new")
    else:
        Xt, yt = check_Xy(X, y)
        Xn = check_X(X_new, "X_new")
    if Xn.shape[1] != Xt.shape[1]:
        raise ValueError(
            f"X_new has {Xn.shape[1]} features but X has {Xt.shape[1]}; the new points must "
            "have the training points' features."
        )
    kernel_params = _check_kernel_args(kernel, kernel_params, Xt)  # "scale": the training X
    a = _check_alpha(alpha, Xt.shape[0])
    if isinstance(kernel, str) and kernel == "linear":
        w = np.asarray(_signed_normalized_points(Xt, yt).T @ a).reshape(-1)
        return np.asarray(_unit_rows(Xn) @ w).reshape(-1)
    diag = _kernel_diagonal(Xt, kernel, kernel_params)
    _check_diag(diag)
    coef = a * yt / np.sqrt(diag)
    scores = np.empty(Xn.shape[0])
    block = max(1, _BLOCK_ENTRIES // Xt.shape[0])
    for start in range(0, Xn.shape[0], block):
        part = Xn[start : start + block]
        f = _kernel_values(part, Xt, kernel, kernel_params) @ coef
        kxx = _kernel_diagonal(part, kernel, kernel_params)
        scores[start : start + block] = np.where(
            kxx > 0, f / np.sqrt(np.where(kxx > 0, kxx, 1.0)), 0.0
        )
    return scores


def predict(
    alpha: KpercResult | ArrayLike,
    X: ArrayLike,
    y: ArrayLike,
    X_new: ArrayLike,
    kernel: KernelLike = "linear",
    **kernel_params: Any,
) -> np.ndarray:
    """Labels -1/+1 of new points under dual weights ``alpha``: the sign of
    :func:`kperc.decision_function`.

    Parameters
    ----------
    alpha : KpercResult or array_like of shape (n_samples,)
        A result of a kernel algorithm, or its ``alpha``; see
        :func:`kperc.decision_function`.
    X : array_like or scipy.sparse matrix of shape (n_samples, n_features)
        The training points.
    y : array_like of shape (n_samples,)
        The training labels, -1 and +1.
    X_new : array_like or scipy.sparse matrix of shape (n_new, n_features)
        The points to classify.
    kernel : {"linear", "poly", "rbf"} or callable, default="linear"
        See :func:`kperc.kernel_matrix`.
    **kernel_params
        ``gamma``, ``degree``, ``coef0``, as given to :func:`kperc.gram_matrix`.

    Returns
    -------
    ndarray of shape (n_new,)
        ``+1.0`` where the score is positive, ``-1.0`` elsewhere (a score of exactly 0
        gets -1, as in scikit-learn's linear classifiers). When ``alpha`` is a
        separator (``G alpha > 0``), every training point gets its own label unless
        its margin is as small as the rounding of the kernel values.

    Raises
    ------
    ValueError, TypeError
        As :func:`kperc.decision_function`.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(50, 4, rho=0.1, seed=0)
    >>> res = kperc.nkp(kperc.gram_matrix(X, y))
    >>> res.outcome, bool(np.all(kperc.predict(res, X, y, X) == y))
    ('separator', True)
    >>> kperc.predict(res.alpha, X, y, -X[:3]).tolist() == (-y[:3]).tolist()
    True
    """
    scores = decision_function(alpha, X, y, X_new, kernel, **kernel_params)
    return np.where(scores > 0, 1.0, -1.0)


def _check_alpha(alpha, n: int) -> np.ndarray:
    """The weights of a result or an array: real, finite, one per training point."""
    if isinstance(alpha, Mapping) and not isinstance(alpha, np.ndarray):
        if alpha.get("alpha") is None:
            hint = (
                " (a linear-form algorithm's result holds the weight vector w over the "
                "features of its normalised points: classify with np.sign(X_new @ res.w))"
                if alpha.get("w") is not None
                else ""
            )
            raise ValueError(f"alpha: the result has no dual weights alpha{hint}.")
        alpha = alpha["alpha"]
    a = as_real_array(alpha, "alpha")
    if a.ndim != 1 or a.shape[0] != n:
        raise ValueError(
            f"alpha must have shape ({n},), one weight per row of X (the training points "
            f"of its Gram matrix); got shape {a.shape}."
        )
    if not np.all(np.isfinite(a)):
        raise ValueError("alpha contains NaN or inf.")
    neg = np.flatnonzero(a < 0)
    if neg.size:
        raise ValueError(
            f"alpha must be non-negative (the algorithms' dual weights are); got "
            f"alpha[{neg[0]}] = {a[neg[0]]:.3g} ({neg.size} negative entries)."
        )
    if not np.any(a > 0):
        raise ValueError(
            "alpha is all zero: it stands for the zero function, which separates nothing "
            "(every point would score 0)."
        )
    return a


def _unit_rows(X):
    """The rows of ``X`` divided by their norms (zero rows stay zero), computed as
    :func:`kperc.signed_normalized_points` computes them: the same values on the
    training points, without overflow for entries of size 1e+-300."""
    if scipy.sparse.issparse(X):
        Xs, rows, norms = sparse_pow2_rows(X)
        Xs.data = Xs.data / np.where(norms > 0, norms, 1.0)[rows]
        return Xs
    amax = np.max(np.abs(X), axis=1)
    Xs = np.ldexp(X, -np.frexp(np.where(amax > 0, amax, 1.0))[1][:, None])
    norms = row_norms(Xs)
    return Xs / np.where(norms > 0, norms, 1.0)[:, None]

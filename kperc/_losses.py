"""The paper's loss functions in coefficient space (paper Sections 3, 4 and 6).

* ``L(alpha) = -min_i (G alpha)_i + ||alpha||_G^2 / 2`` (eq. (9)),
* ``L_mu(alpha) = mu log(mean_i exp(-(G alpha)_i / mu)) + ||alpha||_G^2 / 2`` (entropy
  prox, Section 4), and
* ``L^q_mu(alpha) = -<G alpha, p> - mu ||p - q||^2 / 2 + ||alpha||_G^2 / 2`` with
  ``p = p^q_mu(alpha)`` (Euclidean prox, Section 6).

Each accepts ``G`` (dense or :class:`~scipy.sparse.linalg.LinearOperator`) and
``alpha``; pass ``Galpha=G @ alpha`` to skip the product when it is already known.
The entropy-smoothed loss uses a shifted log-mean-exp
(:func:`kperc._smoothing.log_mean_exp`), so it stays finite as ``mu -> 0`` and converges
to ``L``.
"""

from __future__ import annotations

import numpy as np

from ._kernels import as_gram
from ._smoothing import _check_simplex_point, euclidean_prox, log_mean_exp
from ._typing import ArrayLike, GramLike
from ._validation import check_positive, check_vector, pow2_scale

__all__ = ["loss", "smoothed_loss", "smoothed_loss_q", "g_seminorm"]


def _prep(
    G: GramLike, alpha: ArrayLike, Galpha: ArrayLike | None
) -> tuple[np.ndarray, np.ndarray, float]:
    """``alpha`` and ``G alpha`` as checked vectors, and ``alpha^T G alpha`` clamped at 0."""
    if Galpha is None:
        gram = as_gram(G, check_psd=False)
        a = check_vector(alpha, "alpha", gram.n)
        ga = np.asarray(gram.matvec(a))
    else:
        a = check_vector(alpha, "alpha")
        ga = check_vector(Galpha, "Galpha", a.size)
    return a, ga, max(float(a @ ga), 0.0)


def g_seminorm(G: GramLike, v: ArrayLike) -> float:
    """``||v||_G = sqrt(v^T G v)``, clamped at 0 against round-off (paper Section 2).

    Examples
    --------
    >>> import numpy as np, kperc
    >>> G = np.array([[1.0, 0.6], [0.6, 1.0]])  # two points at 53 degrees
    >>> round(kperc.g_seminorm(G, [0.5, 0.5]), 4)
    0.8944
    >>> kperc.g_seminorm(np.array([[1.0, -1.0], [-1.0, 1.0]]), [0.5, 0.5])
    0.0
    """
    gram = as_gram(G, check_psd=False)
    v = check_vector(v, "v", gram.n)
    top = float(np.max(np.abs(v)))
    if top == 0.0:
        return 0.0
    # homogeneous: computed for v / s, s a power of two (exact), so that v of size 1e+-300
    # neither overflows nor underflows in v^T G v
    s = pow2_scale(top)
    value = float(gram.seminorm(v / s)) * s
    if not np.isfinite(value):
        raise ValueError(
            f"||v||_G overflows float64 for this v (entries up to {top:.3g}); ||c v||_G = "
            "c ||v||_G: compute it for a scaled v."
        )
    return value


def loss(G: GramLike, alpha: ArrayLike, *, Galpha: ArrayLike | None = None) -> float:
    """Regularised normalised hard-margin loss ``L(alpha)`` of eq. (9).

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator
        Normalised signed Gram matrix.
    alpha : ndarray of shape (n,)
        Coefficients.
    Galpha : ndarray of shape (n,), optional
        ``G @ alpha`` if already computed.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, kperc
    >>> G = np.array([[1.0, 0.6], [0.6, 1.0]])  # two points at 53 degrees
    >>> round(kperc.loss(G, [0.5, 0.5]), 4)
    -0.4
    """
    _, Ga, sq = _prep(G, alpha, Galpha)  # Ga = G alpha, checked
    return float(-Ga.min() + 0.5 * sq)


def smoothed_loss(
    G: GramLike, alpha: ArrayLike, mu: float, *, Galpha: ArrayLike | None = None
) -> float:
    """Entropy-smoothed loss ``L_mu(alpha)`` (paper Section 4).

    ``L_mu(alpha) = mu * log(mean(exp(-G alpha / mu))) + alpha^T G alpha / 2``; it obeys
    ``L - mu log n <= L_mu <= L`` (Lemma 4).

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator
    alpha : ndarray of shape (n,)
    mu : float
        Finite and ``> 0``. (As ``mu -> inf`` the loss tends to
        ``-mean(G alpha) + ||alpha||_G^2 / 2``; ``mu = inf`` itself is refused, like any
        non-finite smoothing parameter.)
    Galpha : ndarray of shape (n,), optional

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, kperc
    >>> G = np.array([[1.0, 0.6], [0.6, 1.0]])  # two points at 53 degrees
    >>> a = np.array([0.5, 0.5])
    >>> Lmu = kperc.smoothed_loss(G, a, mu=0.1)
    >>> round(Lmu, 4), kperc.loss(G, a) - 0.1 * np.log(2) <= Lmu <= kperc.loss(G, a)
    (-0.4, True)
    """
    mu = check_positive(mu, "mu")
    _, Ga, sq = _prep(G, alpha, Galpha)  # Ga = G alpha, checked
    with np.errstate(over="ignore"):
        z = -Ga / mu
    if not np.all(np.isfinite(z)):  # mu so small that the exponents overflow: the limit
        return float(-Ga.min() + 0.5 * sq)  # L_mu -> L; the error is below mu log n
    return float(mu * log_mean_exp(z) + 0.5 * sq)


def smoothed_loss_q(
    G: GramLike, alpha: ArrayLike, mu: float, q: ArrayLike, *, Galpha: ArrayLike | None = None
) -> float:
    """Euclidean-prox smoothed loss ``L^q_mu(alpha)`` (paper Section 6).

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator
    alpha : ndarray of shape (n,)
    mu : float
        Finite and ``> 0``.
    q : ndarray of shape (n,)
        Prox centre in the simplex.
    Galpha : ndarray of shape (n,), optional

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, kperc
    >>> G = np.array([[1.0, 0.6], [0.6, 1.0]])  # two points at 53 degrees
    >>> q = np.array([0.5, 0.5])
    >>> round(kperc.smoothed_loss_q(G, q, mu=0.1, q=q), 4)
    -0.4
    """
    mu = check_positive(mu, "mu")
    _, Ga, sq = _prep(G, alpha, Galpha)  # Ga = G alpha, checked
    q = _check_simplex_point(q, "q", Ga.size)
    pbar = euclidean_prox(Ga, mu, q)
    diff = pbar - q
    return float(-(Ga @ pbar) - 0.5 * mu * (diff @ diff) + 0.5 * sq)

"""The paper's loss functions in coefficient space (paper Sections 3, 4 and 6).

* ``L(alpha) = -min_i (G alpha)_i + ||alpha||_G^2 / 2`` (eq. (9)),
* ``L_mu(alpha) = mu log(mean_i exp(-(G alpha)_i / mu)) + ||alpha||_G^2 / 2`` (entropy
  prox, Section 4), and
* ``L^q_mu(alpha) = -<G alpha, p> - mu ||p - q||^2 / 2 + ||alpha||_G^2 / 2`` with
  ``p = p^q_mu(alpha)`` (Euclidean prox, Section 6).

Each accepts ``G`` (dense or :class:`~scipy.sparse.linalg.LinearOperator`) and
``alpha``; pass ``Galpha=G @ alpha`` to skip the product when it is already known (``G``
is then neither read nor checked). ``G`` is validated as the algorithms validate it,
positive semidefiniteness included, so a matrix they refuse is refused here too.
The entropy-smoothed loss uses a shifted log-mean-exp
(:func:`kperc._smoothing.log_mean_exp`), so it stays finite as ``mu -> 0`` and converges
to ``L``. When ``alpha`` is so large that ``G alpha`` or ``alpha^T G alpha`` overflows,
the losses are recomputed from ``alpha`` divided by a power of two: the value is returned
when it is representable, and a :class:`ValueError` says so when it is not.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._gram import as_gram
from ._smoothing import _check_simplex_point, euclidean_prox, log_mean_exp
from ._typing import ArrayLike, GramLike
from ._validation import check_positive, check_vector, pow2_scale

__all__ = ["loss", "smoothed_loss", "smoothed_loss_q", "g_seminorm"]


def _prep(
    G: GramLike, alpha: ArrayLike, Galpha: ArrayLike | None
) -> tuple[np.ndarray, np.ndarray, float, Any]:
    """``alpha`` and ``G alpha`` as checked vectors, ``alpha^T G alpha`` clamped at 0 (any
    of them may have overflowed to inf), and the validated ``G`` (None with ``Galpha``)."""
    if Galpha is None:
        gram = as_gram(G)  # as the algorithms validate it: PSD included
        a = check_vector(alpha, "alpha", gram.n)
        with np.errstate(over="ignore", invalid="ignore"):
            ga = np.asarray(gram.matvec(a))
    else:
        gram = None
        a = check_vector(alpha, "alpha")
        ga = check_vector(Galpha, "Galpha", a.size)
    with np.errstate(over="ignore", invalid="ignore"):
        sq = float(a @ ga)
    return a, ga, (sq if not sq < 0 else 0.0), gram


def _scaled_prep(
    a: np.ndarray, Galpha: ArrayLike | None, gram: Any
) -> tuple[np.ndarray, int, float, int]:
    """``G alpha = g 2^eg`` and ``alpha^T G alpha = q 2^eq`` (``q >= 0``) with ``g``, ``q``
    finite: the products of ``alpha / 2^ea`` (exact), for an ``alpha`` whose plain products
    overflow."""
    ea = math.frexp(float(np.max(np.abs(a))))[1]
    a_s = np.ldexp(a, -ea)
    if gram is not None:
        g, eg = np.asarray(gram.matvec(a_s)), ea  # |g| <= ||a_s||_1 for a valid G
    else:
        ga = np.asarray(Galpha, dtype=np.float64)
        top = float(np.max(np.abs(ga)))
        eg = math.frexp(top)[1] if top > 0 else 0
        g = np.ldexp(ga, -eg)
    return g, eg, max(float(a_s @ g), 0.0), ea + eg


def _combine(t1: float, e1: int, t2: float, e2: int, what: str) -> float:
    """``t1 2^e1 + t2 2^e2`` as a float, or a ValueError when it overflows."""
    f1, x1 = math.frexp(t1)
    f2, x2 = math.frexp(t2)
    x1, x2 = x1 + e1, x2 + e2
    top = max(x for f, x in ((f1, x1), (f2, x2)) if f != 0) if (f1 or f2) else 0
    inner = math.ldexp(f1, x1 - top) + math.ldexp(f2, x2 - top)
    try:
        return math.ldexp(inner, top)
    except OverflowError:
        raise ValueError(
            f"the {what} overflows float64 for this alpha (about 2^{top} in size): it is "
            "not representable; the losses grow as alpha^T G alpha, so rescale alpha."
        ) from None


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
    gram = as_gram(G)  # as the algorithms validate it: PSD included
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
    a, Ga, sq, gram = _prep(G, alpha, Galpha)  # Ga = G alpha, checked
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(-Ga.min() + 0.5 * sq)
    if np.isfinite(value):
        return value
    g, eg, q, eq = _scaled_prep(a, Galpha, gram)  # overflowed: from scaled alpha
    return _combine(-float(g.min()), eg, 0.5 * q, eq, "loss")


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
    a, Ga, sq, gram = _prep(G, alpha, Galpha)  # Ga = G alpha, checked
    with np.errstate(over="ignore", invalid="ignore"):
        if np.all(np.isfinite(Ga)) and np.isfinite(sq):
            value = _entropy_term(Ga, mu) + 0.5 * sq
            if np.isfinite(value):
                return float(value)
    # an overflow: the same from alpha / 2^ea, L_mu = 2^eg t(g, mu 2^-eg) + q 2^eq / 2
    g, eg, q, eq = _scaled_prep(a, Galpha, gram)
    with np.errstate(over="ignore", under="ignore"):
        nu = float(np.ldexp(mu, -eg))
    return _combine(_entropy_term(g, nu), eg, 0.5 * q, eq, "smoothed loss")


def _entropy_term(Ga: np.ndarray, mu: float) -> float:
    """``mu log(mean(exp(-Ga / mu)))`` for finite ``Ga``, and its limits: ``-min(Ga)``
    when ``-Ga / mu`` overflows or ``mu`` underflowed to 0 (the error is below
    ``mu log n``), ``-mean(Ga)`` when ``mu`` overflowed to inf."""
    if mu == np.inf:
        return -float(np.mean(Ga))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        z = -Ga / mu
    if mu == 0 or not np.all(np.isfinite(z)):  # mu so small: the limit L_mu -> L
        return -float(Ga.min())
    return float(mu * log_mean_exp(z))


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
    a, Ga, sq, _ = _prep(G, alpha, Galpha)  # Ga = G alpha, checked
    q = _check_simplex_point(q, "q", Ga.size)
    if not (np.all(np.isfinite(Ga)) and np.isfinite(sq)):
        raise ValueError(
            "G alpha or alpha^T G alpha overflows float64 for this alpha (entries up to "
            f"{float(np.max(np.abs(a))):.3g}); rescale alpha."
        )
    pbar = euclidean_prox(Ga, mu, q)
    diff = pbar - q
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(-(Ga @ pbar) - 0.5 * mu * (diff @ diff) + 0.5 * sq)
    if not np.isfinite(value):
        raise ValueError(
            "the smoothed loss overflows float64 for this alpha and mu: it is not "
            "representable; rescale alpha (or mu)."
        )
    return value

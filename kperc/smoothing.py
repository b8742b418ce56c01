"""Prox-functions and smoothed minimisers over the simplex (paper Sections 4 and 6).

Two prox-functions appear in the paper:

* the entropy ``d(p) = sum_i p_i log p_i + log n``, 1-strongly convex in the l1 norm,
  whose smoothed minimiser is a softmax (eq. (12)); and
* the Euclidean ``d_q(p) = ||p - q||^2 / 2``, whose smoothed minimiser is a Euclidean
  projection onto the simplex.

Both are evaluated stably: the softmax through :func:`scipy.special.softmax`
(log-sum-exp shifted), so that ``mu -> 0`` never overflows.
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

__all__ = [
    "entropy",
    "entropy_prox",
    "euclidean_prox",
    "project_simplex",
    "simplex_max_prox_q",
]


def entropy(p: np.ndarray) -> float:
    """The entropy prox-function ``d(p) = sum p_i log p_i + log n`` (0 at ``1/n``).

    Parameters
    ----------
    p : ndarray of shape (n,)
        A point of the simplex.

    Returns
    -------
    float
        A value in ``[0, log n]``.
    """
    p = np.asarray(p, dtype=np.float64)
    pos = p[p > 0]
    return float(np.sum(pos * np.log(pos)) + np.log(p.size))


def entropy_prox(Galpha: np.ndarray, mu: float) -> np.ndarray:
    """Smoothed worst-point distribution ``p_mu(alpha)`` of eq. (12).

    ``argmin_{p in simplex} <G alpha, p> + mu d(p) = softmax(-G alpha / mu)``.

    Parameters
    ----------
    Galpha : ndarray of shape (n,)
        The vector ``G @ alpha``.
    mu : float
        Smoothing parameter, ``mu > 0``.

    Returns
    -------
    ndarray of shape (n,)
        A point of the simplex. Stable for any ``mu > 0`` (no overflow, no ``0/0``).
    """
    return softmax(-np.asarray(Galpha, dtype=np.float64) / mu)


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of ``v`` onto the probability simplex.

    Uses the sort-based rule: ``max(v - tau, 0)`` with ``tau`` chosen so that the result
    sums to one (paper Section 6).

    Parameters
    ----------
    v : ndarray of shape (n,)

    Returns
    -------
    ndarray of shape (n,)
    """
    v = np.asarray(v, dtype=np.float64)
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    idx = np.arange(1, v.size + 1)
    cond = u - css / idx > 0
    r = idx[cond][-1]
    tau = css[r - 1] / r
    return np.maximum(v - tau, 0.0)


def euclidean_prox(Galpha: np.ndarray, mu: float, q: np.ndarray) -> np.ndarray:
    """Smoothed minimiser ``p^q_mu(alpha) = Proj_simplex(q - G alpha / mu)`` (Section 6).

    Parameters
    ----------
    Galpha : ndarray of shape (n,)
        The vector ``G @ alpha``.
    mu : float
        Smoothing parameter, ``mu > 0``.
    q : ndarray of shape (n,)
        Prox centre, a point of the simplex.

    Returns
    -------
    ndarray of shape (n,)
    """
    return project_simplex(q - np.asarray(Galpha, dtype=np.float64) / mu)


def simplex_max_prox_q(q: np.ndarray) -> float:
    """``max_{p in simplex} ||p - q||^2 / 2 = (1 + ||q||^2 - 2 min_i q_i) / 2 <= 1``."""
    q = np.asarray(q, dtype=np.float64)
    return 0.5 * (1.0 + float(q @ q) - 2.0 * float(q.min()))

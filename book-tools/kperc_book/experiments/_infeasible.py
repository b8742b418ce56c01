"""Instances and bounds that Chapters 5 and 6 both use (infeasible problems).

Chapter 6 (the primal-dual methods) runs on the infeasible families Chapter 5 builds and
compares against Chapter 5's Von Neumann bounds; both import them from here, so that no
chapter module imports another.
"""

from __future__ import annotations

import math

import numpy as np

from kperc_book import data

__all__ = ["edge_instance", "dantzig_bound", "ef_dual_bound"]


def edge_instance(n: int = 40, d: int = 2, *, seed: int = 0) -> data.Dataset:
    """Inseparable data with margin exactly 0 and a single known witness.

    The signed normalised points are an antipodal pair ``+-e_1`` and ``n - 2`` points in
    the open upper half-sphere ``{a : a_d > 0}`` (at height at least 0.05). The origin is
    the midpoint of the pair, so the problem is infeasible, and the hyperplane
    ``a_d = 0`` supports the hull at the origin, so no ball around 0 fits inside it:
    ``rho = 0``. A witness ``p`` must put zero weight on every point with ``a_d > 0``,
    hence ``W = {(e_i + e_j) / 2}`` for the pair ``(i, j)``.

    Returns
    -------
    Dataset
        ``info`` has ``rho`` (0.0), ``pair`` (the indices ``i, j``) and ``witness``.
    """
    if n < 3 or d < 2:
        raise ValueError(f"edge_instance needs n >= 3 and d >= 2; got n={n}, d={d}.")
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((n - 2, d))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    g[:, -1] = np.abs(g[:, -1])
    low = g[:, -1] < 0.05
    while low.any():  # keep every other point clearly above the equator
        h = rng.standard_normal((int(low.sum()), d))
        h /= np.linalg.norm(h, axis=1, keepdims=True)
        h[:, -1] = np.abs(h[:, -1])
        g[low] = h
        low = g[:, -1] < 0.05
    e1 = np.zeros(d)
    e1[0] = 1.0
    A = np.vstack([e1, -e1, g])
    perm = rng.permutation(n)
    A = A[perm]
    y = np.where(rng.uniform(size=n) < 0.5, 1.0, -1.0)
    X = A * y[:, None]
    pair = np.sort(np.flatnonzero(perm < 2))
    w = np.zeros(n)
    w[pair] = 0.5
    return data.Dataset(X, y, {"rho": 0.0, "pair": pair, "witness": w})


def dantzig_bound(eps: float) -> int:
    """Dantzig: without a primal exit, NVN halts within ``ceil(1/eps^2) - 1`` steps."""
    return int(math.ceil(1.0 / eps**2)) - 1


def ef_dual_bound(rho: float, eps: float, norm_w0: float) -> int:
    """Epelman-Freund, dual side: ``ceil(2 ln(||w_0|| / eps) / (-ln(1 - rho^2)))``."""
    if norm_w0 <= eps:
        return 0
    return int(math.ceil(2.0 * math.log(norm_w0 / eps) / (-math.log1p(-rho * rho))))

"""The generated problems of the chapters, each a :class:`kperc.datasets.Dataset`.

A problem is a :class:`~kperc.datasets.Dataset` everywhere in the book: its points and
labels, its kernel (``kernel``, ``kernel_params``; :meth:`~kperc.datasets.Dataset.gram`
builds its Gram matrix) and what is known exactly in ``info`` (``rho``, the margin,
always; ``witness`` when the witness set is one known point). A function that builds one
is named ``<what>_problem``, or ``make_problem`` when an argument chooses the kind.
Stored problems come from :func:`kperc_book.data.problem`. Several chapters draw the same
families, so they live here and no chapter module imports another.

* :func:`make_problem`: the linear problems of Chapters 5 and 6 (``"planted"``,
  ``"cap"``, ``"edge"``, ``"gauss"``), with :func:`edge_problem` (margin exactly 0).
* :func:`separable_problem` and :func:`inseparable_problem`: the seeded problems of the
  kernel checks of Chapters 3 and 4 (:data:`KERNELS`).
"""

from __future__ import annotations

import numpy as np

import kperc
from kperc_book import data

__all__ = [
    "KERNELS",
    "make_problem",
    "edge_problem",
    "separable_problem",
    "inseparable_problem",
]

#: The three kernels of Chapter 3's checks.
KERNELS = ("linear", "poly", "rbf")


def make_problem(kind: str, n: int, d: int, rho: float, seed: int) -> data.Dataset:
    """A linear problem: ``"planted"`` (separable, margin ``rho``), ``"cap"``
    (inseparable, margin ``rho < 0`` via :func:`kperc.datasets.infeasible`, exact for
    ``d <= 6``), ``"edge"`` (margin 0 and a single witness, :func:`edge_problem`) or
    ``"gauss"`` (Gaussian points, random labels; either side of the alternative).

    ``info["rho"]`` holds the exact normalised margin (``nan`` for ``"gauss"``) and, for
    ``"edge"``, ``info["witness"]`` the one point of the witness set.
    """
    if kind == "planted":
        return data.planted(n, d, rho, near=0.5, seed=seed)
    if kind == "cap":
        return data.infeasible(n, d, rho, seed=seed)
    if kind == "edge":
        return edge_problem(n, d, seed=seed)
    if kind == "gauss":
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((n, d))
        y = np.where(rng.uniform(size=n) < 0.5, 1.0, -1.0)
        return data.Dataset(X, y, {"rho": float("nan")})
    raise ValueError(f"unknown problem kind {kind!r}; choose 'planted', 'cap', 'edge' or 'gauss'")


def edge_problem(n: int = 40, d: int = 2, *, seed: int = 0) -> data.Dataset:
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
        raise ValueError(f"edge_problem needs n >= 3 and d >= 2; got n={n}, d={d}.")
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


def separable_problem(
    kernel: str, seed: int, *, n: int | None = None, min_rho: float = 0.02
) -> data.Dataset:
    """A seeded separable problem for one kernel.

    * ``"linear"``: :func:`kperc.datasets.planted` in ``R^5`` with a log-uniform planted
      margin in ``[0.05, 0.5]`` and raw norms in ``[0.5, 2]``.
    * ``"poly"`` and ``"rbf"``: points uniform in ``[-1, 1]^2`` labelled by a circle of
      random radius, with a gap around the circle (a degree-2 polynomial kernel separates
      them; the RBF kernel separates any distinct points). The seed is advanced until
      ``rho_K >= min_rho``, so that NKP's ``1/rho_K^2`` stays small.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf"}
    seed : int
    n : int, optional
        Number of points; random in ``[20, 60]`` by default.
    min_rho : float
        Smallest accepted margin for the polynomial and RBF problems.

    Returns
    -------
    Dataset
        With ``kernel`` and ``kernel_params``; ``info`` has ``rho`` (``kperc.margin`` of
        the Gram matrix), ``seed`` and, for the linear kernel, ``rho_planted``.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}; got {kernel!r}")
    rng = np.random.default_rng([3, seed, KERNELS.index(kernel)])
    n = int(rng.integers(20, 61)) if n is None else int(n)
    if kernel == "linear":
        rho = float(np.exp(rng.uniform(np.log(0.05), np.log(0.5))))
        ds = data.planted(
            n,
            5,
            rho,
            near=float(rng.uniform(0.2, 0.9)),
            norm_range=(0.5, 2.0),
            seed=int(rng.integers(2**31)),
        )
        G = kperc.gram_matrix(ds.X, ds.y)
        info = {"rho": kperc.margin(G), "rho_planted": rho, "seed": seed}
        return data.Dataset(ds.X, ds.y, info)
    for _ in range(100):
        X = rng.uniform(-1.0, 1.0, (6 * n, 2))
        radius2 = float(rng.uniform(0.3, 0.7))
        r2 = np.sum(X**2, axis=1)
        X = X[np.abs(r2 - radius2) > 0.1][:n]
        if X.shape[0] < n:
            continue
        y = np.where(np.sum(X**2, axis=1) < radius2, 1.0, -1.0)
        if abs(y.sum()) == n:
            continue
        if kernel == "rbf":
            params = {"gamma": float(rng.uniform(0.5, 5.0))}
        else:
            params = {"degree": 2, "gamma": 1.0, "coef0": float(rng.uniform(0.2, 1.0))}
        G = kperc.gram_matrix(X, y, kernel, **params)
        rho = kperc.margin(G)
        if rho >= min_rho:
            return data.Dataset(X, y, {"rho": rho, "seed": seed}, kernel, params)
    raise RuntimeError("no problem with a large enough margin")  # pragma: no cover


def inseparable_problem(seed: int) -> data.Dataset:
    """Inseparable linear data (:func:`kperc.datasets.infeasible`) in ``R^2`` or ``R^3``;
    ``info`` has ``rho`` (its exact margin) and ``seed``."""
    rng = np.random.default_rng([31, seed])
    d = int(rng.integers(2, 4))
    n = int(rng.integers(d + 8, 30))
    rho = -float(rng.uniform(0.05, 0.5))
    ds = data.infeasible(n, d, rho, seed=int(rng.integers(2**31)))
    return data.Dataset(ds.X, ds.y, {"rho": ds.info["rho"], "seed": seed})

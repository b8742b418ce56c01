"""The generated problems of the benchmark (each a :class:`kperc.datasets.Dataset`), and
fixed-length runs on them."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from benchmarks._config import (
    NEAR,
    NEAR_WIDTH,
    PERITER_RHO,
)
from kperc._kernels import GramOperator
from kperc._perceptrons import nkp, snkp
from kperc._primal_dual import snkpvn
from kperc._von_neumann import nvn
from kperc_book import data as _data


def random_labels(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian points with random labels: infeasible when ``n`` is well above ``2 d``.

    Used where an algorithm must not halt (fixed-length runs); the harness checks
    that every such run used all its iterations.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return X, y


def planted_problem(n: int, d: int, rho: float, seed: int = 0) -> _data.Dataset:
    """A planted hard problem: :func:`kperc.datasets.planted` with half the points near rho."""
    return _data.planted(n, d, rho, near=NEAR, near_width=NEAR_WIDTH, seed=seed)


def _products(G) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], float]]:
    """``(v -> G v, v -> ||v||_G)``; from the factor for a :class:`GramOperator`."""
    if isinstance(G, GramOperator):
        Z = G.Z
        return (lambda v: Z @ (Z.T @ v)), (lambda v: float(np.linalg.norm(Z.T @ v)))
    return (lambda v: G @ v), (lambda v: float(np.sqrt(max(float(v @ (G @ v)), 0.0))))


def normalized_margin(G, alpha: np.ndarray) -> float:
    """``min_i (G alpha)_i / ||alpha||_G``: the normalised margin of the separator alpha."""
    mv, norm = _products(G)
    alpha = np.asarray(alpha, dtype=np.float64)
    na = norm(alpha)
    return float(np.min(mv(alpha)) / na) if na > 0 else float("nan")


def periter_problem(n: int, d: int, seed: int = 0) -> _data.Dataset:
    """The problem of the per-iteration suite: planted margin ``PERITER_RHO = 1e-6``.

    No algorithm halts on it within the measured iterations: NVN runs without its
    primal exit and with ``eps = rho / 10`` (``||p||_G >= rho`` on a separable
    instance, so no certificate), SNKPVN with ``delta = rho / 10`` (only a separator
    can end it, after about ``1/rho`` iterations), and NKP and SNKP need about
    ``1/rho^2`` and ``1/rho`` iterations. (Infeasible instances do not work for the
    dual methods: their iterates reach an exact witness, where ``||p||_G`` rounds to 0.)
    """
    return _data.planted(n, d, PERITER_RHO, near=NEAR, near_width=NEAR_WIDTH, seed=seed)


def _fixed_run(alg: str, G, iters: int):
    """Run ``alg`` for ``iters`` iterations on the per-iteration problem."""
    if alg == "nkp":
        return nkp(G, max_iter=iters, check_input=False)
    if alg == "nvn":
        return nvn(G, eps=0.1 * PERITER_RHO, primal_exit=False, max_iter=iters, check_input=False)
    if alg == "snkp":
        return snkp(G, max_iter=iters, check_input=False)
    if alg == "snkpvn":
        return snkpvn(G, delta=0.1 * PERITER_RHO, max_iter=iters, check_input=False)
    raise ValueError(f"unknown algorithm {alg!r}")

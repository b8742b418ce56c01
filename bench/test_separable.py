""":func:`kperc.is_separable` against the linear program alone.

Issue 30's target: one call of ``is_separable`` (the LP, then the checks of its separator
or certificate beyond rounding) costs at most twice the LP itself. The LP here is written
independently of kperc, as a user would pose it to HiGHS: maximise ``t`` subject to
``<w, a_i> >= t`` for the signed normalised points ``a_i``, ``-1 <= w <= 1`` and
``t <= 1``. Problems: two real sets bundled with scikit-learn, and ``n = 2000`` planted
points (``d = 50``, ``rho = 1e-3``), the same with 1 % of the labels flipped, and an
infeasible problem. CPU time of the process (one BLAS thread, as HiGHS runs here).

Issue 36 adds kernels: ``is_separable(X, y, kernel="rbf")`` against the separability LP
on the RBF Gram matrix posed directly to HiGHS (:func:`kernel_lp_alone`), with the
same target; ``bench/report.py`` reads both kinds of rows alike.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from scipy.optimize import linprog

import kperc
from kperc import datasets

pytestmark = pytest.mark.benchmark(timer=time.process_time)


def problem(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The data ``(X, y)`` of a problem of :data:`PROBLEMS`."""
    if name == "breast_cancer":
        ds = datasets.breast_cancer()
    elif name == "digits_3_vs_8":
        ds = datasets.digits((3, 8))
    elif name == "infeasible":
        ds = datasets.infeasible(2000, 5, -1e-2, seed=0)
    else:
        ds = datasets.planted(2000, 50, 1e-3, seed=0)
    y = ds.y.copy()
    if name == "planted_flipped":  # 1 % of the labels flipped, seeded
        idx = np.random.default_rng(0).choice(len(y), len(y) // 100, replace=False)
        y[idx] = -y[idx]
    return ds.X, y


PROBLEMS = ("breast_cancer", "digits_3_vs_8", "planted", "planted_flipped", "infeasible")


def lp_alone(X: np.ndarray, y: np.ndarray):
    """The separability LP in its textbook form, solved by HiGHS (no checks)."""
    A = (y / np.linalg.norm(X, axis=1))[:, None] * X
    n, d = A.shape
    c = np.zeros(d + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-A, np.ones((n, 1))])
    bounds = [(-1.0, 1.0)] * d + [(None, 1.0)]
    return linprog(c, A_ub=A_ub, b_ub=np.zeros(n), bounds=bounds, method="highs")


@pytest.mark.parametrize("what", ["is_separable", "lp"])
@pytest.mark.parametrize("name", PROBLEMS)
def test_separable(benchmark, name, what):
    X, y = problem(name)
    benchmark.group = f"separable-{name}"
    benchmark.extra_info.update(problem=name, n=int(X.shape[0]), d=int(X.shape[1]), what=what)
    if what == "lp":
        res = benchmark.pedantic(lp_alone, (X, y), rounds=5, warmup_rounds=1)
        assert res.status == 0
    else:
        res = benchmark.pedantic(kperc.is_separable, (X, y), rounds=5, warmup_rounds=1)
        benchmark.extra_info.update(status=str(res.status), exact=bool(res.exact))
        assert res.status in ("separable", "not separable")


# --- kernels (issue 36): is_separable(kernel="rbf") against the LP on the Gram matrix ----
#: Kernel problems: planted RBF data (``n = 800``, ``d = 56``, kernel margin at least
#: 0.01) and two moons (``n = 800``, 2-D, ``gamma = 1``).
KERNEL_PROBLEMS = ("planted_rbf", "moons")


def kernel_problem(name: str) -> tuple[np.ndarray, np.ndarray, float]:
    """The data ``(X, y)`` and ``gamma`` of a problem of :data:`KERNEL_PROBLEMS`."""
    if name == "planted_rbf":
        ds = datasets.planted_rbf(800, 56, 0.01, gamma=0.02, seed=0)
        return ds.X, ds.y, 0.02
    from sklearn.datasets import make_moons

    X, y = make_moons(n_samples=800, noise=0.1, random_state=0)
    return X, 2.0 * y - 1.0, 1.0


def kernel_lp_alone(X: np.ndarray, y: np.ndarray, gamma: float):
    """The separability LP of a kernel, as a user would pose it: the RBF Gram matrix of
    the signed points (scikit-learn), then maximise ``t`` subject to ``G alpha >= t``,
    ``alpha`` in the simplex, solved by HiGHS (no checks)."""
    from sklearn.metrics.pairwise import rbf_kernel

    G = rbf_kernel(X, gamma=gamma) * np.outer(y, y)
    n = G.shape[0]
    c = np.zeros(n + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-G, np.ones((n, 1))])
    A_eq = np.append(np.ones(n), 0.0)[None, :]
    bounds = [(0.0, None)] * n + [(None, 1.0)]
    return linprog(
        c, A_ub=A_ub, b_ub=np.zeros(n), A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs"
    )


@pytest.mark.parametrize("what", ["is_separable", "lp"])
@pytest.mark.parametrize("name", KERNEL_PROBLEMS)
def test_separable_rbf(benchmark, name, what):
    X, y, gamma = kernel_problem(name)
    benchmark.group = f"separable-rbf-{name}"
    benchmark.extra_info.update(problem=name, n=int(X.shape[0]), d=int(X.shape[1]), what=what)
    if what == "lp":
        res = benchmark.pedantic(kernel_lp_alone, (X, y, gamma), rounds=2, warmup_rounds=0)
        assert res.status == 0
    else:
        res = benchmark.pedantic(
            kperc.is_separable, (X, y), {"kernel": "rbf", "gamma": gamma}, rounds=2
        )
        benchmark.extra_info.update(status=str(res.status))
        assert res.status in ("separable", "undecided")

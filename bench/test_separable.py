""":func:`kperc.is_separable` against the linear program alone.

Issue 30's target: one call of ``is_separable`` (the LP, then the checks of its separator
or certificate beyond rounding) costs at most twice the LP itself. The LP here is written
independently of kperc, as a user would pose it to HiGHS: maximise ``t`` subject to
``<w, a_i> >= t`` for the signed normalised points ``a_i``, ``-1 <= w <= 1`` and
``t <= 1``. Problems: two real sets bundled with scikit-learn, and ``n = 2000`` planted
points (``d = 50``, ``rho = 1e-3``), the same with 1 % of the labels flipped, and an
infeasible problem. CPU time of the process (one BLAS thread, as HiGHS runs here).
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

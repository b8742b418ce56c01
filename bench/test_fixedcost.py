"""The fixed cost of one call on the matrix that :func:`kperc.gram_matrix` returns.

Issue 30's target: at most 20 products ``G @ v`` per call at ``n = 2000`` and ``4000``.
Each group (one ``n``) times the product and one call of SNKP, NKP, NVN and ISNKPVN with
``max_iter=1`` on an RBF ``G`` (planted data, ``d = 20``); the call includes its one
iteration and the assembly of its result, so it bounds the fixed cost from above.
``extra_info`` holds the products ``G @ v``, quadratic forms and columns the call asked
for (counted; the matrix is known to kperc, so no validation runs) and its peak memory
(tracemalloc, one more call).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest

import kperc
from bench._measure import count_products, peak_bytes

#: CPU time of the process (one BLAS thread), as in test_periter.py
pytestmark = pytest.mark.benchmark(timer=time.process_time)
SIZES = (2000, 4000)
#: The quick run of ``make test`` (``-m "not slow"``) leaves out the largest size.
PARAMS = [pytest.param(n, marks=[pytest.mark.slow] if n == max(SIZES) else []) for n in SIZES]
CALLS: dict[str, Callable[..., kperc.KpercResult]] = {
    "snkp": kperc.snkp,
    "nkp": kperc.nkp,
    "nvn": kperc.nvn,
    "isnkpvn": kperc.isnkpvn,
}
_GRAMS: dict[int, np.ndarray] = {}


def gram(n: int) -> np.ndarray:
    """The RBF Gram matrix of planted data, as a user builds it (one size kept at a time)."""
    if n not in _GRAMS:
        _GRAMS.clear()
        X, y = kperc.datasets.planted(n, 20, 0.05, seed=0)
        _GRAMS[n] = kperc.gram_matrix(X, y, "rbf", gamma=0.05)
    return _GRAMS[n]


@pytest.mark.parametrize("n", PARAMS)
def test_product(benchmark, n):
    G = gram(n)
    v = np.random.default_rng(1).random(n)
    benchmark.group = f"fixedcost-n{n}"
    benchmark.extra_info.update(n=n, what="product")
    assert benchmark(lambda: G @ v).shape == (n,)


@pytest.mark.parametrize("algorithm", list(CALLS))
@pytest.mark.parametrize("n", PARAMS)
def test_call(benchmark, n, algorithm):
    G = gram(n)
    call = CALLS[algorithm]
    benchmark.group = f"fixedcost-n{n}"
    with count_products() as counts:
        res = call(G, max_iter=1)
    assert res.nit <= 1
    info = dict(n=n, what="call", algorithm=algorithm, max_iter=1)
    info.update({f"{what}_counted": c for what, c in sorted(counts.items())})
    if not benchmark.disabled:
        peak = peak_bytes(lambda: call(G, max_iter=1))
        info.update(peak_bytes=peak, peak_in_G=peak / G.nbytes)
    benchmark.extra_info.update(info)
    benchmark(call, G, max_iter=1)

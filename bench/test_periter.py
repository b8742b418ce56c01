"""Time per iteration of NKP, SNKP, NVN and ISNKPVN against one product ``G @ v``.

Each group (one ``n``, one form of ``G``: the dense matrix of :func:`kperc.gram_matrix`
or the factored operator of :func:`kperc.gram_operator`) times the product and a run of
each algorithm for ``K`` and for ``2 K`` iterations; ``(t(2K) - t(K)) / K`` is the time
of one iteration without the call's fixed cost (``python -m bench.report`` divides it
by the product). The problem is planted with margin ``1e-6`` and half its points near
it, so no algorithm halts within the runs (NVN and ISNKPVN get ``eps`` below the
margin, so no certificate ends them either); each run checks that it used all its
iterations. Times are the CPU time of the process (one BLAS thread). ``extra_info``
holds the products ``G @ v`` and columns the run asked for (counted) and its peak
memory (tracemalloc, one more run).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import kperc
from bench._measure import count_products, peak_bytes

#: CPU time of the process (one BLAS thread): a shared machine's other processes slow
#: the wall clock, not the work done.
pytestmark = pytest.mark.benchmark(timer=time.process_time)
SIZES = (1000, 2000, 4000)
#: The quick run of ``make test`` (``-m "not slow"``) leaves out the largest size.
PARAMS = [pytest.param(n, marks=[pytest.mark.slow] if n == max(SIZES) else []) for n in SIZES]
D = 50
RHO = 1e-6
#: ``K`` of each algorithm and form: enough iterations that the ``K`` more of the longer
#: run cost well above the noise (a factored product is cheap: more iterations).
ITERS = {
    "dense": {"nkp": 4000, "nvn": 4000, "snkp": 20, "isnkpvn": 20},
    "factored": {"nkp": 4000, "nvn": 4000, "snkp": 200, "isnkpvn": 200},
}
RUNS = {
    "nkp": lambda G, k: kperc.nkp(G, max_iter=k, check_input=False),
    "snkp": lambda G, k: kperc.snkp(G, max_iter=k, check_input=False),
    "nvn": lambda G, k: kperc.nvn(
        G, eps=0.1 * RHO, primal_exit=False, max_iter=k, check_input=False
    ),
    "isnkpvn": lambda G, k: kperc.isnkpvn(G, eps=0.1 * RHO, max_iter=k, check_input=False),
}

_GRAMS: dict[tuple[int, str], object] = {}


def gram(n: int, form: str):
    """The per-iteration problem's ``G`` (built once per size and form)."""
    key = (n, form)
    if key not in _GRAMS:
        _GRAMS.clear()  # one size at a time: the dense G at n = 4000 is 128 MB
        X, y = kperc.datasets.planted(n, D, RHO, near=0.5, near_width=1.0, seed=0)
        _GRAMS[key] = kperc.gram_matrix(X, y) if form == "dense" else kperc.gram_operator(X, y)
    return _GRAMS[key]


def _group(n: int, form: str) -> str:
    return f"periter-n{n}-{form}"


@pytest.mark.parametrize("form", ["dense", "factored"])
@pytest.mark.parametrize("n", PARAMS)
def test_product(benchmark, n, form):
    G = gram(n, form)
    v = np.random.default_rng(1).random(n)
    benchmark.group = _group(n, form)
    benchmark.extra_info.update(n=n, form=form, what="product")
    out = benchmark(lambda: G @ v)
    assert out.shape == (n,)


@pytest.mark.parametrize("double", [False, True], ids=["K", "2K"])
@pytest.mark.parametrize("algorithm", list(RUNS))
@pytest.mark.parametrize("form", ["dense", "factored"])
@pytest.mark.parametrize("n", PARAMS)
def test_iterations(benchmark, n, form, algorithm, double):
    G = gram(n, form)
    k = ITERS[form][algorithm] * (2 if double else 1)
    run = RUNS[algorithm]
    benchmark.group = _group(n, form)
    with count_products() as counts:
        res = run(G, k)
    assert res.nit == k, f"{algorithm} halted after {res.nit} of {k} iterations"
    info = dict(n=n, form=form, what="iterations", algorithm=algorithm, iterations=k)
    info.update({f"{what}_counted": c for what, c in sorted(counts.items())})
    if not benchmark.disabled:
        peak = peak_bytes(lambda: run(G, k))
        info.update(peak_bytes=peak, peak_in_dense_G=peak / (8.0 * n * n))
    benchmark.extra_info.update(info)
    benchmark(run, G, k)

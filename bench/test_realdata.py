"""Chapter 4's timings: NKP and SNKP on the chapter's real kernel problems.

For each stored kernel problem (``kperc_book.data.PROBLEMS``; its stored Gram
matrix, built once and not timed) each method gets one warm-up run and 21 timed runs
(``check_input=False``: the timing is of the algorithm), in CPU time of the process.
``extra_info`` holds the
problem, ``n``, the method and its ``nit``; the chapter reads the file and checks that
this ``nit`` is the one it computes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

import kperc
from kperc_book import data as kdata

#: CPU time of the process (one BLAS thread): on a shared machine the wall clock also
#: counts the time other processes hold the core.
pytestmark = pytest.mark.benchmark(timer=time.process_time)
ROUNDS = 21
METHODS: dict[str, Callable[..., kperc.KpercResult]] = {"nkp": kperc.nkp, "snkp": kperc.snkp}


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("problem", list(kdata.PROBLEMS))
def test_realdata(benchmark, problem, method):
    G = kdata.problem(problem)[0]
    run = METHODS[method]
    benchmark.group = "realdata"
    nit = int(run(G, check_input=False).nit)
    benchmark.extra_info.update(problem=problem, n=int(G.shape[0]), method=method, nit=nit)
    res = benchmark.pedantic(run, (G,), {"check_input": False}, rounds=ROUNDS, warmup_rounds=1)
    assert res.nit == nit  # deterministic: every timed run made the same updates

"""Chapter 7's timings: SNKP, NKP, scikit-learn's hard-margin SVC and the exact margin.

On each stored problem of ``kperc_book.data.PROBLEMS`` (its Gram matrix ``G`` built once,
not timed; the kperc calls skip validation with ``check_input=False``): ``snkp`` and
``nkp`` (halting at the first separator), ``svc`` (``SVC(C=1e6, tol=1e-6)`` on the
precomputed kernel ``K = G * y y^T`` of the ``n`` points, with intercept),
``svc_homogeneous`` (the same SVC on the ``2 n`` points ``(x_i, +1)`` and ``(-x_i, -1)``:
kernel ``[[G, -G], [-G, G]]``, whose separator has no intercept, as kperc's) and
``margin`` (:func:`kperc.margin`, the exact maximum margin). One warm-up call and 7
timed calls each, in CPU time of the process (one BLAS thread); ``extra_info`` holds the
problem, ``n`` and the method.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from sklearn.svm import SVC

import kperc
from kperc_book import data as kdata

#: CPU time of the process (one BLAS thread): on a shared machine the wall clock also
#: counts the time other processes hold the core.
pytestmark = pytest.mark.benchmark(timer=time.process_time)
ROUNDS = 7
C, TOL = 1e6, 1e-6


def _calls(G: np.ndarray, y: np.ndarray):
    n = G.shape[0]
    K2 = np.block([[G, -G], [-G, G]])
    y2 = np.concatenate([np.ones(n), -np.ones(n)])
    K = G * np.outer(y, y)
    return {
        "snkp": lambda: kperc.snkp(G, check_input=False),
        "nkp": lambda: kperc.nkp(G, check_input=False),
        "svc_homogeneous": lambda: SVC(C=C, kernel="precomputed", tol=TOL).fit(K2, y2),
        "svc": lambda: SVC(C=C, kernel="precomputed", tol=TOL).fit(K, y),
        "margin": lambda: kperc.margin(G),
    }


@pytest.mark.parametrize("method", ["snkp", "nkp", "svc_homogeneous", "svc", "margin"])
@pytest.mark.parametrize("problem", list(kdata.PROBLEMS))
def test_svm(benchmark, problem, method):
    G, ds, _, _ = kdata.problem(problem)
    call = _calls(G, np.asarray(ds.y, dtype=np.float64))[method]
    benchmark.group = "svm"
    benchmark.extra_info.update(problem=problem, n=int(G.shape[0]), method=method, C=C, tol=TOL)
    benchmark.pedantic(call, rounds=ROUNDS, warmup_rounds=1)

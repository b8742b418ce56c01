"""Tests of the experiment code behind chapters 3 and 4 (small sizes, seconds).

Chapter 3 runs its experiments in the notebook itself (nbval proves its behaviour); what
it still imports are the seeded problems it shares with Chapter 4
(:mod:`kperc_book.experiments._problems`), tested here. Chapter 4 too runs its
experiments in the notebook; it reads the timings file of the micro-benchmarks
(``make bench-micro``), whose agreement with the live iteration counts is tested here.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import kperc
import kperc_book.data
from kperc_book.experiments import _common
from kperc_book.experiments._problems import KERNELS, inseparable_problem, separable_problem


# ---------------------------------------------------------------------------------------
# Chapter 3: the seeded problems of its checks
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kernel", KERNELS)
def test_separable_problem_is_separable_and_deterministic(kernel):
    a = separable_problem(kernel, 3)
    b = separable_problem(kernel, 3)
    assert isinstance(a, kperc_book.data.Dataset) and a.kernel == kernel
    G = a.gram()
    np.testing.assert_array_equal(G, b.gram())
    np.testing.assert_allclose(np.diag(G), 1.0)
    assert np.linalg.eigvalsh(G)[0] > -1e-10
    assert a.info["rho"] == kperc.margin(G) and a.info["seed"] == 3
    assert a.info["rho"] > 0
    if kernel == "linear":
        assert a.info["rho"] == pytest.approx(a.info["rho_planted"], abs=1e-9)
    else:
        assert a.info["rho"] >= 0.02


def test_inseparable_problem_has_certificate():
    prob = inseparable_problem(0)
    assert prob.info["rho"] < 0 and prob.kernel == "linear"
    G = prob.gram()
    md = kperc.margin_details(G)
    assert not md.separable
    assert kperc.g_seminorm(G, md.p) < 1e-7


# ---------------------------------------------------------------------------------------
# Chapter 4
# ---------------------------------------------------------------------------------------
def test_committed_timings_match_live_iterations():
    """The timings file the chapter reads was measured on the iterations it computes."""
    tim = json.loads(_common.TIMINGS_PATH.read_text())
    rows = [b["extra_info"] for b in tim["benchmarks"]]
    assert {(r["problem"], r["method"]) for r in rows} == {
        (p, m) for p in _common.REAL_PROBLEMS for m in ("nkp", "snkp")
    }
    for r in rows:
        G = kperc_book.data.problem(r["problem"])[0]
        assert getattr(kperc, r["method"])(G).nit == r["nit"]

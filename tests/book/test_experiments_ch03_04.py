"""Tests of the experiment code behind chapters 3 and 4 (small sizes, seconds).

Chapter 3 runs its experiments in the notebook itself (nbval proves its behaviour); what
it still imports are the seeded problems it shares with Chapter 4
(:mod:`kperc_book.experiments._problems`), tested here. Chapter 4's tests call its
experiment module with tiny parameters and assert correct, bound-respecting results.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import kperc
import kperc_book.data
from kperc_book.experiments import ch04
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
def test_bounds_and_mu_closed_form():
    n, rho = 300, 0.01
    kmax = ch04.snkp_bound_exact(n, rho)
    assert kmax * (kmax + 1) == pytest.approx(8 * math.log(n) / rho**2)
    assert kmax < ch04.snkp_bound(n, rho)
    np.testing.assert_allclose(ch04.mu_closed_form([0, 1, 2]), [2.0, 2 / 3, 1 / 3])


@pytest.mark.ledger("theorem-1")
def test_rate_point_and_slopes():
    rows = ch04.rate_sweep([0.05, 0.02, 0.01], [0, 1], n=60, d=8)
    assert len(rows) == 6
    for r in rows:
        assert r["separated"] and r["theorem1"]
        for m in ("perceptron", "nkp", "snkp"):
            assert r[f"nit_{m}"] <= r[f"bound_{m}"]
    s = ch04.summarize_rates(rows)
    assert s["all_within_bounds"]
    assert list(s["rho"]) == [0.05, 0.02, 0.01]
    slopes = ch04.fit_slopes(rows, rho_max=0.03)
    assert slopes["nkp"] > slopes["snkp"]
    with pytest.raises(ValueError):
        ch04.fit_slopes(rows, rho_max=0.001)


def test_crowded_has_exact_margin():
    for n in (5, 40):
        ds = ch04.crowded(n, 0.05, seed=1)
        G = kperc.gram_matrix(ds.X, ds.y)
        assert kperc.margin(G) == pytest.approx(0.05, abs=1e-10)


@pytest.mark.ledger("theorem-1")
def test_n_sweep_respects_theorem1():
    rows = ch04.n_sweep([10, 100], [0], rho=0.05)
    assert len(rows) == 4
    for r in rows:
        assert r["separated"] and r["theorem1"]
        assert r["nit_snkp"] < r["bound_snkp"]
    crowded = [r["nit_snkp"] for r in rows if r["family"] == "crowded"]
    assert crowded[1] > crowded[0]


@pytest.mark.ledger("lemma-4")
@pytest.mark.ledger("lemma-5")
@pytest.mark.ledger("mu-closed-form")
def test_check_sandwich():
    r = ch04.check_sandwich(range(3), [0], real=("circles-rbf",), extra=30)
    assert r["instances"] == 3 + 2 + 1
    assert r["ok4"] and r["ok5"] and r["ok_mu"] and r["ok_theorem1"]
    assert r["min_slack4"] >= 0 and r["min_slack5"] >= 0 and r["min_slack_wd"] >= 0


def test_snkp_sandwich_terms_are_ordered():
    G = separable_problem("rbf", 0).gram()
    s = ch04.snkp_sandwich(G, extra=20)
    assert s["halt"] is not None
    assert len(s["k"]) == s["halt"] + 21
    assert np.all(s["lower"] <= s["L_mu"] + 1e-12)
    assert np.all(s["L_mu"] <= s["upper"] + 1e-12)
    assert np.all(s["upper"] <= s["L"] + 1e-12)


def test_mu0_below_two_breaks_lemma5():
    bad = ch04.mu0_search(1.0, range(20))
    assert bad is not None
    assert bad["violation"] > 0
    assert bad["slack_mu2_min"] >= 0


def test_real_data_iterations():
    rows = ch04.real_data_iterations(("circles-rbf", "xor-poly"))
    for r in rows:
        assert r["theorem1"]
        assert r["nit_nkp"] <= r["bound_nkp"]
        assert r["nit_snkp"] < r["bound_snkp"]


def test_committed_timings_match_live_iterations():
    tim = ch04.read_timings()
    live = {
        (r["problem"], m): r[f"nit_{m}"]
        for r in ch04.real_data_iterations()
        for m in ("nkp", "snkp")
    }
    for r in tim["rows"]:
        assert live[(r["problem"], r["method"])] == r["nit"]


def test_crowded_family_needs_many_nkp_updates_when_permuted():
    """The 2 updates on crowded() come from its storage order, not from the family."""
    ds = ch04.crowded(300, 0.01, seed=0)
    stored = kperc.nkp(kperc.gram_operator(ds.X, ds.y))
    assert stored.nit == 2
    r = ch04.crowded_nkp_permuted([300], range(2), rho=0.01)
    assert r["separated"] and min(r["nit"]) > 100

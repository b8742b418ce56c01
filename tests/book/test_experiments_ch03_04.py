"""Tests of the experiment modules behind chapters 3 and 4 (small sizes, seconds).

Each test calls an experiment function with tiny parameters and asserts that it returns
correct, bound-respecting results, so the logic that the notebooks run is covered here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import kperc
import kperc_book.data
from kperc_book.experiments import ch03, ch04


# ---------------------------------------------------------------------------------------
# Chapter 3
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kernel", ch03.KERNELS)
def test_separable_problem_is_separable_and_deterministic(kernel):
    a = ch03.separable_problem(kernel, 3)
    b = ch03.separable_problem(kernel, 3)
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
    prob = ch03.inseparable_problem(0)
    assert prob.info["rho"] < 0 and prob.kernel == "linear"
    G = prob.gram()
    md = kperc.margin_details(G)
    assert not md.separable
    assert kperc.g_seminorm(G, md.p) < 1e-7


@pytest.mark.ledger("lemma-1")
def test_check_lemma1():
    r = ch03.check_lemma1(range(2), n_alpha=40)
    assert r["ok"]
    assert r["violations_a"] == 0
    assert r["n_negative_L"] > 0
    assert r["max_ratio_inseparable"] < 0


@pytest.mark.ledger("lemma-2")
def test_check_lemma2():
    r = ch03.check_lemma2(range(2), n_alpha=40)
    assert r["ok"]
    assert r["max_ratio_G_1"] <= 1 + 1e-12
    assert r["max_ratio_1_2"] <= 1 + 1e-12


@pytest.mark.ledger("lemma-3")
def test_check_lemma3():
    r = ch03.check_lemma3(range(2), n_p=40)
    assert r["ok"]
    assert r["min_ratio"] >= 1.0
    assert r["max_weak_duality_violation"] <= 0


@pytest.mark.ledger("minimax-margin")
def test_check_minimax():
    r = ch03.check_minimax([0])
    assert r["ok"]
    assert r["instances"] == 3
    assert r["max_rel_gap"] < 1e-6


def test_svc_comparison_orders_the_margins():
    prob = ch03.separable_problem("rbf", 1)
    G, y = prob.gram(), prob.y
    s = ch03.svc_comparison(G, y)
    assert s["rho_K"] == pytest.approx(prob.info["rho"])
    assert s["homogeneous"] <= s["rho_K"] * (1 + 1e-9)
    assert s["rho_K"] <= s["gamma_svc"] * (1 + 1e-4)
    aug = ch03.intercept_margins(G, y, [0.0, 1.0, 100.0])
    assert aug[0] == pytest.approx(s["rho_K"], rel=1e-6)
    assert np.all(np.diff(aug) >= -1e-9)
    assert aug[-1] == pytest.approx(s["gamma_svc"], rel=1e-3)
    lin = ch03.linear_svc_margin(G, y)
    assert lin["margin"] == pytest.approx(s["rho_K"], rel=1e-4)


def test_nkp_margin_trace_improves_after_separation():
    G = ch03.separable_problem("linear", 2).gram()
    tr = ch03.nkp_margin_trace(G, max_iter=3000)
    assert tr["first"] is not None
    assert tr["best"] <= tr["rho"] * (1 + 1e-9)
    assert tr["margin_final"] > tr["margin_at_first"]
    assert np.all(tr["L"] >= tr["L_star"] - 1e-12)


@pytest.mark.ledger("nkp-bound")
def test_nkp_bound_sweep_respects_bound():
    rows = ch03.nkp_bound_sweep([0.2, 0.05], [0, 1], [0], n=40, d=5)
    assert len(rows) == 6
    for r in rows:
        assert r["separator"]
        assert r["nit"] <= r["bound"]


@pytest.mark.ledger("nkp-equals-np")
def test_nkp_vs_np():
    r = ch03.nkp_vs_np(7, n=30, d=4)
    assert r["same"]
    assert r["nit_np"] == r["nit_nkp"]


def test_real_problem_summary_and_grid():
    r = ch03.real_problem_summary("circles-rbf")
    assert r["train_accuracy"] == 1.0
    assert r["nkp_nit"] <= r["nkp_bound"]
    g = ch03.decision_grid("circles-rbf", resolution=20)
    # both decision functions classify every training point correctly
    G, ds, kern, params = kperc_book.data.problem("circles-rbf")
    md = kperc.margin_details(G)
    f = ch03.decision_function(ds.X, ds.y, md.alpha, ds.X, kern, params)
    assert np.all(ds.y * f > 0)
    assert g["f_nkp"].shape == (20, 20)
    assert 0 < g["margin_nkp"] <= g["rho_K"]


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
    G = ch03.separable_problem("rbf", 0).gram()
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

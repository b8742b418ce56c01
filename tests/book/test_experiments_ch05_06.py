"""Experiments of Chapter 5 (kperc_book.experiments.ch05) and the problems Chapters 5 and 6
share (kperc_book.experiments._problems): small, fast instances.

Every experiment function is run on a few seeded instances and its output is checked
against the stated result with the explicit constants of PAPER.md: certificates lie in
the simplex with ``||p||_G <= eps``, separators have ``G alpha > 0``, and no iteration
count exceeds its bound.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import kperc
from kperc_book import data
from kperc_book.experiments import ch05
from kperc_book.experiments._problems import make_problem

# --------------------------------------------------------------------------- chapter 5


def test_lp_separation_sign():
    A = np.array([[1.0, 0.2], [0.8, 0.6]])  # rows: both in the positive quadrant
    value, u = ch05.lp_separation(A.T)
    assert value > 0 and np.all(A @ u >= value - 1e-12)
    B = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])  # antipodal pair: infeasible
    value, _ = ch05.lp_separation(B.T)
    assert value == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("d", [2, 3, 5])
@pytest.mark.parametrize("seed", [0, 1])
def test_edge_problem_margin_zero_and_witness(d, seed):
    ds = ch05.edge_problem(12, d, seed=seed)
    G = ds.gram()
    w = ds.info["witness"]
    assert w.sum() == pytest.approx(1.0) and w.min() >= 0
    assert np.allclose(G @ w, 0.0, atol=1e-12)
    if d <= 6:
        assert kperc.margin(G) == pytest.approx(0.0, abs=1e-9)
    # the witness set is this single point: dist from any q is ||q - w||
    q = np.full(12, 1 / 12)
    assert kperc.dist_to_witness(G, q).dist == pytest.approx(np.linalg.norm(q - w), abs=1e-6)


@pytest.mark.ledger("gordan")
def test_gordan_exactly_one_alternative():
    df = ch05.gordan_sweep(["planted", "cap", "edge", "gauss"], range(2), n=20, d=(2, 4), rho=0.1)
    assert df["exactly_one"].all() and df["dual_gap_ok"].all()
    assert df.loc[df["kind"] == "planted", "separator"].all()
    assert df.loc[df["kind"].isin(["cap", "edge"]), "certificate"].all()


@pytest.mark.ledger("theorem-2")
def test_theorem2_kernel_problems():
    ex = ch05.kernel_examples(seed=0).set_index("example")
    assert ex["exactly_one"].all()
    assert ex.loc["rbf-distinct", "lambda_min"] > 0 and ex.loc["rbf-distinct", "separator"]
    assert ex.loc["rbf-duplicate", "certificate"]
    assert ex.loc["rbf-duplicate", "rho_K"] == pytest.approx(0.0, abs=1e-9)
    assert ex.loc["quadratic-random", "rank"] <= 3
    assert ex.loc["quadratic-xor", "separator"]
    kern = ch05.kernel_gordan_sweep(["rbf", "rbf-dup", "quadratic", "poly2"], [6, 10], [0])
    assert kern["exactly_one"].all()
    assert kern.loc[kern["kind"] == "rbf", "inverse_separator"].all()
    assert kern.loc[kern["kind"] == "rbf-dup", "certificate"].all()


def test_nvn_path_both_outcomes():
    inf = data.load("infeasible_2d")
    p = ch05.nvn_path(inf.X, inf.y, eps=1e-3)
    assert p["outcome"] == "certificate" and p["certificate_ok"]
    assert p["W"].shape == (p["nit"] + 1, 2)
    assert np.allclose(p["hull"][0], p["hull"][-1])
    feas = data.planted(20, 2, 0.1, near=0.5, seed=0)
    p = ch05.nvn_path(feas.X, feas.y, eps=1e-3)
    assert p["outcome"] == "separator" and p["separator_ok"]
    assert p["nit"] <= 1 / 0.1**2


def test_no_primal_exit_stalls_at_the_margin():
    feas = data.planted(20, 2, 0.1, near=0.5, seed=0)
    out = ch05.no_primal_exit(feas.X, feas.y, eps=1e-3, max_iter=500)
    assert out["outcome"] == "max_iter"
    assert out["final_norm"] >= out["rho"] - 1e-12
    assert out["outcome_with_exit"] == "separator"
    assert out["nit_with_exit"] == out["first_separating"]


@pytest.mark.ledger("dantzig")
@pytest.mark.ledger("epelman-freund-primal")
@pytest.mark.ledger("epelman-freund-dual")
def test_nvn_bounds_small_sweep():
    pts = ch05.rate_points(
        [-0.3, -0.05],
        [2, 3],
        [0],
        n=20,
        eps=1e-3,
        edge_eps=3e-2,
        planted_rhos=[0.2, 0.05],
        planted_seeds=[0, 1],
    )
    pts += ch05.eps_points([-0.2], [1e-1, 1e-3, 1e-5], n=20, edge_min_eps=3e-2)
    df = ch05.nvn_sweep(pts)
    c = ch05.nvn_checks(df)
    assert c["dantzig_ok"] and c["ef_primal_ok"] and c["ef_dual_ok"] and c["outputs_ok"]
    assert c["dantzig_worst"] <= 1.0
    assert c["ef_dual_step_worst"] <= 1.0 + 1e-9
    assert (df["nit"] <= df["bound"]).all()
    assert df["linear_checked"].all() and df["linear_agrees"].all()
    traced = df[df["keep_trace"].fillna(False).astype(bool)]
    assert len(traced) == 2 and all(isinstance(sq, np.ndarray) for sq in traced["sq"])


def test_nvn_checks_detects_a_violation():
    df = ch05.nvn_sweep([{"kind": "cap", "n": 20, "d": 2, "rho": -0.2, "seed": 0}])
    bad = df.copy()
    bad["nit"] = bad["ef_dual_bound"] + 1
    assert not ch05.nvn_checks(bad)["ef_dual_ok"]
    bad = df.copy()
    bad["dantzig_ratio"] = 1.5
    assert not ch05.nvn_checks(bad)["dantzig_ok"]


@pytest.mark.parametrize("eps,rho,w0,expected", [(0.1, -0.5, 1.0, 17), (1.0, -0.5, 0.5, 0)])
def test_bound_helpers(eps, rho, w0, expected):
    assert ch05.ef_dual_bound(rho, eps, w0) == expected
    assert ch05.dantzig_bound(0.1) == 99


@pytest.mark.ledger("theorem-3")
@pytest.mark.parametrize("d", [2, 3, 4])
def test_theorem3(d):
    df = ch05.theorem3_sweep([d], [-0.4, -0.1], [0], n=16, n_dirs=500)
    assert df["ok"].all()
    assert (df["sampled_max"] <= df["rho"] + 1e-12).all()
    if d == 2:
        assert np.allclose(df["rho"], df["rho_target"], atol=1e-9)


def test_hull_2d_and_profile():
    inf = data.load("infeasible_2d")
    h = ch05.hull_2d(inf.X, inf.y)
    assert h["agree"] and h["radius"] == pytest.approx(0.3, abs=1e-9)
    prof = ch05.direction_profile(h["A"], m=7200)
    assert prof["min"].max() <= h["rho"] + 1e-12
    assert prof["min"].max() == pytest.approx(h["rho"], abs=2e-3)  # grid step 8.7e-4 rad
    assert prof["max"].min() >= -h["rho"] - 1e-12


def test_caveat_lift():
    inf = data.load("infeasible_2d")
    cav = ch05.caveat_lift(inf.X, inf.y, [1.0, 0.1, 0.01], n_dirs=2000)
    assert cav["rho_2d"] == pytest.approx(-0.3, abs=1e-9)
    assert cav["rho_span_3d"] == pytest.approx(cav["rho_2d"], abs=1e-9)
    assert cav["sampled_sup"] == 0.0 and cav["at_e3"] == 0.0
    r = np.abs(cav["rho_lifted"])
    assert np.all(np.diff(r) < 0) and r[-1] < 0.01


def test_tidy_and_slope():
    df = pd.DataFrame({"a": [1e-16, 0.5], "b": [1, 2]})
    assert ch05.tidy(df)["a"].tolist() == [0.0, 0.5]
    assert ch05.loglog_slope([1, 10, 100], [2, 200, 20000]) == pytest.approx(2.0)
    assert ch05.loglog_slope([1, 10, 100], [0, 10, 100], nonpositive="drop") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="nonpositive"):
        ch05.loglog_slope([1, 10, 100], [0, 10, 100])


# ------------------------------------------------------- chapter 6 (the shared problems)


def test_make_problem_kinds():
    ds = make_problem("planted", 20, 3, 0.1, 0)
    assert ds.info["rho"] == pytest.approx(0.1) and "witness" not in ds.info
    assert kperc.margin(ds.gram()) == pytest.approx(0.1, abs=1e-9)
    ds = make_problem("cap", 20, 2, -0.2, 0)
    assert ds.info["rho"] == pytest.approx(-0.2, abs=1e-9)
    ds = make_problem("edge", 12, 3, 0.0, 0)
    assert ds.info["rho"] == 0.0 and ds.info["witness"].sum() == pytest.approx(1.0)
    ds = make_problem("gauss", 7, 3, 0.0, 0)
    assert ds.X.shape == (7, 3) and np.isnan(ds.info["rho"])
    with pytest.raises(ValueError, match="unknown problem kind 'nope'"):
        make_problem("nope", 5, 2, 0.1, 0)

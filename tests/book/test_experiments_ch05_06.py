"""Experiments of Chapters 5 and 6: small, fast instances.

Chapter 5 runs its experiments in its notebook (proven by nbval); here are the shared
problem and bound helpers it uses (:mod:`kperc_book.experiments._problems`,
:mod:`kperc_book.experiments._infeasible`). For Chapter 6 every experiment function of
``kperc_book.experiments.ch06`` is run on a few seeded instances and its output is
checked against the stated result with the explicit constants of PAPER.md: certificates
lie in the simplex with ``||p||_G <= eps``, separators have ``G alpha > 0``, and no
iteration count exceeds its bound.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kperc
from kperc_book import data
from kperc_book.experiments import ch06
from kperc_book.experiments._infeasible import dantzig_bound, ef_dual_bound
from kperc_book.experiments._problems import edge_problem, make_problem

# --------------------------------------------------------------------------- chapter 5


@pytest.mark.parametrize("d", [2, 3, 5])
@pytest.mark.parametrize("seed", [0, 1])
def test_edge_problem_margin_zero_and_witness(d, seed):
    ds = edge_problem(12, d, seed=seed)
    G = ds.gram()
    w = ds.info["witness"]
    assert w.sum() == pytest.approx(1.0) and w.min() >= 0
    assert np.allclose(G @ w, 0.0, atol=1e-12)
    if d <= 6:
        assert kperc.margin(G) == pytest.approx(0.0, abs=1e-9)
    # the witness set is this single point: dist from any q is ||q - w||
    q = np.full(12, 1 / 12)
    assert kperc.dist_to_witness(G, q).dist == pytest.approx(np.linalg.norm(q - w), abs=1e-6)


@pytest.mark.parametrize("eps,rho,w0,expected", [(0.1, -0.5, 1.0, 17), (1.0, -0.5, 0.5, 0)])
def test_bound_helpers(eps, rho, w0, expected):
    assert ef_dual_bound(rho, eps, w0) == expected
    assert dantzig_bound(0.1) == 99


# --------------------------------------------------------------------------- chapter 6


def test_make_problem_kinds():
    ds = ch06.make_problem("planted", 20, 3, 0.1, 0)
    assert ds.info["rho"] == pytest.approx(0.1) and "witness" not in ds.info
    assert kperc.margin(ds.gram()) == pytest.approx(0.1, abs=1e-9)
    ds = ch06.make_problem("cap", 20, 2, -0.2, 0)
    assert ds.info["rho"] == pytest.approx(-0.2, abs=1e-9)
    ds = ch06.make_problem("edge", 12, 3, 0.0, 0)
    assert ds.info["rho"] == 0.0 and ds.info["witness"].sum() == pytest.approx(1.0)
    ds = make_problem("gauss", 7, 3, 0.0, 0)
    assert ds.X.shape == (7, 3) and np.isnan(ds.info["rho"])
    with pytest.raises(ValueError, match="unknown problem kind 'nope'"):
        ch06.make_problem("nope", 5, 2, 0.1, 0)


def test_rbf_duplicate_witness():
    moons = data.load("moons")
    ds = ch06.rbf_duplicate_problem(moons.X[:30], moons.y[:30], gamma=2.0)
    assert len(ds.y) == 31 and ds.info["rho"] == 0.0
    assert ds.kernel == "rbf" and ds.kernel_params == {"gamma": 2.0}
    G, w = ds.gram(), ds.info["witness"]
    assert np.allclose(G @ w, 0.0, atol=1e-12)
    # the witness is the only one: the nearest witness to any q is this point
    q = np.full(31, 1 / 31)
    r = kperc.dist_to_witness(G, q)
    assert r.dist == pytest.approx(np.linalg.norm(q - w), abs=1e-5)


@given(st.integers(0, 10_000), st.sampled_from(ch06.Q_KINDS))
def test_sample_q_in_simplex(seed, kind):
    w = np.zeros(8)
    w[:2] = 0.5
    q = ch06.sample_q(np.random.default_rng(seed), 8, kind, witness=w)
    assert q.min() >= 0 and q.sum() == pytest.approx(1.0)


@pytest.mark.ledger("lemma-7")
def test_lemma7():
    pts = [
        dict(kind="cap", n=12, d=2, rho=-0.2, seed=0, n_q=6),
        dict(kind="edge", n=12, d=3, rho=0.0, seed=0, n_q=6),
    ]
    df = ch06.lemma7_sweep(pts)
    for dist, bound in zip(df["dist"], df["bound"], strict=True):
        assert np.all(dist <= bound + 1e-9)
    assert (df["max_residual"] <= 1e-8).all()
    assert ch06.lemma7_bound(0.0, 0.0) == pytest.approx(math.sqrt(2))
    assert ch06.lemma7_bound(0.1, -0.1) == pytest.approx(math.sqrt(2) / 2)


@pytest.mark.ledger("lemma-8")
@pytest.mark.ledger("lemma-9")
def test_sandwiches():
    pts = [
        dict(kind="planted", n=15, d=3, rho=0.1, seed=0, q_kind="dirichlet-1", delta=1e-3),
        dict(kind="cap", n=15, d=2, rho=-0.1, seed=0, q_kind="barycentre", delta=1e-3),
        dict(kind="edge", n=15, d=2, rho=0.0, seed=0, q_kind="vertex", delta=1e-2),
    ]
    df = ch06.sandwich_sweep(pts)
    assert (df["lemma8_left"] <= 0).all() and (df["lemma8_right"] >= 0).all()
    inf = df[df["kind"] != "planted"]
    assert (inf["lemma9_right"] >= 0).all()
    assert df["iterates"].sum() == (df["nit"] + 1).sum()
    out = ch06.sandwich_run("cap", 15, 2, -0.1, 0, "barycentre", 1e-3, keep_trace=True)
    assert set(out["trace"]) >= {"L", "L_mu_q", "norm_p_G", "mu"}


@pytest.mark.ledger("snkpvn-bound")
@pytest.mark.ledger("snkpvn-infeasible-bound")
def test_snkpvn_bounds():
    pts = [
        dict(kind="planted", n=15, d=3, rho=0.05, seed=0, q_kind=qk, delta_rel=dr)
        for qk in ("barycentre", "vertex")
        for dr in (0.5, 5.0)
    ]
    pts += [
        dict(kind=k, n=15, d=2, rho=r, seed=0, q_kind="dirichlet-1", delta_rel=1e-2)
        for k, r in (("cap", -0.1), ("edge", 0.0))
    ]
    df = ch06.snkpvn_sweep(pts)
    assert df["ok"].all() and (df["ratio"] < 1).all()
    fe = df[df["kind"] == "planted"]
    assert (fe.loc[fe["delta_rel"] < 1, "outcome"] == "separator").all()
    assert (df.loc[df["kind"] != "planted", "outcome"] == "certificate").all()


def test_isnkpvn_bound_helpers():
    calls, total = ch06.isnkpvn_total_bound(16, 2.0, 1e-3, -0.1, 1.0)
    assert calls == math.floor(math.log(1e3) / math.log(2)) + 1
    assert total == pytest.approx(calls * 2 * math.sqrt(32) * 2 / (1e-3 + 0.1))
    # at margin 0 the geometric sum over the calls wins: no log(1/eps) factor
    calls, total = ch06.isnkpvn_total_bound(16, 2.0, 1e-3, 0.0, 1.0)
    assert calls == 10 and total == pytest.approx(2 * math.sqrt(32) * 4 / 1e-3)
    calls, total = ch06.isnkpvn_total_bound(16, 2.0, 1e-3, 0.1, 0.5)
    assert calls == 3 and total == pytest.approx(3 * 2 * math.sqrt(32) / 0.1)
    # separable with many calls: the geometric sum, 2 sqrt(2n) (2 gamma - 1) / ((gamma - 1) rho)
    calls, total = ch06.isnkpvn_total_bound(16, 2.0, 1e-3, 0.01, 1.0)
    assert calls == 7 and total == pytest.approx(2 * math.sqrt(32) * 3 / 0.01)
    assert ch06.isnkpvn_total_bound(16, 2.0, 1e-3, 0.0, 1e-4) == (0, 0.0)
    with pytest.raises(ValueError):
        ch06.isnkpvn_total_bound(16, 2.0, 0.5, 0.1, 1.0)
    assert ch06.nvn_bound(0.1, 1e-3, 1.0) == pytest.approx(100)
    assert ch06.nvn_bound(0.0, 1e-2, 1.0) == 9999


@pytest.mark.ledger("isnkpvn")
def test_isnkpvn_runs():
    pts = [
        dict(kind="cap", n=20, d=2, rho=-0.05, seed=0, eps=1e-3),
        dict(kind="edge", n=20, d=2, rho=0.0, seed=0, eps=1e-2),
        dict(kind="planted", n=20, d=3, rho=0.02, seed=0, eps=1e-4),
        dict(kind="planted", n=20, d=3, rho=0.05, seed=1, eps=1e-4, gamma=4.0),
    ]
    df = ch06.isnkpvn_sweep(pts)
    assert df["ok"].all() and df["verified"].all() and df["decrease"].all()
    assert (df["nit"] < df["total_bound"]).all() and (df["nouter"] <= df["calls_bound"]).all()
    assert df["nvn_ok"].astype(bool).all()
    assert (df.loc[df["kind"] == "planted", "outcome"] == "separator").all()
    inf = df[df["kind"] != "planted"]
    assert (inf["final_norm"].to_numpy() <= inf["eps"].to_numpy()).all()


def test_isnkpvn_on_kernel_problems():
    moons = data.load("moons")
    sep = ch06.rbf_problem(moons.X[:40], moons.y[:40], gamma=2.0)
    assert sep.info["rho"] == kperc.margin(kperc.gram_matrix(sep.X, sep.y, "rbf", gamma=2.0))
    out = ch06.isnkpvn_on(sep, eps=min(1e-4, sep.info["rho"] / 2))
    assert out["ok"] and out["outcome"] == "separator"
    dup = ch06.rbf_duplicate_problem(moons.X[:40], moons.y[:40], gamma=2.0)
    out = ch06.isnkpvn_on(dup, eps=1e-2)
    assert out["ok"] and out["outcome"] == "certificate" and out["final_norm"] <= 1e-2


def test_slides_order_needs_the_guard():
    demo = ch06.slides_order_demo(max_iter=200)
    assert demo["norm_q0"] == 0.0
    assert demo["slides_outcome"] == "max_iter" and demo["slides_nit"] == 200
    assert demo["guard_outcome"] == "certificate" and demo["guard_nit"] == 0

"""Experiments of Chapter 2 (kperc_book.experiments.ch02): small, fast instances.

Chapter 1 runs its experiment in its notebook; nbval checks it.
"""

from __future__ import annotations

import numpy as np
import pytest

import kperc
from kperc_book import data
from kperc_book.experiments import ch02

# --------------------------------------------------------------------------- chapter 2


def test_perceptron_rule_most_matches_kperc():
    ds = data.planted(40, 3, 0.1, norm_range=(0.3, 3.0), seed=4)
    nit, sep, w = ch02.perceptron_rule(ds.X, ds.y, "most")
    res = kperc.perceptron(ds.X, ds.y)
    assert sep and nit == res.nit
    assert np.allclose(w, res.w)
    assert np.all(ds.y * (ds.X @ w) > 0)


def test_perceptron_rule_least_and_cap():
    ds = data.two_rays(10.0, 6)
    nit, sep, w = ch02.perceptron_rule(ds.X, ds.y, "least")
    assert sep and np.all(ds.y * (ds.X @ w) > 0)
    assert nit > 20  # the lazy adversary is slow on raw data
    nit_c, sep_c, _ = ch02.perceptron_rule(ds.X, ds.y, "least", max_iter=5)
    assert nit_c == 5 and not sep_c
    with pytest.raises(ValueError):
        ch02.perceptron_rule(ds.X, ds.y, "random")


@pytest.mark.parametrize("r,expected", [(10.0, 97), (31.6, 960), (100.0, 9601)])
def test_lazy_adversary_counts_are_those_of_exact_arithmetic(r, expected):
    """Equal margins are equal: the counts of rational arithmetic on the stored doubles.

    In floating point the incremental margins broke ties by rounding and the book printed
    187, 1844 and 18419 (and other numbers on other BLAS kernels).
    """
    ds = data.two_rays(r, 10)
    nit, sep, _ = ch02.perceptron_rule(ds.X, ds.y, "least")
    assert sep and nit == expected


@pytest.mark.ledger("block-novikoff")
def test_planted_sweep_respects_bounds():
    df = ch02.planted_sweep([0.1, 0.2], range(3), n=30, d=3)
    assert len(df) == 6
    assert np.allclose(df["rho2"], df["rho"], atol=1e-9)
    assert df["sep_perceptron"].all() and df["sep_np"].all()
    assert (df["nit_perceptron"] <= df["bound_perceptron"]).all()
    assert (df["nit_np"] <= df["bound_np"]).all()
    assert (df["ratio_np"] <= 1).all() and (df["ratio_perceptron"] <= 1).all()
    # normalising never hurts: R^2 / rho^2 >= 1 / rho_2^2
    assert (df["bound_perceptron"] >= df["bound_np"] * (1 - 1e-12)).all()


def test_two_rays_closed_forms():
    df = ch02.two_rays_sweep([1.0, 3.0, 10.0], n_per_ray=5)
    rho2 = np.sqrt(2) / 10
    assert np.allclose(df["rho2"], rho2, rtol=1e-9)
    assert np.allclose(df["rho"], rho2 / df["r"], rtol=1e-9)
    assert np.allclose(df["bound_perceptron"], 50 * df["r"] ** 4, rtol=1e-8)
    assert np.allclose(df["bound_np"], 50, rtol=1e-8)
    assert ch02.loglog_slope(df["r"], df["bound_ratio"]) == pytest.approx(4.0, abs=1e-6)
    assert not df[["capped_perceptron", "capped_least", "capped_np"]].to_numpy().any()
    assert (df["nit_least"] <= df["bound_perceptron"]).all()
    assert (df["nit_np"] <= df["bound_np"]).all()


def test_loglog_slope():
    x = np.array([1.0, 2.0, 4.0, 8.0])
    assert ch02.loglog_slope(x, 3 * x**2.5) == pytest.approx(2.5)


@pytest.mark.ledger("normalizing-never-hurts")
def test_margin_ratio_at_most_one():
    df = ch02.margin_ratio_sweep(range(6))
    assert len(df) == 12
    assert (df["ratio"] <= 1 + 1e-12).all()
    # and at least min ||x|| / max ||x||
    assert (df["ratio"] >= 1 / df["spread"] - 1e-12).all()
    assert (df["rho"] > 0).all() and (df["rho2"] > 0).all()
    with pytest.raises(ValueError):
        ch02.margin_ratio_run(0, kind="uniform")


@pytest.mark.ledger("np-equals-perceptron")
def test_sign_patterns_equal():
    df = ch02.sign_pattern_sweep(range(3), n=20, d=3, rho=0.1)
    assert df["same_signs"].all() and df["same_choices"].all() and df["scaled_equal"].all()
    assert (df["nit_np"] == df["nit_perceptron"]).all()
    assert (df["steps"] == df["nit_np"] + 1).all()


def test_sparse_target():
    ds = ch02.sparse_target(50, 20, 3, seed=1)
    assert ds.X.shape == (50, 20) and set(np.unique(ds.X)) == {-1.0, 1.0}
    w = ds.info["w_star"]
    assert np.count_nonzero(w) == 3
    assert np.all(ds.y * (ds.X @ w) >= 1)
    with pytest.raises(ValueError):
        ch02.sparse_target(10, 5, 2)


def test_winnow_run_bounds():
    row = ch02.winnow_run(16, 0)
    assert row["sep_winnow"] and row["sep_np"]
    assert row["rho_inf"] >= 1 / 3 - 1e-9
    assert row["rho2"] <= row["rho_inf"]
    assert row["nit_winnow"] <= row["bound_winnow"]
    assert row["nit_np"] <= row["bound_np"]
    assert ch02.winnow_bound(0.5, 4) == pytest.approx(8 * np.log(8))

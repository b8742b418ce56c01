"""``kperc.datasets.planted_rbf``: a kernel problem whose margin is known from below."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kperc
from kperc.datasets import planted_rbf

#: rounding of ``g(x) = (K(x, Z) c) / ||f||``: ``n_centers`` products of size <= 1 and a
#: division, each with relative error below the unit round-off
_U = np.finfo(np.float64).eps / 2


def _g(ds, X):
    from sklearn.metrics.pairwise import rbf_kernel

    c, Z, gamma = ds.info["coef"], ds.info["centers"], ds.info["gamma"]
    fnorm = np.sqrt(c @ rbf_kernel(Z, Z, gamma=gamma) @ c)
    return rbf_kernel(X, Z, gamma=gamma) @ c / fnorm


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 80),
    d=st.integers(1, 4),
    rho=st.sampled_from([0.2, 0.05, 1e-2, 1e-3]),
    near=st.sampled_from([0.0, 0.5, 1.0]),
    seed=st.integers(0, 2**16),
)
def test_the_planted_function_separates_with_the_gap(n, d, rho, near, seed):
    try:
        ds = planted_rbf(n, d, rho, near=near, seed=seed)
    except ValueError as exc:  # a seed whose function has one sign, or too large a gap
        assert "seed" in str(exc) or "too large" in str(exc)
        return
    assert ds.X.shape == (n, d) and set(np.unique(ds.y)) <= {-1.0, 1.0}
    g = _g(ds, ds.X)
    tol = 4 * (ds.info["coef"].size + 2) * _U
    assert np.all(ds.y * g >= rho * (1 - tol)), "a point inside the gap or on the wrong side"
    assert ds.info["planted_margin"] >= rho * (1 - tol)
    n_near = int(round(near * n))
    band = np.abs(g) <= 2 * rho * (1 + tol)
    assert band.sum() >= n_near  # the near points (and perhaps a few far ones)


def test_the_kernel_margin_is_at_least_the_planted_one():
    for seed in range(3):
        ds = planted_rbf(40, 2, rho=0.05, gamma=2.0, seed=seed)
        G = kperc.gram_matrix(ds.X, ds.y, "rbf", gamma=2.0)
        assert kperc.margin(G) >= ds.info["planted_margin"] * (1 - 1e-9)


def test_same_seed_same_data_and_another_seed_other_data():
    a, b = planted_rbf(50, 3, 0.01, seed=7), planted_rbf(50, 3, 0.01, seed=7)
    c = planted_rbf(50, 3, 0.01, seed=8)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)


def test_snkp_separates_it_with_the_exact_kernel():
    ds = planted_rbf(100, 2, rho=0.02, seed=1)
    G = kperc.gram_matrix(ds.X, ds.y, "rbf", gamma=ds.info["gamma"])
    res = kperc.snkp(G)
    assert res.outcome == "separator" and np.all(G @ res.alpha > 0)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"rho": 0.0}, "rho"),
        ({"rho": 1.0}, "rho"),
        ({"rho": float("nan")}, "rho"),
        ({"gamma": -1.0}, "gamma"),
        ({"gamma": float("inf")}, "gamma"),
        ({"near": 1.5}, "near"),
        ({"n": 1}, "n"),
        ({"n_centers": 1}, "n_centers"),
        ({"d": 0}, "d"),
        ({"seed": -1}, "seed"),
    ],
)
def test_invalid_parameters_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        planted_rbf(**kwargs)


def test_a_gap_too_large_for_the_function_is_refused():
    with pytest.raises(ValueError, match="too large"):
        planted_rbf(50, 2, rho=0.99, seed=0)

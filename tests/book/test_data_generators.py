"""Exactness of the seeded generators (planted margin, two rays, 2-D infeasible)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import seeds
from hypothesis import given
from hypothesis import strategies as st

import kperc
from kperc_book import data


@pytest.mark.ledger("minimax-margin")
@given(
    seed=seeds,
    n=st.integers(2, 60),
    d=st.integers(2, 8),
    rho=st.sampled_from([0.9, 0.3, 0.05, 1e-3, 1e-4]),
    near=st.floats(0, 1),
)
def test_planted_margin_is_exact(seed, n, d, rho, near):
    ds = data.planted(n, d, rho, near=near, norm_range=(0.2, 5.0), seed=seed)
    assert ds.X.shape == (n, d) and set(np.unique(ds.y)) <= {-1.0, 1.0}
    assert ds.info["rho"] == rho
    A = ds.X * (ds.y / np.linalg.norm(ds.X, axis=1))[:, None]
    w = ds.info["w_star"]
    assert abs(np.linalg.norm(w) - 1) <= 1e-15
    # certificate: w* has margin >= rho on every point, attained by the support points
    assert np.min(A @ w) >= rho - 1e-15
    s = ds.info["support"]
    np.testing.assert_allclose(A[s] @ w, rho, atol=1e-15)
    mid = A[s].mean(axis=0)  # the nearest point of the hull, at distance rho
    assert abs(np.linalg.norm(mid) - rho) <= 1e-15
    assert abs(kperc.margin(kperc.gram_matrix(ds.X, ds.y)) - rho) <= 1e-9


def test_planted_is_deterministic():
    a, b = data.planted(30, 4, 0.1, seed=7), data.planted(30, 4, 0.1, seed=7)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    c = data.planted(30, 4, 0.1, seed=8)
    assert not np.array_equal(a.X, c.X)


@pytest.mark.ledger("normalising-never-hurts")
@pytest.mark.parametrize("r", [1.0, 2.0, 5.0, 10.0, 100.0])
def test_two_rays_closed_forms(r):
    ds = data.two_rays(r, 10)
    rho2 = np.sqrt(2.0) / 10.0
    assert ds.info["rho2"] == rho2
    assert np.isclose(ds.info["rho"], rho2 / r, rtol=1e-15)
    assert ds.info["R"] == r
    assert np.isclose(np.max(np.linalg.norm(ds.X, axis=1)), r, rtol=1e-14)
    assert np.isclose(np.min(np.linalg.norm(ds.X, axis=1)), 1 / r, rtol=1e-14)
    assert abs(kperc.data_margin(ds.X, ds.y) - rho2) <= 1e-12
    assert abs(kperc.data_margin(ds.X, ds.y, normalize=False) - rho2 / r) <= 1e-12
    w = ds.info["w_star"]
    assert np.isclose(np.min(ds.y * (ds.X @ w)), rho2 / r, rtol=1e-12)
    ratio = (r**2 / (rho2 / r) ** 2) / (1 / rho2**2)
    assert np.isclose(ratio, r**4, rtol=1e-12)
    assert np.isclose(1 / rho2**2, 50.0, rtol=1e-14)


@pytest.mark.ledger("theorem-3")
@given(seed=seeds, rho=st.floats(-0.95, -0.01), extra=st.integers(0, 20))
def test_infeasible_2d_margin_is_exact(seed, rho, extra):
    half = np.arccos(-rho)
    k_min = int(np.ceil((2 * np.pi - 2 * half) / half)) + 1
    n = k_min + 1 + extra
    ds = data.infeasible(n, 2, rho, seed=seed)
    assert ds.X.shape == (n, 2)
    assert abs(ds.info["rho"] - rho) <= 1e-9
    assert ds.info["rho_target"] == rho
    # the exact construction: a chord at distance |rho| along nu, every other chord
    # farther (gaps below the main arc), checked on the angles themselves
    A = ds.X * (ds.y / np.linalg.norm(ds.X, axis=1))[:, None]
    ang = np.sort(np.mod(np.arctan2(A[:, 1], A[:, 0]), 2 * np.pi))
    gaps = np.diff(np.concatenate([ang, [ang[0] + 2 * np.pi]]))
    chord_dist = np.cos(gaps / 2)
    assert abs(chord_dist.min() - abs(rho)) <= 1e-12
    assert abs(kperc.margin(kperc.gram_matrix(ds.X, ds.y)) - rho) <= 1e-9


def test_infeasible_refuses_too_few_points_in_2d():
    with pytest.raises(ValueError, match="needs n >="):
        data.infeasible(4, 2, -0.9, seed=0)


@given(seed=seeds, d=st.integers(3, 5))
def test_infeasible_higher_dimension_is_bounded_by_target(seed, d):
    ds = data.infeasible(4 * d, d, -0.3, seed=seed)
    assert -0.3 - 1e-9 <= ds.info["rho"] < 0


def test_generators_refuse_bad_arguments():
    with pytest.raises(ValueError, match="rho"):
        data.planted(10, 3, 0.0)
    with pytest.raises(ValueError, match="rho"):
        data.infeasible(10, 2, 0.1)
    with pytest.raises(ValueError, match="two_rays"):
        data.two_rays(0.5)


def test_stored_planted_dataset():
    ds = data.load("planted_2d")
    assert abs(kperc.data_margin(ds.X, ds.y) - 0.15) <= 1e-9


@pytest.mark.parametrize("name", sorted(data.PROBLEMS))
def test_a_stored_problem_is_a_dataset_that_knows_its_kernel(name):
    G, ds, kernel, params = data.problem(name)
    assert isinstance(ds, data.Dataset)
    assert ds.kernel == kernel and ds.kernel_params == params
    np.testing.assert_array_equal(ds.gram(), G)

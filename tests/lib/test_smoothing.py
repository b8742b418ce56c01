"""Prox-functions and smoothed minimisers over the simplex (Sections 4 and 6)."""

from __future__ import annotations

import numpy as np
from conftest import random_simplex, seeds
from hypothesis import given
from hypothesis import strategies as st

from kperc._smoothing import (
    entropy,
    entropy_prox,
    euclidean_prox,
    log_mean_exp,
    project_simplex,
    simplex_max_prox_q,
)


def _tau_bisection(v):
    lo, hi = v.min() - 1.0, v.max()
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.maximum(v - mid, 0).sum() > 1:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@given(seed=seeds, n=st.integers(1, 30), scale=st.floats(1e-3, 1e3))
def test_project_simplex_matches_bisection(seed, n, scale):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n) * scale
    v0 = v.copy()
    p = project_simplex(v)
    np.testing.assert_array_equal(v, v0)
    assert np.all(p >= 0) and abs(p.sum() - 1) <= 1e-12
    np.testing.assert_allclose(p, np.maximum(v - _tau_bisection(v), 0), atol=1e-10 * scale)
    # projection property: <v - p, x - p> <= 0 for every x in the simplex
    for _ in range(10):
        x = random_simplex(rng, n, sparse=True)
        assert (v - p) @ (x - p) <= 1e-9 * scale


@given(seed=seeds, n=st.integers(2, 20), mu=st.sampled_from([1e-8, 1e-3, 0.1, 2.0, 50.0]))
def test_entropy_prox_is_the_argmin(seed, n, mu):
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(n)
    with np.errstate(all="raise"):
        p = entropy_prox(g, mu)
    assert np.all(p >= 0) and abs(p.sum() - 1) <= 1e-12

    def obj(x):
        return float(g @ x + mu * entropy(x))

    best = obj(p)
    for _ in range(30):
        x = random_simplex(rng, n, sparse=bool(rng.integers(2)))
        assert best <= obj(x) + 1e-12 * (1 + abs(best))
    # the softmax closed form of eq. (12), where it can be evaluated directly
    if mu >= 0.1:
        e = np.exp(-g / mu)
        np.testing.assert_allclose(p, e / e.sum(), rtol=1e-12)


@given(seed=seeds, n=st.integers(2, 20), mu=st.sampled_from([1e-8, 1e-2, 1.0, 40.0]))
def test_euclidean_prox_is_the_argmin(seed, n, mu):
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(n)
    q = random_simplex(rng, n, sparse=True)
    p = euclidean_prox(g, mu, q)
    assert np.all(p >= 0) and abs(p.sum() - 1) <= 1e-12

    def obj(x):
        return float(g @ x + 0.5 * mu * np.sum((x - q) ** 2))

    for _ in range(30):
        x = random_simplex(rng, n, sparse=bool(rng.integers(2)))
        assert obj(p) <= obj(x) + 1e-9 * (1 + abs(obj(x)))


@given(seed=seeds, n=st.integers(1, 20))
def test_entropy_range_and_pinsker(seed, n):
    rng = np.random.default_rng(seed)
    assert abs(entropy(np.full(n, 1.0 / n))) <= 1e-12
    e0 = np.zeros(n)
    e0[0] = 1.0
    assert np.isclose(entropy(e0), np.log(n), atol=1e-12)
    for _ in range(20):
        p = random_simplex(rng, n, sparse=bool(rng.integers(2)))
        d = entropy(p)
        assert -1e-12 <= d <= np.log(n) + 1e-12
        assert d >= 0.5 * np.abs(p - 1.0 / n).sum() ** 2 - 1e-12


@given(seed=seeds, n=st.integers(1, 20))
def test_simplex_max_prox_q(seed, n):
    rng = np.random.default_rng(seed)
    q = random_simplex(rng, n, sparse=True)
    vertices = [0.5 * np.sum((np.eye(n)[j] - q) ** 2) for j in range(n)]
    assert np.isclose(simplex_max_prox_q(q), max(vertices), atol=1e-14)
    assert simplex_max_prox_q(q) <= 1.0


def test_no_overflow_or_underflow_as_mu_goes_to_zero():
    g = np.array([-0.8, 0.3, 5.0, -0.8])
    with np.errstate(all="raise"):
        for mu in (1e-3, 1e-8, 1e-12):
            p = entropy_prox(g, mu)
            assert np.all(np.isfinite(p))
            np.testing.assert_allclose(p, [0.5, 0.0, 0.0, 0.5], atol=1e-12)
            assert np.isfinite(log_mean_exp(-g / mu))
    assert np.isclose(log_mean_exp(np.array([1000.0, 1000.0])), 1000.0)
    assert np.isclose(log_mean_exp(np.zeros(7)), 0.0)

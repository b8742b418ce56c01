"""The loss functions L, L_mu, L^q_mu and the G-seminorm (Sections 3, 4 and 6)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import (
    g_norm,
    infeasible_problem,
    kernel_problem,
    planted_problem,
    random_simplex,
    seeds,
)
from hypothesis import given
from hypothesis import strategies as st

import kperc
from kperc._smoothing import entropy, simplex_max_prox_q

MUS = [1e-8, 1e-4, 1e-2, 0.5, 2.0, 30.0]


def _prob(seed):
    return (planted_problem, kernel_problem, infeasible_problem)[seed % 3](seed)


@given(seed=seeds)
def test_loss_matches_definition(seed):
    prob = _prob(seed)
    G = prob.gram()
    rng = np.random.default_rng(seed)
    alpha = rng.standard_normal(len(prob.y))
    a0 = alpha.copy()
    G0 = G.copy()
    val = kperc.loss(G, alpha)
    np.testing.assert_array_equal(alpha, a0)
    np.testing.assert_array_equal(G, G0)
    Ga = G @ alpha
    # sup over the simplex of <-G alpha, p> is attained at a vertex
    assert np.isclose(val, np.max(-Ga) + 0.5 * alpha @ Ga, atol=1e-12)
    for _ in range(20):
        p = random_simplex(rng, len(prob.y))
        assert val >= -Ga @ p + 0.5 * alpha @ Ga - 1e-12
    assert kperc.loss(G, alpha, Galpha=Ga) == val


@pytest.mark.ledger("lemma-4")
@given(seed=seeds, mu=st.sampled_from(MUS), scale=st.floats(0.01, 10.0))
def test_lemma4_entropy_smoothing_sandwich(seed, mu, scale):
    prob = _prob(seed)
    G = prob.gram()
    rng = np.random.default_rng(seed)
    alpha = rng.standard_normal(len(prob.y)) * scale
    with np.errstate(all="raise"):
        L = kperc.loss(G, alpha)
        Lmu = kperc.smoothed_loss(G, alpha, mu)
    assert np.isfinite(Lmu)
    tol = 1e-12 * (1 + abs(L))
    assert L - mu * np.log(len(prob.y)) - tol <= Lmu <= L + tol


@pytest.mark.ledger("lemma-4")
@given(seed=seeds, mu=st.sampled_from([1e-2, 0.5, 2.0]))
def test_smoothed_loss_is_the_sup(seed, mu):
    """L_mu(alpha) = sup_p {-<G alpha, p> - mu d(p)} + ||alpha||_G^2 / 2, at the softmax."""
    prob = _prob(seed)
    G = prob.gram()
    rng = np.random.default_rng(seed)
    alpha = rng.standard_normal(len(prob.y))
    Ga = G @ alpha
    half = 0.5 * alpha @ Ga
    val = kperc.smoothed_loss(G, alpha, mu)
    p = kperc.entropy_prox(Ga, mu)
    assert np.isclose(val, -Ga @ p - mu * entropy(p) + half, atol=1e-10)
    for _ in range(20):
        x = random_simplex(rng, len(prob.y), sparse=bool(rng.integers(2)))
        assert val >= -Ga @ x - mu * entropy(x) + half - 1e-12


@given(seed=seeds)
def test_smoothed_loss_tends_to_loss(seed):
    prob = _prob(seed)
    G = prob.gram()
    alpha = np.random.default_rng(seed).standard_normal(len(prob.y))
    L = kperc.loss(G, alpha)
    with np.errstate(all="raise"):
        rnd = 1e-12 * (1 + abs(L))  # round-off of L itself
        assert abs(kperc.smoothed_loss(G, alpha, 1e-8) - L) <= 1e-8 * np.log(len(prob.y)) + rnd
        assert abs(kperc.smoothed_loss(G, alpha, 1e-300) - L) <= rnd


@pytest.mark.ledger("lemma-8")
@given(seed=seeds, mu=st.sampled_from(MUS))
def test_euclidean_smoothing_sandwich(seed, mu):
    """L - mu max d_q <= L^q_mu <= L, and max d_q <= 1 (right half of Lemma 8)."""
    prob = _prob(seed)
    G = prob.gram()
    rng = np.random.default_rng(seed)
    alpha = rng.standard_normal(len(prob.y))
    q = random_simplex(rng, len(prob.y), sparse=True)
    with np.errstate(all="raise", under="ignore"):
        L = kperc.loss(G, alpha)
        Lq = kperc.smoothed_loss_q(G, alpha, mu, q)
    tol = 1e-12 * (1 + abs(L))
    assert L - mu * simplex_max_prox_q(q) - tol <= Lq <= L + tol
    assert Lq >= L - mu - tol
    Ga = G @ alpha
    for _ in range(20):
        x = random_simplex(rng, len(prob.y), sparse=bool(rng.integers(2)))
        assert Lq >= -Ga @ x - 0.5 * mu * np.sum((x - q) ** 2) + 0.5 * alpha @ Ga - tol


@pytest.mark.ledger("lemma-9")
@given(seed=seeds, mu=st.sampled_from([1e-3, 0.5, 10.0]))
def test_lemma9_lower_bound_at_random_points(seed, mu):
    prob = infeasible_problem(seed)
    G = prob.gram()
    rng = np.random.default_rng(seed)
    q = random_simplex(rng, len(prob.y))
    dist = kperc.dist_to_witness(G, q).dist
    for _ in range(10):
        alpha = rng.standard_normal(len(prob.y)) * rng.uniform(0.01, 3)
        Lq = kperc.smoothed_loss_q(G, alpha, mu, q)
        assert Lq >= -0.5 * mu * (dist * (1 + 1e-7)) ** 2 - 1e-12


@pytest.mark.ledger("lemma-5")
@given(seed=seeds)
def test_weak_duality(seed):
    """L(alpha) >= -||p||_G^2 / 2 for every alpha and every p in the simplex."""
    prob = _prob(seed)
    G = prob.gram()
    rng = np.random.default_rng(seed)
    for _ in range(30):
        alpha = rng.standard_normal(len(prob.y)) * rng.uniform(0.01, 3)
        p = random_simplex(rng, len(prob.y), sparse=bool(rng.integers(2)))
        assert kperc.loss(G, alpha) >= -0.5 * g_norm(G, p) ** 2 - 1e-12


def test_g_seminorm_clamps_round_off():
    X = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    G = kperc.gram_matrix(X, [1, -1])
    v = kperc.g_seminorm(G, np.array([0.5, 0.5]))
    assert v == 0.0 or (np.isfinite(v) and v < 1e-7)
    op = kperc.gram_operator(X, [1, -1])
    assert kperc.g_seminorm(op, np.array([0.5, 0.5])) == 0.0


def test_losses_refuse_bad_mu_and_shape():
    G = np.eye(3)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="mu"):
            kperc.smoothed_loss(G, np.ones(3), bad)
        with pytest.raises(ValueError, match="mu"):
            kperc.smoothed_loss_q(G, np.ones(3), bad, np.full(3, 1 / 3))
    with pytest.raises(ValueError, match="shape"):
        kperc.loss(G, np.ones(4))

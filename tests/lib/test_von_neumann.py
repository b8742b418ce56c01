"""Normalised Von Neumann / Gilbert algorithm (PAPER.md Section 5, Algorithm 5)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import (
    duplicate_opposite,
    g_norm,
    infeasible_problem,
    kernel_problem,
    planted_problem,
    seeds,
)
from hypothesis import given
from hypothesis import strategies as st

import kperc
from kperc._von_neumann import line_search_step

ROUND = 1e-12


def _check_certificate(G, p, eps):
    assert np.all(p >= 0) and abs(p.sum() - 1.0) <= 1e-12
    assert g_norm(G, p) <= eps


@pytest.mark.ledger("dantzig")
@given(seed=seeds, eps=st.sampled_from([0.3, 0.1, 0.03]))
def test_nvn_dantzig(seed, eps):
    prob = (planted_problem, kernel_problem, infeasible_problem)[seed % 3](seed)
    G = prob.gram()
    res = kperc.nvn(G, eps=eps, trace=True)
    assert res.success
    s = res.trace["norm_w"] ** 2
    k = res.trace["k"]
    assert np.array_equal(k, np.arange(res.nit + 1))  # one entry per iterate
    assert np.all(s <= (1.0 + ROUND) / (k + 1))
    # the one-step form: 1/||w_{k+1}||^2 >= 1/||w_k||^2 + 1 at every update
    assert np.all(1.0 / s[1:] >= (1.0 / s[:-1] + 1.0) * (1 - ROUND))
    assert res.nit <= math.ceil(1.0 / eps**2) - 1
    if res.outcome == "certificate":
        _check_certificate(G, res.p, eps)
    else:
        assert np.all(G @ res.alpha > 0)


@pytest.mark.ledger("dantzig")
@given(seed=seeds)
def test_nvn_without_primal_exit_halts_within_dantzig(seed):
    """Without the primal exit the certificate test alone halts within ceil(1/eps^2)-1."""
    prob = infeasible_problem(seed)
    G = prob.gram()
    eps = 0.05
    res = kperc.nvn(G, eps=eps, primal_exit=False)
    assert res.outcome == "certificate"
    assert res.nit <= math.ceil(1.0 / eps**2) - 1
    _check_certificate(G, res.p, eps)


@pytest.mark.ledger("epelman-freund-primal")
@given(seed=seeds)
def test_nvn_epelman_freund_primal(seed):
    prob = planted_problem(seed) if seed % 2 else kernel_problem(seed)
    G = prob.gram()
    res = kperc.nvn(G, eps=1e-6, trace=True)
    assert res.outcome == "separator"
    assert np.all(G @ res.alpha > 0)
    assert res.nit <= 1.0 / prob.info["rho"] ** 2
    # ||w_k|| >= rho_2 because w_k is in the hull of the signed points
    assert np.all(res.trace["norm_w"] >= prob.info["rho"] * (1 - 1e-9))


@pytest.mark.ledger("epelman-freund-dual")
@given(seed=seeds, eps=st.sampled_from([1e-2, 1e-3, 1e-5]))
def test_nvn_epelman_freund_dual(seed, eps):
    prob = infeasible_problem(seed)
    G = prob.gram()
    rho = prob.info["rho"]
    assert rho < 0
    res = kperc.nvn(G, eps=eps, trace=True)
    assert res.outcome == "certificate"
    _check_certificate(G, res.p, eps)
    s = res.trace["norm_w"] ** 2
    assert np.all(s[1:] <= (1.0 - rho**2) * s[:-1] * (1 + ROUND))
    w0 = res.trace["norm_w"][0]
    bound = math.ceil(2 * math.log(w0 / eps) / -math.log(1.0 - rho**2))
    assert res.nit <= bound
    assert bound <= math.ceil(2 * math.log(1 / eps) / rho**2)


@pytest.mark.ledger("dantzig")
@given(seed=seeds)
def test_nvn_duplicate_opposite_labels(seed):
    """A point repeated with the opposite label: an exact certificate exists."""
    X, y = duplicate_opposite(seed)
    G = kperc.gram_matrix(X, y)
    eps = 0.02
    with np.errstate(all="raise", under="ignore"):
        res = kperc.nvn(G, eps=eps)
    assert res.outcome == "certificate"
    _check_certificate(G, res.p, eps)
    assert res.nit <= math.ceil(1.0 / eps**2) - 1


def test_line_search_step_is_the_exact_minimiser():
    rng = np.random.default_rng(0)
    for _ in range(200):
        w = rng.standard_normal(3) * rng.uniform(0.01, 1)
        a = rng.standard_normal(3)
        a /= np.linalg.norm(a)
        t = line_search_step(float(w @ w), float(a @ w), 1.0)
        grid = np.linspace(0, 1, 20001)
        vals = np.linalg.norm((1 - grid)[:, None] * w + grid[:, None] * a, axis=1) ** 2
        assert 0.0 <= t <= 1.0
        assert np.linalg.norm((1 - t) * w + t * a) ** 2 <= vals.min() + 1e-12
        if a @ w <= 0:  # closed form for the minimum value (PAPER.md Section 5)
            val = (w @ w - (a @ w) ** 2) / np.sum((w - a) ** 2)
            assert np.isclose(np.linalg.norm((1 - t) * w + t * a) ** 2, val, atol=1e-14)
    assert line_search_step(1.0, 1.0, 1.0) == 0.0  # w == a_j: no move


@given(seed=seeds)
def test_linear_form_matches_kernel_form(seed):
    prob = (planted_problem, infeasible_problem)[seed % 2](seed)
    G = prob.gram()
    lin = kperc.von_neumann_linear(prob.X, prob.y, eps=1e-3, trace=True)
    ker = kperc.nvn(G, eps=1e-3, trace=True)
    assert lin.outcome == ker.outcome and lin.nit == ker.nit
    np.testing.assert_allclose(lin.p, ker.p, atol=1e-10)
    np.testing.assert_array_equal(lin.trace["j"], ker.trace["j"])
    A = prob.X * (prob.y / np.linalg.norm(prob.X, axis=1))[:, None]
    np.testing.assert_allclose(A.T @ lin.p, lin.w, atol=1e-12)
    np.testing.assert_allclose(lin.trace["norm_w"], ker.trace["norm_w"], atol=1e-10)


def test_nvn_max_iter_is_not_an_error():
    prob = infeasible_problem(2, d=2, rho=-0.05)
    G = prob.gram()
    res = kperc.nvn(G, eps=1e-7, max_iter=10)  # above the certifiable floor
    assert res.outcome == "max_iter" and res.nit == 10 and not res.success
    assert "max_iter" in res.message
    assert np.all(res.p >= 0) and abs(res.p.sum() - 1) <= 1e-12

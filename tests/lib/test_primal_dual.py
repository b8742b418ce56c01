"""SNKPVN and ISNKPVN, the kernelised primal-dual methods (PAPER.md Section 6)."""

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
    random_simplex,
    seeds,
)
from hypothesis import given
from hypothesis import strategies as st

import kperc

ROUND = 1e-12


def _simplex(v, tol=1e-10):
    return bool(np.all(v >= 0) and abs(v.sum() - 1.0) <= tol)


def _centre(prob, seed, random_q):
    if not random_q:
        return np.full(len(prob.y), 1.0 / len(prob.y))
    return random_simplex(np.random.default_rng(seed), len(prob.y), sparse=bool(seed % 2))


# ---------------------------------------------------------------------------- SNKPVN


@pytest.mark.ledger("snkpvn-bound")
@given(seed=seeds, frac=st.sampled_from([0.9, 0.3, 1e-3]), random_q=st.booleans())
def test_snkpvn_delta_below_rho_returns_separator(seed, frac, random_q):
    prob = planted_problem(seed) if seed % 3 else kernel_problem(seed)
    G = prob.gram()
    q = _centre(prob, seed, random_q)
    delta = frac * prob.info["rho"]
    res = kperc.snkpvn(G, q, delta)
    assert res.outcome == "separator"
    assert np.all(G @ res.alpha > 0)
    K = res.nit
    assert K < 2 * math.sqrt(2 * len(prob.y)) / prob.info["rho"]
    assert K * (K + 1) <= 8 * len(prob.y) / prob.info["rho"] ** 2
    assert _simplex(res.alpha) and _simplex(res.p)


@pytest.mark.ledger("snkpvn-bound")
@given(seed=seeds, factor=st.sampled_from([1.5, 3.0, 10.0]), random_q=st.booleans())
def test_snkpvn_delta_above_rho(seed, factor, random_q):
    prob = planted_problem(seed) if seed % 3 else kernel_problem(seed)
    G = prob.gram()
    q = _centre(prob, seed, random_q)
    delta = factor * prob.info["rho"]
    res = kperc.snkpvn(G, q, delta)
    assert res.success
    K = res.nit
    assert K < 2 * math.sqrt(2 * len(prob.y)) / max(prob.info["rho"], delta)
    assert K < 2 * math.sqrt(2 * len(prob.y)) / delta
    if res.outcome == "separator":
        assert np.all(G @ res.alpha > 0)
    else:
        assert g_norm(G, res.p) < delta and _simplex(res.p)
        # Lemma 3: any point of the simplex bounds the margin from above
        assert prob.info["rho"] <= g_norm(G, res.p) * (1 + ROUND)


def _lemma8_checks(tr):
    L, Lq, mu, normp = tr["L"], tr["L_mu_q"], tr["mu"], tr["norm_p_G"]
    tol = ROUND * (1.0 + np.abs(L))
    assert np.all(-0.5 * normp**2 >= Lq - tol)
    assert np.all(Lq >= L - mu - tol)


@pytest.mark.ledger("lemma-8")
@given(seed=seeds, random_q=st.booleans())
def test_snkpvn_lemma8_along_runs(seed, random_q):
    prob = (planted_problem, kernel_problem, infeasible_problem)[seed % 3](seed)
    G = prob.gram()
    q = _centre(prob, seed, random_q)
    res = kperc.snkpvn(G, q, 1e-9, trace=True, max_iter=300)
    assert len(res.trace["k"]) == res.nit + 1
    _lemma8_checks(res.trace)


@pytest.mark.ledger("lemma-8")
@given(seed=seeds)
def test_snkpvn_trace_matches_losses(seed):
    prob = infeasible_problem(seed)
    G = prob.gram()
    q = random_simplex(np.random.default_rng(seed), len(prob.y))
    for k in (1, 3, 20):
        res = kperc.snkpvn(G, q, 1e-12, max_iter=k, trace=True)
        assert res.outcome == "max_iter" and res.nit == k
        a = res.alpha
        assert np.isclose(res.trace["L"][-1], kperc.loss(G, a), atol=1e-12, rtol=0)
        assert np.isclose(
            res.trace["L_mu_q"][-1], kperc.smoothed_loss_q(G, a, res.mu, q), atol=1e-12, rtol=0
        )


@pytest.mark.ledger("mu-closed-form")
@given(seed=seeds)
def test_snkpvn_mu_closed_form(seed):
    prob = infeasible_problem(seed)
    G = prob.gram()
    res = kperc.snkpvn(G, None, 1e-12, trace=True, max_iter=150)
    k = res.trace["k"]
    np.testing.assert_allclose(res.trace["mu"], 4.0 * len(prob.y) / ((k + 1) * (k + 2)), rtol=1e-12)


@pytest.mark.ledger("lemma-9")
@given(seed=seeds, random_q=st.booleans())
def test_snkpvn_lemma9_infeasible(seed, random_q):
    prob = infeasible_problem(seed)
    G = prob.gram()
    q = _centre(prob, seed, random_q)
    dist = kperc.dist_to_witness(G, q).dist
    res = kperc.snkpvn(G, q, 1e-9, trace=True, max_iter=300)
    tr = res.trace
    tol = ROUND * (1.0 + np.abs(tr["L"]))
    assert np.all(-0.5 * tr["norm_p_G"] ** 2 >= tr["L_mu_q"] - tol)
    # dist is computed to ~1e-9, hence the relative allowance on it
    assert np.all(tr["L_mu_q"] >= -0.5 * tr["mu"] * (dist * (1 + 1e-7)) ** 2 - tol)


@pytest.mark.ledger("snkpvn-infeasible-bound")
@given(seed=seeds, delta=st.sampled_from([0.1, 0.01, 1e-3]), random_q=st.booleans())
def test_snkpvn_infeasible_bound(seed, delta, random_q):
    prob = infeasible_problem(seed)
    G = prob.gram()
    q = _centre(prob, seed, random_q)
    res = kperc.snkpvn(G, q, delta)
    assert res.outcome == "certificate"
    assert g_norm(G, res.p) < delta and _simplex(res.p)
    dist = kperc.dist_to_witness(G, q).dist
    assert res.nit < 2 * math.sqrt(len(prob.y)) * dist * (1 + 1e-7) / delta
    assert res.nit < 2 * math.sqrt(2 * len(prob.y)) / delta
    # Lemma 7 bound on dist(q, W)
    nq = g_norm(G, q)
    assert dist <= math.sqrt(2) * nq / (nq + abs(prob.info["rho"])) * (1 + 1e-7)


@pytest.mark.ledger("snkpvn-infeasible-bound")
@given(seed=seeds)
def test_snkpvn_always_within_sqrt_2n_over_delta(seed):
    X, y = duplicate_opposite(seed)
    G = kperc.gram_matrix(X, y, "rbf", gamma=1.0)
    for delta in (0.3, 0.05):
        res = kperc.snkpvn(G, None, delta)
        assert res.success
        assert res.nit < 2 * math.sqrt(2 * G.shape[0]) / delta


# --------------------------------------------------------------------------- ISNKPVN


@pytest.mark.ledger("isnkpvn")
@given(seed=seeds, gamma=st.sampled_from([1.5, 2.0, 4.0]))
def test_isnkpvn_feasible_returns_separator(seed, gamma):
    prob = planted_problem(seed) if seed % 2 else kernel_problem(seed)
    G = prob.gram()
    eps = min(1e-3, prob.info["rho"] / 2)
    res = kperc.isnkpvn(G, gamma=gamma, eps=eps, trace=True)
    assert res.outcome == "separator"
    assert np.all(G @ res.alpha > 0)
    tr = res.trace
    assert res.nit == int(np.sum(tr["inner_nit"]))
    assert res.nouter == len(tr["t"])
    # each dual return divides ||q||_G by more than gamma
    nq = tr["norm_q_G"]
    assert np.all(nq[1:] < nq[:-1] / gamma * (1 + ROUND))
    # each call is an SNKPVN run with the feasible-case bound
    assert np.all(tr["inner_nit"] < 2 * math.sqrt(2 * len(prob.y)) / prob.info["rho"])
    assert list(tr["outcome"][:-1]) == ["certificate"] * (res.nouter - 1)


@pytest.mark.ledger("isnkpvn")
@given(seed=seeds, gamma=st.sampled_from([1.5, 2.0, 4.0]), eps=st.sampled_from([1e-2, 1e-3, 1e-5]))
def test_isnkpvn_infeasible_returns_certificate(seed, gamma, eps):
    prob = infeasible_problem(seed)
    G = prob.gram()
    res = kperc.isnkpvn(G, gamma=gamma, eps=eps, trace=True)
    assert res.outcome == "certificate"
    assert _simplex(res.p, 1e-12)
    assert g_norm(G, res.p) <= eps
    tr = res.trace
    calls = [o for o in tr["outcome"] if o in ("certificate", "separator", "max_iter")]
    assert res.nouter == len(calls)
    assert res.nit == int(np.sum(tr["inner_nit"]))
    # ||q_0||_G <= 1 and ||q_t||_G < gamma^-t: at most about log(1/eps)/log(gamma) calls
    assert res.nouter <= math.ceil(math.log(1 / eps) / math.log(gamma)) + 1


@pytest.mark.ledger("isnkpvn")
@given(seed=seeds, kernel=st.sampled_from(["linear", "rbf"]))
def test_isnkpvn_duplicate_opposite_labels(seed, kernel):
    X, y = duplicate_opposite(seed)
    G = kperc.gram_matrix(X, y, kernel)
    with np.errstate(all="raise", under="ignore"):
        res = kperc.isnkpvn(G, eps=1e-3)
    assert res.outcome == "certificate"
    assert g_norm(G, res.p) <= 1e-3 and _simplex(res.p, 1e-12)


@pytest.mark.ledger("isnkpvn")
def test_isnkpvn_guard_when_q0_is_an_exact_witness():
    """n = 2, one point with both labels: ||q_0||_G = 0 (PAPER.md Section 9, item 4)."""
    G = kperc.gram_matrix(np.array([[1.0, 2.0], [1.0, 2.0]]), [1, -1])
    res = kperc.isnkpvn(G, eps=1e-6, trace=True)
    assert res.outcome == "certificate" and res.nit == 0 and res.nouter == 0
    np.testing.assert_allclose(res.p, [0.5, 0.5])
    snk = kperc.snkpvn(G, None, 1e-6, max_iter=100)  # delta_t = 0 would never exit
    assert snk.outcome == "certificate"


def test_isnkpvn_max_iter_is_not_an_error():
    prob = infeasible_problem(4, d=2, rho=-0.02)
    G = prob.gram()
    # eps = 1e-6: above the floor of a certificate for the data's exact Gram matrix (about
    # 8e-8 here, twice sqrt of G's construction rounding), so that the run could end with
    # a certificate and max_iter is what stops it (1e-8 would end "undecided" if reached)
    res = kperc.isnkpvn(G, eps=1e-6, max_iter=5)
    assert res.outcome == "max_iter" and res.nit == 5 and not res.success
    assert "max_iter" in res.message


@pytest.mark.ledger("theorem-2")
@given(seed=seeds)
def test_gordan_in_rkhs_exactly_one_alternative(seed):
    """Theorem 2: a separator (G alpha > 0) or a witness (G p = 0), never both."""
    rng = np.random.default_rng(seed)
    kernel = ("rbf", "poly")[seed % 2]
    params = {"gamma": 1.0} if kernel == "rbf" else {"degree": 2, "coef0": 0.0}
    X = rng.standard_normal((8, 2))
    y = np.where(rng.random(8) < 0.5, -1.0, 1.0)
    if seed % 3 == 0:  # x and -x have the same degree-2 homogeneous features
        X = np.vstack([X, -X[:1]]) if kernel == "poly" else np.vstack([X, X[:1]])
        y = np.concatenate([y, -y[:1]])
    # eps = 1e-7 is below what can be certified for the data's exact Gram matrix (the
    # kernel's construction rounding delta ~ 1e-14 puts that floor near sqrt(delta) ~ 2e-7,
    # where isnkpvn(gram_matrix(...)) answers "undecided"); Theorem 2 is about a matrix,
    # so the test takes G as given: a copy, which is certified as the matrix it is
    G = np.array(kperc.gram_matrix(X, y, kernel, **params))
    res = kperc.isnkpvn(G, eps=1e-7)
    assert res.success
    if res.outcome == "separator":
        assert np.all(G @ res.alpha > 0)
        # then no simplex point can have G p = 0: min ||p||_G = rho_K > 0
        assert kperc.margin(G) > 0
    else:
        assert g_norm(G, res.p) <= 1e-7
        # the exact alternative: min_{p in simplex} ||p||_G = 0 (rank may exceed 6, so
        # the negative margin itself is not computed)
        value, witness = kperc.min_norm_point(kperc.gram_factor(G))
        assert value <= 1e-7
        assert np.max(np.abs(G @ witness)) <= 1e-7


@given(seed=seeds)
def test_quick_seminorm_bound_is_a_bound_and_agrees_with_the_extended_one(seed):
    """One BLAS product for ||p||_G where the sum does not cancel; the bound holds
    against the exact rational value, and the value agrees with the extended one."""
    from fractions import Fraction

    from kperc._gram import _dense_seminorm_bound, as_gram, quick_seminorm_bound

    prob = planted_problem(seed, n=int(np.random.default_rng(seed).integers(5, 40)))
    G = prob.gram()
    n = G.shape[0]
    p = np.full(n, 1.0 / n)
    val, upper = quick_seminorm_bound(as_gram(G), p)
    ext, _ = _dense_seminorm_bound(G, p)
    assert val == pytest.approx(ext, rel=1e-8)
    exact = sum(
        Fraction(p[i]) * Fraction(G[i, j]) * Fraction(p[j]) for i in range(n) for j in range(n)
    )
    assert Fraction(upper) ** 2 >= exact


def test_quick_seminorm_bound_hands_a_cancelling_sum_to_the_extended_one(monkeypatch):
    """A point repeated under the other label: p on the pair gives p^T G p = 0 up to
    rounding, where double precision cannot bound ||p||_G usefully."""
    from kperc import _gram

    X = np.array([[1.0, 2.0], [1.0, 2.0], [0.5, -1.0]])
    y = np.array([1.0, -1.0, 1.0])
    G = kperc.gram_matrix(X, y)
    calls = []
    real = _gram._dense_seminorm_bound
    monkeypatch.setattr(_gram, "_dense_seminorm_bound", lambda G, p: calls.append(1) or real(G, p))
    p = np.array([0.5, 0.5, 0.0])
    gram = _gram.as_gram(G)
    val, upper = _gram.quick_seminorm_bound(gram, p, data=False)  # G as rounded
    assert calls and val == 0.0 and upper < 1e-8
    # for the data's exact Gram matrix the bound adds the construction rounding delta of
    # G: ||p||_{G*}^2 <= upper^2 + delta ||p||_1^2
    _, data_upper = _gram.quick_seminorm_bound(gram, p)
    assert upper**2 + gram.entry_error <= data_upper**2 <= (upper**2 + gram.entry_error) * 1.01


def test_isnkpvn_first_step_needs_no_extended_precision(monkeypatch):
    """The fixed cost of a call: at the centre of the simplex, one product decides."""
    from kperc import _gram

    prob = planted_problem(0, n=200)
    G = kperc.ValidatedGram(prob.gram())
    calls = []
    real = _gram._dense_seminorm_bound
    monkeypatch.setattr(_gram, "_dense_seminorm_bound", lambda G, p: calls.append(1) or real(G, p))
    kperc.isnkpvn(G, eps=1e-3, max_iter=1)
    assert calls == []

"""Perceptron, Normalised Perceptron, NKP, SNKP and Winnow (PAPER.md Sections 2 and 4)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import infeasible_problem, kernel_problem, planted_problem, seeds
from hypothesis import given
from hypothesis import strategies as st

import kperc
from kperc import datasets as data

# Relative round-off allowance for identities between computed floating-point quantities
# (all quantities involved are O(1)); it is not a slack on any bound.
ROUND = 1e-12


def _check_separator_G(G, alpha):
    assert np.all(G @ alpha > 0), "returned alpha does not separate: min(G alpha) <= 0"


def _simplex(v, tol=1e-12):
    return bool(np.all(v >= 0) and abs(v.sum() - 1.0) <= tol)


# --------------------------------------------------------------------------- perceptron


@pytest.mark.ledger("block-novikoff")
@given(seed=seeds, spread=st.floats(1.0, 8.0))
def test_perceptron_block_novikoff(seed, spread):
    prob = planted_problem(seed, norm_range=(1.0 / spread, spread))
    G = prob.gram()
    X, y = prob.X, prob.y
    res = kperc.perceptron(X, y)
    assert res.outcome == "separator"
    assert np.all(y * (X @ res.w) > 0)
    _check_separator_G(G, res.alpha)
    rho = kperc.data_margin(X, y, normalize=False)
    R = np.max(np.linalg.norm(X, axis=1))
    assert res.nit <= R**2 / rho**2


@pytest.mark.ledger("block-novikoff")
@pytest.mark.parametrize("r", [1.0, 2.0, 5.0])
def test_perceptron_two_rays_bound(r):
    ds = data.two_rays(r, 10)
    res = kperc.perceptron(ds.X, ds.y)
    assert res.outcome == "separator"
    assert res.nit <= ds.info["R"] ** 2 / ds.info["rho"] ** 2
    npr = kperc.normalized_perceptron(ds.X, ds.y)
    assert npr.nit <= 1.0 / ds.info["rho2"] ** 2


@pytest.mark.ledger("normalising-never-hurts")
@given(seed=seeds, spread=st.floats(1.0, 20.0))
def test_normalizing_never_hurts(seed, spread):
    prob = planted_problem(seed, norm_range=(1.0 / spread, spread))
    rho = kperc.data_margin(prob.X, prob.y, normalize=False)
    rho2 = kperc.data_margin(prob.X, prob.y, normalize=True)
    R = np.max(np.linalg.norm(prob.X, axis=1))
    assert rho > 0
    assert abs(rho2 - prob.info["rho"]) <= 1e-9
    assert rho / R <= rho2 * (1 + ROUND)


def test_perceptron_trace_semantics():
    """``nit`` counts updates; every traced non-final iterate violates some point."""
    prob = planted_problem(3, n=20, d=3, rho=0.2, norm_range=(0.5, 2.0))
    res = kperc.perceptron(prob.X, prob.y, trace=True)
    tr = res.trace
    assert len(tr["k"]) == res.nit + 1
    assert np.array_equal(tr["k"], np.arange(res.nit + 1))
    assert np.all(tr["min_margin"][:-1] <= 0) and tr["min_margin"][-1] > 0
    # the traced iterate is the perceptron's own w_k = sum of the chosen y_j x_j
    Z = prob.X * prob.y[:, None]
    w = np.zeros(prob.X.shape[1])
    for k in range(res.nit):
        np.testing.assert_allclose(tr["w"][k], w, atol=1e-12)
        j = int(tr["j"][k])
        m = Z @ w
        assert j == int(np.flatnonzero(m == m.min())[0])  # most violated, first index
        w = w + Z[j]
    np.testing.assert_allclose(res.w, w, atol=1e-12)
    np.testing.assert_allclose(tr["w"][-1], w, atol=1e-12)


def test_perceptron_runs_out_of_iterations():
    prob = infeasible_problem(1, d=2, rho=-0.3)
    res = kperc.perceptron(prob.X, prob.y, max_iter=50)
    assert res.outcome == "max_iter" and not res.success and res.status == 2
    assert res.nit == 50 and "max_iter" in res.message


# -------------------------------------------------------------- normalised perceptron


@pytest.mark.ledger("np-bound")
@given(seed=seeds, spread=st.floats(1.0, 10.0))
def test_normalized_perceptron_bound(seed, spread):
    prob = planted_problem(seed, norm_range=(1.0 / spread, spread))
    G = prob.gram()
    res = kperc.normalized_perceptron(prob.X, prob.y)
    assert res.outcome == "separator"
    assert res.nit <= 1.0 / prob.info["rho"] ** 2
    A = prob.X * (prob.y / np.linalg.norm(prob.X, axis=1))[:, None]
    assert np.all(A @ res.w > 0)
    np.testing.assert_allclose(A.T @ res.alpha, res.w, atol=1e-12)
    assert _simplex(res.alpha)
    _check_separator_G(G, res.alpha)


@pytest.mark.ledger("np-equals-perceptron")
@given(seed=seeds, spread=st.floats(1.0, 10.0))
def test_normalized_perceptron_equals_perceptron(seed, spread):
    """Algorithm 2 is the perceptron on normalised data, rescaled: same sign patterns."""
    prob = planted_problem(seed, norm_range=(1.0 / spread, spread))
    X2 = prob.X / np.linalg.norm(prob.X, axis=1)[:, None]
    npr = kperc.normalized_perceptron(prob.X, prob.y, trace=True)
    per = kperc.perceptron(X2, prob.y, trace=True)
    assert npr.nit == per.nit
    np.testing.assert_array_equal(npr.trace["j"], per.trace["j"])
    A = X2 * prob.y[:, None]
    for k in range(1, npr.nit + 1):
        w_np, w_p = npr.trace["w"][k], per.trace["w"][k]
        np.testing.assert_allclose(k * w_np, w_p, atol=1e-12)
        m_np, m_p = A @ w_np, A @ w_p
        clear = np.abs(m_p) > 1e-9  # sign patterns away from exact ties
        np.testing.assert_array_equal(np.sign(m_np[clear]), np.sign(m_p[clear]))


# ------------------------------------------------------------------------------ NKP


@pytest.mark.ledger("nkp-bound")
@given(seed=seeds)
def test_nkp_bound_linear(seed):
    prob = planted_problem(seed)
    G = prob.gram()
    res = kperc.nkp(G)
    assert res.outcome == "separator" and res.success and res.status == 0
    assert res.nit <= 1.0 / prob.info["rho"] ** 2
    _check_separator_G(G, res.alpha)
    assert _simplex(res.alpha)


@pytest.mark.ledger("nkp-bound")
@given(seed=seeds, kernel=st.sampled_from(["rbf", "poly"]))
def test_nkp_bound_kernel(seed, kernel):
    prob = kernel_problem(seed, kernel)
    G = prob.gram()
    res = kperc.nkp(G)
    assert res.outcome == "separator"
    assert res.nit <= 1.0 / prob.info["rho"] ** 2
    _check_separator_G(G, res.alpha)


@pytest.mark.ledger("nkp-equals-np")
@given(seed=seeds)
def test_nkp_reproduces_normalized_perceptron(seed):
    prob = planted_problem(seed)
    G = prob.gram()
    A = prob.X * (prob.y / np.linalg.norm(prob.X, axis=1))[:, None]
    npr = kperc.normalized_perceptron(prob.X, prob.y, trace=True)
    res = kperc.nkp(G, trace=True)
    assert res.nit == npr.nit
    np.testing.assert_allclose(A.T @ res.alpha, npr.w, atol=1e-12)
    # every intermediate iterate: NKP stopped after k updates gives w_k = A alpha_k
    for k in range(1, npr.nit):
        part = kperc.nkp(G, max_iter=k)
        assert part.outcome == "max_iter" and part.nit == k
        np.testing.assert_allclose(A.T @ part.alpha, npr.trace["w"][k], atol=1e-12)
    # traced margins agree
    np.testing.assert_allclose(
        res.trace["norm_alpha_G"], np.linalg.norm(npr.trace["w"], axis=1), atol=1e-12
    )


@pytest.mark.ledger("nkp-bound")
def test_nkp_keeps_improving_after_separation():
    prob = planted_problem(11, n=30, d=3, rho=0.3)
    G = prob.gram()
    res = kperc.nkp(G, halt=False, max_iter=3000, trace=True)
    first = res.first_separator_nit
    assert first is not None and first <= 1.0 / prob.info["rho"] ** 2
    assert res.nit == 3000 and res.outcome == "separator"
    margins = res.trace["margin"]
    assert margins[first] > 0
    # the normalised margin approaches rho (subgradient method on L)
    assert margins[-1] > margins[first] or margins[first] >= prob.info["rho"] * (1 - 1e-9)
    assert margins.max() <= prob.info["rho"] * (1 + ROUND)


# ----------------------------------------------------------------------------- SNKP


def _theorem1(nit, n, rho):
    return nit * (nit + 1) <= 8.0 * np.log(n) / rho**2


@pytest.mark.ledger("theorem-1")
@given(seed=seeds)
def test_snkp_theorem1_linear(seed):
    prob = planted_problem(seed)
    G = prob.gram()
    res = kperc.snkp(G)
    assert res.outcome == "separator"
    assert _theorem1(res.nit, len(prob.y), prob.info["rho"])
    assert res.nit < 2 * np.sqrt(2 * np.log(len(prob.y))) / prob.info["rho"]
    _check_separator_G(G, res.alpha)
    assert _simplex(res.alpha, 1e-10) and _simplex(res.p, 1e-10)


@pytest.mark.ledger("theorem-1")
@given(seed=seeds, kernel=st.sampled_from(["rbf", "poly"]))
def test_snkp_theorem1_kernel(seed, kernel):
    prob = kernel_problem(seed, kernel)
    G = prob.gram()
    res = kperc.snkp(G)
    assert res.outcome == "separator"
    assert _theorem1(res.nit, len(prob.y), prob.info["rho"])
    _check_separator_G(G, res.alpha)


@pytest.mark.ledger("theorem-1")
@pytest.mark.parametrize("rho", [0.01, 0.003])
def test_snkp_theorem1_small_margin(rho):
    prob = planted_problem(5, n=60, d=4, rho=rho)
    G = prob.gram()
    res = kperc.snkp(G)
    assert res.outcome == "separator"
    assert _theorem1(res.nit, len(prob.y), prob.info["rho"])
    _check_separator_G(G, res.alpha)


def _check_sandwich(tr, n):
    L, Lmu, mu, normp = tr["L"], tr["L_mu"], tr["mu"], tr["norm_p_G"]
    tol = ROUND * (1.0 + np.abs(L))
    # Lemma 4
    assert np.all(L - mu * np.log(n) <= Lmu + tol)
    assert np.all(Lmu <= L + tol)
    # Lemma 5 and weak duality
    assert np.all(Lmu <= -0.5 * normp**2 + tol)
    assert np.all(-0.5 * normp**2 <= L + tol)


@pytest.mark.ledger("lemma-4")
@pytest.mark.ledger("lemma-5")
@given(seed=seeds)
def test_snkp_sandwich_along_runs(seed):
    prob = (planted_problem, kernel_problem, infeasible_problem)[seed % 3](seed)
    G = prob.gram()
    res = kperc.snkp(G, trace=True, halt=False, max_iter=300)
    assert len(res.trace["L"]) == 301
    _check_sandwich(res.trace, len(prob.y))


@pytest.mark.ledger("lemma-5")
@given(seed=seeds)
def test_snkp_trace_matches_losses(seed):
    """The traced L and L_mu are the package's loss functions at the iterates."""
    prob = kernel_problem(seed)
    G = prob.gram()
    for k in (1, 2, 5, 17):
        res = kperc.snkp(G, max_iter=k, halt=False, trace=True)
        assert res.nit == k
        a = res.alpha
        assert np.isclose(res.trace["L"][-1], kperc.loss(G, a), rtol=0, atol=1e-12)
        assert np.isclose(
            res.trace["L_mu"][-1], kperc.smoothed_loss(G, a, res.mu), rtol=0, atol=1e-12
        )
        assert np.isclose(res.trace["norm_p_G"][-1], kperc.g_seminorm(G, res.p), rtol=0, atol=1e-12)


@pytest.mark.ledger("mu-closed-form")
@given(seed=seeds)
def test_snkp_mu_closed_form(seed):
    prob = infeasible_problem(seed)
    G = prob.gram()
    res = kperc.snkp(G, trace=True, max_iter=200)
    k = res.trace["k"]
    np.testing.assert_allclose(res.trace["mu"], 4.0 / ((k + 1) * (k + 2)), rtol=1e-12)
    assert res.outcome == "max_iter" and res.nit == 200


@pytest.mark.ledger("lemma-5")
def test_snkp_mu0_below_2_breaks_lemma5():
    """PAPER.md Appendix: the constant mu_0 = 2 is needed; mu_0 = 1 breaks Lemma 5.

    A deterministic instance found by a search over small instances: three points on a
    line, ``a = (+1, -1, -1)`` (so ``G = a a^T``, inseparable). With ``mu_0 = 1`` the
    invariant ``L_mu(alpha_k) <= -||p_k||_G^2 / 2`` fails by about 0.0085 at ``k = 11``;
    with ``mu_0 = 2`` it holds on the same instance.
    """
    G = kperc.gram_matrix(np.array([[1.0], [-1.0], [-2.0]]), [1, 1, 1])
    bad = kperc.snkp(G, mu0=1.0, trace=True, halt=False, max_iter=30).trace
    gap = bad["L_mu"] + 0.5 * bad["norm_p_G"] ** 2
    assert gap.max() > 1e-3
    assert int(np.argmax(gap)) == 11
    good = kperc.snkp(G, trace=True, halt=False, max_iter=30).trace
    assert np.all(good["L_mu"] + 0.5 * good["norm_p_G"] ** 2 <= 0)
    _check_sandwich(good, 2)


# --------------------------------------------------------------------------- Winnow


@given(seed=seeds)
def test_winnow_separates(seed):
    prob = planted_problem(seed, rho=0.3, d=3)
    lm = kperc.linf_margin(prob.X, prob.y)
    if lm.rho <= 0.02:
        return
    res = kperc.winnow(prob.X, prob.y, eta=lm.rho, max_iter=200_000)
    assert res.outcome == "separator"
    assert np.all(prob.y * (prob.X @ res.w) > 0)
    assert np.sum(np.abs(res.w)) <= 1 + 1e-12
    # the LP solution itself separates with margin rho_inf in the l_inf normalisation
    ninf = np.max(np.abs(prob.X), axis=1)
    assert np.min(prob.y * (prob.X @ lm.w) / ninf) >= lm.rho - 1e-9


@given(seed=st.integers(0, 2**31 - 1))
def test_no_overflow_or_nan_on_duplicate_opposite_points(seed):
    """A point repeated with the other label: the runs stay finite as mu_k -> 0."""
    from conftest import duplicate_opposite

    X, y = duplicate_opposite(seed)
    G = kperc.gram_matrix(X, y, "rbf", gamma=0.5)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        res = kperc.snkp(G, max_iter=2000, trace=True)
        nk = kperc.nkp(G, max_iter=2000)
    assert res.outcome == "max_iter" and nk.outcome == "max_iter"
    for key in ("L", "L_mu", "norm_p_G", "mu"):
        assert np.all(np.isfinite(res.trace[key]))
    assert np.all(np.isfinite(res.alpha)) and np.all(np.isfinite(res.p))
    _check_sandwich(res.trace, G.shape[0])


def test_the_data_check_counts_underflow_in_the_scaled_rows():
    """``_data_separates`` decides ``y_i x_i^T w > 0`` on the data's rows scaled by a power
    of two: there the row ``(2^1000, -2^-74)`` becomes ``(1/2, -0)`` (its second entry,
    ``2^-1075``, underflows), and ``w = (2^-1073, 3)`` gives the computed value
    ``2^-1074 > 0`` while the data give ``2^-73 - 3 2^-74 < 0``: refused, because the
    bound counts ``2^-1075`` per underflowed entry and product (a constant that is not
    itself a double: ``2.0**-1075`` is 0). Ordinary margins pass."""
    from kperc._perceptrons import _data_separates, _signed_data_rows

    X = np.array([[2.0**1000, -(2.0**-74)]])
    y = np.array([1.0])
    S = _signed_data_rows(X, y)
    w = np.array([2.0**-1073, 3.0])
    assert float((S @ w)[0]) > 0 > 2.0**-73 - 3 * 2.0**-74
    assert not _data_separates(S, w)
    assert _data_separates(S, np.array([1.0, 0.0]))
    assert not _data_separates(S, np.array([0.0, 1.0]))

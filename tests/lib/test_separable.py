"""kperc.is_separable: an answer only with a proof that passes its check."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import infeasible_problem, planted_problem
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import OptimizeResult

import kperc
from kperc._separable import conflicting_pairs

_U = np.finfo(np.float64).eps / 2


def _check_separator(X, y, w):
    """The separator separates, checked with a rounding bound independent of the code's."""
    d = X.shape[1]
    vals = y * (X @ w)
    err = 2 * (d + 2) * _U * (np.abs(X) @ np.abs(w))
    assert np.all(vals > err)


@given(st.integers(0, 10_000), st.floats(1e-3, 0.5))
def test_separable_planted_data(seed, rho):
    p = planted_problem(seed, rho=rho)
    res = kperc.is_separable(p.X, p.y)
    assert isinstance(res, OptimizeResult)
    assert res.status == "separable" and res.separable is True and res.success
    _check_separator(p.X, p.y, res.w)
    # the certified lower bound is a lower bound on the data's margin
    assert 0 < res.margin_lower <= p.info["rho"] * (1 + 1e-9)


@given(st.integers(0, 10_000))
def test_inseparable_data_get_a_certificate(seed):
    prob = infeasible_problem(seed)
    res = kperc.is_separable(prob.X, prob.y)
    assert res.status == "not separable" and res.separable is False
    p = res.p
    assert p.min() >= 0 and abs(p.sum() - 1) <= 1e-12
    A = prob.y[:, None] * prob.X / np.linalg.norm(prob.X, axis=1)[:, None]
    assert np.linalg.norm(A.T @ p) <= max(res.margin_upper, 1e-12)
    assert res.w is None and res.alpha is None


@given(st.integers(0, 10_000), st.integers(-40, 40))
def test_answer_does_not_depend_on_the_scale(seed, k):
    prob = (planted_problem if seed % 2 else infeasible_problem)(seed)
    a = kperc.is_separable(prob.X, prob.y)
    b = kperc.is_separable(prob.X * 2.0**k, prob.y)
    assert a.status == b.status


def test_conflicting_pairs_are_exact_for_every_kernel():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    X = np.vstack([X, X[4], X[7]])
    y = np.append(y, [-y[4], -y[7]])
    assert conflicting_pairs(X, y).tolist() == [[4, 30], [7, 31]]
    for kernel, params in (("linear", {}), ("rbf", {"gamma": 1.0}), ("poly", {"degree": 3})):
        res = kperc.is_separable(X, y, kernel=kernel, **params)
        assert res.status == "not separable" and res.exact and res.margin_upper == 0.0
        assert res.conflicts.tolist() == [[4, 30], [7, 31]]
        assert np.flatnonzero(res.p).tolist() == [4, 30]


def test_conflicting_pairs_groups():
    X = [[0.0], [0.0], [0.0], [1.0], [1.0]]
    assert conflicting_pairs(X, [1, -1, -1, 1, 1]).tolist() == [[0, 1], [0, 2]]
    assert conflicting_pairs(X, [1, 1, -1, -1, 1]).tolist() == [[0, 2], [1, 2], [3, 4]]
    assert conflicting_pairs(X, [1, 1, 1, -1, -1]).shape == (0, 2)


def test_zero_point_and_intercept():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [-1.0, -1.0]])
    y = np.array([1.0, 1.0, -1.0])
    res = kperc.is_separable(X, y)
    assert res.status == "not separable" and res.exact and res.p.tolist() == [1.0, 0.0, 0.0]
    # with a constant feature the origin can be classified (an affine separator)
    res = kperc.is_separable(X, y, fit_intercept=True)
    assert res.status == "separable"
    _check_separator(np.hstack([X, np.ones((3, 1))]), y, res.w)


def test_xor_needs_a_kernel():
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    lin = kperc.is_separable(X, y, fit_intercept=True)
    assert lin.status == "not separable" and lin.exact
    poly = kperc.is_separable(X, y, kernel="poly", degree=2, gamma=1.0, coef0=1.0)
    assert poly.status == "separable"
    G = kperc.gram_matrix(X, y, "poly", degree=2, gamma=1.0, coef0=1.0)
    assert np.all(G @ poly.alpha > 0) and poly.alpha.min() >= 0


@given(st.integers(0, 10_000), st.floats(0.5, 5.0))
def test_kernel_answers_agree_with_the_margin(seed, gamma):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (30, 2))
    y = np.where(np.sum(X**2, axis=1) < 0.5, 1.0, -1.0)
    G = kperc.gram_matrix(X, y, "rbf", gamma=gamma)
    rho = kperc.margin(G)
    res = kperc.is_separable(X, y, kernel="rbf", gamma=gamma)
    if rho > 1e-6:  # the RBF kernel separates distinct points; margin computed exactly
        assert res.status == "separable"
    if res.status == "separable":
        assert 0 < res.margin_lower <= rho * (1 + 1e-6) + 1e-9
        assert np.all(G @ res.alpha > 0) and np.isclose(np.abs(res.alpha).sum(), 1.0)


@given(st.integers(0, 10_000))
def test_inseparable_kernel_data_certified(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((20, 2))
    y = np.where(rng.random(20) < 0.5, 1.0, -1.0)
    res = kperc.is_separable(X, y, kernel="poly", degree=1, gamma=1.0, coef0=0.0)
    lin = kperc.is_separable(X, y)
    if lin.status != "undecided" and res.status != "undecided":
        assert res.status == lin.status
    if res.status == "not separable":
        G = kperc.gram_matrix(X, y, "poly", degree=1, gamma=1.0, coef0=0.0)
        assert float(res.p @ G @ res.p) <= res.margin_upper**2 + 1e-15


def test_parameters_are_checked():
    X, y = np.eye(2), np.array([1.0, -1.0])
    with pytest.raises(ValueError, match="fit_intercept"):
        kperc.is_separable(X, y, fit_intercept="yes")
    with pytest.raises(ValueError, match="tol"):
        kperc.is_separable(X, y, tol=-1.0)
    with pytest.raises(ValueError, match="linear kernel takes no parameters"):
        kperc.is_separable(X, y, gamma=1.0)
    with pytest.raises(ValueError, match="rows"):
        kperc.is_separable(X, [1.0, -1.0, 1.0])


@given(st.integers(0, 10_000), st.floats(1e-13, 1e-6))
def test_tiny_margins_are_never_called_exactly_inseparable(seed, rho):
    """A separable problem whose margin is below the solver's tolerance (issue 36: 77
    such problems were called "not separable"). A separator is checked; a certificate
    can only be a rounding-level one, reported with "undecided" (never "not
    separable"), whose bound is then true (at least the planted margin) and at most
    the default tol."""
    p = planted_problem(seed, rho=rho)
    n, d = p.X.shape
    res = kperc.is_separable(p.X, p.y)
    assert res.status != "not separable"
    if res.status == "separable":
        _check_separator(p.X, p.y, res.w)
    if res.p is not None:
        assert res.status == "undecided" and res.separable is None and not res.exact
        assert rho * (1 - 1e-6) <= res.margin_upper <= 1e3 * (n + d) * _U


def _pairs_by_brute_force(X, y):
    pairs = set()
    n = X.shape[0]
    for i in range(n):
        for j in range(n):
            if y[i] != y[j] and np.array_equal(X[i], X[j]):
                pairs.add((i, j))
    return pairs


@given(
    st.integers(0, 10_000),
    st.integers(2, 40),
    st.integers(1, 4),
    st.sampled_from([1.0, 1e-300, 1e300, -0.0]),
)
def test_conflicting_pairs_match_brute_force(seed, n, d, scale):
    rng = np.random.default_rng(seed)
    base = rng.integers(-2, 3, size=(max(2, n // 3), d)).astype(float)
    X = base[rng.integers(0, base.shape[0], n)] * (scale if scale != -0.0 else 1.0)
    if scale == -0.0:
        X[X == 0] = -0.0 * rng.integers(0, 2, size=np.count_nonzero(X == 0))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    got = conflicting_pairs(X, y)
    truth = _pairs_by_brute_force(X, y)
    # every reported pair conflicts; every conflicting point is named
    assert all((i, j) in truth for i, j in got.tolist())
    assert set(np.unique(got).tolist()) == {i for pair in truth for i in pair}


def test_margin_details_points_to_is_separable_where_it_cannot_answer():
    """An inseparable problem of rank above 6: the exact negative margin is out of reach
    (facet enumeration), so margin_details refuses and names the call that does decide."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 10))
    y = np.where(rng.random(60) < 0.5, -1.0, 1.0)
    X = np.vstack([X, X[:1]])
    y = np.concatenate([y, -y[:1]])  # a point with both labels: not separable
    with pytest.raises(ValueError, match="kperc.is_separable"):
        kperc.margin_details(kperc.gram_matrix(X, y))
    res = kperc.is_separable(X, y)
    assert res.status == "not separable" and res.exact


# --- the exact check of a linear certificate: modular screen, rational fallback ---------


def _support_matrix(k, d, kind, rng):
    """Points ``y_i x_i`` (rows) of a support of ``k`` points in ``d`` dimensions."""
    if kind == "cancel":  # a positive combination cancels exactly: a certificate
        A = rng.integers(-5, 6, size=(k, d)).astype(float)
        w = rng.integers(1, 4, size=k)
        A[-1] = 0.0
        A[-1] = -(w[:-1] @ A[:-1]) / w[-1]  # exact when w[-1] divides it; else checked
    elif kind == "floats":  # wide exponents: big integers after scaling
        A = rng.normal(size=(k, d)) * 2.0 ** rng.integers(-60, 60, size=(k, d))
    elif kind == "low_rank":
        B = rng.integers(-2, 3, size=(k, max(1, d - 1))).astype(float)
        A = B @ rng.integers(-2, 3, size=(B.shape[1], d)).astype(float)
    else:
        A = rng.integers(-3, 4, size=(k, d)).astype(float)
    return A


@given(
    seed=st.integers(0, 2**31 - 1),
    d=st.integers(1, 8),
    kind=st.sampled_from(["cancel", "floats", "low_rank", "ints"]),
)
def test_modular_check_agrees_with_exact_elimination(seed, d, kind):
    # the fast check (residues modulo primes, then an exact check of M v = 0) must give
    # the rational elimination's answer whenever it answers
    from kperc._separable import _bareiss_certificate, _modular_certificate

    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, d + 2))
    A = _support_matrix(k, d, kind, rng)
    y = np.where(rng.random(k) < 0.5, -1.0, 1.0)
    X = A * y[:, None]
    S = np.arange(k)
    fast = _modular_certificate(X, y, S)
    if fast is not None:
        assert fast == _bareiss_certificate(X, y, S)


def test_modular_check_hands_over_when_a_prime_divides_a_minor(monkeypatch):
    # The points (p, 0), (0, p), (-p, -p) (p the first prime used) sum exactly to 0: an
    # exact certificate. Modulo p the matrix is 0 (rank 0 instead of 2), so the screen
    # cannot decide, and exact rational elimination must answer instead.
    from kperc import _separable

    p = float(_separable._primes()[0])
    X = np.array([[p, 0.0], [0.0, p], [-p, -p]])
    y = np.ones(3)
    assert _separable._modular_certificate(X, y, np.arange(3)) is None
    calls = []
    bareiss = _separable._bareiss_certificate
    monkeypatch.setattr(
        _separable,
        "_bareiss_certificate",
        lambda *a: calls.append(1) or bareiss(*a),
    )
    res = kperc.is_separable(X, y)
    assert res.status == "not separable" and res.exact and calls
    # on ordinary data the screen decides alone
    calls.clear()
    res = kperc.is_separable(np.array([[1.0, 2.0], [-2.0, -1.0], [1.0, -1.0]]), np.ones(3))
    assert res.status == "not separable" and res.exact and not calls


def test_modular_check_proves_a_trivial_null_space_alone(monkeypatch):
    # full column rank modulo a prime implies full rank: no exact certificate, decided
    # without rational elimination
    from kperc import _separable

    monkeypatch.setattr(_separable, "_bareiss_certificate", lambda *a: pytest.fail("fallback"))
    X = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert _separable._exact_certificate(X, np.ones(3), np.full(3, 1 / 3)) is False

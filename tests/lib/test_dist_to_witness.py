"""``dist_to_witness``: the interior-point QP with active-set polish, checked against the
previous method (SLSQP / trust-constr, kept here as a reference), against closed forms on
thin witness sets, and through its own optimality certificate (feasible witness, dual
lower bound)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import infeasible_problem, planted_problem, random_simplex, seeds
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, minimize

import kperc
from kperc import _margins

#: agreement with the reference method; both polish on the active set, so they agree to
#: rounding whenever the reference's own solve converged to the optimum
AGREE = 1e-9


def _reference_dist(G, q):
    """The previous ``dist_to_witness``: SLSQP, trust-constr fallback, active-set polish.

    Returns the distance, the witness and whether SLSQP itself converged (the
    trust-constr fallback stops at a feasible point up to ``1e-9`` farther than the
    optimum: 2.4e-9 seen under the ``thorough`` profile)."""
    B = kperc.gram_factor(G)
    r, n = B.shape
    value, x0 = kperc.min_norm_point(B)
    assert value <= _margins.ZERO_TOL
    cons = [
        {"type": "eq", "fun": lambda p: B @ p, "jac": lambda p: B},
        {"type": "eq", "fun": lambda p: np.sum(p) - 1.0, "jac": lambda p: np.ones((1, n))},
    ]
    res = minimize(
        lambda p: 0.5 * np.sum((p - q) ** 2),
        x0,
        jac=lambda p: p - q,
        bounds=[(0.0, 1.0)] * n,
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 2000},
    )
    w = res.x
    slsqp = bool(res.success and np.linalg.norm(B @ w) <= 1e-8)
    if not slsqp:
        Aeq = np.vstack([B, np.ones((1, n))])
        beq = np.zeros(r + 1)
        beq[-1] = 1.0
        res = minimize(
            lambda p: 0.5 * np.sum((p - q) ** 2),
            x0,
            jac=lambda p: p - q,
            hess=lambda p: np.eye(n),
            method="trust-constr",
            bounds=Bounds(0.0, 1.0),
            constraints=[LinearConstraint(Aeq, beq, beq)],
            options={"gtol": 1e-12, "xtol": 1e-14, "maxiter": 5000},
        )
        w = res.x
    w = np.clip(w, 0.0, None)
    S = np.flatnonzero(w > 1e-10)
    C = np.vstack([B[:, S], np.ones((1, S.size))])
    d = np.zeros(C.shape[0])
    d[-1] = 1.0
    corr = np.linalg.lstsq(C @ C.T, C @ q[S] - d, rcond=None)[0]
    xS = q[S] - C.T @ corr
    if xS.min() >= 0 and np.linalg.norm(C @ xS - d) < 1e-12:
        cand = np.zeros(n)
        cand[S] = xS
        if np.linalg.norm(cand - q) <= np.linalg.norm(w - q) + 1e-12:
            w = cand
    w = w / w.sum()
    return float(np.linalg.norm(w - q)), w, slsqp


def _slack(G, w_ref):
    """0 for a reference witness feasible to rounding; else room for its infeasibility
    (the reference accepts ``||B w|| <= 1e-8`` from trust-constr, unpolished)."""
    B = kperc.gram_factor(G)
    return 1e-12 if np.linalg.norm(B @ w_ref) <= _margins._feasibility_tol(B) else AGREE


def _check_certificate(G, q, res, gap=1e-9):
    """Feasibility of ``w`` up to rounding and the bracket ``dist_lower <= dist``."""
    B = kperc.gram_factor(G)
    n = q.size
    w = res.w
    assert w.shape == (n,) and np.all(w >= 0.0)
    assert abs(w.sum() - 1.0) <= 8 * n * np.finfo(float).eps
    assert res.residual == pytest.approx(np.linalg.norm(B @ w), rel=1e-12, abs=1e-300)
    assert res.residual <= _margins._feasibility_tol(B)
    assert res.polished and res.bracket == "W"
    assert res.dist == pytest.approx(np.linalg.norm(w - q), rel=1e-15, abs=0)
    assert 0.0 <= res.dist_lower <= res.dist
    assert res.gap == res.dist - res.dist_lower
    assert res.gap <= gap


def _independent_with_duplicates(seed: int, m: int, d: int, dup: int):
    """``m <= d`` linearly independent points plus the opposites of the first ``dup``.

    The signed points ``a_1..a_m`` are independent, so ``sum p_i a_i = 0`` forces
    ``p_i = p_{m+i}`` for the duplicated ones and 0 elsewhere: ``W`` is the simplex of
    the ``dup`` midpoints ``(e_i + e_{m+i}) / 2``, a thin face of dimension ``dup - 1``.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    X2 = np.vstack([X, X[:dup]])
    y2 = np.concatenate([y, -y[:dup]])
    mids = np.zeros((dup, m + dup))
    for i in range(dup):
        mids[i, [i, m + i]] = 0.5
    return kperc.gram_matrix(X2, y2), mids


def _dist_to_hull_of(q, V):
    """``min ||q - V^T lam||`` over the simplex of the rows of ``V`` (an independent NNLS)."""
    k = V.shape[0]
    if k == 1:
        return float(np.linalg.norm(q - V[0]))
    # barycentric projection: minimise ||V^T lam - q||^2 over the simplex by the KKT
    # system on each support (k <= 3 here, so all supports are enumerated)
    best = np.inf
    for mask in range(1, 2**k):
        S = [i for i in range(k) if mask >> i & 1]
        M = np.block([[V[S] @ V[S].T, np.ones((len(S), 1))], [np.ones((1, len(S))), 0.0]])
        rhs = np.concatenate([V[S] @ q, [1.0]])
        lam = np.linalg.lstsq(M, rhs, rcond=None)[0][:-1]
        if lam.min() >= -1e-14:
            best = min(best, float(np.linalg.norm(V[S].T @ lam - q)))
    return best


@given(seed=seeds, sparse=st.booleans())
def test_agrees_with_reference_on_inseparable_data(seed, sparse):
    rng = np.random.default_rng(seed)
    prob = infeasible_problem(seed, n=int(rng.integers(8, 61)))
    G = prob.gram()
    q = random_simplex(rng, len(prob.y), sparse=sparse)
    res = kperc.dist_to_witness(G, q)
    ref, w_ref, slsqp = _reference_dist(G, q)
    # kperc's witness is never farther than the reference's feasible one; the two agree
    # whenever SLSQP converged (its trust-constr fallback may stop short of the optimum)
    assert res.dist <= ref + _slack(G, w_ref)
    if slsqp:
        assert abs(res.dist - ref) <= AGREE
    _check_certificate(G, q, res)
    # a feasible reference witness bounds the distance from above, hence the dual bound
    assert res.dist_lower <= ref + _slack(G, w_ref)


@given(seed=seeds, dup=st.integers(1, 3), sparse=st.booleans())
def test_thin_witness_sets_against_closed_form_and_reference(seed, dup, sparse):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(4, 9))
    m = int(rng.integers(dup + 1, d + 1))
    G, mids = _independent_with_duplicates(seed, m, d, dup)
    q = random_simplex(rng, m + dup, sparse=sparse)
    res = kperc.dist_to_witness(G, q)
    exact = _dist_to_hull_of(q, mids)
    assert res.dist == pytest.approx(exact, abs=1e-10)
    ref, w_ref, _ = _reference_dist(G, q)
    # a feasible reference witness is never nearer; the two agree whenever the reference
    # found the optimum (on thin sets SLSQP sometimes stops at a worse feasible point,
    # and the closed form above decides)
    assert res.dist <= ref + _slack(G, w_ref)
    if abs(ref - exact) <= 1e-10:
        assert abs(res.dist - ref) <= AGREE
    _check_certificate(G, q, res)


def test_rbf_duplicate_unique_witness():
    moons = kperc.datasets.moons(59, seed=3)
    X = np.vstack([moons.X, moons.X[:1]])
    y = np.concatenate([moons.y, -moons.y[:1]])
    G = kperc.gram_matrix(X, y, "rbf", gamma=2.0)
    w_star = np.zeros(60)
    w_star[[0, 59]] = 0.5
    for seed in range(3):
        q = random_simplex(np.random.default_rng(seed), 60)
        res = kperc.dist_to_witness(G, q)
        assert res.dist == pytest.approx(np.linalg.norm(q - w_star), abs=1e-9)
        assert res.residual <= 1e-11
        assert res.dist_lower <= res.dist


def test_witness_itself_and_separable():
    G, mids = _independent_with_duplicates(0, 5, 6, 2)
    res = kperc.dist_to_witness(G, mids[0])
    assert res.dist <= 1e-12
    sep = planted_problem(0)
    G_sep = sep.gram()
    res = kperc.dist_to_witness(G_sep, np.full(len(sep.y), 1 / len(sep.y)))
    assert res.dist == np.inf and res.w is None and res.dist_lower == np.inf
    assert res.status == "separable" and res.residual > _margins.ZERO_TOL


@pytest.mark.parametrize("seed", range(3))
def test_relaxation_fallback_when_the_qp_fails(monkeypatch, seed):
    """If the equality-constrained solve gives nothing, the cone relaxation answers."""
    prob = infeasible_problem(seed, n=40)
    G = prob.gram()
    q = random_simplex(np.random.default_rng(seed), len(prob.y))
    expected = kperc.dist_to_witness(G, q)
    solve = _margins._projection_qp
    taus = []

    def failing(B, q, tau):
        taus.append(tau)
        if tau == 0.0:
            r, n = B.shape
            return np.full(n, np.nan), np.zeros(r + 1), "NumericalError"
        return solve(B, q, tau)

    monkeypatch.setattr(_margins, "_projection_qp", failing)
    res = kperc.dist_to_witness(G, q)
    assert taus[0] == 0.0 and taus[1] > 0.0
    assert res.polished and res.bracket == "W"
    assert res.dist == pytest.approx(expected.dist, abs=1e-9)
    assert 0.0 <= res.dist_lower <= res.dist
    B = kperc.gram_factor(G)
    assert np.linalg.norm(B @ res.w) <= taus[1] * (1 + 1e-6)


def test_dual_lower_bound_is_a_lower_bound_for_any_multipliers():
    prob = infeasible_problem(7, n=30)
    G = prob.gram()
    B = kperc.gram_factor(G)
    rng = np.random.default_rng(7)
    q = random_simplex(rng, len(prob.y))
    dist = kperc.dist_to_witness(G, q).dist
    for _ in range(200):
        lam = rng.standard_normal(B.shape[0] + 1) * 10.0 ** rng.uniform(-3, 2)
        assert _margins._dual_lower_bound(B, q, lam) <= dist


def _rbf_flipped_duplicates(seed: int, n: int = 100, k: int = 3):
    """RBF Gram matrix of ``n - k`` moons points plus ``k`` of them under the opposite
    label, a point ``q`` of the simplex, and the ``k`` pair midpoints spanning ``W``."""
    moons = kperc.datasets.moons(n - k, seed=seed)
    rng = np.random.default_rng(seed)
    idx = rng.choice(n - k, k, replace=False)
    X = np.vstack([moons.X, moons.X[idx]])
    y = np.concatenate([moons.y, -moons.y[idx]])
    G = kperc.gram_matrix(X, y, "rbf", gamma=2.0)
    q = random_simplex(rng, n)
    mids = np.zeros((k, n))
    for t, i in enumerate(idx):
        mids[t, [i, n - k + t]] = 0.5
    return G, q, mids


@pytest.mark.parametrize("seed", range(6))
def test_rbf_with_flipped_duplicates_against_closed_form(seed):
    """Distinct points under an RBF kernel are independent in its feature space, so with
    three of them repeated under the opposite label ``W`` is the triangle of the three
    pair midpoints (closed form by :func:`_dist_to_hull_of`). The factor's duplicate
    columns cancel only to the factor's own error, ``eps ||B||^2 / s_min(B)``, about
    1e-11 here and up to 2e-11 with the LAPACK of numpy 1.26: above ``64 n eps ||B||``
    (7e-12). Before the feasibility floor included that error, the polish rejected the
    exact witness (seed 1 under the dependency floors); earlier still, with a single rank
    cut at the old floor, seeds 0, 1 and 4 gave feasible points up to 0.097 farther away."""
    G, q, mids = _rbf_flipped_duplicates(seed)
    res = kperc.dist_to_witness(G, q)
    assert res.dist == pytest.approx(_dist_to_hull_of(q, mids), abs=1e-9)
    _check_certificate(G, q, res)


@pytest.mark.parametrize("seed", range(3))
def test_unpolished_exit_claims_no_upper_bound(monkeypatch, seed):
    """When no polished point is feasible, ``w`` is the interior-point solution of the
    relaxation ``||B p|| <= tau``: nearer to ``q`` than ``W`` is (here by 2e-8 to 2e-7),
    so ``dist`` must not pose as an upper bound. The result says ``bracket ==
    "relaxation"`` and ``gap = inf``, and its ``dist_lower`` is still below the exact
    distance."""
    G, q, mids = _rbf_flipped_duplicates(seed)
    n = q.size
    polish = _margins._polish_active_set
    calls = []

    def failing(B, q, w, lam, tau=0.0, feas_tol=None):
        calls.append(tau)
        _, lower, _ = polish(B, q, w, lam, tau=tau, feas_tol=feas_tol)
        return w / w.sum(), lower, False

    monkeypatch.setattr(_margins, "_polish_active_set", failing)
    res = kperc.dist_to_witness(G, q)
    assert calls[0] == 0.0 and calls[1] > 0.0  # the relaxation was tried too
    exact = _dist_to_hull_of(q, mids)
    B = kperc.gram_factor(G)
    assert not res.polished
    assert res.residual == pytest.approx(np.linalg.norm(B @ res.w), rel=1e-12)
    assert res.residual > _margins._feasibility_tol(B)  # w is not in W up to rounding
    assert res.bracket == "relaxation" and res.gap == np.inf
    assert res.dist < exact  # what an upper-bound claim would have got wrong
    # the closed form is a norm of n terms from a well-conditioned 4 x 4 solve: its
    # rounding is at most about n eps |exact|, and the dual bound is rigorous
    assert 0.0 <= res.dist_lower <= exact * (1 + n * np.finfo(float).eps)

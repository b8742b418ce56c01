"""Kernels, the normalised signed Gram matrix and its factored operator (Sections 0, 3)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from conftest import infeasible_problem, planted_problem, random_simplex, seeds
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.linalg import aslinearoperator

import kperc
from kperc._kernel_values import kernel_diagonal, resolve_gamma


def _data(seed, n=12, d=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 10, (n, 1))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return X, y


@given(seed=seeds, kernel=st.sampled_from(["linear", "rbf", "poly"]))
def test_gram_matrix_properties(seed, kernel):
    X, y = _data(seed)
    X0, y0 = X.copy(), y.copy()
    G = kperc.gram_matrix(X, y, kernel)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    assert np.array_equal(G, G.T)
    assert np.all(np.diag(G) == 1.0)
    assert np.all(np.abs(G) <= 1 + 1e-12)
    assert np.linalg.eigvalsh(G)[0] >= -1e-10 * G.shape[0]
    K = kperc.kernel_matrix(X, kernel=kernel)
    s = y / np.sqrt(np.diag(K))
    np.testing.assert_allclose(G, K * np.outer(s, s), atol=1e-13)
    np.testing.assert_allclose(kernel_diagonal(X, kernel), np.diag(K), rtol=1e-12)


def test_gram_matrix_linear_is_signed_normalised_points():
    X, y = _data(1)
    A = kperc.signed_normalized_points(X, y)
    np.testing.assert_allclose(np.linalg.norm(A, axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(kperc.gram_matrix(X, y), A @ A.T, atol=1e-14)


def test_callable_kernel_and_diagonal():
    X, y = _data(2)

    def cubic(P, Q):
        return (P @ Q.T + 1.0) ** 3

    G = kperc.gram_matrix(X, y, cubic)
    np.testing.assert_allclose(
        G, kperc.gram_matrix(X, y, "poly", degree=3, gamma=1.0, coef0=1.0), atol=1e-12
    )
    np.testing.assert_allclose(kernel_diagonal(X, cubic), np.diag(cubic(X, X)), rtol=1e-12)


@given(seed=seeds)
def test_gram_operator_matches_dense(seed):
    X, y = _data(seed, n=15, d=4)
    G = kperc.gram_matrix(X, y)
    op = kperc.gram_operator(X, y)
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(15)
    np.testing.assert_allclose(op @ v, G @ v, atol=1e-13)
    np.testing.assert_allclose(op.matmat(np.eye(15)), G, atol=1e-13)
    np.testing.assert_allclose(op.toarray(), G, atol=1e-13)
    np.testing.assert_allclose(op.column(3), G[:, 3], atol=1e-14)
    np.testing.assert_allclose(op.diagonal(), 1.0, rtol=1e-14)
    p = random_simplex(rng, 15)
    assert np.isclose(op.seminorm(p), np.sqrt(p @ G @ p), atol=1e-12)
    assert np.isclose(kperc.g_seminorm(op, p), kperc.g_seminorm(G, p), atol=1e-12)


def _same(a, b):
    assert a.outcome == b.outcome, (a.message, b.message)
    assert a.nit == b.nit
    np.testing.assert_allclose(a.alpha, b.alpha, atol=1e-9)


@given(seed=seeds)
def test_dense_and_operator_give_identical_runs(seed):
    prob = planted_problem(seed) if seed % 2 else infeasible_problem(seed)
    G = prob.gram()
    op = kperc.gram_operator(prob.X, prob.y)
    _same(kperc.nkp(G, max_iter=5000), kperc.nkp(op, max_iter=5000))
    _same(kperc.snkp(G, max_iter=3000), kperc.snkp(op, max_iter=3000))
    _same(kperc.nvn(G, eps=1e-3), kperc.nvn(op, eps=1e-3))
    q = random_simplex(np.random.default_rng(seed), len(prob.y))
    _same(kperc.snkpvn(G, q, 1e-2), kperc.snkpvn(op, q, 1e-2))
    a, b = kperc.isnkpvn(G, eps=1e-3), kperc.isnkpvn(op, eps=1e-3)
    _same(a, b)
    assert a.nouter == b.nouter
    assert abs(kperc.margin(G) - kperc.margin(op)) <= 1e-9


def test_generic_linear_operator_is_accepted():
    """A LinearOperator without column()/diagonal() works through matvecs."""
    prob = planted_problem(4, n=12, d=3, rho=0.2)
    G = prob.gram()
    lo = aslinearoperator(G)
    _same(kperc.nkp(G), kperc.nkp(lo))
    _same(kperc.nvn(G, eps=1e-3), kperc.nvn(lo, eps=1e-3))
    _same(kperc.snkp(G), kperc.snkp(lo))
    assert abs(kperc.margin(lo) - prob.info["rho"]) <= 1e-9


@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_zero_diagonal_is_refused(kernel):
    X = np.array([[1.0, 2.0], [0.0, 0.0], [3.0, 1.0]])
    params = {"degree": 2, "gamma": 1.0, "coef0": 0.0} if kernel == "poly" else {}
    with pytest.raises(ValueError, match=r"K\(x_i, x_i\) <= 0.*index 1"):
        kperc.gram_matrix(X, [1, -1, 1], kernel, **params)


@pytest.mark.ledger("theorem-2")
@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
def test_repeated_point_with_both_labels_is_an_exact_witness(kernel):
    """Regression: sklearn's RBF gave K(x, x') = 1 - 1.1e-16 for a copy x' of x, and SNKP
    then returned a spurious separator (min G alpha = 5.5e-17) on inseparable data."""
    from conftest import duplicate_opposite

    X, y = duplicate_opposite(0)
    params = {} if kernel == "linear" else {"gamma": 0.5}
    G = kperc.gram_matrix(X, y, kernel, **params)
    p = np.zeros(G.shape[0])
    p[0] = p[-1] = 0.5
    assert np.all(G @ p == 0.0)
    assert np.all(G[0] == -G[-1])
    assert kperc.snkp(G, max_iter=2000).outcome == "max_iter"


def _exact_factored_product(Z: np.ndarray, v: np.ndarray) -> list:
    """``Z (Z^T v)`` in exact rational arithmetic, from the float64 entries."""
    from fractions import Fraction

    Zf = [[Fraction(x) for x in row] for row in Z.tolist()]
    vf = [Fraction(x) for x in v.tolist()]
    w = [sum(Zf[j][k] * vf[j] for j in range(len(vf))) for k in range(Z.shape[1])]
    return [sum(row[k] * w[k] for k in range(len(w))) for row in Zf]


@given(seed=seeds, d=st.sampled_from([50, 400, 2000]))
def test_factored_rounding_terms_bound_the_product_error(seed, d):
    """The separator test of a factored G counts ``n + d + 2`` roundings, not ``n``.

    A computed ``(Z (Z^T v))_i`` sums ``n`` products and then ``d`` more, so its error
    can exceed ``n u ||v||_1`` when ``d`` is large (a separator accepted on that bound
    would be one only up to rounding). The exact product (Fractions) checks the bound.
    """
    from kperc._gram import _OperatorGram

    u = np.finfo(np.float64).eps / 2
    rng = np.random.default_rng(seed)
    n = 3
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 10.0, size=(n, 1))
    op = kperc.GramOperator(kperc.gram_operator(X, np.ones(n)).Z)  # the factor as given
    v = rng.random(n)
    gram = _OperatorGram(op)
    assert gram.rounding_terms == n + d + 2
    # built from data, the count also covers the rounding of the factor itself: each row
    # within r = row_error of its exact unit direction, so each entry of G within
    # r (2 + r) of the data's, r (2 + r) / u more terms (a separator holds for the data)
    built = kperc.gram_operator(X, np.ones(n))
    extra = built.row_error * (2 + built.row_error) / u
    assert n + d + 2 + extra <= _OperatorGram(built).rounding_terms <= n + d + 2 + extra + 1
    computed = gram.matvec(v)
    exact = _exact_factored_product(op.Z, v)
    err = max(abs(float(c - e)) for c, e in zip(computed.tolist(), exact, strict=True))
    assert err <= gram.rounding_terms * u * float(v.sum())


def test_factored_error_can_exceed_the_dense_count():
    """Why the factored count includes ``d``: an instance whose product error exceeds
    ``n u ||v||_1``, the count a dense ``G`` of the same size uses."""
    u = np.finfo(np.float64).eps / 2
    worst = 0.0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((2, 4000))
        op = kperc.gram_operator(X, np.ones(2))
        v = rng.random(2)
        exact = _exact_factored_product(op.Z, v)
        computed = op.Z @ (op.Z.T @ v)
        err = max(abs(float(c - e)) for c, e in zip(computed.tolist(), exact, strict=True))
        worst = max(worst, err / (u * float(v.sum())))
    assert worst > 2  # more than n = 2 roundings' worth


def _exact_scale_gamma(X: np.ndarray):
    """``1 / (n_features X.var())`` in rational arithmetic (None when ``X.var() = 0``)."""
    vals = [Fraction(float(v)) for v in X.ravel()]
    mean = sum(vals) / len(vals)
    var = sum((v - mean) ** 2 for v in vals) / len(vals)
    return None if var == 0 else 1 / (X.shape[1] * var)


@pytest.mark.parametrize("e10", range(-300, 301, 25))
def test_gamma_scale_is_exact_or_refused_at_every_scale(e10):
    """gamma="scale" at scales 1e-300..1e300: 1 / (n_features X.var()) to a few units of
    round-off wherever that is a normal float64 (entries up to about 1e+-154), and a
    ValueError naming gamma elsewhere, never 0 or inf (X.var() overflowed at 1e300)."""
    from kperc._kernel_values import resolve_gamma

    X = np.random.default_rng(e10 + 300).standard_normal((30, 4)) * 10.0**e10
    want = _exact_scale_gamma(X)
    tiny, huge = Fraction(float(np.finfo(np.float64).tiny)), Fraction(2) ** 1024
    if tiny * (1 + Fraction(1, 10**12)) <= want < huge * (1 - Fraction(1, 10**12)):
        assert float(resolve_gamma("scale", X)) == pytest.approx(float(want), rel=1e-14)
    else:
        with pytest.raises(ValueError, match="gamma='scale'"):
            resolve_gamma("scale", X)


@pytest.mark.parametrize("k", [-500, -300, 0, 300, 500])
def test_gamma_scale_moves_exactly_with_a_power_of_two(k):
    """X times 2^k: gamma="scale" times 4^-k exactly (the variance of X over a power of two
    is the same numbers), dense and sparse alike."""
    import scipy.sparse

    from kperc._kernel_values import resolve_gamma

    X = np.random.default_rng(3).standard_normal((25, 3))
    X[X < -0.5] = 0.0
    ref = resolve_gamma("scale", X)
    assert resolve_gamma("scale", np.ldexp(X, k)) == np.ldexp(ref, -2 * k)
    sparse = scipy.sparse.csr_matrix(np.ldexp(X, k))
    assert resolve_gamma("scale", sparse) == pytest.approx(np.ldexp(ref, -2 * k), rel=1e-14)


def test_every_function_takes_the_estimators_gamma():
    """gamma="scale" (SNKPClassifier's default) is accepted by every function that takes a
    kernel parameter, and means what the estimator means by it: the same numbers as the
    resolved value; None is 1 / n_features."""
    from sklearn.svm import SVC

    X, y = kperc.datasets.circles(60, seed=0)
    g = SVC(gamma="scale").fit(X, y)._gamma
    G = kperc.gram_matrix(X, y, "rbf", gamma="scale")
    np.testing.assert_array_equal(G, kperc.gram_matrix(X, y, "rbf", gamma=g))
    np.testing.assert_array_equal(
        kperc.gram_matrix(X, y, "poly", gamma=None), kperc.gram_matrix(X, y, "poly", gamma=0.5)
    )
    np.testing.assert_array_equal(
        kperc.kernel_matrix(X, kernel="rbf", gamma="scale"),
        kperc.kernel_matrix(X, kernel="rbf", gamma=g),
    )
    op = kperc.kernel_gram_operator(X, y, gamma="scale")
    assert op.kernel_params == {"gamma": g}
    approx = kperc.approx_gram_operator(X, y, gamma="scale", n_components=20, random_state=0)
    assert approx.transformer.gamma == g
    res = kperc.snkp(G)
    check = kperc.exact_margin_check(X, y, res.alpha, gamma="scale")
    want = kperc.exact_margin_check(X, y, res.alpha, gamma=g)
    np.testing.assert_array_equal(check.Galpha, want.Galpha)
    np.testing.assert_array_equal(
        kperc.decision_function(res, X, y, X[:7], "rbf", gamma="scale"),
        kperc.decision_function(res, X, y, X[:7], "rbf", gamma=g),
    )
    assert kperc.is_separable(X, y, kernel="rbf", gamma="scale").separable
    nys = kperc.snkp_nystroem(X, y, gamma="scale", random_state=0)
    assert nys.transformer.gamma == g
    with pytest.raises(ValueError, match="gamma must be a positive number, 'scale' or None"):
        kperc.gram_matrix(X, y, "rbf", gamma="auto")


def test_classifier_fits_where_scale_is_not_a_float():
    """SNKPClassifier(kernel="rbf").fit(X * 1e300): "scale" is about 1e-600, which no
    float64 represents (resolve_gamma refuses it by name). The estimator's kernel is
    that of X / std(X), so it first divides X by a power of two (exactly) and the fit
    is that of X itself, as at 2^400 (tests/lib/test_classifier.py tries every scale)."""
    X, y = kperc.datasets.circles(40, seed=1)
    with pytest.raises(ValueError, match="gamma='scale'.*Rescale X"):
        resolve_gamma("scale", X * 1e300)
    ref = kperc.SNKPClassifier(kernel="rbf").fit(X, y)
    for Xs in (X * 1e300, np.ldexp(X, 400)):
        big = kperc.SNKPClassifier(kernel="rbf").fit(Xs, y)
        assert 0 < big._gamma < np.inf and big.outcome_ == ref.outcome_
        np.testing.assert_array_equal(big.predict(Xs), ref.predict(X))

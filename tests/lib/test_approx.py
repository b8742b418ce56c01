"""Low-rank kernel operators (Nystroem, random Fourier features) and the exact-kernel check."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import seeds
from hypothesis import assume, given
from hypothesis import strategies as st

import kperc
from kperc._gram import certified_positive

EPS = np.finfo(np.float64).eps


def _gaussian(seed, n, d=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return X, y


def _circle(seed, n):
    """Points of [-1, 1]^2 labelled by a circle, with a gap around it (RBF-separable)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (4 * n, 2))
    X = X[np.abs(np.sum(X**2, axis=1) - 0.5) > 0.1][:n]
    return X, np.where(np.sum(X**2, axis=1) < 0.5, 1.0, -1.0)


@given(seed=seeds, n=st.integers(2, 30), gamma=st.floats(0.3, 2.0))
def test_nystroem_with_every_landmark_reproduces_G(seed, n, gamma):
    # With all n points as landmarks, z(x)^T z(x') = K(x, .) K^+ K(., x') = K(x, x') for a
    # well-conditioned K: the operator is G up to round-off amplified by cond(K).
    X, y = _gaussian(seed, n)
    K = kperc.kernel_matrix(X, kernel="rbf", gamma=gamma)
    cond = np.linalg.cond(K)
    assume(cond < 1e4)
    op = kperc.approx_gram_operator(X, y, gamma=gamma, n_components=n, random_state=seed)
    assert isinstance(op, kperc.GramOperator)
    G = kperc.gram_matrix(X, y, "rbf", gamma=gamma)
    np.testing.assert_allclose(op.toarray(), G, rtol=0, atol=100 * n * cond * EPS)
    np.testing.assert_allclose(op.diagonal(), 1.0, rtol=0, atol=10 * EPS)
    # n_components above n is clipped to n (every point a landmark), not an error
    big = kperc.approx_gram_operator(X, y, gamma=gamma, n_components=n + 5, random_state=seed)
    assert big.Z.shape == (n, n)


def test_rows_are_signed_and_normalised_features():
    X, y = _circle(0, 50)
    op = kperc.approx_gram_operator(X, y, gamma=3.0, n_components=20, random_state=1)
    F = op.transformer.transform(X)
    np.testing.assert_allclose(op.Z, F * (y / np.linalg.norm(F, axis=1))[:, None], rtol=1e-14)
    np.testing.assert_allclose(op.feature_norms, np.linalg.norm(F, axis=1), rtol=1e-14)
    assert op.method == "nystroem"
    # seeded: the same random_state gives the same operator
    again = kperc.approx_gram_operator(X, y, gamma=3.0, n_components=20, random_state=1)
    np.testing.assert_array_equal(op.Z, again.Z)


def test_rff_approaches_the_rbf_kernel():
    # Random Fourier features: error O(1 / sqrt(m)); with m = 20000 the entries of G are
    # within 0.05 (about 5 standard deviations of sqrt(2 / m) = 0.01).
    X, y = _circle(3, 40)
    G = kperc.gram_matrix(X, y, "rbf", gamma=2.0)
    op = kperc.approx_gram_operator(
        X, y, gamma=2.0, n_components=20000, method="rff", random_state=0
    )
    assert op.method == "rff"
    assert np.max(np.abs(op.toarray() - G)) < 0.05
    # the RBF gamma defaults to 1 / n_features for both methods, as in gram_matrix
    op_default = kperc.approx_gram_operator(X, y, method="rff", n_components=5, random_state=0)
    assert op_default.transformer.gamma == pytest.approx(0.5)


@given(seed=seeds, method=st.sampled_from(["nystroem", "rff"]))
def test_separator_certified_on_the_approximate_kernel(seed, method):
    X, y = _circle(seed, 120)
    op = kperc.approx_gram_operator(
        X, y, gamma=4.0, n_components=100, method=method, random_state=seed
    )
    res = kperc.snkp(op, max_iter=20000)
    if res.outcome == "separator":
        Galpha = op.Z @ (op.Z.T @ res.alpha)  # an independent product with the factor
        assert certified_positive(Galpha.min(), len(y), np.abs(res.alpha).sum())
        check = kperc.exact_margin_check(X, y, res.alpha, gamma=4.0)
        assert 0.0 <= check.fraction_separated <= 1.0
        assert check.certified == (check.fraction_separated == 1.0)


def test_every_algorithm_runs_on_the_nystroem_operator():
    X, y = _circle(7, 200)
    op = kperc.approx_gram_operator(X, y, gamma=4.0, n_components=80, random_state=0)
    dense = op.toarray()
    for algo in (kperc.snkp, kperc.nkp, kperc.nvn, kperc.snkpvn):
        res = algo(op)
        assert res.outcome == "separator", algo.__name__
        ref = algo(dense)
        assert ref.outcome == "separator"
        assert min(dense @ res.alpha) > 0
    # measured under the exact kernel the seeded instance is separated too
    check = kperc.exact_margin_check(X, y, kperc.snkp(op).alpha, gamma=4.0)
    assert check.certified and check.fraction_separated == 1.0


@given(
    seed=seeds,
    kernel=st.sampled_from(["rbf", "poly", "linear", "callable"]),
    block=st.integers(1, 50),
    sparse=st.booleans(),
)
def test_exact_margin_check_matches_the_dense_product(seed, kernel, block, sparse):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    X, y = _gaussian(seed, n, d=3)
    alpha = rng.random(n)
    if sparse:
        alpha[rng.random(n) < 0.7] = 0.0
    alpha /= max(alpha.sum(), 1.0)
    params = {"rbf": {"gamma": 0.7}, "poly": {"degree": 2, "coef0": 1.0}}.get(kernel, {})
    k = (lambda A, B: (A @ B.T + 1.0) ** 2) if kernel == "callable" else kernel
    check = kperc.exact_margin_check(X, y, alpha, k, block_size=block, **params)
    G = kperc.gram_matrix(X, y, k, **params)
    np.testing.assert_allclose(check.Galpha, G @ alpha, rtol=0, atol=1e-12)
    assert check.min_Galpha == check.Galpha.min()
    tol = n * EPS / 2 * alpha.sum()
    assert check.fraction_separated == np.mean(check.Galpha > tol)
    assert check.certified == certified_positive(check.min_Galpha, n, alpha.sum())


def test_exact_check_refuses_an_opposite_duplicate():
    # A point repeated with the other label: no alpha separates, and the check says so.
    X, y = _gaussian(0, 10)
    X = np.vstack([X, X[:1]])
    y = np.concatenate([y, -y[:1]])
    alpha = np.full(11, 1 / 11)
    assert not kperc.exact_margin_check(X, y, alpha, gamma=0.5).certified


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "svd"}, "method must be one of"),
        ({"method": "rff", "kernel": "poly"}, "approximates the 'rbf' kernel only"),
        ({"n_components": 0}, "n_components must be positive"),
        ({"n_components": 2.5}, "n_components must be a positive integer"),
        ({"n_components": True}, "n_components must be a positive integer"),
        ({"kernel": "sigmoid"}, "kernel must be one of"),
        ({"gammma": 1.0}, r"unknown kernel parameter\(s\) \['gammma'\]"),
        ({"method": "rff", "gamma": -1.0}, "gamma must be positive"),
    ],
)
def test_approx_gram_operator_validation(kwargs, match):
    X, y = _circle(0, 20)
    with pytest.raises(ValueError, match=match):
        kperc.approx_gram_operator(X, y, **kwargs)


def test_zero_feature_vector_is_refused():
    # A point far from every landmark has a Nystroem feature vector that underflows to 0.
    X = np.array([[0.0, 0.0], [0.1, 0.0], [1e3, 1e3]])
    y = np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="increase n_components"):
        kperc.approx_gram_operator(X, y, gamma=1.0, n_components=1, random_state=0)


@pytest.mark.parametrize(
    ("alpha", "kwargs", "match"),
    [
        (np.ones(3), {}, r"alpha must have shape \(20,\)"),
        (-np.ones(20), {}, "non-negative"),
        (np.full(20, np.nan), {}, "finite"),
        (np.ones(20), {"block_size": 0}, "block_size must be positive"),
        (np.ones(20), {"kernel": "cosine"}, "kernel must be one of"),
    ],
)
def test_exact_margin_check_validation(alpha, kwargs, match):
    X, y = _circle(0, 20)
    with pytest.raises(ValueError, match=match):
        kperc.exact_margin_check(X, y, alpha, **kwargs)


def test_classifier_with_nystroem_features_separates_its_training_data():
    X, y = _circle(11, 300)
    clf = kperc.SNKPClassifier(gamma=4.0, n_components=80, random_state=0).fit(X, y)
    assert clf.converged_
    # certified on the approximate kernel: y_i f(x_i) = (G alpha)_i > 0 on every point
    np.testing.assert_array_equal(clf.predict(X), y)
    assert clf.feature_coef_.shape == (80,)
    # seeded: refitting gives the same decision function
    again = kperc.SNKPClassifier(gamma=4.0, n_components=80, random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.decision_function(X), again.decision_function(X))
    assert clf.get_params()["n_components"] == 80


def test_classifier_with_every_landmark_matches_the_exact_classifier():
    X, y = _gaussian(4, 30, d=2)
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)  # XOR-like, RBF-separable
    exact = kperc.SNKPClassifier(gamma=1.0, fit_intercept=False).fit(X, y)
    approx = kperc.SNKPClassifier(
        gamma=1.0, fit_intercept=False, n_components=30, random_state=0
    ).fit(X, y)
    assert exact.feature_map_ is None
    Xt = np.random.default_rng(5).standard_normal((50, 2))
    K = kperc.kernel_matrix(X, kernel="rbf", gamma=1.0)
    tol = 1e3 * np.linalg.cond(K) * EPS
    np.testing.assert_allclose(approx.decision_function(X), exact.decision_function(X), atol=tol)
    assert approx.n_iter_ == exact.n_iter_
    # away from the training points the landmarks span the same functions
    np.testing.assert_allclose(
        approx.decision_function(Xt)
        * np.sqrt(np.sum(approx.feature_map_.transform(Xt) ** 2, axis=1)),
        exact.decision_function(Xt),
        atol=tol,
    )


def test_classifier_n_components_is_validated():
    X, y = _circle(0, 30)
    with pytest.raises(ValueError, match="n_components"):
        kperc.SNKPClassifier(n_components=0).fit(X, y)


def test_exact_margin_check_on_a_subsample_of_rows():
    X, y = _gaussian(2, 30, d=3)
    alpha = np.random.default_rng(2).random(30)
    rows = np.array([3, 0, 29, 3])
    full = kperc.exact_margin_check(X, y, alpha, gamma=0.5)
    sub = kperc.exact_margin_check(X, y, alpha, gamma=0.5, rows=rows, block_size=3)
    # equal up to the rounding of differently shaped BLAS calls
    np.testing.assert_allclose(sub.Galpha, full.Galpha[rows], rtol=0, atol=30 * EPS * alpha.sum())
    for bad in ([], [30], [[1, 2]], [0.5]):
        with pytest.raises(ValueError, match="rows must"):
            kperc.exact_margin_check(X, y, alpha, gamma=0.5, rows=np.array(bad))


def test_features_are_built_in_O_n_m_memory(monkeypatch):
    # One n x m array (the factor) plus a row block: not the two extra n x m temporaries
    # of a whole-X transform or of np.linalg.norm(F, axis=1).
    import tracemalloc

    import kperc._approx as approx

    monkeypatch.setattr(approx, "TRANSFORM_BLOCK_BYTES", 1 << 20)
    n, m = 20000, 100
    X, y = _gaussian(0, n, d=3)
    tracemalloc.start()
    try:
        op = kperc.approx_gram_operator(X, y, n_components=m, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert op.Z.shape == (n, m)
    assert peak < 1.25 * n * m * 8, peak

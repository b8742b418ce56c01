"""kperc.decision_function and kperc.predict: classifying new points with a result's alpha."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import kperc
from kperc.datasets import circles, planted

KERNELS = [("linear", {}), ("rbf", {"gamma": 1.0}), ("poly", {"degree": 2, "coef0": 1.0})]
ALGORITHMS = {
    "snkp": lambda G: kperc.snkp(G, max_iter=3000),
    "nkp": lambda G: kperc.nkp(G, max_iter=20000),
    "isnkpvn": lambda G: kperc.isnkpvn(G, max_iter=3000),
    "nvn": lambda G: kperc.nvn(G, max_iter=20000),
    "snkpvn": lambda G: kperc.snkpvn(G, max_iter=3000),
}


def _sparse_separable(n, d, seed):
    """A sparse X (density 0.2) and the labels of a random hyperplane through 0, with the
    points nearer to it than 0.1 (relative) left out."""
    rng = np.random.default_rng(seed)
    X = sp.random(3 * n, d, density=0.2, random_state=seed, format="csr")
    m = X @ rng.standard_normal(d)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    keep = np.flatnonzero(np.abs(m) > 0.1 * np.maximum(norms, 1e-300))[:n]
    return X[keep], np.sign(m[keep])


def _data(seed, n, d):
    X, y = planted(n, d, rho=0.1, seed=seed)
    return X, y


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 40),
    d=st.integers(2, 5),
    k=st.sampled_from(range(len(KERNELS))),
    algo=st.sampled_from(sorted(ALGORITHMS)),
)
def test_training_scores_are_G_alpha(seed, n, d, k, algo):
    """``y_j * score_j = (G alpha)_j`` on the training points, for any outcome."""
    kernel, params = KERNELS[k]
    X, y = _data(seed, n, d)
    G = kperc.gram_matrix(X, y, kernel, **params)
    res = ALGORITHMS[algo](G)
    scores = kperc.decision_function(res, X, y, X, kernel, **params)
    l1 = float(np.abs(res.alpha).sum())
    np.testing.assert_allclose(y * scores, G @ res.alpha, rtol=0, atol=1e-12 * l1)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 60),
    d=st.integers(2, 5),
    k=st.sampled_from(range(len(KERNELS))),
    algo=st.sampled_from(sorted(ALGORITHMS)),
    sparse=st.booleans(),
)
def test_a_certified_separator_predicts_every_training_label(seed, n, d, k, algo, sparse):
    kernel, params = KERNELS[k]
    X, y = _data(seed, n, d)
    res = ALGORITHMS[algo](kperc.gram_matrix(X, y, kernel, **params))
    # the algorithms return "separator" only for G alpha > 0 beyond rounding
    assume(res.outcome == "separator")
    Xs = sp.csr_matrix(X) if sparse else X
    assert np.array_equal(kperc.predict(res, Xs, y, Xs, kernel, **params), y)
    assert np.array_equal(kperc.predict(res.alpha, X, y, X, kernel, **params), y)


def test_factored_and_sparse_operators_give_the_same_scores():
    Xs, y = _sparse_separable(80, 30, seed=3)
    X = Xs.toarray()
    res = kperc.snkp(kperc.gram_operator(Xs, y))
    assert res.outcome == "separator"
    new = np.random.default_rng(0).standard_normal((7, 30))
    dense = kperc.decision_function(res, X, y, new)
    np.testing.assert_allclose(kperc.decision_function(res, Xs, y, sp.csc_matrix(new)), dense)
    np.testing.assert_allclose(kperc.decision_function(res, Xs, y, new), dense)
    assert np.array_equal(kperc.predict(res, Xs, y, Xs), y)


def test_agrees_with_the_classifier():
    X, y = circles(80, seed=2)
    clf = kperc.SNKPClassifier(kernel="rbf", gamma=2.0).fit(X, y)
    res = kperc.snkp(kperc.gram_matrix(X, y, "rbf", gamma=2.0), max_iter=clf.max_iter)
    new = np.random.default_rng(1).uniform(-1.5, 1.5, (20, 2))
    np.testing.assert_allclose(
        kperc.decision_function(res, X, y, new, "rbf", gamma=2.0),
        clf.decision_function(new),
        rtol=1e-10,
        atol=1e-14,
    )


def test_a_point_with_zero_norm_scores_zero_and_is_predicted_minus_one():
    X, y = planted(20, 3, rho=0.1, seed=0)
    res = kperc.nkp(kperc.gram_matrix(X, y))
    new = np.vstack([np.zeros(3), X[:1]])
    scores = kperc.decision_function(res, X, y, new)
    assert scores[0] == 0.0 and scores[1] * y[0] > 0
    assert kperc.predict(res, X, y, new).tolist() == [-1.0, y[0]]


def test_extreme_scales_of_new_points_give_the_same_scores():
    X, y = planted(20, 3, rho=0.1, seed=0)
    res = kperc.snkp(kperc.gram_matrix(X, y))
    ref = kperc.decision_function(res, X, y, X)
    for scale in (1e-300, 1e300):
        np.testing.assert_allclose(kperc.decision_function(res, X, y, X * scale), ref)


# --- hostile input ---------------------------------------------------------------------

X0, Y0 = planted(12, 3, rho=0.1, seed=1)
RES0 = kperc.snkp(kperc.gram_matrix(X0, Y0))


@pytest.mark.parametrize("func", [kperc.decision_function, kperc.predict])
@pytest.mark.parametrize(
    "args, exc, named",
    [
        ((RES0.alpha[:-1], X0, Y0, X0), ValueError, "alpha"),
        ((np.r_[RES0.alpha[:-1], np.nan], X0, Y0, X0), ValueError, "alpha"),
        ((RES0.alpha.astype(complex), X0, Y0, X0), TypeError, "alpha"),
        ((RES0.alpha[:, None], X0, Y0, X0), ValueError, "alpha"),
        ((RES0, X0, Y0, X0[:, :2]), ValueError, "X_new"),
        ((RES0, X0, Y0, X0[0]), ValueError, "X_new"),
        ((RES0, X0, Y0, np.where(X0 > 0, np.nan, X0)), ValueError, "X_new"),
        ((RES0, X0, Y0, np.where(X0 > 0, np.inf, X0)), ValueError, "X_new"),
        ((RES0, X0, Y0, X0.astype(complex)), TypeError, "X_new"),
        ((RES0, X0, Y0, sp.csr_matrix(X0.astype(complex))), TypeError, "X_new"),
        ((RES0, X0, Y0[:-1], X0), ValueError, "y"),
        ((RES0, X0, np.where(Y0 > 0, np.nan, Y0), X0), ValueError, "y"),
        ((RES0, X0, Y0 * 2, X0), ValueError, "labels"),
        ((RES0, np.where(X0 > 0, np.nan, X0), Y0, X0), ValueError, "X"),
        ((RES0, X0.astype(complex), Y0, X0), TypeError, "X"),
        ((RES0, X0.astype(object), Y0, X0), TypeError, "X"),
        ((kperc.winnow(np.abs(X0), np.ones(12)), X0, Y0, X0), ValueError, "w"),
    ],
)
def test_hostile_input_is_refused_by_name(func, args, exc, named):
    with pytest.raises(exc, match=named):
        func(*args)


@pytest.mark.parametrize("func", [kperc.decision_function, kperc.predict])
def test_bad_kernel_parameters_are_refused_by_name(func):
    with pytest.raises(ValueError, match="gamma"):
        func(RES0, X0, Y0, X0, "rbf", gamma=-1.0)
    with pytest.raises(ValueError, match="kernel"):
        func(RES0, X0, Y0, X0, "sigmoid")
    with pytest.raises(ValueError, match="unknown kernel parameter"):
        func(RES0, X0, Y0, X0, "rbf", sigma=1.0)


def test_inputs_are_not_modified():
    X, y, a, new = X0.copy(), Y0.copy(), RES0.alpha.copy(), X0[:4].copy()
    kperc.predict(a, X, y, new, "rbf", gamma=0.5)
    kperc.predict(a, X, y, new)
    assert np.array_equal(X, X0) and np.array_equal(y, Y0) and np.array_equal(a, RES0.alpha)
    assert np.array_equal(new, X0[:4])

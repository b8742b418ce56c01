"""Every exit is certified, and results do not depend on the scale of the data.

A separator is returned only when ``G alpha > 0`` (or ``Z w > 0``) holds beyond a
rounding bound computed from the data; a certificate only when ``||p||_G <= eps`` holds
beyond rounding; a tolerance that floating point cannot certify is refused.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

import kperc

U = np.finfo(np.float64).eps / 2


def _separates_ld(X, y, w) -> bool:
    """``y_i x_i^T w > 0`` for all i, checked in long double (an independent check)."""
    Xl = np.asarray(X, dtype=np.longdouble)
    return bool(np.all((Xl @ np.asarray(w, dtype=np.longdouble)) * y > 0))


@given(
    x=st.lists(st.floats(-10, 10, allow_nan=False, allow_infinity=False), min_size=1, max_size=4),
    label=st.sampled_from([-1.0, 1.0]),
)
def test_winnow_single_point_separator_is_real(x, label):
    """A single point: w = v[:d] - v[d:] must separate it (w = 0 used to be returned)."""
    X = np.array([x])
    if not np.any(X):
        with pytest.raises(ValueError, match="K\\(x_i, x_i\\) <= 0"):
            kperc.winnow(X, [label])
        return
    res = kperc.winnow(X, [label])
    assert res.outcome == "separator"
    assert np.any(res.w != 0) and _separates_ld(X, np.array([label]), res.w)


@pytest.mark.parametrize("algo", ["perceptron", "normalized_perceptron", "winnow"])
def test_linear_separators_are_certified(algo):
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 6))
        X = rng.standard_normal((n, 2))
        y = rng.choice([-1.0, 1.0], n)
        res = getattr(kperc, algo)(X, y, max_iter=2000)
        if res.outcome == "separator":
            assert _separates_ld(X, y, res.w)


def test_nkp_rbf_gamma_huge_separator_is_certified():
    """gamma = 1e6: off-diagonal entries underflow; a separator needs G alpha > 0 certified."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (30, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    G = kperc.gram_matrix(X, y, "rbf", gamma=1e6)
    res = kperc.nkp(G)
    if res.outcome == "separator":
        assert (G @ res.alpha).min() > G.shape[0] * U * res.alpha.sum()
    # a duplicated point with the other label: G alpha > 0 is impossible, never reported
    X2 = np.vstack([X, X[:1]])
    y2 = np.r_[y, -y[:1]]
    G2 = kperc.gram_matrix(X2, y2, "rbf", gamma=1e6)
    assert kperc.nkp(G2, max_iter=200).outcome == "max_iter"


@pytest.mark.parametrize("eps", [1e-10, 1e-300])
def test_eps_below_attainable_accuracy_is_refused(eps):
    G = kperc.gram_matrix(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), [1, -1, 1])
    for fn in (kperc.isnkpvn, kperc.nvn):
        with pytest.raises(ValueError, match="eps=.* below the accuracy"):
            fn(G, eps=eps)
    with pytest.raises(ValueError, match="eps=.* below the accuracy"):
        kperc.von_neumann_linear(np.array([[1.0, 0.0], [1.0, 0.0]]), [1, -1], eps=1e-300)


def test_certificate_norm_is_an_upper_bound():
    """Duplicates with opposite labels: the certificate's ||p||_G is certified <= eps."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((10, 3))
    X = np.vstack([X, X])
    y = np.r_[np.ones(10), -np.ones(10)]
    G = kperc.gram_matrix(X, y)
    for eps in (1e-3, 1e-6, 1e-7):
        for res in (kperc.isnkpvn(G, eps=eps), kperc.nvn(G, eps=eps)):
            assert res.outcome == "certificate"
            p = res.p.astype(np.longdouble)
            q = float(p @ (G.astype(np.longdouble) @ p))
            assert np.sqrt(max(q, 0.0)) <= eps


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1.0, 1e150, 1e300])
@pytest.mark.parametrize(
    "algo", ["perceptron", "normalized_perceptron", "winnow", "von_neumann_linear"]
)
def test_linear_algorithms_are_scale_invariant(algo, scale):
    """Scaling X by 1e+-300 gives the same outcome, iteration count and direction."""
    X = np.array([[1.0, 0.2], [0.3, 1.0], [-1.0, -0.1], [0.5, 0.6]])
    y = np.array([1.0, 1.0, -1.0, 1.0])
    ref = getattr(kperc, algo)(X, y)
    res = getattr(kperc, algo)(X * scale, y)
    assert res.outcome == ref.outcome == "separator"
    assert res.nit == ref.nit
    w0 = ref.w / np.max(np.abs(ref.w))  # scaled first: norms of 1e+-300 vectors overflow
    w1 = res.w / np.max(np.abs(res.w))
    np.testing.assert_allclose(w1, w0, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("k", [-1000, -900, -500, 500, 900, 1000])
@pytest.mark.parametrize("n_components", [None, "auto"])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_is_scale_invariant_for_the_linear_kernel(
    k, n_components, fit_intercept, n_classes
):
    """X times 2^k (rows of size 1e+-150 to 1e+-301, as kperc.gram_matrix accepts): the
    linear-kernel classifier gives the model of X itself, its dual weights times 2^-k.
    The scaling is exact, and so are the classifier's own power-of-two row scalings, so
    only the order of float operations could differ: rtol 1e-12. No RuntimeWarning
    (overflow in a square) on the way."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.4, 0.4][: n_classes - 1])
    kw = dict(kernel="linear", n_components=n_components, fit_intercept=fit_intercept)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow on the way
        warnings.simplefilter("ignore", ConvergenceWarning)  # no separator: a warning says why
        ref = kperc.SNKPClassifier(**kw).fit(X, y)
        clf = kperc.SNKPClassifier(**kw).fit(np.ldexp(X, k), y)
    np.testing.assert_array_equal(clf.outcome_, ref.outcome_)
    np.testing.assert_array_equal(clf.predict(np.ldexp(X, k)), ref.predict(X))
    np.testing.assert_allclose(
        clf.decision_function(np.ldexp(X, k)), ref.decision_function(X), rtol=1e-12, atol=1e-15
    )
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-12, atol=1e-15)


def test_classifier_refuses_rows_whose_inverse_norm_overflows():
    """Rows of norm below 2^-1022: the weight y_i / ||x_i|| is not representable, and the
    error names X and says so (gram_matrix needs no such weight)."""
    X = np.ldexp(np.array([[1.0, 0.2], [0.3, 1.0], [-1.0, -0.1]]), -1060)
    y = np.array([1, 1, 0])
    with pytest.raises(ValueError, match=r"^X: the norm of 3 training point\(s\)"):
        kperc.SNKPClassifier(kernel="linear", fit_intercept=False).fit(X, y)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_gram_and_operator_with_one_row_rescaled(scale):
    """One row scaled by 1e+-300: the normalised G and the margin do not change."""
    X = np.array([[1.0, 0.2], [0.3, 1.0], [-1.0, -0.1]])
    y = np.array([1.0, 1.0, -1.0])
    Xr = X.copy()
    Xr[1] *= scale
    np.testing.assert_allclose(kperc.gram_matrix(Xr, y), kperc.gram_matrix(X, y), atol=1e-15)
    np.testing.assert_allclose(
        kperc.gram_operator(Xr, y).toarray(), kperc.gram_operator(X, y).toarray(), atol=1e-15
    )
    assert kperc.data_margin(Xr, y) == pytest.approx(kperc.data_margin(X, y), rel=1e-13)


@pytest.mark.parametrize(
    "B, exc",
    [
        (np.empty((2, 0)), ValueError),  # used to abort the interpreter inside scipy's nnls
        (np.empty((0,)), ValueError),
        (np.array([[np.nan, 1.0]]), ValueError),
        (np.array([[1.0 + 1j, 1.0]]), TypeError),
    ],
)
def test_min_norm_point_rejects_bad_input(B, exc):
    with pytest.raises(exc, match="B"):
        kperc.min_norm_point(B)

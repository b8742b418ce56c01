"""SNKPClassifier: scikit-learn compatibility, convergence warning, intercept."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import check_estimator

import kperc
from kperc import SNKPClassifier
from kperc._classifier import expected_failed_checks
from kperc_book import data


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"kernel": "linear", "max_iter": 2000},
        {"kernel": "poly", "algorithm": "nkp"},
        {"kernel": "linear", "fit_intercept": False, "max_iter": 2000},
    ],
)
def test_check_estimator(params):
    est = SNKPClassifier(**params)
    expected = expected_failed_checks(est)
    if not params:
        assert expected == {}  # the default configuration passes every check
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        results = check_estimator(est, expected_failed_checks=expected, on_fail=None)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert failed == []
    xfailed = {r["check_name"] for r in results if r["status"] == "xfail"}
    assert xfailed <= set(expected)


def test_circles_rbf_separates_and_respects_theorem1():
    X, y = data.circles(120, seed=1)
    clf = SNKPClassifier(kernel="rbf", gamma=2.0).fit(X, y)
    assert clf.converged_
    assert np.all(clf.predict(X) == y)
    assert np.all(clf.decision_function(X) * y > 0)
    Xa = np.hstack([X, np.ones((X.shape[0], 1))])
    rho = kperc.margin(kperc.gram_matrix(Xa, y, "rbf", gamma=2.0))
    K = clf.n_iter_
    assert K * (K + 1) <= 8 * np.log(X.shape[0]) / rho**2


def test_any_two_labels_are_mapped():
    X, y = data.moons(80, noise=0.05, seed=0)
    labels = np.where(y > 0, "dog", "cat")
    clf = SNKPClassifier(kernel="rbf", gamma=5.0).fit(X, labels)
    assert list(clf.classes_) == ["cat", "dog"]
    assert np.all(clf.predict(X) == labels)


def test_more_than_two_classes_refused():
    X = np.random.default_rng(0).standard_normal((9, 2))
    with pytest.raises(ValueError, match="Only binary classification"):
        SNKPClassifier().fit(X, np.arange(9) % 3)
    with pytest.raises(ValueError, match="2 classes"):
        SNKPClassifier().fit(X, np.ones(9))


def test_convergence_warning_on_inseparable_data():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    y = np.array([1, -1, -1, 1])  # the first point repeated with the other label
    clf = SNKPClassifier(kernel="rbf", gamma=1.0, max_iter=200)
    with pytest.warns(ConvergenceWarning, match="no separator"):
        clf.fit(X, y)
    assert not clf.converged_ and clf.n_iter_ == 200
    with pytest.warns(ConvergenceWarning):
        SNKPClassifier(kernel="rbf", algorithm="nkp", max_iter=50).fit(X, y)


def test_intercept_option():
    """Points on a line away from 0: only an affine separator exists."""
    x = np.concatenate([np.linspace(1.0, 2.0, 10), np.linspace(3.0, 4.0, 10)])
    X = x[:, None]
    y = np.where(x < 2.5, 1, -1)
    clf = SNKPClassifier(kernel="linear", fit_intercept=True, intercept_scaling=1.0)
    clf.fit(X, y)
    assert clf.converged_ and np.all(clf.predict(X) == y)
    assert clf.support_vectors_.shape[1] == 2  # the constant feature is appended
    with pytest.warns(ConvergenceWarning):
        homog = SNKPClassifier(kernel="linear", fit_intercept=False, max_iter=100).fit(X, y)
    assert np.mean(homog.predict(X) == y) <= 0.5  # one sign for every positive x


def test_bad_parameters():
    X, y = data.circles(20, seed=0)
    with pytest.raises(ValueError, match="algorithm"):
        SNKPClassifier(algorithm="svm").fit(X, y)
    with pytest.raises(ValueError, match="max_iter"):
        SNKPClassifier(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="gamma"):
        SNKPClassifier(gamma="auto").fit(X, y)
    Xz = np.vstack([X, np.zeros((1, 2))])
    with pytest.raises(ValueError, match="K\\(x_i, x_i\\) <= 0"):
        SNKPClassifier(kernel="linear", fit_intercept=False).fit(Xz, np.append(y, 1))


def test_repeated_point_with_other_label_is_never_separated():
    """The classifier uses gram_matrix, whose G is exact for a repeated point: no spurious
    round-off 'separator' (min G alpha = +5e-17) may be reported."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from kperc import SNKPClassifier

    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 3))
    X = np.vstack([X, X[:1]])
    y = np.where(rng.random(31) < 0.5, 1, -1)
    y[-1] = -y[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = SNKPClassifier(kernel="rbf", gamma=1.0, max_iter=300).fit(X, y)
    assert not clf.converged_
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)

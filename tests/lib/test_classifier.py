"""SNKPClassifier: scikit-learn compatibility, convergence warning, intercept."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import infeasible_problem
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

import kperc
from kperc import SNKPClassifier
from kperc import datasets as data
from kperc._classifier import InseparableDataWarning, SmallMarginWarning, expected_failed_checks

_CHECKED = [
    SNKPClassifier(),
    SNKPClassifier(kernel="linear", max_iter=2000),
    SNKPClassifier(kernel="poly", algorithm="nkp"),
    SNKPClassifier(kernel="linear", fit_intercept=False, max_iter=2000),
]


@parametrize_with_checks(_CHECKED, expected_failed_checks=expected_failed_checks)
def test_check_estimator(estimator, check):
    """scikit-learn's estimator checks, multiclass (one-vs-rest) included."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_the_default_configuration_expects_no_failed_check():
    assert expected_failed_checks(SNKPClassifier()) == {}
    assert SNKPClassifier().__sklearn_tags__().classifier_tags.multi_class


def test_circles_rbf_separates_and_respects_theorem1():
    X, y = data.circles(120, seed=1)
    clf = SNKPClassifier(kernel="rbf", gamma=2.0).fit(X, y)
    assert clf.converged_
    assert np.all(clf.predict(X) == y)
    assert np.all(clf.decision_function(X) * y > 0)
    Xa = np.hstack([X, np.ones((X.shape[0], 1))])
    rho = kperc.margin(kperc.gram_matrix(Xa, y, "rbf", gamma=2.0))
    K = clf.halting_index_
    assert clf.n_iter_ == K + 1
    assert K * (K + 1) <= 8 * np.log(X.shape[0]) / rho**2


def test_any_two_labels_are_mapped():
    X, y = data.moons(80, noise=0.05, seed=0)
    labels = np.where(y > 0, "dog", "cat")
    clf = SNKPClassifier(kernel="rbf", gamma=5.0).fit(X, labels)
    assert list(clf.classes_) == ["cat", "dog"]
    assert np.all(clf.predict(X) == labels)


def test_more_than_two_classes_are_one_vs_rest():
    """Three classes: one binary model per class against the rest (as Perceptron)."""
    X, y = data.circles(60, seed=0)
    X3 = np.vstack([X, X[y > 0] + 10.0])  # a third class, far from the others
    y3 = np.concatenate([np.where(y > 0, "b", "a"), np.full(int(np.sum(y > 0)), "c")])
    clf = SNKPClassifier(gamma=2.0).fit(X3, y3)
    assert list(clf.classes_) == ["a", "b", "c"] and len(clf.estimators_) == 3
    scores = clf.decision_function(X3)
    assert scores.shape == (X3.shape[0], 3)
    for k, est in enumerate(clf.estimators_):  # each column is that binary model
        ypm = np.where(y3 == clf.classes_[k], 1, 0)
        np.testing.assert_array_equal(est.predict(X3), (scores[:, k] > 0).astype(int))
        if est.converged_:
            assert np.all((2 * ypm - 1) * scores[:, k] > 0)
    assert np.all(clf.predict(X3) == clf.classes_[np.argmax(scores, axis=1)])
    assert clf.converged_ == all(e.converged_ for e in clf.estimators_)
    lin = SNKPClassifier(kernel="linear").fit(X3, y3)
    assert lin.coef_.shape == (3, 2) and lin.intercept_.shape == (3,)
    np.testing.assert_allclose(lin.decision_function(X3) * 0, 0)  # finite scores
    with pytest.raises(ValueError, match="at least 2 classes"):
        SNKPClassifier().fit(X, np.ones(X.shape[0]))


def test_one_vs_rest_warns_once_naming_the_classes():
    X = np.array([[0.0], [1.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 1, 2, 2, 0])  # x = 1 has labels 1 and 2: a conflict for both
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = SNKPClassifier(gamma=1.0).fit(X, y)
    found = [w for w in caught if issubclass(w.category, InseparableDataWarning)]
    assert len(found) == 1
    text = str(found[0].message)
    assert "class 1 against the rest" in text and "class 2 against the rest" in text
    assert "class 0 against" not in text
    assert list(clf.outcome_) == [clf.estimators_[k].outcome_ for k in range(3)]
    assert clf.outcome_[1] == clf.outcome_[2] == "conflict" and not clf.converged_


def test_conflicting_points_are_found_before_any_iteration():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    y = np.array([1, -1, -1, 1])  # the first point repeated with the other label
    for algorithm in ("snkp", "nkp", "isnkpvn"):
        clf = SNKPClassifier(kernel="rbf", gamma=1.0, algorithm=algorithm)
        with pytest.warns(ConvergenceWarning, match=r"identical features and opposite"):
            clf.fit(X, y)
        assert clf.outcome_ == "conflict" and not clf.converged_
        assert clf.conflicts_.tolist() == [[0, 2]] and clf.witnesses_.tolist() == [0, 2]
        assert clf.certificate_norm_ == 0.0
        # the other two points are trained on (and separated), quickly
        assert clf.halting_index_ < 100
        assert set(clf.support_) <= {1, 3}
        assert np.all(clf.predict(X[[1, 3]]) == y[[1, 3]])


def test_max_iter_warning_when_neither_separator_nor_certificate():
    X = np.array([[0.0, 0.0], [1e-6, 0.0], [1.0, 1.0], [2.0, 0.0]])
    y = np.array([1, -1, 1, -1])  # a tiny RBF margin; a tol that cannot be certified
    clf = SNKPClassifier(kernel="rbf", gamma=1.0, max_iter=200, tol=1e-12)
    with pytest.warns(ConvergenceWarning, match="no separator") as rec:
        clf.fit(X, y)
    assert len(rec) == 1
    assert not clf.converged_ and clf.halting_index_ == 200 and clf.n_iter_ == 201
    assert clf.outcome_ == "max_iter" and clf.witnesses_ is None
    assert clf.conflicts_.shape == (0, 2)


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


def test_gamma_scale_is_svcs_on_the_original_data():
    """gamma="scale" is 1 / (n_features * X.var()) on X, not on X plus the intercept
    column (that gave 0.0323 on standardised breast cancer, where SVC gives 1/30)."""
    from sklearn.svm import SVC

    X, y = kperc.datasets.breast_cancer()
    for fit_intercept in (True, False):
        clf = SNKPClassifier(fit_intercept=fit_intercept, max_iter=50)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(X, y)
        svc = SVC(gamma="scale").fit(X, y)
        assert clf._gamma == pytest.approx(svc._gamma, rel=1e-12)
        assert clf._gamma == pytest.approx(1 / 30, rel=1e-9)  # standardised: X.var() = 1


def test_coef_and_intercept_for_the_linear_kernel():
    x = np.concatenate([np.linspace(1.0, 2.0, 10), np.linspace(3.0, 4.0, 10)])
    X = np.column_stack([x, np.sin(7 * x)])
    y = np.where(x < 2.5, 1, -1)
    clf = SNKPClassifier(kernel="linear", intercept_scaling=2.0).fit(X, y)
    assert clf.converged_
    assert clf.coef_.shape == (1, 2) and clf.intercept_.shape == (1,)
    lin = X @ clf.coef_[0] + clf.intercept_[0]
    dec = clf.decision_function(X)
    assert np.all(np.sign(lin) == np.sign(dec))
    assert np.all(lin * np.where(y == 1, 1, -1) > 0)
    # the decision function is the affine function divided by ||(x, scaling)||
    c = clf.intercept_feature_  # 2.0 times a power of two near the points' RMS norm
    rms = np.sqrt(np.mean(np.sum(X**2, axis=1)))
    assert c / 2.0 == 2.0 ** np.round(np.log2(rms))
    norms = np.sqrt(np.sum(X**2, axis=1) + c**2)
    np.testing.assert_allclose(dec, lin / norms, rtol=1e-12, atol=1e-15)
    Xc = X - [2.5, 0.0]  # now a separator through the origin exists
    homog = SNKPClassifier(kernel="linear", fit_intercept=False).fit(Xc, y)
    assert homog.converged_ and homog.intercept_.tolist() == [0.0]
    assert np.all(np.sign(Xc @ homog.coef_[0]) == np.sign(homog.decision_function(Xc)))
    rbf = SNKPClassifier().fit(X, y)
    for name in ("coef_", "intercept_"):
        with pytest.raises(AttributeError, match="kernel='linear'"):
            getattr(rbf, name)


def test_support_holds_only_nonzero_weights():
    X, y = kperc.datasets.circles(80, seed=2)
    for algorithm in ("snkp", "nkp", "isnkpvn"):
        clf = SNKPClassifier(gamma=2.0, algorithm=algorithm).fit(X, y)
        assert clf.converged_
        assert np.all(clf.dual_coef_ != 0)
        assert clf.support_vectors_.shape[0] == clf.support_.size
    nkp_clf = SNKPClassifier(gamma=2.0, algorithm="nkp").fit(X, y)
    assert nkp_clf.support_.size < X.shape[0]  # NKP's iterate is sparse


def test_inseparable_data_give_a_certificate_and_witnesses():
    """Moons with a linear kernel: ISNKPVN stops with ||p||_G <= tol, which bounds the
    exact margin; the warning names the witnesses, and predictions do not warn again."""
    X, y = kperc.datasets.moons(60, noise=0.1, seed=0)
    clf = SNKPClassifier(kernel="linear", algorithm="isnkpvn", tol=1e-3)
    with pytest.warns(SmallMarginWarning, match="witnesses_") as rec:
        clf.fit(X, y)
    assert issubclass(rec[0].category, ConvergenceWarning)
    assert clf.outcome_ == "certificate" and not clf.converged_
    assert clf.certificate_norm_ <= 1e-3
    assert clf.witnesses_.size >= 2 and set(y[clf.witnesses_]) == {-1, 1}
    Xa = np.hstack([X, np.full((X.shape[0], 1), clf.intercept_feature_)])
    G = kperc.gram_matrix(Xa, y, "linear")
    assert kperc.margin(G) <= clf.certificate_norm_ + 1e-9
    with warnings.catch_warnings():  # warned once, at fit: predictions do not warn
        warnings.simplefilter("error")
        clf.predict(X)
        clf.decision_function(X)
        clf.score(X, y)


def test_converged_model_predicts_without_warning():
    X, y = kperc.datasets.circles(60, seed=0)
    clf = SNKPClassifier(gamma=2.0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.predict(X)


def test_verbose_reports_the_stages(capsys):
    X, y = kperc.datasets.circles(40, seed=0)
    SNKPClassifier(gamma=2.0, verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert "Gram matrix 40x40" in out and "separator found" in out
    SNKPClassifier(gamma=2.0).fit(X, y)
    assert capsys.readouterr().out == ""


def test_bad_tol_and_missing_y():
    X, y = kperc.datasets.circles(20, seed=0)
    with pytest.raises(ValueError, match="tol"):
        SNKPClassifier(algorithm="isnkpvn", tol=0).fit(X, y)
    with pytest.raises(ValueError, match="requires y to be passed"):
        SNKPClassifier().fit(X, None)


def test_check_input_false_gives_the_same_model():
    X, y = kperc.datasets.moons(60, noise=0.05, seed=1)
    a = SNKPClassifier(gamma=5.0).fit(X, y)
    b = SNKPClassifier(gamma=5.0, check_input=False).fit(X, y)
    assert a.n_iter_ == b.n_iter_
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    with pytest.raises(ValueError, match="NaN"):
        SNKPClassifier().fit(np.where(X > 0.5, np.nan, X), y)


def test_verbose_2_prints_progress_lines(capsys, monkeypatch):
    import kperc._classifier_fit as mod

    X, y = kperc.datasets.circles(80, seed=0)
    monkeypatch.setattr(mod, "PROGRESS_SECONDS", 0.0)  # a line at every iteration
    clf = SNKPClassifier(gamma=2.0, verbose=2).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    progress = [ln for ln in lines if " iteration " in ln]
    assert clf.halting_index_ >= 3
    assert len(progress) == clf.halting_index_  # iterates 0 .. K-1 failed the exit test
    for k, line in enumerate(progress):
        assert line.startswith(f"[SNKPClassifier] SNKP iteration {k}: ")
        assert " s, mu=" in line and "min_Galpha=" in line
    assert "separator found" in lines[-1]  # the stage lines of verbose=1 are kept
    assert any("dense Gram matrix 80x80" in ln for ln in lines)
    # the default interval: the first iteration is shown, the rest of a short fit is not
    monkeypatch.setattr(mod, "PROGRESS_SECONDS", 1.0)
    SNKPClassifier(gamma=2.0, verbose=2).fit(X, y)
    progress = [ln for ln in capsys.readouterr().out.splitlines() if " iteration " in ln]
    assert progress[0].startswith("[SNKPClassifier] SNKP iteration 0: ")
    # verbose=1 keeps the per-stage lines only
    SNKPClassifier(gamma=2.0, verbose=1).fit(X, y)
    assert " iteration " not in capsys.readouterr().out


def test_verbose_2_progress_of_isnkpvn_names_the_call(capsys, monkeypatch):
    import kperc._classifier_fit as mod

    monkeypatch.setattr(mod, "PROGRESS_SECONDS", 0.0)
    X, y = kperc.datasets.infeasible(40, 2, rho=-0.2, seed=0)
    with pytest.warns(SmallMarginWarning):
        clf = SNKPClassifier(
            kernel="linear", fit_intercept=False, algorithm="isnkpvn", tol=1e-4, verbose=2
        ).fit(X, y)
    assert clf.outcome_ == "certificate" and clf.halting_index_ > 0
    progress = [ln for ln in capsys.readouterr().out.splitlines() if " iteration " in ln]
    assert progress and all("norm_p_G=" in ln and "call " in ln for ln in progress)


def test_n_components_auto_rule(monkeypatch):
    """ "auto": factored for the linear kernel at any n; dense up to AUTO_EXACT_MAX_N
    points for the other kernels, Nystroem with AUTO_N_COMPONENTS features above."""
    import kperc._gram_form as mod

    monkeypatch.setattr(mod, "AUTO_EXACT_MAX_N", 50)
    monkeypatch.setattr(mod, "AUTO_N_COMPONENTS", 20)
    monkeypatch.setattr(mod, "AUTO_N_START", 4)
    small, large = kperc.datasets.circles(50, seed=0), kperc.datasets.circles(51, seed=0)
    fixed = (
        ("poly", {"degree": 2}),
        ("rbf", {"gamma": 2.0, "algorithm": "nkp"}),
        ("rbf", {"gamma": 2.0, "halt": False, "max_iter": 200}),
    )
    for kernel, kw in (("rbf", {"gamma": 2.0}), *fixed):
        clf = SNKPClassifier(kernel=kernel, random_state=0, **kw).fit(small.X, small.y)
        assert (clf.gram_form_, clf.n_components_, clf.feature_map_) == ("dense", None, None)
    for kernel, kw in fixed:  # the rank does not grow: AUTO_N_COMPONENTS features
        clf = SNKPClassifier(kernel=kernel, random_state=0, **kw).fit(large.X, large.y)
        assert (clf.gram_form_, clf.n_components_) == ("nystroem", 20)
        assert clf.feature_map_.n_components == 20 and clf.feature_coef_.shape == (20,)
    # RBF and SNKP: the rank starts at AUTO_N_START and doubles (kperc.snkp_nystroem)
    clf = SNKPClassifier(gamma=2.0, random_state=0).fit(large.X, large.y)
    m = clf.n_components_
    assert clf.gram_form_ == "nystroem" and m in (4, 8, 16, 32, 51)
    assert clf.feature_map_.n_components == m and clf.feature_coef_.shape == (m,)
    for n in (10, 200):
        X, y = kperc.datasets.planted(n, 3, rho=0.1, seed=0)
        clf = SNKPClassifier(kernel="linear").fit(X, y)
        assert (clf.gram_form_, clf.n_components_) == ("factored", None)
        assert clf.converged_ and clf.score(X, y) == 1.0
    # explicit choices are kept whatever n
    X, y = large.X, large.y
    assert SNKPClassifier(gamma=2.0, n_components=None).fit(X, y).gram_form_ == "dense"
    Xp, yp = kperc.datasets.planted(60, 3, rho=0.1, seed=0)
    assert SNKPClassifier(kernel="linear", n_components=None).fit(Xp, yp).gram_form_ == "dense"
    clf = SNKPClassifier(gamma=2.0, n_components=30, random_state=0).fit(small.X, small.y)
    assert (clf.gram_form_, clf.n_components_) == ("nystroem", 30)
    # a callable kernel stays exact: Nystroem would call it once per pair of points
    assert SNKPClassifier(kernel=_rbf2).fit(X, y).gram_form_ == "dense"
    with pytest.raises(ValueError, match="needs a named kernel"):
        SNKPClassifier(kernel=_rbf2, n_components=20).fit(X, y)


def _rbf2(A, B):
    return kperc.kernel_matrix(A, B, kernel="rbf", gamma=2.0)


def test_n_components_auto_is_the_exact_model_below_the_threshold():
    X, y = kperc.datasets.moons(120, noise=0.05, seed=1)
    auto = SNKPClassifier(gamma=5.0).fit(X, y)
    dense = SNKPClassifier(gamma=5.0, n_components=None).fit(X, y)
    assert auto.gram_form_ == "dense" and auto.n_iter_ == dense.n_iter_
    np.testing.assert_array_equal(auto.dual_coef_, dense.dual_coef_)
    np.testing.assert_array_equal(auto.decision_function(X), dense.decision_function(X))


def test_linear_factored_operator_agrees_with_the_dense_matrix():
    X, y = kperc.datasets.planted(150, 4, rho=0.05, seed=2)
    fac = SNKPClassifier(kernel="linear").fit(X, y)
    dense = SNKPClassifier(kernel="linear", n_components=None).fit(X, y)
    assert fac.gram_form_ == "factored" and dense.gram_form_ == "dense"
    assert fac.converged_ and dense.converged_
    assert abs(fac.halting_index_ - dense.halting_index_) <= 1  # same iteration, up to rounding
    np.testing.assert_allclose(fac.coef_, dense.coef_, rtol=1e-8, atol=1e-12)
    np.testing.assert_array_equal(fac.predict(X), dense.predict(X))
    # decision_function is x . coef_ + intercept_, normalised by ||(x, intercept_scaling)||
    Xa = np.hstack([X, np.full((X.shape[0], 1), fac.intercept_feature_)])
    expect = (X @ fac.coef_.ravel() + fac.intercept_[0]) / np.linalg.norm(Xa, axis=1)
    np.testing.assert_allclose(fac.decision_function(X), expect, rtol=1e-12, atol=1e-15)


def test_bad_n_components_string():
    X, y = kperc.datasets.circles(20, seed=0)
    with pytest.raises(ValueError, match="'n_components' parameter"):
        SNKPClassifier(n_components="exact").fit(X, y)


# ------------------------------------------------- issue: a classifier that stops early


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("intercept_scaling", np.nan),
        ("intercept_scaling", np.inf),
        ("intercept_scaling", "1.0"),
        ("intercept_scaling", None),
        ("intercept_scaling", 0.0),
        ("algorithm", ["snkp"]),
        ("algorithm", None),
        ("kernel", "sigmoid"),
        ("kernel", ["rbf"]),
        ("fit_intercept", "yes"),
        ("halt", 0),
        ("n_threads", 0),
        ("n_threads", 1.5),
        ("tol", -1.0),
        ("tol", "scale"),
        ("tol", np.nan),
        ("gamma", np.inf),
    ],
)
def test_bad_parameters_name_themselves(param, value):
    X, y = kperc.datasets.circles(20, seed=0)
    with pytest.raises(ValueError, match=param):
        SNKPClassifier(**{param: value}).fit(X, y)


def test_halt_false_needs_a_perceptron():
    X, y = kperc.datasets.circles(20, seed=0)
    with pytest.raises(ValueError, match="halt=False"):
        SNKPClassifier(algorithm="isnkpvn", halt=False).fit(X, y)


def test_sample_weight_is_refused_by_name():
    X, y = kperc.datasets.circles(20, seed=0)
    with pytest.raises(TypeError, match="sample_weight"):
        SNKPClassifier().fit(X, y, sample_weight=np.ones(20))
    with pytest.raises(ValueError, match="class_weight"):
        SNKPClassifier().set_params(class_weight="balanced")


def test_warns_once_per_fit_in_a_grid_search():
    from sklearn.model_selection import GridSearchCV

    X, y = kperc.datasets.moons(60, noise=0.3, seed=0)
    grid = GridSearchCV(
        SNKPClassifier(kernel="linear"), {"intercept_scaling": [0.5, 1.0, 2.0]}, cv=3
    )
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        grid.fit(X, y)
    caught = [w for w in rec if issubclass(w.category, ConvergenceWarning)]
    assert len(caught) == 3 * 3 + 1  # one per fit (9 folds and the refit), none at scoring


@pytest.mark.parametrize(
    ("kernel", "params"),
    [("rbf", {}), ("linear", {}), ("poly", {"degree": 2})],
)
def test_model_does_not_depend_on_the_scale_of_X(kernel, params):
    X, y = kperc.datasets.circles(60, seed=3)
    if kernel == "linear":
        X, y = kperc.datasets.planted(60, 3, rho=0.05, seed=3)
        X = X + 1.0  # an offset is needed
    ref = SNKPClassifier(kernel=kernel, **params).fit(X, y)
    for k in (-66, 40):  # 2^-66 is about 1e-20
        clf = SNKPClassifier(kernel=kernel, **params).fit(X * 2.0**k, y)
        assert clf.outcome_ == ref.outcome_ and clf.n_iter_ == ref.n_iter_
        np.testing.assert_array_equal(clf.predict(X * 2.0**k), ref.predict(X))
        if kernel == "linear":  # dual_coef_ = alpha_i y_i / ||x_i||: scaled exactly
            np.testing.assert_array_equal(clf.dual_coef_ * 2.0**k, ref.dual_coef_)
    # a scale that is not a power of two: the same accuracy
    clf = SNKPClassifier(kernel=kernel, **params).fit(X * 1e-20, y)
    assert clf.score(X * 1e-20, y) == ref.score(X, y)


def test_rbf_ignores_the_intercept_feature():
    X, y = kperc.datasets.circles(40, seed=0)
    a = SNKPClassifier(gamma=2.0).fit(X, y)
    b = SNKPClassifier(gamma=2.0, fit_intercept=False).fit(X, y)
    assert a.intercept_feature_ is None and a.support_vectors_.shape[1] == 2
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)


@given(st.integers(0, 10_000))
def test_inseparable_linear_data_stop_early_with_a_certificate(seed):
    prob = infeasible_problem(seed)
    clf = SNKPClassifier(kernel="linear", fit_intercept=False, max_iter=100_000)
    with pytest.warns(SmallMarginWarning, match="normalised margin above"):
        clf.fit(prob.X, prob.y)
    assert clf.outcome_ == "certificate" and clf.halting_index_ < 5_000
    n = prob.X.shape[0]
    assert clf.tol_ == pytest.approx(2 * np.sqrt(2 * np.log(n)) / 100_000)
    assert clf.certificate_norm_ <= clf.tol_
    assert set(prob.y[clf.witnesses_]) == {-1.0, 1.0}
    assert kperc.is_separable(prob.X, prob.y).status == "not separable"


def test_separable_data_never_stop_on_a_certificate():
    """tol='auto' is below every margin that SNKP is sure to reach within max_iter:
    ||p||_G >= rho for every p, so a certificate cannot fire on such data."""
    for seed in range(5):
        X, y = kperc.datasets.planted(80, 4, rho=0.01, seed=seed)
        clf = SNKPClassifier(kernel="linear", fit_intercept=False).fit(X, y)
        assert clf.outcome_ == "separator" and clf.tol_ < 0.01


def test_nkp_stops_early_too():
    prob = infeasible_problem(3)
    clf = SNKPClassifier(kernel="linear", fit_intercept=False, algorithm="nkp")
    with pytest.warns(SmallMarginWarning):
        clf.fit(prob.X, prob.y)
    assert clf.outcome_ == "certificate" and clf.tol_ == pytest.approx(1 / np.sqrt(1e5))
    assert clf.halting_index_ < 100_000


def test_halt_false_keeps_improving_the_margin():
    X, y = kperc.datasets.planted(100, 3, rho=0.05, seed=0)
    ypm = np.where(y > 0, 1.0, -1.0)

    def train_margin(clf):
        return float(np.min(ypm * clf.decision_function(X)) / np.linalg.norm(clf.coef_))

    first = SNKPClassifier(kernel="linear", fit_intercept=False).fit(X, y)
    more = SNKPClassifier(kernel="linear", fit_intercept=False, halt=False, max_iter=2000)
    more.fit(X, y)
    assert first.converged_ and more.converged_ and more.halting_index_ > first.halting_index_
    assert train_margin(more) > train_margin(first)


def test_blas_threads_limited_inside_fit():
    from threadpoolctl import threadpool_info

    seen = []

    def kernel(A, B):
        seen.append([i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"])
        return A @ B.T + 1.0

    X, y = kperc.datasets.planted(30, 3, rho=0.1, seed=0)
    SNKPClassifier(kernel=kernel, n_threads=1).fit(X, y)
    assert seen and all(t == [1] * len(t) for t in seen)


def test_nystroem_switch_is_announced(monkeypatch):
    import kperc._gram_form as mod

    monkeypatch.setattr(mod, "AUTO_EXACT_MAX_N", 50)
    X, y = kperc.datasets.circles(60, seed=0)
    # a fixed rank: its separator holds for the approximate kernel only, which is said
    with pytest.warns(UserWarning, match="certified for the approximate kernel"):
        clf = SNKPClassifier(kernel="poly", random_state=0).fit(X, y)
    assert clf.gram_form_ == "nystroem"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # a grown rank certifies under the exact kernel: no warning, one log line
        clf = SNKPClassifier(gamma=2.0, random_state=0).fit(X, y)
        assert clf.gram_form_ == "nystroem" and clf.converged_
        SNKPClassifier(gamma=2.0, n_components=40, random_state=0).fit(X, y)


def _landmark_values(clf, X, y):
    """``y_i f(x_i)`` of a Nystroem model, from exact kernel values at its landmarks."""
    from sklearn.metrics.pairwise import rbf_kernel

    tr = clf.feature_map_
    beta = tr.normalization_.T @ clf.feature_coef_
    return y * (rbf_kernel(X, tr.components_, gamma=tr.gamma) @ beta)


def test_auto_grows_the_rank_until_the_exact_kernel_certifies(monkeypatch):
    import kperc._gram_form as mod

    monkeypatch.setattr(mod, "AUTO_EXACT_MAX_N", 100)
    monkeypatch.setattr(mod, "AUTO_N_START", 8)
    ds = kperc.datasets.planted_rbf(800, 3, rho=1e-3, gamma=2.0, seed=0)
    # a margin of 1e-3, below tol="auto" (1 / sqrt(n)): ask for it with a smaller tol
    clf = SNKPClassifier(gamma=2.0, random_state=0, verbose=1, tol=1e-5).fit(ds.X, ds.y)
    assert clf.converged_ and clf.outcome_ == "separator" and clf.n_components_ > 8
    assert clf.score(ds.X, ds.y) == 1.0
    assert np.all(_landmark_values(clf, ds.X, ds.y) > 0)  # under the exact kernel
    ypm = np.where(ds.y == clf.classes_[1], 1.0, -1.0)
    assert np.all(ypm * clf.decision_function(ds.X) > 0)


def test_auto_rank_cap_is_reported_as_not_converged(monkeypatch):
    import kperc._gram_form as mod

    monkeypatch.setattr(mod, "AUTO_EXACT_MAX_N", 100)
    monkeypatch.setattr(mod, "AUTO_N_START", 4)
    monkeypatch.setattr(mod, "AUTO_N_MAX", 8)
    ds = kperc.datasets.planted_rbf(800, 3, rho=1e-3, gamma=2.0, seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = SNKPClassifier(gamma=2.0, random_state=0, max_iter=2000).fit(ds.X, ds.y)
    msgs = [str(w.message) for w in caught if w.category is ConvergenceWarning]
    assert len(msgs) == 1 and "no separator could be certified up to rank 8" in msgs[0]
    assert "n_components=None" in msgs[0]  # the exact-kernel path is named
    assert not clf.converged_ and clf.outcome_ == "max_iter" and clf.n_components_ == 8


def test_auto_rank_stops_early_where_features_miss_the_kernel(monkeypatch):
    """A narrow RBF kernel in 8 dimensions: the Nystroem features miss most of the
    kernel at every rank tried, so the grown rank stops after a few cheap ranks with one
    warning that names the exact kernel and a soft-margin method."""
    import kperc._gram_form as mod

    monkeypatch.setattr(mod, "AUTO_EXACT_MAX_N", 100)
    monkeypatch.setattr(mod, "AUTO_N_START", 8)
    monkeypatch.setattr(mod, "AUTO_N_MAX", 1024)
    ds = kperc.datasets.planted_rbf(3000, 8, rho=1e-3, gamma=2.0, seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = SNKPClassifier(gamma=2.0, random_state=0).fit(ds.X, ds.y)
    msgs = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert len(msgs) == 1 and "rank stopped growing" in msgs[0]
    for name in ("n_components=None", "kperc.gram_matrix", "sklearn.svm.SVC"):
        assert name in msgs[0]
    assert msgs[0].count("8 n^2 bytes") == 1  # the exact kernel's cost, said once
    assert not clf.converged_ and clf.outcome_ == "max_iter"
    assert clf.gram_form_ == "nystroem" and 8 * 2**2 <= clf.n_components_ < 1024


def test_scale_hint_in_the_warning():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 2)) * [1.0, 1e5]
    y = np.where(rng.random(60) < 0.5, 1, -1)
    with pytest.warns(ConvergenceWarning, match="StandardScaler"):
        SNKPClassifier(kernel="linear", max_iter=300).fit(X, y)


def test_expected_failed_checks_method():
    assert SNKPClassifier().expected_failed_checks() == {}
    est = SNKPClassifier(algorithm="nkp")
    assert est.expected_failed_checks() == expected_failed_checks(est)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -3, 2.5, True, "100"])
def test_max_iter_errors_name_the_parameter(bad):
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.5, 1.0], [-0.5, -1.0]])
    y = np.array([1, -1, 1, -1])
    with pytest.raises(ValueError, match="max_iter"):
        SNKPClassifier(max_iter=bad).fit(X, y)


# --------------------------------------------------- validation at the boundary, once
@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf", "gamma": 2.0},
        {"kernel": "linear"},
        {"kernel": "poly", "degree": 2},
        {"kernel": "rbf", "n_components": 10, "random_state": 0},
    ],
)
def test_fit_and_predict_validate_X_once(monkeypatch, params):
    """scikit-learn's habit: the public method validates X, the helpers it calls trust it."""
    import kperc._approx
    import kperc._classifier
    import kperc._gram_matrix
    import kperc._kernel_values
    import kperc._validation

    calls = {"validate_data": 0, "check": 0}
    real_validate = kperc._classifier.validate_data

    def counting_validate(*args, **kwargs):
        calls["validate_data"] += 1
        return real_validate(*args, **kwargs)

    def counting(real):
        def wrapper(*args, **kwargs):
            calls["check"] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(kperc._classifier, "validate_data", counting_validate)
    for module in (kperc._kernel_values, kperc._gram_matrix, kperc._approx, kperc._validation):
        for name in ("check_X", "check_Xy"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, counting(getattr(module, name)))
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    clf = SNKPClassifier(**params).fit(X, y)
    assert calls == {"validate_data": 1, "check": 0}
    clf.predict(X[:5])
    assert calls == {"validate_data": 2, "check": 0}


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_check_input_false_still_refuses_non_finite_X(bad):
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    y = np.array([1, -1, 1])
    Xbad = X.copy()
    Xbad[1, 0] = bad
    with pytest.raises(ValueError, match="X contains NaN or inf"):
        SNKPClassifier(check_input=False).fit(Xbad, y)
    clf = SNKPClassifier(check_input=False).fit(X, y)
    with pytest.raises(ValueError, match="X contains NaN or inf"):
        clf.predict(Xbad)


def test_check_input_false_still_refuses_complex_X():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    y = np.array([1, -1, 1])
    with pytest.raises((TypeError, ValueError), match="(?i)complex"):
        SNKPClassifier(check_input=False).fit(X + 1j, y)


# --- sparse X (linear kernel) ----------------------------------------------------------


def _sparse_separable(n, d, seed, offset=0.0):
    """A sparse X (density 0.1) labelled by a random affine hyperplane, the points within
    0.05 (relative) of it left out."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    X = sp.random(3 * n, d, density=0.1, random_state=seed, format="csr")
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel()) + 1.0
    m = X @ rng.standard_normal(d) + offset
    keep = np.flatnonzero(np.abs(m) > 0.05 * norms)[:n]
    return X[keep], np.where(m[keep] > 0, "yes", "no")


@pytest.mark.parametrize("algorithm", ["snkp", "nkp", "isnkpvn"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_linear_fit_matches_dense(algorithm, fit_intercept, fmt):
    Xs, y = _sparse_separable(150, 400, seed=1, offset=0.3 * fit_intercept)
    Xs = Xs.asformat(fmt)
    kw = {"kernel": "linear", "algorithm": algorithm, "fit_intercept": fit_intercept}
    sparse = SNKPClassifier(**kw, max_iter=10**6).fit(Xs, y)
    dense = SNKPClassifier(**kw, max_iter=10**6).fit(Xs.toarray(), y)
    assert sparse.converged_ and dense.converged_
    assert sparse.halting_index_ == dense.halting_index_
    assert sparse.gram_form_ == "factored"
    assert sparse.support_vectors_.format == "csr"  # the training data are never densified
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        sparse.decision_function(Xs), dense.decision_function(Xs.toarray()), atol=1e-14
    )
    assert np.array_equal(sparse.predict(Xs), y)  # a converged model separates its data
    assert np.array_equal(sparse.predict(Xs.tocsc()), y)


def test_sparse_conflicts_are_found_as_in_dense():
    import scipy.sparse as sp

    Xs, y = _sparse_separable(40, 50, seed=2)
    X2 = sp.vstack([Xs, Xs[[3, 7]]]).tocsr()
    y2 = np.concatenate([y, np.where(y[[3, 7]] == "yes", "no", "yes")])
    with pytest.warns(InseparableDataWarning, match="identical features"):
        sparse = SNKPClassifier(kernel="linear").fit(X2, y2)
    with pytest.warns(InseparableDataWarning, match="identical features"):
        dense = SNKPClassifier(kernel="linear").fit(X2.toarray(), y2)
    assert sparse.conflicts_.tolist() == dense.conflicts_.tolist() == [[3, 40], [7, 41]]


def test_sparse_tags_follow_the_kernel():
    assert SNKPClassifier(kernel="linear").__sklearn_tags__().input_tags.sparse
    for kernel in ("rbf", "poly", lambda a, b: a @ b.T):
        assert not SNKPClassifier(kernel=kernel).__sklearn_tags__().input_tags.sparse


@pytest.mark.parametrize(
    "params, named",
    [
        ({"kernel": "rbf"}, "kernel='rbf'"),
        ({"kernel": "poly"}, "kernel='poly'"),
        ({"kernel": "linear", "n_components": 10}, "n_components=10"),
        ({"kernel": "linear", "n_components": None}, "n_components=None"),
    ],
)
def test_sparse_x_is_refused_where_it_cannot_be_used(params, named):
    import scipy.sparse as sp

    Xs, y = _sparse_separable(30, 20, seed=0)
    with pytest.raises(TypeError, match=f"X is a scipy.sparse matrix.*{named}"):
        SNKPClassifier(**params).fit(Xs, y)
    if params["kernel"] != "linear":
        clf = SNKPClassifier(**params).fit(Xs.toarray(), y)
        with pytest.raises(TypeError, match=f"X is a scipy.sparse matrix.*{named}"):
            clf.predict(sp.csr_matrix(Xs))


def test_sparse_nan_is_refused_even_without_check_input():
    Xs, y = _sparse_separable(30, 20, seed=0)
    Xs = Xs.copy()
    Xs.data[0] = np.nan
    for check_input in (True, False):
        with pytest.raises(ValueError, match="NaN|infinity"):
            SNKPClassifier(kernel="linear", check_input=check_input).fit(Xs, y)


def test_sparse_separators_are_certified_beyond_rounding():
    """SNKP's separator on a sparse factored G: G alpha > 0 in long double too, and the
    test it passed used n + (most nonzeros in a row) + 2 rounding terms for the product,
    plus r (2 + r) / u for the rounding of the factor itself: each row z_i is within
    r = row_error of its exact unit direction a*_i, so |z_i^T z_j - a*_i^T a*_j| <=
    r ||z_j|| + r <= r (2 + r), and a separator must beat that to hold for the data."""
    from kperc._gram import as_gram

    u = np.finfo(np.float64).eps / 2
    Xs, y = _sparse_separable(120, 300, seed=4)
    op = kperc.gram_operator(Xs, np.where(y == "yes", 1.0, -1.0))
    gram = as_gram(op)
    nnz = int(np.diff(op.Z.indptr).max())
    factor = int(np.ceil(op.row_error * (2 + op.row_error) / u))
    assert 2 * (nnz + 6) <= factor <= 2 * (nnz + 6) * 1.02 + 1  # row_error ~ (nnz + 6) u
    assert gram.rounding_terms == op.shape[0] + nnz + 2 + factor
    res = kperc.snkp(op)
    assert res.outcome == "separator"
    Z = op.Z.toarray().astype(np.longdouble)
    assert float((Z @ (Z.T @ res.alpha.astype(np.longdouble))).min()) > 0


def test_certified_separates_counts_the_nonzeros_of_each_row():
    import scipy.sparse as sp

    from kperc._gram import certified_separates

    u = np.finfo(float).eps / 2
    Z = sp.csr_matrix(np.array([[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.5, 0.5]]))
    w = np.array([1.0, 1.0, 1.0, 1.0])
    assert certified_separates(Z, w) == certified_separates(Z.toarray(), w)
    # a row with 2 nonzeros among 100 features, whose product cancels to 20u: above the
    # sparse bound (2 + 2) u (|z| |w|) = 8u, below the dense one (100 + 2) u (|z| |w|)
    z = np.zeros((1, 100))
    z[0, :2] = 1.0
    w = np.zeros(100)
    w[:2] = [1.0, -1.0 + 20 * u]
    assert certified_separates(sp.csr_matrix(z), w)[0]
    assert not certified_separates(z, w)[0]


def test_grown_nystroem_fit_stops_early_on_inseparable_data():
    """Above 5000 points (n_components='auto', RBF): near-duplicates under the other label
    leave no margin above tol, and the fit stops on a certificate checked under the exact
    kernel instead of running to max_iter."""
    import warnings

    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, (2600, 2))
    y = np.where(rng.random(2600) < 0.5, -1, 1)
    X2 = np.vstack([X, X + 1e-7 * rng.standard_normal(X.shape)])
    y2 = np.concatenate([y, -y])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = kperc.SNKPClassifier(gamma=2.0).fit(X2, y2)
    assert clf.gram_form_ == "nystroem" and clf.outcome_ == "certificate"
    assert not clf.converged_ and clf.certificate_norm_ <= clf.tol_
    assert clf.n_iter_ < 1000 and clf.witnesses_.size > 0


def _next_watch(k):
    """The first iteration at or after ``k`` where the certificate watch tests ``p``."""
    if k <= 256:
        return max(8, 1 << int(np.ceil(np.log2(max(k, 1)))))
    return int(np.ceil(k / 256) * 256)


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_noisy_data_end_early_with_a_certificate(kernel):
    """Random labels on distinct points: separable by the RBF kernel with a tiny margin.
    tol="auto" (1/sqrt(n)) stops SNKP with a certificate within Theorem 1's count for
    that margin, and the one warning says why and what to use instead."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 3))
    y = rng.integers(0, 2, 300)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = SNKPClassifier(kernel=kernel).fit(X, y)
    msgs = [str(w.message) for w in caught if w.category is SmallMarginWarning]
    assert len(msgs) == 1 and "soft-margin" in msgs[0] and "1/sqrt(n)" in msgs[0]
    assert clf.tol_ == 1 / np.sqrt(300) and clf.outcome_ == "certificate"
    assert 0 < clf.certificate_norm_ <= clf.tol_
    k_max = np.sqrt(8 * np.log(300)) / clf.tol_  # ||p_k||_G <= sqrt(8 log n) / k
    assert clf.halting_index_ <= _next_watch(int(np.ceil(k_max)))
    if kernel == "rbf":  # separable (G is definite): its exact margin is below the bound
        G = kperc.gram_matrix(X, np.where(y == 1, 1.0, -1.0), "rbf", gamma=clf._gamma)
        assert 0 < kperc.margin(G) <= clf.certificate_norm_


def test_separable_data_above_the_auto_tol_still_converge():
    X, y = data.circles(200, seed=0)
    Xa = np.hstack([X, np.ones((200, 1))])
    rho = kperc.margin(kperc.gram_matrix(Xa, y, "rbf", gamma=2.0))
    clf = SNKPClassifier(gamma=2.0).fit(X, y)
    assert rho > clf.tol_ and clf.converged_


def test_the_max_iter_warning_states_a_margin_bound():
    """After a tiny max_iter the warning gives an upper bound on the margin (at most 1),
    not Theorem 1's tolerance for that budget (above 1, meaningless for a margin)."""
    import re

    X, y = data.circles(200, seed=0)
    with pytest.warns(ConvergenceWarning) as rec:
        clf = SNKPClassifier(gamma=2.0, max_iter=2).fit(X, y)
    text = str(rec[0].message)
    assert clf.outcome_ == "max_iter" and "tol" not in text
    bound = float(re.search(r"normalised margin above ([0-9.e+-]+)", text).group(1))
    Xa = np.hstack([X, np.ones((200, 1))])
    rho = kperc.margin(kperc.gram_matrix(Xa, y, "rbf", gamma=2.0))
    assert rho <= bound * (1 + 1e-2) and bound <= 1.0  # three digits are printed


@pytest.mark.parametrize(
    ("param", "value"),
    [("coef0", np.nan), ("coef0", np.inf), ("degree", 0), ("degree", 2.5), ("degree", -1)],
)
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_invalid_kernel_parameters_are_refused_whatever_the_kernel(kernel, param, value):
    X, y = data.circles(20, seed=0)
    with pytest.raises(ValueError, match=param):
        SNKPClassifier(kernel=kernel, **{param: value}).fit(X, y)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_one_vs_rest_builds_the_kernel_once_and_fits_as_each_binary_model(kernel, monkeypatch):
    """The unsigned dense kernel is built once and signed per class: each class's model
    is the one a binary fit of that class against the rest gives, also when points
    repeated with two labels leave each class a different training set."""
    from kperc import _gram_form

    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3))
    X[30:33] = X[0:3]  # repeated points: x_0 with labels 0 and 2, a conflict
    y = np.arange(40) % 3
    y[30:33] = [2, 1, 2]
    built = []
    real = _gram_form._gram_matrix_bounded
    monkeypatch.setattr(
        _gram_form, "_gram_matrix_bounded", lambda *a: built.append(a[0].shape) or real(*a)
    )
    params = {"kernel": kernel, "n_components": None, "max_iter": 300}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = SNKPClassifier(**params).fit(X, y)
    assert len(built) == 1 and built[0][0] == 40  # one n x n kernel, of all the points
    monkeypatch.setattr(_gram_form, "_gram_matrix_bounded", real)
    for k, est in enumerate(clf.estimators_):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = SNKPClassifier(**params).fit(X, (y == k).astype(int))
        assert est.outcome_ == ref.outcome_ and est.n_iter_ == ref.n_iter_
        np.testing.assert_array_equal(est.conflicts_, ref.conflicts_)
        np.testing.assert_array_equal(est.support_, ref.support_)
        np.testing.assert_allclose(est.dual_coef_, ref.dual_coef_, rtol=1e-12, atol=0)
    assert not hasattr(clf.estimators_[0], "_shared_gram")


# ------------------------------------ issue 36: expected failures, warnings, verbose


_LISTED = [
    SNKPClassifier(algorithm="nkp"),
    SNKPClassifier(kernel="linear", algorithm="nkp"),
    SNKPClassifier(kernel="poly", algorithm="nkp"),
    SNKPClassifier(kernel="linear", fit_intercept=False),
    SNKPClassifier(kernel="poly", coef0=0.0, fit_intercept=False),
]


@pytest.mark.parametrize(
    ("estimator", "check"),
    [(est, name) for est in _LISTED for name in expected_failed_checks(est)],
    ids=lambda v: v if isinstance(v, str) else repr(v),
)
def test_each_expected_failed_check_still_fails(estimator, check):
    """expected_failed_checks() is exact: every check it lists fails when run alone
    (the configurations that list nothing pass them all: test_check_estimator)."""
    from sklearn.utils import estimator_checks

    with warnings.catch_warnings(), pytest.raises((AssertionError, ValueError)):
        warnings.simplefilter("ignore", ConvergenceWarning)
        getattr(estimator_checks, check)(type(estimator).__name__, estimator)


def test_isnkpvn_and_the_linear_kernel_expect_no_failed_check():
    """Issue 36: check_classifiers_train passes for kernel="linear" and "isnkpvn"."""
    from sklearn.utils.estimator_checks import check_classifiers_train

    for est in (SNKPClassifier(kernel="linear", algorithm="isnkpvn"), SNKPClassifier("linear")):
        assert expected_failed_checks(est) == {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            check_classifiers_train("SNKPClassifier", est)


def test_a_small_margin_is_not_called_inseparable():
    """Separable data with a margin below tol: the certificate proves no separator has a
    margin above tol, so the fit warns SmallMarginWarning (not InseparableDataWarning),
    says the data may be separable with a smaller margin and states the certifiable
    floor; a smaller tol above that floor then finds the separator."""
    import re

    ds = kperc.datasets.planted(200, 3, rho=0.0216, seed=0)
    params = dict(kernel="linear", fit_intercept=False, algorithm="isnkpvn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = SNKPClassifier(tol=1 / np.sqrt(200), **params).fit(ds.X, ds.y)
    assert [w.category for w in caught] == [SmallMarginWarning]
    assert not issubclass(SmallMarginWarning, InseparableDataWarning)
    msg = str(caught[0].message)
    assert clf.outcome_ == "certificate" and 0.0216 <= clf.certificate_norm_ <= clf.tol_
    assert "may be separable with a smaller margin" in msg and "inseparable" not in msg
    floor = float(re.search(r"pass a smaller tol, above ([0-9.e+-]+)", msg).group(1))
    assert 0 < floor < 0.0216
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ok = SNKPClassifier(tol=max(floor, 1e-3), **params).fit(ds.X, ds.y)
    assert ok.converged_ and ok.score(ds.X, ds.y) == 1.0


def test_small_margin_warning_is_public():
    assert kperc.SmallMarginWarning is SmallMarginWarning
    assert issubclass(SmallMarginWarning, ConvergenceWarning)
    assert "SmallMarginWarning" in kperc.__all__


def test_the_grown_rank_verbose_line_is_true(capsys, monkeypatch):
    """Issue 36: above 5000 points (forced here at 400 by lowering the threshold) a rank
    that ends on a certificate holding under the exact kernel says so; no line says
    "certified under the exact kernel: False" beside it."""
    import kperc._gram_form as mod

    monkeypatch.setattr(mod, "AUTO_EXACT_MAX_N", 100)
    monkeypatch.setattr(mod, "AUTO_N_START", 8)
    monkeypatch.setattr(mod, "AUTO_N_MAX", 64)
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((400, 2)), rng.integers(0, 2, 400)
    with pytest.warns(SmallMarginWarning):
        clf = SNKPClassifier(gamma=0.5, random_state=0, verbose=1).fit(X, y)
    ranks = [ln for ln in capsys.readouterr().out.splitlines() if "Nystroem rank" in ln]
    assert clf.gram_form_ == "nystroem" and clf.outcome_ == "certificate"
    assert ranks and not any(": False" in ln or ": True" in ln for ln in ranks)
    assert "its tol-certificate holds under the exact kernel" in ranks[-1]
    assert "100 points" not in ranks[-1]


def test_stage_answers_name_what_each_rank_established():
    from kperc._grown_rank import stage_answer

    base = dict(certified=False, certificate=False, sampled_out=False, screened=False)
    assert "separator is certified" in stage_answer({**base, "certified": True})
    assert "holds under the exact kernel" in stage_answer({**base, "certificate": True})
    assert "not checked" in stage_answer({**base, "screened": True, "sampled_out": True})
    assert "does not hold" in stage_answer({**base, "screened": True})
    assert stage_answer(base) == "no separator certified under the exact kernel"


_POW2 = [2.0**-1000, 2.0**-500, 2.0**-30, 2.0**30, 2.0**500, 2.0**1000]


@pytest.mark.parametrize(
    ("kernel", "scale"),
    [("rbf", s) for s in [1e-300, 1e-150, 1e-10, 1.0, 1e10, 1e150, 1e300, *_POW2]]
    + [("poly", s) for s in _POW2],
)
def test_gamma_scale_fits_at_every_finite_scale(scale, kernel):
    """Issue 36: gamma="scale" divides by X.var(), which overflowed for X * 1e300 (and
    gamma itself is not representable there). With gamma="scale" the kernel is that of
    X / std(X): a model trained on X * s is the model of X at every finite scale s (for
    "poly", whose intercept feature is a power of two, at every power of two; X is
    rescaled by a power of two, exactly, where its scale is extreme)."""
    X, y = kperc.datasets.circles(60, seed=0)
    ref = SNKPClassifier(kernel).fit(X, y)
    clf = SNKPClassifier(kernel).fit(X * scale, y)
    assert 0 < clf._gamma < np.inf and clf.outcome_ == ref.outcome_
    np.testing.assert_array_equal(clf.predict(X * scale), ref.predict(X))
    rtol = 1e-12 if scale in [1.0, *_POW2] else 1e-6  # X * s itself is rounded
    np.testing.assert_allclose(
        clf.decision_function(X * scale), ref.decision_function(X), rtol=rtol, atol=1e-12
    )


def test_one_vs_rest_in_lockstep_fits_as_each_binary_model(monkeypatch):
    """With SNKP's float32 products (forced at n = 90), one-vs-rest runs its classes
    together, sharing each product with K~; each class ends as its binary fit does (the
    same outcome; a separator is certified in float64 against the exact kernel)."""
    import kperc._classifier_fit as mod

    monkeypatch.setattr(mod, "FLOAT32_MIN_N", 50)
    widths = []
    real = mod._shared_product

    def shared_product(M, V):
        widths.append(V.shape[1])
        return real(M, V)

    monkeypatch.setattr(mod, "_shared_product", shared_product)
    rng = np.random.default_rng(1)
    X = rng.standard_normal((90, 2)) * 0.3 + np.repeat(np.eye(3, 2) * 4, 30, axis=0)
    y = np.repeat([0, 1, 2], 30)
    clf = SNKPClassifier(gamma=0.5).fit(X, y)
    assert max(widths) == 3  # one product with K~ served the three classes
    again = SNKPClassifier(gamma=0.5).fit(X, y)  # the rounds do not depend on timing
    for a, b in zip(clf.estimators_, again.estimators_, strict=True):
        np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    for k, est in enumerate(clf.estimators_):
        ref = SNKPClassifier(gamma=0.5).fit(X, (y == k).astype(int))
        assert est.outcome_ == ref.outcome_ == "separator"
        assert est.n_iter_ == ref.n_iter_
        np.testing.assert_allclose(est.dual_coef_, ref.dual_coef_, rtol=1e-5)
    assert clf.score(X, y) == 1.0


def test_lockstep_classes_with_conflicts_train_on_their_own_copy(monkeypatch):
    """A point repeated with labels 0 and 1 leaves those classes a training set without
    it, hence their own signed copy of K~; they leave the shared products at once, and
    classes 2 and 3 still share theirs. Every class ends as its binary fit does."""
    import kperc._classifier_fit as mod

    monkeypatch.setattr(mod, "FLOAT32_MIN_N", 50)
    widths = []
    real = mod._shared_product
    monkeypatch.setattr(
        mod, "_shared_product", lambda M, V: widths.append(V.shape[1]) or real(M, V)
    )
    rng = np.random.default_rng(2)
    centres = np.array([[4.0, 0.0], [0.0, 4.0], [-4.0, 0.0], [0.0, -4.0]])
    X = np.vstack([rng.standard_normal((25, 2)) * 0.3 + c for c in centres])
    y = np.repeat([0, 1, 2, 3], 25)
    X, y = np.vstack([X, X[:1]]), np.append(y, 1)  # x_0 with labels 0 and 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = SNKPClassifier(gamma=0.5).fit(X, y)
        refs = [SNKPClassifier(gamma=0.5).fit(X, (y == k).astype(int)) for k in range(4)]
    assert list(clf.outcome_) == ["conflict", "conflict", "separator", "separator"]
    assert widths and max(widths) == 2
    for est, ref in zip(clf.estimators_, refs, strict=True):
        assert est.outcome_ == ref.outcome_ and est.n_iter_ == ref.n_iter_

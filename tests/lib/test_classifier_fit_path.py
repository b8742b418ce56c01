"""SNKPClassifier's fit path: the overhead removed from it changes no decision.

The certificate test of a run on a dense ``G`` first computes ``p^T G p`` with one BLAS
product and skips the extended-precision quadratic form when the double-precision value
already rules a certificate out (``kperc._classifier_fit._surely_above``); the target type
of ``y`` is computed once; repeated rows (conflicts, and the exact expansion of a Gram
matrix) are looked for with row keys of at most 32 columns, and rows are sorted only when
two keys are equal. These tests check that the screen is sound (it never rules out what
the extended-precision bound would accept), that it changes no fitted model, that a
separable fit no longer pays for the extended-precision form, and that equal rows are
still found and unequal ones told apart.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import infeasible_problem, planted_problem
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

import kperc
from kperc import SNKPClassifier, _classifier_fit, _gram, _gram_matrix, _kernel_values, _separable


def _simplex_point(rng: np.random.Generator, n: int, sparse: bool) -> np.ndarray:
    p = rng.random(n) ** 4
    if sparse:
        p[rng.random(n) < 0.7] = 0.0
        p[rng.integers(n)] = 1.0
    return p / p.sum()


@given(
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["planted", "infeasible"]),
    scale=st.sampled_from([0.5, 0.999, 1.0, 1.001, 2.0]),
    sparse=st.booleans(),
)
def test_the_screen_never_rules_out_an_accepted_certificate(seed, kind, scale, sparse):
    """Whenever the screen says ``||p||_G > tol``, the extended-precision upper bound is
    above ``tol`` too; tol is put right at ``||p||_G`` (scale 1) and around it."""
    prob = (planted_problem if kind == "planted" else infeasible_problem)(seed)
    G = prob.gram()
    rng = np.random.default_rng(seed)
    p = _simplex_point(rng, G.shape[0], sparse)
    value, upper = _gram._DenseGram(G).seminorm_bound(p)
    tol = max(value * scale, 1e-300)
    if _classifier_fit._surely_above(G, p, tol):
        assert upper > tol


def test_the_screen_decides_a_clear_case_and_defers_a_tight_one():
    """Not a screen that never fires: it rules out a p far from a certificate, and leaves
    a p within rounding of ``tol`` to the extended-precision bound."""
    G = infeasible_problem(3).gram()
    p = np.full(G.shape[0], 1.0 / G.shape[0])
    value, _ = _gram._DenseGram(G).seminorm_bound(p)
    assert value > 1e-6
    assert _classifier_fit._surely_above(G, p, value / 2)
    assert not _classifier_fit._surely_above(G, p, value)
    assert not _classifier_fit._surely_above(G, p, 2 * value)


class _CountExtended:
    """Count the extended-precision quadratic forms ``p^T G p`` of dense matrices."""

    def __init__(self, monkeypatch):
        self.calls = 0
        inner = _gram._dense_seminorm_bound

        def counted(G, p, *args, **kw):
            self.calls += 1
            return inner(G, p, *args, **kw)

        monkeypatch.setattr(_gram, "_dense_seminorm_bound", counted)


def _fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return SNKPClassifier(**params).fit(X, y)


def test_a_separable_fit_runs_no_extended_precision_form(monkeypatch):
    X, y = kperc.datasets.moons(200, noise=0.1, seed=0)
    count = _CountExtended(monkeypatch)
    clf = _fit(X, y)
    assert clf.outcome_ == "separator" and clf.halting_index_ >= 16  # tests at 8 and 16
    assert count.calls == 0


def test_an_inseparable_fit_still_certifies_with_the_extended_form(monkeypatch):
    X, y = kperc.datasets.moons(60, noise=0.1, seed=0)
    count = _CountExtended(monkeypatch)
    clf = _fit(X, y, kernel="linear", n_components=None)
    assert clf.gram_form_ == "dense"
    assert clf.outcome_ == "certificate" and clf.certificate_norm_ <= clf.tol_
    assert count.calls >= 1  # the accepted certificate's bound is the extended one


@pytest.mark.parametrize(
    "data, params",
    [
        ("circles", {}),
        ("moons", {}),
        ("moons", {"kernel": "linear", "n_components": None}),
        ("moons", {"kernel": "poly", "degree": 2}),
        ("moons", {"algorithm": "nkp", "kernel": "linear", "n_components": None}),
    ],
)
def test_the_screen_changes_no_fitted_model(monkeypatch, data, params):
    """The same fit with the screen switched off gives the same model, bit for bit."""
    if data == "circles":
        X, y = kperc.datasets.circles(120, seed=1)
    else:
        X, y = kperc.datasets.moons(80, noise=0.15, seed=1)
    screened = _fit(X, y, **params)
    monkeypatch.setattr(_classifier_fit, "_surely_above", lambda G, p, tol: False)
    plain = _fit(X, y, **params)
    assert screened.outcome_ == plain.outcome_
    assert screened.halting_index_ == plain.halting_index_
    assert np.array_equal(screened.dual_coef_, plain.dual_coef_)
    assert screened.certificate_norm_ == plain.certificate_norm_


def test_the_target_type_is_computed_once_and_errors_are_scikit_learns(monkeypatch):
    import sklearn.utils.multiclass as multiclass

    calls = []
    inner = multiclass.type_of_target

    def counted(y, *args, **kw):
        calls.append(1)
        return inner(y, *args, **kw)

    monkeypatch.setattr(multiclass, "type_of_target", counted)
    X, y = kperc.datasets.circles(40, seed=0)
    SNKPClassifier().fit(X, y)
    assert len(calls) == 1
    with pytest.raises(ValueError, match="Unknown label type"):
        SNKPClassifier().fit(X, np.linspace(0.0, 1.0, X.shape[0]))
    with pytest.raises(ValueError, match="at least 2 classes"):
        SNKPClassifier().fit(X, np.zeros(X.shape[0]))


# --- repeated rows: found from row keys, compared exactly ------------------------------


@given(
    seed=st.integers(0, 10_000),
    d=st.sampled_from([1, 3, 32, 33, 200]),
    magnitude=st.sampled_from([1e-310, 1e-200, 1.0, 1e200, 1e307]),
)
def test_equal_rows_get_equal_keys(seed, d, magnitude):
    """Copies of a row (with -0.0 for 0.0) share its key, at any scale and width."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((12, d)) * magnitude
    X[rng.random(X.shape) < 0.2] = 0.0
    copy = np.where(X[3] == 0.0, -0.0, X[3])
    X = np.vstack([X, copy, X[7]])
    keys = _kernel_values.row_keys(X)
    assert np.all(np.isfinite(keys))
    assert keys[12] == keys[3] and keys[13] == keys[7]
    assert _kernel_values._may_repeat_rows(X)
    assert not _kernel_values._may_repeat_rows(X[:12]) or np.unique(X[:12], axis=0).shape[0] < 12


def test_wide_rows_that_differ_outside_the_key_are_told_apart():
    """Rows equal on the key's 32 columns but not elsewhere: not conflicts, not merged."""
    rng = np.random.default_rng(0)
    d = 200
    X = rng.standard_normal((6, d))
    keyed = _kernel_values.row_keys(np.eye(d))  # column j's own key is nonzero iff j is keyed
    free = int(np.flatnonzero(keyed == 0)[0])
    X[1] = X[0]
    X[1, free] += 1.0  # differs from row 0 only outside the key
    X[2] = X[0]  # a true copy
    y = np.array([1.0, -1.0, -1.0, 1.0, -1.0, 1.0])
    assert _kernel_values.row_keys(X)[1] == _kernel_values.row_keys(X)[0]
    pairs = _separable.conflicting_pairs(X, y)
    assert pairs.tolist() == [[0, 2]]
    G = kperc.gram_matrix(X, y, "rbf", gamma=1e-3)
    assert G[0, 2] == -1.0 and G[0, 1] > -1.0  # the copy is exact; the other is not one


def test_distinct_rows_skip_the_row_sort(monkeypatch):
    """Data without repeated rows never reach np.unique(X, axis=0) in gram_matrix."""
    calls = []
    inner = np.unique

    def counted(a, *args, **kw):
        if kw.get("axis") == 0:
            calls.append(a.shape)
        return inner(a, *args, **kw)

    monkeypatch.setattr(_gram_matrix.np, "unique", counted)
    X, y = kperc.datasets.circles(50, seed=0)
    G = kperc.gram_matrix(X, y, "rbf", gamma=2.0)
    assert calls == []
    X2, y2 = np.vstack([X, X[:1]]), np.r_[y, -y[:1]]
    G2 = kperc.gram_matrix(X2, y2, "rbf", gamma=2.0)
    assert calls and G2[0, -1] == -1.0
    assert np.array_equal(G2[:50, :50], G)


# --- float32 products on a large dense G: proposals checked in float64 -----------------


def test_float32_products_propose_and_float64_certifies(monkeypatch):
    """Above FLOAT32_MIN_N rows SNKP multiplies a float32 copy of G; the separator it
    proposes is kept only if G alpha > 0 holds in float64 beyond rounding, and the
    certificate watch reads the float64 G."""
    X, y = kperc.datasets.circles(200, seed=0)
    plain = SNKPClassifier(gamma=2.0).fit(X, y)
    monkeypatch.setattr(_classifier_fit, "FLOAT32_MIN_N", 50)
    seen = []
    inner = _classifier_fit._separates
    monkeypatch.setattr(
        _classifier_fit, "_separates", lambda G, a: seen.append(G.dtype) or inner(G, a)
    )
    fast = SNKPClassifier(gamma=2.0).fit(X, y)
    assert seen == [np.float64] and fast.converged_ and plain.converged_
    Xa = X  # the RBF kernel takes no intercept feature
    G = kperc.gram_matrix(Xa, np.where(y == fast.classes_[1], 1.0, -1.0), "rbf", gamma=2.0)
    alpha = np.zeros(len(y))
    alpha[fast.support_] = np.abs(fast.dual_coef_)  # K(x, x) = 1: |dual_coef_| = alpha
    Ga = (G.astype(np.longdouble) @ alpha.astype(np.longdouble)).min()
    assert Ga > 0
    rng = np.random.default_rng(0)  # noisy data: the certificate, from the float64 G
    Xn, yn = rng.standard_normal((200, 3)), rng.integers(0, 2, 200)
    with pytest.warns(kperc.SmallMarginWarning):
        noisy = SNKPClassifier().fit(Xn, yn)
    assert noisy.outcome_ == "certificate" and noisy.certificate_norm_ <= noisy.tol_


def test_a_refused_float32_proposal_runs_again_in_float64(monkeypatch):
    X, y = kperc.datasets.circles(200, seed=0)
    plain = SNKPClassifier(gamma=2.0).fit(X, y)
    monkeypatch.setattr(_classifier_fit, "FLOAT32_MIN_N", 50)
    monkeypatch.setattr(_classifier_fit, "_separates", lambda G, a: False)
    again = SNKPClassifier(gamma=2.0).fit(X, y)
    assert again.converged_ and again.halting_index_ == plain.halting_index_
    assert np.array_equal(again.dual_coef_, plain.dual_coef_)


def test_nkp_keeps_the_float64_matrix(monkeypatch):
    """NKP reads one column of G per iteration: it never gets the float32 operator, whose
    columns would each cost a whole product (SNKP gets the float32 products of the
    signed shared kernel)."""
    monkeypatch.setattr(_classifier_fit, "FLOAT32_MIN_N", 10)
    seen = []
    inner = _classifier_fit._run
    monkeypatch.setattr(
        _classifier_fit, "_run", lambda prod, G, *a: seen.append(type(prod)) or inner(prod, G, *a)
    )
    X, y = kperc.datasets.circles(60, seed=0)
    SNKPClassifier(gamma=2.0, algorithm="nkp").fit(X, y)
    SNKPClassifier(gamma=2.0).fit(X, y)
    assert seen == [np.ndarray, _classifier_fit._Float32Signed]


# --- the float32 proposal is kept only if it separates the data's exact kernel matrix ---


def _antipodal_poly_gram():
    """``x`` and ``-c x`` under opposite labels: their images under the homogeneous
    degree-10 polynomial kernel cancel exactly (``G*_01 = -1``), yet the rounded
    ``G_01 = -1 + 5u`` makes ``G alpha = 2.5 u > 0`` at ``alpha = (1/2, 1/2)``."""
    x = np.array([0.68, 0.02, 0.02])
    X, y = np.vstack([x, -1.63 * x]), np.array([1.0, -1.0])
    return kperc.gram_matrix(X, y, "poly", degree=10, coef0=0.0, gamma=1.0)


def test_separates_counts_the_rounding_of_gs_construction():
    """The bound of ``_separates`` is ``(gamma_n (1 + delta) + delta) ||alpha||_1``:
    a value above float64's product rounding (``n u ||alpha||_1``) but within the
    construction error ``delta`` of ``G`` is refused, because the exact matrix of the
    data gives 0 there; the same matrix taken as given (a copy) is accepted, and a
    clear separator is accepted either way."""
    G = _antipodal_poly_gram()
    alpha = np.array([0.5, 0.5])
    u = np.finfo(np.float64).eps / 2
    assert float((G @ alpha).min()) > G.shape[0] * u  # the old test said "separates"
    assert not _classifier_fit._separates(G, alpha)
    assert _classifier_fit._separates(np.array(G), alpha)  # as given: rounding only
    # a clear separator: two points at 60 degrees
    G2 = kperc.gram_matrix(np.array([[1.0, 0.0], [0.5, 0.75**0.5]]), [1, 1])
    assert _classifier_fit._separates(G2, alpha)
    # the bound scales with ||alpha||_1 and n: exactly at the bound is refused
    delta = 0.1
    bound = _separable.data_product_error(2, 1.0, delta)
    assert 2 * u + delta < bound < 2.1 * u + delta * (1 + 1e-12)


def test_the_classifier_never_keeps_a_separator_of_the_rounding(monkeypatch):
    """On data whose images cancel exactly (no conflict: the rows differ), the float32
    path and the float64 path end without a separator: the dense G the classifier
    builds carries its construction error, as gram_matrix's does."""
    x = np.array([0.68, 0.02, 0.02])
    X = np.vstack([x, -1.63 * x])
    y = np.array([1, 0])
    params = dict(kernel="poly", degree=10, coef0=0.0, gamma=1.0, fit_intercept=False)
    for min_n in (10**9, 1):
        monkeypatch.setattr(_classifier_fit, "FLOAT32_MIN_N", min_n)
        with pytest.warns(ConvergenceWarning):
            clf = SNKPClassifier(max_iter=200, **params).fit(X, y)
        assert clf.outcome_ != "separator" and not clf.converged_


@pytest.mark.parametrize("n_components", [None, "auto"])
def test_an_undecided_fit_warns_once_with_its_reason(n_components):
    """ISNKPVN at a tol below what can be certified for the data's exact kernel matrix
    (the dense G's floor is about twice the square root of its entry error, 8.5e-8
    here) ends with outcome_ "undecided": the fit warns once, a ConvergenceWarning (nothing
    was proved) naming tol_, the floor and the way out; ISNKPVN's own RuntimeWarning is not
    repeated. The factored linear operator has a floor of rounding size, so there the
    same tol gives a certificate."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(3)
    X = np.vstack([x, -1.7 * x, rng.standard_normal((4, 3))])
    y = np.array([1, 1, 1, 0, 1, 0])
    clf = SNKPClassifier(
        kernel="linear",
        algorithm="isnkpvn",
        tol=1e-8,
        n_components=n_components,
        fit_intercept=False,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(X, y)
    kind = ConvergenceWarning if n_components is None else kperc.SmallMarginWarning
    assert len(caught) == 1 and caught[0].category is kind
    msg = str(caught[0].message)
    if n_components is None:  # dense
        assert clf.outcome_ == "undecided" and not clf.converged_
        assert "undecided" in msg and "tol_ = 1e-08" in msg and "Use tol > 8.5e-08" in msg
        assert clf.witnesses_ is None and clf.certificate_norm_ is None
        # above the floor, the same fit ends with a certificate of the data
        with pytest.warns(kperc.SmallMarginWarning):
            above = clf.set_params(tol=1e-6).fit(X, y)
        assert above.outcome_ == "certificate"
    else:
        assert clf.gram_form_ == "factored" and clf.outcome_ == "certificate"


# --- one-vs-rest certifies each class against the exact kernel matrix, as a binary fit ---


def _runs_seen(fit):
    """``fit()`` with ``run_algorithm`` watched: the (entry error, psd_exact) of the
    provenance of each ``G`` it was given (None for a ``G`` taken as given)."""
    seen = []
    real = _classifier_fit.run_algorithm

    def spy(G, *a, **kw):
        info = kperc._validation.gram_provenance(G)
        seen.append(None if info is None else (info.entry_error, info.psd_exact))
        return real(G, *a, **kw)

    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
        mp.setattr(_classifier_fit, "run_algorithm", spy)
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = fit()
    return model, seen


@given(
    seed=st.integers(0, 10_000),
    kernel=st.sampled_from(["linear", "rbf", "poly"]),
    algorithm=st.sampled_from(["snkp", "nkp", "isnkpvn"]),
    n_classes=st.integers(3, 4),
)
def test_one_vs_rest_certifies_each_class_as_its_binary_fit(seed, kernel, algorithm, n_classes):
    """Each class's G in one-vs-rest (the shared kernel, signed per class) carries the
    bound on its construction's rounding, the same as the binary fit of that class
    against the rest, and ends with the same outcome and certificate bound."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(24, 3)) * rng.choice([1e-3, 1.0, 1e3])
    y = rng.integers(0, n_classes, 24)
    y[:n_classes] = np.arange(n_classes)
    params = dict(kernel=kernel, algorithm=algorithm, n_components=None, max_iter=400)
    clf, seen = _runs_seen(lambda: SNKPClassifier(**params).fit(X, y))
    assert len(seen) == n_classes and all(s is not None and s[0] > 0 for s in seen)
    for c, est, got in zip(clf.classes_, clf.estimators_, seen, strict=True):
        ref, ref_seen = _runs_seen(lambda c=c: SNKPClassifier(**params).fit(X, y == c))
        assert ref_seen == [got]
        assert est.outcome_ == ref.outcome_
        assert est.certificate_norm_ == ref.certificate_norm_


@pytest.mark.parametrize("algorithm", ["snkp", "nkp"])
def test_one_vs_rest_never_keeps_a_separator_of_the_rounding(algorithm):
    """``x`` and ``-1.63 x`` in two classes under the homogeneous degree-10 polynomial
    kernel: each of those classes against the rest is exactly inseparable (the two
    images cancel), though the rounded G has a separator (the binary case above);
    one-vs-rest must claim none for either. The third class is clearly separable."""
    x = np.array([0.68, 0.02, 0.02])
    X = np.vstack([x, -1.63 * x, [0.0, 1.0, -1.0]])  # the third orthogonal to x
    y = np.array([0, 1, 2])
    params = dict(kernel="poly", degree=10, coef0=0.0, gamma=1.0, fit_intercept=False)
    with pytest.warns(ConvergenceWarning, match="class 0 against the rest"):
        clf = SNKPClassifier(algorithm=algorithm, max_iter=200, **params).fit(X, y)
    assert list(clf.outcome_[:2] != "separator") == [True, True]
    assert clf.outcome_[2] == "separator" and not clf.converged_


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("n_components", [None, "auto", 10])
def test_a_tol_isnkpvn_cannot_certify_is_refused_by_its_name(kernel, n_components):
    """A ``tol`` at or below twice the accuracy of ``||p||_G`` for the training kernel is
    refused with an error that names the classifier's ``tol`` (not ISNKPVN's ``eps``)
    and the floor; ``tol`` just above the floor it states is accepted."""
    import re

    X, y = kperc.datasets.circles(30, seed=0)
    params = dict(kernel=kernel, algorithm="isnkpvn", n_components=n_components)
    with pytest.raises(ValueError, match=r"^tol=1e-17 is below .* use tol > ") as err:
        SNKPClassifier(tol=1e-17, **params).fit(X, y)
    msg = str(err.value)
    assert "eps" not in msg and "GramOperator" not in msg
    dense_linear = kernel == "linear" and n_components is None
    assert ("n_components='auto'" in msg) == dense_linear
    floor = float(re.search(r"use tol > ([0-9.e+-]+?)[,.]?(?: |$)", msg).group(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        SNKPClassifier(tol=1.1 * floor, **params).fit(X, y)  # no error

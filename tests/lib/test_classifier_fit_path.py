"""SNKPClassifier's fit path: the overhead removed from it changes no decision.

The certificate test of a run on a dense ``G`` first computes ``p^T G p`` with one BLAS
product and skips the extended-precision quadratic form when the double-precision value
already rules a certificate out (``kperc._classifier._surely_above``); the target type
of ``y`` is computed once. These tests check that the screen is sound (it never rules out
what the extended-precision bound would accept), that it changes no fitted model, and
that a separable fit no longer pays for the extended-precision form.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import infeasible_problem, planted_problem
from hypothesis import given
from hypothesis import strategies as st

import kperc
from kperc import SNKPClassifier, _classifier, _kernels


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
    G = prob.G
    rng = np.random.default_rng(seed)
    p = _simplex_point(rng, G.shape[0], sparse)
    value, upper = _kernels._DenseGram(G).seminorm_bound(p)
    tol = max(value * scale, 1e-300)
    if _classifier._surely_above(G, p, tol):
        assert upper > tol


def test_the_screen_decides_a_clear_case_and_defers_a_tight_one():
    """Not a screen that never fires: it rules out a p far from a certificate, and leaves
    a p within rounding of ``tol`` to the extended-precision bound."""
    G = infeasible_problem(3).G
    p = np.full(G.shape[0], 1.0 / G.shape[0])
    value, _ = _kernels._DenseGram(G).seminorm_bound(p)
    assert value > 1e-6
    assert _classifier._surely_above(G, p, value / 2)
    assert not _classifier._surely_above(G, p, value)
    assert not _classifier._surely_above(G, p, 2 * value)


class _CountExtended:
    """Count the extended-precision quadratic forms ``p^T G p`` of dense matrices."""

    def __init__(self, monkeypatch):
        self.calls = 0
        inner = _kernels._dense_seminorm_bound

        def counted(G, p, *args, **kw):
            self.calls += 1
            return inner(G, p, *args, **kw)

        monkeypatch.setattr(_kernels, "_dense_seminorm_bound", counted)


def _fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kperc.InseparableDataWarning)
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
    monkeypatch.setattr(_classifier, "_surely_above", lambda G, p, tol: False)
    plain = _fit(X, y, **params)
    assert screened.outcome_ == plain.outcome_
    assert screened.halting_index_ == plain.halting_index_
    assert np.array_equal(screened.dual_coef_, plain.dual_coef_)
    assert screened.certificate_norm_ == plain.certificate_norm_


def test_the_target_type_is_computed_once_and_errors_are_scikit_learns(monkeypatch):
    calls = []
    inner = _classifier.type_of_target

    def counted(y, *args, **kw):
        calls.append(1)
        return inner(y, *args, **kw)

    monkeypatch.setattr(_classifier, "type_of_target", counted)
    X, y = kperc.datasets.circles(40, seed=0)
    SNKPClassifier().fit(X, y)
    assert len(calls) == 1
    with pytest.raises(ValueError, match="Unknown label type"):
        SNKPClassifier().fit(X, np.linspace(0.0, 1.0, X.shape[0]))
    with pytest.raises(ValueError, match="Only binary classification"):
        SNKPClassifier().fit(X, np.arange(X.shape[0]) % 3)

"""``kperc.snkp_nystroem``: the Nystroem rank grows until the exact kernel certifies."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import seeds
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.kernel_approximation import Nystroem
from sklearn.metrics.pairwise import rbf_kernel

import kperc
from kperc import _approx
from kperc._approx import _landmark_check
from kperc.datasets import planted_rbf

GAMMA = 2.0


def _independent_yf(X, y, res):
    """``y_i f(x_i)`` of the returned model, recomputed with scikit-learn's kernel."""
    return y * (rbf_kernel(X, res.landmarks, gamma=GAMMA) @ res.landmark_coef)


@pytest.mark.parametrize("products", ["float32", "float64"])
def test_rank_grows_until_the_exact_kernel_certifies_at_a_small_margin(products):
    ds = planted_rbf(1500, 3, rho=1e-3, gamma=GAMMA, seed=0)
    res = kperc.snkp_nystroem(
        ds.X, ds.y, gamma=GAMMA, n_components=16, products=products, random_state=0
    )
    assert res.certified and res.stop == "certified" and res.outcome == "separator"
    ranks = [s["n_components"] for s in res.stages]
    assert len(ranks) >= 2, "at rho = 1e-3, 16 landmarks should not be enough"
    assert ranks == [16 * 2**k for k in range(len(ranks))]
    assert [s["certified"] for s in res.stages] == [False] * (len(ranks) - 1) + [True]
    assert res.n_components == ranks[-1] == res.landmarks.shape[0]
    # the certificate holds for an independent evaluation of the same function, and for
    # the model as the feature map evaluates it
    yf = _independent_yf(ds.X, ds.y, res)
    assert np.all(yf > 0)
    np.testing.assert_allclose(res.yf, yf, rtol=1e-9, atol=1e-15)
    assert np.all(ds.y * (res.transformer.transform(ds.X) @ res.coef) > 0)
    assert 0 < res.margin <= 1
    assert res.nit == sum(s["nit"] for s in res.stages)


def test_landmarks_of_a_rank_extend_those_of_the_previous_one():
    # the growth relies on scikit-learn's Nystroem taking the first m indices of one
    # seeded permutation: the landmarks of rank m are the first m of rank 2m
    X = planted_rbf(300, 3, rho=0.01, gamma=GAMMA, seed=1).X
    small = Nystroem(gamma=GAMMA, n_components=32, random_state=7).fit(X).components_
    large = Nystroem(gamma=GAMMA, n_components=64, random_state=7).fit(X).components_
    np.testing.assert_array_equal(large[:32], small)


def test_easy_problem_stops_at_the_first_rank():
    ds = planted_rbf(1000, 3, rho=0.05, gamma=GAMMA, seed=0)
    res = kperc.snkp_nystroem(ds.X, ds.y, gamma=GAMMA, random_state=0)
    assert res.certified and len(res.stages) == 1 and res.n_components == 64


def test_cap_reached_is_reported_as_not_certified():
    ds = planted_rbf(1500, 3, rho=1e-3, gamma=GAMMA, seed=0)
    res = kperc.snkp_nystroem(
        ds.X,
        ds.y,
        gamma=GAMMA,
        n_components=4,
        max_components=8,
        max_iter=3000,
        random_state=0,
    )
    assert not res.certified
    assert res.outcome == "not certified" and res.stop == "max_components"
    assert [s["n_components"] for s in res.stages] == [4, 8]
    assert "no separator could be certified up to rank 8" in res.message.lower()
    assert res.stages[-1]["max_iter"] == 3000 - res.stages[0]["nit"]  # the cap gets the rest
    assert res.margin is None


def test_iteration_budget_reported_as_not_certified():
    ds = planted_rbf(1500, 3, rho=1e-3, gamma=GAMMA, seed=0)
    res = kperc.snkp_nystroem(
        ds.X, ds.y, gamma=GAMMA, n_components=16, stage_iter=4, max_iter=30, random_state=0
    )
    assert not res.certified and res.stop == "max_iter" and res.nit == 30
    assert "max_iter=30" in res.message


def test_inseparable_data_are_never_certified():
    # a point repeated with the other label: no function separates both copies
    ds = planted_rbf(400, 3, rho=0.05, gamma=GAMMA, seed=2)
    X = np.vstack([ds.X, ds.X[:1]])
    y = np.append(ds.y, -ds.y[0])
    res = kperc.snkp_nystroem(X, y, gamma=GAMMA, max_components=64, max_iter=3000, random_state=0)
    assert not res.certified and res.stop in ("max_components", "max_iter")


def _independent_norm(X, y, p):
    """``||p||_G`` from scikit-learn's kernel, independently of kperc."""
    Y = np.asarray(y, dtype=float)
    K = rbf_kernel(X, gamma=GAMMA) * np.outer(Y, Y)
    return float(np.sqrt(max(p @ K @ p, 0.0)))


def test_near_duplicates_with_both_labels_end_in_an_exact_kernel_certificate():
    """Points repeated, 1e-7 apart, under the other label: the margin is far below tol,
    and the screen on the features leads to a certificate checked under the exact kernel."""
    ds = planted_rbf(300, 3, rho=0.05, gamma=GAMMA, seed=2)
    rng = np.random.default_rng(0)
    X = np.vstack([ds.X, ds.X + 1e-7 * rng.standard_normal(ds.X.shape)])
    y = np.concatenate([ds.y, -ds.y])
    res = kperc.snkp_nystroem(X, y, gamma=GAMMA, tol=1e-3, random_state=0)
    assert res.outcome == "certificate" and res.stop == "certificate" and not res.certified
    assert res.norm_p_G <= 1e-3 and "tol=0.001" in res.message
    assert res.p.min() >= 0 and res.p.sum() == pytest.approx(1.0)
    assert _independent_norm(X, y, res.p) <= res.norm_p_G


@settings(max_examples=10, deadline=None)
@given(seed=seeds, rho=st.sampled_from([0.02, 0.05]))
def test_tol_never_certifies_data_with_a_larger_margin(seed, rho):
    """With the margin planted above tol, no certificate can exist (a certificate bounds
    every separator's margin by tol): the run ends with a separator."""
    try:
        ds = planted_rbf(300, 3, rho=rho, gamma=GAMMA, seed=seed % 1000)
    except ValueError:  # a planted function of one sign on the cube: no problem to solve
        assume(False)
    res = kperc.snkp_nystroem(ds.X, ds.y, gamma=GAMMA, tol=rho / 4, random_state=0)
    assert res.p is None and res.outcome == "separator" and res.certified


def test_a_screen_the_exact_kernel_refuses_grows_the_rank(monkeypatch):
    """A screen that fires on every test (as if the features had no margin) is refused by
    the exact check on separable data: the rank doubles, and the separator still comes."""
    ds = planted_rbf(300, 3, rho=0.05, gamma=GAMMA, seed=3)

    def always(op, tol, n):
        found: dict = {}

        def watch(r):
            if r.nit >= 8:
                found["p"] = r.p / r.p.sum()
                raise StopIteration

        return watch, found

    monkeypatch.setattr(_approx, "_certificate_screen", always)
    res = kperc.snkp_nystroem(
        ds.X, ds.y, gamma=GAMMA, n_components=8, max_components=16, tol=1e-3, random_state=0
    )
    # the first rank: screened, refused, the rank doubles; at the cap the stage starts
    # again without the screen and finds the certified separator
    assert [s["snkp"] for s in res.stages] == ["certificate screen", "separator"]
    assert all(s["screened"] for s in res.stages)
    assert not any(s["certificate"] for s in res.stages)
    assert res.certified and res.outcome == "separator"


def test_a_false_float32_proposal_is_refused(monkeypatch):
    # Float32 products whose rounding makes every (G alpha)_i look positive: SNKP proposes
    # a separator at once, and only the float64 check under the exact kernel stands
    # between it and a false certificate.
    ds = planted_rbf(600, 3, rho=1e-3, gamma=GAMMA, seed=0)
    honest = _approx._Float32Products._matvec

    def lying(self, v):
        return np.abs(honest(self, v)) + 1e-3

    monkeypatch.setattr(_approx._Float32Products, "_matvec", lying)
    res = kperc.snkp_nystroem(
        ds.X, ds.y, gamma=GAMMA, n_components=2, max_components=4, random_state=0
    )
    assert [s["snkp"] for s in res.stages] == ["separator", "separator"]
    assert not any(s["certified"] for s in res.stages) and not res.certified
    assert np.any(_independent_yf(ds.X, ds.y, res) <= 0)


def _two_landmarks(t):
    """``g(x) = K(x, -e) - K(x, e)`` at ``x = t e``: about ``-4 gamma t exp(-gamma)``."""
    e = np.array([1.0, 0.0, 0.0])
    return np.array([t * e]), np.vstack([-e, e]), np.array([1.0, -1.0])


@pytest.mark.parametrize("t", [1e-9, 1e-11])
def test_landmark_check_decides_a_sign_that_float32_cannot(t):
    X, L, beta = _two_landmarks(t)
    # in float32 the two kernel values round to the same number: the sign is lost
    K32 = rbf_kernel(X.astype(np.float32), L.astype(np.float32), gamma=GAMMA)
    assert K32[0, 0] == K32[0, 1]
    exact = -4 * GAMMA * t * np.exp(-GAMMA)  # first order in t, relative error t
    assert _landmark_check(X, np.array([-1.0]), L, beta, GAMMA).certified  # -g > 0
    assert not _landmark_check(X, np.array([1.0]), L, beta, GAMMA).certified
    chk = _landmark_check(X, np.array([-1.0]), L, beta, GAMMA)
    assert abs(chk.yf[0] - (-exact)) <= chk.bound[0] + 1e-6 * abs(exact)


def test_landmark_check_refuses_an_exact_zero():
    X, L, beta = _two_landmarks(0.0)  # g(0) = 0 exactly
    for label in (1.0, -1.0):
        assert not _landmark_check(X, np.array([label]), L, beta, GAMMA).certified


@settings(max_examples=10, deadline=None)
@given(
    seed=seeds,
    rho=st.sampled_from([0.05, 0.01, 3e-3]),
    products=st.sampled_from(["float32", "float64"]),
)
def test_a_certificate_is_a_separator_under_the_exact_kernel(seed, rho, products):
    ds = planted_rbf(300, 2, rho=rho, gamma=GAMMA, seed=seed % 50)
    res = kperc.snkp_nystroem(
        ds.X, ds.y, gamma=GAMMA, n_components=8, products=products, random_state=seed
    )
    if res.certified:
        assert np.all(_independent_yf(ds.X, ds.y, res) > 0)
    else:
        assert res.stop in ("max_components", "max_iter")


def test_dual_certificate_is_the_exact_margin_check_of_alpha():
    ds = planted_rbf(800, 3, rho=0.01, gamma=GAMMA, seed=0)
    res = kperc.snkp_nystroem(ds.X, ds.y, gamma=GAMMA, certify="dual", random_state=0)
    assert res.certified
    chk = kperc.exact_margin_check(ds.X, ds.y, res.alpha, gamma=GAMMA)
    assert chk.certified
    np.testing.assert_array_equal(chk.Galpha, res.yf)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"products": "float16"}, "products"),
        ({"certify": "exact"}, "certify"),
        ({"n_components": 128, "max_components": 64}, "max_components"),
        ({"n_components": 0}, "n_components"),
        ({"stage_iter": 1.5}, "stage_iter"),
        ({"random_state": "x"}, "random_state"),
        ({"random_state": -1}, "random_state"),
        ({"gamma": -1.0}, "gamma"),
        ({"tol": 0.0}, "tol"),
        ({"tol": float("nan")}, "tol"),
    ],
)
def test_bad_parameters_are_named(kw, match):
    ds = planted_rbf(50, 2, rho=0.05, gamma=GAMMA, seed=0)
    with pytest.raises(ValueError, match=match):
        kperc.snkp_nystroem(ds.X, ds.y, **kw)


def test_one_label_is_refused():
    X = np.random.default_rng(0).standard_normal((10, 2))
    with pytest.raises(ValueError, match="both labels"):
        kperc.snkp_nystroem(X, np.ones(10))


def test_random_state_objects_give_nested_reproducible_runs():
    ds = planted_rbf(500, 3, rho=0.01, gamma=GAMMA, seed=0)
    a = kperc.snkp_nystroem(ds.X, ds.y, gamma=GAMMA, random_state=np.random.RandomState(3))
    b = kperc.snkp_nystroem(ds.X, ds.y, gamma=GAMMA, random_state=np.random.RandomState(3))
    np.testing.assert_array_equal(a.landmarks, b.landmarks)
    c = kperc.snkp_nystroem(ds.X, ds.y, gamma=GAMMA, random_state=np.random.default_rng(3))
    assert c.certified


def test_float32_features_are_built_in_half_the_memory(monkeypatch):
    # one n x m float32 array plus a row block: never the float64 n x m features
    import tracemalloc

    monkeypatch.setattr(_approx, "TRANSFORM_BLOCK_BYTES", 1 << 20)
    n, m = 20000, 100
    ds = planted_rbf(n, 3, rho=0.05, gamma=GAMMA, seed=0)
    tracemalloc.start()
    try:
        op = _approx._approx_gram_operator(
            ds.X, ds.y, "rbf", m, "nystroem", 0, {"gamma": GAMMA}, np.float32
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert op.Z32.dtype == np.float32 and op.Z32.shape == (n, m)
    # the float32 array, the row blocks' float64 temporaries (kernel values, features,
    # their scaled copy), the norms: below the float64 features alone
    assert peak < n * m * 4 + 5 * (1 << 20) + 2 * 8 * n < n * m * 8, peak
    # the rows are those of the float64 operator, rounded once
    ref = _approx._approx_gram_operator(ds.X, ds.y, "rbf", m, "nystroem", 0, {"gamma": GAMMA})
    np.testing.assert_array_equal(op.Z32, ref.Z.astype(np.float32))


def test_sampled_estimate_skips_hopeless_exact_checks_only(monkeypatch):
    """From SAMPLED_SCREEN_MIN_N points a sampled estimate of p^T G p comes before the
    O(n^2) certificate check: a screen fired on separable data (p^T G p far above tol^2)
    skips the check, and the separator still comes; a true certificate is never skipped."""
    monkeypatch.setattr(_approx, "SAMPLED_SCREEN_MIN_N", 0)
    ds = planted_rbf(300, 3, rho=0.05, gamma=GAMMA, seed=3)
    p = np.full(300, 1 / 300)
    assert _independent_norm(ds.X, ds.y, p) ** 2 > 100 * 1e-3**2
    assert _approx._certificate_hopeless(ds.X, ds.y, p, GAMMA, 1e-3, 0)
    checked = []
    real = _approx._exact_certificate
    monkeypatch.setattr(_approx, "_exact_certificate", lambda *a: checked.append(1) or real(*a))

    def always(op, tol, n):
        found: dict = {}

        def watch(r):
            if r.nit >= 8:
                found["p"] = r.p / r.p.sum()
                raise StopIteration

        return watch, found

    with monkeypatch.context() as mp:
        mp.setattr(_approx, "_certificate_screen", always)
        res = kperc.snkp_nystroem(
            ds.X,
            ds.y,
            gamma=GAMMA,
            n_components=8,
            max_components=16,
            tol=1e-3,
            random_state=0,
        )
    assert [s["sampled_out"] for s in res.stages] == [True, True] and not checked
    assert res.certified and res.outcome == "separator"
    # near duplicates under the other label: a certificate far below tol is kept
    rng = np.random.default_rng(0)
    X = np.vstack([ds.X, ds.X + 1e-7 * rng.standard_normal(ds.X.shape)])
    y = np.concatenate([ds.y, -ds.y])
    res = kperc.snkp_nystroem(X, y, gamma=GAMMA, tol=1e-3, random_state=0)
    assert res.outcome == "certificate" and checked
    assert not any(s["sampled_out"] for s in res.stages)
    assert _independent_norm(X, y, res.p) <= res.norm_p_G


#: tol="auto" of the classifier for 3000 points (1/sqrt(n)): the screen of a certificate
#: ends each stage early, as in a fit
TOL = 1 / np.sqrt(3000)


def _missed_fraction(X, m):
    """Mean of ``1 - ||z(x)||^2`` over the points that are not landmarks, for
    scikit-learn's own Nystroem features of rank ``m`` (seed 0), independently of kperc."""
    tr = Nystroem(gamma=GAMMA, n_components=m, random_state=0).fit(X)
    F = tr.transform(X)
    out = np.ones(X.shape[0], dtype=bool)
    out[tr.component_indices_] = False
    return float(np.mean(1.0 - np.einsum("ij,ij->i", F[out], F[out])))


def test_features_far_from_the_kernel_stop_the_rank_early():
    """In 8 dimensions a narrow RBF kernel needs thousands of features: the fraction of
    the kernel they miss falls slowly, and its prediction at the cap stops the growth
    after the third rank or soon after, with a message naming the other paths."""
    ds = planted_rbf(3000, 8, rho=1e-3, gamma=GAMMA, seed=0)
    res = kperc.snkp_nystroem(
        ds.X, ds.y, gamma=GAMMA, n_components=8, max_components=1024, tol=TOL, random_state=0
    )
    assert res.stop == "residual" and res.outcome == "not certified"
    assert not res.certified and res.p is None and res.margin is None
    ranks = [s["n_components"] for s in res.stages]
    assert 3 <= len(ranks) and ranks[-1] < 1024
    missed = [s["residual"] for s in res.stages]
    for m, r in zip(ranks, missed, strict=True):
        assert r == pytest.approx(_missed_fraction(ds.X, m), abs=1e-9)
    assert missed == sorted(missed, reverse=True)  # nested landmarks: never rises
    assert missed[-1] > _approx.MAX_RESIDUAL
    for name in ("kperc.gram_matrix", "kperc.snkp", "sklearn.svm.SVC", "max_residual=None"):
        assert name in res.message
    assert f"rank stopped growing at {ranks[-1]}" in res.message


def test_max_residual_none_grows_the_rank_to_the_cap():
    ds = planted_rbf(3000, 8, rho=1e-3, gamma=GAMMA, seed=0)
    kw = dict(gamma=GAMMA, n_components=8, max_components=64, tol=TOL, random_state=0)
    stopped = kperc.snkp_nystroem(ds.X, ds.y, max_iter=3000, **kw)
    grown = kperc.snkp_nystroem(ds.X, ds.y, max_iter=3000, max_residual=None, **kw)
    assert stopped.stop == "residual" and stopped.n_components == 32
    assert grown.stop != "residual" and grown.stages[-1]["n_components"] == 64
    # the stages they share are the same run
    for a, b in zip(stopped.stages, grown.stages, strict=False):
        assert (a["n_components"], a["nit"], a["residual"]) == (
            b["n_components"],
            b["nit"],
            b["residual"],
        )


def test_an_easy_labelling_is_answered_whatever_the_features_miss():
    """The missed fraction depends on X only; the rank stops early only after stages
    that gave no answer, so well-separated classes in 8 dimensions still end with a
    separator at the first rank, though its features miss most of the kernel."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-1.5, 0.4, (1500, 8)), rng.normal(1.5, 0.4, (1500, 8))])
    y = np.repeat([-1.0, 1.0], 1500)
    res = kperc.snkp_nystroem(X, y, gamma=GAMMA, n_components=8, random_state=0)
    assert res.certified and res.stop == "certified" and len(res.stages) == 1
    assert res.stages[0]["residual"] > _approx.MAX_RESIDUAL


def test_predicted_residual_continues_geometric_drops():
    # log drops of 1 then 2 (ratio 2): the next two doublings drop 4 and 8
    r = [1.0, np.exp(-1.0), np.exp(-3.0)]
    assert _approx._predicted_residual(r, 2) == pytest.approx(np.exp(-15.0), rel=1e-12)
    # a slowing drop is not extrapolated as slowing (the ratio is at least 1)
    r = [1.0, np.exp(-2.0), np.exp(-3.0)]
    assert _approx._predicted_residual(r, 3) == pytest.approx(np.exp(-6.0), rel=1e-12)
    # a residual that starts to fall only now has no trend: nothing is predicted
    assert _approx._predicted_residual([0.5, 0.5, 0.25], 4) == 0.0


@pytest.mark.parametrize("bad", [0.0, -0.1, float("nan"), float("inf"), "0.1"])
def test_bad_max_residual_is_named(bad):
    ds = planted_rbf(100, 2, rho=0.05, gamma=GAMMA, seed=0)
    with pytest.raises((ValueError, TypeError), match="max_residual"):
        kperc.snkp_nystroem(ds.X, ds.y, gamma=GAMMA, max_residual=bad)


def test_data_is_validated_once_and_snkp_trusts_the_features(monkeypatch):
    """snkp_nystroem checks X and y once, at its boundary: the dual check of every stage
    and the SNKP runs take what it checked (no check_Xy, no probe of the features)."""
    from kperc import _validation

    calls = {"check_Xy": 0, "probe": 0}
    real_check, real_probe = _approx.check_Xy, _validation._probe_operator

    def counting_check(*args, **kwargs):
        calls["check_Xy"] += 1
        return real_check(*args, **kwargs)

    def counting_probe(*args, **kwargs):
        calls["probe"] += 1
        return real_probe(*args, **kwargs)

    monkeypatch.setattr(_approx, "check_Xy", counting_check)
    monkeypatch.setattr(_validation, "_probe_operator", counting_probe)
    ds = planted_rbf(300, 3, rho=0.01, gamma=GAMMA, seed=1)
    for products in ("float32", "float64"):
        res = kperc.snkp_nystroem(
            ds.X, ds.y, gamma=GAMMA, n_components=32, certify="dual", products=products
        )
        # several stages, each with its SNKP run and its exact check of a separator
        assert res.certified and sum(s["snkp"] == "separator" for s in res.stages) >= 2
    assert calls == {"check_Xy": 2, "probe": 0}

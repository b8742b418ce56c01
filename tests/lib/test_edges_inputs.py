"""Hostile inputs at the library's edges: user operators, extreme scales, parameters.

Each test covers a class of inputs (not only the reported example): an operator that is
not a normalised Gram matrix in any of the ways that can be probed, data at any scale
from subnormal to near overflow, and every flag or count given the wrong type.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.linalg import LinearOperator, aslinearoperator

import kperc

X4 = np.array([[1.0, 0.2], [0.3, 1.0], [-1.0, 0.1], [0.2, -1.0]])
Y4 = np.array([1.0, 1.0, -1.0, -1.0])


class Plain(LinearOperator):
    """A user operator with products only (no diagonal, no column)."""

    def __init__(self, M):
        self.M = M
        super().__init__(np.float64, M.shape)

    def _matvec(self, v):
        return self.M @ v


def _bad_matrices():
    G = kperc.gram_matrix(X4, Y4)
    nonpsd = np.eye(4)
    for i, j, v in [(0, 1, 0.99), (2, 3, 0.99), (0, 2, 0.99), (1, 2, -0.99)]:
        nonpsd[i, j] = nonpsd[j, i] = v
    asym = G.copy()
    asym[0, 1] += 0.3
    return {"diagonal": G * 1e-3, "symmetry": asym, "semidefinite": nonpsd}


ALGOS = {
    "nkp": kperc.nkp,
    "snkp": kperc.snkp,
    "nvn": kperc.nvn,
    "snkpvn": kperc.snkpvn,
    "isnkpvn": kperc.isnkpvn,
    "loss": lambda G: kperc.loss(G, np.full(4, 0.25)),
    "g_seminorm": lambda G: kperc.g_seminorm(G, np.full(4, 0.25)),
    "margin": kperc.margin,
}


@pytest.mark.parametrize("algo", sorted(ALGOS))
@pytest.mark.parametrize("kind", ["diagonal", "symmetry", "semidefinite"])
@pytest.mark.parametrize("wrap", [aslinearoperator, Plain])
def test_bad_user_operators_are_refused(algo, kind, wrap):
    with pytest.raises(ValueError, match=r"diagonal|symmetric|semidefinite"):
        ALGOS[algo](wrap(_bad_matrices()[kind]))


def test_issue_false_certificate_is_impossible():
    Z = kperc.signed_normalized_points(X4, Y4)
    with pytest.raises(ValueError, match="unit Euclidean norm"):
        kperc.GramOperator(Z * 1e-3)
    op = kperc.gram_operator(X4, Y4)
    op.Z *= 1e-7  # mutated after construction
    for f in (kperc.nvn, kperc.snkpvn, kperc.isnkpvn):
        for check_input in (True, False):
            with pytest.raises(ValueError, match="unit|not 1"):
                f(op, check_input=check_input)
    # unvalidated: a separator may still be found (the data are separable, and the signs
    # of G alpha do not depend on the scale), but never a certificate
    G = kperc.gram_matrix(X4, Y4) * 1e-14
    for f in (kperc.nvn, kperc.snkpvn, kperc.isnkpvn):
        for g in (G, aslinearoperator(G)):
            try:
                res = f(g, check_input=False)
            except ValueError as exc:
                assert "not 1" in str(exc)
            else:
                assert res.outcome != "certificate"


@pytest.mark.parametrize(
    "Z, exc",
    [
        (kperc.signed_normalized_points(X4, Y4) + 0j, TypeError),
        (np.ones(3), ValueError),
        (np.full((2, 2), np.nan), ValueError),
    ],
)
def test_gram_operator_factor_is_checked(Z, exc):
    with pytest.raises(exc):
        kperc.GramOperator(Z)


@pytest.mark.parametrize("j", [2.7, "1", True, 4, -5, None])
def test_column_indices_are_integers_in_range(j):
    for op in (kperc.gram_operator(X4, Y4), kperc.kernel_gram_operator(X4, Y4)):
        with pytest.raises(ValueError, match="j"):
            op.column(j)
    col = kperc.gram_operator(X4, Y4).column(-1)
    assert np.allclose(col, kperc.gram_matrix(X4, Y4)[3], rtol=0, atol=1e-15)


def test_kernel_gram_operator_checks_its_own_inputs():
    with pytest.raises(ValueError, match="-1 or \\+1"):
        kperc.KernelGramOperator(X4, 2 * Y4)
    with pytest.raises(ValueError, match="block_size"):
        kperc.KernelGramOperator(X4, Y4, "rbf", {}, 0)


BAD_KERNELS = {
    "negative diagonal": lambda A, B: -(A @ B.T),
    "asymmetric": lambda A, B: A @ B.T + A[:, :1] @ np.ones((1, B.shape[0])),
    "not PSD": lambda A, B: np.exp(np.abs(A @ B.T)) * np.sign(A[:, :1] @ B[:, :1].T + 0.1),
}


@pytest.mark.parametrize("name", sorted(BAD_KERNELS))
def test_bad_kernel_callables_are_refused_everywhere(name):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    k = BAD_KERNELS[name]
    for f in (
        lambda: kperc.kernel_matrix(X, kernel=k),
        lambda: kperc.gram_matrix(X, y, k),
        lambda: kperc.kernel_gram_operator(X, y, k),
        lambda: kperc.exact_margin_check(X, y, np.full(20, 0.05), kernel=k),
    ):
        with pytest.raises(ValueError, match="kernel|K\\(x"):
            f()


def test_kernel_sample_does_not_depend_on_storage_order():
    """A kernel that is not PSD only among points far apart in storage order is found
    (or not) whatever the order: the sample is taken in lexicographic order."""
    from kperc._kernel_columns import check_kernel_sample

    rng = np.random.default_rng(1)
    X = rng.standard_normal((600, 2))
    k = BAD_KERNELS["not PSD"]
    verdicts = set()
    for perm in (np.arange(600), rng.permutation(600), rng.permutation(600)):
        try:
            check_kernel_sample(X[perm], k, {})
            verdicts.add("ok")
        except ValueError:
            verdicts.add("refused")
    assert len(verdicts) == 1


scales = st.sampled_from([1e-310, 1e-300, 1e-170, 1e-100, 1.0, 1e100, 1e160, 1e300, 1.3e308])


@settings(max_examples=30, deadline=None)
@given(scale=scales, seed=st.integers(0, 1000))
def test_results_do_not_depend_on_scale(scale, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((8, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ np.array([1.0, 0.3, -0.2]) > 0, 1.0, -1.0)
    Xs = X * scale
    ref = kperc.signed_normalized_points(X, y)
    got = kperc.signed_normalized_points(Xs, y)
    tol = 1e-14 if scale >= 1e-300 else 1e-6  # subnormal input holds fewer digits
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-15)
    assert np.allclose(got, ref, atol=tol)
    assert kperc.data_margin(Xs, y) == pytest.approx(kperc.data_margin(X, y), abs=tol)
    r0 = kperc.perceptron(X, y, max_iter=10**4)
    try:
        r = kperc.perceptron(Xs, y, max_iter=10**4)
    except ValueError as exc:
        # w is a sum of rows y_i x_i: at scale 1.3e308 it may exceed float64, and then a
        # clear error naming X is the right answer (the same run on X shows the true w)
        assert "X" in str(exc) and "overflows" in str(exc)
        assert np.linalg.norm(r0.w / 2.0) * scale > np.finfo(float).max / 2
    else:
        assert np.all(np.isfinite(r.w)) and r.outcome == r0.outcome
    G = kperc.gram_matrix(Xs, y, "poly", coef0=0)
    G_ref = kperc.gram_matrix(X, y, "poly", coef0=0)
    assert np.all(np.isfinite(G)) and np.allclose(G, G_ref, atol=tol)
    op = kperc.gram_operator(X, y)
    v = np.abs(rng.standard_normal(8))
    if scale < 1e300:
        assert kperc.g_seminorm(op, v * scale) == pytest.approx(
            kperc.g_seminorm(op, v) * scale, rel=1e-12 if scale >= 1e-300 else 1e-6
        )
    B = (X * y[:, None]).T
    val, _ = kperc.min_norm_point(B * scale)
    ref_val, _ = kperc.min_norm_point(B)
    assert val / scale == pytest.approx(ref_val, abs=1e-12, rel=1e-9) or scale < 1e-300


def test_rbf_at_extreme_scale_is_finite_and_exact_on_copies():
    X, y = kperc.datasets.circles(30, seed=0)
    X = np.vstack([X, X[:2]])
    y = np.concatenate([y, -y[:2]])
    for s in (1e-200, 1e200, 1e300):
        G = kperc.gram_matrix(X * s, y, "rbf")
        assert np.all(np.isfinite(G)) and np.all(np.diag(G) == 1.0)
        assert G[0, 30] == -1.0
        op = kperc.kernel_gram_operator(X * s, y)
        assert np.array_equal(op.column(0), G[:, 0])
        assert np.all(np.isfinite(op @ np.ones(32)))
    with pytest.raises(ValueError, match="X has entries"):
        kperc.approx_gram_operator(X * 1e200, y, n_components=5, random_state=0)


def test_perceptron_w_overflow_is_a_clear_error():
    Xs = X4 / np.linalg.norm(X4, axis=1).max() * 1.7e308
    with pytest.raises(ValueError, match="X is too large"):
        kperc.perceptron(Xs, Y4)


@settings(max_examples=50, deadline=None)
@given(
    base=st.sampled_from([0.0, 1.0, 3e9, -3e9, 1e15]),
    spread=st.sampled_from([1e-3, 1.0, 1e3]),
    seed=st.integers(0, 10**6),
    n=st.integers(2, 40),
)
def test_projections_stay_in_the_simplex(base, spread, seed, n):
    v = base + np.random.default_rng(seed).standard_normal(n) * spread
    for p in (kperc.project_simplex(v), kperc.euclidean_prox(v, 1e-3, np.full(n, 1 / n))):
        assert p.min() >= 0.0 and abs(p.sum() - 1.0) <= 4 * n * np.finfo(float).eps


def test_winnow_huge_eta_stays_finite():
    r = kperc.winnow(X4, Y4, eta=1e308, max_iter=1000)
    assert np.all(np.isfinite(r.w)) and np.all(np.isfinite(r.p))


FLAGS = [
    (kperc.nkp, "halt"),
    (kperc.nkp, "trace"),
    (kperc.nkp, "check_input"),
    (kperc.snkp, "halt"),
    (kperc.nvn, "primal_exit"),
    (kperc.snkpvn, "check_input"),
    (kperc.isnkpvn, "trace"),
]


@pytest.mark.parametrize("func, flag", FLAGS)
@pytest.mark.parametrize("value", [None, 0, 1, "yes", [True]])
def test_flags_are_bools_not_truthiness(func, flag, value):
    G = kperc.gram_matrix(X4, Y4)
    with pytest.raises(ValueError, match=flag):
        func(G, **{flag: value})


@pytest.mark.parametrize("value", [None, "no"])
def test_data_flags(value):
    with pytest.raises(ValueError, match="normalize"):
        kperc.data_margin(X4, Y4, normalize=value)
    with pytest.raises(ValueError, match="trace"):
        kperc.perceptron(X4, Y4, trace=value)


@pytest.mark.parametrize(
    "value, hint", [(float("nan"), "NaN"), (float("inf"), "no unlimited"), (True, "bool")]
)
def test_max_iter_messages(value, hint):
    with pytest.raises(ValueError, match=f"max_iter.*{hint}"):
        kperc.nkp(kperc.gram_matrix(X4, Y4), max_iter=value)


@pytest.mark.parametrize("gamma", [[1.0], 1j, True, "1", float("nan")])
def test_gamma_values_are_named(gamma):
    with pytest.raises(ValueError, match="gamma"):
        kperc.gram_matrix(X4, Y4, "rbf", gamma=gamma)
    with pytest.raises(ValueError, match="gamma"):
        kperc.isnkpvn(kperc.gram_matrix(X4, Y4), gamma=gamma)


@pytest.mark.parametrize(
    "labels", [np.array(["1", "1", "-1", "-1"]), Y4.astype(int).astype("timedelta64[s]")]
)
def test_non_numeric_labels_are_refused(labels):
    with pytest.raises(ValueError, match="labels"):
        kperc.gram_matrix(X4, labels)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"near_width": float("nan")},
        {"near_width": 0.0},
        {"norm_range": (1.0, float("inf"))},
        {"norm_range": (2.0, 1.0)},
        {"norm_range": 3},
    ],
)
def test_planted_parameters(kwargs):
    with pytest.raises(ValueError):
        kperc.datasets.planted(10, 3, **kwargs)


@pytest.mark.parametrize("pair", [(3, 3), (3, 10), (3,), "38", (True, 2)])
def test_digits_pair(pair):
    with pytest.raises(ValueError, match="pair"):
        kperc.datasets.digits(pair)

"""Certified margins of a matrix built from data hold for the data's exact Gram matrix.

The class (issue 31, section 1): signed points ``(s, 1)``, ``(s, -1)``, ``(-1, 0)``,
embedded in ``R^d`` and rotated. For ``s > 0`` the origin lies inside their hull at depth
``s / sqrt(1 + s^2)``; for ``s < 0`` they are separable with that margin: in both cases
``rho = -s / sqrt(1 + s^2)`` (normalisation, positive rescaling of each point, repeated
points and rotations leave it unchanged). The rounded ``G`` of such data has rank ``2``
plus rounding, and a "separator" living in a rounding eigenvalue must not be reported.
Ground truth: this closed form, cross-checked with :func:`kperc.data_margin` and, for an
answer about a matrix as given, exact rational arithmetic.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import kperc
from kperc._validation import gram_provenance


def _points(s: float, d: int, seed: int, repeats: int, scale_decades: int):
    """Data (X, y) whose signed normalised points are the class's, and the true margin."""
    rng = np.random.default_rng(seed)
    A = np.zeros((3, d))
    A[:, :2] = [[s, 1.0], [s, -1.0], [-1.0, 0.0]]
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    A = A @ Q
    idx = np.concatenate([np.arange(3), rng.integers(0, 3, repeats)])
    A = A[idx] * 10.0 ** rng.integers(-scale_decades, scale_decades + 1, idx.size)[:, None]
    y = rng.choice([-1.0, 1.0], idx.size)
    X = A * y[:, None]  # x_i = y_i a_i
    return X, y, -s / np.sqrt(1.0 + s * s)


def _exact_products_positive(G: np.ndarray, p: np.ndarray) -> bool:
    fp = [Fraction(float(v)) for v in p]
    return all(sum(Fraction(float(g)) * q for g, q in zip(row, fp, strict=True)) > 0 for row in G)


KERNELS = [("linear", {}), ("poly", {"degree": 1, "coef0": 0.0, "gamma": 1.0})]


@given(
    s=st.sampled_from([3e-4, 1e-2, 1e-5, 1e-7, 1e-9]).flatmap(lambda v: st.sampled_from([v, -v])),
    d=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
    repeats=st.integers(0, 4),
    scale_decades=st.integers(0, 6),
    rot_kernel=st.integers(0, len(KERNELS) - 1),
)
@example(s=3e-4, d=2, seed=0, repeats=0, scale_decades=0, rot_kernel=0)
@example(s=3e-4, d=3, seed=0, repeats=2, scale_decades=3, rot_kernel=1)
def test_margin_of_built_gram_holds_for_the_data(s, d, seed, repeats, scale_decades, rot_kernel):
    X, y, rho = _points(s, d, seed, repeats, scale_decades)
    kernel, params = KERNELS[rot_kernel]
    G = kperc.gram_matrix(X, y, kernel, **params)
    assert gram_provenance(G) is not None and gram_provenance(G).entry_error > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        det = kperc.margin_details(G)
        truth = kperc.data_margin(X, y)
    lo, hi = det.rho_bounds
    if det.status == "separable":
        assert s < 0 and det.separable and det.rho > 0
    elif det.status in ("inseparable", "zero"):
        assert s > 0 and not det.separable and det.rho <= 0
    else:
        assert det.status == "undecided" and det.rho == 0.0
    slack = 1e-12  # the rounding of the rotated data (relative u) moves rho by ~1e-16
    assert lo - slack <= rho <= hi + slack
    # not vacuous: margins far above the construction's rounding are decided, except a
    # depth in the plane when d > 2: the rotated floats span R^d, and the exact G*'s rank
    # (bounded by d and the 3 distinct lines, ``max_rank``) may exceed the plane's 2
    if abs(s) >= 1e-4 and (s < 0 or d == 2):
        assert det.status != "undecided"
    # the independent data route agrees on the sign whenever both decide
    if truth != 0.0 and det.status != "undecided":
        assert np.sign(truth) == np.sign(det.rho)


@given(
    s=st.sampled_from([3e-4, 1e-7, 1e-9, -1e-7]),
    d=st.integers(2, 4),
    seed=st.integers(0, 2**32 - 1),
    repeats=st.integers(0, 3),
)
@example(s=3e-4, d=2, seed=0, repeats=0)
def test_a_copy_is_certified_only_above_its_product_rounding(s, d, seed, repeats):
    """A copy is the user's matrix: 'separable' needs (G p)_i above the product's rounding,
    and then holds for the given matrix in exact arithmetic."""
    X, y, rho = _points(s, d, seed, repeats, 0)
    G = np.array(kperc.gram_matrix(X, y))  # writeable copy: taken as given
    assert gram_provenance(G) is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        det = kperc.margin_details(G)
    if det.status == "separable":
        n = G.shape[0]
        assert float((G @ det.p).min()) > (n + 2) * np.finfo(float).eps * 0.99
        assert _exact_products_positive(G, det.p)


def test_issue_reproducer_is_not_certified_separable():
    s, rot = 3e-4, 1.1
    A = np.array([[s, 1.0], [s, -1.0], [-1.0, 0.0]])
    c, si = np.cos(rot), np.sin(rot)
    A = A @ np.array([[c, -si], [si, c]])
    y = np.array([1.0, -1.0, 1.0])
    X = A * y[:, None]
    G = kperc.gram_matrix(X, y)
    for M in (G, np.array(G), kperc.ValidatedGram(G)):
        det = kperc.margin_details(M)
        assert det.status == "inseparable"
        assert det.rho_bounds[0] <= kperc.data_margin(X, y) <= det.rho_bounds[1] < 0


def test_repeated_point_with_both_labels_is_an_exact_zero():
    # a tetrahedron a_0, a_1, a_2, -a_0: the origin on its edge, depth 0
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4, 3))
    X[3] = X[0]
    y = np.array([1.0, 1, 1, -1])
    for kernel, params in [("linear", {}), ("rbf", {"gamma": 0.7}), ("poly", {"degree": 2})]:
        det = kperc.margin_details(kperc.gram_matrix(X, y, kernel, **params))
        assert det.status == "zero" and det.rho == 0.0, kernel


def test_collinear_points_cancel_exactly_for_the_linear_kernel():
    X = np.array([[1.0, 0.2], [0.0, 1.0], [2.0, 0.4]])
    det = kperc.margin_details(kperc.gram_matrix(X, [1, 1, -1]))
    assert det.status == "zero"


@pytest.mark.parametrize("gamma", [1e-3, 1.0, 30.0])
def test_rbf_construction_bound_holds(gamma):
    """The bound carried with an RBF matrix covers its difference from an exact value
    (computed in extended precision from differences)."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 4)) * 2.0
    y = rng.choice([-1.0, 1.0], 40)
    G = kperc.gram_matrix(X, y, "rbf", gamma=gamma)
    delta = gram_provenance(G).entry_error
    Xl = X.astype(np.longdouble)
    D = ((Xl[:, None, :] - Xl[None, :, :]) ** 2).sum(-1)
    exact = np.exp(-np.longdouble(gamma) * D) * np.outer(y, y)
    assert float(np.max(np.abs(G - exact))) <= delta
    assert delta < 1e-10  # about gamma 4 (d + 3) u max ||x||^2: not vacuous


def _exact_normalised_gram(X, y, kernel, params):
    """The normalised signed Gram matrix in extended precision (an independent reference,
    from differences and row norms; accurate to about 1e-19 here)."""
    Xl = X.astype(np.longdouble)
    if kernel == "linear":
        K = Xl @ Xl.T
    elif kernel == "rbf":
        K = np.exp(-np.longdouble(params["gamma"]) * ((Xl[:, None] - Xl[None]) ** 2).sum(-1))
    else:
        g, c, deg = params["gamma"], params["coef0"], params["degree"]
        K = (np.longdouble(g) * (Xl @ Xl.T) + np.longdouble(c)) ** deg
    dg = np.sqrt(np.diag(K))
    return K / np.outer(dg, dg) * np.outer(y, y)


@pytest.mark.parametrize(
    ("kernel", "params", "scale"),
    [
        ("linear", {}, 1.0),
        ("linear", {}, 2.0**-660),
        ("poly", {"gamma": 0.5, "coef0": 1.0, "degree": 3}, 1.0),
        ("poly", {"gamma": 0.5, "coef0": 0.0, "degree": 2}, 2.0**400),
        ("rbf", {"gamma": 0.3}, 1.0),
        ("rbf", {"gamma": 0.3}, 2.0**-500),  # the scaled path; gamma / scale^2 below
    ],
)
def test_construction_bound_holds_on_each_path(kernel, params, scale):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((30, 6))
    X[5] = -2.0 * X[4]  # collinear (a group for the linear kernel)
    y = rng.choice([-1.0, 1.0], 30)
    built = dict(params)
    if kernel == "rbf":
        built["gamma"] = params["gamma"] / scale**2  # the same kernel on the scaled data
    G = kperc.gram_matrix(X * scale, y, kernel, **built)
    delta = gram_provenance(G).entry_error
    # homogeneous kernels (and the rescaled RBF) give the G of the unscaled data
    ref = _exact_normalised_gram(X, y, kernel, params)
    assert float(np.max(np.abs(G - ref))) <= delta
    assert delta <= 1e-12


GRID = np.array(np.meshgrid([1.0, 2, 3], [1.0, 2, 3], [1.0, 2, 3])).reshape(3, -1).T  # 27
XOR = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])


def test_xor_under_a_tiny_rbf_gamma_claims_no_negative_margin():
    """The RBF matrix of distinct points is positive definite, so XOR is separable at any
    gamma; at gamma = 1e-8 the rounded G has numerical rank 3 and a depth of 1e-4 there
    (issue 36): the answer is "undecided", with the exact margin in its bounds."""
    y = [1, 1, -1, -1]
    G = kperc.gram_matrix(XOR, y, "rbf", gamma=1e-8)
    with pytest.warns(RuntimeWarning, match="rank up to 4"):
        assert kperc.margin(G) == 0.0
    rho = -np.expm1(-4e-8) / 2  # (1 - e^{-4 gamma}) / 2, the uniform p by symmetry
    for M in (G, kperc.ValidatedGram(G), kperc.kernel_gram_operator(XOR, y, gamma=1e-8)):
        with pytest.warns(RuntimeWarning, match="rank up to 4"):
            det = kperc.margin_details(M)
        assert det.status == "undecided"
        assert det.rho_bounds[0] <= rho <= det.rho_bounds[1]


@pytest.mark.parametrize(
    ("kernel", "params", "X", "want"),
    [
        ("linear", {}, np.ones((9, 4)) + np.eye(9, 4), 4),
        ("linear", {}, np.column_stack([np.eye(5, 3) + 0.5, np.zeros(5)]), 3),  # a zero feature
        ("poly", {"degree": 2, "coef0": 1.0}, GRID, 10),  # C(3 + 2, 2)
        ("poly", {"degree": 2, "coef0": 0.0}, GRID, 6),  # C(3 + 1, 2)
        ("poly", {"degree": 3}, GRID[:4], 4),  # 4 points < C(6, 3)
        ("rbf", {"gamma": 0.5}, GRID[[0, 1, 2, 0, 1, 3]], 4),  # repeated rows
    ],
)
def test_max_rank_bounds_the_exact_rank(kernel, params, X, want):
    y = np.resize([1.0, -1.0, 1.0], X.shape[0])
    info = gram_provenance(kperc.gram_matrix(X, y, kernel, **params))
    assert info.max_rank == want
    # never below the rank of the kernel matrix (numerically: these are well conditioned)
    if kernel == "poly":
        K = (params.get("gamma", 1 / X.shape[1]) * X @ X.T + params.get("coef0", 1)) ** params[
            "degree"
        ]
        assert np.linalg.matrix_rank(K) <= want
    else:
        assert np.linalg.matrix_rank(X if kernel == "linear" else np.unique(X, axis=0)) <= want


def test_a_callable_kernel_has_no_rank_bound():
    G = kperc.gram_matrix(XOR, [1, 1, -1, -1], lambda A, B: (A @ B.T + 3.0) ** 2)
    info = gram_provenance(G)
    assert info is not None and info.max_rank is None


def test_an_inseparable_linear_problem_keeps_its_exact_negative_margin():
    """Full-rank data in R^2: max_rank (2) is reached by the span, the depth stands."""
    X, y = kperc.datasets.infeasible(40, 2, rho=-0.2, seed=3)
    G = kperc.gram_matrix(X, y)
    assert gram_provenance(G).max_rank == 2
    det = kperc.margin_details(G)
    assert det.status == "inseparable" and det.hull_rank == 2
    assert abs(det.rho + 0.2) <= 1e-12
    assert det.rho_bounds[0] <= -0.2 <= det.rho_bounds[1] < 0


@given(
    log_gamma=st.floats(-12.0, -2.0),
    n=st.integers(3, 40),
    d=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
@example(log_gamma=-8.0, n=4, d=2, seed=0)
def test_rbf_of_distinct_points_never_claims_a_negative_margin(log_gamma, n, d, seed):
    """Distinct points are separable under the RBF kernel at every gamma (its matrix is
    positive definite): margin_details says "separable" or "undecided", never a negative
    margin or an error, and the bounds always admit a positive margin."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, (n, d)).astype(float)
    X = np.unique(X, axis=0)
    y = rng.choice([-1.0, 1.0], X.shape[0])
    G = kperc.gram_matrix(X, y, "rbf", gamma=10.0**log_gamma)
    assert gram_provenance(G).max_rank == X.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        det = kperc.margin_details(G)
        rho = kperc.margin(G)
    assert det.status in ("separable", "undecided"), det.status
    assert rho >= 0.0 and det.rho_bounds[1] > 0


def test_a_high_rank_rbf_hull_is_undecided_not_an_error():
    """60 distinct points in R^3, gamma = 1e-4: numerical rank 10 (> 6, no facet
    enumeration), no separator above the rounding of G. The exact matrix has rank 60, so
    no depth in that span would be certified: "undecided" with honest bounds, where
    margin used to raise a ValueError."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = np.where(rng.random(60) < 0.5, 1.0, -1.0)
    G = kperc.gram_matrix(X, y, "rbf", gamma=1e-4)
    with pytest.warns(RuntimeWarning, match="cannot certify the sign"):
        det = kperc.margin_details(G)
    assert det.status == "undecided" and det.rho == 0.0 and det.rank > 6
    assert det.rho_bounds[0] == -1.0 and 0 < det.rho_bounds[1] < 1e-6
    # as given (no bound on the exact rank), the refusal stands
    with pytest.raises(ValueError, match="rank"):
        kperc.margin(np.array(G))

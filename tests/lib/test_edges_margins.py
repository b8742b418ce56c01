"""Tiny margins: a definite answer only with a certificate, never the wrong sign.

The class: any margin, positive or negative, too small for the plain rounding bound of
``G p``. ``separable`` must come with a separator verified with exact signs,
``inseparable`` with a depth above the rounding slack, ``zero`` with an exact
``sum_i p_i a_i = 0``; otherwise ``undecided`` with a warning and a bracket.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kperc
from kperc import _exact
from kperc._margins import _data_margin_details
from kperc.datasets import infeasible, planted

tiny = st.sampled_from([3e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13])


def _exact_signs(A, w):
    """Signs of A w decided by Fractions (independent of the Dot2 code under test)."""
    from fractions import Fraction

    out = []
    for row in A:
        out.append(
            sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(row, w, strict=True))
        )
    return np.array([float(np.sign(float(v))) for v in out])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), rho=tiny, n=st.integers(4, 30), d=st.integers(2, 6))
def test_planted_tiny_margins_are_never_called_inseparable(seed, rho, n, d):
    """The issue's class: planted margins from 3e-8 down to 1e-13 (60 of 60 were 'zero')."""
    ds = planted(n, d, rho=rho, seed=seed)
    lo, hi = ds.info["rho_bounds"]  # the margin of the floats, within rounding of rho
    assert rho / 2 < lo <= hi < 2 * rho
    assert max(abs(lo - rho), abs(hi - rho)) <= 64 * (d + 4) * np.finfo(float).eps
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the data route certifies these: no warning
        got = kperc.data_margin(ds.X, ds.y)
        det = kperc.margin_details(kperc.gram_operator(ds.X, ds.y))
    assert det.status == "separable" and det.separable
    assert det.rho_bounds[0] <= det.rho <= det.rho_bounds[1]
    assert det.rho_bounds[0] <= hi and det.rho_bounds[1] >= lo  # brackets agree
    # data_margin's value: inside its own certified bracket, which must meet the planted
    # one (both enclose the margin of the floats); near 1e-13 the value is accurate to
    # rounding in absolute terms (seed 42341: 1.081e-13 against [0.997e-13, 1.031e-13]),
    # not to 1e-3 relative
    own, _ = _data_margin_details(ds.X, ds.y)
    assert own.rho_bounds[0] <= got <= own.rho_bounds[1]
    assert own.rho_bounds[0] <= hi and lo <= own.rho_bounds[1]
    tol = 64 * (n + d) * np.finfo(float).eps
    assert lo - tol <= got <= hi + tol


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), rho=tiny)
def test_dense_gram_is_right_or_undecided(seed, rho):
    """A dense G carries no sign below about sqrt(n u): never 'zero' or 'inseparable'."""
    ds = planted(12, 3, rho=rho, seed=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        det = kperc.margin_details(kperc.gram_matrix(ds.X, ds.y))
    assert det.status in ("separable", "undecided")
    if det.status == "undecided":
        assert det.rho == 0.0 and not det.separable
        assert any("cannot certify" in str(w.message) for w in caught)
        assert det.rho_bounds[0] <= 0.0 <= det.rho_bounds[1]
    else:
        assert det.rho > 0


def test_issue_reproducer():
    X, y = planted(10, 3, rho=1e-9, seed=0)
    assert kperc.data_margin(X, y) == pytest.approx(1e-9, rel=1e-6)


@pytest.mark.parametrize("rho", [-1e-9, -1e-11, -1e-12])
def test_tiny_negative_depths_are_found(rho):
    ds = infeasible(30, 2, rho=rho, seed=0)
    lo, hi = ds.info["rho_bounds"]
    assert lo <= ds.info["rho"] <= hi < 0
    assert kperc.data_margin(ds.X, ds.y) == pytest.approx(rho, rel=1e-3)
    det = kperc.margin_details(kperc.gram_operator(ds.X, ds.y))
    assert det.status == "inseparable" and det.rho == pytest.approx(rho, rel=1e-3)


def test_exact_zero_margin_is_zero():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    y = np.ones(3)
    for G in (kperc.gram_operator(X, y), kperc.gram_matrix(X, y)):
        det = kperc.margin_details(G)
        assert det.status == "zero" and det.rho == 0.0 and det.rho_bounds[1] == 0.0
    assert kperc.data_margin(X, y) == 0.0


@pytest.mark.parametrize("rho", [1e-16, 1e-20])
def test_planted_refuses_what_it_cannot_plant(rho):
    with pytest.raises(ValueError, match="cannot be planted"):
        planted(10, 3, rho=rho, seed=0)


def test_infeasible_refuses_an_uncertifiable_sign():
    with pytest.raises(ValueError, match="cannot be planted"):
        infeasible(30, 2, rho=-1e-14, seed=0)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(2, 40))
def test_dot2_bound_contains_the_exact_value(seed, k):
    """The error bound of dot2_rows, against exact rational arithmetic."""
    from fractions import Fraction

    rng = np.random.default_rng(seed)
    M = rng.standard_normal((5, k)) * 10.0 ** rng.integers(-8, 8, (5, k))
    v = rng.standard_normal(k)
    M[:, -1] = -(M[:, :-1] @ v[:-1]) / v[-1]  # heavy cancellation
    res, err = _exact.dot2_rows(M, v)
    for i in range(5):
        exact = sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(M[i], v, strict=True))
        assert abs(Fraction(float(res[i])) - exact) <= Fraction(float(err[i]))
    assert _exact.exactly_zero(np.array([[0.5, -0.5, 0.0]]), np.array([1.0, 1.0, 3.0]))
    assert not _exact.exactly_zero(np.array([[0.5, -0.5]]), np.array([1.0, 1.0 + 2**-52]))


def test_certified_separator_really_separates():
    """The separator behind a 'separable' answer has positive signs in exact arithmetic."""
    from kperc._margins import _RowCertifier

    ds = planted(15, 4, rho=1e-11, seed=3)
    A = ds.X * ds.y[:, None]
    cert = _RowCertifier(A)
    det = kperc.margin_details(kperc.gram_operator(ds.X, ds.y))
    low = cert.separator(det.p)
    assert low is not None and low > 0
    assert np.all(_exact_signs(A, ds.info["w_star"]) > 0)


def test_infeasible_says_when_its_points_do_not_surround_the_origin():
    # n = 11, d = 3: 8 random points in the cap; for this seed they all fall on one side
    with pytest.raises(ValueError, match=r"n=11, d=3.*did not surround the origin.*larger n"):
        infeasible(11, 3, rho=-0.5141095817088835, seed=687)


def test_data_margin_of_rows_spanning_the_exponent_range_is_not_negative():
    """Issue 36: normalising ``[2^1000, 2^-80]`` underflows the small entry; the rounded
    points are a segment through 0 (margin -1), but the data are separable by
    ``w = (0, 1)``. No negative margin may come from the rounded span: the answer is
    "undecided" (0.0 with a warning) and its bounds contain the data's margin (>= 0)."""
    A = np.array([[2.0**1000, 2.0**-80], [-(2.0**1000), 2.0**-80]])
    for normalize in (True, False):
        det, _ = _data_margin_details(A, [1, 1], normalize)
        assert det.status != "inseparable" and det.rho >= 0
        if det.status == "undecided":
            assert det.rho_bounds[0] <= 0 <= det.rho_bounds[1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            assert kperc.data_margin(A, [1, 1], normalize=normalize) >= 0


def _lifted_inseparable(seed):
    """2-D inseparable integer data (a point and its opposite, both labelled +1, plus
    points around them), lifted into 3-D by an exact linear combination of the columns
    (rank 2 exactly)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(1, 6, size=(12, 2)) * rng.choice([-1.0, 1.0], size=(12, 2))  # no 0 row
    X[0], X[1] = [3.0, 1.0], [-3.0, -1.0]
    X[2], X[3] = [1.0, -3.0], [-1.0, 3.0]
    y = np.ones(12)
    return np.column_stack([X, 2.0 * X[:, 0] - X[:, 1]]), y


@given(st.integers(0, 1000))
def test_data_margin_negative_only_in_the_datas_own_span(seed):
    """The lifted data have rank 2 exactly, so their span-restricted margin is the 2-D
    one (negative, proved by kperc._exact.exact_rank_at_most). Lifting one point off
    the plane by about 2^-40 makes the rank 3: the origin is then on the boundary of the hull
    (rho = 0), so no negative margin may be claimed."""
    X3, y = _lifted_inseparable(seed)
    det, _ = _data_margin_details(X3, y)
    assert det.status == "inseparable" and det.rho_bounds[1] < 0
    X3[4, 2] += 2.0**-40 * max(1.0, abs(X3[4, 2]))  # exact: 13 bits above the ulp
    det, _ = _data_margin_details(X3, y)
    assert det.rho_bounds[1] >= 0 and det.rho >= det.rho_bounds[0]


@given(
    st.integers(1, 6),
    st.integers(1, 4),
    st.integers(0, 4),
    st.lists(st.integers(-3, 3), min_size=48, max_size=48),
    st.lists(st.integers(-1060, 1000), min_size=4, max_size=4),
)
def test_exact_rank_matches_rational_elimination(n, d, r, ints, cols):
    """kperc._exact.exact_rank_at_most against a rank computed with Fractions, on
    products of integer matrices (rank at most r) with a power of two per column."""
    from fractions import Fraction

    rng_ints = np.array(ints, dtype=float)
    L = rng_ints[: n * max(r, 1)].reshape(n, max(r, 1))
    R = rng_ints[24 : 24 + max(r, 1) * d].reshape(max(r, 1), d)
    M = np.ldexp(L @ R if r else np.zeros((n, d)), np.array(cols[:d])[None, :])
    F = [[Fraction(float(v)) for v in row] for row in M]
    rank, rows = 0, [row[:] for row in F]
    for c in range(d):
        piv = next((i for i in range(rank, n) if rows[i][c] != 0), None)
        if piv is None:
            continue
        rows[rank], rows[piv] = rows[piv], rows[rank]
        for i in range(rank + 1, n):
            f = rows[i][c] / rows[rank][c]
            rows[i] = [a - f * b for a, b in zip(rows[i], rows[rank], strict=True)]
        rank += 1
    for k in range(0, d + 1):
        assert _exact.exact_rank_at_most(M, k) == (rank <= k)


def test_margin_details_needs_the_full_rank_of_the_exact_matrix_for_a_depth():
    """XOR under the RBF kernel with gamma = 1e-8: the exact matrix of these distinct
    points is positive definite (rank 4, separable), the rounded one has numerical rank
    3, and the depth measured in that span is not the data's. gram_matrix records that
    rank(G*) can be 4 (``max_rank``), and margin_details says "undecided" with bounds that
    contain the true, positive margin; a matrix taken as given has no such bound."""
    from kperc._validation import gram_provenance

    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    G = kperc.gram_matrix(X, [1, 1, -1, -1], "rbf", gamma=1e-8)
    assert gram_provenance(G).max_rank == 4
    with pytest.warns(RuntimeWarning, match="rank up to 4"):
        det = kperc.margin_details(G)
    assert det.status == "undecided" and det.rho == 0.0
    assert det.rho_bounds[0] < 0 < det.rho_bounds[1]
    # the exact margin: by symmetry the minimiser p is uniform, and rho^2 = p^T G* p =
    # (1 + e^{-8 gamma} - 2 e^{-4 gamma}) / 4 = (1 - e^{-4 gamma})^2 / 4, about 2e-8
    rho = -np.expm1(-4e-8) / 2
    assert det.rho_bounds[0] <= rho <= det.rho_bounds[1]

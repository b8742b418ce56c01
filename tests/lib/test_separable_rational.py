"""Every exact answer of kperc.is_separable, rechecked in rational arithmetic (issue 36).

The data are the hard classes for a floating-point check: rows whose entries span more
than the exponent range (a power-of-two scaling of the row loses the small ones),
subnormal entries, integer data with a power of two per column. The reference below is
independent of kperc: :class:`fractions.Fraction` values of the given doubles,

* a separator ``w``: ``y_i x_i . w > 0`` for every point, and the reported
  ``margin_lower`` below ``y_i x_i . w / (||x_i|| ||w||)`` (compared squared);
* "not separable" (always exact): the signed points in the support of ``p`` have a
  null vector of one sign (Gaussian elimination in rationals), so they cancel with
  positive weights, and ``p`` is in the simplex;
* data separable by construction are never called "not separable", and integer data
  with a clear margin, scaled by powers of two per column, are called "separable".
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import kperc


def _fr(M):
    return [[Fraction(float(v)) for v in row] for row in np.atleast_2d(M)]


def _null_space(M: list[list[Fraction]], k: int) -> list[list[Fraction]]:
    """A basis of ``{q : M q = 0}`` (``M`` with ``k`` columns), by Gauss-Jordan."""
    R = [row[:] for row in M]
    pivots: list[int] = []
    r = 0
    for c in range(k):
        piv = next((i for i in range(r, len(R)) if R[i][c] != 0), None)
        if piv is None:
            continue
        R[r], R[piv] = R[piv], R[r]
        R[r] = [v / R[r][c] for v in R[r]]
        for i in range(len(R)):
            if i != r and R[i][c] != 0:
                f = R[i][c]
                R[i] = [a - f * b for a, b in zip(R[i], R[r], strict=True)]
        pivots.append(c)
        r += 1
    basis = []
    for f in (c for c in range(k) if c not in pivots):
        q = [Fraction(0)] * k
        q[f] = Fraction(1)
        for row, c in zip(R, pivots, strict=False):
            q[c] = -row[f]
        basis.append(q)
    return basis


def recheck(X, y, res):
    """The reference check of one answer (see the module docstring)."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    F = _fr(X * y[:, None])  # exact: sign flips
    if res.status == "separable":
        w = [Fraction(float(v)) for v in res.w]
        vals = [sum((a * b for a, b in zip(row, w, strict=True)), Fraction(0)) for row in F]
        assert all(v > 0 for v in vals), "a separator that does not separate"
        low = Fraction(float(res.margin_lower))
        assert low >= 0
        w2 = sum(v * v for v in w)
        for row, v in zip(F, vals, strict=True):
            assert low * low * w2 * sum(a * a for a in row) <= v * v, "margin_lower too high"
    elif res.status == "not separable":
        assert res.exact and res.margin_upper == 0.0
        p = np.asarray(res.p)
        assert np.all(p >= 0) and abs(float(p.sum()) - 1.0) <= 1e-12
        S = np.flatnonzero(p > 0)
        if res.conflicts.shape[0] or (S.size == 1 and not np.any(X[S[0]])):
            i = S if S.size == 1 else res.conflicts[0]
            assert S.size <= 2 and (S.size == 1 or np.array_equal(X[i[0]], X[i[1]]))
            return
        M = [[F[i][j] for i in S] for j in range(X.shape[1])]  # d x k
        basis = _null_space(M, S.size)
        assert len(basis) == 1, "the support does not carry a single exact certificate"
        signs = {(v > 0) - (v < 0) for v in basis[0]}
        assert signs in ({1}, {-1}), "the exact null vector changes sign"
    else:
        assert res.status == "undecided" and res.separable is None and not res.exact


labels = st.lists(st.sampled_from([-1.0, 1.0]), min_size=2, max_size=7)


@st.composite
def spanning_rows(draw):
    """Entries ``m 2^e``, ``m`` a small odd integer, ``e`` anywhere in the exponent range."""
    y = np.array(draw(labels))
    d = draw(st.integers(1, 4))
    n = y.size
    m = np.array(draw(st.lists(st.integers(-3, 3), min_size=n * d, max_size=n * d)))
    e = np.array(draw(st.lists(st.integers(-1074, 1020), min_size=n * d, max_size=n * d)))
    X = np.ldexp(m.astype(float), e).reshape(n, d)
    return X, y


@st.composite
def subnormal_rows(draw):
    """Entries from a few multiples of ``5e-324`` and of 1."""
    y = np.array(draw(labels))
    d = draw(st.integers(1, 3))
    vals = st.sampled_from([0.0, 5e-324, -5e-324, 1e-323, -1.5e-323, 1.0, -1.0, 2.0**-1022])
    X = np.array(draw(st.lists(vals, min_size=y.size * d, max_size=y.size * d)))
    return X.reshape(y.size, d), y


@st.composite
def integer_columns(draw, span=1000):
    """Integer data times a power of two per column (and optionally per row)."""
    n, d = draw(st.integers(2, 8)), draw(st.integers(1, 4))
    Z = np.array(draw(st.lists(st.integers(-3, 3), min_size=n * d, max_size=n * d)))
    Z = Z.reshape(n, d).astype(float)
    c = np.array(draw(st.lists(st.integers(-span, span), min_size=d, max_size=d)))
    r = np.array(draw(st.lists(st.integers(-40, 40), min_size=n, max_size=n)))
    return Z, np.ldexp(Z, np.clip(c[None, :] + r[:, None], -1070, 1020))  # exact, finite


@given(spanning_rows())
def test_rows_spanning_the_exponent_range(data):
    X, y = data
    recheck(X, y, kperc.is_separable(X, y))
    X1 = np.hstack([X, np.ones((X.shape[0], 1))])
    recheck(X1, y, kperc.is_separable(X, y, fit_intercept=True))


@given(subnormal_rows())
def test_subnormal_entries(data):
    X, y = data
    recheck(X, y, kperc.is_separable(X, y))


@given(integer_columns(), labels)
def test_integer_data_with_powers_of_two_per_column(data, y):
    _, X = data
    y = np.resize(np.asarray(y), X.shape[0])
    recheck(X, y, kperc.is_separable(X, y))


@given(integer_columns(span=400), st.lists(st.integers(-3, 3), min_size=4, max_size=4))
def test_planted_integer_separator_survives_column_powers_of_two(data, w):
    """Labels from an integer separator of the integer data ``Z`` (points on it dropped):
    the scaled data ``X`` are separable (``w_j 2^-c_j``), never "not separable"; with a
    clear margin of ``Z`` (the LP works to about 1e-7) they are found "separable"."""
    Z, X = data
    w = np.array(w[: Z.shape[1]], dtype=float)
    s = Z @ w
    keep = s != 0
    if keep.sum() < 1:
        return
    Z, X, y = Z[keep], X[keep], np.sign(s[keep])
    res = kperc.is_separable(X, y)
    recheck(X, y, res)
    assert res.status != "not separable"
    rho = float(np.min(np.abs(s[keep]) / np.linalg.norm(Z, axis=1)) / np.linalg.norm(w))
    if rho > 0.05:
        assert res.status == "separable", res.message


def test_issue_36_examples():
    A = np.array([[2.0**1000, 2.0**-80], [-(2.0**1000), 2.0**-80]])
    res = kperc.is_separable(A, [1, 1])  # w = (0, 1) separates: 2^-80 > 0 for both
    assert res.status == "separable"
    recheck(A, [1, 1], res)
    B = np.array([[-5e-324, 1.0], [-5e-324, -1.0], [-1.0, 0.0]])  # w = (-1, 0) separates
    res = kperc.is_separable(B, [1, 1, 1])
    assert res.status != "not separable"
    recheck(B, [1, 1, 1], res)

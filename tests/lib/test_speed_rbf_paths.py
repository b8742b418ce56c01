"""The cheaper RBF paths (issue 30, section 1) give the values and bounds of the exact
kernel: the affine error bound of :func:`kperc._rbf.rbf_values_affine`, the symmetric
blocks of the exact-kernel check, the RBF ``gram_matrix`` at large ``gamma`` and the
expansion of repeated points. Correctness only: the speed is measured by the benchmark."""

from __future__ import annotations

import decimal
from fractions import Fraction

import numpy as np
import pytest

import kperc
from kperc import _approx
from kperc._rbf import rbf_values_affine, rbf_values_bounded
from kperc._validation import gram_provenance


def _exact_rbf(A, B, gamma) -> list[list[Fraction]]:
    """``exp(-gamma ||a - b||^2)`` from the exact squared distance (rational arithmetic)
    and a 40-digit exponential, as exact fractions: an independent reference."""
    ctx = decimal.Context(prec=40)
    out = []
    for a in A:
        row = []
        for b in B:
            d2 = sum((Fraction(x) - Fraction(z)) ** 2 for x, z in zip(a, b, strict=True))
            t = Fraction(gamma) * d2
            row.append(Fraction(ctx.exp(-ctx.divide(t.numerator, t.denominator))))
        out.append(row)
    return out


def _points(seed: int, n: int = 14, d: int = 3, scale: float = 1.0) -> np.ndarray:
    """Random points with close neighbours (1e-8 and a few ulps apart), where
    ``||x||^2 + ||z||^2 - 2 x.z`` cancels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * scale
    X[1] = X[0] + 1e-8 * scale
    X[2] = X[0] * (1 + 4 * np.finfo(float).eps)
    X[3] = X[4] - 3e-8 * scale
    return X


@pytest.mark.parametrize("gamma", [0.3, 30.0, 1e6, 1e14, 1e16])
@pytest.mark.parametrize("seed", [0, 1])
def test_rbf_affine_bound_holds_against_exact_values(gamma, seed):
    X = _points(seed)
    ref = _exact_rbf(X, X, gamma)
    bk = rbf_values_affine(X, X, gamma)
    K, err = rbf_values_bounded(X, X, gamma)
    np.testing.assert_array_equal(bk.K, K)  # the same values, a cheaper bound
    for i in range(X.shape[0]):
        for j in range(X.shape[0]):
            e = bk.absolute + bk.relative * bk.K[i, j]
            if bk.err is not None:
                e += bk.err[i, j]
            assert abs(Fraction(bk.K[i, j]) - ref[i][j]) <= Fraction(e)
    if bk.err is None:  # the affine bound is no looser than the entrywise one's scale
        assert bk.relative <= 2.0**-39 and bk.absolute <= 2.0**-52


@pytest.mark.parametrize("gamma", [0.5, 1e14])
@pytest.mark.parametrize("sparse_alpha", [False, True])
def test_exact_galpha_bound_holds_in_symmetric_blocks(monkeypatch, gamma, sparse_alpha):
    # blocks of 3 x 3 kernel values: the symmetric path uses each off-diagonal block for
    # two row blocks; with a zero in alpha the row-block path runs instead
    monkeypatch.setattr(_approx, "CHECK_BLOCK_BYTES", 8 * 9)
    X = _points(3, n=11)
    y = np.where(np.arange(11) % 3 == 0, -1.0, 1.0)
    a = np.random.default_rng(3).random(11)
    if sparse_alpha:
        a[5] = 0.0
    ref = _exact_rbf(X, X, gamma)
    Ga, bound = _approx._exact_galpha(X, a, y, "rbf", {"gamma": gamma}, np.arange(11), None)
    for i in range(11):
        exact = sum(Fraction(y[i] * y[j]) * ref[i][j] * Fraction(a[j]) for j in range(11))
        assert abs(Fraction(Ga[i]) - exact) <= Fraction(bound[i])
    chk = kperc.exact_margin_check(X, y, a, gamma=gamma)
    np.testing.assert_allclose(chk.Galpha, Ga, rtol=1e-13, atol=1e-15)


def test_exact_certificate_bounds_the_exact_norm():
    X = _points(5, n=10)
    y = np.where(np.arange(10) < 5, 1.0, -1.0)
    p = np.random.default_rng(5).random(10)
    p /= p.sum()
    gamma = 1e14
    ref = _exact_rbf(X, X, gamma)
    exact = sum(
        Fraction(p[i]) * Fraction(p[j]) * Fraction(y[i] * y[j]) * ref[i][j]
        for i in range(10)
        for j in range(10)
    )
    cert = _approx._exact_certificate(X, y, p, gamma, tol=1.0)
    assert cert is not None
    assert Fraction(cert["bound"]) ** 2 >= exact
    assert _approx._exact_certificate(X, y, p, gamma, tol=float(exact) ** 0.5 / 2) is None


@pytest.mark.parametrize("gamma", [0.7, 1e6, 1e16])
@pytest.mark.parametrize("scale", [1.0, 1e-120, 1e120])
def test_rbf_gram_matrix_is_exact_within_its_entry_error(gamma, scale):
    # sklearn's expansion gave G01 = -0.0358 instead of -0.0498 at gamma = 1e16, with an
    # entry_error of 45: nothing could be certified
    X = _points(7, n=9, scale=scale)
    y = np.where(np.arange(9) % 2 == 0, 1.0, -1.0)
    g = gamma / scale**2
    G = kperc.gram_matrix(X, y, "rbf", gamma=g)
    delta = gram_provenance(G).entry_error
    assert delta <= 1.1 * 2.0**-30  # kperc._gram_matrix.GRAM_REPAIR_TOL, below the PSD test's 1e-8
    ref = _exact_rbf(X, X, g)
    for i in range(9):
        for j in range(9):
            exact = Fraction(y[i] * y[j]) * ref[i][j]
            assert abs(Fraction(G[i, j]) - exact) <= Fraction(delta)
    op = kperc.kernel_gram_operator(X, y, gamma=g, block_size=4)
    cols = np.column_stack([op.column(j) for j in range(9)])
    np.testing.assert_allclose(op.toarray(), cols, rtol=0, atol=2 * delta)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_repeated_points_expand_to_the_gram_matrix_of_their_values(kernel):
    rng = np.random.default_rng(11)
    U = rng.normal(size=(6, 4))
    inv = rng.integers(0, 6, 25)
    inv[:6] = np.arange(6)
    X = U[inv]
    y = np.where(rng.random(25) < 0.5, -1.0, 1.0)
    G = kperc.gram_matrix(X, y, kernel)
    N = kperc.gram_matrix(U, np.ones(6), kernel)
    # every entry is the value of its two distinct points, signed: copies are identical
    np.testing.assert_array_equal(G, N[np.ix_(inv, inv)] * np.outer(y, y))
    info = gram_provenance(G)
    assert info.entry_error == gram_provenance(N).entry_error
    assert info.groups is not None
    for i in range(25):
        for j in range(25):
            assert (info.groups[i] == info.groups[j]) == (inv[i] == inv[j])

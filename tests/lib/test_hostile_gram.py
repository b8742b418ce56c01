"""Hostile inputs of the Gram-matrix functions: a certified answer or a clear error.

Issue 31, section 2: subnormal data whose margin underflows, operators that lie about
their shape or the length of their products, and kernel parameters a kernel does not use.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse
from scipy.sparse.linalg import LinearOperator

import kperc


class _NonSquare(LinearOperator):
    def __init__(self):
        super().__init__(dtype=np.float64, shape=(3, 4))

    def _matvec(self, v):
        return np.zeros(3)


class _WrongLength(LinearOperator):
    def __init__(self):
        super().__init__(dtype=np.float64, shape=(3, 3))

    def _matvec(self, v):
        return np.ones(2)


class _WrongMatmat(LinearOperator):
    def __init__(self):
        super().__init__(dtype=np.float64, shape=(3, 3))

    def _matvec(self, v):
        return np.asarray(v).reshape(-1)

    def _matmat(self, V):
        return np.ones((2, 3))


FUNCS = {
    "margin": kperc.margin,
    "margin_details": kperc.margin_details,
    "gram_factor": kperc.gram_factor,
    "dist_to_witness": lambda G: kperc.dist_to_witness(G, np.full(3, 1 / 3)),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize(
    ("op", "match"),
    [
        (_NonSquare, r"G must be square"),
        (_WrongLength, r"G \(a _WrongLength\) returned a product of the wrong shape"),
        (_WrongMatmat, r"G \(a _WrongMatmat\) returned products of shape \(2, 3\)"),
    ],
)
def test_lying_operators_are_refused_naming_G(name, op, match):
    with pytest.raises(ValueError, match=match):
        FUNCS[name](op())


def _underflow_data():
    """Separable with margin 5e-324 (w = (-1, 0)); 0.5 * 5e-324 rounds to 0."""
    X = np.array([[-5e-324, 1.0], [-5e-324, -1.0], [-1.0, 0.0]])
    return X, np.ones(3)


@pytest.mark.parametrize("form", ["operator", "sparse operator", "matrix"])
def test_underflowing_margin_is_undecided_not_zero(form):
    X, y = _underflow_data()
    G = {
        "operator": lambda: kperc.gram_operator(X, y),
        "sparse operator": lambda: kperc.gram_operator(scipy.sparse.csr_matrix(X), y),
        "matrix": lambda: kperc.gram_matrix(X, y),
    }[form]()
    with pytest.warns(RuntimeWarning, match="cannot certify"):
        det = kperc.margin_details(G)
    # separable in exact arithmetic: 'zero' (exactly inseparable) would be wrong
    assert det.status == "undecided" and det.rho == 0.0
    lo, hi = det.rho_bounds
    assert lo <= 5e-324 <= hi


def test_underflowing_data_margin_warns():
    X, y = _underflow_data()
    with pytest.warns(RuntimeWarning, match="cannot certify"):
        assert kperc.data_margin(X, y) == 0.0


def test_exactly_zero_sees_underflowed_products():
    from kperc._exact import exactly_zero

    A = np.array([[-5e-324, -5e-324, -1.0]])
    assert not exactly_zero(A, np.array([0.5, 0.5, 0.0]))
    assert exactly_zero(np.array([[5e-324, -5e-324]]), np.array([0.5, 0.5]))


@pytest.mark.parametrize(
    ("kernel", "params", "name"),
    [
        ("rbf", {"degree": 3}, "degree"),
        ("rbf", {"coef0": 1.0}, "coef0"),
        ("linear", {"gamma": 1.0}, "gamma"),
    ],
)
def test_parameters_a_kernel_does_not_use_are_refused(kernel, params, name):
    X, y = np.eye(3), np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match=rf"kernel='{kernel}' does not use {name}"):
        kperc.gram_matrix(X, y, kernel, **params)
    with pytest.raises(ValueError, match=name):
        kperc.kernel_matrix(X, kernel=kernel, **params)


def test_built_matrix_is_read_only_and_copies_are_validated():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((10, 3)), rng.choice([-1.0, 1.0], 10)
    G = kperc.gram_matrix(X, y)
    with pytest.raises(ValueError, match="read-only"):
        G[0, 1] = 5.0
    with pytest.raises(ValueError):
        G.flags.writeable = True
    H = G.copy()
    H[0, 1] = H[1, 0] = 5.0
    with pytest.raises(ValueError, match="positive semidefinite|unit diagonal|symmetric"):
        kperc.snkp(H)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kperc.snkp(G, max_iter=5).nit <= 5

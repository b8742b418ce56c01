"""A ValidatedGram is checked once; each later call costs no validation work.

The fixed cost of a call is counted, not timed: the products ``G @ v`` (and columns)
each algorithm reads from ``G`` are counted by instrumenting the dense Gram wrapper, and
the validation steps (PSD test, symmetry scan) by instrumenting the validation module.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import infeasible_problem, planted_problem
from hypothesis import assume, given
from hypothesis import strategies as st

import kperc
from kperc import _validation
from kperc._gram import _DenseGram

#: At most this many products ``G @ v`` besides the iterations, per call.
FIXED_PRODUCTS = 20
ALGORITHMS = {
    "snkp": kperc.snkp,
    "nkp": kperc.nkp,
    "nvn": kperc.nvn,
    "isnkpvn": kperc.isnkpvn,
    "snkpvn": kperc.snkpvn,
}


class _Counter:
    """Count products and columns read from a dense G, and the validation steps."""

    def __init__(self, monkeypatch):
        self.products = 0
        self.columns = 0
        self.psd_tests = 0
        self.symmetry_scans = 0
        dense = _DenseGram
        matvec, matvec_into = dense.matvec, dense.matvec_into
        column, column_into = dense.column, dense.column_into
        psd, asym = _validation.check_psd_matrix, _validation._max_asymmetry

        def count(name, fn):
            def wrapped(*a, **k):
                setattr(self, name, getattr(self, name) + 1)
                return fn(*a, **k)

            return wrapped

        monkeypatch.setattr(dense, "matvec", count("products", matvec))
        monkeypatch.setattr(dense, "matvec_into", count("products", matvec_into))
        monkeypatch.setattr(dense, "column", count("columns", column))
        monkeypatch.setattr(dense, "column_into", count("columns", column_into))
        monkeypatch.setattr(_validation, "check_psd_matrix", count("psd_tests", psd))
        monkeypatch.setattr(_validation, "_max_asymmetry", count("symmetry_scans", asym))

    def work(self, n):
        """Products read, counting ``n`` columns as one product."""
        return self.products + self.columns / n


def _gram(n=80, seed=0):
    """A plain (writeable, unregistered) copy of a Gram matrix: validated like a user's."""
    return planted_problem(seed, n=n, d=4, rho=0.05).gram().copy()


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_validated_gram_skips_validation(name, monkeypatch):
    G = _gram()
    VG = kperc.ValidatedGram(G)
    c = _Counter(monkeypatch)
    func = ALGORITHMS[name]
    kw = {"delta": 0.5} if name == "snkpvn" else {}
    res = func(VG, max_iter=5, **kw)
    assert c.psd_tests == 0 and c.symmetry_scans == 0
    # the iterations read at most two products each (SNKP: one; the primal-dual
    # methods: one per iterate and one for the certificate test) plus a fixed few
    assert c.work(G.shape[0]) <= 2 * (res.nit + 1) + FIXED_PRODUCTS
    # the same call on the plain matrix validates it
    func(G, max_iter=5, **kw)
    assert c.psd_tests == 1 and c.symmetry_scans == 1


def test_validated_gram_same_results_as_plain():
    G = _gram(60, seed=3)
    VG = kperc.ValidatedGram(G)
    for name, func in ALGORITHMS.items():
        kw = {"delta": 0.5} if name == "snkpvn" else {}
        a, b = func(G, **kw), func(VG, **kw)
        assert a.outcome == b.outcome and a.nit == b.nit, name
        np.testing.assert_array_equal(a.alpha, b.alpha)
    assert kperc.margin(G) == kperc.margin(VG)


def test_validated_gram_from_data_adopts_without_copy():
    p = planted_problem(1, n=50, d=3, rho=0.1)
    X, y = p.X, p.y
    VG = kperc.ValidatedGram.from_data(X, y, kernel="rbf", gamma=0.5)
    np.testing.assert_array_equal(VG.matrix, kperc.gram_matrix(X, y, "rbf", gamma=0.5))
    assert VG.matrix.base is VG._buf and VG._buf.base is None


def test_validated_gram_is_immutable():
    G = _gram(30)
    VG = kperc.ValidatedGram(G)
    G[0, 1] = G[1, 0] = 5.0  # the caller's array is not the validated one
    assert VG.matrix[0, 1] != 5.0
    with pytest.raises(ValueError, match="read-only"):
        VG.matrix[0, 1] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(VG)[0, 1] = 5.0
    with pytest.raises(ValueError):
        VG.matrix.flags.writeable = True  # a view of a read-only buffer stays read-only


def test_buffer_made_writeable_is_validated_again(monkeypatch):
    n = 30
    VG = kperc.ValidatedGram(_gram(n))
    VG.matrix.base.flags.writeable = True  # deliberate: reach the private buffer
    buf = VG.matrix.base
    old = buf[0, 1]
    buf[0, 1] = buf[1, 0] = 5.0
    with pytest.raises(ValueError, match="positive semidefinite"):
        kperc.snkp(VG)
    buf[0, 1] = buf[1, 0] = old
    c = _Counter(monkeypatch)
    kperc.snkp(VG, max_iter=2)
    assert c.psd_tests == 1  # checked again, since it could have changed


def test_validated_gram_refuses_bad_input():
    with pytest.raises(ValueError, match="unit diagonal"):
        kperc.ValidatedGram(2.0 * np.eye(3))
    with pytest.raises(ValueError, match="square"):
        kperc.ValidatedGram(np.ones((2, 3)))
    with pytest.raises(TypeError, match="LinearOperator"):
        p = planted_problem(0, n=20, d=3, rho=0.1)
        kperc.ValidatedGram(kperc.gram_operator(p.X, p.y))


@pytest.mark.parametrize("n", [2000, 4000])
def test_gram_matrix_output_is_not_validated_again(n, monkeypatch):
    """The matrix gram_matrix returns is PSD by construction up to its rounding: no call
    on it runs the PSD test or a scan, and each costs at most FIXED_PRODUCTS products
    besides its iterations (issue: 100-190 products per call at n = 2000)."""
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, 5))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0)
    G = kperc.gram_matrix(X, y)
    assert not G.flags.writeable and type(G) is np.ndarray
    c = _Counter(monkeypatch)
    for name in ("isnkpvn", "snkp", "nkp"):
        before = c.work(n)
        res = ALGORITHMS[name](G, max_iter=3)
        assert c.work(n) - before <= 2 * (res.nit + 1) + FIXED_PRODUCTS, name
    assert c.psd_tests == 0 and c.symmetry_scans == 0
    assert _validation.check_gram(G) is G  # returned at once
    # a copy is the user's matrix: validated once per call
    kperc.snkp(G.copy(), max_iter=1)
    assert c.psd_tests == 1 and c.symmetry_scans == 1


def test_margin_validates_once(monkeypatch):
    calls = []
    check = _validation.check_gram

    def counted(*a, **k):
        calls.append(1)
        return check(*a, **k)

    from kperc import _margins

    monkeypatch.setattr(_margins, "check_gram", counted)
    G = _gram(40)
    c = _Counter(monkeypatch)
    kperc.margin(G)
    assert len(calls) == 1 and c.psd_tests == 1 and c.symmetry_scans == 1
    prob = planted_problem(0, n=40, d=4, rho=0.05)
    kperc.margin(kperc.gram_matrix(prob.X, prob.y))
    assert c.psd_tests == 1 and c.symmetry_scans == 1  # built by kperc: no test


def test_estimated_psd_test_upgraded_on_request(monkeypatch):
    # above PSD_CHECK_MAX_N the PSD test is a Lanczos estimate; check_psd=True on a call
    # still runs the exact test
    monkeypatch.setattr(_validation, "PSD_CHECK_MAX_N", 10)
    VG = kperc.ValidatedGram(_gram(40))
    assert not VG.psd_exact
    c = _Counter(monkeypatch)
    _validation.check_gram(VG)
    assert c.psd_tests == 0
    _validation.check_gram(VG, check_psd=True)
    assert c.psd_tests == 1
    assert kperc.ValidatedGram(_gram(40), check_psd=True).psd_exact


@st.composite
def _not_psd(draw):
    """A symmetric unit-diagonal matrix with a slightly negative eigenvalue."""
    n = draw(st.integers(3, 30))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    lam = rng.random(n) * 2.0
    neg = draw(st.floats(1e-6, 1e-2))  # relative to the tolerance 1e-8 n: 100x and more
    lam[0] = -neg
    M = (Q * lam) @ Q.T
    d = np.sqrt(np.diag(M))
    assume(np.all(d > 0.1))
    G = M / d[:, None] / d[None, :]
    G = 0.5 * (G + G.T)
    np.fill_diagonal(G, 1.0)
    assume(np.linalg.eigvalsh(G)[0] < -2 * _validation.PSD_TOL * n)
    return G


@given(_not_psd())
def test_not_psd_never_validated_nor_certified(G):
    with pytest.raises(ValueError, match="positive semidefinite"):
        kperc.ValidatedGram(G)
    for func in (kperc.isnkpvn, kperc.nvn, kperc.snkp):
        with pytest.raises(ValueError, match="positive semidefinite"):
            func(G, max_iter=50)


def test_certificate_on_validated_gram_is_the_plain_one():
    G = infeasible_problem(0, n=40, d=3).gram()
    a, b = kperc.isnkpvn(G), kperc.isnkpvn(kperc.ValidatedGram(G))
    assert a.outcome == b.outcome == "certificate"
    np.testing.assert_array_equal(a.p, b.p)

"""Bad input fails early with a ValueError that names the problem; inputs are not modified."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import infeasible_problem, planted_problem
from scipy.sparse.linalg import aslinearoperator

import kperc

DATA_FUNCS = {
    "perceptron": kperc.perceptron,
    "normalized_perceptron": kperc.normalized_perceptron,
    "von_neumann_linear": kperc.von_neumann_linear,
    "winnow": kperc.winnow,
    "gram_matrix": kperc.gram_matrix,
    "gram_operator": kperc.gram_operator,
    "data_margin": kperc.data_margin,
    "linf_margin": kperc.linf_margin,
}
GRAM_FUNCS = {
    "nkp": kperc.nkp,
    "snkp": kperc.snkp,
    "nvn": kperc.nvn,
    "snkpvn": kperc.snkpvn,
    "isnkpvn": kperc.isnkpvn,
    "margin": kperc.margin,
}


def _good_data():
    X = np.array([[1.0, 0.2], [0.3, 1.0], [-1.0, 0.1], [0.2, -1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    return X, y


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_data(name, bad):
    X, y = _good_data()
    X[1, 0] = bad
    with pytest.raises(ValueError, match="NaN or inf"):
        DATA_FUNCS[name](X, y)


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
@pytest.mark.parametrize("labels", [[0, 1, 0, 1], [1, 2, 1, 2], [1, -1, 1, 0.5]])
def test_bad_labels(name, labels):
    X, _ = _good_data()
    with pytest.raises(ValueError, match="-1 or \\+1"):
        DATA_FUNCS[name](X, np.array(labels, dtype=float))


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
def test_string_labels_and_nan_labels(name):
    X, _ = _good_data()
    with pytest.raises(ValueError, match="labels"):
        DATA_FUNCS[name](X, np.array(["a", "b", "a", "b"]))
    with pytest.raises(ValueError, match="NaN or inf"):
        DATA_FUNCS[name](X, np.array([1.0, np.nan, 1.0, -1.0]))


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
def test_shape_mismatch_and_empty(name):
    X, y = _good_data()
    f = DATA_FUNCS[name]
    with pytest.raises(ValueError, match="rows but y has"):
        f(X, y[:3])
    with pytest.raises(ValueError, match="empty"):
        f(np.zeros((0, 2)), np.zeros(0))
    with pytest.raises(ValueError, match="2-D"):
        f(X[:, 0], y)
    with pytest.raises(ValueError, match="1-D"):
        f(X, y[:, None])


@pytest.mark.parametrize("name", sorted(DATA_FUNCS))
def test_zero_point(name):
    X, y = _good_data()
    X[2] = 0.0
    with pytest.raises(ValueError, match="index 2"):
        DATA_FUNCS[name](X, y)


def _bad_grams():
    G = kperc.gram_matrix(*_good_data())
    nan = G.copy()
    nan[0, 1] = nan[1, 0] = np.nan
    asym = G.copy()
    asym[0, 1] += 1e-3
    diag = G * 2.0
    notpsd = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])
    return {
        "NaN or inf": nan,
        "square": G[:, :3],
        "symmetric": asym,
        "unit diagonal": diag,
        "positive semidefinite": notpsd,
        "empty": np.zeros((0, 0)),
    }


@pytest.mark.parametrize("name", sorted(GRAM_FUNCS))
@pytest.mark.parametrize("problem", sorted(_bad_grams()))
def test_bad_gram(name, problem):
    with pytest.raises(ValueError, match=problem):
        GRAM_FUNCS[name](_bad_grams()[problem])


def test_bad_gram_operator_shape():
    with pytest.raises(ValueError, match="square"):
        kperc.nkp(aslinearoperator(np.ones((3, 2))))


def test_psd_tolerance_accepts_round_off():
    G = kperc.gram_matrix(*_good_data())
    lam, V = np.linalg.eigh(G)
    lam[0] = -1e-12  # round-off sized negative eigenvalue
    G2 = (V * lam) @ V.T
    G2 = 0.5 * (G2 + G2.T)
    np.fill_diagonal(G2, 1.0)
    assert kperc.nkp(G2).success


@pytest.mark.parametrize("value", [0, -1, 0.0, -1e-3, np.nan, np.inf, "1", True])
def test_parameters_must_be_positive(value):
    G = kperc.gram_matrix(*_good_data())
    with pytest.raises(ValueError, match="eps"):
        kperc.nvn(G, eps=value)
    with pytest.raises(ValueError, match="eps"):
        kperc.isnkpvn(G, eps=value)
    with pytest.raises(ValueError, match="delta"):
        kperc.snkpvn(G, None, value)
    with pytest.raises(ValueError, match="gamma"):
        kperc.isnkpvn(G, gamma=value)
    for f in (kperc.nkp, kperc.snkp, kperc.nvn, kperc.snkpvn, kperc.isnkpvn):
        with pytest.raises(ValueError, match="max_iter"):
            f(G, max_iter=value)
    X, y = _good_data()
    for f in (kperc.perceptron, kperc.normalized_perceptron, kperc.von_neumann_linear):
        with pytest.raises(ValueError, match="max_iter"):
            f(X, y, max_iter=value)


@pytest.mark.parametrize("gamma", [1.0, 0.5])
def test_gamma_must_exceed_one(gamma):
    G = kperc.gram_matrix(*_good_data())
    with pytest.raises(ValueError, match="gamma must be > 1"):
        kperc.isnkpvn(G, gamma=gamma)


def test_max_iter_must_be_an_integer():
    G = kperc.gram_matrix(*_good_data())
    with pytest.raises(ValueError, match="integer"):
        kperc.nkp(G, max_iter=2.5)
    assert kperc.nkp(G, max_iter=np.int64(100)).success


@pytest.mark.parametrize(
    "q", [[0.5, 0.5, 0.5, -0.5], [0.2, 0.2, 0.2, 0.2], [1.0, 0.0, 0.0], [np.nan, 0.5, 0.5, 0.0]]
)
def test_q_must_lie_in_the_simplex(q):
    G = kperc.gram_matrix(*_good_data())
    with pytest.raises(ValueError, match="q "):
        kperc.snkpvn(G, np.array(q), 0.1)
    with pytest.raises(ValueError, match="q "):
        kperc.dist_to_witness(kperc.gram_matrix(*infeasible_data()), np.array(q))


def infeasible_data():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    return X, np.ones(4)


def test_inputs_are_never_modified():
    prob = planted_problem(0, n=15, d=3, rho=0.2)
    inf = infeasible_problem(0)
    for p in (prob, inf):
        G = p.gram()
        X, y, G0 = p.X.copy(), p.y.copy(), G.copy()
        q = np.full(len(p.y), 1.0 / len(p.y))
        q0 = q.copy()
        kperc.perceptron(p.X, p.y, max_iter=100)
        kperc.normalized_perceptron(p.X, p.y, max_iter=100)
        kperc.von_neumann_linear(p.X, p.y, max_iter=100)
        kperc.winnow(p.X, p.y, max_iter=100)
        kperc.nkp(G, max_iter=100)
        kperc.snkp(G, max_iter=100)
        kperc.nvn(G, max_iter=100)
        kperc.snkpvn(G, q, 1e-3, max_iter=100)
        kperc.isnkpvn(G, max_iter=100)
        kperc.margin(G)
        kperc.data_margin(p.X, p.y)
        kperc.loss(G, q)
        kperc.smoothed_loss(G, q, 0.1)
        kperc.smoothed_loss_q(G, q, 0.1, q)
        if p is inf:
            kperc.dist_to_witness(G, q)
        np.testing.assert_array_equal(p.X, X)
        np.testing.assert_array_equal(p.y, y)
        np.testing.assert_array_equal(G, G0)
        np.testing.assert_array_equal(q, q0)


def test_running_out_of_iterations_is_an_outcome():
    inf = infeasible_problem(1)
    G = inf.gram()
    for res in (
        kperc.nkp(G, max_iter=7),
        kperc.snkp(G, max_iter=7),
        kperc.perceptron(inf.X, inf.y, max_iter=7),
        kperc.normalized_perceptron(inf.X, inf.y, max_iter=7),
    ):
        assert res.outcome == "max_iter" and res.status == 2 and not res.success
        assert res.nit == 7 and "max_iter" in res.message

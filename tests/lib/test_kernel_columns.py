"""Kernel Gram operator with columns on demand: same iterates as the dense G, no n x n."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from conftest import duplicate_opposite, seeds
from hypothesis import given
from hypothesis import strategies as st

import kperc
from kperc._kernel_columns import KernelGramOperator


def _circle(seed, n):
    """Points of [-1, 1]^2 labelled by a circle, with a gap around it (RBF-separable)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (4 * n, 2))
    X = X[np.abs(np.sum(X**2, axis=1) - 0.5) > 0.1][:n]
    return X, np.where(np.sum(X**2, axis=1) < 0.5, 1.0, -1.0)


KERNELS = {
    "rbf": {"gamma": 3.0},
    "poly": {"degree": 2, "gamma": 1.0, "coef0": 0.5},
    "linear": {},
}


@given(seed=seeds, kernel=st.sampled_from(sorted(KERNELS)), n=st.integers(1, 40))
def test_columns_and_products_match_the_dense_G(seed, kernel, n):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    op = kperc.kernel_gram_operator(X, y, kernel, block_size=7, **KERNELS[kernel])
    G = kperc.gram_matrix(X, y, kernel, **KERNELS[kernel])
    cols = np.column_stack([op.column(j) for j in range(n)])
    np.testing.assert_allclose(cols, G, rtol=0, atol=1e-13)
    assert np.all(np.diag(cols) == 1.0)
    np.testing.assert_array_equal(op.diagonal(), np.ones(n))
    v = rng.standard_normal(n)
    np.testing.assert_allclose(op.matvec(v), G @ v, rtol=0, atol=1e-12 * max(1, np.abs(v).sum()))
    p = np.abs(v) / np.abs(v).sum()
    assert op.seminorm(p) == pytest.approx(np.sqrt(max(p @ G @ p, 0)), abs=1e-7)


@given(seed=seeds)
def test_repeated_point_with_the_other_label_is_an_exact_witness(seed):
    X, y = duplicate_opposite(seed)
    op = kperc.kernel_gram_operator(X, y, gamma=0.5)
    G = kperc.gram_matrix(X, y, "rbf", gamma=0.5)
    for j in (0, X.shape[0] - 1):
        np.testing.assert_array_equal(op.column(j)[[0, -1]], G[j, [0, -1]])
    assert op.column(0)[-1] == -1.0
    # NKP cannot separate and says so, as on the dense G
    assert kperc.nkp(op, max_iter=200).outcome == kperc.nkp(G, max_iter=200).outcome


@given(seed=seeds, kernel=st.sampled_from(["rbf", "poly"]), cache=st.sampled_from([0.0, 200.0]))
def test_nkp_and_nvn_iterates_equal_the_dense_runs(seed, kernel, cache):
    X, y = _circle(seed, 60)
    params = KERNELS[kernel]
    op = kperc.kernel_gram_operator(X, y, kernel, **params)
    G = kperc.gram_matrix(X, y, kernel, **params)
    a = kperc.nkp(op, max_iter=3000, trace=True, cache_size=cache)
    b = kperc.nkp(G, max_iter=3000, trace=True)
    assert (a.outcome, a.nit) == (b.outcome, b.nit)
    np.testing.assert_array_equal(a.alpha, b.alpha)  # alpha = counts / k: same indices j
    assert a.ncol >= len(np.flatnonzero(a.alpha))
    c = kperc.nvn(op, eps=1e-3, max_iter=3000, cache_size=cache)
    d = kperc.nvn(G, eps=1e-3, max_iter=3000)
    assert (c.outcome, c.nit) == (d.outcome, d.nit)
    np.testing.assert_allclose(c.alpha, d.alpha, rtol=0, atol=1e-10)


class _NoProducts(KernelGramOperator):
    """Refuses full products: NKP must get by with columns alone."""

    def _matvec(self, v):
        raise AssertionError("NKP asked for a full product G v")


def test_nkp_never_forms_the_n_by_n_matrix():
    n = 1500
    X, y = _circle(1, n)
    base = kperc.kernel_gram_operator(X, y, gamma=3.0)
    op = _NoProducts(base.X, base.y, "rbf", {"gamma": 3.0}, base.block_size)
    tracemalloc.start()
    try:
        res = kperc.nkp(op, cache_size=1.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.outcome == "separator"
    # n x n floats would be 18 MB; a 1 MB column cache and O(n d) work arrays stay far below
    assert peak < n * n * 8 / 4, peak


def test_nvn_memory_is_blocked():
    n = 1500
    X, y = _circle(2, n)
    op = kperc.kernel_gram_operator(X, y, gamma=3.0, block_size=64)
    tracemalloc.start()
    try:
        res = kperc.nvn(op, eps=1e-2, cache_size=1.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.outcome == "separator"
    assert peak < n * n * 8 / 4, peak


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kernel": "sigmoid"}, "kernel must be one of"),
        ({"block_size": 0}, "block_size must be positive"),
        ({"block_size": 1.5}, "block_size must be a positive integer"),
        ({"gama": 1.0}, r"unknown kernel parameter\(s\) \['gama'\]"),
    ],
)
def test_validation(kwargs, match):
    X, y = _circle(0, 10)
    with pytest.raises(ValueError, match=match):
        kperc.kernel_gram_operator(X, y, **kwargs)


def test_zero_point_is_refused_with_the_linear_kernel():
    X = np.array([[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="K\\(x_i, x_i\\) <= 0"):
        kperc.kernel_gram_operator(X, [1, -1], "linear")


@given(seed=seeds)
def test_smoothed_algorithms_accept_the_operator(seed):
    # SNKP and SNKPVN use full products, computed by row blocks: same run as on dense G.
    X, y = _circle(seed, 50)
    op = kperc.kernel_gram_operator(X, y, gamma=3.0, block_size=8)
    G = kperc.gram_matrix(X, y, "rbf", gamma=3.0)
    for algo in (kperc.snkp, kperc.snkpvn):
        a, b = algo(op, max_iter=2000), algo(G, max_iter=2000)
        assert (a.outcome, a.nit) == (b.outcome, b.nit), algo.__name__
        np.testing.assert_allclose(a.alpha, b.alpha, rtol=0, atol=1e-9)

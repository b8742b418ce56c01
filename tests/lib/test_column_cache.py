"""The LRU column cache of NKP and NVN on a LinearOperator, and NVN's scaled iterate."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import infeasible_problem, planted_problem, seeds
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.linalg import aslinearoperator

import kperc
from kperc import _von_neumann as von_neumann
from kperc._gram import _ColumnCache


def _exact(res_a, res_b):
    """Bit-identical runs: the cache only decides where a column comes from."""
    assert res_a.outcome == res_b.outcome and res_a.nit == res_b.nit
    np.testing.assert_array_equal(res_a.alpha, res_b.alpha)


def test_cache_is_lru_and_counts_misses():
    n = 10
    M = np.arange(n * n, dtype=float).reshape(n, n)
    computed = []

    def compute_into(j, out):
        computed.append(j)
        out[:] = M[j]
        return out

    cache = _ColumnCache(compute_into, n, cache_size=2 * 8 * n / 2**20)  # two columns
    assert cache.capacity == 2
    out = np.empty(n)
    for j in (3, 5, 3, 7, 3, 5):  # 7 evicts 5 (the least recently used), then 5 evicts 7
        np.testing.assert_array_equal(cache.get(j, out), M[j])
    assert computed == [3, 5, 7, 5]
    assert cache.misses == 4


def test_cache_capacity_is_bounded_by_n_and_zero_disables_it():
    calls = []

    def compute_into(j, out):
        calls.append(j)
        out[:] = j
        return out

    assert _ColumnCache(compute_into, 4, cache_size=200.0).capacity == 4
    off = _ColumnCache(compute_into, 4, cache_size=0.0)
    assert off.capacity == 0
    out = np.empty(4)
    for _ in range(3):
        assert off.get(1, out) is out
    assert calls == [1, 1, 1] and off.misses == 3


def test_cache_copies_columns_of_operators_that_allocate():
    """A generic LinearOperator returns new arrays; the cache keeps its own copy."""
    prob = planted_problem(3, n=9, d=3, rho=0.2)
    G = prob.gram()
    lo = aslinearoperator(G)
    res = kperc.nkp(lo)
    assert res.success and 0 < res.ncol <= len(prob.y)
    _exact(res, kperc.nkp(lo, cache_size=0))


@given(seed=seeds, mb=st.sampled_from([0.0, 1e-4, 2e-4, 200.0]))
def test_cached_runs_are_identical_to_uncached(seed, mb):
    prob = planted_problem(seed) if seed % 2 else infeasible_problem(seed)
    op = kperc.gram_operator(prob.X, prob.y)
    for f, kw in ((kperc.nkp, {"max_iter": 3000}), (kperc.nvn, {"eps": 1e-3})):
        off = f(op, cache_size=0, **kw)
        on = f(op, cache_size=mb, **kw)
        _exact(off, on)
        assert off.ncol == off.nit  # one fresh column per update without a cache
        assert on.ncol <= on.nit
        if mb == 200.0:  # everything fits: each distinct column is computed once
            assert on.ncol <= len(prob.y)


def test_dense_gram_computes_no_columns():
    prob = planted_problem(1)
    G = prob.gram()
    assert kperc.nkp(G).ncol == 0
    assert kperc.nvn(G).ncol == 0


@pytest.mark.parametrize("value", [-1.0, float("nan"), float("inf"), True, "200"])
def test_cache_size_is_validated(value):
    prob = planted_problem(0)
    G = prob.gram()
    for f in (kperc.nkp, kperc.nvn):
        with pytest.raises(ValueError, match="cache_size"):
            f(G, cache_size=value)


@given(seed=seeds)
def test_nvn_scale_folding_does_not_change_the_run(seed):
    """Folding the scale c of ``p = c * pt`` back every step gives the same run."""
    prob = (planted_problem, infeasible_problem)[seed % 2](seed)
    G = prob.gram()
    ref = kperc.nvn(G, eps=1e-3, trace=True)
    old = von_neumann._MIN_SCALE
    von_neumann._MIN_SCALE = 2.0  # every step takes the folding branch
    try:
        folded = kperc.nvn(G, eps=1e-3, trace=True)
    finally:
        von_neumann._MIN_SCALE = old
    assert ref.outcome == folded.outcome and ref.nit == folded.nit
    np.testing.assert_array_equal(ref.trace["j"], folded.trace["j"])
    np.testing.assert_allclose(ref.p, folded.p, atol=1e-12)
    np.testing.assert_allclose(ref.trace["norm_w"], folded.trace["norm_w"], atol=1e-12)


@given(seed=seeds)
def test_nvn_maintained_norm_matches_a_fresh_product(seed):
    """``s`` follows its recurrence; it stays equal to ``p^T G p`` of the iterate."""
    prob = infeasible_problem(seed)
    G = prob.gram()
    for k in (1, 5, 40):
        res = kperc.nvn(G, eps=1e-8, max_iter=k, trace=True)
        p = res.p
        assert abs(res.trace["norm_w"][-1] ** 2 - p @ G @ p) <= 1e-12

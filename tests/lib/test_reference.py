"""The fast loops of the kernel algorithms iterate exactly as :mod:`kperc.reference`."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import kperc
import kperc.reference as ref
from kperc.datasets import Dataset, planted


def _problem() -> Dataset:
    # the problem of the benchmark's per-iteration suite (benchmarks._problems.periter_problem):
    # planted margin 1e-6, so that no algorithm halts within the iterations compared
    return planted(120, 6, 1e-6, near=0.5, near_width=1.0, seed=4)


@pytest.mark.parametrize("factored", [False, True])
def test_fast_loops_are_bit_identical_to_the_textbook_form(factored):
    X, y = _problem()
    G = kperc.gram_matrix(X, y)
    GG = kperc.gram_operator(X, y) if factored else G
    Gref = GG.toarray() if factored else G
    mv = (lambda v: GG.Z @ (GG.Z.T @ v)) if factored else (lambda v: G @ v)

    class _Ref:  # the textbook loops with the same products as the operator
        shape = Gref.shape

        def __matmul__(self, v):
            return mv(v)

        def __getitem__(self, idx):
            return Gref[idx] if not factored else GG.column(idx[1])

    iters = 300
    a, p = ref.snkp(_Ref(), iters)
    r = kperc.snkp(GG, max_iter=iters, check_input=False)
    assert r.nit == iters and np.array_equal(r.alpha, a) and np.array_equal(r.p, p)
    a, p = ref.snkpvn(_Ref(), iters)
    r = kperc.snkpvn(GG, delta=1e-9, max_iter=iters, check_input=False)
    assert r.nit == iters and np.array_equal(r.alpha, a) and np.array_equal(r.p, p)
    r = kperc.nkp(GG, max_iter=iters, check_input=False)
    assert r.nit == iters and np.array_equal(r.alpha, ref.nkp(_Ref(), iters)[0])
    # NVN keeps its iterate scaled (p = c pt) and ||w||^2 by its recurrence: the
    # same steps, equal up to round-off rather than bit for bit.
    # eps only keeps the certificate exit from firing; 1e-9 is below what can be
    # certified for this G (n = 120), which nvn now refuses
    r = kperc.nvn(GG, eps=1e-8, primal_exit=False, max_iter=iters, check_input=False, trace=True)
    p, js = ref.nvn(_Ref(), iters)
    assert list(r.trace["j"][:-1]) == js
    np.testing.assert_allclose(r.p, p, rtol=0, atol=1e-13)


def test_snkpvn_with_a_prox_centre_is_bit_identical():
    X, y = _problem()
    G = kperc.gram_matrix(X, y)
    q = np.random.default_rng(0).dirichlet(np.ones(G.shape[0]))
    a, p = ref.snkpvn(G, 200, q)
    r = kperc.snkpvn(G, q, delta=1e-9, max_iter=200, check_input=False)
    assert r.nit == 200 and np.array_equal(r.alpha, a) and np.array_equal(r.p, p)


def test_zero_iterations_give_the_starting_points():
    X, y = _problem()
    G = kperc.gram_matrix(X, y)
    n = G.shape[0]
    alpha, chosen = ref.nkp(G, 0)
    assert chosen == [] and np.array_equal(alpha, np.zeros(n))
    p, chosen = ref.nvn(G, 0)
    assert chosen == [] and np.array_equal(p, np.full(n, 1.0 / n))
    alpha, p = ref.snkp(G, 0)
    assert np.array_equal(alpha, np.full(n, 1.0 / n))
    assert np.array_equal(p, kperc.entropy_prox(G @ alpha, 2.0))
    q = np.eye(n)[3]
    alpha, p = ref.snkpvn(G, 0, q)
    assert np.array_equal(alpha, q) and np.array_equal(p, kperc.euclidean_prox(G @ q, 2.0 * n, q))


@pytest.mark.parametrize("func", [ref.nkp, ref.snkp, ref.nvn, ref.snkpvn])
@pytest.mark.parametrize("n_iter", [-1, 2.5, True, "3"])
def test_n_iter_must_be_a_nonnegative_integer(func, n_iter):
    with pytest.raises(ValueError, match="n_iter"):
        func(np.eye(3), n_iter)


def test_the_module_loads_on_first_use():
    code = (
        "import sys, kperc; assert 'kperc.reference' not in sys.modules; "
        "assert kperc.reference.__all__ == ['nkp', 'snkp', 'nvn', 'snkpvn']"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

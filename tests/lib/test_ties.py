"""The tie rule of the "most violated point" choices (kperc._ties).

Equal margins in exact arithmetic must not be ordered by rounding: the halting indices
must be those of exact arithmetic, whatever the BLAS kernel or thread count.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kperc
from kperc._ties import U, first_min_index

pytestmark = pytest.mark.blas  # make test runs these under other BLAS kernels too


def _pm_one_points(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Points in {-1, +1}^d labelled by a 3-sparse majority: many exactly equal margins."""
    rng = np.random.default_rng(seed)
    X = rng.choice([-1.0, 1.0], size=(n, d))
    y = np.sign(X[:, :3].sum(axis=1))
    return X, y


def _exact_normalized_perceptron(X: np.ndarray, y: np.ndarray, max_iter: int = 10_000) -> int:
    """Algorithm 2 in rational arithmetic on the stored doubles: the exact halting index.

    Most violated point, exact ties to the first index (the rule of kperc._ties without
    rounding to blur the ties).
    """
    norms = np.linalg.norm(X, axis=1)
    Z = [[Fraction(float(v)) for v in row] for row in X * y[:, None] / norms[:, None]]
    u = [Fraction(0)] * X.shape[1]
    for k in range(max_iter + 1):
        m = [sum(a * b for a, b in zip(z, u, strict=True)) for z in Z]
        if min(m) > 0:
            return k
        j = m.index(min(m))
        u = [a + b for a, b in zip(u, Z[j], strict=True)]
    raise AssertionError("no separator within max_iter")


@given(
    values=st.lists(st.integers(-5, 5), min_size=1, max_size=30),
    noise_seed=st.integers(0, 2**32 - 1),
)
def test_choice_ignores_rounding_noise(values, noise_seed):
    """Perturbing margins by rounding-sized noise never changes the chosen index."""
    m = np.array(values, dtype=float)
    err = 64 * U * (float(np.abs(m).max()) or 1.0)
    j = first_min_index(m, err)
    # the exact rule: the first index of the smallest value
    assert j == int(np.flatnonzero(m == m.min())[0])
    rng = np.random.default_rng(noise_seed)
    noisy = m + rng.uniform(-1, 1, m.size) * err
    assert first_min_index(noisy, err) == j


def test_real_differences_are_not_ties():
    """A gap above twice the error bound is real; within it, the first index wins."""
    assert first_min_index(np.array([1.0, 4.5 * U, 0.0]), U) == 2
    assert first_min_index(np.array([1.0, 2.0 * U, 0.0]), U) == 1
    assert first_min_index(np.array([2**-28, 0.0]), U) == 1  # below 2^-26, above rounding


@pytest.mark.parametrize("d,seed", [(8, 0), (8, 1), (16, 0), (16, 2)])
def test_normalized_perceptron_has_the_exact_halting_index(d, seed):
    X, y = _pm_one_points(4 * d, d, seed)
    res = kperc.normalized_perceptron(X, y)
    assert res.outcome == "separator"
    assert res.nit == _exact_normalized_perceptron(X, y)


@pytest.mark.parametrize("d", [16, 32])
def test_runs_do_not_depend_on_the_order_of_the_sums(d):
    """Summing in another order (another BLAS kernel) gives the same runs.

    The columns are permuted, which changes the order of every dot product but no exact
    margin: the halting indices of NP, NKP, Winnow and Von Neumann must not move.
    """
    X, y = _pm_one_points(4 * d, d, 3)
    perm = np.random.default_rng(0).permutation(d)
    for Xs in (X, X[:, perm]):
        G = kperc.gram_matrix(Xs, y)
        runs = (
            kperc.normalized_perceptron(Xs, y).nit,
            kperc.nkp(G).nit,
            kperc.winnow(Xs, y, eta=0.2).nit,
        )
        if Xs is X:
            first = runs
        else:
            assert runs == first


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernel_and_linear_forms_break_ties_alike(seed):
    """NKP = Normalised Perceptron and NVN = linear Von Neumann step by step, ties included.

    On +-1 data many margins are equal; both forms must count the same margins as tied
    (the same tie width, relative to ||w||) or their runs part ways.
    """
    rng = np.random.default_rng(seed)
    X = rng.choice([-1.0, 1.0], size=(48, 8))
    y_sep = np.sign(X[:, :3].sum(axis=1))
    G = kperc.gram_matrix(X, y_sep)
    assert kperc.nkp(G).nit == kperc.normalized_perceptron(X, y_sep).nit
    y_any = rng.choice([-1.0, 1.0], size=48)  # random labels: inseparable
    kernel = kperc.nvn(kperc.gram_matrix(X, y_any), eps=1e-3)
    linear = kperc.von_neumann_linear(X, y_any, eps=1e-3)
    assert (kernel.outcome, kernel.nit) == (linear.outcome, linear.nit)
    np.testing.assert_allclose(kernel.p, linear.p, atol=1e-9)


@pytest.mark.parametrize("d,rho,seed", [(3, -0.1, 2), (4, -0.03, 0)])
def test_von_neumann_forms_agree_on_near_ties(d, rho, seed):
    """Two runs where margins differ by less than 2^-26 but more than 2^-26 ||w||.

    A tie width relative to 1 in the kernel form and to ||w|| in the linear form once made
    the forms choose different points here. Each form's width now bounds its own
    rounding, so they can part only on gaps that rounding cannot decide.
    """
    ds = kperc.datasets.infeasible(40, d, rho, seed=seed)
    X, y = ds.X, ds.y
    kernel = kperc.nvn(kperc.gram_matrix(X, y), eps=1e-3)
    linear = kperc.von_neumann_linear(X, y, eps=1e-3)
    assert (kernel.outcome, kernel.nit) == (linear.outcome, linear.nit)
    np.testing.assert_allclose(kernel.p, linear.p, atol=1e-9)

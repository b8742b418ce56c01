"""The "most violated point" choices against exact arithmetic (kperc._ties).

Each algorithm is replayed in exact rational arithmetic on the doubles it was given (the
stored ``G``, or the stored rows), with the paper's rule: the smallest exact margin,
first index on exact ties. The float runs must make the same choices on instances with
exact ties (duplicated points, +-1 data), with real gaps far below ``2^-26`` of the scale
but far above rounding, and on ordinary random instances.
"""

from __future__ import annotations

import numpy as np
import pytest

import kperc
import kperc.reference as ref

pytestmark = pytest.mark.blas  # make test runs these under other BLAS kernels too

GAP = 1e-12  # a real gap: far above rounding (1e-16), far below 2^-26 (1.5e-8)


def _ints(A: np.ndarray) -> list[list[int]]:
    """The entries of ``A`` as integers, all scaled by one power of two (exact)."""
    ratios = [float(v).as_integer_ratio() for v in A.ravel()]
    shift = max(den for _, den in ratios).bit_length() - 1
    flat = [num * ((1 << shift) // den) for num, den in ratios]
    cols = A.shape[1]
    return [flat[i * cols : (i + 1) * cols] for i in range(A.shape[0])]


def _first_min(m: list) -> int:
    return m.index(min(m))


def _exact_counts_run(M: list[list[int]], n_iter: int) -> list[int]:
    """Chosen points of ``u <- u + e_j``, ``j`` the first smallest exact ``(M u)_j``."""
    m = [0] * len(M)
    chosen = []
    for _ in range(n_iter):
        j = _first_min(m)
        chosen.append(j)
        m = [a + b for a, b in zip(m, M[j], strict=True)]  # M symmetric: column j = row j
    return chosen


def _exact_perceptron(Z: np.ndarray, max_iter: int) -> int:
    """Halting index of ``u <- u + z_j`` in exact integer arithmetic on the rows of ``Z``."""
    Zi = _ints(Z)
    M = [[sum(a * b for a, b in zip(zi, zj, strict=True)) for zj in Zi] for zi in Zi]
    m = [0] * len(M)
    for k in range(max_iter + 1):
        if min(m) > 0:
            return k
        m = [a + b for a, b in zip(m, M[_first_min(m)], strict=True)]
    raise AssertionError("no separator within max_iter")


def _exact_first_min(Gi: list[list[int]], p: np.ndarray) -> int:
    """First index of the smallest exact ``(G p)_i`` (``Gi`` = ``G`` as scaled integers)."""
    pi = _ints(p[None, :])[0]
    return _first_min([sum(a * b for a, b in zip(row, pi, strict=True)) for row in Gi])


def _gap_points() -> tuple[np.ndarray, np.ndarray]:
    """Three unit points: after the first update on point 0, the margins of points 1 and 2
    are ``-1/2 + GAP`` and ``-1/2``, so the paper's rule picks 2 and a tie rule of width
    ``2^-26`` picks 1."""
    c = -0.5 + GAP
    b = np.sqrt(0.75) / 3
    X = np.array([[1.0, 0.0, 0.0], [c, np.sqrt(1 - c * c), 0.0], [-0.5, -b, np.sqrt(0.75 - b * b)]])
    return X, np.ones(3)


def _cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Small instances with exact ties, a near-tie above rounding, and none in particular.

    Rows of +-1 in 16 dimensions (norm 4) and rows with four entries +-1 in 8 dimensions
    (norm 2) normalise exactly, and their products are exact, so the stored ``G`` is the
    exact one of the data and its exact ties are those of the data. On the other two the
    gaps that decide are far above the rounding of ``G``.
    """
    rng = np.random.default_rng(7)
    w = 2.0 ** -np.arange(16)  # x^T w != 0 for x != 0 with entries in {0, +-1}
    pm = rng.choice([-1.0, 1.0], size=(40, 16))
    sparse = np.zeros((40, 8))
    for row in sparse:
        row[rng.choice(8, size=4, replace=False)] = rng.choice([-1.0, 1.0], size=4)
    dup = np.vstack([pm[:20], pm[:12]])  # duplicated points: exact ties
    Xr, yr = kperc.datasets.planted(30, 4, rho=0.02, seed=3)
    X3, y3 = _gap_points()
    return [
        ("pm-one", pm, np.sign(pm @ w)),
        ("sparse", sparse, np.sign(sparse @ w[:8])),
        ("duplicated", dup, np.sign(dup @ w)),
        ("gap", X3, y3),
        ("planted", Xr, yr),
    ]


CASES = _cases()
IDS = [name for name, _, _ in CASES]


def test_gap_case_has_the_gap():
    X, _ = _gap_points()
    G = X @ X.T
    assert G[1, 0] - G[2, 0] == pytest.approx(GAP, rel=1e-3)


@pytest.mark.parametrize("name,X,y", CASES, ids=IDS)
def test_nkp_chooses_as_exact_arithmetic(name, X, y):
    G = kperc.gram_matrix(X, y)
    n_iter = 400
    exact = _exact_counts_run(_ints(G), n_iter)
    alpha, chosen = ref.nkp(G, n_iter)
    assert chosen == exact
    iterates = []  # alpha_k = counts / k: the update k -> k + 1 is the count that grew
    r = kperc.nkp(G, halt=False, max_iter=n_iter, callback=lambda res: iterates.append(res.alpha))
    counts = [np.rint(a * k) for k, a in enumerate([*iterates, r.alpha])]
    assert [int(np.argmax(b - a)) for a, b in zip(counts[:-1], counts[1:], strict=True)] == exact
    assert np.array_equal(r.alpha, alpha)


@pytest.mark.parametrize("name,X,y", CASES, ids=IDS)
def test_perceptrons_halt_as_exact_arithmetic(name, X, y):
    # the Perceptron sums the raw rows y_i x_i; the Normalised Perceptron the rows it
    # normalised, which are what its exact replay uses
    Z_raw = X * y[:, None]
    Z_np = Z_raw / np.linalg.norm(X, axis=1)[:, None]
    r = kperc.perceptron(X, y, max_iter=20_000)
    assert r.outcome == "separator"
    assert r.nit == _exact_perceptron(Z_raw, 20_000)
    r = kperc.normalized_perceptron(X, y, max_iter=20_000)
    assert r.nit == _exact_perceptron(Z_np, 20_000)


@pytest.mark.parametrize("name,X,y", CASES, ids=IDS)
def test_von_neumann_chooses_as_exact_arithmetic(name, X, y):
    """Each step of both forms picks the first smallest exact margin of its iterate.

    Von Neumann's steps ``theta`` are rationals whose length doubles at each step, so
    the whole run is not replayed exactly; instead each iterate ``p_k`` (as stored) is
    checked: the point chosen is the first smallest of the exact ``G p_k``. A third of
    the labels are flipped, so that the run does not stop at once.
    """
    y_any = np.where(np.arange(X.shape[0]) % 3 == 0, -y, y)
    G = kperc.gram_matrix(X, y_any)
    Gi = _ints(G)
    n_iter = 150
    for run in (kperc.nvn, kperc.von_neumann_linear):
        iterates = []
        args = (G,) if run is kperc.nvn else (X, y_any)
        r = run(
            *args,
            eps=1e-6,
            primal_exit=False,
            max_iter=n_iter,
            trace=True,
            callback=lambda res, it=iterates: it.append(res.p),
        )
        chosen = list(r.trace["j"][: len(iterates)])
        assert len(chosen) > 20
        assert chosen == [_exact_first_min(Gi, p) for p in iterates]


def test_a_real_gap_below_the_old_tie_width_is_not_a_tie():
    """The second choice on the gap instance is point 2, as in exact arithmetic."""
    X, y = _gap_points()
    G = kperc.gram_matrix(X, y)
    assert ref.nkp(G, 2)[1] == [0, 2]
    r = kperc.normalized_perceptron(X, y, max_iter=2, trace=True)
    assert list(r.trace["j"][:2]) == [0, 2]
    r = kperc.perceptron(X, y, max_iter=2, trace=True)
    assert list(r.trace["j"][:2]) == [0, 2]

"""kperc on arrays of other array-API namespaces (kperc._device): torch on the CPU proves
the decisions, array-api-strict that only the standard is used."""

import subprocess
import sys

import numpy as np
import pytest

import kperc
from kperc.datasets import circles, infeasible, planted, planted_rbf

torch = pytest.importorskip("torch")
xps = pytest.importorskip("array_api_strict")

ALGORITHMS = {
    "nkp": kperc.nkp,
    "snkp": kperc.snkp,
    "nvn": kperc.nvn,
    "snkpvn": kperc.snkpvn,
    "isnkpvn": kperc.isnkpvn,
}


def _problems():
    yield "planted", planted(120, 3, rho=0.05, seed=1), "linear", {}
    yield "planted-2", planted(80, 5, rho=0.1, seed=2), "linear", {}
    yield "infeasible", infeasible(60, 2, rho=-0.2, seed=0), "linear", {}
    yield "rbf", planted_rbf(150, 2, rho=0.05, seed=3), "rbf", {"gamma": 2.0}
    yield "circles", circles(100, seed=4), "rbf", {"gamma": 2.0}


PROBLEMS = list(_problems())
MAX_ITER = 3000  # the infeasible problem's primal methods stop there


def test_import_kperc_imports_neither_torch_nor_compat():
    code = "import sys, kperc; print('torch' in sys.modules, 'array_api_compat' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def _as_given(X, y, kernel, params):
    # a copy: a matrix taken as given on both sides (the same certification bound)
    return np.array(kperc.gram_matrix(X, y, kernel, **params))


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("problem", PROBLEMS, ids=[p[0] for p in PROBLEMS])
def test_torch_decisions_equal_numpy(name, problem):
    _, (X, y), kernel, params = problem
    G = _as_given(X, y, kernel, params)
    ref = ALGORITHMS[name](G, max_iter=MAX_ITER)
    res = ALGORITHMS[name](torch.asarray(G), max_iter=MAX_ITER)
    assert (res.nit, res.outcome) == (ref.nit, ref.outcome)
    assert isinstance(res.alpha, torch.Tensor) and res.alpha.dtype == torch.float64
    if name == "nkp":  # the same choices: the same counts, so the same alpha bytes
        assert np.array_equal(res.alpha.numpy(), ref.alpha)


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("problem", PROBLEMS[:4], ids=[p[0] for p in PROBLEMS[:4]])
def test_array_api_strict_decisions_equal_numpy(name, problem):
    _, (X, y), kernel, params = problem
    G = _as_given(X, y, kernel, params)
    ref = ALGORITHMS[name](G, max_iter=MAX_ITER)
    res = ALGORITHMS[name](xps.asarray(G), max_iter=MAX_ITER)
    assert (res.nit, res.outcome) == (ref.nit, ref.outcome)
    assert type(res.alpha) is type(xps.asarray(G))


@pytest.mark.parametrize("problem", PROBLEMS, ids=[p[0] for p in PROBLEMS])
@pytest.mark.parametrize("lib", ["torch", "strict"])
def test_gram_matrix_on_device_within_its_bound(problem, lib):
    _, (X, y), kernel, params = problem
    Xd = torch.asarray(X) if lib == "torch" else xps.asarray(X)
    Gd = kperc.gram_matrix(Xd, y, kernel, **params)
    G = kperc.gram_matrix(X, y, kernel, **params)
    Gh = Gd.numpy() if lib == "torch" else np.from_dlpack(Gd)
    assert np.array_equal(np.diag(Gh), np.ones(len(y)))
    # both are within their construction bound of the exact matrix: 1e-14 covers both
    assert np.max(np.abs(Gh - G)) <= 1e-14


@pytest.mark.parametrize("problem", PROBLEMS, ids=[p[0] for p in PROBLEMS])
def test_device_gram_from_data_same_decisions(problem):
    _, (X, y), kernel, params = problem
    ref = kperc.snkp(kperc.gram_matrix(X, y, kernel, **params))
    res = kperc.snkp(kperc.gram_matrix(torch.asarray(X), torch.asarray(y), kernel, **params))
    assert (res.nit, res.outcome) == (ref.nit, ref.outcome)


@pytest.mark.parametrize("lib", ["torch", "strict"])
@pytest.mark.parametrize("block_size", [None, 37])
@pytest.mark.parametrize("problem", [PROBLEMS[0], PROBLEMS[3]], ids=["linear", "rbf"])
def test_on_the_fly_operator_on_device(problem, block_size, lib):
    _, (X, y), kernel, params = problem
    ref_snkp = kperc.snkp(kperc.gram_matrix(X, y, kernel, **params))
    ref_nkp = kperc.nkp(kperc.kernel_gram_operator(X, y, kernel, **params))
    asarray = torch.asarray if lib == "torch" else xps.asarray
    op = kperc.kernel_gram_operator(asarray(X), asarray(y), kernel, block_size=block_size, **params)
    assert op.block_size == (block_size or len(y))  # 256 MB holds every row here
    res = kperc.snkp(op)
    assert (res.nit, res.outcome) == (ref_snkp.nit, ref_snkp.outcome)
    res = kperc.nkp(op)
    assert (res.nit, res.outcome) == (ref_nkp.nit, ref_nkp.outcome)
    assert res.ncol > 0


def _nearly_antiparallel(delta):
    """Two points whose signed directions are nearly opposite: the exact margin is about
    ``delta^2``, far above float64's rounding, below float32's."""
    X = np.array([[1.0, delta], [1.0, -delta]])
    return X, np.array([1.0, -1.0])


@pytest.mark.parametrize("name", ["nkp", "snkp"])
def test_float32_cannot_decide_says_undecided(name):
    X, y = _nearly_antiparallel(3e-4)
    ref = ALGORITHMS[name](kperc.gram_matrix(X, y))
    assert ref.outcome == "separator"  # float64 decides
    G32 = kperc.gram_matrix(torch.asarray(X, dtype=torch.float32), torch.asarray(y))
    res = ALGORITHMS[name](G32, max_iter=200)
    assert res.outcome == "undecided" and not res.success
    assert "float64" in res.message


@pytest.mark.parametrize("delta", [3e-3, 1e-2])
def test_float32_snkpvn_claims_only_what_holds(delta):
    # the margin (3e-4) is below delta: a certificate ||p||_G* < delta is true as well
    X, y = _nearly_antiparallel(3e-4)
    G32 = kperc.gram_matrix(torch.asarray(X, dtype=torch.float32), torch.asarray(y))
    res = kperc.snkpvn(G32, delta=delta, max_iter=200)
    assert res.outcome in ("certificate", "undecided")
    if res.outcome == "certificate":
        G = kperc.gram_matrix(X.astype(np.float32).astype(np.float64), y)
        assert kperc.g_seminorm(G, res.p.numpy()) < delta


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_float32_separators_hold_for_the_data(seed):
    X, y = planted_rbf(200, 2, rho=0.05, seed=seed)
    X32 = torch.asarray(X, dtype=torch.float32)
    res = kperc.snkp(kperc.gram_matrix(X32, torch.asarray(y), "rbf", gamma=2.0))
    assert res.outcome == "separator"
    # the exact Gram matrix of the float32 data, to float64 accuracy
    G = kperc.gram_matrix(X32.numpy().astype(np.float64), y, "rbf", gamma=2.0)
    assert float((G @ res.alpha.numpy()).min()) > 0
    op = kperc.kernel_gram_operator(X32, torch.asarray(y), "rbf", gamma=2.0)
    res = kperc.snkp(op)
    assert res.outcome == "separator" and float((G @ res.alpha.numpy()).min()) > 0


def test_device_errors_name_the_parameter():
    X, y = planted(20, 2, rho=0.1, seed=0)
    with pytest.raises(ValueError, match="kernel='poly'"):
        kperc.gram_matrix(torch.asarray(X), y, "poly")
    with pytest.raises(ValueError, match="gamma"):
        kperc.gram_matrix(torch.asarray(X), y, "rbf", gamma=-1.0)
    with pytest.raises(ValueError, match="labels|y"):
        kperc.gram_matrix(torch.asarray(X), np.zeros(20))
    with pytest.raises(ValueError, match="square"):
        kperc.snkp(torch.ones(3, 2, dtype=torch.float64))
    with pytest.raises(ValueError, match="symmetric"):
        kperc.snkp(torch.asarray(np.array([[1.0, 0.5], [0.0, 1.0]])))


def test_provenance_lives_with_the_array():
    from kperc import _device

    X, y = planted(30, 2, rho=0.1, seed=0)
    G = kperc.gram_matrix(torch.asarray(X), torch.asarray(y))
    key = id(G)
    assert _device._PROVENANCE[key] > 0  # the construction error, for the data
    del G
    assert key not in _device._PROVENANCE

"""The benchopt benchmark ``benchmark_kperc/``: its objective, datasets and solvers, and
``benchopt run`` and ``benchopt test`` on it (serial, ``-j 2``, a local Dask cluster and a
dataset file written outside the benchmark).

Every run works on a copy of the benchmark in a temporary folder, with ``--no-cache`` and
an explicit ``--output``, so that no cache, result or report lands in the checkout. The
runs are tiny: these tests check behaviour, not timings.
"""

from __future__ import annotations

import inspect
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import numpy as np
import pandas as pd
import pytest
import yaml

import kperc
from kperc import datasets as gen
from kperc_book import data as book_data
from kperc_book import paths

benchopt = pytest.importorskip("benchopt")
from benchopt.benchmark import Benchmark  # noqa: E402

BENCH = paths.ROOT / "benchmark_kperc"
#: The committed results of the book's grid (``make benchopt``).
BOOK_RESULTS = paths.ROOT / "book" / "_generated" / "benchopt" / "book.parquet"
#: Unit round-off of float64.
U = float(np.finfo(np.float64).eps) / 2
KPERC = [
    "kperc-perceptron",
    "kperc-normalized-perceptron",
    "kperc-nkp",
    "kperc-snkp",
    "kperc-isnkpvn",
]
SKLEARN_LINEAR = [
    "sklearn-perceptron",
    "sklearn-linearsvc",
    "sklearn-logisticregression",
    "sklearn-sgdclassifier",
]
SOLVERS = KPERC + SKLEARN_LINEAR + ["sklearn-svc"]
#: The solvers that take a kernel (the others are linear models).
KERNEL_SOLVERS = ["kperc-nkp", "kperc-snkp", "kperc-isnkpvn", "sklearn-svc"]


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory) -> Path:
    """A copy of the benchmark: benchopt writes its cache and outputs next to it."""
    dest = tmp_path_factory.mktemp("bench") / "benchmark_kperc"
    shutil.copytree(BENCH, dest, ignore=shutil.ignore_patterns("__cache__", "outputs"))
    return dest


@pytest.fixture(scope="module")
def bench(bench_dir) -> Benchmark:
    return Benchmark(bench_dir)


@pytest.fixture
def objective(bench):
    return bench.get_benchmark_objective().get_instance()


def _dataset(bench, name: str, **params):
    (cls,) = [d for d in bench.get_datasets() if d.name == name]
    return cls.get_instance(**params)


def _env() -> dict[str, str]:
    """The environment of a benchopt command: this interpreter's scripts first on PATH
    (``benchopt test`` calls ``pytest`` by name), this checkout on PYTHONPATH, and no
    pytest-benchmark plugin."""
    env = dict(os.environ)
    # pytest-benchmark (the micro-benchmarks' tool) defines a fixture named `benchmark`
    # too, which hides benchopt's own in `benchopt test`: keep that plugin out
    env["PYTEST_ADDOPTS"] = " ".join([env.get("PYTEST_ADDOPTS", ""), "-p no:benchmark"]).strip()
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    roots = [str(paths.ROOT), str(paths.ROOT / "book-tools")]
    env["PYTHONPATH"] = os.pathsep.join(roots + [env.get("PYTHONPATH", "")])
    return env


def _benchopt(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "benchopt", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return proc


def _run(bench_dir: Path, out: Path, *args: str) -> tuple[pd.DataFrame, str]:
    """``benchopt run`` on the copy: its results (read back from ``out``) and its output."""
    proc = _benchopt(
        "run",
        str(bench_dir),
        "--no-plot",
        "--no-cache",
        "--timeout",
        "60",
        "--output",
        str(out),
        *args,
        cwd=out.parent,
    )
    return pd.read_parquet(out), proc.stdout


def _final(df: pd.DataFrame) -> pd.DataFrame:
    """The last point of each curve (solver and dataset), in the order of the curve."""
    df = df.assign(solver=df["solver_name"].str.split("[", regex=False).str[0])
    return df.groupby(["solver", "dataset_name"], sort=True).tail(1).set_index("solver")


# --------------------------------------------------------------------------- objective


def test_objective_certifies_a_planted_separator_and_its_margin(bench, objective):
    ds = gen.planted(60, 4, 0.1, seed=0)
    objective.set_data(ds.X, ds.y, "linear", {})
    res = objective.evaluate_result(w=ds.info["w_star"])
    assert res["separated"] == 1 and res["fraction_separated"] == 1.0
    # the margin of w* is the planted rho up to the rounding of the data and of the margin
    # itself (a few d u), and no larger than the certified margin of the data
    tol = 8 * (4 + 2) * U
    lo, hi = ds.info["rho_bounds"]
    assert 0.1 - tol <= res["min_margin"] <= hi + tol


def test_objective_on_kperc_dual_weights_matches_g_alpha(objective):
    ds = gen.planted_rbf(80, 2, 0.05, gamma=2.0, seed=1)
    G = kperc.gram_matrix(ds.X, ds.y, "rbf", gamma=2.0)
    res = kperc.snkp(G)
    assert res.outcome == "separator"
    objective.set_data(ds.X, ds.y, "rbf", {"gamma": 2.0})
    out = objective.evaluate_result(alpha=res.alpha)
    Ga = G @ res.alpha
    direct = float(Ga.min() / np.sqrt(res.alpha @ Ga))
    assert out["separated"] == 1
    # two evaluations of sums of n terms of size <= 1 (kernel values, alpha in the simplex)
    assert abs(out["min_margin"] - direct) <= 4 * len(ds.y) * U / direct
    assert out["min_margin"] <= kperc.margin(G) + 4 * len(ds.y) * U


def test_objective_same_answer_as_alpha_or_as_w_on_the_linear_kernel(objective):
    ds = gen.planted(50, 3, 0.1, seed=2)
    res = kperc.snkp(kperc.gram_matrix(ds.X, ds.y))
    objective.set_data(ds.X, ds.y, "linear", {})
    by_alpha = objective.evaluate_result(alpha=res.alpha)
    Z = ds.X * (ds.y / np.linalg.norm(ds.X, axis=1))[:, None]
    by_w = objective.evaluate_result(w=Z.T @ res.alpha)
    assert by_alpha["separated"] == by_w["separated"] == 1
    assert abs(by_alpha["min_margin"] - by_w["min_margin"]) <= 8 * (3 + 2) * U


def test_objective_never_separates_an_inseparable_problem(objective):
    ds = gen.infeasible(12, 2, -0.3, seed=0)
    rho = ds.info["rho"]  # the exact (negative) margin: no answer does better
    objective.set_data(ds.X, ds.y, "linear", {})
    rng = np.random.default_rng(0)
    answers = [dict(alpha=np.full(12, 1 / 12)), dict(alpha=kperc.isnkpvn(ds.gram()).alpha)]
    answers += [dict(w=rng.standard_normal(2)) for _ in range(20)]
    for answer in answers:
        out = objective.evaluate_result(**answer)
        assert out["separated"] == 0 and out["fraction_separated"] < 1
        assert out["min_margin"] <= rho + 8 * U


def test_objective_a_value_within_rounding_of_zero_is_not_separated(objective):
    # y <x, w> = 2^-52 > 0 exactly, but below the rounding bound of a 2-term sum: undecided
    X = np.array([[1.0, -1.0 + 2.0**-52], [1.0, 1.0]])
    y = np.array([1.0, 1.0])
    objective.set_data(X, y, "linear", {})
    out = objective.evaluate_result(w=np.array([1.0, 1.0]))
    assert out["separated"] == 0 and out["fraction_separated"] == 0.5
    out = objective.evaluate_result(w=np.array([1.0, 0.0]))  # clearly positive on both
    assert out["separated"] == 1


def test_objective_intercept_counts_in_the_decision(objective):
    X = np.array([[1.0], [2.0]])
    y = np.array([-1.0, 1.0])
    objective.set_data(X, y, "linear", {})
    assert objective.evaluate_result(w=np.array([1.0]))["separated"] == 0
    assert objective.evaluate_result(w=np.array([1.0]), intercept=-1.5)["separated"] == 1
    objective.set_data(X, y, "rbf", {"gamma": 1.0})
    alpha = np.array([0.0, 1.0])  # f(x) = K(x, x_2): 1 at x_2, e^-1 at x_1
    assert objective.evaluate_result(alpha=alpha)["separated"] == 0
    assert objective.evaluate_result(alpha=alpha, intercept=-0.5)["separated"] == 1


@pytest.mark.parametrize(
    "algorithm, kernel",
    [(a, "linear") for a in ("perceptron", "normalized_perceptron", "nkp", "snkp", "isnkpvn")]
    + [(a, "rbf") for a in ("nkp", "snkp", "isnkpvn")],
)
def test_objective_agrees_with_kperc_certified_separators(objective, algorithm, kernel):
    """Whatever kperc certifies as a separator, the objective's own check accepts."""
    if kernel == "linear":
        ds = gen.planted(300, 5, 1e-2, norm_range=(0.01, 100.0), seed=4)
        G = kperc.gram_operator(ds.X, ds.y)
    else:
        ds = gen.planted_rbf(300, 2, 1e-2, gamma=2.0, seed=4)
        G = kperc.gram_matrix(ds.X, ds.y, "rbf", gamma=2.0)
    func = getattr(kperc, algorithm)
    if algorithm.endswith("perceptron"):
        res = func(ds.X, ds.y)
    else:
        res = func(G, eps=1e-6) if algorithm == "isnkpvn" else func(G)
    assert res.outcome == "separator"
    objective.set_data(ds.X, ds.y, kernel, {"gamma": 2.0} if kernel == "rbf" else {})
    out = objective.evaluate_result(alpha=res.alpha)
    assert out["separated"] == 1 and out["min_margin"] > 0


@pytest.mark.parametrize(
    "change, match",
    [
        (dict(y=np.array([0.0, 1.0, 1.0])), "y must hold labels"),
        (dict(y=np.array([1.0, -1.0])), "y must have shape"),
        (dict(X=np.array([[np.nan, 1.0], [1.0, 2.0], [0.5, 0.1]])), "X must be finite"),
        (dict(X=np.ones(3)), "X must be a non-empty 2-D array"),
        (dict(X=np.array([[0.0, 0.0], [1.0, 2.0], [0.5, 0.1]])), "K\\(x, x\\) = 0"),
        (dict(kernel="sigmoid"), "kernel must be one of"),
        (dict(kernel=lambda a, b: a @ b.T), "kernel must be a name"),
        (dict(kernel="rbf", kernel_params={"gama": 1.0}), "gama"),
        (dict(kernel="rbf", kernel_params={"gamma": -1.0}), "gamma"),
    ],
)
def test_objective_refuses_bad_data_naming_the_parameter(objective, change, match):
    data = dict(
        X=np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.1]]),
        y=np.array([1.0, -1.0, 1.0]),
        kernel="linear",
        kernel_params={},
    )
    data.update(change)
    with pytest.raises(ValueError, match=match):
        objective.set_data(**data)


def test_objective_kernel_may_be_left_out(objective):
    objective.set_data(np.array([[1.0, 0.0], [-1.0, 0.5]]), np.array([1.0, -1.0]))
    assert objective.get_objective()["kernel"] == "linear"
    assert objective.evaluate_result(w=np.array([1.0, 0.0]))["separated"] == 1


def test_objective_refuses_a_malformed_answer(objective):
    objective.set_data(np.eye(2), np.array([1.0, -1.0]), "linear", {})
    with pytest.raises(ValueError, match="exactly one"):
        objective.evaluate_result()
    with pytest.raises(ValueError, match="exactly one"):
        objective.evaluate_result(alpha=np.ones(2), w=np.ones(2))
    with pytest.raises(ValueError, match="alpha must have shape"):
        objective.evaluate_result(alpha=np.ones(3))
    objective.set_data(np.eye(2), np.array([1.0, -1.0]), "rbf", {"gamma": 1.0})
    with pytest.raises(ValueError, match="needs the linear kernel"):
        objective.evaluate_result(w=np.ones(2))
    with pytest.raises(ValueError, match="alpha must be non-negative"):
        objective.evaluate_result(alpha=np.array([-1.0, 1.0]))
    out = objective.evaluate_result(alpha=np.array([np.inf, 1.0]))  # a diverged solver
    assert out["separated"] == 0 and np.isnan(out["min_margin"])


# ---------------------------------------------------------------------------- datasets


@pytest.mark.parametrize(
    "name, params, shape, kernel",
    [
        ("planted", dict(norms="spread", n=30, d=4, rho=0.1, seed=1), (30, 4), "linear"),
        ("crowded", dict(n=30, d=4, rho=0.1, seed=1), (30, 4), "linear"),
        ("two_rays", dict(n=30, d=5, rho=0.05, seed=1), (30, 5), "linear"),
        ("planted_rbf", dict(n=30, d=8, rho=0.05, gamma=2.0, seed=1), (30, 8), "rbf"),
    ],
)
def test_family_datasets_follow_their_parameters(bench, objective, name, params, shape, kernel):
    data = _dataset(bench, name, **params).get_data()
    assert data["X"].shape == shape and data["kernel"] == kernel
    objective.set_data(**data)  # the objective accepts them


def test_spread_norms_are_spread_and_unit_norms_are_one(bench):
    norms = {}
    for kind in ("unit", "spread"):
        X = _dataset(bench, "planted", norms=kind, n=200, d=5, rho=0.1, seed=0).get_data()["X"]
        norms[kind] = np.linalg.norm(X, axis=1)
    assert np.allclose(norms["unit"], 1.0, rtol=0, atol=16 * U)
    assert norms["spread"].max() / norms["spread"].min() > 100


@pytest.mark.parametrize("d", [2, 7])
def test_two_rays_in_d_dimensions_keep_the_papers_inner_products_and_margin(bench, d):
    rho, n = 0.02, 40
    ref = gen.two_rays(math.sqrt(2.0) / 10.0 / rho, n // 2)
    ref_gram = kperc.gram_matrix(ref.X, ref.y)
    data = {
        seed: _dataset(bench, "two_rays", n=n, d=d, rho=rho, seed=seed).get_data()
        for seed in (0, 1)
    }
    assert not np.array_equal(data[0]["X"], data[1]["X"])  # the seed moves the points
    # Q has orthonormal columns up to QR's rounding (a few d u), and each entry of the
    # normalised Gram matrix is a d-term sum of products of its rounded coordinates
    tol = 8 * (d + 2) * U
    for got in data.values():
        assert got["X"].shape == (n, d)
        # the points are the rays' points in another order: match them by label and norm
        order = np.lexsort((np.linalg.norm(got["X"], axis=1), got["y"]))
        ref_order = np.lexsort((np.linalg.norm(ref.X, axis=1), ref.y))
        assert np.array_equal(got["y"][order], ref.y[ref_order])
        G = kperc.gram_matrix(got["X"][order], got["y"][order])
        assert np.max(np.abs(G - ref_gram[np.ix_(ref_order, ref_order)])) <= tol
        assert abs(kperc.data_margin(got["X"], got["y"]) - math.sqrt(2.0) / 10.0) <= tol


def test_two_rays_refuses_a_dimension_below_two(bench):
    with pytest.raises(ValueError, match="d >= 2"):
        _dataset(bench, "two_rays", n=20, d=1, rho=0.05, seed=0).get_data()


def test_real_problems_are_the_books_stored_data_and_kernels(bench):
    (cls,) = [d for d in bench.get_datasets() if d.name == "real"]
    problems = inspect.getmodule(cls).PROBLEMS
    assert set(problems) == set(book_data.PROBLEMS)
    for name in problems:
        data = cls.get_instance(problem=name).get_data()
        _, stored, kernel, params = book_data.problem(name)
        assert data["kernel"] == kernel and data["kernel_params"] == params
        assert np.array_equal(data["y"], stored.y)
        diff = float(np.max(np.abs(data["X"] - stored.X)))
        assert diff <= book_data.tolerance(stored.X), (name, diff)


# -------------------------------------------------------------------------- criterion


def test_a_curve_ends_only_when_the_answer_stops_changing(bench_dir):
    sys.path.insert(0, str(bench_dir))
    try:
        from benchmark_utils.stopping import AnswerStable
    finally:
        sys.path.remove(str(bench_dir))
    crit = AnswerStable(patience=3, strategy="iteration")

    def entries(*values):
        return [dict(objective_separated=s, objective_min_margin=m) for s, m in values]

    moving = entries((0, -0.2), (0, -0.1), (0, -0.3), (1, 0.01))  # not monotone: goes on
    assert crit.check_convergence(moving) == (False, 0.0)
    same = entries((0, -0.2), (1, 0.01), (1, 0.01), (1, 0.01))  # three equal, not four
    assert crit.check_convergence(same)[0] is False
    assert crit.check_convergence(same + entries((1, 0.01)))[0] is True


# ------------------------------------------------------------------------- benchopt


@pytest.mark.slow
def test_benchopt_test_passes(bench_dir):
    """benchopt's own checks: each class's API, every dataset's test parameters, and every
    solver run briefly on the tiny planted problem (``Objective.test_dataset_name``)."""
    proc = _benchopt("test", str(bench_dir), "--skip-install", "-q", cwd=bench_dir.parent)
    assert " passed" in proc.stdout and " failed" not in proc.stdout


THEIR_DATASET = '''
    import numpy as np
    from benchopt import BaseDataset


    class Dataset(BaseDataset):
        """Someone else's problem: two Gaussian blobs on either side of a line through 0."""

        name = "their-blobs"
        parameters = {"kernel": ["linear", "rbf"], "seed": [3]}

        def get_data(self):
            rng = np.random.default_rng(self.seed)
            X = np.vstack([rng.normal(3.0, 0.5, (15, 2)), rng.normal(-3.0, 0.5, (15, 2))])
            y = np.repeat([1.0, -1.0], 15)
            params = {"gamma": 0.1} if self.kernel == "rbf" else {}
            return dict(X=X, y=y, kernel=self.kernel, kernel_params=params)
'''


def test_every_solver_runs_on_someone_elses_dataset_file(bench_dir, tmp_path):
    their = tmp_path / "their_dataset.py"
    their.write_text(textwrap.dedent(THEIR_DATASET))
    df, _ = _run(bench_dir, tmp_path / "their.parquet", "-d", str(their))
    for column in ("objective_separated", "objective_min_margin", "time", "stop_val"):
        assert df[column].notna().all(), column
    final = _final(df)
    linear = final[final["p_dataset_kernel"] == "linear"]
    rbf = final[final["p_dataset_kernel"] == "rbf"]
    assert sorted(linear.index) == sorted(SOLVERS)
    assert sorted(rbf.index) == sorted(KERNEL_SOLVERS)  # the linear models skip a kernel
    # an easy problem: every solver ends with an answer separated beyond rounding
    assert (final["objective_separated"] == 1).all(), final["objective_separated"]
    assert (final["objective_min_margin"] > 0).all()
    # each curve starts from the zero function (or SNKP's uniform weights) and is timed
    first = df.groupby("solver_name").head(1)
    assert (first["stop_val"] == 0).all() and (df["time"] >= 0).all()


@pytest.mark.slow
def test_benchopt_run_with_two_workers(bench_dir, tmp_path):
    args = ["-d", "planted[norms=unit,n=40,d=3,rho=0.1,seed=0]", "-s", "kperc-snkp"]
    args += ["-s", "sklearn-svc"]
    df, _ = _run(bench_dir, tmp_path / "j2.parquet", *args, "-j", "2")
    final = _final(df)
    assert sorted(final.index) == ["kperc-snkp", "sklearn-svc"]
    assert (final["objective_separated"] == 1).all()


@pytest.mark.slow
def test_benchopt_run_on_a_local_dask_cluster(bench_dir, tmp_path):
    pytest.importorskip("distributed")
    config = bench_dir / "parallel_dask.yml"
    args = ["-d", "crowded[n=40,d=3,rho=0.1,seed=0]", "-s", "kperc-snkp", "-s", "kperc-nkp"]
    df, stdout = _run(
        bench_dir, tmp_path / "dask.parquet", *args, "-j", "2", "--parallel-config", str(config)
    )
    assert "Distributed run with backend: dask" in stdout
    final = _final(df)
    assert sorted(final.index) == ["kperc-nkp", "kperc-snkp"]
    assert (final["objective_separated"] == 1).all()


@pytest.mark.parametrize("selection", ["", "no-such-dataset"])
def test_an_empty_or_wrong_selection_writes_nothing(bench_dir, tmp_path, selection):
    out = tmp_path / "none.parquet"
    proc = subprocess.run(
        [sys.executable, "-m", "benchopt", "run", str(bench_dir), "-d", selection, "--no-plot"]
        + ["--output", str(out)],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode != 0 and "did not match any dataset" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_run_never_overwrites_an_existing_result_file(bench_dir, tmp_path):
    kept = tmp_path / "kept.parquet"
    kept.write_bytes(b"a committed record")
    args = ["-d", "two_rays[n=20,d=2,rho=0.05,seed=0]", "-s", "kperc-snkp"]
    proc = _benchopt(
        "run", str(bench_dir), "--no-plot", "--no-cache", "--output", str(kept), *args, cwd=tmp_path
    )
    assert kept.read_bytes() == b"a committed record"
    assert "kept_1.parquet" in proc.stdout and (tmp_path / "kept_1.parquet").exists()


# ------------------------------------------------------------- the book's grid and file


def _book_results(bench_dir: Path):
    """``book_results.py`` of the copy, so that its runs use the copy's folder."""
    sys.path.insert(0, str(bench_dir))
    try:
        import book_results
    finally:
        sys.path.remove(str(bench_dir))
    return book_results


def test_book_config_has_three_seeds_and_two_dimensions_per_cell():
    """Every family of the book's grid varies ``seed`` over 3 values and ``d`` over 2 (so
    each who-wins statement rests on 6 problems per cell), and every solver runs."""
    config = yaml.safe_load((BENCH / "book.yml").read_text())
    assert "solver" not in config  # every solver of the benchmark
    families = {}
    for entry in config["dataset"]:
        if isinstance(entry, dict):
            families.update(entry)
    assert set(families) == {"planted", "crowded", "two_rays", "planted_rbf"}
    for name, params in families.items():
        assert len(set(params["seed"])) >= 3 and len(set(params["d"])) == 2, name
        assert len(set(params["rho"])) == 2, name
    assert set(families["planted"]["norms"]) == {"unit", "spread"}
    assert "real" in config["dataset"]
    assert config["n-jobs"] == 1 and config["no-cache"] is True


def test_committed_book_results_hold_every_pair_of_the_config(bench_dir):
    """The committed file: every (dataset, solver) pair the config asks for, each curve
    timed and scored, measured with one BLAS thread (benchopt's environment columns)."""
    df = pd.read_parquet(BOOK_RESULTS)
    book_results = _book_results(bench_dir)
    assert book_results.problems(df, book_results.expected_pairs(bench_dir / "book.yml")) == []
    assert set(df["solver_name"].map(lambda s: s.split("[")[0])) == set(SOLVERS)
    for column in ("env-OMP_NUM_THREADS", "env-OPENBLAS_NUM_THREADS", "env-MKL_NUM_THREADS"):
        assert (df[column] == "1").all(), column
    columns = ("platform", "system-cpus", "system-processor", "version-numpy", "run_date")
    for column in (*columns, "version-kperc", "version-scikit-learn"):
        assert df[column].notna().all(), column
    assert df["objective_separated"].isin([0, 1]).all() and (df["time"] >= 0).all()


TINY_CONFIG = """
    dataset:
      - two_rays:
          n: [20]
          d: [2, 3]
          rho: [0.05]
          seed: [0, 1, 2]
    solver: [kperc-snkp, sklearn-svc]
    timeout: 20
    n-jobs: 1
    no-cache: true
    plot: false
"""


@pytest.fixture(scope="module")
def tiny_published(bench_dir, tmp_path_factory):
    """``book_results.main`` on a tiny grid: the config and the file it published."""
    tmp = tmp_path_factory.mktemp("publish")
    config = tmp / "tiny.yml"
    config.write_text(textwrap.dedent(TINY_CONFIG))
    dest = tmp / "published" / "tiny.parquet"
    book_results = _book_results(bench_dir)
    env = _env()
    old = {k: os.environ.get(k) for k in ("PATH", "PYTHONPATH")}
    os.environ.update({k: env[k] for k in old})
    try:
        assert book_results.main(["--config", str(config), "--dest", str(dest)]) == 0
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return config, dest


def test_publish_writes_a_complete_run(bench_dir, tiny_published):
    config, dest = tiny_published
    df = pd.read_parquet(dest)
    assert df["dataset_name"].nunique() == 6
    assert set(df["solver_name"].map(lambda s: s.split("[")[0])) == {"kperc-snkp", "sklearn-svc"}
    assert (df["env-OMP_NUM_THREADS"] == "1").all()
    assert list(dest.parent.iterdir()) == [dest]  # no temporary file left behind


def test_publish_refuses_an_empty_or_partial_run_and_keeps_the_record(
    bench_dir, tiny_published, tmp_path
):
    config, published = tiny_published
    book_results = _book_results(bench_dir)
    expected = book_results.expected_pairs(config, bench_dir)
    assert len(expected) == 12
    full = pd.read_parquet(published)
    dest = tmp_path / "record.parquet"
    dest.write_bytes(b"the committed record")
    partial = full[full["dataset_name"] != full["dataset_name"].iloc[0]]  # one dataset short
    one_solver = full[full["solver_name"].str.startswith("kperc-snkp")]
    for bad, match in [
        (full.iloc[:0], "no rows"),
        (partial, "2 \\(dataset, solver\\) pairs of the config have no result"),
        (one_solver, "6 \\(dataset, solver\\) pairs"),
    ]:
        result = tmp_path / "result.parquet"
        bad.to_parquet(result)
        with pytest.raises(RuntimeError, match=match):
            book_results.publish(result, expected, dest)
        assert dest.read_bytes() == b"the committed record"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["record.parquet", "result.parquet"]


@pytest.mark.parametrize(
    "text, error, match",
    [
        ("dataset: [no-such-dataset]\n", click.BadParameter, "no-such-dataset"),
        ("dataset: []\ntimeout: 5\n", ValueError, "must list its datasets"),
        ("timeout: 5\n", ValueError, "must list its datasets"),
        ("", ValueError, "must list its datasets"),
    ],
)
def test_publish_refuses_a_config_that_selects_nothing_or_a_wrong_name(
    bench_dir, tmp_path, text, error, match
):
    """An empty selection is benchopt's "every dataset" (another grid): refused, as is an
    unknown name, before anything runs."""
    config = tmp_path / "bad.yml"
    config.write_text(text)
    dest = tmp_path / "record.parquet"
    dest.write_bytes(b"the committed record")
    with pytest.raises(error, match=match):
        _book_results(bench_dir).main(["--config", str(config), "--dest", str(dest)])
    assert dest.read_bytes() == b"the committed record"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yml", "record.parquet"]


def _valid_results() -> pd.DataFrame:
    """A small result file as benchopt writes it: two datasets, two solvers, two points
    per curve, every value in its column's domain."""
    rows = []
    for dataset in ("two_rays[d=2,n=20,rho=0.05,seed=0]", "two_rays[d=3,n=20,rho=0.05,seed=0]"):
        for solver in ("kperc-snkp", "sklearn-svc[C=1000000.0]"):
            for stop_val, separated in ((1, 0), (2, 1)):
                rows.append(
                    {
                        "dataset_name": dataset,
                        "solver_name": solver,
                        "idx_rep": 0,
                        "stop_val": stop_val,
                        "time": 0.001 * stop_val,
                        "objective_separated": separated,
                        "objective_fraction_separated": 0.5 + 0.5 * separated,
                        "objective_min_margin": -0.2 + 0.25 * separated,
                    }
                )
    return pd.DataFrame(rows)


def test_publisher_accepts_values_in_their_domains(bench_dir):
    df = _valid_results()
    expected = set(zip(df["dataset_name"], df["solver_name"].str.split("[").str[0], strict=True))
    assert _book_results(bench_dir).problems(df, expected) == []
    # a diverged answer (not finite) is scored NaN with separated = 0: in the domain
    df.loc[0, "objective_min_margin"] = np.nan
    df.loc[0, "objective_fraction_separated"] = 0.0
    assert _book_results(bench_dir).problems(df, expected) == []


BAD_VALUES = [
    ("time", -0.5, "column time holds -0.5"),
    ("time", np.inf, "column time holds inf"),
    ("time", np.nan, "column time holds nan"),
    ("stop_val", -1, "column stop_val holds -1"),
    ("objective_separated", 7, "column objective_separated holds 7 \\(it must be 0 or 1\\)"),
    ("objective_separated", 0.5, "column objective_separated holds 0.5"),
    ("objective_fraction_separated", 1.5, "column objective_fraction_separated holds 1.5"),
    ("objective_fraction_separated", -0.1, "column objective_fraction_separated holds -0.1"),
    ("objective_min_margin", np.inf, "column objective_min_margin holds inf"),
    ("objective_min_margin", -np.inf, "column objective_min_margin holds -inf"),
    ("objective_min_margin", 1.5, "column objective_min_margin holds 1.5"),
]


@pytest.mark.parametrize("column, value, match", BAD_VALUES)
def test_publisher_refuses_a_value_outside_its_columns_domain(bench_dir, column, value, match):
    """One sentence naming the column, its domain, the dataset and the solver."""
    book_results = _book_results(bench_dir)
    df = _valid_results()
    expected = set(zip(df["dataset_name"], df["solver_name"].str.split("[").str[0], strict=True))
    df[column] = df[column].astype(float)
    df.loc[5, column] = value
    (problem,) = book_results.problems(df, expected)
    assert re.match(match, problem), problem
    assert f"dataset {df.loc[5, 'dataset_name']} and solver {df.loc[5, 'solver_name']}" in problem
    assert problem.endswith("in 1 row(s)")


def test_publisher_refuses_a_solver_with_no_scored_answer(bench_dir):
    """A solver whose objective columns are all NaN on a dataset was never scored."""
    book_results = _book_results(bench_dir)
    df = _valid_results()
    expected = set(zip(df["dataset_name"], df["solver_name"].str.split("[").str[0], strict=True))
    pair = (df["solver_name"] == "kperc-snkp") & (df["dataset_name"] == df.loc[0, "dataset_name"])
    df.loc[pair, "objective_min_margin"] = np.nan
    df.loc[pair, "objective_separated"] = 0
    df.loc[pair, "objective_fraction_separated"] = 0.0
    (problem,) = book_results.problems(df, expected)
    assert problem.startswith(
        f"column objective_min_margin has no finite value for dataset {df.loc[0, 'dataset_name']}"
        " and solver kperc-snkp"
    ), problem
    # NaN beside separated = 1 is no answer the objective writes
    df = _valid_results()
    df.loc[1, "objective_min_margin"] = np.nan
    (problem,) = book_results.problems(df, expected)
    assert "objective_min_margin is NaN where objective_separated is 1" in problem, problem


@pytest.mark.parametrize("column", [c for c, _, _ in BAD_VALUES[::3]])
def test_publisher_refuses_a_result_file_without_a_column(bench_dir, column):
    book_results = _book_results(bench_dir)
    df = _valid_results().drop(columns=column)
    assert book_results.problems(df, set()) == [f"the result file has no column {column}"]


def test_publish_refuses_a_corrupt_value_and_keeps_the_record(bench_dir, tmp_path):
    book_results = _book_results(bench_dir)
    df = _valid_results()
    expected = set(zip(df["dataset_name"], df["solver_name"].str.split("[").str[0], strict=True))
    df.loc[2, "objective_separated"] = 7
    result, dest = tmp_path / "result.parquet", tmp_path / "record.parquet"
    df.to_parquet(result)
    dest.write_bytes(b"the committed record")
    with pytest.raises(RuntimeError, match="column objective_separated holds 7"):
        book_results.publish(result, expected, dest)
    assert dest.read_bytes() == b"the committed record"

"""Sweeps: ``grid`` and ``sweep``, serial, on local processes and on a Dask cluster.

The book's sweeps go through :func:`kperc.sweeps.sweep`, which hands the work to joblib.
The same call must run unchanged on a Dask cluster through joblib's ``dask`` backend
and give the serial results, in grid order.
"""

from __future__ import annotations

import numpy as np
import pytest
from joblib import parallel_config

import kperc
from kperc.sweeps import grid, sweep


def snkp_point(rho: float, seed: int) -> dict:
    """A small sweep point: SNKP on a planted instance (module level, so picklable)."""
    ds = kperc.datasets.planted(60, 4, rho, near=0.5, seed=seed)
    G = kperc.gram_matrix(ds.X, ds.y)
    r = kperc.snkp(G)
    return {
        "nit": int(r.nit),
        "outcome": r.outcome,
        "alpha_sum": float(r.alpha.sum()),
        "alpha": r.alpha,
    }


def where_point(i: int) -> dict:
    """Report which Dask worker evaluated the point (``"local"`` outside a worker)."""
    try:
        from dask.distributed import get_worker

        return {"worker": get_worker().address}
    except (ImportError, ValueError):
        return {"worker": "local"}


POINTS = grid(rho=[0.2, 0.05], seed=[0, 1, 2])


def _same(a: list[dict], b: list[dict]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if set(x) != set(y):
            return False
        for k in x:
            if isinstance(x[k], np.ndarray):
                if not np.array_equal(x[k], y[k]):
                    return False
            elif x[k] != y[k]:
                return False
    return True


def test_grid_is_the_cartesian_product_in_order():
    g = grid(a=[1, 2], b=["x", "y", "z"])
    assert len(g) == 6
    assert g[0] == {"a": 1, "b": "x"} and g[1] == {"a": 1, "b": "y"}
    assert g[-1] == {"a": 2, "b": "z"}
    assert grid() == [{}]
    assert grid(a=[]) == []


def test_sweep_rows_carry_the_point_and_the_result_in_grid_order():
    rows = sweep(snkp_point, POINTS)
    assert [(r["rho"], r["seed"]) for r in rows] == [(p["rho"], p["seed"]) for p in POINTS]
    for r in rows:
        assert r["outcome"] == "separator"
        assert r["alpha_sum"] == pytest.approx(1.0)


def test_sweep_accepts_any_iterable_of_mappings():
    rows = sweep(snkp_point, iter(POINTS[:2]))
    assert len(rows) == 2


def test_sweep_on_local_processes_equals_serial():
    serial = sweep(snkp_point, POINTS)
    parallel = sweep(snkp_point, POINTS, n_jobs=2)
    assert _same(serial, parallel)


def test_same_sweep_runs_unchanged_on_a_dask_cluster():
    """joblib's dask backend on a local dask.distributed cluster gives the serial rows."""
    distributed = pytest.importorskip("dask.distributed")
    serial = sweep(snkp_point, POINTS)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        with parallel_config(backend="dask"):
            on_dask = sweep(snkp_point, POINTS, n_jobs=2)
            where = sweep(where_point, grid(i=range(4)), n_jobs=2)
        workers = set(client.scheduler_info()["workers"])
    assert _same(serial, on_dask)
    # the points were evaluated by the cluster's workers, not in this process
    assert {r["worker"] for r in where} <= workers
    assert all(r["worker"] != "local" for r in where)


def test_explicit_backend_overrides_the_serial_shortcut():
    rows = sweep(snkp_point, POINTS[:2], n_jobs=1, backend="threading")
    assert _same(rows, sweep(snkp_point, POINTS[:2]))


def blas_pool_threads(x: int) -> dict:
    """The largest thread count among the BLAS pools seen while running (picklable)."""
    from threadpoolctl import threadpool_info

    blas = [p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"]
    return {"blas_max": max(blas) if blas else None}


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_sweep_blas_threads_caps_the_pools_inside_every_call(n_jobs):
    rows = sweep(blas_pool_threads, grid(x=[0, 1]), n_jobs=n_jobs, blas_threads=1)
    seen = [r["blas_max"] for r in rows]
    if all(s is None for s in seen):
        pytest.skip("numpy is linked to no BLAS that threadpoolctl can see")
    assert seen == [1, 1]


def test_sweep_pins_one_blas_thread_per_point_by_default():
    rows = sweep(blas_pool_threads, grid(x=[0, 1]))
    seen = [r["blas_max"] for r in rows]
    if all(s is None for s in seen):
        pytest.skip("numpy is linked to no BLAS that threadpoolctl can see")
    assert seen == [1, 1]


def large_point(seed: int) -> dict:
    """A point whose products are large enough for a threaded BLAS to split (picklable)."""
    ds = kperc.datasets.planted(1500, 40, 0.05, near=0.5, seed=seed)
    G = kperc.gram_matrix(ds.X, ds.y)
    r = kperc.snkp(G, check_input=False)
    return {"nit": int(r.nit), "alpha": r.alpha.tolist(), "Ga": (G @ r.alpha).tolist()}


@pytest.mark.blas
def test_rows_do_not_depend_on_the_callers_blas_threads():
    """The same sweep in processes started with 1 and with 2 BLAS threads: identical rows.

    (With ``blas_threads=None`` the rows of this sweep differ in the last bits.)
    """
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import test_sweeps as t; "
        "from kperc.sweeps import grid, sweep; "
        "print(json.dumps(sweep(t.large_point, grid(seed=[0, 1]))))"
    )
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads)
        run = subprocess.run(
            [sys.executable, "-c", code, here], env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr[-2000:]
        out.append(json.loads(run.stdout))
    assert out[0] == out[1]


def test_sweep_blas_threads_leaves_the_caller_unchanged():
    from threadpoolctl import threadpool_info

    before = [p["num_threads"] for p in threadpool_info()]
    sweep(blas_pool_threads, grid(x=[0]), blas_threads=1)
    assert [p["num_threads"] for p in threadpool_info()] == before


@pytest.mark.parametrize("bad", [0, -1, 1.5, "1", True])
def test_sweep_blas_threads_rejects_non_positive_integers(bad):
    with pytest.raises(ValueError, match="blas_threads must be None or a positive integer"):
        sweep(blas_pool_threads, grid(x=[0]), blas_threads=bad)


def _square(x):
    return {"y": x * x}


def _not_a_mapping(x):
    return x


@pytest.mark.parametrize(
    ("call", "exc", "name"),
    [
        (lambda: grid(rho="0.1"), TypeError, "rho"),
        (lambda: grid(rho=0.1), TypeError, "rho"),
        (lambda: sweep(42, grid(x=[1])), TypeError, "func"),
        (lambda: sweep(_square, {"x": 1}), TypeError, "points"),
        (lambda: sweep(_square, 5), TypeError, "points"),
        (lambda: sweep(_square, [{"x": 1}, 3]), TypeError, r"points\[1\]"),
        (lambda: sweep(_not_a_mapping, grid(x=[1])), TypeError, "func must return"),
        (lambda: sweep(_square, grid(x=[1]), n_jobs=0), ValueError, "n_jobs"),
        (lambda: sweep(_square, grid(x=[1]), n_jobs=1.5), ValueError, "n_jobs"),
        (lambda: sweep(_square, grid(x=[1]), blas_threads=0), ValueError, "blas_threads"),
        (lambda: sweep(_square, grid(x=[1]), blas_threads=True), ValueError, "blas_threads"),
    ],
)
def test_hostile_sweeps_name_the_parameter(call, exc, name):
    with pytest.raises(exc, match=name):
        call()


def test_sweep_accepts_a_generator_and_an_empty_grid():
    assert sweep(_square, ({"x": x} for x in (2, 3))) == [{"x": 2, "y": 4}, {"x": 3, "y": 9}]
    assert sweep(_square, []) == []

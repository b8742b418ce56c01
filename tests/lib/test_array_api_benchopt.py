"""The benchopt solvers' ``device`` parameter: the default keeps the numpy path and the
book's solver names; ``device=torch-cpu`` runs kperc on torch tensors, same answer."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("benchopt")
pd = pytest.importorskip("pandas")
BENCH = Path(__file__).resolve().parents[2] / "benchmark_kperc"


def test_solvers_device_parameter(tmp_path):
    dest = tmp_path / "benchmark_kperc"
    shutil.copytree(BENCH, dest, ignore=shutil.ignore_patterns("__cache__", "outputs"))
    out = tmp_path / "device.parquet"
    solvers = ["kperc-snkp", "kperc-snkp[device=torch-cpu]", "kperc-nkp[device=torch-cpu]"]
    cmd = [sys.executable, "-m", "benchopt", "run", str(dest), "--no-plot", "--no-cache"]
    cmd += ["--timeout", "60", "--output", str(out)]
    cmd += ["-d", "planted[norms=unit,n=40,d=3,rho=0.1,seed=0]"]
    for s in solvers:
        cmd += ["-s", s]
    subprocess.run(cmd, check=True, capture_output=True, cwd=tmp_path)
    df = pd.read_parquet(out)
    final = df.groupby("solver_name").tail(1).set_index("solver_name")
    assert sorted(final.index) == sorted(solvers)
    assert (final["objective_separated"] == 1).all()
    # the same decisions on torch as on numpy: the curve ends at the same iteration
    assert (
        final.loc["kperc-snkp", "stop_val"] == final.loc["kperc-snkp[device=torch-cpu]", "stop_val"]
    )

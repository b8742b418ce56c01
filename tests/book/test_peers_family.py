"""The grown-rank Nystroem runner of the peer comparison, and re-running one family.

No timing assertions: these check what is recorded (a run counts as separated only when
the exact-kernel check passed) and that ``--family`` replaces one family's rows, instances
and configuration in an existing record and keeps the other's.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import kperc
from benchmarks import _peer_runners as runners
from benchmarks.peers import analysis, cli, config, measure
from benchmarks.peers.worker import _fit_fields


@pytest.fixture(scope="module")
def quick_record(tmp_path_factory):
    out = tmp_path_factory.mktemp("peers-family") / "peers.json"
    assert cli.main(["--quick", "--quiet", "--out", str(out)]) == 0
    return out


def test_grown_runner_is_certified_under_the_exact_kernel():
    cfg = config.quick_config()
    ds = runners.rbf_problem(600, 3, 1e-2, seed=0)
    fit = runners.run_snkp_nystroem_grown(ds, cfg)
    model = fit.model
    assert fit.certified and fit.extra["exact_separated"] and model["kind"] == "expansion"
    assert fit.extra["n_components"] >= cfg.nystroem_start
    # the harness's one check, from exact kernel values on every point, agrees with kperc's
    chk = runners.check_model(ds, model)
    assert chk["separated"] and chk["yf"].shape == (600,) and np.all(chk["yf"] > chk["err"])
    fit = runners.evaluate(fit, ds)
    assert fit.separated and fit.extra["check"] == "rounding" and 0 < fit.margin <= 1


def test_the_expansion_check_refuses_a_model_within_rounding():
    """A landmark expansion whose values are zero up to rounding is not a separator."""
    ds = runners.rbf_problem(200, 3, 1e-2, seed=1)
    L = np.vstack([ds.X[0], ds.X[0]])
    chk = runners.check_model(
        ds, {"kind": "expansion", "centres": L, "coef": np.array([1.0, -1.0])}
    )
    assert not chk["separated"] and chk["wrong"] == 200


def test_grown_runner_not_certified_counts_as_not_separated(monkeypatch):
    cfg = config.quick_config(nystroem_start=2, nystroem_max=2)
    ds = runners.rbf_problem(600, 3, 1e-3, seed=0)
    real = kperc.snkp_nystroem
    monkeypatch.setattr(kperc, "snkp_nystroem", lambda *a, **k: real(*a, **{**k, "max_iter": 50}))
    fit = runners.evaluate(runners.run_snkp_nystroem_grown(ds, cfg), ds)
    assert fit.certified is False and fit.separated is False and fit.model is None
    assert not analysis.is_separator({"status": "finished", **_fit_fields(fit)})


def test_family_run_replaces_only_that_family(quick_record, tmp_path):
    path = tmp_path / "peers.json"
    path.write_text(quick_record.read_text())
    before = json.loads(path.read_text())
    assert cli.main(["--quick", "--quiet", "--family", "rbf", "--out", str(path)]) == 0
    after = json.loads(path.read_text())
    lin = [r for r in before["rows"] if r["family"] == "linear"]
    assert [r for r in after["rows"] if r["family"] == "linear"] == lin
    rbf = [r for r in after["rows"] if r["family"] == "rbf"]
    assert {r["solver"] for r in rbf} == set(config.quick_config().rbf_solvers)
    assert "snkp-nystroem-grown" in {r["solver"] for r in rbf}
    run = after["family_runs"]["rbf"]
    assert "--quick --family rbf" in run["command"]
    assert after["started_utc"] == before["started_utc"]  # the record's own run is kept
    assert after["config"]["linear_ns"] == before["config"]["linear_ns"]
    assert after["crossovers"] == analysis.crossovers(after)


def test_merge_family_keeps_the_other_familys_config():
    def row(family, n):
        return {"family": family, "n": n, "rho": 0.1, "solver": "nkp", "status": "finished"}

    old = {
        "rows": [row("linear", 1), row("rbf", 1)],
        "instances": [{"family": "linear"}, {"family": "rbf", "n": 1}],
        "config": {"linear_ns": [1], "rbf_ns": [1], "cap_s": 20.0},
        "busy": False,
        "started_utc": "old",
    }
    new = {
        "rows": [row("rbf", 2)],
        "instances": [{"family": "rbf", "n": 2}],
        "config": {"linear_ns": [], "rbf_ns": [2], "cap_s": 20.0},
        "busy": True,
        "command": "python -m benchmarks.peers --family rbf",
        "started_utc": "new",
        "finished_utc": "new",
        "elapsed_s": 1.0,
        "loadavg_1min_before": 3.0,
        "loadavg_1min_after": 3.0,
        "machine": {},
    }
    merged = measure.merge_family(old, new, "rbf")
    assert merged["rows"] == [row("linear", 1), row("rbf", 2)]
    assert merged["instances"] == [{"family": "linear"}, {"family": "rbf", "n": 2}]
    assert merged["config"]["linear_ns"] == [1] and merged["config"]["rbf_ns"] == [2]
    assert merged["busy"] is True and merged["started_utc"] == "old"
    assert merged["family_runs"]["rbf"]["started_utc"] == "new"
    with pytest.raises(ValueError, match="family"):
        measure.merge_family(old, new, "poly")


def test_family_needs_an_existing_record(tmp_path):
    with pytest.raises(SystemExit):
        cli.main(["--quick", "--family", "rbf", "--out", str(tmp_path / "none.json")])

"""``python -m benchmarks.peers``: time to a separator against scikit-learn's solvers.

No timing assertions (speed is measured, not tested). These tests check that a quick run
records every (family, margin, n, solver), that the hard cap stops a slow solver and is
recorded (and the solver skipped at larger n), that separation is decided by the harness
from the decision values (a non-separating result is recorded as such), the crossover
logic on synthetic records, and the atomic write.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from benchmarks import _peer_runners as runners
from benchmarks.peers import analysis, cli, config, figure, markdown, measure
from benchmarks.record import write_json
from kperc_book.chapter import COLUMN_WIDTH

STATUSES = {"finished", "timeout", "skipped", "error"}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("peers") / "peers.json"
    t0 = time.perf_counter()
    assert cli.main(["--quick", "--quiet", "--out", str(out)]) == 0
    elapsed = time.perf_counter() - t0
    text = out.read_text()
    return text, json.loads(text), elapsed


def test_quick_rows_complete(quick):
    _, rec, elapsed = quick
    cfg = config.quick_config()
    assert elapsed < 60
    expected = {
        (fam, rho, n, s)
        for fam, ns, rhos, solvers in (
            ("linear", cfg.linear_ns, cfg.linear_rhos, cfg.linear_solvers),
            ("rbf", cfg.rbf_ns, cfg.rbf_rhos, cfg.rbf_solvers),
        )
        for rho in rhos
        for n in ns
        for s in solvers
    }
    got = [(r["family"], r["rho"], r["n"], r["solver"]) for r in rec["rows"]]
    assert sorted(got) == sorted(expected)  # every run recorded once, none dropped
    for r in rec["rows"]:
        assert r["status"] in STATUSES
        if r["status"] == "finished":
            assert r["time_s"] > 0 and isinstance(r["separated"], bool)
            assert r["margin_space"]
        if r["status"] == "skipped":
            assert r["reason"]
    assert rec["command"] == "python -m benchmarks.peers --quick --out peers.json"
    assert rec["config"]["quick"] is True and rec["blas_threads"] == 1
    for key in ("loadavg_1min_before", "loadavg_1min_after", "busy", "machine", "crossovers"):
        assert key in rec
    assert rec["busy"] in (True, False, None)
    assert "cpu" in rec["machine"] and "scikit-learn" in rec["machine"]


def test_quick_margins_are_consistent(quick):
    _, rec, _ = quick
    inst = {(i["family"], i["rho"], i["n"]): i for i in rec["instances"]}
    sep = [r for r in rec["rows"] if r["status"] == "finished" and r["separated"]]
    assert sep
    for r in sep:
        assert r["margin"] is not None and r["margin"] > 0
        ref = inst[(r["family"], r["rho"], r["n"])]["kernel_margin"]
        homogeneous = not r["solver"].startswith("svc")  # SVC fits a bias as well
        if ref is not None and homogeneous and "Nystroem" not in r["margin_space"]:
            # no homogeneous separator has a larger normalised margin than the instance's
            assert r["margin"] <= ref * (1 + 1e-6) + 1e-12, r
        if r["solver"].startswith(("snkp", "nkp")):
            assert r["certified"] is True
    for r in rec["rows"]:
        if r["status"] == "finished" and not r["separated"] and r["margin"] is not None:
            assert r["margin"] <= 0


def test_quick_rbf_problems_have_a_measured_margin(quick):
    _, rec, _ = quick
    rbf = [i for i in rec["instances"] if i["family"] == "rbf"]
    small = [i for i in rbf if i["n"] <= config.quick_config().margin_max_n]
    assert small
    for i in small:  # the planted function bounds the kernel margin from below
        assert i["kernel_margin"] >= i["planted_margin"] * (1 - 1e-6) >= i["rho"] * (1 - 1e-6)


def test_record_has_no_machine_paths(quick):
    text, _, _ = quick
    for root in ("/" + "work", "/" + "root", "/" + "tmp", "/" + "home"):
        assert root + "/" not in text, root


# --------------------------------------------------------------------------- fake solvers


def _slow_solver(inst, cfg):
    time.sleep(60)
    raise AssertionError("the cap should have stopped this run")


def _wrong_solver(inst, cfg):
    # claims nothing: returns the decision values of a direction that misclassifies points
    w = np.ones(inst.X.shape[1])
    yf = inst.y * (inst.X @ w)
    assert np.any(yf <= 0)
    return runners.Fit(0.01, yf, float(np.linalg.norm(w)), 1.0, "input space", certified=True)


def _small_cfg(**over):
    base = {
        "linear_ns": (200, 400),
        "rbf_ns": (),
        "linear_rhos": (1e-1,),
        "rbf_rhos": (),
        "nkp_dense_max_n": 100,
        "extra_solvers": {
            "slow": f"{__name__}:_slow_solver",
            "wrong": f"{__name__}:_wrong_solver",
        },
    }
    base.update(over)
    return config.quick_config(**base)


def test_cap_stops_a_slow_solver_and_skips_it_at_larger_n():
    cfg = _small_cfg(linear_solvers=("slow", "snkp-factored"), cap_s=1.0)
    t0 = time.perf_counter()
    rec = measure.run(cfg, log=lambda s: None)
    assert time.perf_counter() - t0 < 30  # the 60 s sleep was cut short
    rows = {(r["n"], r["solver"]): r for r in rec["rows"]}
    assert rows[(200, "slow")]["status"] == "timeout"
    assert rows[(200, "slow")]["time_s"] == 1.0  # recorded, as a lower bound
    assert rows[(400, "slow")]["status"] == "skipped"
    assert "timed out at n = 200" in rows[(400, "slow")]["reason"]
    # the worker was replaced: the next solver still ran
    for n in (200, 400):
        assert rows[(n, "snkp-factored")]["status"] == "finished"
        assert rows[(n, "snkp-factored")]["separated"] is True
    md = markdown.peers_markdown(rec)
    assert "> 1 s" in md and "skipped" in md


def test_non_separating_result_is_recorded_as_not_separated():
    cfg = _small_cfg(linear_solvers=("wrong",), linear_ns=(200,))
    rec = measure.run(cfg, log=lambda s: None)
    (row,) = rec["rows"]
    assert row["status"] == "finished"
    assert row["separated"] is False  # decided from y f(x), whatever the solver claims
    assert row["margin"] <= 0
    assert rec["crossovers"][0]["by_n"][0]["winner"] is None


def test_dense_is_skipped_with_the_memory_it_needs():
    cfg = _small_cfg(linear_solvers=("snkp-dense",), linear_ns=(200,), dense_max_gb=1e-4)
    (row,) = measure.run(cfg, log=lambda s: None)["rows"]
    assert row["status"] == "skipped"
    assert row["memory_needed_gb"] == pytest.approx(8 * 200**2 / 2**30)
    assert "GB" in row["reason"]


def test_evaluate_is_the_one_check():
    fit = runners.evaluate(runners.Fit(0.1, np.array([0.5, 0.2, 1.0]), 2.0, 1.0, "x"))
    assert fit.separated is True and fit.margin == pytest.approx(0.1)
    fit = runners.evaluate(runners.Fit(0.1, np.array([0.5, 0.0, 1.0]), 2.0, 1.0, "x"))
    assert fit.separated is False and fit.margin == 0.0  # on the boundary: not separated
    fit = runners.evaluate(runners.Fit(0.1, np.array([0.5, -0.3]), 1.0, 2.0, "x"))
    assert fit.separated is False and fit.margin == pytest.approx(-0.15)


def test_config_errors_name_the_parameter():
    with pytest.raises(ValueError, match="cap_s"):
        config.quick_config(cap_s=0)
    with pytest.raises(ValueError, match="unknown solver 'nope'"):
        config.quick_config(linear_solvers=("nope",))
    with pytest.raises(SystemExit):
        cli.main(["--quick", "--cap", "-1"])


# --------------------------------------------------------------------------- crossovers


def _row(solver, n, t, status="finished", separated=True, rho=0.01, family="linear"):
    r = {"family": family, "rho": rho, "n": n, "solver": solver, "status": status, "cap_s": 10.0}
    if status in ("finished", "timeout"):
        r["time_s"] = t
    if status == "finished":
        r["separated"] = separated
    return r


def test_crossovers_on_a_synthetic_record():
    rows = [
        # n = 100: a peer is faster
        _row("snkp-factored", 100, 0.5),
        _row("svc-linear", 100, 0.1),
        _row("nkp", 100, 0.05),
        # n = 1000: SNKP faster; a faster peer that did not separate does not count
        _row("snkp-factored", 1000, 1.0),
        _row("linearsvc", 1000, 0.2, separated=False),
        _row("svc-linear", 1000, 4.0),
        # n = 10000: only SNKP separated, a peer timed out: lower bound on the speed-up
        _row("snkp-factored", 10000, 2.0),
        _row("svc-linear", 10000, 10.0, status="timeout"),
        _row("linearsvc", 10000, None, status="skipped"),
        # n = 100000: nobody separated
        _row("snkp-factored", 100000, 10.0, status="timeout"),
        _row("svc-linear", 100000, None, status="skipped"),
    ]
    (c,) = analysis.crossovers({"rows": rows})
    by = {e["n"]: e for e in c["by_n"]}
    assert by[100]["fastest"] == "nkp" and by[100]["winner"] == "peers"
    assert by[100]["speedup"] == pytest.approx(0.2) and by[100]["speedup_bound"] == "="
    assert by[1000]["winner"] == "snkp" and by[1000]["peer"] == "svc-linear"
    assert by[1000]["speedup"] == pytest.approx(4.0)
    assert by[10000]["winner"] == "snkp" and by[10000]["peer"] is None
    assert by[10000]["speedup"] == pytest.approx(5.0) and by[10000]["speedup_bound"] == ">="
    assert by[100000]["winner"] is None and by[100000]["fastest"] is None
    assert c["snkp_wins_n"] == [1000, 10000] and c["peers_win_n"] == [100]


def test_crossovers_group_by_family_and_margin():
    rows = [
        _row("snkp-dense", 100, 1.0, family="rbf", rho=0.1),
        _row("svc-rbf", 100, 0.01, family="rbf", rho=0.1),
        _row("snkp-dense", 100, 1.0, family="rbf", rho=0.001),
        _row("svc-rbf", 100, 5.0, family="rbf", rho=0.001),
        _row("snkp-factored", 100, 1.0, family="linear", rho=0.1),
    ]
    cr = analysis.crossovers({"rows": rows})
    assert [(c["family"], c["rho"]) for c in cr] == [
        ("linear", 0.1),
        ("rbf", 0.1),
        ("rbf", 0.001),
    ]
    assert cr[1]["peers_win_n"] == [100] and cr[2]["snkp_wins_n"] == [100]
    assert cr[0]["by_n"][0]["winner"] == "snkp" and cr[0]["by_n"][0]["speedup"] is None


# --------------------------------------------------------------------------- output


def test_write_json_is_atomic(tmp_path):
    path = tmp_path / "peers.json"
    write_json(path, {"a": 1})
    assert json.loads(path.read_text()) == {"a": 1}
    with pytest.raises(ValueError):  # NaN is refused: the old file stays as it was
        write_json(path, {"a": float("nan")})
    assert json.loads(path.read_text()) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["peers.json"]  # no temporary left


def test_figure_fits_the_column(quick):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, rec, _ = quick
    for fam in ("linear", "rbf"):
        fig = figure.figure(rec, fam)
        w, _ = fig.get_size_inches()
        assert w <= COLUMN_WIDTH + 1e-9
        visible = [ax for ax in fig.axes if ax.get_visible()]
        cols = {round(ax.get_position().x0, 2) for ax in visible}
        assert len(cols) <= 2  # at most two panels side by side
        plt.close(fig)
    with pytest.raises(ValueError, match="family"):
        figure.figure(rec, "poly")


def test_short_number_writes_powers_of_ten_that_cannot_wrap():
    assert markdown.short_number(1e-2) == "1\u20600\u2060\u207b\u2060\u00b2"  # joined

    assert markdown.short_number(1e-4).replace("\u2060", "") == "10\u207b\u2074"
    assert markdown.short_number(100_000).replace("\u2060", "") == "10\u2075"
    assert markdown.short_number(1).replace("\u2060", "") == "10\u2070"
    assert markdown.short_number(3e-3) == "0.003"
    assert markdown.short_number(1500) == "1500"


def test_harness_suite_writes_peers_json_where_told(tmp_path, monkeypatch, quick):
    """``python -m benchmarks.bench --suite peers`` runs the comparison and writes its file."""
    from benchmarks._config import quick_config as bench_quick
    from benchmarks.suites import SUITES, suite_func

    _, rec, _ = quick
    seen = {}

    def fake_run(cfg, log=print, command=None):
        seen["quick"], seen["command"] = cfg.quick, command
        return rec

    monkeypatch.setattr(measure, "run", fake_run)
    assert "peers" in SUITES
    out = suite_func("peers")(bench_quick(timings_dir=str(tmp_path)), log=lambda s: None)
    assert seen == {"quick": True, "command": "python -m benchmarks.bench --suite peers --quick"}
    assert out["file"] == "peers.json" and out["crossovers"] == analysis.crossovers(rec)
    assert json.loads((tmp_path / "peers.json").read_text())["rows"] == rec["rows"]


def test_busy_rule_is_the_harness_rule():
    from benchmarks._machine import busy_limit

    limit = busy_limit(2, 1)
    assert measure.is_busy(0.1, limit - 0.01, 2) is False
    assert measure.is_busy(limit + 0.01, 0.1, 2) is True
    assert measure.is_busy(None, 0.1, 2) is None


def test_a_separator_of_the_approximate_kernel_only_does_not_count():
    """Nystroem's alpha must also separate under the exact kernel to win a crossover."""
    fast = _row("snkp-nystroem", 1000, 0.1)
    fast["exact_separated"] = False
    rows = [fast, _row("svc-rbf", 1000, 1.0)]
    (c,) = analysis.crossovers({"rows": rows})
    (e,) = c["by_n"]
    assert e["winner"] == "peers" and e["snkp"] is None and e["fastest"] == "svc-rbf"
    fast["exact_separated"] = True
    (c,) = analysis.crossovers({"rows": rows})
    assert c["by_n"][0]["winner"] == "snkp"


def test_crossover_grid_and_goal_count():
    rows = [
        _row("snkp-factored", 1000, 1.0, rho=0.1),
        _row("svc-linear", 1000, 0.25, rho=0.1),
        _row("snkp-factored", 10000, 1.0),
        _row("svc-linear", 10000, 4.0),
        _row("snkp-factored", 100000, 2.0),
        _row("svc-linear", 100000, 10.0, status="timeout"),
        _row("snkp-factored", 1000000, 5.0, status="timeout"),
        _row("svc-linear", 1000000, 1.0),
    ]
    lines = markdown.crossover_grid_markdown({"rows": rows}).splitlines()
    assert lines[0].count("|") == 7  # problem, rho and four sizes
    assert lines[2].split("|")[3].strip() == "SVC 4x"  # rho = 0.1, n = 1e3: a peer 4x faster
    row = [c.strip() for c in lines[3].split("|")[3:-1]]
    assert row == ["", "SNKP 4x", "SNKP ≥ 5x", "SVC only"]
    # one family per table: the same cells without the problem column
    own = markdown.crossover_grid_markdown({"rows": rows}, "linear").splitlines()
    assert own[0].count("|") == 6
    assert [c.strip() for c in own[3].split("|")[2:-1]] == row
    assert markdown.crossover_grid_markdown({"rows": rows}, "rbf").splitlines()[2:] == []
    with pytest.raises(ValueError, match="family"):
        markdown.crossover_grid_markdown({"rows": rows}, "poly")
    goal = analysis.snkp_goal({"rows": rows})
    assert goal == {
        "cases": 3,
        "snkp_wins": 2,
        "peers_win": 1,
        "lost": [("linear", 0.01, 1000000, "svc-linear")],
    }


def test_kernel_goal_miss_collects_the_losses_and_their_reasons():
    def rbf(solver, n, t, rho=0.01, status="finished", **extra):
        return {**_row(solver, n, t, status=status, rho=rho, family="rbf"), **extra}

    rows = [
        # rho = 1e-2, n = 1e4: SNKP (Nystroem) separated, SVC was 4x faster
        rbf("snkp-nystroem", 10_000, 0.4, nit=120, exact_separated=True, exact_rows="all"),
        rbf("svc-rbf", 10_000, 0.1, n_support=70),
        rbf("snkp-dense", 10_000, 10.0, status="timeout"),
        # rho = 1e-3, n = 1e4: the Nystroem separator fails under the exact kernel
        rbf(
            "snkp-nystroem",
            10_000,
            2.0,
            rho=1e-3,
            nit=1200,
            exact_separated=False,
            exact_rows="all",
            exact_fraction=0.9997,
        ),
        rbf("svc-rbf", 10_000, 3.0, rho=1e-3, n_support=120),
        # outside the goal's region (n < 1e4) and a linear case: ignored for the losses
        rbf("snkp-nystroem", 1000, 0.05, nit=80),
        rbf("svc-rbf", 1000, 0.01, n_support=30),
        _row("svc-linear", 10_000, 0.01),
        _row("snkp-factored", 10_000, 1.0),
    ]
    miss = analysis.kernel_goal_miss({"rows": rows})
    assert miss["slower"] == [(0.01, 10_000, 0.4, 0.1)]
    assert miss["unsolved"] == [(0.001, 10_000, 3.0)]
    assert miss["svc_support"] == (30, 120) and miss["svc_ns"] == (1000, 10_000)
    assert miss["snkp_nit"] == [(10_000, 120)]
    assert miss["nystroem_wrong"] == [(0.001, 10_000, 3)]
    assert miss["dense_cap_n"] == 10_000
    empty = analysis.kernel_goal_miss({"rows": rows[-2:]})
    assert empty["slower"] == empty["unsolved"] == [] and empty["svc_support"] is None


def test_the_grids_cells_name_what_the_committed_record_says():
    """Every cell of the crossover grid names the record's winner, and the overall fastest
    solver where that is neither side (kperc's NKP)."""
    from benchmarks.peers.analysis import crossovers
    from benchmarks.peers.config import DEFAULT_OUT, SHORT_LABELS
    from benchmarks.peers.markdown import crossover_grid_markdown
    from benchmarks.record import load_record

    record = load_record(DEFAULT_OUT)
    checked = 0
    for fam in ("linear", "rbf"):
        lines = crossover_grid_markdown(record, fam).replace("\u2060", "").splitlines()[2:]
        entries = [c for c in crossovers(record) if c["family"] == fam]
        ns = sorted({e["n"] for c in entries for e in c["by_n"]})
        for line, c in zip(lines, entries, strict=True):
            cells = [x.strip() for x in line.strip("|").split("|")][1:]
            by = {e["n"]: e for e in c["by_n"]}
            for n, cell in zip(ns, cells, strict=True):
                e = by.get(n)
                if e is None or e["winner"] is None:
                    continue
                side = "SNKP" if e["winner"] == "snkp" else SHORT_LABELS[e["peer"]]
                assert cell.startswith(side), (fam, c["rho"], n, cell, e)
                fastest = e["fastest"]
                named = f"; {SHORT_LABELS[fastest]} fastest"
                assert (named in cell) == (fastest not in (e["snkp"], e["peer"])), (cell, e)
                checked += 1
    assert checked >= 20

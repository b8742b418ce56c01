"""The benchmark harness ``python -m benchmarks.bench``: a quick smoke run and its logic.

No timing assertions: speed is measured by the harness, not tested. These tests check
that a ``--quick`` run writes a well-formed JSON record with sane values, that the
helpers compute what they claim (margins, caps, crossovers, targets), and that the
allocation-free loops of the algorithms reproduce the textbook iterations bit for bit.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import kperc
from benchmarks import _config, _driver, _machine, _problems, _timing, bench, report, targets
from benchmarks.suites import SUITES
from benchmarks.suites import dist as bench_dist
from benchmarks.suites import memory as bench_memory
from benchmarks.suites import separator as bench_separator


@pytest.fixture(scope="module")
def quick_record(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    assert bench.main(["--quick", "--quiet", "--out", str(out)]) == 0
    text = out.read_text()
    return text, json.loads(text)


def test_quick_run_writes_every_suite(quick_record):
    _, rec = quick_record
    assert rec["schema"] == _config.SCHEMA_VERSION
    assert set(rec["suites"]) == set(SUITES)
    assert rec["settings"]["quick"] is True
    assert rec["command"].startswith("python -m benchmarks.bench --quick")
    for key in ("cpu", "cores", "python", "numpy", "scipy", "scikit-learn"):
        assert key in rec["machine"]
    assert rec["elapsed_s"] > 0
    assert set(rec["suite_elapsed_s"]) == set(SUITES)


def test_record_has_no_machine_paths(quick_record):
    text, _ = quick_record
    for root in ("/" + "work", "/" + "root", "/" + "tmp", "/" + "home"):
        assert root + "/" not in text, root


def test_periter_rows_are_sane(quick_record):
    _, rec = quick_record
    rows = rec["suites"]["periter"]["rows"]
    cfg = _config.quick_config()
    assert len(rows) == len(cfg.sizes) * 2 * len(_config.PERITER_ALGOS)
    for r in rows:
        assert r["algorithm"] in _config.PERITER_TARGETS
        assert r["operator"] in ("dense", "factored")
        assert r["full_length"] is True  # the instance did not let any run halt
        assert r["matvec_s"] > 0 and r["per_iter_s"] >= 0 and r["ratio"] >= 0
        assert r["iters"] >= 16
        assert r["target"] == _config.PERITER_TARGETS[r["algorithm"]]
        cols = r["columns_per_iter"]
        if r["algorithm"] in ("nkp", "nvn"):  # a dense G computes no column
            assert (cols == 0) if r["operator"] == "dense" else (0 < cols <= 1)
        else:
            assert cols is None


def test_separator_rows_are_sane(quick_record):
    _, rec = quick_record
    sep = rec["suites"]["separator"]
    solvers = {r["solver"] for r in sep["rows"]}
    assert solvers == {"snkp", "nkp", "perceptron", "sklearn-perceptron"}
    for r in sep["rows"]:
        assert r["time_s"] >= 0 and r["nit"] >= 0
        if r["separated"]:
            # a separator's normalised margin is positive and at most the exact margin
            assert 0 < r["margin"] <= r["reference_margin"] * (1 + 1e-6)
        else:
            assert r["capped"]
    snkp_rows = [r for r in sep["rows"] if r["solver"] == "snkp"]
    assert all(r["separated"] for r in snkp_rows)  # tiny instances: never capped
    kinds = {(c["operator"], c["n"]) for c in sep["crossover"]}
    assert kinds == {(k, n) for k in ("dense", "factored") for n in _config.quick_config().sizes}


def test_other_suites_are_sane(quick_record):
    _, rec = quick_record
    s = rec["suites"]
    for r in s["kernels"]["rows"]:
        assert r["reference_margin"] > 0
        if r["solver"] in ("snkp", "nkp") and r["separated"]:
            assert 0 < r["margin"] <= r["reference_margin"] * (1 + 1e-6)
    assert {r["solver"] for r in s["kernels"]["rows"]} == {"snkp", "nkp", "sklearn-svc"}
    large = s["large"]["rows"]
    assert any(r["solver"] == "snkp" and r["separated"] for r in large)
    for r in s["certificates"]["rows"]:
        if r["solver"] in ("nvn", "isnkpvn"):
            assert r["certificate"] and r["norm_p_G"] <= r["eps"] * (1 + 1e-9)
        assert r["reference_margin"] < 0
    dist = s["dist"]["rows"]
    assert {r["family"] for r in dist} == set(bench_dist.FAMILIES)
    for r in dist:  # infeasible problems: a witness, with a certified bracket
        assert 0 <= r["dist_lower"] <= r["dist"] < np.inf
        assert r["gap"] == pytest.approx(r["dist"] - r["dist_lower"], abs=1e-15)
        assert r["time_min_s"] <= r["time_s"] <= r["time_max_s"]
    from kperc._classifier import AUTO_N_MAX, AUTO_N_START

    grown = {AUTO_N_START * 2**k for k in range(16) if AUTO_N_START * 2**k <= AUTO_N_MAX}
    for r in s["nystroem"]["rows"]:  # above 5000 points "auto" means Nystroem features,
        # for the RBF kernel with a rank doubled from AUTO_N_START (kperc.snkp_nystroem)
        assert r["gram_form"] == "nystroem" and r["n_components"] in grown
        assert r["separated"] and r["outcome"] == "separator" and r["train_fraction"] == 1.0
        assert r["certified"] and r["time_s"] > 0 and r["peak_in_features"] > 0
    sep = {r["problem"]: r for r in s["separable"]["rows"]}
    # the answers are known: planted margins are positive, flipped labels and the
    # infeasible generator's points are not separable
    assert sep["planted"]["status"] == "separable"
    assert sep["infeasible"]["status"] == "not separable"
    assert sep["planted, 1 % flipped"]["status"] == "not separable"
    assert sep["breast cancer"]["status"] in ("separable", "not separable")
    assert all(r["time_s"] > 0 for r in sep.values())
    mem = s["memory"]["rows"]
    assert {r["algorithm"] for r in mem} == set(bench_memory.MEMORY_ALGOS)
    for r in mem:
        assert r["gram_mb"] > 0 and r["build_peak_over_baseline_in_G"] > 0.5
    assert s["regen"]["total_runtime_s"] >= 0


def test_targets_are_listed_with_values(quick_record):
    _, rec = quick_record
    ids = {t["id"] for t in rec["targets"]}
    for alg in _config.PERITER_ALGOS:
        assert f"periter-dense-{alg}" in ids and f"periter-factored-{alg}" in ids
    assert {
        "large-nkp-speedup",
        "large-sklearn-speedup",
        "large-snkp-time",
        "memory-peak",
        "memory-iterations",
        "regen-total",
        "dist-time",
        "nystroem-memory",
    } <= ids
    for t in rec["targets"]:
        assert t["met"] in (True, False, None)
        assert isinstance(t["detail"], str) and t["detail"]


def test_format_table_mentions_every_target(quick_record):
    _, rec = quick_record
    table = report.format_table(rec)
    for t in rec["targets"]:
        assert t["description"] in table
    assert re.search(r"elapsed \d+ s", table)


# ------------------------------------------------------------------ helpers


def test_normalized_margin_dense_and_factored_agree():
    ds = kperc.datasets.planted(80, 5, 0.1, seed=3)
    G = kperc.gram_matrix(ds.X, ds.y)
    op = kperc.gram_operator(ds.X, ds.y)
    r = kperc.snkp(G)
    m1 = _problems.normalized_margin(G, r.alpha)
    m2 = _problems.normalized_margin(op, r.alpha)
    assert m1 == pytest.approx(m2, rel=1e-9)
    assert 0 < m1 <= 0.1 + 1e-12


def test_run_capped_stops_and_reports_a_lower_bound():
    ds = kperc.datasets.planted(200, 5, 1e-4, near=0.5, seed=0)
    G = kperc.gram_matrix(ds.X, ds.y)
    out = _timing.run_capped(lambda k: kperc.nkp(G, max_iter=k, check_input=False), 0.05)
    assert out["capped"] and out["result"].outcome == "max_iter"
    easy = kperc.datasets.planted(200, 5, 0.2, seed=0)
    G2 = kperc.gram_matrix(easy.X, easy.y)
    out = _timing.run_capped(lambda k: kperc.nkp(G2, max_iter=k, check_input=False), 5.0)
    assert not out["capped"] and out["result"].outcome == "separator"


def test_run_capped_reaches_the_cap_when_iterations_get_cheaper(monkeypatch):
    """Pilots of a warming-up run overestimate its cost; the stopped run still lasts
    about ``cap_s`` (it is quoted as a lower bound on the time to a separator)."""
    clock = {"t": 0.0}
    monkeypatch.setattr(_timing, "_now", lambda: clock["t"])

    def make(k):  # the first 100 iterations cost 1 ms each, the later ones 1 us
        clock["t"] += 1e-3 * min(k, 100) + 1e-6 * max(k - 100, 0)
        return kperc.KpercResult(outcome="max_iter", nit=k)

    out = _timing.run_capped(make, cap_s=1.0)
    assert out["capped"] and 0.95 <= out["time_s"] <= 1.5


def _rows(spec):
    rows = []
    for rho, ts, sc, tn, nc in spec:
        rows.append({"rho": rho, "solver": "snkp", "time_s": ts, "capped": sc})
        rows.append({"rho": rho, "solver": "nkp", "time_s": tn, "capped": nc})
    return rows


def test_crossover_interpolates_between_the_bracketing_margins():
    c = bench_separator.crossover(
        _rows(
            [
                (1e-1, 1.0, False, 0.1, False),
                (1e-2, 1.0, False, 0.5, False),
                (1e-3, 1.0, False, 2.0, False),
            ]
        )
    )
    assert c["kind"] == "interpolated"
    assert c["bracket"] == [1e-3, 1e-2]
    # log-linear interpolation of the speed-up 0.5 -> 2 puts 1 half-way in log rho
    assert c["rho_star"] == pytest.approx(10**-2.5)


def test_crossover_uses_capped_runs_as_bounds():
    c = bench_separator.crossover(
        _rows([(1e-1, 1.0, False, 0.1, False), (1e-2, 1.0, False, 3.0, True)])
    )  # NKP stopped: >= 3
    assert c["kind"] == "interpolated" and c["points"][1]["relation"] == ">="
    both = bench_separator.crossover(_rows([(1e-2, 5.0, True, 5.0, True)]))
    assert both["kind"] == "undecided" and both["rho_star"] is None
    always = bench_separator.crossover(_rows([(1e-1, 1.0, False, 2.0, False)]))
    assert always["kind"] == "snkp-always"
    never = bench_separator.crossover(_rows([(1e-1, 1.0, False, 0.5, False)]))
    assert never["kind"] == "nkp-always"


def test_evaluate_targets_on_a_synthetic_record():
    cfg = _config.quick_config()
    per = {
        "rows": [
            {"n": 500, "operator": "dense", "algorithm": "snkp", "ratio": 1.5},
            {"n": 1000, "operator": "dense", "algorithm": "snkp", "ratio": 1.1},
        ]
    }
    large = {
        "rows": [
            {
                "n": 100,
                "solver": "snkp",
                "time_s": 1.0,
                "nit": 10,
                "separated": True,
                "capped": False,
                "generate_s": 0.1,
            },
            {
                "n": 100,
                "solver": "nkp",
                "time_s": 11.0,
                "nit": 99,
                "separated": False,
                "capped": True,
            },
            {
                "n": 100,
                "solver": "sklearn-perceptron",
                "time_s": 3.0,
                "nit": 5,
                "separated": True,
                "capped": False,
            },
        ]
    }
    t = {x["id"]: x for x in targets.evaluate_targets({"periter": per, "large": large}, cfg)}
    assert t["periter-dense-snkp"]["value"] == 1.5 and t["periter-dense-snkp"]["met"] is False
    assert t["large-nkp-speedup"]["met"] is True  # a stopped NKP still proves >= 11
    assert ">=" in t["large-nkp-speedup"]["detail"]
    assert t["large-sklearn-speedup"]["value"] == pytest.approx(3.0)
    assert t["large-snkp-time"]["met"] is True


def test_memory_child_problem_helpers_do_not_halt():
    X, y = _problems.periter_problem(150, 6)
    G = kperc.gram_matrix(X, y)
    for alg in _config.PERITER_ALGOS:
        assert _problems._fixed_run(alg, G, 40).nit == 40, alg


def test_gram_matrix_in_place_equals_the_allocating_form():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 4))
    y = np.where(rng.random(300) < 0.5, 1.0, -1.0)
    from sklearn.metrics.pairwise import pairwise_kernels

    K = pairwise_kernels(X, metric="rbf", gamma=0.7)
    s = y / np.sqrt(np.diag(K))
    ref = K * s[:, None] * s[None, :]
    ref = 0.5 * (ref + ref.T)
    np.fill_diagonal(ref, 1.0)
    assert np.array_equal(kperc.gram_matrix(X, y, "rbf", gamma=0.7), ref)


# ------------------------------------------------------------ honest measurements


def test_round_robin_alternates_and_rotates():
    order = _timing.round_robin(["a", "b", "c"], 4)
    assert order == [
        (0, "a"), (0, "b"), (0, "c"),
        (1, "b"), (1, "c"), (1, "a"),
        (2, "c"), (2, "a"), (2, "b"),
        (3, "a"), (3, "b"), (3, "c"),
    ]  # fmt: skip
    # no command runs twice in a row within a repeat, and none is always first
    assert {order[3 * r][1] for r in range(3)} == {"a", "b", "c"}
    assert _timing.round_robin([], 3) == []


def test_interleaved_times_runs_the_commands_round_robin():
    ran: list[str] = []
    calls = {k: (lambda k=k: ran.append(k)) for k in ("product", "snkp")}
    ticks = iter(range(1000))
    times = _timing.interleaved_times(calls, 3, clock=lambda: float(next(ticks)))
    assert ran[:2] == ["product", "snkp"]  # the warm-up calls
    assert ran[2:] == ["product", "snkp", "snkp", "product", "product", "snkp"]
    assert {k: len(v) for k, v in times.items()} == {"product": 3, "snkp": 3}
    assert all(t == 1.0 for ts in times.values() for t in ts)
    with pytest.raises(ValueError, match="repeats"):
        _timing.interleaved_times(calls, 0)


def test_per_iteration_interleaves_the_algorithms(monkeypatch):
    X, y = _problems.periter_problem(150, 6)
    G = kperc.gram_matrix(X, y)
    seen: list[tuple[str, int]] = []
    real = _timing._fixed_run

    def spy(alg, GG, iters):
        seen.append((alg, iters))
        return real(alg, GG, iters)

    monkeypatch.setattr(_timing, "_fixed_run", spy)
    out = _timing.per_iteration_interleaved(["nkp", "snkp"], G, repeats=3, target_time=0.002)
    timed = seen[-12:]  # 3 repeats x 2 algorithms x (K, 2K) runs, after the calibration
    algs = [a for a, _ in timed[::2]]
    assert algs == ["nkp", "snkp", "snkp", "nkp", "nkp", "snkp"]
    for alg in ("nkp", "snkp"):
        m = out[alg]
        assert m["order"] == ([0, 1, 0] if alg == "nkp" else [1, 0, 1])
        sp = m["ratio_spread"]
        assert sp["n"] == 3 and sp["min"] <= sp["q1"] <= sp["median"] <= sp["q3"] <= sp["max"]
        assert m["ratio"] == sp["median"] and m["ratio_iqr"] == [sp["q1"], sp["q3"]]
        assert m["full_length"]


def test_summarize_median_and_spread():
    s = _timing.summarize([4.0, 1.0, 3.0, 2.0])
    assert s == {"median": 2.5, "q1": 1.75, "q3": 3.25, "min": 1.0, "max": 4.0, "n": 4}
    assert _timing.summarize([7.0])["median"] == 7.0
    with pytest.raises(ValueError, match="at least one"):
        _timing.summarize([])


def test_busy_rule():
    # own BLAS threads + 0.5 + 0.1 per core
    assert _machine.busy_limit(2, 1) == pytest.approx(1.7)
    assert _machine.busy_limit(8, 2) == pytest.approx(3.3)
    assert _machine.busy_limit(4, None) == pytest.approx(4 + 0.5 + 0.4)  # unlimited BLAS
    quiet = _machine.busy_verdict([1.2, 1, 1], [1.6, 1, 1], 2, 1)
    assert quiet == {"busy": False, "load_1min": 1.6, "limit": pytest.approx(1.7)}
    assert _machine.busy_verdict([0.3, 0, 0], [1.8, 1, 1], 2, 1)["busy"] is True
    assert _machine.busy_verdict([1.9, 0, 0], [0.1, 0, 0], 2, 1)["busy"] is True
    assert _machine.busy_verdict(None, None, 2, 1)["busy"] is None


def test_busy_suites_leave_their_targets_undecided(quick_record):
    _, rec = quick_record
    cfg = _config.quick_config()
    suites = json.loads(json.dumps(rec["suites"]))
    for s in suites.values():
        s["measured"].update(busy=False, busy_load_1min=0.1, busy_limit=1.7)
    quiet = {t["id"]: t for t in targets.evaluate_targets(suites, cfg)}
    assert not any(t.get("busy") for t in quiet.values())
    suites["periter"]["measured"].update(busy=True, busy_load_1min=3.2)
    busy = {t["id"]: t for t in targets.evaluate_targets(suites, cfg)}
    for tid, t in busy.items():
        if tid.startswith("periter-"):
            assert t["busy"] and t["met"] is None and t["met_if_not_busy"] == quiet[tid]["met"]
            assert t["value"] == quiet[tid]["value"]
            assert "busy machine" in t["detail"] and "3.20 above 1.70" in t["detail"]
            assert "busy machine" in report.target_verdict(t)
        else:
            assert t == quiet[tid]
    rec2 = {**rec, "suites": suites, "targets": list(busy.values())}
    table = report.format_table(rec2)
    assert "busy" in table and "periter (load 3.20 > 1.70)" in table


def test_record_has_spread_and_load_per_suite(quick_record):
    _, rec = quick_record
    for name, s in rec["suites"].items():
        m = s["measured"]
        assert len(m["loadavg_start"]) == 3 and len(m["loadavg_end"]) == 3, name
        assert m["busy_limit"] > 1
        if name in ("memory", "regen"):  # untimed: the busy rule does not apply
            assert m["busy"] is None
        else:
            assert m["busy"] == (max(m["loadavg_start"][0], m["loadavg_end"][0]) > m["busy_limit"])
    busy = {k for k, s in rec["suites"].items() if s["measured"]["busy"]}
    assert set(rec["busy_suites"]) == busy
    for r in rec["suites"]["periter"]["rows"]:
        sp = r["ratio_spread"]
        assert sp["min"] <= r["ratio"] <= sp["max"] and sp["n"] == 2
    table = report.format_table(rec)
    assert re.search(r"\d\.\d{3} \[\d+\.\d\d-\d+\.\d\d\]", table)


def test_floor_suite_breaks_the_iteration_down(quick_record):
    _, rec = quick_record
    fl = rec["suites"]["floor"]
    assert fl["n"] == _config.quick_config().floor_n
    assert set(fl["steps"]["numpy"]) == {"update", "softmax", "p_update"}
    assert set(fl["softmax_parts"]) == {"min", "shift", "mask", "exp", "normalise"}
    assert fl["product_s"]["median"] > 0
    for v, r in fl["iteration_ratio"].items():
        # an iteration contains the product, so it costs more than one product
        assert r["median"] > 1.0, v
        assert fl["floor_in_products"][v]["median"] == pytest.approx(r["median"] - 1.0)
    assert set(fl["library"]) == {"snkp", "snkpvn"}
    if fl["numexpr"] is not None:
        r_ne = fl["iteration_ratio"]["numexpr"]["median"]
        assert fl["numexpr_meets_target"] == (r_ne <= _config.PERITER_TARGETS["snkp"])
    ids = {t["id"] for t in rec["targets"]}
    assert "floor-snkp" in ids


def test_floor_numexpr_step_matches_numpy():
    """The numexpr variant times the same step: same iterates up to rounding."""
    ne = pytest.importorskip("numexpr")
    from benchmarks.suites import floor

    X, Y, Z, mu, theta, op = floor._state(300, 8, 0)
    mv, _ = _problems._products(op)
    Xa, Ya, Za = X.copy(), Y.copy(), Z.copy()
    Xb, Yb, Zb = X.copy(), Y.copy(), Z.copy()
    a = floor._numpy_steps(Xa, Ya, Za, mu, theta, mv)
    b = floor._numexpr_steps(Xb, Yb, Zb, mu, theta, mv, ne)
    for step in ("update", "softmax", "p_update"):
        a[step]()
        b[step]()
    assert not np.allclose(Xa, X)  # the steps did something
    np.testing.assert_allclose(Xb, Xa, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(Zb[0], Za[0], rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(Yb, Ya, rtol=1e-10, atol=1e-300)


# ---------------------------------------------------------- the chapters' timings


def test_chapter_timing_suites_write_the_chapters_files(quick_record, tmp_path):
    from kperc_book.experiments import ch04, ch07

    _, rec = quick_record
    assert rec["suites"]["realdata"]["file"] == "ch04-realdata.json"
    assert rec["suites"]["svm"]["file"] == "ch07-svm.json"
    # the quick run wrote beside its record, never over the book's files
    assert rec["settings"]["timings_dir"].endswith("timings")
    from benchmarks.suites.realdata import write_timings as write04
    from benchmarks.suites.svm import write_timings as write07

    p4 = write04(tmp_path / "ch04.json", repeats=2, names=("circles-rbf",))
    back = ch04.read_timings(tmp_path / "ch04.json")
    assert back == p4
    assert {r["method"] for r in back["rows"]} == {"nkp", "snkp"}
    for r in back["rows"]:
        assert r["seconds_median"] > 0 and r["repeats"] == 2 and r["n"] == 200
        assert r["seconds_min"] == r["seconds_spread"]["min"] <= r["seconds_median"]
    assert back["command"] == "python -m benchmarks.bench --suite realdata"
    for key in ("platform", "cpu_count", "python", "numpy"):  # what the chapter reads
        assert key in back["machine"]
    p7 = write07(tmp_path / "ch07.json", repeats=2, problems=["xor-poly"])
    back = ch07.read_timings(tmp_path / "ch07.json")
    assert back == json.loads(json.dumps(p7))
    assert back["command"] == "python -m benchmarks.bench --suite svm"
    assert {r["method"] for r in back["results"]} == set(ch07.TIMING_METHODS)
    assert all(len(r["seconds"]) == 2 for r in back["results"])
    for key in ("cpu_model", "processor", "cpu_count", "python", "numpy", "scipy"):
        assert key in back["machine"]
    assert "load_average_1min_at_start" in back["machine"]
    with pytest.raises(ValueError, match="repeats"):
        write07(tmp_path / "x.json", repeats=0)
    with pytest.raises(ValueError, match="repeats"):
        write04(tmp_path / "x.json", repeats=0)


def test_cli_runs_a_subset_and_records_no_paths(tmp_path):
    out, tdir = tmp_path / "b.json", tmp_path / "tim"
    argv = ["--quick", "--quiet", "--suite", "realdata", "--out", str(out)]
    assert bench.main([*argv, "--timings-dir", str(tdir)]) == 0
    assert (tdir / "ch04-realdata.json").exists() and not (tdir / "ch07-svm.json").exists()
    text = out.read_text()
    assert str(tmp_path) not in text and "--timings-dir tim" in text
    assert set(json.loads(text)["suites"]) == {"realdata"}


def test_cli_rejects_an_unknown_suite(tmp_path, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--quick", "--suite", "nosuch", "--out", str(tmp_path / "b.json")])
    assert "unknown suite" in capsys.readouterr().err


def test_suites_register_by_name():
    from benchmarks import suites

    assert SUITES == tuple(suites.SUITE_ENTRY_POINTS)
    for name in SUITES:
        assert callable(suites.suite_func(name)), name
    with pytest.raises(ValueError, match="unknown suite"):
        suites.suite_func("nosuch")


def test_a_suite_is_one_module_and_one_registry_line(monkeypatch):
    """A new suite's module brings its run, targets, verdict direction, summary and timing."""
    import sys
    import types

    from benchmarks import suites

    toy = types.ModuleType("toy_suite")
    toy.suite_toy = lambda cfg, log=print: {"rows": [{"speedup": 3.0}, {"speedup": 0.5}]}
    toy.targets = lambda res, cfg: [
        targets.target("toy-speedup", "toy speed-up", r["speedup"], 1.0, r["speedup"] >= 1, "")
        for r in res["rows"]
    ]
    toy.HIGHER_IS_BETTER = frozenset({"toy-speedup"})
    toy.summary = lambda res: ["", f"toy rows: {len(res['rows'])}"]
    toy.timed = lambda cfg: cfg.quick
    monkeypatch.setitem(sys.modules, "toy_suite", toy)
    monkeypatch.setitem(suites.SUITE_ENTRY_POINTS, "toy", "toy_suite:suite_toy")
    monkeypatch.setattr(suites, "SUITES", tuple(suites.SUITE_ENTRY_POINTS))

    cfg = _config.quick_config()
    result = suites.suite_func("toy")(cfg)
    assert suites.is_timed("toy", cfg) and not suites.is_timed("toy", _config.default_config())
    assert suites.report_order(["toy", "floor", "periter"]) == ["periter", "floor", "toy"]
    result["measured"] = {"busy": False}
    got = targets.evaluate_targets({"toy": result}, cfg)
    assert [(t["id"], t["met"]) for t in got] == [("toy-speedup", True), ("toy-speedup", False)]
    assert report.target_verdict(got[0]).startswith("**met** (3 >= 1)")
    assert report.target_verdict(got[1]) == "**missed** (0.5 against at least 1)"
    result["measured"] = {"busy": True, "busy_load_1min": 2.5, "busy_limit": 1.7}
    (busy, _) = targets.evaluate_targets({"toy": result}, cfg)
    assert busy["met"] is None and busy["met_if_not_busy"] is True
    rec = {"suites": {"toy": result}, "targets": got, "elapsed_s": 1, "loadavg_start": None}
    assert "toy rows: 2" in report.format_table({**rec, "loadavg_end": None})


def test_every_target_names_its_suite(quick_record):
    from benchmarks import suites

    _, rec = quick_record
    for t in rec["targets"]:
        assert suites.suite_of_target(t["id"]) in rec["suites"], t["id"]
    order = suites.report_order(rec["suites"])
    seen = [suites.suite_of_target(t["id"]) for t in rec["targets"]]
    assert seen == sorted(seen, key=order.index)  # grouped by suite, in the report order


# ------------------------------------------------------------ machine and checkout


def test_machine_info_keys():
    from kperc_book import machine

    info = machine.machine_info()
    # what bench.json, the benchmarks page and chapters 4 and 7 read
    for key in (
        "cpu", "cores", "memory_gb", "platform", "python", "numpy", "scipy",
        "scikit-learn", "cpu_count", "cpu_model", "processor", "loadavg", "threads",
    ):  # fmt: skip
        assert key in info, key
    assert info["cores"] == info["cpu_count"] and info["cpu"] == info["cpu_model"]
    assert info["platform"] == machine.platform_tag()
    text = json.dumps(info)
    for root in ("/" + "work", "/" + "root", "/" + "tmp", "/" + "home"):
        assert root + "/" not in text, root
    assert _driver.machine_info is machine.machine_info  # the record's machine block
    from kperc_book import reproduce

    v = reproduce.versions()
    assert v["platform"] == info["platform"] and v["numpy"] == info["numpy"]


def test_book_tools_need_a_checkout(monkeypatch, tmp_path, capsys):
    from kperc_book import ledger, paths

    monkeypatch.setattr(paths, "TOC", tmp_path / "_toc.yml")
    with pytest.raises(paths.NotACheckout, match="not a kperc-book checkout"):
        bench.main(["--quick", "--out", str(tmp_path / "b.json")])
    with pytest.raises(paths.NotACheckout, match="not a kperc-book checkout"):
        ledger.main([])
    assert not (tmp_path / "b.json").exists()


@pytest.mark.parametrize(
    "modname",
    [
        "kperc_book.machine",
        "benchmarks._timing",
        "benchmarks.suites",
        "benchmarks.peers.analysis",
        "benchmarks.peers.markdown",
        "benchmarks.record",
    ],
)
def test_harness_doctests(modname):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(modname), optionflags=doctest.ELLIPSIS)
    assert res.attempted > 0 and res.failed == 0, res

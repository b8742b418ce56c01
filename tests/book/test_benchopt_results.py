"""kperc_book.benchopt_results: the tables the benchmarks page and ch07 read from benchopt.

Hand-made frames in benchopt's layout check each rule (first separated point, the final
margin, the cell's pooling, the winner's rule); the small results file of a real run
(tests/book/data/benchopt_small.parquet) checks the tables against a direct computation.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kperc_book import benchopt_results as br

SMALL = Path(__file__).parent / "data" / "benchopt_small.parquet"


def _curve(dataset, solver, times, separated, margins, rep=0):
    """benchopt's rows of one curve: budgets 0, 1, 2, ... with the given values."""
    return [
        {
            "dataset_name": dataset,
            "solver_name": solver,
            "idx_rep": rep,
            "stop_val": k,
            "time": t,
            "objective_separated": s,
            "objective_min_margin": m,
        }
        for k, (t, s, m) in enumerate(zip(times, separated, margins, strict=True))
    ]


def _frame(*curves):
    return pd.DataFrame([row for curve in curves for row in curve])


def test_parse_dataset_name():
    assert br.parse_dataset_name("planted[d=20,n=2000,norms=spread,rho=0.001,seed=0]") == (
        "planted",
        {"d": 20, "n": 2000, "norms": "spread", "rho": 0.001, "seed": 0},
    )
    assert br.parse_dataset_name("real[problem=circles-rbf]") == (
        "real",
        {"problem": "circles-rbf"},
    )
    assert br.parse_dataset_name("theirs") == ("theirs", {})
    with pytest.raises(ValueError, match="no '='"):
        br.parse_dataset_name("planted[d20]")


def test_runs_first_separated_point_and_final_margin():
    name = "planted[d=3,n=10,norms=unit,rho=0.1,seed=0]"
    df = _frame(
        # rows given out of order: runs() orders each curve by its budget
        _curve(name, "a", [0.0, 0.1, 0.2, 0.3], [0, 0, 1, 1], [0.0, -0.1, 0.05, 0.07])[::-1],
        _curve(name, "b", [0.0, 0.5], [0, 0], [0.0, -0.2]),
    )
    table = br.runs(df).set_index("solver")
    assert table.loc["a", "time_to_separate"] == 0.2
    assert table.loc["a", "final_min_margin"] == 0.07
    assert table.loc["a", "separated"] and not table.loc["b", "separated"]
    assert math.isnan(table.loc["b", "time_to_separate"])
    assert table.loc["b", "final_min_margin"] == -0.2
    assert (table["family"] == "planted").all() and (table["rho"] == 0.1).all()
    assert str(table["n"].dtype) == "Int64" and table["rho"].dtype == float
    assert table.loc["a", "points"] == 4
    assert (
        table.loc["a", "curve_time"] == pytest.approx(0.6) and table.loc["a", "final_time"] == 0.3
    )
    assert table.loc["a", "final_separated"] and not table.loc["b", "final_separated"]
    assert table["final_fraction"].isna().all()  # this frame has no such column


def _race(times_by_solver, rho=0.01):
    """A cell of 3 seeds x 2 dims: each solver separates at the given times (None: never)."""
    curves = []
    instances = [(s, d) for s in range(3) for d in (5, 8)]
    for solver, times in times_by_solver.items():
        for (seed, d), t in zip(instances, times, strict=True):
            name = f"crowded[d={d},n=50,rho={rho},seed={seed}]"
            sep = 0 if t is None else 1
            curves.append(_curve(name, solver, [0.0, t or 1.0], [0, sep], [0.0, 0.01]))
    return br.runs(_frame(*curves))


def test_summary_pools_seeds_and_dimensions():
    table = _race({"fast": [1, 2, 3, 4, 5, 6], "never": [None] * 6})
    s = br.summary(table).set_index("solver")
    assert list(s.columns[:3]) == ["family", "n", "rho"]  # seed and d are pooled
    assert s.loc["fast", ["runs", "separated", "seeds", "dims"]].tolist() == [6, 6, 3, 2]
    assert s.loc["fast", ["median", "min", "max"]].tolist() == [3.5, 1, 6]
    assert s.loc["never", "separated"] == 0 and math.isnan(s.loc["never", "median"])


def test_winner_only_where_decided():
    decided = br.winners(_race({"a": [1, 1, 1, 1, 1, 1], "b": [2, 2, 2, 2, 2, 0.5]}))
    assert decided.loc[0, "fastest"] == "a" and not decided.loc[0, "decided"]
    assert decided.loc[0, "winner"] == ""  # b was faster on one instance
    clear = br.winners(_race({"a": [1] * 6, "b": [2] * 6, "c": [None, 1, 1, 1, 1, 1]}))
    row = clear.iloc[0]
    # c failed once: not a candidate, although it was as fast as a where it separated
    assert row["candidates"] == 2 and row["winner"] == "a" and row["runner_up"] == "b"
    assert row["ratio"] == 2.0 and row["instances"] == 6
    assert (row["seeds"], row["dims"]) == (3, 2)
    none = br.winners(_race({"a": [None] + [1] * 5}))
    assert none.loc[0, "winner"] == "" and none.loc[0, "candidates"] == 0


def test_runs_keep_integer_parameters_beside_a_family_without_them():
    df = _frame(
        _curve("planted[d=3,n=10,rho=0.1,seed=0]", "a", [0.0, 0.1], [0, 1], [0.0, 0.1]),
        _curve("real[problem=xor]", "a", [0.0, 0.1], [0, 1], [0.0, 0.1]),
    )
    table = br.runs(df).set_index("family")
    assert table.loc["planted", "n"] == 10 and str(table["n"].dtype) == "Int64"
    assert pd.isna(table.loc["real", "n"]) and table.loc["real", "problem"] == "xor"


def test_read_refuses_a_foreign_file(tmp_path):
    path = tmp_path / "other.csv"
    pd.DataFrame({"x": [1]}).to_csv(path)
    with pytest.raises(ValueError, match="not a results file"):
        br.read(path)


@pytest.fixture(scope="module")
def small():
    return br.read(SMALL)


def test_small_file_runs_match_a_direct_computation(small):
    table = br.runs(small)
    assert len(table) == small.groupby(["dataset_name", "solver_name", "idx_rep"]).ngroups
    for row in table.sample(n=min(20, len(table)), random_state=0).itertuples():
        curve = small[
            (small["dataset_name"] == row.dataset)
            & (small["solver_name"] == row.solver)
            & (small["idx_rep"] == row.rep)
        ].sort_values("stop_val")
        hit = curve[curve["objective_separated"] == 1]
        assert row.separated == (len(hit) > 0)
        if len(hit):
            assert row.time_to_separate == hit["time"].iloc[0]
        assert row.final_min_margin == curve["objective_min_margin"].iloc[-1]
        assert row.final_separated == (curve["objective_separated"].iloc[-1] == 1)
        assert row.final_fraction == curve["objective_fraction_separated"].iloc[-1]


def test_small_file_summary_and_winners_agree(small):
    table = br.runs(small)
    s = br.summary(table)
    w = br.winners(table)
    assert s["runs"].sum() == len(table)
    assert (s["separated"] <= s["runs"]).all()
    ok = s["separated"] > 0
    assert (s.loc[ok, "min"] <= s.loc[ok, "median"]).all()
    assert (s.loc[ok, "median"] <= s.loc[ok, "max"]).all()
    keys = [c for c in w.columns if c in s.columns and c != "solver"]
    for row in w[w["decided"]].itertuples():
        cell = s[np.logical_and.reduce([s[k] == getattr(row, k) for k in keys])]
        won = cell.set_index("solver").loc[row.winner]
        assert won["separated"] == won["runs"]
        everywhere = cell[cell["separated"] == cell["runs"]]
        assert won["median"] == everywhere["median"].min()


def test_small_file_environment(small):
    env = br.environment(small)
    assert env["cpus"] == int(small["system-cpus"].iloc[0])
    assert env["platform"] == small["platform"].iloc[0]
    assert env["first_run"] <= env["last_run"]


# --------------------------------------------------------------- words for a reader
def test_solver_family_and_number_labels():
    assert br.solver_label("sklearn-svc[C=1000000.0]") == "SVC (C = 10⁶)"
    assert br.solver_label("kperc-normalized-perceptron") == "Normalised Perceptron"
    assert br.solver_label("sklearn-linearsvc[C=1000000.0,random_state=0]") == "LinearSVC"
    assert br.solver_label("theirs[x=1]") == "theirs"  # an unknown solver keeps its name
    assert br.solver_parameters("sklearn-linearsvc[C=1000000.0,random_state=0]") == (
        "C = 10⁶, random_state = 0"
    )
    assert br.family_label("planted", "unit") == "planted, unit norms"
    assert br.family_label("two_rays", float("nan")) == "two rays"
    assert br.family_label("my_family") == "my family"
    assert [br.number_label(x) for x in (0.001, 0.01, 0.05, 2000, 1e6)] == [
        "10⁻³",
        "10⁻²",
        "0.05",
        "2000",
        "10⁶",
    ]
    assert br.problem_label("digits_3_vs_8-rbf") == "digits 3 vs 8, RBF"


def test_table_uses_words_and_keeps_the_lines_of_a_cell():
    frame = pd.DataFrame(
        {
            "family": ["planted", "planted_rbf"],
            "norms": ["spread", ""],
            "rho": [0.001, 0.01],
            "fastest": ["kperc-snkp", "sklearn-svc"],
            "runner_up": ["kperc-isnkpvn", ""],
            "entry": ["0.1 s\n(0.05–0.2)\n6/6", "<b>"],
        }
    ).set_index(["family", "norms", "rho"])
    t = br.table(frame, {"sklearn-svc": "SVC (C = 10⁶)"})
    html = t._repr_html_()
    assert 'class="dataframe kperc-table"' in html
    assert "planted, spread norms" in html and "planted RBF" in html and "10⁻³" in html
    assert "SNKP" in html and "ISNKPVN" in html and "SVC (C = 10⁶)" in html
    assert "runner-up" in html and "margin ρ" in html and "runner_up" not in html
    # a cell's lines one below the other, a range or a count never broken
    nowrap = '<span class="kperc-nowrap">{}</span>'
    assert "0.1 s<br>" + nowrap.format("(0.05–0.2)") + "<br>" + nowrap.format("6/6") in html
    assert "&lt;b&gt;" in html and "<b>" not in html  # text is escaped
    text = repr(t)
    assert "0.1 s (0.05–0.2) 6/6" in text and "kperc-" not in text


def test_device_records_and_table(tmp_path):
    """The record ``make bench-device`` writes, read and shown step by step."""
    assert br.device_records(tmp_path / "missing") == []
    assert br.device_records(tmp_path) == []
    record = {
        "device": "Fake GPU",
        "date": "2026-12-02",
        "sizes": {"n": 100000, "n_fly": 1000000},
        "steps": {
            "snkp": {
                "status": "done",
                "outcome": "separator",
                "certified": True,
                "nit": 7,
                "seconds": 0.25,
            },
            "svc": {"status": "budget reached", "budget_s": 60.0},
        },
    }
    (tmp_path / "a.json").write_text(json.dumps(record))
    (loaded,) = br.device_records(tmp_path)
    assert loaded["device"] == "Fake GPU" and loaded["file"] == "a.json"
    frame = br.device_table(loaded).frame
    assert frame["result"].tolist() == [
        "certified separator, 7 iterations",
        "stopped at its time budget",
    ]
    assert frame["seconds"].tolist() == ["0.25", "60"]
    assert frame["where"].tolist() == ["GPU", "CPUs"]
    assert frame["problem"].tolist() == ["n = 10⁵, ρ = 10⁻³"] * 2
    del record["steps"]
    (tmp_path / "b.json").write_text(json.dumps(record))
    with pytest.raises(ValueError, match=r"b\.json has no \['steps'\]"):
        br.device_records(tmp_path)
    record["steps"] = {"warp": {}}
    (tmp_path / "b.json").write_text(json.dumps(record))
    with pytest.raises(ValueError, match=r"unknown steps \['warp'\]"):
        br.device_records(tmp_path)

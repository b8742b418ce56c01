"""The micro-benchmarks' machinery (``bench/``): the no-erase rule of ``bench.run``, the
task loaders of ``bench.datasets`` and the arithmetic of ``bench.report``.

Fast: no benchmark is timed here (``pytest bench --benchmark-disable`` runs each once).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from bench import datasets, report, run
from kperc_book import paths


def _payload(names, stats=True):
    return {
        "machine_info": {},
        "commit_info": {},
        "datetime": "2026-11-27T00:00:00",
        "benchmarks": [
            {"name": n, "extra_info": {}, "stats": {"median": 1.0, "rounds": 3} if stats else None}
            for n in names
        ],
    }


@pytest.fixture
def committed(tmp_path):
    dest = tmp_path / "out" / "group.json"
    dest.parent.mkdir()
    dest.write_text(json.dumps(_payload(["a", "b"])))
    return dest


def _result(tmp_path, payload):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(payload))
    return path


# ------------------------------------------------------------------ the no-erase rule
@pytest.mark.parametrize(
    ("payload", "returncode", "why"),
    [
        (_payload(["a", "b"]), 1, "pytest exited 1"),  # a failed benchmark
        (_payload([]), 5, "pytest exited 5"),  # nothing collected
        (_payload([]), 0, "measured nothing"),
        (_payload(["a", "b"], stats=False), 0, "no statistics"),
        (_payload(["a"]), 0, "lacks 1 benchmark"),  # a -k selection
        ({"machine_info": {}}, 0, "no readable result"),
    ],
)
def test_publish_never_erases_the_committed_file(tmp_path, committed, payload, returncode, why):
    before = committed.read_bytes()
    with pytest.raises(run.Refused, match=why):
        run.publish(_result(tmp_path, payload), committed, returncode)
    assert committed.read_bytes() == before


def test_publish_refuses_a_missing_result(tmp_path, committed):
    before = committed.read_bytes()
    with pytest.raises(run.Refused, match="no readable result"):
        run.publish(tmp_path / "absent.json", committed, 0)
    assert committed.read_bytes() == before


def test_publish_keeps_the_rounds_of_short_benchmarks_only(tmp_path, committed):
    payload = _payload(["a", "b"])
    payload["benchmarks"][0]["stats"] = {"median": 1.0, "rounds": 3, "data": [1.0, 1.0, 2.0]}
    payload["benchmarks"][1]["stats"] = {"median": 1.0, "rounds": 400, "data": [1.0] * 400}
    run.publish(_result(tmp_path, payload), committed, 0)
    a, b = json.loads(committed.read_text())["benchmarks"]
    assert a["stats"]["data"] == [1.0, 1.0, 2.0]
    assert "data" not in b["stats"] and b["stats"]["median"] == 1.0


def test_publish_replaces_with_a_complete_run(tmp_path, committed):
    run.publish(_result(tmp_path, _payload(["a", "b", "c"])), committed, 0)
    assert [b["name"] for b in json.loads(committed.read_text())["benchmarks"]] == ["a", "b", "c"]
    assert not list(committed.parent.glob("*.part"))
    fresh = tmp_path / "new" / "group.json"  # no committed file yet: written
    run.publish(_result(tmp_path, _payload(["x"])), fresh, 0)
    assert fresh.exists()


@pytest.mark.parametrize("groups", [[""], ["nope"], ["realdata", ""]])
def test_cli_refuses_an_empty_or_unknown_group(groups, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        run.main([*groups, "--out-dir", str(tmp_path)])
    assert exc.value.code == 2 and "unknown group" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_run_that_selects_nothing_leaves_the_file(tmp_path, committed):
    """End to end: pytest collects nothing (``-k``), exits 5; the file is not touched."""
    target = committed.with_name("realdata.json")
    committed.rename(target)
    before = target.read_bytes()
    proc = subprocess.run(
        [sys.executable, "-m", "bench.run", "realdata", "--out-dir", str(target.parent)]
        + ["--work-dir", str(tmp_path / "work")]
        + ["--", "-k", "no_such_benchmark"],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert "REFUSED" in proc.stderr and target.read_bytes() == before


# ------------------------------------------------------------------------ the loaders
@pytest.mark.parametrize("task", datasets.SKLEARN_TASKS, ids=lambda t: t.name)
def test_sklearn_task(task):
    data = datasets.load_task(task)
    Xtr, ytr, Xte, yte = data["X_train"], data["y_train"], data["X_test"], data["y_test"]
    n = len(ytr) + len(yte)
    assert Xtr.shape == (len(ytr), Xte.shape[1]) and len(yte) == pytest.approx(0.3 * n, abs=1)
    np.testing.assert_allclose(Xtr.mean(axis=0), 0.0, atol=1e-12)  # standardised on train
    classes = np.unique(ytr)
    if task.classes is not None:
        assert set(classes) == set(task.classes)
    elif task.positive is not None:
        assert set(classes) == {0, 1}
    else:
        assert classes.size >= 2
    assert set(np.unique(yte)) == set(classes)  # stratified
    again = datasets.load_task(task)
    np.testing.assert_array_equal(again["X_train"], Xtr)  # the same seeded split


def _fake_wheel(folder):
    """A wheel with ISLP's layout and tiny CSV files of the same columns."""
    rng = np.random.default_rng(0)
    path = folder / datasets.ISLP_WHEEL
    n = 40
    lags = ",".join(f"Lag{i}" for i in range(1, 6))
    rows = [f"Year,{lags},Volume,Today,Direction"]
    for i in range(n):
        vals = ",".join(f"{v:.3f}" for v in rng.standard_normal(6))
        rows.append(f"{1990 + i},{vals},{rng.standard_normal():.3f},{'Up' if i % 2 else 'Down'}")
    oj = ["Purchase,PriceCH,Store7"] + [
        f"{'MM' if i % 3 else 'CH'},{1.5 + i / 100:.2f},{'Yes' if i % 2 else 'No'}"
        for i in range(n)
    ]
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ISLP/data/Weekly.csv", "\n".join(rows) + "\n")
        z.writestr("ISLP/data/OJ.csv", "\n".join(oj) + "\n")
        for part, m in (("xtrain", 8), ("xtest", 4)):
            x = "\n".join(",".join(f"{v:.2f}" for v in rng.random(3)) for _ in range(m))
            z.writestr(f"ISLP/data/Khan_{part}.csv", '"V1","V2","V3"\n' + x + "\n")
        for part, m in (("ytrain", 8), ("ytest", 4)):
            y = "\n".join(str(1 + i % 4) for i in range(m))
            z.writestr(f"ISLP/data/Khan_{part}.csv", '"x"\n' + y + "\n")
    return path


def test_islp_wheel_is_checked(tmp_path, monkeypatch):
    with pytest.raises(RuntimeError, match="is not in"):
        datasets.islp_wheel(tmp_path, download=False)
    path = _fake_wheel(tmp_path)
    with pytest.raises(RuntimeError, match="SHA-256"):
        datasets.islp_wheel(tmp_path, download=False)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    monkeypatch.setattr(datasets, "ISLP_SHA256", digest)
    assert datasets.islp_wheel(tmp_path, download=False) == path
    with pytest.raises(RuntimeError, match="0 files named Smarket.csv"):
        datasets.islp_csv(path, "Smarket")


def test_islp_tasks_from_the_wheel(tmp_path):
    wheel = _fake_wheel(tmp_path)
    weekly = datasets.load_task(datasets.Task("Weekly", "Weekly", "ISLP"), wheel)
    # Year and Today (whose sign is Direction) are left out: Lag1-5 and Volume remain
    assert weekly["X_train"].shape == (28, 6)
    assert set(np.unique(weekly["y_train"])) == {"Down", "Up"}
    oj = datasets.load_task(datasets.Task("OJ", "OJ", "ISLP"), wheel)
    assert oj["X_train"].shape[1] == 2  # PriceCH and Store7 one-hot (first level dropped)
    khan = datasets.load_task(datasets.Task("Khan", "Khan", "ISLP"), wheel)
    assert khan["X_train"].shape == (8, 3) and khan["X_test"].shape == (4, 3)  # its own split
    assert set(khan["y_train"]) == {1, 2, 3, 4}
    with pytest.raises(ValueError, match="needs the ISLP wheel"):
        datasets.load_task(datasets.Task("OJ", "OJ", "ISLP"))


# ------------------------------------------------------------------------- the report
def _bench(median, **info):
    return {"name": str(info), "extra_info": info, "stats": {"median": median, "rounds": 5}}


def test_report_per_iteration_removes_the_fixed_cost():
    rows = [
        _bench(1e-3, n=100, form="dense", what="product"),
        # 10 more iterations cost 5 ms more: 0.5 ms each, half a product
        _bench(0.020, n=100, form="dense", what="iterations", algorithm="snkp", iterations=10),
        _bench(
            0.025,
            n=100,
            form="dense",
            what="iterations",
            algorithm="snkp",
            iterations=20,
            products_counted=12,
        ),
    ]
    rows[1]["extra_info"]["products_counted"] = 2
    (row,) = report.periter({"benchmarks": rows})
    assert row["met"] and "0.5 timed, 1 counted" in row["value"]


def test_report_fixed_cost_and_classifier():
    rows = [
        _bench(1e-3, n=2000, what="product"),
        _bench(0.019, n=2000, what="call", algorithm="snkp", products_counted=3),
        _bench(0.021, n=2000, what="call", algorithm="nvn", products_counted=2),
    ]
    (row,) = report.fixedcost({"benchmarks": rows})
    assert not row["met"] and row["value"].startswith("nvn: 21")
    fits = [
        _bench(0.1, task="t", kernel="rbf", estimator="sklearn"),
        _bench(
            1.5,
            task="t",
            kernel="rbf",
            estimator="kperc",
            budget_s=2.0,
            within_budget=True,
            ended="separator",
        ),
    ]
    (row,) = report.classifier({"benchmarks": fits})
    assert row["met"] and "1.5 s of 2 s, separator" in row["value"]


def test_report_is_separable_against_the_lp():
    rows = [
        _bench(0.10, problem="a", what="lp"),
        _bench(0.19, problem="a", what="is_separable", status="separable"),
        _bench(0.10, problem="b", what="lp"),
        _bench(0.21, problem="b", what="is_separable", status="not separable"),
    ]
    ok, slow = report.separable({"benchmarks": rows})
    assert ok["met"] and ok["value"].startswith("1.9 x")
    assert not slow["met"] and slow["value"].startswith("2.1 x")

"""The benchmarks page's section "The classifier on real data" (benchmarks.page_classifier)
and the classifier suite's targets, summary and data loading.

Synthetic records check each branch (each way a fit ends, met and missed targets, ISLP
available or not, not measured); the committed record must hold the suite.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks import page_classifier as pc
from benchmarks.page import as_dict
from benchmarks.record import load_record
from benchmarks.suites import classifier
from benchmarks.targets import evaluate_targets
from kperc_book import paths


def _row(task, dataset, kernel, ratio, outcome="separator", conflicts=0, source="sklearn"):
    peer = 0.002
    return {
        "task": task,
        "dataset": dataset,
        "source": source,
        "kernel": kernel,
        "n_train": 400,
        "n_test": 170,
        "d": 30,
        "ratio": ratio,
        "target_ratio": classifier.TARGET_RATIO,
        "met": ratio <= classifier.TARGET_RATIO,
        "kperc": {
            "estimator": classifier.KPERC_ESTIMATOR[kernel],
            "fit_s": {"median": ratio * peer},
            "accuracy": 0.95,
            "outcome": outcome,
            "n_iter": 1234,
            "gram_form": "dense",
            "n_conflicts": conflicts,
            "stages_s": {"kernel": 0.001, "algorithm": 0.002, "other": 0.0005},
        },
        "sklearn": {
            "estimator": "SVC()" if kernel == "rbf" else "LinearSVC()",
            "fit_s": {"median": peer},
            "accuracy": 0.96,
        },
    }


def _record(rows, islp=None):
    result = {"rows": rows, "islp": islp or {"available": True}, "measured": {"busy": False}}
    rec = {"suites": {"classifier": result}}
    rec["targets"] = evaluate_targets(rec["suites"], None)
    return rec


ROWS = [
    _row("iris-setosa", "iris", "rbf", 1.5),
    _row("iris-versicolor", "iris", "rbf", 2.5),
    _row("OJ", "OJ", "rbf", 245.0, outcome="conflict", conflicts=11, source="ISLP"),
    _row("College", "College", "linear", 17.0, outcome="certificate", source="ISLP"),
    _row("Default", "Default", "linear", 1.0, outcome="max_iter", source="ISLP"),
]


def test_targets_one_per_data_set_and_kernel_on_the_worst_task():
    ts = {t["id"]: t for t in _record(ROWS)["targets"]}
    assert set(ts) == {
        "classifier-rbf-iris",
        "classifier-rbf-OJ",
        "classifier-linear-College",
        "classifier-linear-Default",
    }
    assert ts["classifier-rbf-iris"]["value"] == 2.5 and ts["classifier-rbf-iris"]["met"] is False
    assert "iris-versicolor" in ts["classifier-rbf-iris"]["detail"]
    assert ts["classifier-linear-Default"]["met"] is True


def test_tables_one_per_kernel():
    rec = _record(ROWS)
    g = as_dict(pc.classifier_texts(rec))
    rbf = g["bench-clf-rbf-table"].splitlines()
    assert rbf[0] == "| task (n) | kperc | SVC | ratio | accuracy | kperc's fit |"
    want = "| iris-setosa (400) | 3 ms | 2 ms | 1.5 | 0.95 / 0.96 | separated, 1,234 it. |"
    assert rbf[2] == want
    assert "| OJ (400) | 490 ms | 2 ms | 245 |" in g["bench-clf-rbf-table"]
    assert "LinearSVC" in g["bench-clf-linear-table"].splitlines()[0]
    assert len(g["bench-clf-linear-table"].splitlines()) == 4


def test_reasons_only_over_the_target_and_by_outcome():
    g = as_dict(pc.classifier_texts(_record(ROWS)))
    lines = g["bench-clf-reasons"].splitlines()
    assert [ln.split(",")[0] for ln in lines] == ["* iris-versicolor", "* OJ", "* College"]
    assert "a separator after 1,234 iterations" in lines[0]
    assert "11 pair(s) of training points have identical features" in lines[1]
    assert "needed 1,234 iterations to certify it" in lines[2]
    assert "the kernel took 1 ms, the algorithm 2 ms" in lines[0]
    assert "against 2 ms for the whole LinearSVC fit" in lines[2]
    assert pc.reason(_row("x", "x", "rbf", 3.0, outcome="max_iter")).startswith(
        "x, rbf kernel (ratio 3): no separator and no certificate within 1,234 iterations"
    )
    assert pc.reasons({"rows": [ROWS[0]]}) == "* none"
    nystroem = _row("D", "D", "rbf", 9.0, outcome="certificate")
    nystroem["kperc"]["gram_form"] = "nystroem"
    assert "to certify it (on Nystroem features: more than 5,000 training points); the" in (
        pc.reason(nystroem)
    )


def test_counts():
    g = as_dict(pc.classifier_texts(_record(ROWS)))
    assert g["bench-clf-sets"] == 4 and g["bench-clf-decided"] == 4 and g["bench-clf-met"] == 1
    assert g["bench-clf-tasks"] == 5 and g["bench-clf-separated"] == 2
    assert g["bench-clf-separated-worst"] == 2.5
    assert g["bench-clf-over"] == 3 and g["bench-clf-over-separated"] == 1
    assert g["bench-clf-over-inseparable"] == 2
    assert g["bench-clf-over-separated-peer-max"] == "2 ms"
    assert g["bench-clf-inseparable-iter-min"] == g["bench-clf-inseparable-iter-max"] == 1234


def test_peak_text_names_the_largest_peak():
    rows = [_row("a", "a", "rbf", 1.0), _row("b", "b", "linear", 1.0)]
    rows[0]["kperc"].update(peak_mb=12.5, dense_gram_mb=1.28)
    rows[1]["kperc"].update(peak_mb=3.0, dense_gram_mb=None)
    text = pc.peak_text({"rows": rows})
    assert text == "12.5 MB (a, rbf kernel, n = 400; its dense G alone takes 1.28 MB)"
    rows[0]["kperc"]["peak_mb"] = 1.0
    assert pc.peak_text({"rows": rows}) == "3 MB (b, linear kernel, n = 400)"


def test_islp_text_says_where_the_data_came_from_or_why_not():
    assert "inside the `ISLP` 0.6.0 wheel" in pc.islp_text({"islp": {"available": True}})
    off = pc.islp_text({"islp": {"available": False, "reason": "pip download failed: x"}})
    assert off == "The ISLP data sets were not measured in this record (pip download failed: x)."


def test_a_record_without_the_suite_says_not_measured():
    g = as_dict(pc.classifier_texts({"suites": {}, "targets": []}))
    assert g["bench-clf-rbf-table"] == "Not measured in this record."
    assert g["bench-clf-reasons"] == "* not measured in this record"
    assert math.isnan(g["bench-clf-separated-worst"])
    assert set(g) == set(as_dict(pc.classifier_texts(_record(ROWS))))


def test_summary_lines():
    lines = classifier.summary({"rows": ROWS, "islp": {"available": False, "reason": "offline"}})
    assert len(lines) == 2 + len(ROWS) + 1
    assert lines[-1] == "  ISLP data sets not measured: offline"
    assert classifier.summary({}) == []


def test_bundled_tasks_load_standardised_and_binary():
    for name in ("breast_cancer", "iris-virginica", "wine-class_1", "digits-3v8"):
        task = next(t for t in classifier.SKLEARN_TASKS if t.name == name)
        data = classifier.load_task(task, seed=0)
        Xtr, ytr = data["X_train"], data["y_train"]
        assert set(np.unique(ytr)) == {0, 1} and set(np.unique(data["y_test"])) == {0, 1}
        n = Xtr.shape[0] + data["X_test"].shape[0]
        assert data["X_test"].shape[0] == pytest.approx(classifier.TEST_FRACTION * n, abs=1)
        assert np.allclose(Xtr.mean(axis=0), 0.0, atol=1e-9)
        # the split is seeded: the same task loads the same way twice
        assert np.array_equal(Xtr, classifier.load_task(task, seed=0)["X_train"])


def test_islp_needs_its_wheel_and_checks_its_hash(tmp_path):
    with pytest.raises(RuntimeError, match="not in"):
        classifier.islp_wheel(tmp_path, download=False)
    (tmp_path / classifier.ISLP_WHEEL).write_bytes(b"not the wheel")
    with pytest.raises(RuntimeError, match="SHA-256"):
        classifier.islp_wheel(tmp_path, download=False)
    with pytest.raises(ValueError, match="needs the ISLP wheel"):
        classifier.load_task(classifier.ISLP_TASKS[0], seed=0)


def test_the_committed_record_has_the_suite():
    rec = load_record(paths.generated_dir() / "bench.json")
    if "classifier" not in rec["suites"]:
        pytest.fail("book/_generated/bench.json has no classifier suite: run it into the record")
    result = rec["suites"]["classifier"]
    tasks = {r["task"] for r in result["rows"]}
    assert {t.name for t in classifier.SKLEARN_TASKS} <= tasks
    if result["islp"]["available"]:
        assert {t.name for t in classifier.ISLP_TASKS} <= tasks
    g = as_dict(pc.classifier_texts(rec))
    assert g["bench-clf-tasks"] == len(result["rows"])


def test_a_nystroem_fit_reports_its_stages_together():
    """With a grown Nystroem rank SNKP runs while the features are built: the reason
    gives the two stages as one time, not a kernel time that hides the iterations."""
    from benchmarks.page_classifier import reason

    r = {
        "task": "Default",
        "kernel": "rbf",
        "n_train": 7000,
        "ratio": 170.0,
        "sklearn": {"estimator": "SVC()", "fit_s": {"median": 0.06}},
        "kperc": {
            "outcome": "certificate",
            "n_iter": 9985,
            "n_conflicts": 0,
            "gram_form": "nystroem",
            "stages_s": {"kernel": 10.0, "algorithm": 0.5, "other": 0.01},
        },
    }
    text = reason(r)
    assert "the Nystroem stages (features, SNKP and the exact-kernel checks" in text
    assert "took 10.5 s" in text and "the kernel took" not in text

"""The benchmarks page's tables against a small results file, and the "which algorithm
when" table of ``SNKPClassifier`` (the API page) against the committed results.

The page is executed with papermill on ``tests/book/data/benchopt_small.parquet`` (a
real benchopt run of the benchmark, 12 small planted problems): what it glues and the
tables it shows must be those that :mod:`kperc_book.benchopt_results` computes from the
same file, and it claims a winner only where the rule decides one.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

import kperc
from kperc_book import benchopt_results as br
from kperc_book import paths

SMALL = Path(__file__).parent / "data" / "benchopt_small.parquet"
SCRAPBOOK = "application/papermill.record/text/plain"
#: A GPU run as the device benchmark (``bench/device.py``) records it: a small fake record,
#: two steps of which the page must show with their results.
FAKE_DEVICE = {
    "device": "Fake GPU 9000",
    "date": "2026-12-02",
    "sizes": {"n": 100000, "n_fly": 1000000},
    "steps": {
        "gv": {"status": "done", "gv_s": 0.0101, "bandwidth_GBps": 3960.4},
        "snkp": {
            "status": "done",
            "outcome": "separator",
            "certified": True,
            "nit": 1234,
            "seconds": 7.25,
        },
        "fly": {"status": "budget reached", "budget_s": 180.0},
    },
}


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The page executed on the small file: (glued values, outputs by cell source)."""
    papermill = pytest.importorskip("papermill")
    out = tmp_path_factory.mktemp("page") / "benchmarks.ipynb"
    device = out.parent / "device"
    device.mkdir()
    (device / "fake.json").write_text(json.dumps(FAKE_DEVICE))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KPERC_BOOK_STAGING", str(out.parent / "staging"))
        papermill.execute_notebook(
            str(paths.book_dir() / "benchmarks.ipynb"),
            str(out),
            parameters={"results_file": str(SMALL), "device_folder": str(device)},
            cwd=str(paths.book_dir()),
            kernel_name="python3",
            progress_bar=False,
        )
    nb = json.loads(out.read_text())
    glued, shown = {}, {}
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name and SCRAPBOOK in o.get("data", {}):
                glued[name] = o["data"][SCRAPBOOK]
            elif o.get("output_type") in ("execute_result", "display_data"):
                if "text/plain" in o["data"] and "image/png" not in o["data"]:
                    source = "".join(cell["source"])
                    shown[source] = shown.get(source, "") + "".join(o["data"]["text/plain"])
            elif o.get("output_type") == "stream":
                source = "".join(cell["source"])
                shown[source] = shown.get(source, "") + "".join(o["text"])
    return glued, shown


@pytest.fixture(scope="module")
def small():
    results = br.read(SMALL)
    runs = br.runs(results)
    runs["solver"] = runs["solver"].str.replace(r"\[.*\]$", "", regex=True)
    return results, runs


def _named(text, label):
    """How often a solver's label appears in ``text`` as a whole name ("SNKP" is not
    counted inside "ISNKPVN")."""
    return len(re.findall(rf"(?<![\w-]){re.escape(label)}(?![\w-])", text))


def _output(shown, fragment):
    (text,) = [t for src, t in shown.items() if fragment in src]
    return text


def test_page_glues_the_cells_and_winners_of_the_file(page, small):
    glued, _ = page
    _, runs = small
    cells = br.winners(runs, by=["family", "norms", "rho", "n"])
    assert int(glued["bench_cells"]) == len(cells) == 2
    assert int(glued["bench_decided"]) == int(cells["decided"].sum())
    assert int(glued["bench_seeds"]) == 3 and int(glued["bench_dims"]) == 2
    assert int(glued["bench_snkp_wins"]) == int((cells["winner"] == "kperc-snkp").sum())
    # the small file has one decided cell (rho = 0.001) and one close race (rho = 0.05)
    assert cells["decided"].tolist() == [True, False]


def _rows(text, start):
    """The lines of a printed table that begin with ``start``, joined (pandas wraps wide
    tables into blocks of columns)."""
    return " ".join(ln for ln in text.splitlines() if ln.startswith(start + " "))


def test_page_tables_show_the_winner_only_where_decided(page, small):
    _, shown = page
    results, runs = small
    labels = br.solver_labels(results)
    table = _output(shown, "cells.assign(ratio=")
    cells = br.winners(runs, by=["family", "norms", "rho", "n"])
    for _, row in cells.iterrows():
        rho = f" {br.number_label(row['rho'])} "  # the margin as the index shows it
        line = " ".join(ln for ln in table.splitlines() if rho in ln)
        # the fastest is named twice (as fastest and as winner) only where it is decided
        assert _named(line, labels[row["fastest"]]) == (2 if row["decided"] else 1), line
        assert f" {row['ratio']:.2g} " in line
    # words a reader knows: no benchopt slug, no pandas column name
    for slug in ("kperc-", "sklearn-", "runner_up", "planted_rbf", "two_rays"):
        assert slug not in table


def test_page_summary_entries_are_the_file_s_medians_and_counts(page, small):
    _, shown = page
    results, runs = small
    labels = br.solver_labels(results)
    text = _output(shown, "for rho in sorted(summary")
    s = br.summary(runs, by=["family", "norms", "rho", "n"])
    for row in s.itertuples():
        entry = f"{row.separated}/{row.runs}"
        if row.separated:
            entry = f"{row.median:.2g} s ({row.min:.2g}–{row.max:.2g}) {entry}"
        assert entry in _rows(text, labels[row.solver]), (row.solver, entry)


def test_page_lists_every_unseparated_final_answer(page, small):
    _, shown = page
    results, runs = small
    labels = br.solver_labels(results)
    text = _output(shown, 'missed=("final_separated"')
    missed = runs.loc[~runs["final_separated"], "solver"]
    rows = text.splitlines()[1:]  # below the header of the columns
    listed = {s for s, label in labels.items() if any(ln.startswith(label + " ") for ln in rows)}
    assert listed == set(missed)
    assert "sklearn-svc" in listed  # SVC ended with a misclassified point here


def test_page_shows_a_gpu_record_step_by_step(page):
    """The fake device record: its device and date, each step's result and seconds, and a
    step stopped at its budget says so."""
    _, shown = page
    text = _output(shown, "br.device_records(device_folder)")
    assert "Fake GPU 9000, 2026-12-02:" in text and "No GPU run" not in text
    (gv,) = [ln for ln in text.splitlines() if ln.startswith("one product")]
    assert "3960 GB/s" in gv and "0.01" in gv and "10⁵" in gv
    (snkp,) = [ln for ln in text.splitlines() if ln.startswith("SNKP, exact")]
    assert "certified separator, 1234 iterations" in snkp and "7.2" in snkp
    (fly,) = [ln for ln in text.splitlines() if ln.startswith("SNKP, kernel computed")]
    assert "stopped at its time budget" in fly and "10⁶" in fly


def test_committed_page_says_whether_a_gpu_run_was_made():
    """The committed page shows the GPU records of the repository, or says there are none."""
    records = br.device_records(paths.generated_dir() / "device")
    nb = json.loads((paths.book_dir() / "benchmarks.ipynb").read_text())
    (cell,) = [c for c in nb["cells"] if "br.device_records(" in "".join(c["source"])]
    text = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    if records:
        assert all(f"{r['device']}, {r['date']}:" in text for r in records)
    else:
        assert text.startswith("No GPU run has been made yet")


#: The rows of the "which algorithm when" table of the API page's section on
#: SNKPClassifier (book/api.md), and the problems of the benchmark each stands for:
#: (family, norms). The table's other rows ("any") are problems outside the benchmark.
DOC_ROWS = {
    "planted, unit norms": ("planted", "unit"),
    "planted, spread norms": ("planted", "spread"),
    "crowded": ("crowded", ""),
    "two rays": ("two_rays", ""),
    "RBF, planted": ("planted_rbf", ""),
}
CLASSIFIER_ALGORITHMS = ("kperc-snkp", "kperc-nkp", "kperc-isnkpvn")


def _which_algorithm_table():
    """The rows of the "which algorithm when" table of book/api.md: problems -> fastest."""
    text = (paths.book_dir() / "api.md").read_text(encoding="utf-8")
    section = text[text.index("(clf-which-algorithm)=") :]
    section = section[: section.index("\n(", 1)]  # up to the next section's label
    rows = [ln for ln in section.splitlines() if ln.startswith("|")]
    assert rows[0].split("|")[1:3] == [" problems ", " fastest "], rows[0]
    assert set(rows[1]) <= set("|- "), rows[1]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows[2:]]
    assert all(len(c) == 3 for c in cells), cells
    return {label: fastest.strip("`").strip('"') for label, fastest, _ in cells}


def test_classifier_algorithm_table_follows_the_committed_results():
    """Each row of SNKPClassifier's "which algorithm when" table (the API page) names the
    winner, by the page's rule, among the classifier's three algorithms at the family's
    smallest margin in the committed benchopt results (seeds and dimensions pooled), or
    says that the results do not decide it."""
    runs = br.runs(br.read(paths.generated_dir() / "benchopt" / "book.parquet"))
    runs["solver"] = runs["solver"].str.replace(r"\[.*\]$", "", regex=True)
    three = runs[runs["solver"].isin(CLASSIFIER_ALGORITHMS)].fillna({"norms": ""})
    table = _which_algorithm_table()
    assert set(table.values()) <= {"snkp", "nkp", "isnkpvn", "undecided", "any"}, table
    named = {label: algorithm for label, algorithm in table.items() if algorithm != "any"}
    assert set(named) == set(DOC_ROWS), set(named) ^ set(DOC_ROWS)
    for label, algorithm in named.items():
        family, norms = DOC_ROWS[label]
        part = three[(three["family"] == family) & (three["norms"] == norms)]
        hardest = part[part["rho"] == part["rho"].min()]
        (cell,) = br.winners(hardest, by=["family", "rho"]).itertuples()
        want = cell.winner.removeprefix("kperc-") if cell.decided else "undecided"
        assert algorithm == want, (label, algorithm, want, cell.fastest, cell.ratio)
    doc = inspect.getdoc(kperc.SNKPClassifier) or ""
    assert 'default="snkp"' in doc and "<clf-in-detail>" in doc

"""The benchmarks page's tables against a small results file, and the docstring of
``SNKPClassifier`` against the committed results.

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


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The page executed on the small file: (glued values, outputs by cell source)."""
    papermill = pytest.importorskip("papermill")
    out = tmp_path_factory.mktemp("page") / "benchmarks.ipynb"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KPERC_BOOK_STAGING", str(out.parent / "staging"))
        papermill.execute_notebook(
            str(paths.book_dir() / "benchmarks.ipynb"),
            str(out),
            parameters={"results_file": str(SMALL)},
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
            elif o.get("output_type") == "execute_result":
                shown["".join(cell["source"])] = "".join(o["data"]["text/plain"])
    return glued, shown


@pytest.fixture(scope="module")
def small():
    results = br.read(SMALL)
    runs = br.runs(results)
    runs["solver"] = runs["solver"].str.replace(r"\[.*\]$", "", regex=True)
    return results, runs


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
    _, runs = small
    table = _output(shown, "cells.assign(ratio=")
    cells = br.winners(runs, by=["family", "norms", "rho", "n"])
    for i, row in cells.iterrows():
        words = _rows(table, str(i)).split()
        if row["decided"]:
            assert words[-1] == row["winner"], words
        else:  # no winner: the row ends with the runner-up's ratio
            assert words[-1] == f"{row['ratio']:.2g}", words
            assert words.count(row["fastest"]) == 1, words


def test_page_summary_entries_are_the_file_s_medians_and_counts(page, small):
    _, shown = page
    _, runs = small
    text = _output(shown, "summary.pivot_table(")
    s = br.summary(runs, by=["family", "norms", "rho", "n"])
    for row in s.itertuples():
        entry = f"{row.separated}/{row.runs}"
        if row.separated:
            entry = f"{row.median:.2g} ({row.min:.2g}–{row.max:.2g}) {entry}"
        assert entry in _rows(text, row.solver), (row.solver, entry)


def test_page_lists_every_unseparated_final_answer(page, small):
    glued, _ = page
    _, runs = small
    missed = sorted(runs.loc[~runs["final_separated"], "solver"].unique())
    assert glued["bench_missed_solvers"].strip("'") == ", ".join(missed)
    assert "sklearn-svc" in missed  # SVC stopped with a misclassified point here


#: The rows of the "which algorithm when" table of SNKPClassifier's docstring, and the
#: problems of the benchmark each stands for: (family, norms).
DOC_ROWS = {
    "planted, unit norms": ("planted", "unit"),
    "planted, spread norms": ("planted", "spread"),
    "crowded": ("crowded", ""),
    "two rays": ("two_rays", ""),
    "RBF, planted": ("planted_rbf", ""),
}
CLASSIFIER_ALGORITHMS = ("kperc-snkp", "kperc-nkp", "kperc-isnkpvn")


def test_classifier_docstring_table_follows_the_committed_results():
    """Each row of SNKPClassifier's "which algorithm when" table names the winner, by the
    page's rule, among the classifier's three algorithms at the family's smallest margin
    in the committed benchopt results (seeds and dimensions pooled), or says that the
    results do not decide it."""
    runs = br.runs(br.read(paths.generated_dir() / "benchopt" / "book.parquet"))
    runs["solver"] = runs["solver"].str.replace(r"\[.*\]$", "", regex=True)
    three = runs[runs["solver"].isin(CLASSIFIER_ALGORITHMS)].fillna({"norms": ""})
    doc = inspect.getdoc(kperc.SNKPClassifier)
    table = doc[doc.index("Which algorithm when") : doc.index("The default follows the table")]
    pattern = r"^\s*(\S.*?)\s{2,}\"?(snkp|nkp|isnkpvn|undecided)\"?(?:\s|$)"
    named = dict(re.findall(pattern, table, flags=re.M))
    assert set(named) == set(DOC_ROWS), set(named) ^ set(DOC_ROWS)
    for label, algorithm in named.items():
        family, norms = DOC_ROWS[label]
        part = three[(three["family"] == family) & (three["norms"] == norms)]
        hardest = part[part["rho"] == part["rho"].min()]
        (cell,) = br.winners(hardest, by=["family", "rho"]).itertuples()
        want = cell.winner.removeprefix("kperc-") if cell.decided else "undecided"
        assert algorithm == want, (label, algorithm, want, cell.fastest, cell.ratio)
    assert 'default="snkp"' in doc

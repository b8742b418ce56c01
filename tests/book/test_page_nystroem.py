"""The benchmarks page's section on the grown Nystroem rank (``benchmarks.page_nystroem``).

Every text is checked on synthetic records whose answer is known, including spoiled ones
(an uncertified run, a timeout, a missing row), and on the committed record.
"""

from __future__ import annotations

import json

import pytest

from benchmarks import page_nystroem as pn
from benchmarks.peers.config import DEFAULT_OUT
from benchmarks.record import load_record
from kperc_book import paths


def _row(solver, n, t, rho=0.01, status="finished", **extra):
    r = {"family": "rbf", "rho": rho, "n": n, "solver": solver, "status": status, "cap_s": 20.0}
    if status == "finished":
        r.update(time_s=t, separated=extra.pop("separated", True))
    else:
        r["time_s"] = 20.0
    r.update(extra)
    return r


def _grown(n, t, rho=0.01, m=64, stages=1, **extra):
    extra = {"exact_separated": True, **extra}
    return _row(pn.GROWN, n, t, rho, n_components=m, stages=stages, **extra)


def _record(rows, **top):
    return {"rows": rows, **top}


def test_winner_per_problem():
    rec = _record(
        [
            _grown(10_000, 0.02),
            _row(pn.SVC, 10_000, 0.1),
            _grown(100_000, 3.0),
            _row(pn.SVC, 100_000, 2.0),
            # certified nowhere: separated in its own kernel only
            _grown(20_000, 0.5, separated=False, exact_separated=False),
            _row(pn.SVC, 20_000, 4.0),
            _grown(200_000, 0, status="timeout"),
            _row(pn.SVC, 200_000, 0, status="timeout"),
            _grown(300_000, 9.0),
            _row(pn.SVC, 300_000, 0, status="timeout"),
        ]
    )
    got = {c["n"]: c["winner"] for c in pn.versus_svc(rec)}
    assert got == {10_000: "snkp", 100_000: "svc", 20_000: "svc", 200_000: None, 300_000: "snkp"}


def test_goal_text_counts_and_names_losses():
    rec = _record(
        [
            _grown(10_000, 0.02),
            _row(pn.SVC, 10_000, 0.1),
            _grown(100_000, 3.0, rho=1e-3),
            _row(pn.SVC, 100_000, 2.0, rho=1e-3),
            _grown(100_000, 0, rho=1e-4, status="timeout"),
            _row(pn.SVC, 100_000, 0, rho=1e-4, status="timeout"),
            _grown(1_000, 5.0),  # outside the goal's region (n < 10^4)
            _row(pn.SVC, 1_000, 0.01),
            _grown(10_000, 9.0, rho=0.1),  # outside the goal's region (rho > 10^-2)
            _row(pn.SVC, 10_000, 0.01, rho=0.1),
        ]
    )
    txt = pn.goal_text(rec)
    assert "in 1 of the 2 problems" in txt
    assert "`SVC` was faster at ρ = 0.001, *n* = 100,000 (2 s against 3 s)" in txt
    assert "neither separated within the cap at ρ = 0.0001, *n* = 100,000" in txt
    assert pn.goal_text(_record([_grown(1_000, 1.0)])).startswith("This record has no")


def test_table_cells_say_what_happened():
    rec = _record(
        [
            _grown(10_000, 0.0196, m=256, stages=3),
            _row(pn.FIXED, 10_000, 0.5, exact_separated=False),
            _row(pn.SVC, 10_000, 0, status="timeout"),
            _grown(100_000, 0, status="timeout"),
        ]
    )
    lines = pn.grown_table(rec).splitlines()
    assert lines[0] == "| ρ | n | SNKP, grown rank | rank reached | SNKP, 300 landmarks | SVC |"
    want = "| 0.01 | 10,000 | 19.6 ms | 256 (3 stages) | fails the exact check | > 20 s |"
    assert lines[2] == want
    assert lines[3] == "| 0.01 | 100,000 | > 20 s |  | not run | not run |"


def test_ranks_grouped_by_margin():
    rec = _record(
        [
            _grown(1_000, 0.1, rho=0.1),
            _grown(10_000, 0.1, rho=0.01),
            _grown(1_000, 0.1, rho=1e-3, m=128),
            _grown(10_000, 0.1, rho=1e-3, m=256),
        ]
    )
    assert pn.ranks_text(rec) == (
        "64 landmarks at ρ = 0.1 and 0.01; 128 to 256 landmarks at ρ = 0.001"
    )
    assert "no grown-rank run" in pn.ranks_text(_record([_grown(1, 0, status="timeout")]))


def test_margins_ratio():
    rec = _record([_grown(10_000, 0.1, margin=1e-4), _row(pn.SVC, 10_000, 0.2, margin=1e-2)])
    assert pn.margins_text(rec).startswith("`SVC`'s normalised margins were 100 times")
    rec["rows"] += [_grown(20_000, 0.1, margin=1e-6), _row(pn.SVC, 20_000, 0.2, margin=2.7e-3)]
    assert "were 100 to 2,700 times" in pn.margins_text(rec)
    small = _record([_grown(10_000, 0.1, margin=0.5), _row(pn.SVC, 10_000, 0.2, margin=1.0)])
    assert "were 2 times" in pn.margins_text(small)
    assert pn.margins_text(_record([])).startswith("This record has no pair")


@pytest.mark.parametrize(
    ("busy", "words"),
    [(True, "busy with other work"), (False, "otherwise idle"), (None, "load unknown")],
)
def test_run_text_prefers_the_family_run(busy, words):
    rec = _record(
        [],
        command="python -m benchmarks.peers",
        busy=not busy,
        family_runs={"rbf": {"command": "python -m benchmarks.peers --family rbf", "busy": busy}},
    )
    txt = pn.run_text(rec)
    assert "in a later run of the RBF problems alone" in txt and words in txt
    top = pn.run_text(_record([], command="python -m benchmarks.peers", busy=False))
    assert "in the run of the comparison above" in top and "idle" in top
    # the page names no command: readers find it on the reproducibility page
    assert "python -m" not in txt + top


def test_every_glued_name_is_quoted_once_in_the_notebook():
    nb = json.loads((paths.BOOK_DIR / "benchmarks.ipynb").read_text())
    md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "page_nystroem.nystroem_grown_texts(prec)" in code
    for g in pn.nystroem_grown_texts(load_record(DEFAULT_OUT)):
        assert md.count(f"`{g.name}`") + md.count(f"}} {g.name}\n") == 1, g.name


def test_committed_record_agrees_with_the_crossovers():
    from benchmarks.peers.analysis import crossovers

    prec = load_record(DEFAULT_OUT)
    assert any(r["solver"] == pn.GROWN for r in prec["rows"])
    for c in pn.versus_svc(prec):
        if c["winner"] == "snkp":  # the crossovers then name an SNKP variant as winner
            cr = next(x for x in crossovers(prec) if x["family"] == "rbf" and x["rho"] == c["rho"])
            assert next(e for e in cr["by_n"] if e["n"] == c["n"])["winner"] == "snkp"

"""The benchmarks page's section "Is it separable?" (``benchmarks.page_separable``)."""

from __future__ import annotations

from benchmarks import page, page_separable
from benchmarks.suites import separable


def _rec(times=(0.4, 0.02, 1.3), busy=False):
    names = ("planted", "infeasible", "planted, 1 % flipped")
    status = ("separable", "not separable", "not separable")
    rows = [
        {
            "problem": p,
            "n": 2000,
            "d": 50,
            "status": s,
            "exact": True,
            "time_s": t,
            "time": {"n": 5},
            "generated": True,
        }
        for p, s, t in zip(names, status, times, strict=True)
    ]
    rows.append({**rows[0], "problem": "breast cancer", "n": 569, "generated": False})
    result = {"rows": rows, "target_s": separable.TARGET_S, "target_n": 2000}
    targets = separable.targets(result, None)
    for t in targets:
        t["busy"] = busy
    return {"suites": {"separable": result}, "targets": targets}


def test_targets_need_an_exact_answer_in_time():
    rec = _rec()
    met = {t["id"]: t["met"] for t in rec["targets"]}
    assert met == {
        "separable-planted": True,
        "separable-infeasible": True,
        "separable-planted-flipped": False,
    }
    undecided = _rec()["suites"]["separable"]
    undecided["rows"][0]["status"] = "undecided"
    assert separable.targets(undecided, None)[0]["met"] is False


def test_texts_table_and_verdicts():
    g = page.as_dict(page_separable.separable_texts(_rec()))
    table = g["bench-sep-table"]
    assert table.count("\n") == 5 and "| breast cancer | 569 | 50 | separable |" in table
    v = g["bench-sep-verdicts"]
    assert "* planted, answered *separable*: within the reference value" in v
    assert (
        "* planted, 1 % flipped, answered *not separable*: beyond the reference value by 30%" in v
    )
    busy = page.as_dict(page_separable.separable_texts(_rec(busy=True)))
    assert busy["bench-sep-verdicts"].count("**not decided**") == 3

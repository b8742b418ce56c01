"""The benchmarks page's section "Is it separable?" (the ``separable`` suite).

:func:`separable_texts` turns the suite's result in ``bench.json`` into the values the
section glues: a table of each problem's answer and time, the verdicts of the targets
``separable-...`` and the size they are stated at. A record without the suite gives
"not measured" texts under the same names.
"""

from __future__ import annotations

from benchmarks.page import Glue, Record, md, num, reference_verdict, targets_by_id
from benchmarks.peers.markdown import fmt_time as fmt_s
from benchmarks.suites.separable import TARGET_N, TARGET_S
from kperc_book._markdown import table as md_table

#: The columns of the table (short: it must fit a phone's column).
COLUMNS = ["problem", "n", "d", "answer", "time"]


def separable_rows(result: dict) -> list[list[str]]:
    """One row per problem: its size, the answer and the median time."""
    return [
        [r["problem"], f"{r['n']:,}", str(r["d"]), r["status"], fmt_s(r["time_s"])]
        for r in result.get("rows", [])
    ]


def separable_verdicts(rec: Record) -> str:
    """One bullet per target ``separable-...``: what it measured and its verdict."""
    ts = [t for tid, t in targets_by_id(rec).items() if tid.startswith("separable-")]
    if not ts:
        return "* not measured in this record"
    rows = {r["problem"]: r for r in rec["suites"]["separable"]["rows"]}
    out = []
    for t in ts:
        name = t["description"].rsplit("(", 1)[1].rstrip(")")
        out.append(f"* {name}, answered *{rows[name]['status']}*: {reference_verdict(t)}.")
    return "\n".join(out)


def separable_texts(rec: Record) -> list[Glue]:
    """The glued values of the section "Is it separable?".

    Examples
    --------
    >>> from benchmarks.page import as_dict
    >>> g = as_dict(separable_texts({"suites": {}, "targets": []}))
    >>> g["bench-sep-table"], g["bench-sep-verdicts"]
    ('not measured in this record', '* not measured in this record')
    """
    result = rec["suites"].get("separable")
    out = [num("bench-sep-target", TARGET_S), num("bench-sep-n", TARGET_N)]
    if not result:
        return out + [
            md("bench-sep-table", "not measured in this record"),
            md("bench-sep-verdicts", "* not measured in this record"),
        ]
    return out + [
        md("bench-sep-table", md_table(COLUMNS, separable_rows(result))),
        md("bench-sep-verdicts", separable_verdicts(rec)),
    ]

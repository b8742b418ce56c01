"""Benchmark records as text: target verdicts and the summary table."""

from __future__ import annotations

from typing import Any

from benchmarks.suites import report_order, suite_module, suite_of_target


def target_verdict(t: dict[str, Any], digits: int = 3) -> str:
    """A Markdown phrase for a target entry: met, missed (by how much) or undecided."""
    val, goal = t["value"], t["target"]
    if t.get("busy"):
        shown = "" if val is None else f"; it read {val:.{digits}g} against {goal:g}"
        return f"**not decided**: measured on a busy machine{shown}"
    if val is None or t["met"] is None:
        return "**not decided** by this run"
    v = f"{val:.{digits}g}"
    suite = suite_of_target(t["id"])
    higher = getattr(suite_module(suite), "HIGHER_IS_BETTER", ()) if suite else ()
    lower_is_better = t["id"] not in higher
    if t["met"]:
        rel = "<=" if lower_is_better else ">="
        return f"**met** ({v} {rel} {goal:g})"
    if lower_is_better:
        return f"**missed** by {100 * (val / goal - 1):.0f}% ({v} against at most {goal:g})"
    return f"**missed** ({v} against at least {goal:g})"


def format_table(record: dict[str, Any]) -> str:
    """A plain-text summary: the targets, then each suite's ``summary`` lines."""
    lines = []
    t = record.get("targets", [])
    if t:
        w = max(len(x["description"]) for x in t)
        lines.append(f"{'target':{w}s}  {'value':>10s}  {'goal':>7s}  met")
        for x in t:
            met = "busy" if x.get("busy") else {True: "yes", False: "NO", None: "?"}[x["met"]]
            val = x["value"]
            val = f"{val:10.4g}" if isinstance(val, (int, float)) else f"{'-':>10s}"
            lines.append(f"{x['description']:{w}s}  {val}  {x['target']:7.4g}  {met}")
    for name in report_order(record["suites"]):
        summary = getattr(suite_module(name), "summary", None)
        if summary is not None:
            lines += summary(record["suites"][name])
    busy = [
        f"{k} (load {v['measured']['busy_load_1min']:.2f} > {v['measured']['busy_limit']:.2f})"
        for k, v in record["suites"].items()
        if v.get("measured", {}).get("busy")
    ]
    lines.append("")
    if busy:
        lines.append("measured on a busy machine, targets not decided: " + ", ".join(busy))
    lines.append(
        f"elapsed {record['elapsed_s']:.0f} s; load average "
        f"{record['loadavg_start']} -> {record['loadavg_end']}"
    )
    return "\n".join(lines)

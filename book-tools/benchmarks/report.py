"""Benchmark records as text: target verdicts and the summary table."""

from __future__ import annotations

from typing import Any

from benchmarks._config import (
    PERITER_ALGOS,
)


def target_verdict(t: dict[str, Any], digits: int = 3) -> str:
    """A Markdown phrase for a target entry: met, missed (by how much) or undecided."""
    val, goal = t["value"], t["target"]
    if t.get("busy"):
        shown = "" if val is None else f"; it read {val:.{digits}g} against {goal:g}"
        return f"**not decided**: measured on a busy machine{shown}"
    if val is None or t["met"] is None:
        return "**not decided** by this run"
    v = f"{val:.{digits}g}"
    lower_is_better = not t["id"].startswith(("large-nkp", "large-sklearn"))
    if t["met"]:
        rel = "<=" if lower_is_better else ">="
        return f"**met** ({v} {rel} {goal:g})"
    if lower_is_better:
        return f"**missed** by {100 * (val / goal - 1):.0f}% ({v} against at most {goal:g})"
    return f"**missed** ({v} against at least {goal:g})"


def format_table(record: dict[str, Any]) -> str:
    """A plain-text summary: the targets, then the per-iteration ratios."""
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
    per = record["suites"].get("periter")
    if per:
        lines.append("")
        lines.append("time per iteration / one product with G: median [min-max over repeats]")
        ns = sorted({r["n"] for r in per["rows"]})
        lines.append(f"{'':18s}" + "".join(f"{n:>22d}" for n in ns))
        for kind in ("dense", "factored"):
            for alg in PERITER_ALGOS:
                vals = {
                    r["n"]: r
                    for r in per["rows"]
                    if r["operator"] == kind and r["algorithm"] == alg
                }
                lines.append(f"{kind + ' ' + alg:18s}" + "".join(_cell(vals.get(n)) for n in ns))
    sep = record["suites"].get("separator")
    if sep:
        lines.append("")
        lines.append("crossover margin (SNKP faster than NKP below it)")
        for c in sep["crossover"]:
            rs = f"{c['rho_star']:.3g}" if c["rho_star"] else "-"
            lines.append(
                f"  {c['operator']:8s} n={c['n']:<6d} {c['kind']:12s} rho* = {rs}"
                f"  bracket {c['bracket']}"
            )
    floor = record["suites"].get("floor")
    if floor and floor.get("iteration_ratio"):
        lines.append("")
        lines.append(
            f"SNKP iteration from its steps, factored G, n = {floor['n']} "
            "(products per iteration, median [min-max])"
        )
        for v, r in floor["iteration_ratio"].items():
            lines.append(f"  {v:8s} {r['median']:.3f} [{r['min']:.3f}-{r['max']:.3f}]")
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


def _cell(row: dict[str, Any] | None) -> str:
    """``median [min-max]`` of a per-iteration row, 22 characters wide."""
    if row is None:
        return f"{'-':>22s}"
    sp = row.get("ratio_spread")
    if not sp:
        return f"{row['ratio']:22.3f}"
    return f"{row['ratio']:8.3f} [{sp['min']:.2f}-{sp['max']:.2f}]".rjust(22)

"""A record as Markdown: time-to-separator tables and the crossover grid."""

from __future__ import annotations

import math
from typing import Any

from benchmarks.peers.analysis import crossovers
from benchmarks.peers.config import FAMILY_LABELS, SHORT_LABELS, label, solvers_of
from kperc_book._markdown import table as md_table

_SUP = str.maketrans(
    "-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
)


def short_number(x: float) -> str:
    """``10^k`` with a superscript exponent for a power of ten (a table cell that cannot
    wrap), else the plain number."""
    k = round(math.log10(x)) if x > 0 else None
    if k is not None and math.isclose(x, 10.0**k, rel_tol=1e-12):
        # word joiners (U+2060) between the characters: a narrow column cannot break them
        return "\u2060".join("10" + str(k).translate(_SUP))
    return f"{x:g}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def fmt_time(t: float) -> str:
    """Seconds with three significant digits; milliseconds below one second."""
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def run_cell(r: dict[str, Any] | None, *, nit: bool = False) -> str:
    """A run as a table cell: its time (and with ``nit`` its iteration count, as
    ``2.1 ms · 65``), ``> cap`` when stopped at the cap, "skipped", "failed", or the time
    with "no separator"; the fastest of an instance (``r["_fastest"]``) in bold."""
    if r is None:
        return ""
    st = r["status"]
    if st == "skipped":
        return "skipped"
    if st == "timeout":
        return f"> {r['cap_s']:g} s"
    if st == "error":
        return "failed"
    t = fmt_time(r["time_s"])
    if nit and r.get("nit") is not None:
        t += f" · {r['nit']:,}"
    if r.get("_fastest"):
        return f"**{t}**"
    return t if r["separated"] else f"{t}, no separator"


def crossover_grid_markdown(record: dict[str, Any], family: str | None = None) -> str:
    """One compact table of the crossovers: a row per (family, rho), a column per n.

    With ``family`` (``"linear"`` or ``"rbf"``) the table has that family's rows only and
    no problem column, so that it fits a phone's screen.

    A cell names the winner and by how much: ``SNKP 8.1x`` (the best peer took 8.1 times
    as long as the best SNKP variant; ``>=`` when no peer separated within its cap),
    ``SVC 5.2x`` (a peer was 5.2 times as fast as every SNKP variant, or ``only`` when no
    SNKP variant separated), ``none`` when no solver separated, empty when not measured.
    When another solver (kperc's NKP) separated faster than both, the cell adds it:
    ``SNKP 5.2x; NKP fastest``.

    Examples
    --------
    >>> rows = [
    ...     {"family": "linear", "rho": 0.01, "n": 1000, "solver": s, "status": "finished",
    ...      "separated": True, "time_s": t}
    ...     for s, t in (("snkp-factored", 0.01), ("sklearn-perceptron", 0.05))
    ... ]
    >>> table = crossover_grid_markdown({"rows": rows})
    >>> print(table.replace("\u2060", "").splitlines()[2])  # without the word joiners
    | linear | 10⁻² | SNKP 5x |
    >>> print(crossover_grid_markdown({"rows": rows}, "linear").replace("\u2060", ""))
    | ρ | n = 10³ |
    |---|---|
    | 10⁻² | SNKP 5x |
    >>> nkp = dict(rows[0], solver="nkp", time_s=0.002)
    >>> print(crossover_grid_markdown({"rows": [*rows, nkp]}, "linear").splitlines()[2]
    ...       .replace("\u2060", ""))
    | 10⁻² | SNKP 5x; NKP fastest |
    """
    cross = crossovers(record)
    if family is not None:
        if family not in FAMILY_LABELS:
            raise ValueError(f"family must be one of {sorted(FAMILY_LABELS)}, got {family!r}")
        cross = [c for c in cross if c["family"] == family]
    ns = sorted({e["n"] for c in cross for e in c["by_n"]})
    header = ([] if family else ["problem"]) + ["ρ"] + [f"n = {short_number(n)}" for n in ns]
    body = []
    for c in cross:
        by = {e["n"]: e for e in c["by_n"]}
        cells = []
        for n in ns:
            e = by.get(n)
            if e is None:
                cells.append("")
            elif e["winner"] is None:
                cells.append("none")
            elif e["winner"] == "snkp":
                sp = e["speedup"]
                bound = "≥ " if e["speedup_bound"] == ">=" else ""
                cells.append("SNKP only" if sp is None else f"SNKP {bound}{sp:.2g}x")
            else:
                who = SHORT_LABELS.get(e["peer"], e["peer"])
                sp = e["speedup"]
                cells.append(f"{who} only" if sp is None else f"{who} {1 / sp:.2g}x")
            fastest = e.get("fastest") if e is not None else None
            if fastest is not None and fastest not in (e.get("snkp"), e.get("peer")):
                # another kperc solver (NKP) beat both sides: the cell says so
                cells[-1] += f"; {SHORT_LABELS.get(fastest, fastest)} fastest"
        first = [] if family else [FAMILY_LABELS.get(c["family"], c["family"])]
        body.append([*first, short_number(c["rho"]), *cells])
    return md_table(header, body)


def peers_markdown(record: dict[str, Any]) -> str:
    """Markdown tables: time to a separator per family and margin (solvers by ``n``), then
    the crossovers per family."""
    rows = record["rows"]
    parts = []
    fams = [f for f in FAMILY_LABELS if any(r["family"] == f for r in rows)]
    for fam in fams:
        sub = [r for r in rows if r["family"] == fam]
        for rho in sorted({r["rho"] for r in sub}, reverse=True):
            at = [r for r in sub if r["rho"] == rho]
            ns = sorted({r["n"] for r in at})
            body = []
            for s in solvers_of(at):
                by_n = {r["n"]: r for r in at if r["solver"] == s}
                body.append([label(s)] + [run_cell(by_n.get(n)) for n in ns])
            parts.append(
                f"**{_cap(FAMILY_LABELS[fam])} problems, \u03c1 = {rho:g}**: "
                "time to a separator\n\n"
                + md_table(["solver"] + [f"n = {short_number(n)}" for n in ns], body)
            )
    cr = record.get("crossovers") or crossovers(record)
    for fam in fams:

        def lab(s, t):
            return f"{fmt_time(t)} ({SHORT_LABELS.get(s, s)})" if s else "none"

        body = []
        for c in (c for c in cr if c["family"] == fam):
            for e in c["by_n"]:
                sp = e["speedup"]
                spt = (
                    ""
                    if sp is None
                    else (">= " if e["speedup_bound"] == ">=" else "") + f"{sp:.3g}"
                )
                body.append(
                    [
                        f"{short_number(c['rho'])}, {short_number(e['n'])}",
                        lab(e["snkp"], e["snkp_s"]),
                        lab(e["peer"], e["peer_s"]),
                        spt,
                        label(e["fastest"]) if e["fastest"] else "none",
                    ]
                )
        parts.append(
            f"**Crossovers, {FAMILY_LABELS[fam]} problems**\n\n"
            + md_table(
                ["\u03c1, n", "best SNKP", "best peer", "peer / SNKP", "fastest"],
                body,
            )
        )
    return "\n\n".join(parts) + "\n"

"""The benchmarks page's section on the grown Nystroem rank (``snkp-nystroem-grown``).

The peer comparison (``peers.json``) times :func:`kperc.snkp_nystroem`, whose rank starts
small and doubles until SNKP's separator is certified under the exact kernel, next to
SNKP on a fixed 300 landmarks and libsvm's ``SVC``. This module turns those rows into the
section's glued values (:func:`nystroem_grown_texts`, in the order the page glues them);
a record without grown-rank rows says so instead of failing.
"""

from __future__ import annotations

from typing import Any

from benchmarks.page import Glue, Record, md
from benchmarks.peers.analysis import is_separator
from benchmarks.peers.markdown import fmt_time
from kperc_book._markdown import table as md_table

GROWN = "snkp-nystroem-grown"
FIXED = "snkp-nystroem"
SVC = "svc-rbf"
#: The goal's region of the benchmarks page: small margins and large sizes.
GOAL_RHO_MAX = 1e-2
GOAL_N_MIN = 10_000


def _row(prec: Record, solver: str, rho: float, n: int) -> dict[str, Any] | None:
    return next(
        (
            r
            for r in prec["rows"]
            if r["family"] == "rbf" and r["solver"] == solver and r["rho"] == rho and r["n"] == n
        ),
        None,
    )


def _cases(prec: Record) -> list[tuple[float, int]]:
    """The (rho, n) of the RBF problems with a grown-rank row, hardest margin last."""
    keys = {
        (r["rho"], r["n"]) for r in prec["rows"] if r["family"] == "rbf" and r["solver"] == GROWN
    }
    return sorted(keys, key=lambda k: (-k[0], k[1]))


def _cell(r: dict[str, Any] | None) -> str:
    """A run as a table cell: its time if it separated (certified), else what happened."""
    if r is None:
        return "not run"
    if r["status"] == "timeout":
        return f"> {fmt_time(r['cap_s'])}"
    if r["status"] != "finished":
        return r["status"]
    if is_separator(r):
        return fmt_time(r["time_s"])
    if r.get("separated") and r.get("exact_separated") is False:
        return "fails the exact check"
    return "no separator"


def versus_svc(prec: Record) -> list[dict[str, Any]]:
    """Per RBF problem: the grown-rank run, ``SVC`` and who separated first.

    ``winner`` is ``"snkp"`` when the grown-rank run separated (certified under the exact
    kernel) no later than ``SVC`` or ``SVC`` did not separate, ``"svc"`` when ``SVC``
    separated first, and None when neither separated.

    Examples
    --------
    >>> rows = [
    ...     {"family": "rbf", "rho": 0.01, "n": 10_000, "solver": s, "status": "finished",
    ...      "separated": True, "time_s": t, "cap_s": 20.0, **extra}
    ...     for s, t, extra in ((GROWN, 0.02, {"n_components": 64}), (SVC, 0.1, {}))
    ... ]
    >>> [(c["winner"], c["m"]) for c in versus_svc({"rows": rows})]
    [('snkp', 64)]
    """
    out = []
    for rho, n in _cases(prec):
        g, s = _row(prec, GROWN, rho, n), _row(prec, SVC, rho, n)
        g_ok = g is not None and is_separator(g)
        s_ok = s is not None and is_separator(s)
        if g_ok and (not s_ok or g["time_s"] <= s["time_s"]):
            winner = "snkp"
        elif s_ok:
            winner = "svc"
        else:
            winner = None
        out.append(
            {
                "rho": rho,
                "n": n,
                "winner": winner,
                "grown": g,
                "svc": s,
                "m": g.get("n_components") if g_ok else None,
                "stages": g.get("stages") if g_ok else None,
            }
        )
    return out


def grown_table(prec: Record) -> str:
    """Markdown table: time to a certified separator of the grown rank (and the rank
    reached), of the fixed 300 landmarks, and of ``SVC``."""
    rows = []
    for c in versus_svc(prec):
        fixed = _row(prec, FIXED, c["rho"], c["n"])
        rank = f"{c['m']} ({c['stages']} stage{'s' if c['stages'] != 1 else ''})" if c["m"] else ""
        rows.append(
            [
                f"{c['rho']:g}",
                f"{c['n']:,}",
                _cell(c["grown"]),
                rank,
                _cell(fixed),
                _cell(c["svc"]),
            ]
        )
    return md_table(
        ["ρ", "n", "SNKP, grown rank", "rank reached", "SNKP, 300 landmarks", "SVC"], rows
    )


def goal_text(prec: Record) -> str:
    """How often the grown rank separated before ``SVC`` in the goal's region."""
    goal = [c for c in versus_svc(prec) if c["rho"] <= GOAL_RHO_MAX and c["n"] >= GOAL_N_MIN]
    if not goal:
        return "This record has no grown-rank runs with ρ ≤ 10⁻² and *n* ≥ 10⁴."
    decided = [c for c in goal if c["winner"] is not None]
    wins = [c for c in decided if c["winner"] == "snkp"]
    txt = (
        f"With ρ ≤ 10⁻² and *n* ≥ 10⁴, SNKP with a grown rank reached a separator "
        f"certified under the exact kernel before `SVC` in {len(wins)} of the "
        f"{len(decided)} problems that some solver separated within the cap"
    )
    lost = [c for c in decided if c["winner"] == "svc"]
    if lost:
        txt += "; `SVC` was faster at " + "; ".join(
            f"ρ = {c['rho']:g}, *n* = {c['n']:,} ({fmt_time(c['svc']['time_s'])} against "
            f"{_cell(c['grown'])})"
            for c in lost
        )
    none = [c for c in goal if c["winner"] is None]
    if none:
        txt += "; neither separated within the cap at " + ", ".join(
            f"ρ = {c['rho']:g}, *n* = {c['n']:,}" for c in none
        )
    return txt + "."


def ranks_text(prec: Record) -> str:
    """The ranks the growth stopped at, by margin."""
    by_rho: dict[float, set[int]] = {}
    for c in versus_svc(prec):
        if c["m"]:
            by_rho.setdefault(c["rho"], set()).add(int(c["m"]))
    if not by_rho:
        return "no grown-rank run was certified in this record"
    by_ranks: dict[str, list[float]] = {}  # the same ranks at several margins: one phrase
    for rho in sorted(by_rho, reverse=True):
        ms = sorted(by_rho[rho])
        by_ranks.setdefault(f"{ms[0]}" if len(ms) == 1 else f"{ms[0]} to {ms[-1]}", []).append(rho)
    return "; ".join(
        f"{ranks} landmarks at ρ = " + " and ".join(f"{rho:g}" for rho in rhos)
        for ranks, rhos in by_ranks.items()
    )


def margins_text(prec: Record) -> str:
    """The normalised margins of the grown-rank separators against ``SVC``'s."""
    ratios = []
    for c in versus_svc(prec):
        g, s = c["grown"], c["svc"]
        if c["m"] and s is not None and is_separator(s) and g.get("margin") and s.get("margin"):
            ratios.append(s["margin"] / g["margin"])
    if not ratios:
        return "This record has no pair of margins to compare."

    def two_digits(x: float) -> str:  # 21, 2,700: two significant digits, no exponent
        x = float(f"{x:.2g}")
        return f"{x:,.0f}" if x >= 10 else f"{x:g}"

    lo, hi = two_digits(min(ratios)), two_digits(max(ratios))
    span = f"{lo} to {hi}" if lo != hi else hi
    return (
        f"`SVC`'s normalised margins were {span} times those of SNKP's separators: SNKP "
        "stops at its first separator, while `SVC` solves for the largest margin."
    )


def run_text(prec: Record) -> str:
    """How the RBF rows were measured: the command, and whether the machine was busy."""
    run = prec.get("family_runs", {}).get("rbf")
    if run is None:
        how, busy = "in the run of the comparison above", prec.get("busy")
    else:
        how, busy = "in a later run of the RBF problems alone", run.get("busy")
    state = {
        True: "on a machine busy with other work, so the times are pessimistic",
        False: "on an otherwise idle machine",
        None: "with the machine's load unknown",
    }[busy]
    return f"The RBF rows were measured {how}, {state}."


def nystroem_grown_texts(prec: Record) -> list[Glue]:
    """The section "Growing the Nyström rank", in the order the page glues it."""
    return [
        md("grown-run", run_text(prec)),
        md("grown-goal", goal_text(prec)),
        md("grown-ranks", ranks_text(prec)),
        md("grown-table", grown_table(prec)),
        md("grown-margins", margins_text(prec)),
    ]

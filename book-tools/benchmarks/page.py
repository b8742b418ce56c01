"""The benchmarks page: the harness's records turned into the numbers and prose it glues.

``book/benchmarks.ipynb`` reads two records, ``bench.json`` (the harness,
``python -m benchmarks.bench``) and ``peers.json`` (the comparison with scikit-learn,
``python -m benchmarks.peers``), and quotes them in its Markdown. Each function of this
module builds the glued values of one section of the page, as a list of :class:`Glue`
entries in the order the page glues them; :func:`glue_all` glues them. The figures are
drawn by :mod:`benchmarks.page_figures`.

A section whose suite is missing from the record says "not measured" rather than failing,
as the notebook did; a record without a section the page always shows (the machine, the
periter suite, ...) raises ``KeyError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from benchmarks._config import PERITER_ALGOS, PERITER_TARGETS
from benchmarks.peers.analysis import crossovers, kernel_goal_miss
from benchmarks.peers.config import KPERC_SNKP, PEERS, SHORT_LABELS, SOLVER_LABELS
from benchmarks.peers.markdown import fmt_time as fmt_s
from benchmarks.peers.markdown import peers_markdown, run_cell, short_number
from benchmarks.report import target_verdict
from kperc_book._markdown import table as md_table

Record = dict[str, Any]


class Glue(NamedTuple):
    """One glued value: Markdown text (``markdown=True``) or a number or string for
    ``Chapter.glue`` (rounded there to ``digits`` significant digits)."""

    name: str
    value: Any
    markdown: bool = False
    digits: int = 4


def md(name: str, text: str) -> Glue:
    """A Markdown value, quoted in the page with ``{glue:md}``."""
    return Glue(name, text, markdown=True)


def num(name: str, value: Any, digits: int = 4) -> Glue:
    """A number (or plain string) glued with ``Chapter.glue``, rounded to ``digits``."""
    return Glue(name, value, digits=digits)


def glue_all(ch, entries: Iterable[Glue]) -> None:
    """Glue every entry: Markdown with myst-nb (not displayed), the rest with ``ch.glue``."""
    from IPython.display import Markdown
    from myst_nb import glue

    for e in entries:
        if e.markdown:
            glue(e.name, Markdown(e.value), display=False)
        else:
            ch.glue(e.name, e.value, digits=e.digits)


def as_dict(entries: Iterable[Glue]) -> dict[str, Any]:
    """The entries by name (the value each name would be glued with, before rounding)."""
    out: dict[str, Any] = {}
    for e in entries:
        if e.name in out:
            raise ValueError(f"the glue name {e.name!r} is used twice")
        out[e.name] = e.value
    return out


# --- small text helpers ---------------------------------------------------------------


def machine_text(m: dict[str, Any]) -> str:
    """The machine of a record in one line: processor, cores, memory, versions."""
    return (
        f"{m['cpu']}, {m['cores']} cores, {m.get('memory_gb', '?')} GB, {m['platform']}, "
        f"Python {m['python']}, NumPy {m['numpy']} ({m.get('blas', '?')}), SciPy {m['scipy']}, "
        f"scikit-learn {m['scikit-learn']}"
    )


def when_text(stamp: str) -> str:
    """An ISO time stamp ``2024-01-02T03:04:05Z`` as ``2024-01-02 03:04:05 UTC``."""
    return stamp.replace("T", " ").replace("Z", " UTC")


def busy_text(busy: bool | None, load: float | None, cores: int) -> str:
    """A sentence on the load of the machine; ``busy`` may be missing (None)."""
    load_s = "unknown" if load is None else f"{load:.1f}"
    if busy is True:
        return (
            f"**Measured on a busy machine.** The 1-minute load average was {load_s} on "
            f"{cores} cores, so other jobs competed for the processor: the times below are "
            "slower than an idle machine gives, and close comparisons may change on a rerun."
        )
    if busy is False:
        return f"The machine was otherwise idle (1-minute load average {load_s} on {cores} cores)."
    return (
        f"The record does not say whether the machine was busy; the 1-minute load average "
        f"was {load_s} on {cores} cores when the run started."
    )


def label(solver: str) -> str:
    """The display name of a peers solver (the key itself when it has none)."""
    return SOLVER_LABELS.get(solver, solver)


def targets_by_id(rec: Record) -> dict[str, dict[str, Any]]:
    """The harness's targets, by id."""
    return {t["id"]: t for t in rec["targets"]}


def reference_verdict(t: dict[str, Any]) -> str:
    """How a measurement compares with its reference value, in the page's words: the
    harness's verdict (:func:`benchmarks.report.target_verdict`) without the
    "met"/"missed" of a performance target, which belongs to CONTRIBUTING, not the book."""
    text = target_verdict(t)
    for word, phrase in (
        ("**met**", "within the reference value"),
        ("**missed**", "beyond the reference value"),
    ):
        if text.startswith(word):
            return phrase + text[len(word) :]
    return text


def verdict(rec: Record, tid: str) -> str:
    """How measurement ``tid`` compares with its reference value (:func:`reference_verdict`),
    or "not measured" when the record lacks it."""
    t = targets_by_id(rec)
    return reference_verdict(t[tid]) if tid in t else "**not measured** in this record"


def detail(rec: Record, tid: str) -> str:
    """The detail sentence of target ``tid``, or "not measured"."""
    t = targets_by_id(rec)
    return t[tid]["detail"] if tid in t else "not measured"


# --- the comparison with scikit-learn (peers.json) -------------------------------------


def _peers_load(prec: Record) -> float | None:
    """The larger of the load averages before and after the run (None if not recorded)."""
    if prec["loadavg_1min_before"] is None:
        return None
    loads = (prec["loadavg_1min_before"], prec["loadavg_1min_after"])
    return max(x for x in loads if x is not None)


def check_text(prec: Record) -> str:
    """How the record decided "separated": beyond rounding (every finished run carries
    ``check = "rounding"``, :func:`benchmarks._peer_runners.check_model`) or by the sign."""
    done = [r for r in prec["rows"] if r["status"] == "finished"]
    if done and all(r.get("check") == "rounding" for r in done):
        return (
            "Each yᵢ f(xᵢ) is a sum of products, and it counts as positive only if it "
            "exceeds the floating-point error bound of that sum: separators are certified "
            "beyond rounding, for every solver alike."
        )
    return (
        "In this record the sign of each computed yᵢ f(xᵢ) decides; a newer run also "
        "asks each value to exceed the rounding error of its sum."
    )


def peers_setup(prec: Record) -> list[Glue]:
    """What was measured, where and how: the configuration and the run's bookkeeping."""
    pm = prec["machine"]
    pc = prec["config"]
    out = [
        md("peers-machine", machine_text(pm)),
        md("peers-when", when_text(prec["finished_utc"])),
        md("peers-elapsed", f"{prec['elapsed_s'] / 60:.1f} minutes"),
        md("peers-command", f"`{prec['command']}`"),
        md("peers-busy", busy_text(prec.get("busy"), _peers_load(prec), pm["cores"])),
        md("peers-cap", f"{pc['cap_s']:g}"),
        num("peers-d", pc["d"]),
        num("peers-rbf-d", pc["rbf_d"]),
        md("peers-gamma", f"{pc['rbf_gamma']:g}"),
        num("peers-m", pc["nystroem_components"]),
        md("peers-dense-gb", f"{pc['dense_max_gb']:g}"),
        num("peers-nkp-dense-n", pc["nkp_dense_max_n"]),
        num("peers-exact-n", pc["exact_max_n"]),
        num("peers-exact-rows", pc["exact_rows"]),
        num("peers-margin-n", pc["margin_max_n"]),
        md("peers-svc-c", short_number(pc["svc_C"])),
        md("peers-lsvc-c", short_number(pc["linearsvc_C"])),
    ]
    kperc_sep = [
        r
        for r in prec["rows"]
        if r["solver"] in KPERC_SNKP + ("nkp",) and r["status"] == "finished" and r["separated"]
    ]
    n_cert = sum(r.get("certified") is True for r in kperc_sep)
    out += [
        md(
            "peers-certified",
            f"{n_cert} of the {len(kperc_sep)} kperc runs that separated ended with a "
            "certified separator",
        ),
        md("peers-check", check_text(prec)),
        md("peers-blas", str(prec["blas_threads"])),
        md("peers-linear-ns", ", ".join(f"{n:,}" for n in pc["linear_ns"])),
        md("peers-rbf-ns", ", ".join(f"{n:,}" for n in pc["rbf_ns"])),
        md("peers-linear-rhos", ", ".join(f"{r:g}" for r in pc["linear_rhos"])),
        md("peers-rbf-rhos", ", ".join(f"{r:g}" for r in pc["rbf_rhos"])),
    ]
    rows = prec["rows"]
    out += [
        num("peers-n-runs", len(rows)),
        num("peers-n-timeout", sum(r["status"] == "timeout" for r in rows)),
        num("peers-n-skipped", sum(r["status"] == "skipped" for r in rows)),
        num("peers-n-error", sum(r["status"] == "error" for r in rows)),
    ]
    return out


def and_list(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def count_text(k: int) -> str:
    """How many times, in words: ``once``, ``twice``, ``3 times``."""
    return {1: "once", 2: "twice"}.get(k, f"{k} times")


def wins_losses_lines(prec: Record) -> list[str]:
    """One bullet per family on the goal's region (rho <= 1e-2, n >= 1e4), and one on the
    easy problems (rho > 1e-2) where a peer won, if any."""
    cr = crossovers(prec)
    lines = []
    for fam, name in (("linear", "Linear"), ("rbf", "RBF")):
        hard = [
            (c["rho"], e)
            for c in cr
            if c["family"] == fam and c["rho"] <= 1e-2
            for e in c["by_n"]
            if e["n"] >= 10_000
        ]
        wins = [(rho, e) for rho, e in hard if e["winner"] == "snkp"]
        lost = [(rho, e) for rho, e in hard if e["winner"] == "peers"]
        none = [(rho, e) for rho, e in hard if e["winner"] is None]
        ran = {r["solver"] for r in prec["rows"] if r.get("family", "linear") == fam}
        peers = [SHORT_LABELS[s] for s in PEERS if s in ran] or ["solvers"]
        nkp = sum(e["fastest"] == "nkp" for _, e in wins)
        txt = (
            f"**{name} problems, $\\rho \\le 10^{{-2}}$ and $n \\ge 10^4$:** SNKP reached a "
            f"separator before scikit-learn's {and_list(peers)} in {len(wins)} of "
            f"{len(hard)} cases"
            + (f" (kperc's NKP was faster still in {count_text(nkp)})" if nkp else "")
        )
        if lost:
            txt += "; a scikit-learn solver was faster in " + "; ".join(
                f"$\\rho$ = {rho:g}, $n$ = {e['n']:,} ({label(e['peer'])} {fmt_s(e['peer_s'])} "
                f"against {label(e['snkp'])} {fmt_s(e['snkp_s'])})"
                if e["snkp"]
                else f"$\\rho$ = {rho:g}, $n$ = {e['n']:,} ({label(e['peer'])} "
                f"{fmt_s(e['peer_s'])}; no SNKP run separated within the cap)"
                for rho, e in lost
            )
        if none:
            txt += "; nobody separated within the cap at " + ", ".join(
                f"$\\rho$ = {rho:g}, $n$ = {e['n']:,}" for rho, e in none
            )
        lines.append(txt + ".")
        easy = [
            (c["rho"], e)
            for c in cr
            if c["family"] == fam and c["rho"] > 1e-2
            for e in c["by_n"]
            if e["winner"] == "peers"
        ]
        if easy:
            lines.append(
                f"On the easy {name.replace('Linear', 'linear')} problems ($\\rho$ above "
                f"$10^{{-2}}$) a scikit-learn solver was faster {count_text(len(easy))}: "
                + "; ".join(
                    f"$n$ = {e['n']:,}: {label(e['peer'])} {fmt_s(e['peer_s'])}"
                    + (f" against {label(e['snkp'])} {fmt_s(e['snkp_s'])}" if e["snkp"] else "")
                    for _, e in easy
                )
                + "."
            )
    return lines


def kernel_miss_texts(prec: Record) -> list[Glue]:
    """The kernel problems in the goal's region: by how much SNKP lost, and the two reasons
    (few support vectors, the Nystroem approximation error)."""
    miss = kernel_goal_miss(prec)
    parts = []
    if miss["slower"]:
        f = [snkp_s / peer_s for *_, snkp_s, peer_s in miss["slower"]]
        span = f"{min(f):.1f} to {max(f):.1f}" if max(f) - min(f) >= 0.05 else f"{max(f):.1f}"
        parts.append(f"where SNKP did separate, it took {span} times as long as `SVC`")
    if miss["unsolved"]:
        parts.append(
            "at "
            + " and ".join(f"ρ = {rho:g}, *n* = {n:,}" for rho, n, _ in miss["unsolved"])
            + " no SNKP run produced a separator of the exact kernel within the cap, while "
            + "`SVC` took "
            + " and ".join(fmt_s(t) for *_, t in miss["unsolved"])
        )
    sv, sv_n = miss["svc_support"], miss["svc_ns"]
    return [
        md(
            "peers-rbf-miss",
            ("On the kernel problems SNKP was not always first: " + "; ".join(parts) + ".")
            if parts
            else "On the kernel problems, too, SNKP separated first in every case of that region.",
        ),
        md(
            "peers-rbf-sv",
            f"between {sv[0]} and {sv[1]} support vectors, for *n* from {sv_n[0]:,} to {sv_n[1]:,}"
            if sv
            else "a number of support vectors this record does not hold",
        ),
        md(
            "peers-rbf-snkp-nit",
            " and ".join(f"{nit} (*n* = {n:,})" for n, nit in miss["snkp_nit"]) or "not recorded",
        ),
        md(
            "peers-rbf-nystroem-bad",
            "; ".join(
                f"at ρ = {rho:g}, *n* = {n:,} it left {k} of the points on the wrong side"
                for rho, n, k in miss["nystroem_wrong"]
            )
            or "none of the Nyström separators failed under the exact kernel in this record",
        ),
        md(
            "peers-rbf-dense-cap",
            f"SNKP on it was stopped at the cap from *n* = {miss['dense_cap_n']:,}"
            if miss["dense_cap_n"]
            else "SNKP on it finished within the cap wherever it ran",
        ),
    ]


def _peer_row(prec: Record, fam: str, rho: float, n: int, solver: str) -> dict[str, Any] | None:
    """The row of one run, or None."""
    return next(
        (
            x
            for x in prec["rows"]
            if x["family"] == fam and x["rho"] == rho and x["n"] == n and x["solver"] == solver
        ),
        None,
    )


def svc_easy_text(prec: Record) -> str:
    """How fast `SVC` and kperc's fastest separated the easiest, smallest kernel problem."""
    rbf_rhos = sorted({r["rho"] for r in prec["rows"] if r["family"] == "rbf"}, reverse=True)
    rbf_ns = sorted({r["n"] for r in prec["rows"] if r["family"] == "rbf"})
    if not (rbf_rhos and rbf_ns):
        return "This record has no RBF problems."
    easy_rho, small_n = rbf_rhos[0], rbf_ns[0]
    svc = _peer_row(prec, "rbf", easy_rho, small_n, "svc-rbf")
    best = [
        _peer_row(prec, "rbf", easy_rho, small_n, s)
        for s in ("snkp-dense", "snkp-nystroem", "snkp-nystroem-grown", "nkp")
    ]
    best = [b for b in best if b and b["status"] == "finished" and b["separated"]]
    if not (svc and svc["status"] == "finished" and svc["separated"]):
        return "`SVC` did not separate the easy kernel problem in this run."
    txt = (
        f"`SVC` finishes the easy kernel problem (ρ = {easy_rho:g}, *n* = "
        f"{small_n:,}) in {fmt_s(svc['time_s'])}"
    )
    if best:
        b = min(best, key=lambda r: r["time_s"])
        txt += f"; kperc's fastest, {label(b['solver'])}, needs {fmt_s(b['time_s'])}"
    return txt + "."


def peers_wins_losses(prec: Record) -> list[Glue]:
    """The section "Where kperc wins and where it loses"."""
    return [
        md("peers-summary", "\n".join(f"* {line}" for line in wins_losses_lines(prec))),
        *kernel_miss_texts(prec),
        md("peers-svc-easy", svc_easy_text(prec)),
    ]


def peer_families(prec: Record) -> list[str]:
    """The families the page draws a figure for: always linear, RBF if the record has it."""
    return ["linear"] + (["rbf"] if any(r["family"] == "rbf" for r in prec["rows"]) else [])


def nystroem_exact_text(prec: Record) -> str:
    """How SNKP's Nystroem separators fared under the exact kernel."""
    ny = [r for r in prec["rows"] if r["solver"] == "snkp-nystroem" and r["status"] == "finished"]
    full = [r for r in ny if r.get("exact_rows") == "all"]
    part = [r for r in ny if r.get("exact_rows") not in (None, "all")]
    txt = (
        f"Under the exact kernel, SNKP's Nyström separators separated every training point in "
        f"{sum(bool(r['exact_separated']) for r in full)} of the {len(full)} runs checked on all "
        "points"
    )
    worst = [r["exact_fraction"] for r in full if not r["exact_separated"]]
    if worst:
        txt += f" (the others separated at least {100 * min(worst):.4g} % of the points)"
    if part:
        txt += "; at larger *n*, on random subsets of points, they separated " + ", ".join(
            f"{100 * r['exact_fraction']:.4g} % (ρ = {r['rho']:g}, *n* = {r['n']:,})" for r in part
        )
    return txt + "."


def peers_exact(prec: Record) -> list[Glue]:
    """The exact kernel margins of the RBF instances, the Nystroem separators under the
    exact kernel, and the tables of every run."""
    inst = [i for i in prec["instances"] if i["family"] == "rbf" and i.get("kernel_margin")]
    margins = (
        "; ".join(
            f"planted ρ = {i['rho']:g}: exact margin {i['kernel_margin']:.3g}"
            for i in sorted(inst, key=lambda i: -i["rho"])
        )
        if inst
        else "not measured in this record"
    )
    return [
        md("peers-rbf-margins", margins),
        md("peers-nystroem-exact", nystroem_exact_text(prec)),
        md("peers-tables", peers_markdown(prec)),
    ]


# --- who wins, by problem family (families.json) ----------------------------------------

#: The families a reader meets first: generated ones in this order, then the real problems.
GENERATED_FAMILIES = ("planted", "spread", "crowded", "two_rays", "rbf")
#: The families with a linear kernel (the first figure of the section).
LINEAR_FAMILIES = ("planted", "spread", "crowded", "two_rays")
#: The families built to be hard for some perceptron (Section 2.2's two rays, spread norms,
#: the crowded family in a random order).
ADVERSARIAL_FAMILIES = ("spread", "crowded", "two_rays")
#: The algorithms ``SNKPClassifier(algorithm=...)`` offers (the harness's names).
CLASSIFIER_ALGORITHMS = {"snkp": "snkp", "nkp": "nkp", "isnkpvn": "isnkpvn"}


def families_of(frec: Record) -> list[str]:
    """The families of a by-family record: the generated ones first, in a fixed order."""
    present = list(dict.fromkeys(r["family"] for r in frec["rows"]))
    return [f for f in GENERATED_FAMILIES if f in present] + [
        f for f in present if f not in GENERATED_FAMILIES
    ]


def kernel_families(frec: Record) -> list[str]:
    """The families of a by-family record that are not linear (the second figure)."""
    return [f for f in families_of(frec) if f not in LINEAR_FAMILIES]


def hardest_cell(frec: Record, family: str) -> dict[str, Any]:
    """The winners entry (:func:`benchmarks.peers.analysis.family_winners`) of a family's
    hardest measured instance: its smallest margin, then its largest ``n``."""
    from benchmarks.peers.analysis import family_winners

    cells = [e for e in family_winners(frec) if e["family"] == family]
    if not cells:
        raise ValueError(f"the record has no rows of the family {family!r}")
    return min(cells, key=lambda e: (e["rho"], -e["n"]))


def fam_label(solver: str | None) -> str:
    """A solver's name in the by-family section's prose and tables (no comma in it)."""
    names = {"svc-linear": "linear SVC", "svc-kernel": "kernel SVC", "linearsvc": "LinearSVC"}
    return "none" if solver is None else names.get(solver, label(solver))


def _rho_text(family: str, rho: float) -> str:
    if rho == 0:
        return "real data"
    sym = "ρ₂/r" if family == "two_rays" else "ρ"
    return f"{sym} = {short_number(rho)}"


def _factor_text(e: dict[str, Any]) -> str:
    """``SNKP 12x faster``: the winning side, and the losing side's time over its own."""
    if e["winner"] is None:
        return "nobody separated"
    who = "kperc" if e["winner"] == "kperc" else "scikit-learn"
    if e["factor"] is None:
        return f"only {who} separated"
    bound = "≥ " if e["factor_bound"] == ">=" else ""
    return f"{who} {bound}{e['factor']:.2g}x faster"


def which_algorithm_rows(frec: Record) -> list[dict[str, Any]]:
    """The "which algorithm when" table, one entry per family, read from the record.

    For each family (in :func:`families_of` order), at its hardest measured instance
    (:func:`hardest_cell`): ``family`` (display name), ``cell`` (its margin and size),
    ``kperc`` / ``kperc_s`` / ``kperc_nit`` (the fastest kperc algorithm there),
    ``fastest`` / ``fastest_s`` (the fastest solver of all), ``verdict`` (kperc against
    scikit-learn, :func:`_factor_text`), ``classifier`` (the fastest of the algorithms that
    ``SNKPClassifier`` offers, or None) and ``kperc_won`` / ``cells`` (on how many of the
    family's instances a kperc algorithm separated first).

    Examples
    --------
    >>> rows = [
    ...     {"family": "spread", "rho": rho, "n": 1000, "solver": s, "status": "finished",
    ...      "separated": True, "time_s": t, "nit": k}
    ...     for rho, s, t, k in ((0.01, "snkp", 0.002, 25), (0.01, "svc-linear", 0.2, 900),
    ...                          (0.001, "snkp", 0.01, 396), (0.001, "nkp", 0.5, 5000),
    ...                          (0.001, "svc-linear", 2.0, 9000))
    ... ]
    >>> row = which_algorithm_rows({"rows": rows})[0]
    >>> row["kperc"], row["kperc_nit"], row["verdict"], row["classifier"], row["kperc_won"]
    ('snkp', 396, 'kperc 2e+02x faster', 'snkp', 2)
    """
    from benchmarks.peers.analysis import family_winners, is_separator
    from benchmarks.peers.config import family_label

    wins = family_winners(frec)
    out = []
    for fam in families_of(frec):
        e = hardest_cell(frec, fam)
        mine = [w for w in wins if w["family"] == fam]
        at = [
            r
            for r in frec["rows"]
            if r["family"] == fam and r["rho"] == e["rho"] and r["n"] == e["n"]
        ]
        clf = sorted(
            (r for r in at if r["solver"] in CLASSIFIER_ALGORITHMS and is_separator(r)),
            key=lambda r: r["time_s"],
        )
        out.append(
            {
                "family_key": fam,
                "family": family_label(fam),
                "cell": f"{_rho_text(fam, e['rho'])}, n = {short_number(e['n'])}",
                "kperc": e["kperc"],
                "kperc_s": e["kperc_s"],
                "kperc_nit": e["kperc_nit"],
                "fastest": e["fastest"],
                "fastest_s": e["fastest_s"],
                "verdict": _factor_text(e),
                "classifier": clf[0]["solver"] if clf else None,
                "kperc_won": sum(w["winner"] == "kperc" for w in mine),
                "cells": len(mine),
            }
        )
    return out


def which_algorithm_markdown(frec: Record) -> str:
    """:func:`which_algorithm_rows` as the page's table."""
    body = []
    for r in which_algorithm_rows(frec):
        k = (
            f"{fam_label(r['kperc'])}, {fmt_s(r['kperc_s'])}, {r['kperc_nit']:,} it."
            if r["kperc"]
            else "none separated"
        )
        f = f"{fam_label(r['fastest'])}, {fmt_s(r['fastest_s'])}" if r["fastest"] else "none"
        body.append(
            [
                r["family"],
                r["cell"],
                k,
                f,
                r["verdict"],
                f"{r['kperc_won']} of {r['cells']}",
            ]
        )
    return md_table(
        [
            "problems",
            "hardest instance",
            "fastest kperc",
            "fastest of all",
            "kperc vs scikit-learn",
            "kperc first",
        ],
        body,
    )


def solver_order(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The solvers of ``rows``: kperc's algorithms first, then scikit-learn's, then others."""
    from benchmarks.peers.config import KPERC_SOLVERS, SKLEARN_SOLVERS

    present = {r["solver"] for r in rows}
    known = [s for s in (*KPERC_SOLVERS, *SKLEARN_SOLVERS) if s in present]
    return known + sorted(present - set(known))


def family_table_markdown(frec: Record, family: str) -> str:
    """Every run of one family: a row per solver, a column per instance; a cell is the time
    to a certified separator and the iteration count, the fastest in bold."""
    from benchmarks.peers.analysis import family_winners

    sub = [r for r in frec["rows"] if r["family"] == family]
    if not sub:
        raise ValueError(f"the record has no rows of the family {family!r}")
    cells = sorted({(r["rho"], r["n"]) for r in sub}, key=lambda c: (-c[0], c[1]))
    fastest = {
        (e["rho"], e["n"]): e["fastest"] for e in family_winners(frec) if e["family"] == family
    }
    body = []
    for s in solver_order(sub):
        line = [fam_label(s)]
        for rho, n in cells:
            r = next((x for x in sub if x["solver"] == s and x["rho"] == rho and x["n"] == n), None)
            if r is not None:
                r = {**r, "_fastest": fastest.get((rho, n)) == s}
            line.append(run_cell(r, nit=True))
        body.append(line)
    head = ["solver"] + [
        f"n = {short_number(n)}" if rho == 0 else f"{short_number(rho)}, {short_number(n)}"
        for rho, n in cells
    ]
    return md_table(head, body)


def families_tables_markdown(frec: Record) -> str:
    """:func:`family_table_markdown` for every family, each under its name."""
    from benchmarks.peers.config import family_label

    parts = []
    for fam in families_of(frec):
        cap = family_label(fam)
        parts.append(f"**{cap[:1].upper() + cap[1:]}**\n\n" + family_table_markdown(frec, fam))
    return "\n\n".join(parts) + "\n"


def adversarial_text(frec: Record) -> str:
    """Whether SNKP is the fastest on the adversarial families, and by how much it misses."""
    from benchmarks.peers.analysis import is_separator
    from benchmarks.peers.config import family_label

    parts = []
    for fam in ADVERSARIAL_FAMILIES:
        if not any(r["family"] == fam for r in frec["rows"]):
            continue
        e = hardest_cell(frec, fam)
        snkp = next(
            (
                r
                for r in frec["rows"]
                if r["family"] == fam
                and r["rho"] == e["rho"]
                and r["n"] == e["n"]
                and r["solver"] == "snkp"
            ),
            None,
        )
        where = f"{_rho_text(fam, e['rho'])}, *n* = {e['n']:,}"

        name = f"*{family_label(fam)}*"
        if e["fastest"] == "snkp":
            nxt = _runner_up(frec, e, "snkp")
            parts.append(
                f"on {name} ({where}) SNKP was the fastest, in {fmt_s(e['fastest_s'])}"
                + (
                    f", {nxt[1] / e['fastest_s']:.2g} times faster than the next, "
                    f"{fam_label(nxt[0])}"
                    if nxt
                    else ""
                )
            )
        elif snkp is not None and is_separator(snkp):
            parts.append(
                f"on {name} ({where}) the fastest was {fam_label(e['fastest'])}, in "
                f"{fmt_s(e['fastest_s'])}, against {fmt_s(snkp['time_s'])} for SNKP "
                f"({snkp['time_s'] / e['fastest_s']:.2g} times as long)"
            )
        else:
            parts.append(f"on {name} ({where}) SNKP did not separate within the cap")
    return ("; ".join(parts) + ".") if parts else "This record has no adversarial families."


def _runner_up(frec: Record, e: dict[str, Any], winner: str) -> tuple[str, float] | None:
    """The second fastest solver that separated at the instance of ``e`` (name, time)."""
    from benchmarks.peers.analysis import is_separator

    ok = sorted(
        (
            r
            for r in frec["rows"]
            if r["family"] == e["family"]
            and r["rho"] == e["rho"]
            and r["n"] == e["n"]
            and r["solver"] != winner
            and is_separator(r)
        ),
        key=lambda r: r["time_s"],
    )
    return (ok[0]["solver"], ok[0]["time_s"]) if ok else None


def planted_easy_text(frec: Record) -> str:
    """How many updates kperc's Perceptron needed on the planted unit-norm problems."""
    runs = sorted(
        (
            r
            for r in frec["rows"]
            if r["family"] == "planted"
            and r["solver"] == "perceptron"
            and r["status"] == "finished"
        ),
        key=lambda r: (-r["rho"], r["n"]),
    )
    if not runs:
        return "kperc's Perceptron has no finished run on the planted problems in this record"
    return "kperc's Perceptron needed " + ", ".join(
        f"{r['nit']:,} updates at ρ = {r['rho']:g}, *n* = {r['n']:,}" for r in runs
    )


def _cells_of(frec: Record, solver: str, pred) -> list[dict[str, Any]]:
    return [r for r in frec["rows"] if r["solver"] == solver and pred(r)]


def _where(r: dict[str, Any]) -> str:
    from benchmarks.peers.config import family_label

    return f"*{family_label(r['family'])}*, {_rho_text(r['family'], r['rho'])}, *n* = {r['n']:,}"


def logreg_text(frec: Record) -> str:
    """Where ``LogisticRegression`` was the fastest of all, and where it gave no separator."""
    from benchmarks.peers.analysis import family_winners

    wins = [e for e in family_winners(frec) if e["fastest"] == "logreg"]
    fails = _cells_of(frec, "logreg", lambda r: r["status"] == "finished" and not r["separated"])
    ran = _cells_of(frec, "logreg", lambda r: True)
    if not ran:
        return "This record has no `LogisticRegression` runs."
    txt = (
        f"`LogisticRegression` was the fastest of all on {len(wins)} of the {len(ran)} "
        "instances it ran on"
    )
    if wins:
        txt += " (" + "; ".join(_where(e) for e in wins) + ")"
    if fails:
        txt += (
            ", and it ended without a separator on "
            + "; ".join(_where(r) for r in fails)
            + ": it minimises a loss and stops at that loss's tolerance, which says "
            "nothing about the signs"
        )
    return txt + "."


def rbf_why_text(frec: Record) -> str:
    """NKP against SNKP at the hardest planted RBF instance: iterations and their cost."""
    if not any(r["family"] == "rbf" for r in frec["rows"]):
        return "This record has no planted RBF problems."
    e = hardest_cell(frec, "rbf")
    at = {
        r["solver"]: r
        for r in frec["rows"]
        if r["family"] == "rbf" and r["rho"] == e["rho"] and r["n"] == e["n"]
    }
    nkp, snkp = at.get("nkp"), at.get("snkp")
    if not (nkp and snkp and nkp.get("separated") and snkp.get("separated")):
        return "NKP or SNKP did not separate the hardest planted RBF problem in this record."
    each = {k: r["time_s"] / max(r["nit"], 1) for k, r in (("nkp", nkp), ("snkp", snkp))}
    us = {k: f"{t * 1e6:.2g} µs" if t < 1e-3 else f"{t * 1e3:.2g} ms" for k, t in each.items()}
    return (
        f"At ρ = {short_number(e['rho'])} and *n* = {e['n']:,}, NKP made {nkp['nit']:,} "
        f"updates in {fmt_s(nkp['time_s'])} (about {us['nkp']} each: one column of "
        f"*G*) and SNKP {snkp['nit']:,} iterations in {fmt_s(snkp['time_s'])} (about "
        f"{us['snkp']} each: a product with the dense *G*)"
    )


def _superscript(k: int) -> str:
    """``k`` in Unicode superscript digits (glued Markdown is not typeset as TeX)."""
    return str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def rays_text(frec: Record) -> str:
    """The most updates kperc's Perceptron made on the two-rays family, against its bound
    ``50 r^4`` at the largest spread ``r = (sqrt(2)/10) / rho`` measured."""
    runs = _cells_of(frec, "perceptron", lambda r: r["family"] == "two_rays")
    done = [r for r in runs if r["status"] == "finished"]
    if not done:
        return "kperc's Perceptron has no finished run on the two-rays problems in this record"
    r = max(np.sqrt(2.0) / 10.0 / x["rho"] for x in runs)
    mant, exp = f"{50.0 * r**4:.1e}".split("e")
    return (
        f"at most {max(x['nit'] for x in done):,} updates, where the bound 50 *r*⁴ reaches "
        f"{float(mant):g} × 10{_superscript(int(exp))}"
    )


def peers_caveat_text(frec: Record, prec: Record) -> str:
    """Which solvers of the by-family run the first comparison left out, and whether they won."""
    from benchmarks.peers.analysis import family_winners
    from benchmarks.peers.config import SKLEARN_SOLVERS

    first = {r["solver"] for r in prec["rows"]} | {"svc-kernel"}  # svc-rbf, svc-linear
    extra = [s for s in solver_order(frec["rows"]) if s in SKLEARN_SOLVERS and s not in first]
    if not extra:
        return "The by-family comparison below has no other scikit-learn solver."
    wins = [e for e in family_winners(frec) if e["fastest"] in extra]
    names = " and ".join(f"`{fam_label(s)}`" for s in extra)
    if not wins:
        return f"The by-family comparison below adds {names}, which was never the fastest there."
    n = len({e["family"] for e in wins})
    return (
        f"These counts leave out {names}, which the by-family comparison below adds: it was "
        f"the fastest of all on {len(wins)} of its instances, in {n} "
        f"famil{'y' if n == 1 else 'ies'}."
    )


def families_texts(frec: Record) -> list[Glue]:
    """The glued values of the section "Who wins, family by family"."""
    from benchmarks.peers.config import family_label

    fc = frec["config"]
    fams = families_of(frec)
    solvers = solver_order(frec["rows"])
    rows = frec["rows"]
    return [
        md("fam-machine", machine_text(frec["machine"])),
        md("fam-when", when_text(frec["finished_utc"])),
        md("fam-elapsed", f"{frec['elapsed_s'] / 60:.1f} minutes"),
        md(
            "fam-busy",
            busy_text(frec.get("busy"), _peers_load(frec), frec["machine"]["cores"]),
        ),
        md("fam-cap", f"{fc['cap_s']:g}"),
        md("fam-families", "; ".join(family_label(f) for f in fams)),
        md("fam-solvers", ", ".join(fam_label(s) for s in solvers)),
        num("fam-n-runs", len(rows)),
        num("fam-n-timeout", sum(r["status"] == "timeout" for r in rows)),
        num("fam-n-error", sum(r["status"] == "error" for r in rows)),
        md("fam-logreg-c", short_number(fc["logreg_C"])),
        md("fam-isnkpvn-eps", short_number(fc["isnkpvn_eps"])),
        md("fam-which-table", which_algorithm_markdown(frec)),
        md("fam-adversarial", adversarial_text(frec)),
        md("fam-planted-easy", planted_easy_text(frec)),
        md("fam-tables", families_tables_markdown(frec)),
        md("fam-logreg", logreg_text(frec)),
        md("fam-rbf-why", rbf_why_text(frec)),
        md("fam-rays-nit", rays_text(frec)),
    ]


def families_caveat(frec: Record, prec: Record) -> list[Glue]:
    """The sentence that the first comparison's counts leave solvers out."""
    return [md("fam-peers-caveat", peers_caveat_text(frec, prec))]


# --- the harness (bench.json) -----------------------------------------------------------


def bench_setup(rec: Record) -> list[Glue]:
    """Where and when the harness ran, and with how many BLAS threads."""
    m = rec["machine"]
    load = rec.get("loadavg_start")
    load1 = load[0] if isinstance(load, list) and load else load
    threads = int(rec["settings"]["blas_threads"])
    return [
        md("bench-machine", machine_text(m)),
        md("bench-when", when_text(rec["finished_utc"])),
        md("bench-command", f"`{rec['command']}`"),
        md("bench-elapsed", f"{rec['elapsed_s'] / 60:.1f} minutes"),
        md("bench-busy", busy_text(rec.get("busy"), load1, m["cores"])),
        md("bench-threads", "one thread" if threads == 1 else f"{threads} threads"),
    ]


def periter_frame(rec: Record):
    """The per-iteration suite's rows as a DataFrame."""
    import pandas as pd

    return pd.DataFrame(rec["suites"]["periter"]["rows"])


def periter_cell(per, op: str, alg: str, n: int, key: str = "ratio") -> float:
    """One value of the per-iteration suite (NaN when the run is missing)."""
    r = per[(per.operator == op) & (per.algorithm == alg) & (per.n == n)]
    return float(r[key].iloc[0]) if len(r) else float("nan")


def periter_texts(rec: Record, cache_mb: int | None = None) -> list[Glue]:
    """The section "The cost of one iteration, and its floor".

    ``cache_mb`` is the default size of kperc's column cache (read from kperc when None).
    """
    if cache_mb is None:
        import kperc._kernels

        cache_mb = kperc._kernels.DEFAULT_CACHE_SIZE
    per = periter_frame(rec)

    def cell(op, alg, n, key="ratio"):
        return periter_cell(per, op, alg, n, key)

    ns = sorted(per[per.operator == "dense"].n.unique())
    n0, n1 = int(ns[0]), int(ns[-1])
    out = [num("bench-n0", n0), num("bench-n1", n1)]
    for alg in PERITER_ALGOS:
        out += [
            num(f"bench-target-{alg}", PERITER_TARGETS[alg], digits=3),
            num(f"bench-ratio-dense-{alg}-n0", cell("dense", alg, n0), digits=3),
            num(f"bench-ratio-dense-{alg}-n1", cell("dense", alg, n1), digits=3),
        ]
    over = cell("dense", "snkp", n0, "per_iter_s") - cell("dense", "snkp", n0, "matvec_s")
    out += [
        num("bench-snkp-overhead-us", over * 1e6, digits=2),
        num("bench-matvec-n0-us", cell("dense", "snkp", n0, "matvec_s") * 1e6, digits=2),
    ]
    fact_ns = sorted(per[per.operator == "factored"].n.unique())
    big = fact_ns[-1]
    out.append(num("bench-nbig", int(big)))
    for alg in PERITER_ALGOS:
        out.append(num(f"bench-ratio-fact-{alg}-big", cell("factored", alg, big), digits=3))
    nt = 2000 if 2000 in fact_ns else int(fact_ns[len(fact_ns) // 2])
    out.append(num("bench-nt", nt))
    for alg in PERITER_ALGOS:
        r = cell("factored", alg, nt)
        out += [
            num(f"bench-ratio-fact-{alg}-nt", r, digits=3),
            md(
                f"bench-v-fact-{alg}-nt",
                ("within" if r <= PERITER_TARGETS[alg] else "above")
                + f" the reference value {PERITER_TARGETS[alg]}",
            ),
        ]
        # the per-iteration time beyond one product (the floor of fixed costs), microseconds
        pi = cell("factored", alg, nt, "per_iter_s") - (
            cell("factored", alg, nt, "matvec_s") if alg in ("snkp", "snkpvn") else 0.0
        )
        out.append(num(f"bench-floor-fact-{alg}-nt-us", pi * 1e6, digits=2))
    for alg in ("nkp", "nvn"):  # share of the iterations that computed a column
        for n, key in ((nt, "nt"), (big, "big")):
            out.append(
                num(
                    f"bench-cols-fact-{alg}-{key}",
                    100 * cell("factored", alg, n, "columns_per_iter"),
                    digits=2,
                )
            )
    out += [
        num("bench-matvec-fact-nt-us", cell("factored", "snkp", nt, "matvec_s") * 1e6, digits=2),
        num("bench-cache-mb", int(cache_mb)),
        num("bench-cache-cols-big", int(min(big, cache_mb * 2**20 // (8 * big)))),
    ]
    for tid in ("snkp", "snkpvn", "nkp", "nvn"):
        out += [
            md(f"bench-v-dense-{tid}", verdict(rec, f"periter-dense-{tid}")),
            md(f"bench-v-fact-{tid}", verdict(rec, f"periter-factored-{tid}")),
        ]
    return out


def separator_frame(rec: Record):
    """The separator suite's rows as a DataFrame."""
    import pandas as pd

    return pd.DataFrame(rec["suites"]["separator"]["rows"])


#: The separator suite's (solver, operator) pairs, in the order of the figure's legend and
#: of the tables' columns, with their colour, line style and label.
SEPARATOR_STYLES = {
    ("snkp", "dense"): ("tab:red", "-", "SNKP, dense G"),
    ("nkp", "dense"): ("tab:blue", "-", "NKP, dense G"),
    ("snkp", "factored"): ("tab:red", "--", "SNKP, factored"),
    ("nkp", "factored"): ("tab:blue", "--", "NKP, factored"),
    ("perceptron", "data"): ("tab:gray", ":", "kperc Perceptron"),
    ("sklearn-perceptron", "data"): ("tab:orange", "-.", "sklearn Perceptron"),
}

_SEPARATOR_SHORT = {
    "snkp": "SNKP",
    "nkp": "NKP",
    "perceptron": "kperc Perceptron",
    "sklearn-perceptron": "sklearn Perceptron",
}


def separator_texts(rec: Record) -> list[Glue]:
    """The section "SNKP against NKP: time to a separator": the tables at the middle size,
    the growth exponents of the iteration counts, and the check of the margins found."""
    sep = separator_frame(rec)
    sizes = sorted(sep.n.unique())
    n_mid = sizes[len(sizes) // 2]
    out = [num("bench-sep-nmid", int(n_mid))]
    show = sep[sep.n == n_mid]
    rhos = sorted(show.rho.unique(), reverse=True)
    for part, ops in (("dense", ("dense",)), ("factored", ("factored", "data"))):
        cols = [k for k in SEPARATOR_STYLES if k[1] in ops]
        trows = []
        for rho in rhos:
            row = [f"{rho:g}"]
            for solver, op in cols:
                r = show[(show.rho == rho) & (show.solver == solver) & (show.operator == op)]
                row.append(
                    ""
                    if not len(r)
                    else ("≥ " if bool(r.capped.iloc[0]) else "") + fmt_s(float(r.time_s.iloc[0]))
                )
            trows.append(row)
        out.append(
            md(
                f"bench-sep-table-{part}",
                md_table(["ρ"] + [_SEPARATOR_SHORT[s] for s, _ in cols], trows),
            )
        )
    for solver in ("snkp", "nkp"):  # growth of the iteration counts with 1/rho
        out.append(md(f"bench-exp-{solver}", iteration_exponent_text(sep, solver)))
    found = sep[sep.separated.astype(bool)]
    out += [
        num("bench-n-separators", int(len(found))),
        md("bench-separators-ok", "all of them" if margins_ok(sep) else "NOT all of them"),
    ]
    return out


def iteration_exponent_text(sep, solver: str) -> str:
    """The fitted exponent ``a`` of ``nit ~ rho^-a`` on the dense G (two decimals), over the
    runs that finished after at least one iteration; "not available" below two margins."""
    r = sep[(sep.solver == solver) & (sep.operator == "dense") & ~sep.capped & (sep.nit > 0)]
    if r.rho.nunique() < 2:
        return "not available"
    b = -np.polyfit(np.log(r.rho.astype(float)), np.log(r.nit.astype(float) + 1), 1)[0]
    return f"{b:.2f}"


def margins_ok(sep) -> bool:
    """Whether every separator found has a positive margin no larger than the planted one
    (up to a relative 1e-6)."""
    found = sep[sep.separated.astype(bool)]
    return bool(((found.margin > 0) & (found.margin <= found.reference_margin * (1 + 1e-6))).all())


def crossover_frame(rec: Record):
    """The separator suite's crossovers as a DataFrame."""
    import pandas as pd

    return pd.DataFrame(rec["suites"]["separator"]["crossover"])


def crossover_text(kind: str, rho_star: float, bracket: Sequence[float]) -> str:
    """One crossover margin in words, by the kind of estimate."""
    if kind == "interpolated":
        return f"{rho_star:.2g} (between {bracket[0]:g} and {bracket[1]:g})"
    if kind == "snkp-always":
        return f"above {bracket[1]:g}: SNKP was faster at every margin measured"
    if kind == "nkp-always":
        return f"below {bracket[0]:g}: NKP was faster at every margin measured"
    return "not decided (both runs stopped)"


def crossover_texts(rec: Record) -> list[Glue]:
    """The crossover margins at the largest n, the growth of a dense product, and the
    fitted slope of the dense crossover against n."""
    cr2 = crossover_frame(rec)
    per = periter_frame(rec)
    cross_txt = {
        (r.operator, int(r.n)): crossover_text(r.kind, r.rho_star, r.bracket)
        for _, r in cr2.iterrows()
    }
    nx = int(cr2.n.max())
    out = [num("bench-cross-n", nx)]
    for op in ("dense", "factored"):
        out.append(md(f"bench-cross-{op}-nx", cross_txt.get((op, nx), "not measured")))
    dense_cr = cr2[(cr2.operator == "dense") & cr2.rho_star.notna()].sort_values("n")
    mv = per[(per.operator == "dense") & (per.algorithm == "snkp")].sort_values("n")
    out += [
        num("bench-mv-first-us", float(mv.matvec_s.iloc[0]) * 1e6, digits=3),
        num("bench-mv-last-ms", float(mv.matvec_s.iloc[-1]) * 1e3, digits=3),
        num("bench-mv-growth", float(mv.matvec_s.iloc[-1] / mv.matvec_s.iloc[0]), digits=3),
        num("bench-mv-entries", int((mv.n.iloc[-1] / mv.n.iloc[0]) ** 2)),
    ]
    if len(dense_cr) >= 2:
        slope = np.polyfit(
            np.log(dense_cr.n.astype(float)), np.log(dense_cr.rho_star.astype(float)), 1
        )[0]
        out.append(md("bench-cross-slope", f"{slope:.2f}"))
    else:
        out.append(md("bench-cross-slope", "not available (fewer than two bracketed crossovers)"))
    return out


def kernels_texts(rec: Record) -> list[Glue]:
    """The section "Real kernel problems": times and margins per problem and solver."""
    import pandas as pd

    ker = rec["suites"]["kernels"]["rows"]
    solvers = [("snkp", "SNKP"), ("nkp", "NKP"), ("sklearn-svc", "SVC")]
    problems = list(dict.fromkeys(r["problem"] for r in ker))
    by = {(r["problem"], r["solver"]): r for r in ker}
    trows, mrows = [], []
    for p in problems:
        first = next(r for r in ker if r["problem"] == p)
        head = [p, str(first["n"]), f"{first['reference_margin']:.3g}"]
        cells_t, cells_m = [], []
        for key, _ in solvers:
            r = by.get((p, key))
            if r is None:
                cells_t.append("")
                cells_m.append("")
                continue
            t = (">= " if r["capped"] else "") + fmt_s(r["time_s"])
            cells_t.append(t if r["separated"] else f"{t}, no separator")
            cells_m.append("-" if r["margin"] is None else f"{r['margin']:.3g}")
        trows.append(head + cells_t)
        mrows.append([p] + cells_m)
    out = [
        md(
            "bench-kernels-table",
            md_table(["problem", "n", "exact margin"] + [lab for _, lab in solvers], trows),
        ),
        md("bench-kernels-margins", md_table(["problem"] + [lab for _, lab in solvers], mrows)),
    ]
    piv = pd.DataFrame(ker).pivot_table(index="problem", columns="solver", values="time_s")
    out.append(num("bench-kernels-n", int(len(piv))))
    if {"snkp", "nkp", "sklearn-svc"} <= set(piv.columns):
        out += [
            md("bench-kernels-svc-max", fmt_s(float(piv["sklearn-svc"].max()))),
            num("bench-kernels-snkp-faster", int((piv["snkp"] < piv["sklearn-svc"]).sum())),
            num("bench-kernels-nkp-faster", int((piv["nkp"] < piv["sklearn-svc"]).sum())),
        ]
    else:
        out += [
            md("bench-kernels-svc-max", "not measured"),
            num("bench-kernels-snkp-faster", 0),
            num("bench-kernels-nkp-faster", 0),
        ]
    return out


def large_texts(rec: Record) -> list[Glue]:
    """The verdicts of the large factored problems and the time to generate the largest."""
    import pandas as pd

    lg = pd.DataFrame(rec["suites"]["large"]["rows"])
    out = []
    for tid in ("large-nkp-speedup", "large-sklearn-speedup", "large-snkp-time"):
        out += [md(f"bench-v-{tid}", verdict(rec, tid)), md(f"bench-d-{tid}", detail(rec, tid))]
    gen = lg.groupby("n").generate_s.first()
    out.append(md("bench-gen-big", f"{gen.iloc[-1]:.3g} s for n = {int(gen.index[-1])}"))
    return out


def nystroem_texts(rec: Record) -> list[Glue]:
    """Kernel problems beyond memory (Nystroem fits), and the verdict of ``dist_to_witness``."""
    ny = rec["suites"].get("nystroem", {}).get("rows", [])
    nyt = [t for t in rec["targets"] if t["id"].startswith("nystroem-time-")]
    out = [
        md(
            "bench-nystroem-targets",
            "\n".join(
                f"* $n$ = {int(t['id'].rsplit('-', 1)[1]):,}, at most {t['target']:g} s: "
                f"{verdict(rec, t['id'])}. {t['detail']}."
                for t in nyt
            )
            or "* not measured in this record",
        ),
        md("bench-v-nystroem-memory", verdict(rec, "nystroem-memory")),
        md("bench-d-nystroem-memory", detail(rec, "nystroem-memory")),
    ]
    if ny:
        r0 = ny[0]
        out += [
            md(
                "bench-nystroem-setup",
                f"planted margin ρ = {r0['rho']:g}, dimension {r0['d']}, γ = {r0['gamma']:g}",
            ),
            num("bench-nystroem-m", r0["n_components"]),
        ]
    else:
        out += [
            md("bench-nystroem-setup", "not measured in this record"),
            num("bench-nystroem-m", 0),
        ]
    out += [
        md("bench-v-dist-time", verdict(rec, "dist-time")),
        md("bench-d-dist-time", detail(rec, "dist-time")),
    ]
    return out


#: Display names of the certificate solvers.
CERTIFICATE_NAMES = {"nvn": "NVN", "isnkpvn": "ISNKPVN", "clarabel": "Clarabel"}


def certificates_frame(rec: Record):
    """The certificates suite's rows as a DataFrame."""
    import pandas as pd

    return pd.DataFrame(rec["suites"]["certificates"]["rows"])


def certificates_texts(rec: Record) -> list[Glue]:
    """Times to a certificate at the largest n, the fastest solver, the smallest ||p||_G."""
    ce = certificates_frame(rec)
    nbig = int(ce.n.max())
    out = []
    for solver in ("nvn", "isnkpvn", "clarabel"):
        r = ce[(ce.solver == solver) & (ce.n == nbig)]
        t = float(r.time_s.iloc[0]) if len(r) else float("nan")
        out.append(num(f"bench-cert-{solver}-t", t, digits=3))
    at = ce[ce.n == nbig]
    out += [
        num("bench-cert-n", nbig),
        md("bench-cert-fastest", CERTIFICATE_NAMES[at.loc[at.time_s.idxmin(), "solver"]]),
        md("bench-cert-smallest", CERTIFICATE_NAMES[at.loc[at.norm_p_G.idxmin(), "solver"]]),
        md("bench-cert-all-ok", "all" if bool(ce.certificate.all()) else "not all"),
    ]
    return out


def memory_texts(rec: Record) -> list[Glue]:
    """The memory table (in units of the size of G) and its verdicts."""
    mem = rec["suites"]["memory"]["rows"]
    table = md_table(
        ["algorithm", "G (MB)", "build peak (G)", "overall peak (G)", "added by the run (G)"],
        [
            [
                r["algorithm"],
                f"{r['gram_mb']:.0f}",
                f"{r['build_peak_over_baseline_in_G']:.3f}",
                f"{r['peak_over_baseline_in_G']:.3f}",
                f"{r['extra_iter_in_G']:.3f}",
            ]
            for r in mem
        ],
    )
    return [
        md("bench-memory-table", table),
        md("bench-v-memory-peak", verdict(rec, "memory-peak")),
        md("bench-v-memory-iterations", verdict(rec, "memory-iterations")),
        num("bench-mem-n", int(mem[0]["n"])),
    ]


def regen_texts(rec: Record) -> list[Glue]:
    """The regeneration times per chapter, their total and verdicts, and the build time."""
    rg = rec["suites"]["regen"]
    return [
        md(
            "bench-regen-table",
            md_table(
                ["page", "preset", "seconds"],
                [[c["chapter"], c["preset"], f"{c['runtime_s']:.1f}"] for c in rg["chapters"]],
            ),
        ),
        num("bench-regen-total", rg["total_runtime_s"], digits=3),
        md("bench-v-regen-total", verdict(rec, "regen-total")),
        md("bench-v-regen-max", verdict(rec, "regen-max-chapter")),
        md("bench-regen-missing", ", ".join(rg["missing"]) if rg["missing"] else "none"),
        md(
            "bench-build",
            "not timed in this run" if rg.get("build_s") is None else f"{rg['build_s']:.0f} s",
        ),
    ]

"""What the chapter's cells print, check and glue, from what the other modules compute.

The notebook ``book/ch07_discussion.ipynb`` calls the experiments (:func:`n_sweep`,
:func:`svm_comparison`, ...) and hands their results to these functions:

* :func:`verdict` turns the checks of :func:`check_bounds` and :func:`svm_checks` into
  the keyword arguments of :meth:`kperc_book.chapter.Chapter.check`, combining several
  into one (Theorem 1 is checked on the sweep and on the real problems).
* :func:`sweep_table`, :func:`svm_table`, :func:`final_margins`, :func:`timings_header`,
  :func:`affine_report`, :func:`quoted_line`, :func:`quoted_values` and
  :func:`symmetrisation_report` build what the cells print. Where the text makes a
  claim about these numbers they check it first and raise :class:`ClaimError`.
* ``glue_*``: the values the prose quotes, glued in the notebook's order (``ch`` is the
  chapter's :class:`kperc_book.chapter.Chapter`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from kperc_book.experiments._common import ClaimError, loglog_slope
from kperc_book.experiments.ch07.open_question import COUNT_KEYS, medians, sqrt_log_slope
from kperc_book.experiments.ch07.summary import summary_markdown
from kperc_book.experiments.ch07.timings import timings_markdown

#: Column headings of the sweep table, by count key.
_METHOD_NAMES = {"snkpvn": "SNKPVN", "isnkpvn": "ISNKPVN", "snkp": "SNKP"}


def _glue_markdown(name: str, text: str) -> None:
    from IPython.display import Markdown
    from myst_nb import glue

    glue(name, Markdown(text), display=False)


# ------------------------------------------------------------------------------ checks
def verdict(*checks: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments of ``ch.check`` for one or several checks of the same result.

    Parameters
    ----------
    *checks : mapping
        Entries of :func:`check_bounds` or :func:`svm_checks` (``ok``, ``detail``,
        ``instances``).

    Returns
    -------
    dict
        ``ok`` (every check held), ``detail`` (their details joined by ``"; "``) and
        ``instances`` (their sum; ``None`` if a check counts none), so that
        ``ch.check("theorem-1", **verdict(a, b))`` records them as one result.
    """
    if not checks:
        raise ValueError("verdict needs at least one check")
    counts = [c["instances"] for c in checks]
    return {
        "ok": all(bool(c["ok"]) for c in checks),
        "detail": "; ".join(str(c["detail"]) for c in checks),
        "instances": None if any(k is None for k in counts) else sum(counts),
    }


# --------------------------------------------------------------------- the open question
def sweep_table(rows: Sequence[Mapping[str, Any]], res: Mapping[str, Any]) -> dict[str, Any]:
    """Medians, fitted exponents and the printed table of the open-question sweep.

    Parameters
    ----------
    rows : sequence of dict
        :func:`n_sweep` over both families.
    res : mapping
        :func:`check_bounds` of ``rows``.

    Returns
    -------
    dict
        ``med`` (:func:`medians` per family), ``low`` (medians of the imbalanced lower
        bound), ``slopes`` (family -> count -> fitted exponent of ``n``), ``ref`` (the
        exponent of ``sqrt(log n)`` over the range), ``table`` (medians per ``n``, last
        row the exponents) and ``caption`` (the two lines printed above the table).

    Raises
    ------
    ClaimError
        An instance's margin is not the planted one, SNKPVN beat the derived lower
        bound, or the text's reading fails: the balanced SNKPVN count must fall from
        the smallest ``n`` to the largest, and on the imbalanced family the exponent of
        SNKPVN must exceed 0.35 and that of SNKP stay below 0.2.
    """
    for key in ("margin", "snkpvn-lower"):
        if not res[key]["ok"]:
            raise ClaimError(f"{key}: {res[key]['detail']}")
    ns = [int(r["n"]) for r in rows]
    med = {fam: medians(rows, fam) for fam in ("balanced", "imbalanced")}
    low = medians(rows, "imbalanced", keys=("lower_bound",))
    slopes = {fam: {k: loglog_slope(med[fam]["n"], med[fam][k]) for k in COUNT_KEYS} for fam in med}
    slopes["imbalanced"]["lower_bound"] = loglog_slope(low["n"], low["lower_bound"])
    ref = sqrt_log_slope(min(ns), max(ns))
    bal = med["balanced"]["snkpvn"]
    if not bal[-1] < bal[0]:
        raise ClaimError(
            f"the balanced family's median SNKPVN count should fall with n: {bal[0]:g} at "
            f"n = {min(ns)}, {bal[-1]:g} at n = {max(ns)}"
        )
    s_imb = slopes["imbalanced"]
    if not s_imb["snkpvn"] > 0.35 > 0.2 > s_imb["snkp"]:
        raise ClaimError(
            "on the imbalanced family SNKPVN should grow with an exponent above 0.35 and "
            f"SNKP below 0.2; fitted {s_imb['snkpvn']:.3f} and {s_imb['snkp']:.3f}"
        )
    cols = {(f, _METHOD_NAMES[k]): med[f][k].astype(int) for f in med for k in COUNT_KEYS}
    cols[("imbalanced", "lower bound")] = low["lower_bound"].astype(int)
    table = pd.DataFrame(cols, index=pd.Index(med["balanced"]["n"], name="n")).astype(object)
    table.loc["exponent"] = [
        f"{slopes[f][k]:+.2f}"
        for f, k in [(f, k) for f in med for k in COUNT_KEYS] + [("imbalanced", "lower_bound")]
    ]
    low_res = res["snkpvn-lower"]
    caption = (
        f"the remark's lower bound held on all {low_res['instances']} imbalanced instances\n"
        f"  (largest bound / count {low_res['worst']:.3f})\n"
        "median halting index (ISNKPVN: total inner iterations)\n"
        f"last row: fitted exponent of n (sqrt(n): 0.5, sqrt(log n): {ref:.3f} here)"
    )
    return {
        "med": med,
        "low": low,
        "slopes": slopes,
        "ref": ref,
        "table": table,
        "caption": caption,
    }


def glue_sweep(
    ch,
    sweep: Mapping[str, Any],
    res: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    *,
    ns: Sequence[int],
    seeds: Sequence[int],
    rho: float,
    d: int,
    gamma: float,
    eps: float,
) -> None:
    """Glue the sweep's parameters, exponents, worst ratios and end points of the medians."""
    ch.glue("ch07_rho", rho)
    ch.glue("ch07_d", d)
    ch.glue("ch07_n_min", min(ns))
    ch.glue("ch07_n_max", max(ns))
    ch.glue("ch07_n_seeds", len(seeds))
    ch.glue("ch07_gamma", gamma)
    ch.glue("ch07_eps", eps)
    ch.glue("ch07_ref_sqrtlog", sweep["ref"], digits=2)
    for fam in sweep["slopes"]:
        for k, v in sweep["slopes"][fam].items():
            ch.glue(f"ch07_slope_{fam}_{k}", v, digits=2)
    ch.glue("ch07_worst_snkpvn", res["snkpvn-bound"]["worst"], digits=2)
    ch.glue("ch07_worst_snkp", res["theorem-1"]["worst"], digits=2)
    ch.glue("ch07_worst_isnkpvn", res["isnkpvn"]["worst"], digits=2)
    bal, imb = sweep["med"]["balanced"], sweep["med"]["imbalanced"]
    ch.glue("ch07_bal_first", int(bal["snkpvn"][0]))
    ch.glue("ch07_bal_last", int(bal["snkpvn"][-1]))
    ch.glue("ch07_imb_first", int(imb["snkpvn"][0]))
    ch.glue("ch07_imb_last", int(imb["snkpvn"][-1]))
    ch.glue("ch07_imb_snkp_first", int(imb["snkp"][0]))
    ch.glue("ch07_imb_snkp_last", int(imb["snkp"][-1]))
    ch.glue("ch07_imb_bound_last", int(2 * math.sqrt(2 * max(ns)) / rho))
    ch.glue("ch07_n_instances", len(rows))


# ------------------------------------------------------------------- perceptrons and SVM
def record_problem_datasets(ch) -> None:
    """Record (with their sha256) the stored datasets of the book's kernel problems."""
    from kperc_book import data as kdata

    for dname, _, _ in kdata.PROBLEMS.values():
        ch.load(dname)


def svm_table(cmp_rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The printed comparison: exact margin, the margins each method returns, halting indices."""
    cmp = pd.DataFrame(cmp_rows).set_index("problem")
    return pd.DataFrame(
        {
            "n": cmp["n"],
            "exact margin": cmp["rho"].map("{:.4g}".format),
            "bias-free SVC": cmp["svm"].map("{:.4g}".format),
            "SNKP": cmp["snkp"].map("{:.2g}".format),
            "SNKP K": cmp["snkp_nit"],
            "NKP": cmp["nkp"].map("{:.2g}".format),
            "NKP K": cmp["nkp_nit"],
        }
    )


def glue_svm(ch, cmp_rows: Sequence[Mapping[str, Any]], svm: Mapping[str, Any], C: float) -> None:
    """Glue the SVC's error and intercept and the range of first-separator margins / rho_K."""
    cmp = pd.DataFrame(cmp_rows).set_index("problem")
    ratio = pd.concat([cmp["snkp"], cmp["nkp"]]) / pd.concat([cmp["rho"], cmp["rho"]])
    ch.glue("ch07_svm_err", svm["minimax-margin"]["worst"], digits=1)
    ch.glue("ch07_svm_C", C)
    ch.glue("ch07_svm_b_max", float(np.max(np.abs(cmp["svm_intercept"]))), digits=1)
    ch.glue("ch07_first_ratio_max", float(ratio.max()), digits=2)
    ch.glue("ch07_first_ratio_min", float(ratio.min()), digits=2)


def final_margins(paths: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Margin / rho_K of the last NKP and SNKP iterate of :func:`margin_paths`, per problem."""
    return pd.DataFrame(
        {
            "NKP": {n: p["nkp"][-1] for n, p in paths.items()},
            "SNKP": {n: p["snkp"][-1] for n, p in paths.items()},
        }
    )


def glue_paths(ch, final: pd.DataFrame, *, path_iters: int, floor: float) -> None:
    """Glue the length of the paths, the figure's floor and the smallest final margins."""
    ch.glue("ch07_path_iters", path_iters)
    ch.glue("ch07_path_floor", floor)
    ch.glue("ch07_path_nkp_min", float(final["NKP"].min()), digits=3)
    ch.glue("ch07_path_snkp_min", float(final["SNKP"].min()), digits=3)


# ----------------------------------------------------------------------------- timings
def timings_header(tm: Mapping[str, Any]) -> str:
    """Where and when :func:`read_timings`' measurements were taken (four lines)."""
    mach = tm["machine"]
    return "\n".join(
        [
            f"measured on {tm['date']} by the book's benchmark harness",
            f"machine: {mach.get('cpu_model', mach['processor'])}, {mach['cpu_count']} cores",
            f"software: Python {mach['python']}, numpy {mach['numpy']}, "
            f"scipy {mach['scipy']}, scikit-learn {mach['scikit-learn']}",
            "1-minute load average when the timing started: "
            f"{mach.get('load_average_1min_at_start', 'not recorded')}",
        ]
    )


def svc_over_snkp(tm: Mapping[str, Any]) -> pd.Series:
    """Per problem, the bias-free SVC's median time over SNKP's."""
    tt = pd.DataFrame(tm["results"]).pivot(
        index="problem", columns="method", values="seconds_median"
    )
    return tt["svc_homogeneous"] / tt["snkp"]


def glue_timings(ch, tm: Mapping[str, Any]) -> None:
    """Glue the timings table, its date and repeats, and the range of SVC / SNKP times."""
    _glue_markdown("ch07-timings-table", timings_markdown(tm))
    ratio = svc_over_snkp(tm)
    ch.glue("ch07_timing_date", tm["date"])
    ch.glue("ch07_timing_repeats", tm["results"][0]["repeats"])
    ch.glue("ch07_snkp_vs_svc_min", float(ratio.min()), digits=2)
    ch.glue("ch07_snkp_vs_svc_max", float(ratio.max()), digits=2)


def peers_lost_text(lost: Sequence[Sequence[Any]], family_labels: Mapping[str, str]) -> str:
    """The prose's words for the cases of the goal that SNKP lost (``snkp_goal``'s ``lost``)."""
    if not lost:
        return "SNKP lost none of them"
    fams = sorted({family_labels[f] for f, *_ in lost})
    if len(fams) == 1:
        return f"the {len(lost)} it lost are all {fams[0]} problems"
    return f"it lost {len(lost)}, on " + " and ".join(fams) + " problems"


def families_goal(
    frec: Mapping[str, Any], rho_max: float = 1e-2, n_min: int = 10_000
) -> dict[str, Any]:
    """SNKP against every solver of the by-family comparison (LogisticRegression and the
    other kperc algorithms included) where the goal asks (``0 < rho <= rho_max``,
    ``n >= n_min``).

    Returns ``cases`` (instances where some solver separated), ``snkp_first`` (how many
    SNKP separated first) and ``others`` (solver -> the ``(family, rho)`` it won).
    """
    from benchmarks.peers.analysis import family_winners

    cases, first, others = 0, 0, {}
    for w in family_winners(dict(frec)):
        if not (0 < w["rho"] <= rho_max and w["n"] >= n_min) or w["fastest"] is None:
            continue
        cases += 1
        if w["fastest"] == "snkp":
            first += 1
        else:
            others.setdefault(w["fastest"], []).append((w["family"], w["rho"]))
    return {"cases": cases, "snkp_first": first, "others": others}


def families_goal_text(goal: Mapping[str, Any]) -> str:
    """The prose's words for :func:`families_goal`: who was faster than SNKP, and where."""
    from benchmarks.peers.config import FAMILY_NAMES, SOLVER_LABELS

    if not goal["others"]:
        return "no solver was faster than SNKP there"
    parts = []
    for solver, cases in sorted(goal["others"].items()):
        by_family: dict[str, list[str]] = {}
        for fam, rho in cases:
            by_family.setdefault(fam, []).append(f"{rho:g}")
        where = " and ".join(
            f"{FAMILY_NAMES[fam]} (ρ = {' and '.join(rhos)})" for fam, rhos in by_family.items()
        )
        parts.append(f"{SOLVER_LABELS[solver]} on {where}")
    return "the others went to " + "; ".join(parts)


def peers_nkp_text(record: Mapping[str, Any], rho_max: float = 1e-2, n_min: int = 10_000) -> str:
    """How often kperc's NKP, which the goal of :func:`benchmarks.peers.analysis.snkp_goal`
    leaves out, separated first where the goal asks, in words."""
    from benchmarks.peers.analysis import crossovers

    k = sum(
        e["fastest"] == "nkp"
        for c in crossovers(dict(record))
        if c["rho"] <= rho_max
        for e in c["by_n"]
        if e["n"] >= n_min
    )
    return "in none of them" if k == 0 else f"in {k} of them"


def peers_machine_text(busy: bool) -> str:
    """The prose's words for the load of the machine the comparison ran on."""
    return "a busy machine, so read them as indicative" if busy else "an otherwise idle machine"


def glue_peers(ch, record: Mapping[str, Any] | None = None) -> None:
    """Glue the crossover grids and the goal's counts of the comparison with scikit-learn.

    Parameters
    ----------
    ch : Chapter
    record : mapping, optional
        The record of ``python -m benchmarks.peers`` (default: the committed one).
    """
    from benchmarks.peers.analysis import snkp_goal
    from benchmarks.peers.config import DEFAULT_OUT, FAMILY_LABELS
    from benchmarks.peers.markdown import crossover_grid_markdown
    from benchmarks.record import load_record

    record = load_record(DEFAULT_OUT) if record is None else record
    goal = snkp_goal(record)
    for fam in ("linear", "rbf"):
        _glue_markdown(f"ch07-crossover-grid-{fam}", crossover_grid_markdown(record, fam))
    ch.glue("ch07_peers_cap", f"{record['config']['cap_s']:g}")
    ch.glue("ch07_peers_cases", goal["cases"])
    ch.glue("ch07_peers_snkp_wins", goal["snkp_wins"])
    ch.glue("ch07_peers_lost", peers_lost_text(goal["lost"], FAMILY_LABELS))
    ch.glue("ch07_peers_nkp", peers_nkp_text(record))
    ch.glue("ch07_peers_machine", peers_machine_text(record["busy"]))


def glue_families(ch, record: Mapping[str, Any] | None = None) -> None:
    """Glue the "which algorithm when" table of the by-family comparison, and its counts.

    Parameters
    ----------
    ch : Chapter
    record : mapping, optional
        The record of ``python -m benchmarks.peers --families`` (default: the committed
        ``families.json``).
    """
    from benchmarks.page import which_algorithm_markdown, which_algorithm_rows
    from benchmarks.peers.config import FAMILIES_OUT, KPERC_SOLVERS
    from benchmarks.record import load_record

    record = load_record(FAMILIES_OUT) if record is None else record
    rows = which_algorithm_rows(record)
    _glue_markdown("ch07-which-table", which_algorithm_markdown(record))
    ch.glue("ch07_fam_n", len(rows))
    ch.glue("ch07_fam_kperc_first", sum(r["fastest"] in KPERC_SOLVERS for r in rows))
    ch.glue("ch07_fam_snkp_first", sum(r["fastest"] == "snkp" for r in rows))
    ch.glue("ch07_fam_machine", peers_machine_text(record["busy"]))
    goal = families_goal(record)
    ch.glue("ch07_fam_goal_cases", goal["cases"])
    ch.glue("ch07_fam_goal_snkp", goal["snkp_first"])
    ch.glue("ch07_fam_goal_others", families_goal_text(goal))


# ------------------------------------------------------------- quoted values, affine margin
#: The values of Chapter 2 that the Winnow section quotes.
WINNOW_GLUE = ("ch02_w_dmax", "ch02_w_slope_w", "ch02_w_slope_np")


#: What each value quoted from another chapter is, in words (keyed by its glue name).
QUOTED_LABELS = {
    "ch02_w_dmax": "largest dimension d",
    "ch02_w_slope_w": "Winnow, exponent of d",
    "ch02_w_slope_np": "Normalised Perceptron, exponent of d",
    "ch02_worst_ratio_perceptron": "Perceptron, largest count / bound",
    "ch02_worst_ratio_np": "Normalised Perceptron, largest count / bound",
    "ch03_nkp_bound_ratio": "NKP, largest count / bound",
    "slope_perceptron": "Perceptron, exponent of 1/rho",
    "slope_nkp": "NKP, exponent of 1/rho",
    "slope_snkp": "SNKP, exponent of 1/rho",
    "snkp_bound_ratio_max": "SNKP, largest count / bound",
    "ch05_edge_slope": "NVN, exponent of 1/eps at margin 0",
    "ch05_efd_worst": "NVN, largest count / Epelman-Freund bound",
    "ch06_sn_worst_f": "SNKPVN, largest count / separable bound",
    "ch06_sn_worst_i": "SNKPVN, largest count / inseparable bound",
    "ch06_slope_nvn_rho": "NVN, exponent of 1/rho_K (separable)",
    "ch06_slope_isn_rho": "ISNKPVN, exponent of 1/rho_K (separable)",
    "ch06_slope_isn_eps": "ISNKPVN, exponent of 1/eps at margin 0",
    "ch06_isn_total_worst": "ISNKPVN, largest total / its bound",
}


def quoted_line(where: str, values: Mapping[str, Any]) -> str:
    """The values another chapter glued, one line each, named in words
    (:data:`QUOTED_LABELS`)."""
    return "\n".join(
        [f"quoted from {where}:"] + [f"  {QUOTED_LABELS[k]}: {v}" for k, v in values.items()]
    )


def glue_winnow(ch, w2: Mapping[str, Any]) -> None:
    """Glue again, under Chapter 7's names, the Winnow values of Chapter 2."""
    ch.glue("ch07_w_dmax", w2["ch02_w_dmax"])
    ch.glue("ch07_w_slope_w", w2["ch02_w_slope_w"], digits=2)
    ch.glue("ch07_w_slope_np", w2["ch02_w_slope_np"], digits=2)


def affine_report(am: Mapping[str, Any]) -> str:
    """The printed lines of :func:`affine_margin_demo`, after checking what the text says.

    Raises
    ------
    ClaimError
        Embedding changed the span-restricted margin, ``e_3`` does not attain exactly 0,
        or the Gordan certificate's ``||sum p_i a_i||`` is not below ``1e-12``.
    """
    if not abs(am["rho_span"] - am["rho_span_embedded"]) < 1e-12:
        raise ClaimError(
            f"the span-restricted margin changed on embedding: {am['rho_span']!r} in R^2, "
            f"{am['rho_span_embedded']!r} in R^3"
        )
    if am["orth_value"] != 0.0:
        raise ClaimError(f"w = e_3 should give min_i a_i^T w = 0; got {am['orth_value']!r}")
    if not am["certificate_norm"] < 1e-12:
        raise ClaimError(
            f"the Gordan certificate leaves ||sum p_i a_i|| = {am['certificate_norm']:.3g}"
        )
    return "\n".join(
        [
            f"{am['name']}, n = {am['n']}",
            f"  span-restricted (affine) margin, points in R^2: {am['rho_span']:+.6f}",
            f"  the same after embedding in R^3:                 {am['rho_span_embedded']:+.6f}",
            f"  definition (5) in R^3: w = e_3 gives min_i a_i^T w = {am['orth_value']:+.1f},",
            "    and no unit w does better: a Gordan certificate p has ||sum p_i a_i|| < 1e-12",
        ]
    )


def glue_affine(ch, am: Mapping[str, Any]) -> None:
    """Glue the affine margin and the radius of Theorem 3's ball."""
    ch.glue("ch07_aff_rho", am["rho_span"], digits=3)
    ch.glue("ch07_aff_radius", am["theorem3_radius"], digits=3)


# ------------------------------------------------------------------ the book's summary
def sweep_rates(s_imb: Mapping[str, float]) -> dict[str, str]:
    """The summary table's cells for what this chapter's sweep measured (imbalanced family)."""
    return {
        "SNKP (Alg. 4)": (
            f"grows like $n^{{{s_imb['snkp']:.2f}}}$ at fixed margin ({{ref}}`sweep <ch07-open>`)"
        ),
        "SNKPVN (Alg. 6)": (
            f"grows like $n^{{{s_imb['snkpvn']:.2f}}}$ on the imbalanced "
            "family ({ref}`sweep <ch07-open>`)"
        ),
        "ISNKPVN (Alg. 7)": (
            f"grows like $n^{{{s_imb['isnkpvn']:.2f}}}$ on the imbalanced "
            "family ({ref}`sweep <ch07-open>`)"
        ),
    }


def glue_summary_table(
    measured: Mapping[tuple[str, str], float], s_imb: Mapping[str, float]
) -> None:
    """Glue the book's summary table (:func:`summary_markdown`) with the sweep's rates."""
    _glue_markdown("ch07-summary-table", summary_markdown(measured, extra=sweep_rates(s_imb)))


def quoted_values(measured: Mapping[tuple[str, str], float]) -> str:
    """Every value the summary table quotes, one line each, by chapter, named in words
    (:data:`QUOTED_LABELS`)."""
    lines = ["quoted from the chapters:"]
    for (chapter, key), value in sorted(measured.items()):
        lines.append(f"  Chapter {int(chapter[2:])}, {QUOTED_LABELS[key]}: {value}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ exercise
def symmetrisation_report(intercept: float, margin_svc: float, rho: float) -> str:
    """The exercise's line: the symmetrised SVC has no intercept and the margin ``rho_K``.

    Raises
    ------
    ClaimError
        ``|intercept| >= 1e-4`` or the SVC's margin differs from ``rho`` by a relative
        ``1e-4`` or more.
    """
    if not (abs(intercept) < 1e-4 and abs(margin_svc / rho - 1) < 1e-4):
        raise ClaimError(
            f"the symmetrised SVC should have no intercept and the margin rho_K = {rho:.6g}; "
            f"intercept {intercept:.3g}, margin {margin_svc:.6g}"
        )
    return (
        f"|intercept| < 1e-4: {abs(intercept) < 1e-4}; SVC margin {margin_svc:.6f}, rho_K {rho:.6f}"
    )

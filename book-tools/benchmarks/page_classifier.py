"""The benchmarks page's section "The classifier on real data" (the ``classifier`` suite).

:func:`classifier_texts` turns the suite's result in ``bench.json`` into the values the
section glues: one table per kernel (fit times of ``SNKPClassifier`` and of scikit-learn's
``SVC`` or ``LinearSVC``, their ratio, test accuracies and how the kperc fit ended), the
verdicts of the targets ``classifier-...``, and for every task whose ratio exceeds the
target the measured reason (:func:`reason`). A record without the suite gives "not
measured" texts.
"""

from __future__ import annotations

from typing import Any

from benchmarks.page import Glue, Record, md, num, targets_by_id
from benchmarks.page_fixedcost import rounded
from benchmarks.peers.markdown import fmt_time as fmt_s
from benchmarks.suites.classifier import ISLP_VERSION, TARGET_RATIO
from kperc._classifier import AUTO_EXACT_MAX_N
from kperc_book._markdown import table as md_table

#: How a kperc fit ended, in the table (``outcome_``).
ENDINGS = {
    "separator": "separated",
    "certificate": "certificate",
    "conflict": "conflict",
    "max_iter": "max_iter",
}


def ratio_text(ratio: float) -> str:
    """A ratio of times: two significant digits, whole numbers from 10 on.

    Examples
    --------
    >>> ratio_text(1.234), ratio_text(245.6)
    ('1.2', '246')
    """
    return f"{ratio:.2g}" if ratio < 10 else f"{ratio:.0f}"


def _rows(result: dict[str, Any] | None, kernel: str) -> list[dict[str, Any]]:
    return [r for r in (result or {}).get("rows", []) if r["kernel"] == kernel]


def table(result: dict[str, Any] | None, kernel: str) -> str:
    """The Markdown table of one kernel: a row per task.

    Examples
    --------
    >>> table({"rows": []}, "rbf")
    'Not measured in this record.'
    """
    rows = _rows(result, kernel)
    if not rows:
        return "Not measured in this record."
    peer = rows[0]["sklearn"]["estimator"].rstrip("()")
    body = []
    for r in rows:
        k, s = r["kperc"], r["sklearn"]
        body.append(
            [
                f"{r['task']} ({r['n_train']:,})",
                fmt_s(k["fit_s"]["median"]),
                fmt_s(s["fit_s"]["median"]),
                ratio_text(r["ratio"]),
                f"{k['accuracy']:.2f} / {s['accuracy']:.2f}",
                f"{ENDINGS.get(k['outcome'], k['outcome'])}, {k['n_iter']:,} it.",
            ]
        )
    head = ["task (n)", "kperc", peer, "ratio", "accuracy", "kperc's fit"]
    return md_table(head, body)


def reason(r: dict[str, Any]) -> str:
    """Why a kperc fit took more than the target times the scikit-learn fit, measured.

    The stages of the fit (:func:`benchmarks.suites.classifier.stage_times`) say where its
    time went; the outcome says why the algorithm ran as long as it did.

    Examples
    --------
    >>> r = {"task": "t", "kernel": "rbf", "n_train": 10, "ratio": 3.0,
    ...      "sklearn": {"estimator": "SVC()", "fit_s": {"median": 0.001}},
    ...      "kperc": {"outcome": "separator", "n_iter": 5, "n_conflicts": 0,
    ...                "gram_form": "dense",
    ...                "stages_s": {"kernel": 0.001, "algorithm": 0.001, "other": 0.001}}}
    >>> reason(r)  # doctest: +NORMALIZE_WHITESPACE
    't, rbf kernel (ratio 3): a separator after 5 iterations; the kernel took 1 ms,
    the algorithm 1 ms and the rest of the fit (validation, conflicts, the model) 1 ms,
    against 1 ms for the whole SVC fit.'
    """
    k = r["kperc"]
    st = k["stages_s"]
    peer = r["sklearn"]["estimator"].rstrip("()")
    head = f"{r['task']}, {r['kernel']} kernel (ratio {ratio_text(r['ratio'])}): "
    kernel = (
        f"the Nystroem stages (features, SNKP and the exact-kernel checks, rank by rank) "
        f"took {fmt_s(st['kernel'] + st['algorithm'])}"
        if k.get("gram_form") == "nystroem"
        else f"the kernel took {fmt_s(st['kernel'])}, the algorithm {fmt_s(st['algorithm'])}"
    )
    times = (
        f"{kernel} "
        f"and the rest of the fit (validation, conflicts, the model) {fmt_s(st['other'])}, "
        f"against {fmt_s(r['sklearn']['fit_s']['median'])} for the whole {peer} fit"
    )
    if k["outcome"] == "separator":
        why = f"a separator after {k['n_iter']:,} iterations"
    elif k["outcome"] == "conflict":
        why = (
            f"{k['n_conflicts']:,} pair(s) of training points have identical features and "
            f"opposite labels, so no kernel separates the data; SNKP ran {k['n_iter']:,} "
            "iterations on the other points"
        )
    elif k["outcome"] == "certificate":
        why = (
            f"the data are not separable with a margin above the tolerance, and SNKP "
            f"needed {k['n_iter']:,} iterations to certify it"
        )
    else:
        why = f"no separator and no certificate within {k['n_iter']:,} iterations"
    if k.get("gram_form") == "nystroem":
        why += f" (on Nystroem features: more than {AUTO_EXACT_MAX_N:,} training points)"
    return head + why + "; " + times + "."


def reasons(result: dict[str, Any] | None) -> str:
    """A bullet per task over the target, with its measured reason (or none over it)."""
    over = [r for r in (result or {}).get("rows", []) if r["ratio"] > r["target_ratio"]]
    if not over:
        return "* none" if result and result.get("rows") else "* not measured in this record"
    return "\n".join(f"* {reason(r)}" for r in over)


def islp_text(result: dict[str, Any] | None) -> str:
    """Where the ISLP data came from, or why they were not measured."""
    islp = (result or {}).get("islp", {})
    if islp.get("available"):
        return (
            f"The ISLP data sets are read from the CSV files inside the `ISLP` {ISLP_VERSION} "
            "wheel (checked against its SHA-256), without installing or importing `ISLP`, "
            "which requires torch."
        )
    why = islp.get("reason", "the suite did not run")
    return f"The ISLP data sets were not measured in this record ({why})."


def peak_text(result: dict[str, Any] | None) -> str:
    """The largest memory peak traced during a kperc fit, and on which task.

    Examples
    --------
    >>> peak_text({"rows": []})
    'not measured in this record'
    """
    rows = [r for r in (result or {}).get("rows", []) if r["kperc"].get("peak_mb") is not None]
    if not rows:
        return "not measured in this record"
    r = max(rows, key=lambda r: r["kperc"]["peak_mb"])
    k = r["kperc"]
    dense = k.get("dense_gram_mb")
    tail = f"; its dense G alone takes {dense:.3g} MB" if dense else ""
    return f"{k['peak_mb']:.3g} MB ({r['task']}, {r['kernel']} kernel, n = {r['n_train']:,}{tail})"


def classifier_texts(rec: Record) -> list[Glue]:
    """The glued values of the section "The classifier on real data".

    Examples
    --------
    >>> from benchmarks.page import as_dict
    >>> g = as_dict(classifier_texts({"suites": {}, "targets": []}))
    >>> g["bench-clf-rbf-table"], g["bench-clf-met"], g["bench-clf-sets"]
    ('Not measured in this record.', 0, 0)
    """
    result = rec["suites"].get("classifier")
    ts = [t for tid, t in targets_by_id(rec).items() if tid.startswith("classifier-")]
    decided = [t for t in ts if t["met"] is not None]
    rows = (result or {}).get("rows", [])
    sep = [r for r in rows if r["kperc"]["outcome"] == "separator"]
    sep_worst = max((r["ratio"] for r in sep), default=float("nan"))
    over = [r for r in rows if r["ratio"] > r["target_ratio"]]
    over_sep = [r for r in over if r["kperc"]["outcome"] == "separator"]
    insep_iters = [r["kperc"]["n_iter"] for r in rows if r["kperc"]["outcome"] != "separator"]
    svc_max = max((r["sklearn"]["fit_s"]["median"] for r in over_sep), default=None)
    return [
        num("bench-clf-target", rounded(TARGET_RATIO, 4)),
        md("bench-clf-rbf-table", table(result, "rbf")),
        md("bench-clf-linear-table", table(result, "linear")),
        num("bench-clf-sets", len(ts)),
        num("bench-clf-met", sum(bool(t["met"]) for t in decided)),
        num("bench-clf-decided", len(decided)),
        num("bench-clf-tasks", len(rows)),
        num("bench-clf-separated", len(sep)),
        num("bench-clf-separated-worst", rounded(sep_worst)),
        md("bench-clf-reasons", reasons(result)),
        num("bench-clf-over", len(over)),
        num("bench-clf-over-separated", len(over_sep)),
        num("bench-clf-over-inseparable", len(over) - len(over_sep)),
        md("bench-clf-over-separated-peer-max", "-" if svc_max is None else fmt_s(svc_max)),
        num("bench-clf-inseparable-iter-min", min(insep_iters, default=0)),
        num("bench-clf-inseparable-iter-max", max(insep_iters, default=0)),
        md("bench-clf-islp", islp_text(result)),
        md("bench-clf-peak", peak_text(result)),
        num("bench-clf-exact-max-n", AUTO_EXACT_MAX_N),
    ]

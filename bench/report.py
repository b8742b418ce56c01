"""``python -m bench.report``: the targets of CONTRIBUTING.md, read from the committed
results of ``make bench-micro`` (``book/_generated/micro/*.json``), met or not.

* per iteration, worst ``n``, in products ``G @ v`` (dense and factored ``G``): NKP and
  NVN at most 0.2, SNKP at most 1.3, ISNKPVN at most 2.3 (timed:
  ``(t(2K) - t(K)) / K`` over the product's median; and counted);
* fixed cost of one call on the matrix ``kperc.gram_matrix`` returns, ``n`` = 2000 and
  4000: at most 20 products (counted, and timed against the product's median);
* every default ``SNKPClassifier`` fit within ``max(5 x scikit-learn's fit, 2 s)``,
  with a certified separator or one warning;
* the peak memory of the per-iteration runs at most half a dense ``G``.

It only reads; it exits 0 whatever it finds (the numbers come from whatever machine
ran the benchmarks, which each file records).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench.run import micro_dir

PERITER_TARGETS = {"nkp": 0.2, "nvn": 0.2, "snkp": 1.3, "isnkpvn": 2.3}
FIXEDCOST_TARGET = 20.0
MEMORY_TARGET = 0.5
SEPARABLE_TARGET = 2.0


def _rows(payload: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**b["extra_info"], "median": b["stats"]["median"]} for b in payload["benchmarks"]]


def periter(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Per (form, algorithm): the worst ratio over ``n``, timed and counted, and the target."""
    rows = _rows(payload)
    product = {(r["n"], r["form"]): r["median"] for r in rows if r["what"] == "product"}
    runs = {
        (r["n"], r["form"], r["algorithm"], r["iterations"]): r
        for r in rows
        if r["what"] == "iterations"
    }
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (n, form, alg, k), long in runs.items():
        short = runs.get((n, form, alg, k // 2))
        if short is None or (n, form) not in product:
            continue
        extra = k - k // 2  # the iterations the longer run adds
        per_iter = (long["median"] - short["median"]) / extra
        counted = (long.get("products_counted", 0) - short.get("products_counted", 0)) / extra
        found.setdefault((form, alg), []).append(
            {"n": n, "timed": per_iter / product[n, form], "counted": counted}
        )
    out = []
    for (form, alg), cells in sorted(found.items()):
        worst = max(cells, key=lambda c: c["timed"])
        target = PERITER_TARGETS[alg]
        out.append(
            {
                "target": f"periter {form} {alg}: <= {target} products per iteration",
                "value": f"worst n = {worst['n']}: {worst['timed']:.2g} timed, "
                f"{max(c['counted'] for c in cells):.2g} counted",
                "met": worst["timed"] <= target,
            }
        )
    return out


def fixedcost(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Per ``n``: the costliest call, in products counted and timed, against 20."""
    rows = _rows(payload)
    product = {r["n"]: r["median"] for r in rows if r["what"] == "product"}
    out = []
    for n in sorted(product):
        calls = [r for r in rows if r["what"] == "call" and r["n"] == n]
        if not calls:
            continue
        timed = {r["algorithm"]: r["median"] / product[n] for r in calls}
        counted = {r["algorithm"]: r.get("products_counted", 0) for r in calls}
        worst = max(timed, key=timed.__getitem__)
        out.append(
            {
                "target": f"fixed cost n = {n}: <= {FIXEDCOST_TARGET:g} products per call",
                "value": f"{worst}: {timed[worst]:.3g} timed; at most "
                f"{max(counted.values())} counted",
                "met": max(counted.values()) <= FIXEDCOST_TARGET
                and timed[worst] <= FIXEDCOST_TARGET,
            }
        )
    return out


def classifier(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per kperc fit: its time against its budget and how it ended."""
    out = []
    for r in _rows(payload):
        if r["estimator"] != "kperc":
            continue
        budget = r.get("budget_s")
        out.append(
            {
                "target": f"classifier {r['task']} {r['kernel']}: within max(5x, 2 s)",
                "value": f"{r['median']:.3g} s of {budget:.3g} s, {r['ended']}"
                if budget is not None
                else f"{r['median']:.3g} s (no scikit-learn time)",
                "met": bool(r.get("within_budget")),
            }
        )
    return out


def memory(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Per algorithm: the largest peak of its runs on a dense ``G``, in ``G``, against 0.5."""
    peaks: dict[str, tuple[float, int, str]] = {}
    for r in _rows(payload):
        if r.get("form") != "dense" or "peak_in_dense_G" not in r:
            continue  # a factored G has no n x n matrix to compare with
        if r["peak_in_dense_G"] > peaks.get(r["algorithm"], (-1.0, 0, ""))[0]:
            peaks[r["algorithm"]] = (r["peak_in_dense_G"], r["n"], r["form"])
    return [
        {
            "target": f"memory {alg}: peak <= {MEMORY_TARGET} dense G",
            "value": f"{peak:.2g} G (n = {n}, {form})",
            "met": peak <= MEMORY_TARGET,
        }
        for alg, (peak, n, form) in sorted(peaks.items())
    ]


def separable(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Per problem: ``kperc.is_separable`` against the LP alone, at most twice its time."""
    rows = _rows(payload)
    lp = {r["problem"]: r["median"] for r in rows if r["what"] == "lp"}
    out = []
    for r in rows:
        if r["what"] != "is_separable" or r["problem"] not in lp:
            continue
        ratio = r["median"] / lp[r["problem"]]
        out.append(
            {
                "target": f"is_separable {r['problem']}: <= {SEPARABLE_TARGET:g} x the LP alone",
                "value": f"{ratio:.2g} x ({r['median']:.3g} s against {lp[r['problem']]:.3g} s), "
                f"{r['status']}",
                "met": ratio <= SEPARABLE_TARGET,
            }
        )
    return out


CHECKS = {
    "periter": periter,
    "fixedcost": fixedcost,
    "classifier": classifier,
    "separable": separable,
}
#: The memory target reads the file of the per-iteration runs.
MEMORY_GROUP = "periter"


def main(argv: list[str] | None = None) -> int:
    folder = Path(argv[0]) if argv else micro_dir()
    for group, check in CHECKS.items():
        path = folder / f"{group}.json"
        if not path.exists():
            print(f"{group}: no {path.name} (make bench-micro writes it)")
            continue
        payload = json.loads(path.read_text())
        rows = check(payload) + (memory(payload) if group == MEMORY_GROUP else [])
        met = sum(r["met"] for r in rows)
        print(f"{group} (measured {payload['datetime'][:10]}): {met} of {len(rows)} met")
        for r in rows:
            print(f"  {'met    ' if r['met'] else 'NOT met'} {r['target']}: {r['value']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

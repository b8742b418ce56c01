"""The benchmarks page's fixed-cost section (benchmarks.page_fixedcost).

Synthetic records check each branch (met, missed, busy, not measured); the committed
record must give a table row per measured ``n``.
"""

from __future__ import annotations

import math

import pytest

from benchmarks import page_fixedcost as pf
from benchmarks.page import as_dict
from benchmarks.record import load_record
from benchmarks.suites import fixedcost
from benchmarks.targets import evaluate_targets
from kperc_book import paths


def _row(n: int, worst_products: float, snkp_products: float = 3.0) -> dict:
    product = 1e-3 * (n / 2000) ** 2
    by = {
        a: {"s": p * product, "products": p, "spread_products": {}}
        for a, p in (("snkp", snkp_products), ("nkp", 1.0), ("nvn", 1.5))
    }
    by["isnkpvn"] = {"s": worst_products * product, "products": worst_products}
    return {
        "n": n,
        "product_s": product,
        "validate_plain_s": 100 * product,
        "validate_plain_products": 100.0,
        "build_validated_s": 105 * product,
        "build_validated_products": 105.0,
        "call_plain_s": 110 * product,
        "call_plain_products": 110.0,
        "call_validated_s": snkp_products * product,
        "call_validated_products": snkp_products,
        "call_validated_by_algorithm": by,
        "call_validated_worst": "isnkpvn",
        "call_validated_worst_products": worst_products,
        "target_products": fixedcost.TARGET_PRODUCTS,
        "met": worst_products <= fixedcost.TARGET_PRODUCTS,
    }


def _record(rows: list[dict], busy: bool = False) -> dict:
    result = {"rows": rows, "target_products": fixedcost.TARGET_PRODUCTS}
    result["measured"] = {"busy": busy, "busy_load_1min": 3.0, "busy_limit": 1.7}
    rec = {"suites": {"fixedcost": result}}
    cfg = None  # fixedcost.targets does not read the configuration
    rec["targets"] = evaluate_targets(rec["suites"], cfg)
    return rec


def test_targets_one_per_n_on_the_worst_algorithm():
    rec = _record([_row(2000, 15.0), _row(4000, 25.0)])
    ts = {t["id"]: t for t in rec["targets"]}
    assert set(ts) == {"fixedcost-n2000", "fixedcost-n4000"}
    assert ts["fixedcost-n2000"]["met"] is True and ts["fixedcost-n2000"]["value"] == 15.0
    assert ts["fixedcost-n4000"]["met"] is False
    assert "isnkpvn: 25 products" in ts["fixedcost-n4000"]["detail"]
    assert "110 products" in ts["fixedcost-n4000"]["detail"]  # the plain call, for contrast


def test_summary_lines_name_the_worst_algorithm():
    lines = fixedcost.summary({"rows": [_row(2000, 15.0)]})
    assert lines[1].startswith("Fixed cost of one call")
    assert "110.0" in lines[2] and "105.0" in lines[2] and "15.00 (isnkpvn)" in lines[2]
    assert fixedcost.summary({}) == []


def test_texts_table_verdicts_and_numbers():
    rec = _record([_row(2000, 15.0, snkp_products=4.0), _row(4000, 25.0)])
    g = as_dict(pf.fixedcost_texts(rec))
    table = g["bench-fc-table"].splitlines()
    assert table[0] == "| " + " | ".join(pf.COLUMNS) + " |"
    assert table[2].startswith("| 2,000 | 1 ms | 110 (110 ms) | 105 (105 ms) | 15 (15 ms), ISNKPVN")
    assert len(table) == 4
    verdicts = g["bench-fc-verdicts"].splitlines()
    assert verdicts[0] == "* $n$ = 2,000: within the reference value (15 <= 20)."
    assert verdicts[1].startswith("* $n$ = 4,000: beyond the reference value by 25%")
    assert g["bench-fc-plain-max"] == 110.0 and g["bench-fc-call-max"] == 25.0
    assert g["bench-fc-snkp-max"] == 4.0 and g["bench-fc-target"] == 20.0
    assert g["bench-fc-cholesky-max-n"] == 3000 and g["bench-fc-lanczos-steps"] == 30


def test_a_busy_record_leaves_the_verdicts_undecided():
    g = as_dict(pf.fixedcost_texts(_record([_row(2000, 15.0)], busy=True)))
    assert g["bench-fc-verdicts"].startswith("* $n$ = 2,000: **not decided**: measured on a busy")


def test_a_record_without_the_suite_says_not_measured():
    g = as_dict(pf.fixedcost_texts({"suites": {}, "targets": []}))
    assert g["bench-fc-table"] == "Not measured in this record."
    assert g["bench-fc-verdicts"] == "* not measured in this record"
    assert math.isnan(g["bench-fc-plain-max"])
    # the same names either way, so the page's glue references always resolve
    full = as_dict(pf.fixedcost_texts(_record([_row(2000, 15.0)])))
    assert set(g) == set(full)


def test_the_committed_record_has_the_suite_and_its_targets():
    rec = load_record(paths.generated_dir() / "bench.json")
    if "fixedcost" not in rec["suites"]:
        pytest.fail("book/_generated/bench.json has no fixedcost suite: run it into the record")
    rows = rec["suites"]["fixedcost"]["rows"]
    assert [r["n"] for r in rows] == [2000, 4000]
    g = as_dict(pf.fixedcost_texts(rec))
    assert len(g["bench-fc-table"].splitlines()) == 2 + len(rows)
    assert {t["id"] for t in rec["targets"] if t["id"].startswith("fixedcost-")} == {
        "fixedcost-n2000",
        "fixedcost-n4000",
    }

"""The benchmarks page's section on the fixed cost of one call (the ``fixedcost`` suite).

:func:`fixedcost_texts` turns the suite's result in ``bench.json`` into the values the
section glues: a table of the cost of a call on a plain matrix and on a
:class:`kperc.ValidatedGram`, in products ``G @ v`` and in seconds, the verdicts of the
targets ``fixedcost-n...``, and the numbers the prose quotes. A record without the suite
gives "not measured" texts.
"""

from __future__ import annotations

from typing import Any

from benchmarks.page import Glue, Record, md, num, reference_verdict, targets_by_id
from benchmarks.peers.markdown import fmt_time as fmt_s
from benchmarks.suites.fixedcost import TARGET_PRODUCTS
from kperc._validation import LANCZOS_STEPS, PSD_CHECK_MAX_N
from kperc_book._markdown import table as md_table

#: Display names of the algorithms measured on a ValidatedGram.
NAMES = {"snkp": "SNKP", "nkp": "NKP", "nvn": "NVN", "isnkpvn": "ISNKPVN"}

#: The columns of the table (short: it must fit a phone's column).
COLUMNS = ["n", "one product", "plain G: one call", "ValidatedGram: built once", "then a call"]


def rounded(value: float, digits: int = 2) -> float | int:
    """``value`` to ``digits`` significant digits, as an int when that is whole (the page
    shows 110, not 110.0).

    Examples
    --------
    >>> rounded(105.2), rounded(3.84), rounded(20.0), rounded(float("nan"))
    (110, 3.8, 20, nan)
    """
    r = float(f"{value:.{digits}g}")
    return int(r) if r.is_integer() else r


def _cost(products: float, seconds: float) -> str:
    """``"113 (76.3 ms)"``: a cost in products, with its seconds."""
    return f"{products:.3g} ({fmt_s(seconds)})"


def fixedcost_rows(result: dict[str, Any]) -> list[list[str]]:
    """The table's rows: per ``n``, a product, a plain call, the build, the worst call."""
    rows = []
    for r in result.get("rows", []):
        worst = r["call_validated_worst"]
        by = r["call_validated_by_algorithm"][worst]
        rows.append(
            [
                f"{r['n']:,}",
                fmt_s(r["product_s"]),
                _cost(r["call_plain_products"], r["call_plain_s"]),
                _cost(r["build_validated_products"], r["build_validated_s"]),
                f"{_cost(by['products'], by['s'])}, {NAMES.get(worst, worst)}",
            ]
        )
    return rows


def fixedcost_verdicts(rec: Record) -> str:
    """One bullet per target ``fixedcost-n...``: its verdict and detail."""
    ts = [t for tid, t in targets_by_id(rec).items() if tid.startswith("fixedcost-")]
    if not ts:
        return "* not measured in this record"
    return "\n".join(
        f"* $n$ = {int(t['id'].rsplit('n', 1)[1]):,}: {reference_verdict(t)}." for t in ts
    )


def fixedcost_texts(rec: Record) -> list[Glue]:
    """The glued values of the section "The fixed cost of one call".

    Examples
    --------
    >>> from benchmarks.page import as_dict
    >>> g = as_dict(fixedcost_texts({"suites": {}, "targets": []}))
    >>> g["bench-fc-verdicts"], g["bench-fc-target"]
    ('* not measured in this record', 20)
    """
    result = rec["suites"].get("fixedcost")
    out = [
        num("bench-fc-target", rounded(TARGET_PRODUCTS, 4)),
        num("bench-fc-cholesky-max-n", PSD_CHECK_MAX_N),
        num("bench-fc-lanczos-steps", LANCZOS_STEPS),
    ]
    if not result or not result.get("rows"):
        return out + [
            md("bench-fc-table", "Not measured in this record."),
            md("bench-fc-verdicts", fixedcost_verdicts(rec)),
            num("bench-fc-plain-min", float("nan")),
            num("bench-fc-plain-max", float("nan")),
            num("bench-fc-validate-max", float("nan")),
            num("bench-fc-call-max", float("nan")),
            num("bench-fc-snkp-max", float("nan")),
        ]
    rows = result["rows"]
    plain = [r["call_plain_products"] for r in rows]
    return out + [
        md("bench-fc-table", md_table(COLUMNS, fixedcost_rows(result))),
        md("bench-fc-verdicts", fixedcost_verdicts(rec)),
        num("bench-fc-plain-min", rounded(min(plain))),
        num("bench-fc-plain-max", rounded(max(plain))),
        num("bench-fc-validate-max", rounded(max(r["validate_plain_products"] for r in rows))),
        num("bench-fc-call-max", rounded(max(r["call_validated_worst_products"] for r in rows))),
        num(
            "bench-fc-snkp-max",
            rounded(max(r["call_validated_by_algorithm"]["snkp"]["products"] for r in rows)),
        ),
    ]

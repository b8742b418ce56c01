"""The targets of the benchmark, evaluated on a record's suites.

Each suite's module owns its targets (its ``targets(result, cfg)``, see
:mod:`benchmarks.suites`); this module builds the entries (:func:`target`), collects them
in the record's order and leaves undecided those measured on a busy machine.
"""

from __future__ import annotations

from typing import Any

from benchmarks._config import BenchConfig
from benchmarks.suites import report_order, suite_module


def target(tid: str, description: str, value, target, met, detail: str) -> dict[str, Any]:
    """One target entry of a record: what was measured against what was asked."""
    return {
        "id": tid,
        "description": description,
        "value": value,
        "target": target,
        "met": None if met is None else bool(met),
        "detail": detail,
    }


def evaluate_targets(suites: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """Compare the measurements with the targets of the benchmark issue.

    Every entry has the measured ``value``, the ``target``, ``met`` (``None`` when the
    suite was not run or the measurement is inconclusive) and a ``detail`` sentence.
    The suites are asked in :func:`benchmarks.suites.report_order`.
    """
    out = []
    for name in report_order(suites):
        evaluate = getattr(suite_module(name), "targets", None)
        if evaluate is not None:
            out += _flag_busy(evaluate(suites[name], cfg), suites[name])
    return out


def _flag_busy(targets: list[dict[str, Any]], result: dict[str, Any]) -> list[dict[str, Any]]:
    """Leave undecided every target of a suite that ran on a busy machine (the busy rule).

    The measured value stays; ``met`` becomes ``None``, ``busy`` is set, and the detail
    says so with the load average and its limit.
    """
    m = (result or {}).get("measured", {})
    for t in targets:
        if m.get("busy"):
            t["busy"] = True
            t["met_if_not_busy"] = t["met"]
            t["met"] = None
            t["detail"] = (
                f"measured on a busy machine (1-minute load average "
                f"{m['busy_load_1min']:.2f} above {m['busy_limit']:.2f}); " + t["detail"]
            )
    return targets

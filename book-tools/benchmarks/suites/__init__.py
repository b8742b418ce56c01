"""The benchmark suites, one module each, and the registry that names them.

A suite is one module. It defines

``suite_<name>(cfg: BenchConfig, log) -> dict`` (required)
    Measures something and returns a JSON-ready dict (``rows`` and whatever its targets
    and the benchmarks page need): the suite's *result*.
``targets(result, cfg) -> list[dict]`` (optional)
    Its targets, each built with :func:`benchmarks.targets.target`; a target's id starts
    with the suite's name and a hyphen (``periter-dense-snkp``).
``HIGHER_IS_BETTER`` (optional)
    The ids of its targets whose value must reach the target from below (speed-ups);
    every other target is met at or below its value.
``summary(result) -> list[str]`` (optional)
    Its lines in the text summary that ``python -m benchmarks.bench`` prints.
``timed(cfg) -> bool`` (optional, default: always timed)
    Whether its numbers are times, so that the busy rule applies (``memory`` measures
    memory; ``regen`` times only the book build, with ``--build``).

The harness (``python -m benchmarks.bench``) runs the suites in the order of
:data:`SUITE_ENTRY_POINTS`, limits BLAS threads around them, and adds to each result a
``measured`` block: when, how long, the load average before and after, and whether the
machine was busy (:mod:`benchmarks._machine`). :func:`benchmarks.targets.evaluate_targets`
and :func:`benchmarks.report.format_table` ask each suite's module for its targets and
its summary.

Adding a suite takes its module and one line here: ``"name": "package.module:function"``.
The module is imported only when the suite is used, so it may live anywhere in the
checkout and may import the harness's helpers freely.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

__all__ = [
    "SUITES",
    "SUITE_ENTRY_POINTS",
    "REPORT_ORDER",
    "suite_func",
    "suite_module",
    "is_timed",
    "report_order",
    "suite_of_target",
]

#: Every suite, in the order a full run measures them: ``name -> "module:function"``.
SUITE_ENTRY_POINTS: dict[str, str] = {
    "periter": "benchmarks.suites.periter:suite_periter",
    "floor": "benchmarks.suites.floor:suite_floor",
    "fixedcost": "benchmarks.suites.fixedcost:suite_fixedcost",
    "separable": "benchmarks.suites.separable:suite_separable",
    "classifier": "benchmarks.suites.classifier:suite_classifier",
    "separator": "benchmarks.suites.separator:suite_separator",
    "kernels": "benchmarks.suites.kernels:suite_kernels",
    "large": "benchmarks.suites.large:suite_large",
    "certificates": "benchmarks.suites.certificates:suite_certificates",
    "dist": "benchmarks.suites.dist:suite_dist",
    "memory": "benchmarks.suites.memory:suite_memory",
    "nystroem": "benchmarks.suites.nystroem:suite_nystroem",
    "realdata": "benchmarks.suites.realdata:suite_realdata",
    "svm": "benchmarks.suites.svm:suite_svm",
    "peers": "benchmarks.suites.peers:suite_peers",
    "families": "benchmarks.suites.families:suite_families",
    "regen": "benchmarks.suites.regen:suite_regen",
}
#: The names of :data:`SUITE_ENTRY_POINTS`, in order.
SUITES: tuple[str, ...] = tuple(SUITE_ENTRY_POINTS)
#: The suites that come first, in this order, in a record's targets and in the text
#: summary (the order of the records written so far, kept so that records compare line by
#: line); every other suite follows in the order of :data:`SUITE_ENTRY_POINTS`.
REPORT_ORDER: tuple[str, ...] = (
    "periter",
    "large",
    "regen",
    "memory",
    "nystroem",
    "dist",
    "separator",
    "floor",
)


def suite_func(name: str) -> Callable[..., dict[str, Any]]:
    """The function of the suite ``name`` (imported on demand).

    Examples
    --------
    >>> from benchmarks.suites import suite_func
    >>> suite_func("periter").__name__
    'suite_periter'
    """
    return getattr(suite_module(name), _spec(name)[1])


def _spec(name: str) -> tuple[str, str]:
    try:
        spec = SUITE_ENTRY_POINTS[name]
    except KeyError:
        raise ValueError(f"unknown suite {name!r}; choose from {', '.join(SUITES)}") from None
    module, _, func = spec.partition(":")
    return module, func


def suite_module(name: str) -> ModuleType:
    """The module of the suite ``name`` (imported on demand)."""
    return importlib.import_module(_spec(name)[0])


def is_timed(name: str, cfg: Any) -> bool:
    """Whether the suite ``name`` measured times under ``cfg`` (its ``timed``, default yes)."""
    timed = getattr(suite_module(name), "timed", None)
    return True if timed is None else bool(timed(cfg))


def report_order(names: Iterable[str]) -> list[str]:
    """The registered suites among ``names``, in the order of :data:`REPORT_ORDER`.

    Examples
    --------
    >>> from benchmarks.suites import report_order
    >>> report_order(["svm", "floor", "nosuch", "separator", "periter"])
    ['periter', 'separator', 'floor', 'svm']
    """
    present = set(names)
    rest = [s for s in SUITES if s not in REPORT_ORDER]
    return [s for s in (*REPORT_ORDER, *rest) if s in present]


def suite_of_target(tid: str) -> str | None:
    """The suite whose result a target's id names (``"large-snkp-time"`` -> ``"large"``).

    Examples
    --------
    >>> from benchmarks.suites import suite_of_target
    >>> suite_of_target("floor-snkp"), suite_of_target("nosuch-x")
    ('floor', None)
    """
    return next((s for s in SUITES if tid.startswith(s + "-")), None)

"""The benchmark suites, one module each, and the registry that names them.

A suite is a function ``suite(cfg: BenchConfig, log) -> dict`` that measures something
and returns a JSON-ready dict (``rows`` and whatever its targets and the benchmarks
page need). The harness (``python -m benchmarks.bench``) runs the suites in the order
of :data:`SUITE_ENTRY_POINTS`, limits BLAS threads around them, and adds to each a
``measured`` block: when, how long, the load average before and after, and whether the
machine was busy (:mod:`benchmarks._machine`).

Adding a suite takes one line here: ``"name": "package.module:function"``. The
function is imported only when the suite runs, so its module may live anywhere in the
checkout and may import the harness's helpers freely. Its targets, if any, go into
:func:`benchmarks.targets.evaluate_targets`; a suite whose numbers are not times (such
as ``memory``) is listed in :data:`UNTIMED_SUITES`, so that the busy rule skips it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["SUITES", "SUITE_ENTRY_POINTS", "UNTIMED_SUITES", "suite_func"]

#: Every suite, in the order a full run measures them: ``name -> "module:function"``.
SUITE_ENTRY_POINTS: dict[str, str] = {
    "periter": "benchmarks.suites.periter:suite_periter",
    "floor": "benchmarks.suites.floor:suite_floor",
    "fixedcost": "benchmarks.suites.fixedcost:suite_fixedcost",
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
    "regen": "benchmarks.suites.regen:suite_regen",
}
#: The names of :data:`SUITE_ENTRY_POINTS`, in order.
SUITES: tuple[str, ...] = tuple(SUITE_ENTRY_POINTS)
#: Suites whose results do not depend on the machine's load (the busy rule skips them;
#: ``regen`` is timed only with ``--build``).
UNTIMED_SUITES = frozenset({"memory", "regen"})


def suite_func(name: str) -> Callable[..., dict[str, Any]]:
    """The function of the suite ``name`` (imported on demand).

    Examples
    --------
    >>> from benchmarks.suites import suite_func
    >>> suite_func("periter").__name__
    'suite_periter'
    """
    try:
        spec = SUITE_ENTRY_POINTS[name]
    except KeyError:
        raise ValueError(f"unknown suite {name!r}; choose from {', '.join(SUITES)}") from None
    module, _, func = spec.partition(":")
    return getattr(importlib.import_module(module), func)

"""The state of the machine during a benchmark: its BLAS thread limit and its load.

What the machine *is* (CPU, memory, versions) comes from :mod:`kperc_book.machine`,
the one place that collects it. This module adds what only the harness needs: a BLAS
thread limit around the measurements, and the rule that flags a suite measured while
other processes kept the machine busy.

The busy rule
-------------
The 1-minute load average counts the runnable threads of every process, the
benchmark's own included. A suite is *busy* when the larger of the 1-minute load
averages at its start and at its end exceeds

    ``own_threads + BUSY_BASE + BUSY_PER_CORE * cores``

where ``own_threads`` is the number of threads the benchmark itself keeps running (its
BLAS thread limit, at least 1). On the 2-core machine of the book, with one BLAS
thread, the limit is ``1 + 0.5 + 0.1 * 2 = 1.7``: other processes may keep at most
about 0.7 of a core busy on average. A busy suite's numbers are kept in the record,
but its targets are not decided and the page says that they were measured on a busy
machine.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from kperc_book.machine import loadavg, machine_info

__all__ = ["BUSY_BASE", "BUSY_PER_CORE", "busy_limit", "busy_verdict", "loadavg", "machine_info"]

#: Load allowed on top of the benchmark's own threads, whatever the core count.
BUSY_BASE = 0.5
#: Load allowed per core on top of :data:`BUSY_BASE`.
BUSY_PER_CORE = 0.1


@contextlib.contextmanager
def _blas_threads(n: int | None) -> Iterator[None]:
    """Limit BLAS threads (``None``: leave as is)."""
    if n is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=int(n), user_api="blas"):
        yield


def busy_limit(cores: int | None, own_threads: int | None) -> float:
    """The 1-minute load average above which a suite counts as measured on a busy machine.

    ``own_threads`` is the benchmark's BLAS thread limit (``None``: unlimited, counted
    as every core); ``cores`` the machine's core count (``None``: 1).
    """
    cores = max(int(cores or 1), 1)
    own = cores if own_threads is None else max(int(own_threads), 1)
    return own + BUSY_BASE + BUSY_PER_CORE * cores


def busy_verdict(
    load_start: Sequence[float] | None,
    load_end: Sequence[float] | None,
    cores: int | None,
    own_threads: int | None,
) -> dict[str, Any]:
    """Apply the busy rule to the load averages at the start and end of a suite.

    Returns
    -------
    dict
        ``busy`` (``None`` when no load average is known), ``load_1min`` (the larger
        of the two 1-minute load averages) and ``limit`` (:func:`busy_limit`).
    """
    limit = busy_limit(cores, own_threads)
    loads = [float(x[0]) for x in (load_start, load_end) if x]
    if not loads:
        return {"busy": None, "load_1min": None, "limit": limit}
    worst = max(loads)
    return {"busy": worst > limit, "load_1min": worst, "limit": limit}

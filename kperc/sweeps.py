"""Parameter sweeps that run in parallel through joblib.

A sweep calls a picklable function once per parameter combination. It runs serially
with ``n_jobs=1``, on local processes with ``n_jobs > 1`` (joblib's ``loky`` backend),
and unchanged on a Dask cluster when called inside
``joblib.parallel_config(backend="dask")`` with a ``dask.distributed.Client`` open.
Results come back in the order of the grid, so a sweep's output does not depend on
how it was scheduled.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from joblib import Parallel, delayed

__all__ = ["grid", "sweep"]


def grid(**axes: Iterable[Any]) -> list[dict[str, Any]]:
    """Cartesian product of named axes, as a list of keyword dictionaries.

    Examples
    --------
    >>> grid(rho=[0.1, 0.01], seed=[0, 1])
    [{'rho': 0.1, 'seed': 0}, {'rho': 0.1, 'seed': 1}, {'rho': 0.01, 'seed': 0}, \
{'rho': 0.01, 'seed': 1}]
    """
    keys = list(axes)
    return [dict(zip(keys, vals, strict=True)) for vals in itertools.product(*axes.values())]


def sweep(
    func: Callable[..., Mapping[str, Any]],
    points: Iterable[Mapping[str, Any]],
    *,
    n_jobs: int = 1,
    backend: str | None = None,
    verbose: int = 0,
) -> list[dict[str, Any]]:
    """Evaluate ``func(**point)`` for every point; return one row per point.

    Parameters
    ----------
    func : callable
        A module-level (picklable) function returning a mapping of results.
    points : iterable of mapping
        Keyword arguments, for example from :func:`grid`.
    n_jobs : int
        Number of parallel workers (1 runs in this process).
    backend : str, optional
        A joblib backend name; by default the active ``joblib.parallel_config``
        decides (``loky`` for processes, ``dask`` for a cluster).
    verbose : int
        joblib progress output (0 silent).

    Returns
    -------
    list of dict
        ``{**point, **func(**point)}`` in grid order.

    Examples
    --------
    >>> from kperc.sweeps import grid, sweep
    >>> def quotient(a, b): return {"q": a // b}
    >>> sweep(quotient, grid(a=[7, 9], b=[2]))
    [{'a': 7, 'b': 2, 'q': 3}, {'a': 9, 'b': 2, 'q': 4}]
    """
    points = [dict(p) for p in points]
    if n_jobs == 1 and backend is None:
        results = [func(**p) for p in points]
    else:
        results = Parallel(n_jobs=n_jobs, backend=backend, verbose=verbose)(
            delayed(func)(**p) for p in points
        )
    return [{**p, **dict(r)} for p, r in zip(points, results, strict=True)]

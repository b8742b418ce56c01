"""Parameter sweeps that run in parallel through joblib.

A sweep calls a picklable function once per parameter combination. It runs serially
with ``n_jobs=1``, on local processes with ``n_jobs > 1`` (joblib's ``loky`` backend),
and unchanged on a Dask cluster when called inside
``joblib.parallel_config(backend="dask")`` with a ``dask.distributed.Client`` open.
Results come back in the order of the grid, so a sweep's output does not depend on
how it was scheduled. ``blas_threads`` caps the BLAS/OpenMP thread pools while each
point runs (in this process or in the workers), through ``threadpoolctl``.
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
    for name, values in axes.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise TypeError(
                f"grid axis {name!r} must be a list (or other iterable) of values, got "
                f"{type(values).__name__} {values!r}; write {name}=[{values!r}] for one value"
            )
    keys = list(axes)
    return [dict(zip(keys, vals, strict=True)) for vals in itertools.product(*axes.values())]


def sweep(
    func: Callable[..., Mapping[str, Any]],
    points: Iterable[Mapping[str, Any]],
    *,
    n_jobs: int = 1,
    backend: str | None = None,
    verbose: int = 0,
    blas_threads: int | None = 1,
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
    blas_threads : int or None, default=1
        Threads of the BLAS and OpenMP pools while ``func`` runs, set inside each worker
        (``threadpoolctl.threadpool_limits``). The default, one thread per point, keeps
        the thread count out of a point's arithmetic: a threaded BLAS splits its sums
        differently for every thread count, so the serial run, joblib's workers and a
        Dask worker (each with its own pool) would otherwise round differently. It also
        suits many small instances on a shared machine, where threaded BLAS only adds
        contention. ``None`` leaves the pools as they are (faster for a few large
        points). Even pinned, floats computed elsewhere may differ in their last bits
        (another CPU's kernel; on AVX-512 CPUs, a worker thread); decisions taken beyond
        rounding do not. The limit is process-wide: workers that are threads of one
        process (a Dask ``LocalCluster(processes=False)``) share one pool, and one
        point's exit can lift the limit while another point still runs.

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
    if blas_threads is not None and (
        isinstance(blas_threads, bool) or not isinstance(blas_threads, int) or blas_threads < 1
    ):
        raise ValueError(
            f"blas_threads must be None or a positive integer, got {blas_threads!r}; "
            "use blas_threads=1 for single-threaded BLAS"
        )
    if not callable(func):
        raise TypeError(f"func must be a callable returning a mapping, got {type(func).__name__}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(
            f"n_jobs must be a nonzero integer (1 runs serially, -1 uses every core), "
            f"got {n_jobs!r}"
        )
    if isinstance(points, Mapping) or not isinstance(points, Iterable):
        raise TypeError(
            "points must be an iterable of mappings (for example grid(...)), got "
            f"{type(points).__name__}"
        )
    points = list(points)
    for i, p in enumerate(points):
        if not isinstance(p, Mapping):
            raise TypeError(
                f"points[{i}] must be a mapping of keyword arguments, got {type(p).__name__}"
            )
    points = [dict(p) for p in points]
    if n_jobs == 1 and backend is None:
        results = [_call(func, p, blas_threads) for p in points]
    else:
        results = Parallel(n_jobs=n_jobs, backend=backend, verbose=verbose)(
            delayed(_call)(func, p, blas_threads) for p in points
        )
    for p, r in zip(points, results, strict=True):
        if not isinstance(r, Mapping):
            raise TypeError(
                f"func must return a mapping of results; it returned {type(r).__name__} "
                f"for the point {p!r}"
            )
    return [{**p, **dict(r)} for p, r in zip(points, results, strict=True)]


def _call(
    func: Callable[..., Mapping[str, Any]], point: Mapping[str, Any], blas_threads: int | None
) -> Mapping[str, Any]:
    """``func(**point)``, with the thread pools capped at ``blas_threads`` if given."""
    if blas_threads is None:
        return func(**point)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=blas_threads):
        return func(**point)

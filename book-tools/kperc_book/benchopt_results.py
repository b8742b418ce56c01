"""Read a benchopt results file of ``benchmark_kperc`` into tidy pandas tables.

benchopt writes one row per point of each solver's curve: the solver, the dataset (its
parameters in its name, such as ``"planted[d=20,n=2000,norms=spread,rho=0.001,seed=0]"``),
the repetition, the time and the objective's values (``objective_separated``,
``objective_min_margin``, ...), plus the environment it ran in (``platform``,
``system-cpus``, ``version-numpy``, ``env-OMP_NUM_THREADS``, ...). The book asks three
questions of it, one function each:

* :func:`runs`: one row per run (dataset, solver, repetition): how long until the first
  answer that separates every point beyond rounding, and the final normalised margin;
* :func:`summary` and :func:`winners`: who wins each cell (family, margin, size) over its
  seeds and dimensions, with the spread, and only where the runs decide it;
* :func:`curves` and :func:`environment`: one dataset's curves, and the machine.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "read",
    "parse_dataset_name",
    "runs",
    "summary",
    "winners",
    "curves",
    "environment",
]

#: Columns every results file of the benchmark has (benchopt's names).
REQUIRED = (
    "solver_name",
    "dataset_name",
    "idx_rep",
    "stop_val",
    "time",
    "objective_separated",
    "objective_min_margin",
)

#: Parameters that vary *within* a cell of :func:`summary`: a cell pools its seeds and
#: dimensions, so that a statement about it holds on more than one instance.
POOLED = ("seed", "d")

_NAME = re.compile(r"^(?P<family>[^\[\]]+?)(?:\[(?P<params>[^\[\]]*)\])?$")


def read(path: str | Path) -> pd.DataFrame:
    """Read a benchopt results file (parquet or csv) and check it has the needed columns.

    Parameters
    ----------
    path : str or pathlib.Path
        A file written by ``benchopt run benchmark_kperc --output ...``.

    Returns
    -------
    pandas.DataFrame
        benchopt's frame as stored: one row per point of a solver's curve.

    Raises
    ------
    ValueError
        If a column of :data:`REQUIRED` is missing (not a results file of this benchmark).
    """
    path = Path(path)
    df = pd.read_csv(path) if path.suffix == ".csv" else pd.read_parquet(path)
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise ValueError(f"{path.name} is not a results file of benchmark_kperc: no {missing}")
    return df


def _value(text: str) -> object:
    """A parameter's value as benchopt printed it: int, float, else the string."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_dataset_name(name: str) -> tuple[str, dict[str, object]]:
    """Split benchopt's dataset name into the family and its parameters.

    Parameters
    ----------
    name : str
        For example ``"planted[d=20,n=2000,norms=spread,rho=0.001,seed=0]"``.

    Returns
    -------
    family : str
        The dataset's name (``"planted"``).
    params : dict
        Its parameters, numbers as ``int`` or ``float``, other values as strings.

    Examples
    --------
    >>> parse_dataset_name("planted[d=20,n=2000,norms=spread,rho=0.001,seed=0]")
    ('planted', {'d': 20, 'n': 2000, 'norms': 'spread', 'rho': 0.001, 'seed': 0})
    >>> parse_dataset_name("my_data")
    ('my_data', {})
    """
    match = _NAME.match(name.strip())
    if match is None:
        raise ValueError(f"not a benchopt dataset name: {name!r}")
    params: dict[str, object] = {}
    for item in filter(None, (match["params"] or "").split(",")):
        key, sep, text = item.partition("=")
        if not sep:
            raise ValueError(f"parameter {item!r} of {name!r} has no '='")
        params[key.strip()] = _value(text.strip())
    return match["family"].strip(), params


def runs(results: pd.DataFrame) -> pd.DataFrame:
    """One row per run: when it first separated, and where its curve ended.

    Parameters
    ----------
    results : pandas.DataFrame
        benchopt's frame (:func:`read`).

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset`` (benchopt's name), ``family``, one column per dataset parameter
        (``n``, ``d``, ``rho``, ``seed``, ``norms``, ...; missing where a family has no such
        parameter), ``solver``, ``rep``, ``time_to_separate`` (the time of the curve's
        first point with ``objective_separated == 1``; NaN if none), ``separated`` (whether
        there is such a point), ``final_separated`` and ``final_min_margin``
        (``objective_separated`` and ``objective_min_margin`` at the curve's last point:
        the solver's own answer once it stopped or ran out of time), ``final_fraction``
        (``objective_fraction_separated`` there; NaN if the file has no such column),
        ``final_time`` and ``points``. Sorted by dataset, solver and repetition.
    """
    df = results.sort_values(["dataset_name", "solver_name", "idx_rep", "stop_val", "time"])
    rows = []
    for (dataset, solver, rep), curve in df.groupby(
        ["dataset_name", "solver_name", "idx_rep"], sort=False
    ):
        family, params = parse_dataset_name(str(dataset))
        hit = curve["time"][curve["objective_separated"] == 1]
        last = curve.iloc[-1]
        rows.append(
            {
                "dataset": dataset,
                "family": family,
                **params,
                "solver": solver,
                "rep": int(rep),
                "time_to_separate": float(hit.iloc[0]) if len(hit) else np.nan,
                "separated": bool(len(hit)),
                "final_separated": bool(last["objective_separated"] == 1),
                "final_min_margin": float(last["objective_min_margin"]),
                "final_fraction": float(last.get("objective_fraction_separated", np.nan)),
                "final_time": float(last["time"]),
                "points": len(curve),
            }
        )
    return pd.DataFrame(rows)


def _cell_keys(table: pd.DataFrame, by: Sequence[str] | None) -> list[str]:
    """The columns that define a cell: ``by``, or family and every unpooled parameter."""
    if by is not None:
        return list(by)
    fixed = {"dataset", "family", "solver", "rep", "time_to_separate", "separated"}
    fixed |= {"final_separated", "final_min_margin", "final_fraction", "final_time", "points"}
    return ["family"] + [c for c in table.columns if c not in fixed and c not in POOLED]


def _groups(table: pd.DataFrame, keys: list[str]):
    """``groupby`` over ``keys`` that keeps a cell whose key is missing for its family."""
    return table.groupby(keys, dropna=False, sort=True)


def summary(run_table: pd.DataFrame, by: Sequence[str] | None = None) -> pd.DataFrame:
    """Per cell and solver: runs, how many separated, and the median and range of times.

    Parameters
    ----------
    run_table : pandas.DataFrame
        The output of :func:`runs`.
    by : sequence of str, optional
        The columns that define a cell. Default: ``family`` and every dataset parameter
        except those of :data:`POOLED` (seed and dimension), so that a cell pools the
        instances that differ only in seed and dimension.

    Returns
    -------
    pandas.DataFrame
        One row per cell and solver: the cell's columns, ``solver``, ``runs``,
        ``separated`` (how many of the runs reached a separator), ``median``, ``min`` and
        ``max`` of ``time_to_separate`` over the runs that separated (NaN if none did),
        ``seeds`` and ``dims`` (how many distinct seeds and dimensions the cell holds).
    """
    keys = _cell_keys(run_table, by)
    rows = []
    for cell, group in _groups(run_table, keys):
        cell = cell if isinstance(cell, tuple) else (cell,)
        for solver, runs_ in group.groupby("solver", sort=True):
            times = runs_["time_to_separate"].dropna()
            rows.append(
                {
                    **dict(zip(keys, cell, strict=True)),
                    "solver": solver,
                    "runs": len(runs_),
                    "separated": int(runs_["separated"].sum()),
                    "median": float(times.median()) if len(times) else np.nan,
                    "min": float(times.min()) if len(times) else np.nan,
                    "max": float(times.max()) if len(times) else np.nan,
                    "seeds": _distinct(runs_, "seed"),
                    "dims": _distinct(runs_, "d"),
                }
            )
    return pd.DataFrame(rows)


def _distinct(table: pd.DataFrame, column: str) -> int:
    """How many distinct values ``column`` takes (1 if the family has no such parameter)."""
    if column not in table.columns:
        return 1
    return max(1, int(table[column].nunique()))


def winners(run_table: pd.DataFrame, by: Sequence[str] | None = None) -> pd.DataFrame:
    """Who wins each cell, and only where the runs decide it.

    The rule: the *candidates* of a cell are the solvers that separated in every one of
    their runs there. The *fastest* is the candidate with the smallest median time to a
    separator, the *runner-up* the next one. The cell is *decided* when the fastest was
    faster than every other candidate on every instance (dataset and repetition) that
    both ran; it is then the cell's ``winner``. Otherwise (a close race, or no
    candidate at all) ``winner`` is empty: a statement about the cell would not hold on
    all of its instances.

    Parameters
    ----------
    run_table : pandas.DataFrame
        The output of :func:`runs`.
    by : sequence of str, optional
        The columns that define a cell (see :func:`summary`).

    Returns
    -------
    pandas.DataFrame
        One row per cell: the cell's columns, ``instances`` (datasets times repetitions),
        ``seeds`` and ``dims`` (how many distinct seeds and dimensions it pools),
        ``candidates`` (how many solvers separated in every run), ``fastest``,
        ``runner_up`` (empty if none), ``ratio`` (the runner-up's median time over the
        fastest's), ``decided`` and ``winner`` (the fastest if decided, else empty).
    """
    keys = _cell_keys(run_table, by)
    rows = []
    for cell, group in _groups(run_table, keys):
        cell = cell if isinstance(cell, tuple) else (cell,)
        times = group.pivot_table(
            index=["dataset", "rep"],
            columns="solver",
            values="time_to_separate",
            aggfunc="first",
            dropna=False,
        )
        every = group.groupby("solver")["separated"].all()
        ranked = times[every[every].index].median().sort_values()
        fastest = str(ranked.index[0]) if len(ranked) else ""
        runner = str(ranked.index[1]) if len(ranked) > 1 else ""
        decided = bool(fastest) and all(
            bool((times[fastest] < times[other]).where(times[other].notna(), True).all())
            for other in ranked.index[1:]
        )
        rows.append(
            {
                **dict(zip(keys, cell, strict=True)),
                "instances": len(times),
                "seeds": _distinct(group, "seed"),
                "dims": _distinct(group, "d"),
                "candidates": len(ranked),
                "fastest": fastest,
                "runner_up": runner,
                "ratio": float(ranked.iloc[1] / ranked.iloc[0]) if runner else np.nan,
                "decided": decided,
                "winner": fastest if decided else "",
            }
        )
    return pd.DataFrame(rows)


def curves(results: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """The curves of one dataset: time, separated and normalised margin of each point.

    Parameters
    ----------
    results : pandas.DataFrame
        benchopt's frame (:func:`read`).
    dataset : str
        benchopt's dataset name, as in the ``dataset`` column of :func:`runs`.

    Returns
    -------
    pandas.DataFrame
        Columns ``solver``, ``rep``, ``budget`` (benchopt's ``stop_val``: the iteration
        cap of the call), ``time``, ``separated``, ``min_margin``, sorted by solver,
        repetition and budget. Each point is a call from scratch, so the time of a larger
        budget can be (slightly) smaller.
    """
    one = results[results["dataset_name"] == dataset]
    if one.empty:
        raise ValueError(f"no dataset {dataset!r} in these results")
    columns = {
        "solver_name": "solver",
        "idx_rep": "rep",
        "stop_val": "budget",
        "time": "time",
        "objective_separated": "separated",
        "objective_min_margin": "min_margin",
    }
    out = one[list(columns)].rename(columns=columns)
    return out.sort_values(["solver", "rep", "budget"]).reset_index(drop=True)


#: The environment columns benchopt records, and the names :func:`environment` gives them.
ENVIRONMENT = {
    "platform": "platform",
    "platform-architecture": "architecture",
    "system-processor": "processor",
    "system-cpus": "cpus",
    "system-ram (GB)": "ram_gb",
    "env-OMP_NUM_THREADS": "omp_threads",
    "version-numpy": "numpy",
    "version-scipy": "scipy",
}


def environment(results: pd.DataFrame) -> dict[str, object]:
    """The machine and library versions the results were measured with.

    Parameters
    ----------
    results : pandas.DataFrame
        benchopt's frame (:func:`read`).

    Returns
    -------
    dict
        The values of benchopt's environment columns (:data:`ENVIRONMENT`) under short
        names, each the single value of its column (a list of the distinct values if the
        file mixes machines; left out if the column is empty), plus ``first_run`` and
        ``last_run`` (dates of ``run_date``).
    """
    env: dict[str, object] = {}
    for column, name in ENVIRONMENT.items():
        if column in results.columns:
            values = results[column].dropna().unique().tolist()
            if values:  # a column benchopt left empty is not recorded
                env[name] = values[0] if len(values) == 1 else values
    if "run_date" in results.columns:
        dates = pd.to_datetime(results["run_date"])
        env["first_run"] = str(dates.min().date())
        env["last_run"] = str(dates.max().date())
    return env

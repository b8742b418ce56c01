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
* :func:`curves` and :func:`environment`: one dataset's curves, and the machine;
* :func:`table`: any of these tables in the words of a reader (solver names such as
  "Normalised Perceptron", families such as "planted RBF", headers in words, cells that
  may hold several lines), as HTML that fits the book's column;
* :func:`device_records` and :func:`device_table`: the GPU runs of the device benchmark,
  beside the CPU grid.
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
    "solver_label",
    "solver_labels",
    "solver_parameters",
    "family_label",
    "problem_label",
    "number_label",
    "table",
    "Table",
    "device_records",
    "device_table",
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
        parameter; integer parameters as pandas' nullable ``Int64``), ``solver``, ``rep``,
        ``time_to_separate`` (the time of the curve's first point with
        ``objective_separated == 1``; NaN if none), ``separated`` (whether there is such a
        point), ``final_separated`` and ``final_min_margin``
        (``objective_separated`` and ``objective_min_margin`` at the curve's last point:
        the solver's own answer once it stopped or ran out of time), ``final_fraction``
        (``objective_fraction_separated`` there; NaN if the file has no such column),
        ``final_time``, ``curve_time`` (the time of all the curve's calls: near benchopt's
        ``--timeout`` when the curve was cut by it, well below when the solver stopped by
        itself) and ``points``. Sorted by dataset, solver and repetition.
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
                "curve_time": float(curve["time"].sum()),
                "points": len(curve),
            }
        )
    table = pd.DataFrame(rows)
    for column in {key for row in rows for key in row} - set(_RUN_COLUMNS):
        if all(isinstance(row[column], int) for row in rows if column in row):  # n, d, seed
            table[column] = table[column].astype("Int64")  # integers, also beside a gap
    return table


#: The columns of :func:`runs` that are not dataset parameters.
_RUN_COLUMNS = (
    "dataset",
    "family",
    "solver",
    "rep",
    "time_to_separate",
    "separated",
    "final_separated",
    "final_min_margin",
    "final_fraction",
    "final_time",
    "curve_time",
    "points",
)


def _cell_keys(table: pd.DataFrame, by: Sequence[str] | None) -> list[str]:
    """The columns that define a cell: ``by``, or family and every unpooled parameter."""
    if by is not None:
        return list(by)
    return ["family"] + [c for c in table.columns if c not in _RUN_COLUMNS and c not in POOLED]


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


# ------------------------------------------------------------------ words for a reader
#: The names a reader knows for the benchmark's solvers (benchopt's names, without
#: their parameters, which :func:`solver_label` adds).
SOLVER_NAMES = {
    "kperc-perceptron": "Perceptron",
    "kperc-normalized-perceptron": "Normalised Perceptron",
    "kperc-nkp": "NKP",
    "kperc-snkp": "SNKP",
    "kperc-isnkpvn": "ISNKPVN",
    "sklearn-perceptron": "Perceptron (scikit-learn)",
    "sklearn-linearsvc": "LinearSVC",
    "sklearn-logisticregression": "LogisticRegression",
    "sklearn-sgdclassifier": "SGDClassifier",
    "sklearn-svc": "SVC",
}
#: The problem families in words; planted data come with unit or with spread norms.
FAMILY_NAMES = {
    "planted": "planted",
    "crowded": "crowded",
    "two_rays": "two rays",
    "planted_rbf": "planted RBF",
    "real": "real",
}
NORMS_NAMES = {"unit": "unit norms", "spread": "spread norms"}
#: Column and index names of the page's tables, in words.
COLUMN_NAMES = {
    "solver": "solver",
    "description": "what it runs",
    "parameters": "parameters",
    "family": "problems",
    "norms": "norms",
    "rho": "margin ρ",
    "n": "points n",
    "d": "dimension d",
    "seed": "seeds",
    "problem": "problem",
    "instances": "instances",
    "fastest": "fastest",
    "runner_up": "runner-up",
    "ratio": "ratio",
    "winner": "winner",
    "decided": "decided",
    "platform": "platform",
    "architecture": "architecture",
    "processor": "processor",
    "cpus": "CPU cores",
    "ram_gb": "memory (GB)",
    "omp_threads": "BLAS threads",
    "numpy": "numpy",
    "scipy": "scipy",
    "first_run": "first run",
    "last_run": "last run",
}
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def number_label(value: object) -> str:
    """A parameter's value as a reader writes it: powers of ten as ``10⁶``.

    Examples
    --------
    >>> number_label(1000000.0), number_label(0.001), number_label(20), number_label("unit")
    ('10⁶', '10⁻³', '20', 'unit')
    """
    if isinstance(value, (int, float, np.integer, np.floating)) and value > 0:
        exponent = float(np.log10(float(value)))
        if exponent == round(exponent) and abs(exponent) >= 2:
            return "10" + str(int(round(exponent))).translate(_SUPERSCRIPT)
        return f"{value:g}"
    return str(value)


#: The parameters a solver's name shows in the tables: those that change what it solves
#: (``SVC``'s ``C = 10⁶`` makes it a hard margin); the others are in its description.
SHOWN_PARAMS = {"sklearn-svc": ("C",)}


def solver_label(name: str, shown: tuple[str, ...] | None = None) -> str:
    """A solver's benchopt name in words, with the parameters of :data:`SHOWN_PARAMS`.

    Examples
    --------
    >>> solver_label("sklearn-svc[C=1000000.0]")
    'SVC (C = 10⁶)'
    >>> solver_label("kperc-normalized-perceptron"), solver_label("kperc-isnkpvn[eps=1e-06]")
    ('Normalised Perceptron', 'ISNKPVN')
    """
    base, params = parse_dataset_name(name)
    label = SOLVER_NAMES.get(base, base)
    keep = SHOWN_PARAMS.get(base, ()) if shown is None else shown
    params = {k: v for k, v in params.items() if k in keep}
    if params:
        label += " (" + ", ".join(f"{k} = {number_label(v)}" for k, v in params.items()) + ")"
    return label


def solver_labels(results: pd.DataFrame) -> dict[str, str]:
    """Each solver of a results file (benchopt's name without parameters) in words
    (:func:`solver_label`: ``{"sklearn-svc": "SVC (C = 10⁶)", ...}``)."""
    names = results["solver_name"].drop_duplicates()
    return {str(n).split("[", 1)[0]: solver_label(str(n)) for n in names}


def solver_parameters(name: str) -> str:
    """A solver's parameters in words (``"C = 10⁶, random_state = 0"``; empty if none)."""
    _, params = parse_dataset_name(name)
    return ", ".join(f"{k} = {number_label(v)}" for k, v in params.items())


def family_label(family: str, norms: object = "") -> str:
    """A problem family in words, with its norms.

    Examples
    --------
    >>> family_label("planted", "spread"), family_label("planted_rbf")
    ('planted, spread norms', 'planted RBF')
    """
    label = FAMILY_NAMES.get(family, family.replace("_", " "))
    if isinstance(norms, str) and norms:
        label += ", " + NORMS_NAMES.get(norms, f"{norms} norms")
    return label


def problem_label(problem: str) -> str:
    """A stored real problem in words (``"digits_3_vs_8-rbf"``: ``"digits 3 vs 8, RBF"``)."""
    data, _, kernel = problem.partition("-")
    kernel = {"rbf": "RBF", "poly": "polynomial", "linear": "linear"}.get(kernel, kernel)
    return data.replace("_", " ") + (f", {kernel}" if kernel else "")


class Table:
    """A table for a reader: HTML in the book, aligned text elsewhere.

    A cell's value may hold line breaks (``"0.23 s\\n(0.18–0.3)"``): the book shows its
    lines one below the other, so that a wide cell becomes a narrow one. Headers and
    cells wrap between words, never inside a number or a name.
    """

    def __init__(self, frame: pd.DataFrame):
        self.frame = frame

    def __repr__(self) -> str:
        return self.frame.map(lambda v: " ".join(str(v).split("\n"))).to_string()

    def _repr_html_(self) -> str:
        import html

        def token(word: str) -> str:
            # a range such as "0.18–0.3" or a count "6/6" is one word: no break at "–", "/"
            text = html.escape(word)
            return (
                f'<span class="kperc-nowrap">{text}</span>'
                if any(c in word for c in "–-/")
                else text
            )

        def cell(value: object) -> str:
            lines = str(value).split("\n")
            return "<br>".join(" ".join(token(w) for w in line.split(" ")) for line in lines)

        frame = self.frame.map(cell)
        frame.index = frame.index.map(
            (lambda k: tuple(cell(v) for v in k)) if frame.index.nlevels > 1 else cell
        )
        frame.index.names = [cell(n) if n is not None else None for n in frame.index.names]
        frame.columns = frame.columns.map(cell)
        return frame.to_html(escape=False, classes="kperc-table", border=0)


def table(
    frame: pd.DataFrame,
    labels: dict[str, str] | None = None,
    columns: dict[str, str] | None = None,
) -> Table:
    """``frame`` with the words of a reader, as a :class:`Table`.

    Parameters
    ----------
    frame : pandas.DataFrame
        A table of the page: index levels and columns named as in :func:`runs` and
        :func:`winners` (``solver``, ``family``, ``norms``, ``rho``, ``runner_up``, ...).
    labels : dict, optional
        Solver names in words (:func:`solver_labels`); solvers are then shown by these
        labels, in the index, in the columns and in the cells of ``fastest``,
        ``runner_up`` and ``winner``. Default: :data:`SOLVER_NAMES`.
    columns : dict, optional
        More names of columns or index levels in words, over :data:`COLUMN_NAMES`.

    Returns
    -------
    Table
        Family and norms joined into one label (``"planted, spread norms"``), margins as
        powers of ten, headers in words.
    """
    labels = {**SOLVER_NAMES, **(labels or {})}
    names = {**COLUMN_NAMES, **(columns or {})}
    out = frame.copy()
    solver_columns = [c for c in ("solver", "fastest", "runner_up", "winner") if c in out]
    for c in solver_columns:
        out[c] = out[c].map(lambda s: labels.get(s, s) if isinstance(s, str) else s)
    index = out.index.to_frame(index=False) if out.index.names[0] is not None else None
    if index is not None:
        if "family" in index:
            norms = index.pop("norms") if "norms" in index else pd.Series([""] * len(index))
            index["family"] = [
                family_label(f, m) for f, m in zip(index["family"], norms, strict=True)
            ]
        if "solver" in index:
            index["solver"] = index["solver"].map(lambda s: labels.get(s, s))
        if "rho" in index:
            index["rho"] = index["rho"].map(number_label)
        if "problem" in index:
            index["problem"] = index["problem"].map(problem_label)
        out.index = (
            pd.MultiIndex.from_frame(index)
            if index.shape[1] > 1
            else pd.Index(index.iloc[:, 0], name=index.columns[0])
        )
        out.index.names = [names.get(n, n) for n in out.index.names]
    if out.columns.nlevels == 1:
        if out.columns.name == "solver":
            out.columns = out.columns.map(lambda s: labels.get(s, s))
        elif out.columns.name == "problem":
            out.columns = out.columns.map(problem_label)
        name = out.columns.name
        out.columns = pd.Index([names.get(c, c) for c in out.columns], name=names.get(name, name))
    return Table(out)


# ------------------------------------------------------------------------- GPU runs
#: The keys of a device record: the JSON file that ``make bench-device`` (``bench/device.py``)
#: writes to ``book/_generated/device/`` when it runs on a CUDA GPU.
DEVICE_KEYS = ("device", "date", "sizes", "steps")
#: Its steps, in the order it runs them, in words: (what ran, where, the problem's margin).
DEVICE_STEPS = {
    "gv": ("one product G v (float32)", "GPU", "1e-3"),
    "snkp": ("SNKP, exact kernel, end to end", "GPU", "1e-3"),
    "clf": ("SNKPClassifier(device=...)", "GPU", "1e-3"),
    "svc": ("SVC (C = 10⁶)", "CPUs", "1e-3"),
    "fly": ("SNKP, kernel computed on the fly", "GPU", "1e-2"),
    "svc_fly": ("SVC (C = 10⁶)", "CPUs", "1e-2"),
}


def device_records(folder: str | Path) -> list[dict[str, object]]:
    """The GPU runs recorded in ``folder``: one JSON file per run of ``make bench-device``.

    Each file holds ``device`` (the accelerator, such as ``"NVIDIA H200"``), ``date``,
    ``sizes`` (``n`` and ``n_fly``, the points of the problems) and ``steps``: per step of
    :data:`DEVICE_STEPS` that ran, its ``status`` (``"done"`` or ``"budget reached"``)
    and what it measured (seconds, the outcome and whether it is certified, the bandwidth
    of the product).

    Parameters
    ----------
    folder : str or pathlib.Path
        The folder of the records; it may be missing (no GPU run has been made).

    Returns
    -------
    list of dict
        The records, by file name, each with its ``file`` added; empty if there are none.

    Raises
    ------
    ValueError
        If a file lacks a key of :data:`DEVICE_KEYS`, or names a step that is not one of
        :data:`DEVICE_STEPS`.
    """
    import json

    records = []
    for path in sorted(Path(folder).glob("*.json")):
        record = json.loads(path.read_text())
        missing = [k for k in DEVICE_KEYS if k not in record]
        if missing:
            raise ValueError(f"the device record {path.name} has no {missing}")
        unknown = sorted(set(record["steps"]) - set(DEVICE_STEPS))
        if unknown:
            raise ValueError(f"the device record {path.name} has unknown steps {unknown}")
        records.append({**record, "file": path.name})
    return records


def device_table(record: dict[str, object]) -> Table:
    """One GPU record as a table: per step, what ran, where, on which problem (planted RBF,
    ``d = 8``), the result and the seconds it took."""
    sizes: dict = record["sizes"]  # type: ignore[assignment]
    rows = []
    for step, entry in record["steps"].items():  # type: ignore[attr-defined]
        what, where, rho = DEVICE_STEPS[step]
        if where == "GPU" and str(record["device"]).startswith("cpu"):
            where = "CPU (torch)"  # the script's own check on a machine without a GPU
        n = sizes["n_fly"] if step in ("fly", "svc_fly") else sizes["n"]
        if entry.get("status") == "budget reached":
            result = "stopped at its time budget"
        elif step == "gv":
            result = f"{entry['bandwidth_GBps']:.0f} GB/s"
        elif step.startswith("svc"):
            result = f"{entry['train_errors']} training errors"
        else:
            result = "certified separator" if entry.get("certified") else str(entry["outcome"])
            result += f", {entry['nit']} iterations" if "nit" in entry else ""
        seconds = next(
            (entry[k] for k in ("seconds", "fit_s", "gv_s") if k in entry), entry.get("budget_s")
        )
        rows.append(
            {
                "what ran": what,
                "where": where,
                "problem": f"n = {number_label(n)}, ρ = {number_label(float(rho))}",
                "result": result,
                "seconds": _two_digits(float(seconds)),
            }
        )
    return Table(pd.DataFrame(rows).set_index("what ran"))


def _two_digits(x: float) -> str:
    return "" if np.isnan(x) else f"{x:.2g}"

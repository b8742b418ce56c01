"""Run the book's benchopt grid and publish its result file, or refuse to.

    python benchmark_kperc/book_results.py            # what `make benchopt` runs

runs ``benchopt run benchmark_kperc --config benchmark_kperc/book.yml`` on one worker with
the BLAS libraries pinned to one thread, into a temporary folder. The committed file
(``book/_generated/benchopt/book.parquet``) is replaced, atomically, only when the run
exited 0, its results hold every (dataset, solver) pair that the configuration asks
for, and every value lies in its column's domain (:data:`DOMAINS`): a failed, empty,
partial or corrupt run leaves the committed record as it was.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CONFIG = BENCH / "book.yml"
DEST = ROOT / "book" / "_generated" / "benchopt" / "book.parquet"
#: One BLAS thread: the timings are those of one core (benchopt records OMP_NUM_THREADS
#: itself; the publisher adds the two others, and the versions of kperc and scikit-learn,
#: to the result file).
THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _base(name: str) -> str:
    return name.split("[", 1)[0]


def expected_pairs(config: Path = CONFIG, bench_dir: Path = BENCH) -> set[tuple[str, str]]:
    """The (dataset name, solver name without parameters) pairs the configuration asks
    for: every dataset it selects, with every selected solver that does not skip it (the
    solvers' own ``skip``, on the dataset's own data)."""
    from benchopt.benchmark import Benchmark

    options = yaml.safe_load(config.read_text()) or {}
    if not options.get("dataset"):
        # benchopt would take an empty selection as "every dataset": another grid
        raise ValueError(f"{config} must list its datasets (key 'dataset'); it lists none.")
    bench = Benchmark(bench_dir, no_cache=True)
    datasets = bench.check_dataset_patterns(options.get("dataset"))
    solvers = bench.check_solver_patterns(options.get("solver") or [])
    solver_list = list(_instances(solvers))
    pairs = set()
    for dataset in _instances(datasets, required=True):
        data = dataset.get_data()
        for solver in solver_list:
            if not solver.skip(**data)[0]:
                pairs.add((str(dataset), _base(str(solver))))
    return pairs


def _instances(selected, required: bool = False):
    """One instance per combination of parameter values that benchopt runs, for each
    (class, parameters) pair of ``selected`` (the configuration's values replace the
    class's defaults; the benchmark's classes have no comma-joined parameter names).
    A class that is not installed is left out, or refused when ``required``."""
    import itertools

    for klass, params in selected:
        if not klass.is_installed():
            if required:
                raise RuntimeError(f"{klass.name} is not installed")
            continue
        grid = {
            k: list(v) if isinstance(v, (list, tuple)) else [v]
            for k, v in {**klass.parameters, **params}.items()
        }
        for values in itertools.product(*grid.values()):
            yield klass.get_instance(**dict(zip(grid, values, strict=True)))


#: Rounding allowance on the normalised margin's upper bound of 1. It is a ratio of sums
#: of at most a few thousand float64 terms (relative error about ``n u``, 1e-13 at the
#: grid's largest ``n = 2000``); ``sqrt(eps)`` lies far above that and far below any real
#: violation.
MARGIN_SLACK = math.sqrt(float(np.finfo(np.float64).eps))


def _time_ok(v: pd.Series) -> pd.Series:
    return np.isfinite(v) & (v >= 0)


def _separated_ok(v: pd.Series) -> pd.Series:
    return v.isin([0, 1])


def _fraction_ok(v: pd.Series) -> pd.Series:
    return (v >= 0) & (v <= 1)


def _margin_ok(v: pd.Series) -> pd.Series:
    # NaN is the objective's value for an answer that is not finite (a diverged solver);
    # the objective then also records separated = 0 (checked by the rule on NaN below)
    return v.isna() | (np.isfinite(v) & (v <= 1 + MARGIN_SLACK))


#: Each column of the objective and its domain: (column, the test of a value, the domain
#: in words). The normalised margin ``min_i y_i f(x_i) / (||f|| ||phi(x_i)||)`` is at
#: most 1 by Cauchy-Schwarz (with an intercept too, as soon as both classes are present);
#: below, an intercept (``SVC``'s) lets it fall under -1, so no lower bound holds.
DOMAINS = (
    ("time", _time_ok, "a finite number of seconds, at least 0"),
    ("stop_val", _time_ok, "a finite iteration budget, at least 0"),
    ("objective_separated", _separated_ok, "0 or 1"),
    ("objective_fraction_separated", _fraction_ok, "a fraction in [0, 1]"),
    ("objective_min_margin", _margin_ok, "a finite normalised margin of at most 1, or NaN"),
)


def _shown(value: object) -> str:
    """A value as a reader writes it: ``7``, ``-0.5``, ``inf``, ``nan``, or its repr."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return repr(value)
    return str(int(x)) if math.isfinite(x) and x.is_integer() else str(x)


def _pair(row: pd.Series) -> str:
    return f"dataset {row['dataset_name']} and solver {row['solver_name']}"


def problems(df: pd.DataFrame, expected: set[tuple[str, str]]) -> list[str]:
    """What makes ``df`` unfit to replace the committed results (empty: nothing).

    Each problem is one sentence: a (dataset, solver) pair missing or not asked for, a
    column missing, or the first value outside its column's domain (:data:`DOMAINS`),
    naming the column, the dataset and the solver.
    """
    if len(df) == 0:
        return ["the result file has no rows"]
    missing_columns = [c for c, _, _ in DOMAINS if c not in df]
    if missing_columns or "dataset_name" not in df or "solver_name" not in df:
        return [f"the result file has no column {', '.join(missing_columns) or 'dataset_name'}"]
    found = set(zip(df["dataset_name"], df["solver_name"].map(_base), strict=True))
    out = []
    missing = sorted(expected - found)
    if missing:
        out.append(
            f"{len(missing)} (dataset, solver) pairs of the config have no result, "
            f"for example {missing[:3]}"
        )
    extra = sorted(found - expected)
    if extra:
        out.append(f"{len(extra)} pairs are not in the config, for example {extra[:3]}")
    for column, ok, domain in DOMAINS:
        values = pd.to_numeric(df[column], errors="coerce")
        bad = df[~ok(values) | (values.isna() & df[column].notna())]
        if len(bad):
            row = bad.iloc[0]
            out.append(
                f"column {column} holds {_shown(row[column])} (it must be {domain}) for "
                f"{_pair(row)}, in {len(bad)} row(s)"
            )
    margin = pd.to_numeric(df["objective_min_margin"], errors="coerce")
    nan_but_separated = df[margin.isna() & (df["objective_separated"] == 1)]
    if len(nan_but_separated):
        out.append(
            "column objective_min_margin is NaN where objective_separated is 1 for "
            f"{_pair(nan_but_separated.iloc[0])}, in {len(nan_but_separated)} row(s)"
        )
    scored = margin.notna().groupby([df["dataset_name"], df["solver_name"]]).any()
    unscored = scored[~scored].index.tolist()
    if unscored:
        dataset, solver = unscored[0]
        out.append(
            f"column objective_min_margin has no finite value for dataset {dataset} and "
            f"solver {solver} (none of its answers was scored; {len(unscored)} such pair(s))"
        )
    return out


def publish(result: Path, expected: set[tuple[str, str]], dest: Path = DEST) -> None:
    """Replace ``dest`` by ``result`` (with the BLAS settings added), atomically, or raise
    ``RuntimeError`` and leave ``dest`` untouched."""
    df = pd.read_parquet(result)
    bad = problems(df, expected)
    if bad:
        raise RuntimeError(f"not publishing {result}: " + "; ".join(bad))
    for name, value in THREADS.items():
        df[f"env-{name}"] = value
    # benchopt records numpy's and scipy's versions; the solvers' libraries count as much
    for name in ("kperc", "scikit-learn"):
        df[f"version-{name}"] = metadata.version(name)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".tmp")
    df.to_parquet(tmp, index=False)
    os.replace(tmp, dest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--dest", type=Path, default=DEST)
    args = parser.parse_args(argv)
    expected = expected_pairs(args.config)
    if not expected:
        print(f"{args.config} selects nothing: nothing run, nothing written", file=sys.stderr)
        return 1
    env = {**os.environ, **THREADS}
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "book.parquet"
        cmd = [sys.executable, "-m", "benchopt", "run", str(BENCH), "--config", str(args.config)]
        proc = subprocess.run([*cmd, "--output", str(result)], cwd=ROOT, env=env)
        if proc.returncode != 0 or not result.exists():
            print(f"benchopt failed (exit {proc.returncode}): {args.dest} kept", file=sys.stderr)
            return 1
        try:
            publish(result, expected, args.dest)
        except RuntimeError as err:
            print(f"{err}: {args.dest} kept", file=sys.stderr)
            return 1
    print(f"published {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

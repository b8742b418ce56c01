"""Run the book's benchopt grid and publish its result file, or refuse to.

    python benchmark_kperc/book_results.py            # what `make benchopt` runs

runs ``benchopt run benchmark_kperc --config benchmark_kperc/book.yml`` on one worker with
the BLAS libraries pinned to one thread, into a temporary folder. The committed file
(``book/_generated/benchopt/book.parquet``) is replaced, atomically, only when the run
exited 0 and its results hold every (dataset, solver) pair that the configuration asks
for: a failed, empty or partial run leaves the committed record as it was.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

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
    from benchopt.benchmark import Benchmark, _list_parametrized_classes

    options = yaml.safe_load(config.read_text()) or {}
    if not options.get("dataset"):
        # benchopt would take an empty selection as "every dataset": another grid
        raise ValueError(f"{config} must list its datasets (key 'dataset'); it lists none.")
    bench = Benchmark(bench_dir, no_cache=True)
    datasets = bench.check_dataset_patterns(options.get("dataset"))
    solvers = bench.check_solver_patterns(options.get("solver") or [])
    solver_list = [s for s, ok in _list_parametrized_classes(*solvers) if ok]
    pairs = set()
    for dataset, ok in _list_parametrized_classes(*datasets):
        if not ok:
            raise RuntimeError(f"dataset {dataset} is not installed")
        data = dataset.get_data()
        for solver in solver_list:
            if not solver.skip(**data)[0]:
                pairs.add((str(dataset), _base(str(solver))))
    return pairs


def problems(df: pd.DataFrame, expected: set[tuple[str, str]]) -> list[str]:
    """What makes ``df`` unfit to replace the committed results (empty: nothing)."""
    if len(df) == 0:
        return ["the result file has no rows"]
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
    for column in ("time", "stop_val", "objective_separated", "objective_min_margin"):
        if column not in df or df[column].isna().all():
            out.append(f"column {column} is missing or empty")
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

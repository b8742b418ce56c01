"""``python -m bench.run [GROUP ...]``: run the micro-benchmarks, one BLAS thread, and
publish each group's pytest-benchmark JSON to ``book/_generated/micro/<group>.json``.

A group's file is replaced only by a complete, passing run: pytest exited 0, its JSON
lists at least one benchmark, each with its statistics, and every benchmark of the
committed file (by name) is still there. Anything else (a failure, no test collected, a
``-k`` selection that leaves rows out) leaves the committed file as it is and exits 1;
the run's JSON stays in the build folder for a look. Extra arguments after ``--`` go to
pytest (``python -m bench.run classifier -- -k iris``: a partial selection, refused for
publishing when it would drop rows of the committed file).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from kperc_book import paths

GROUPS = ("periter", "fixedcost", "classifier", "realdata", "svm", "separable")
#: One BLAS thread for every library that reads these (OpenBLAS, MKL, OpenMP, BLIS).
ONE_THREAD = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "BLIS_NUM_THREADS": "1",
}


#: A benchmark's time of each round is kept up to this many rounds (the chapters' timings:
#: 21 and 7); beyond, only its statistics (pytest-benchmark calibrates hundreds).
RAW_ROUNDS_KEPT = 25


class Refused(RuntimeError):
    """A run that must not replace the committed file."""


def micro_dir(root: Path | str | None = None) -> Path:
    """Where the committed results are: ``book/_generated/micro/``."""
    return paths.generated_dir(root) / "micro"


def publish(result: Path, dest: Path, returncode: int) -> None:
    """Write ``result`` (a pytest-benchmark JSON) to ``dest`` if the run was complete.

    The times of each round are dropped for benchmarks of more than
    :data:`RAW_ROUNDS_KEPT` rounds (their statistics stay).

    Raises
    ------
    Refused
        When pytest failed (``returncode != 0``), the JSON is missing, unreadable or
        lists no benchmark, a benchmark has no statistics, or a benchmark of ``dest``
        is missing from it. ``dest`` is then left as it is.
    """
    if returncode != 0:
        raise Refused(f"pytest exited {returncode}: {dest.name} left as it is")
    try:
        new = json.loads(result.read_text())
        rows = new["benchmarks"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise Refused(f"no readable result ({exc}): {dest.name} left as it is") from exc
    if not rows:
        raise Refused(f"the run measured nothing: {dest.name} left as it is")
    unmeasured = [b.get("name") for b in rows if not (b.get("stats") or {}).get("rounds")]
    if unmeasured:
        raise Refused(f"no statistics for {unmeasured[:3]}: {dest.name} left as it is")
    if dest.exists():
        old = {b["name"] for b in json.loads(dest.read_text())["benchmarks"]}
        lost = sorted(old - {b["name"] for b in rows})
        if lost:
            raise Refused(
                f"the run lacks {len(lost)} benchmark(s) of {dest.name} ({', '.join(lost[:3])}"
                f"{', ...' if len(lost) > 3 else ''}): left as it is (delete the file first "
                "to drop benchmarks on purpose)"
            )
    for b in rows:  # hundreds of calibrated rounds: their statistics are kept, not each one
        if b["stats"]["rounds"] > RAW_ROUNDS_KEPT:
            b["stats"].pop("data", None)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    tmp.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, dest)


def run_group(group: str, pytest_args: list[str], out_dir: Path, work: Path, root: Path) -> int:
    """Run one group's benchmarks; publish its JSON if complete. Returns 0 or 1."""
    work.mkdir(parents=True, exist_ok=True)
    result = work / f"{group}.json"
    result.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "pytest", str(Path("bench") / f"test_{group}.py")]
    cmd += ["--benchmark-only", f"--benchmark-json={result}", "-p", "no:cacheprovider", "-q"]
    cmd += ["--benchmark-sort=name", *pytest_args]
    proc = subprocess.run(cmd, cwd=root, env={**os.environ, **ONE_THREAD})
    try:
        publish(result, out_dir / f"{group}.json", proc.returncode)
    except Refused as exc:
        print(f"bench.run {group}: REFUSED: {exc}", file=sys.stderr)
        return 1
    print(f"bench.run {group}: wrote {group}.json")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    parser.add_argument("groups", nargs="*", metavar="GROUP", help=f"of {', '.join(GROUPS)}")
    parser.add_argument("--out-dir", type=Path, help="default: book/_generated/micro")
    parser.add_argument("--work-dir", type=Path, help="the runs' own JSON; default: _build/micro")
    args = parser.parse_args(argv)
    unknown = [g for g in args.groups if g not in GROUPS]
    if unknown:  # an empty name (an unset shell variable) included: never "every group"
        parser.error(f"unknown group(s) {unknown}; choose from {', '.join(GROUPS)}")
    root = paths.ROOT
    out_dir = args.out_dir if args.out_dir is not None else micro_dir(root)
    work = args.work_dir if args.work_dir is not None else paths.build_dir(root) / "micro"
    status = 0
    for group in args.groups or GROUPS:
        status |= run_group(group, extra, out_dir, work, root)
    return status


if __name__ == "__main__":
    sys.exit(main())

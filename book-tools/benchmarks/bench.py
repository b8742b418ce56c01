"""Benchmark harness: ``python -m benchmarks.bench``.

Speed is a measured, published property of the book. This module measures it in one
process, side by side, with medians over repeats, and writes one JSON file (default
``book/_generated/bench.json``) that the appendix page ``book/benchmarks.ipynb``
reads. The notebook never times anything itself, so the book regenerates
byte-identically.

Suites (``--suite``, default all):

``periter``
    Time per iteration of NKP, NVN, SNKP and SNKPVN divided by the time of one product
    ``G @ v`` with the same ``G``, for a dense ``G`` and for the factored linear
    operator (:class:`kperc.GramOperator`). Each algorithm runs a fixed number of
    iterations on an instance where it does not halt
    (:func:`benchmarks._problems.periter_problem`), with
    ``check_input=False``; the setup is removed by differencing two run lengths.
``floor``
    The fixed cost of SNKP's iteration apart from its product with ``G`` (the floor of
    the per-iteration ratio), step by step, with NumPy and with numexpr (when
    installed), at ``n = 2000``, ``d = 50`` on the factored operator.
``fixedcost``
    The fixed cost of one call of SNKP, NKP, NVN and ISNKPVN before its first iteration,
    in products ``G @ v``, at ``n = 2000`` and ``4000``: on a plain dense ``G`` (validated
    at every call) and on a :class:`kperc.ValidatedGram` (validated once); target: at
    most 20 products.
``classifier``
    ``SNKPClassifier`` against scikit-learn's ``SVC`` and ``LinearSVC`` on the bundled
    binary tasks and five ISLP data sets (read from the pinned ISLP wheel, downloaded once
    with pip); target: a fit at most twice as long as scikit-learn's.
``separator``
    Time to a separator on planted hard instances (half the points near the margin),
    margins ``1e-1`` to ``1e-4``: SNKP and NKP on dense ``G`` and on the factored
    operator, kperc's Perceptron and scikit-learn's Perceptron on the data. Runs
    longer than a cap are stopped and reported as lower bounds. The crossover margin
    below which SNKP beats NKP is located for every ``n``.
``kernels``
    The real kernel problems of :data:`kperc_book.data.PROBLEMS`: NKP, SNKP and
    scikit-learn's SVC (libsvm, hard margin through a large ``C``, precomputed kernel).
``large``
    The factored operator at ``n`` up to ``10^6`` with ``d = 50``, ``rho = 1e-3``:
    SNKP against NKP (capped) and scikit-learn's Perceptron.
``certificates``
    NVN and ISNKPVN to ``eps = 1e-6`` on infeasible instances against
    ``min ||p||_G`` over the simplex solved by Clarabel through CVXPY.
``dist``
    The exact distance to the witness set, :func:`kperc.dist_to_witness`, at ``n`` up to
    1000 on three families of infeasible problems, two linear and one RBF (target: 1 s
    at ``n = 1000``).
``nystroem``
    ``SNKPClassifier(kernel="rbf", n_components="auto")`` fitted end to end on planted RBF
    problems at ``n = 10^5`` and ``10^6`` (Nystroem features), in a subprocess that also
    measures the fit's peak memory against the ``n x m`` features.
``memory``
    Peak resident memory, measured in a subprocess, against the size of ``G``.
``realdata``
    Chapter 4's wall times: SNKP and NKP on the real kernel problems (writes
    ``book/_generated/timings/ch04-realdata.json``, which the chapter reads).
``svm``
    Chapter 7's wall times: SNKP, NKP, SVC and the exact margin on the book's problems
    (writes ``book/_generated/timings/ch07-svm.json``).
``regen``
    Chapter regeneration times from ``_build/reproduce/runs.json`` (written by
    ``python -m kperc_book.reproduce``) and, with ``--build``, the time of
    ``jupyter-book build``.

Compared commands are measured interleaved (round robin,
:func:`benchmarks._timing.round_robin`), and repeated measurements are reported as
medians with their spread (:func:`benchmarks._timing.summarize`).
The 1-minute load average is recorded before and after every suite; a suite measured
while other processes kept the machine busy is flagged ``busy`` (the rule is in
:mod:`benchmarks._machine`) and its targets are left undecided.

``--quick`` runs every suite at tiny sizes in seconds (the smoke test of the test
suite). BLAS runs single-threaded by default (``--blas-threads``): on a shared 2-core
machine a multi-threaded matrix-vector product waits for busy cores and becomes up to
100 times slower, which would measure the machine's load rather than the algorithms.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchmarks._config import DEFAULT_OUT, default_config, quick_config
from benchmarks._driver import run
from benchmarks.record import display_path, load_record, merge, write_json
from benchmarks.report import format_table
from benchmarks.suites import SUITES
from kperc_book import paths as _paths

__all__ = ["main"]


def _parse_ints(s: str) -> tuple[int, ...]:
    return tuple(int(float(x)) for x in s.split(",") if x.strip())


def _parse_floats(s: str) -> tuple[float, ...]:
    return tuple(float(x) for x in s.split(",") if x.strip())


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.bench [--quick] [--suite S,...] [--sizes ...] [--out PATH]``."""
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.bench",
        description="Measure kperc's speed; write JSON and a table.",
    )
    ap.add_argument("--quick", action="store_true", help="smoke run at tiny sizes (seconds)")
    ap.add_argument(
        "--suite",
        default="all",
        help=f"comma-separated subset of {','.join(SUITES)} (default: all)",
    )
    ap.add_argument("--sizes", help="n for the per-iteration and separator suites")
    ap.add_argument("--rhos", help="planted margins of the separator suite")
    ap.add_argument("--large-ns", help="n of the large factored-operator suite")
    ap.add_argument("--cert-sizes", help="n of the certificate suite")
    ap.add_argument("--memory-n", type=int, help="n of the memory suite")
    ap.add_argument("--repeats", type=int, help="repeats per measurement (medians)")
    ap.add_argument("--cap", type=float, help="longest single run, seconds")
    ap.add_argument("--blas-threads", type=int, help="BLAS threads (default 1; 0: leave)")
    ap.add_argument("--build", action="store_true", help="also time `jupyter-book build`")
    ap.add_argument(
        "--out", default=str(DEFAULT_OUT), help="output JSON (default: book/_generated/bench.json)"
    )
    ap.add_argument(
        "--timings-dir",
        help="folder of the chapters' timing files written by the realdata and svm suites "
        "(default: book/_generated/timings; with --quick: a timings/ folder beside --out)",
    )
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    ap.add_argument(
        "--merge", action="store_true", help="keep the other suites of an existing output file"
    )
    args = ap.parse_args(argv)
    _paths.require_checkout()
    over: dict[str, Any] = {}
    if args.suite != "all":
        over["suites"] = tuple(s.strip() for s in args.suite.split(",") if s.strip())
        if not over["suites"]:  # an unset shell variable: never an empty record
            ap.error(
                f"--suite {args.suite!r} names no suite; choose from {','.join(SUITES)} "
                "(nothing was measured or written)"
            )
    if args.sizes:
        over["sizes"] = _parse_ints(args.sizes)
    if args.rhos:
        over["rhos"] = tuple(sorted(_parse_floats(args.rhos), reverse=True))
    if args.large_ns:
        over["large_ns"] = _parse_ints(args.large_ns)
    if args.cert_sizes:
        over["cert_sizes"] = _parse_ints(args.cert_sizes)
    if args.memory_n:
        over["memory_n"] = args.memory_n
    if args.repeats:
        over["repeats"] = args.repeats
    if args.cap:
        over["cap_s"] = args.cap
    if args.blas_threads is not None:
        over["blas_threads"] = args.blas_threads or None
    if args.build:
        over["build"] = True
    out = Path(args.out)
    if args.timings_dir:
        over["timings_dir"] = str(Path(args.timings_dir))
    elif args.quick:  # a smoke run never overwrites the chapters' timing files
        over["timings_dir"] = str(out.parent / _paths.TIMINGS_DIR.name)
    unknown = set(over.get("suites", ())) - set(SUITES)
    if unknown:
        ap.error(
            f"--suite: unknown suite(s) {', '.join(sorted(unknown))}; "
            f"choose from {','.join(SUITES)}"
        )
    # a selection never erases what was recorded: a partial run keeps the other suites
    # only with --merge, and a smoke run never replaces the book's record
    partial = set(over.get("suites", SUITES)) != set(SUITES)
    if out.exists() and partial and not args.merge:
        ap.error(
            f"--suite {args.suite} measures only part of {display_path(out)}, whose other "
            "suites would be lost: add --merge to keep them, or --out to write elsewhere "
            "(nothing was measured or written)"
        )
    if args.quick and out.resolve() == Path(DEFAULT_OUT).resolve():
        ap.error(
            f"--quick would replace the measurements of {display_path(out)} by a smoke "
            "run: give --out a scratch file (nothing was measured or written)"
        )
    cfg = quick_config(**over) if args.quick else default_config(**over)
    argv_used = sys.argv[1:] if argv is None else list(argv)
    shown = []
    skip = False
    for i, a in enumerate(argv_used):  # never record machine paths
        if skip:
            skip = False
            continue
        if a in ("--out", "--timings-dir") and i + 1 < len(argv_used):
            shown += [a, display_path(Path(argv_used[i + 1]))]
            skip = True
        elif a.startswith(("--out=", "--timings-dir=")):
            opt, _, val = a.partition("=")
            shown.append(f"{opt}={display_path(Path(val))}")
        else:
            shown.append(a)
    command = " ".join(["python -m benchmarks.bench", *shown])
    log = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))
    record = run(cfg, log=log, command=command)
    record["settings_by_suite"] = {k: record["settings"] for k in record["suites"]}
    if args.merge and out.exists():
        record = merge(load_record(out), record)
    write_json(out, record)
    print(format_table(record))
    print(f"wrote {display_path(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

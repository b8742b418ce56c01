"""The command ``python -m benchmarks.peers``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchmarks.peers.config import (
    DEFAULT_OUT,
    FAMILIES_OUT,
    default_config,
    families_config,
    families_quick_config,
    quick_config,
)
from benchmarks.peers.markdown import peers_markdown
from benchmarks.peers.measure import merge_family, run
from benchmarks.record import display_path, load_record, write_json


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.peers [--families] [--quick] [--cap SECONDS] [--family F]
    [--out PATH]``."""
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.peers",
        description="Time to a separator: kperc against scikit-learn, on the same instances.",
    )
    ap.add_argument("--quick", action="store_true", help="tiny sizes (well under a minute)")
    ap.add_argument(
        "--families",
        action="store_true",
        help="the by-family comparison (every kperc algorithm; default out "
        "book/_generated/families.json)",
    )
    ap.add_argument("--cap", type=float, help="hard cap of one run, seconds (default 20)")
    ap.add_argument("--out", help="output JSON (default book/_generated/peers.json)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    ap.add_argument(
        "--family",
        choices=("linear", "rbf"),
        help="run only this family and merge its rows into the record at --out (which must "
        "exist); the other family's rows are kept",
    )
    args = ap.parse_args(argv)
    over: dict[str, Any] = {}
    if args.cap is not None:
        if not args.cap > 0:
            ap.error(f"--cap must be a positive number of seconds; got {args.cap}")
        over["cap_s"] = args.cap
    if args.families and args.family:
        ap.error("--family re-runs one family of the first comparison; not with --families")
    if args.families:
        cfg = families_quick_config(**over) if args.quick else families_config(**over)
        default_out = FAMILIES_OUT
    else:
        if args.family:  # the other family gets no sizes, so it is not run
            over["linear_ns" if args.family == "rbf" else "rbf_ns"] = ()
        cfg = quick_config(**over) if args.quick else default_config(**over)
        default_out = DEFAULT_OUT
    out = Path(args.out) if args.out else default_out
    if args.quick and out.resolve() == default_out.resolve():  # never erase the record
        ap.error(
            f"--quick would replace the measurements of {display_path(out)} by a smoke "
            "run: give --out a scratch file (nothing was measured or written)"
        )
    if args.family and not out.exists():
        ap.error(f"--family {args.family} merges into --out, but {out} does not exist")
    shown = ["python -m benchmarks.peers"]
    if args.families:
        shown.append("--families")
    if args.quick:
        shown.append("--quick")
    if args.cap is not None:
        shown.append(f"--cap {args.cap:g}")
    if args.family:
        shown.append(f"--family {args.family}")
    if args.out and out != default_out:
        shown.append(f"--out {display_path(out)}")
    log = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))
    record = run(cfg, log=log, command=" ".join(shown))
    if args.family:
        record = merge_family(load_record(out), record, args.family)
    write_json(out, record)
    if args.families:
        from benchmarks.page import families_tables_markdown, which_algorithm_markdown

        print(which_algorithm_markdown(record) + "\n\n" + families_tables_markdown(record))
    else:
        print(peers_markdown(record))
    print(
        f"elapsed {record['elapsed_s']:.0f} s; load average {record['loadavg_1min_before']} -> "
        f"{record['loadavg_1min_after']}{' (busy)' if record['busy'] else ''}"
    )
    print(f"wrote {display_path(out)}")
    return 0

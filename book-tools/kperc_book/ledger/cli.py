"""``python -m kperc_book.ledger``: print the ledger table and its gaps."""

from __future__ import annotations

import argparse

from .. import paths as _paths
from .assemble import collect, problems
from .render import table_markdown

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """``python -m kperc_book.ledger [--strict]``: print the ledger table and its gaps."""
    ap = argparse.ArgumentParser(prog="python -m kperc_book.ledger", description=main.__doc__)
    ap.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 if a result lacks a passing check or a test",
    )
    args = ap.parse_args(argv)
    _paths.require_checkout()
    rows = collect()
    print(table_markdown(rows), end="")
    gaps = problems(rows)
    for msg in gaps:
        print("GAP", msg)
    print(f"{sum(r.ok for r in rows)} of {len(rows)} results checked and guarded by a test")
    return 1 if (args.strict and gaps) else 0

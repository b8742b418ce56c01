"""Render the ledger rows as the MyST markdown the ledger page glues."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..paths import BOOK_DIR
from .assemble import Row
from .chapters import chapter_notebooks
from .registry import ORIGINS

__all__ = ["table_markdown", "details_markdown"]


def _doc(ch: str, notebooks: Mapping[str, Path]) -> str:
    return f"{{doc}}`{ch} <{notebooks[ch].stem}>`" if ch in notebooks else ch


def _cell(text: str) -> str:
    """Make MyST text safe inside a pipe-table cell.

    A ``|`` would end the cell, even inside math, so the norm bars of LaTeX become
    ``\\Vert`` and ``\\vert`` (there are no pipes outside math in the book's tables).
    """
    return text.replace(r"\|", r"\Vert ").replace("|", r"\vert ").replace("\n", " ")


def _test_link(nodeid: str) -> str:
    path, _, name = nodeid.partition("::")
    path = path.rsplit("/", 1)[-1]
    return f"`{name}` ({path})" if name else f"`{path}`"


def _status(row: Row) -> str:
    if not row.checks:
        status = "**missing**"
    elif all(c.get("ok") for c in row.checks.values()):
        inst = [c.get("instances") for c in row.checks.values()]
        total = sum(i for i in inst if isinstance(i, int))
        status = "ok" + (f"<br>{total} instances" if total else "")
    else:
        status = "**FAILED**"
    if row.checks and not row.tests:
        status += "<br>**untested**"
    return status


def table_markdown(rows: Iterable[Row], *, book_dir: Path | str = BOOK_DIR) -> str:
    """The ledger as a MyST pipe table (one row per result), narrow enough for the page.

    Four columns: the status first, then the result (its name, a link to the statement
    and where it comes from), the statement with its explicit constant on a second line,
    and the chapters that check it with the guarding tests in a collapsed block.
    """
    notebooks = chapter_notebooks(book_dir)
    lines = [
        "| status | result | statement and explicit constant | checked in, guarded by |",
        "|---|---|---|---|",
    ]
    for row in rows:
        res = row.result
        name = f"**{res.name}**" + (f", {row.stated.link('statement')}" if row.stated else "")
        name += f"<br>*{ORIGINS.get(res.status, res.status)}*"
        where = []
        for ch, lab in row.where.items():
            if lab is not None:
                # prf blocks whose title is math render an empty default link text, and
                # a section's title as link text shows its math as raw LaTeX: name the kind
                if lab.kind.startswith("prf:"):
                    text: str | None = lab.kind[4:]
                else:
                    text = "section" if lab.kind == "target" else None
                where.append(f"{_doc(ch, notebooks)} ({lab.link(text)})")
            else:
                where.append(_doc(ch, notebooks))
        checked = "<br>".join(where) if where else "not checked yet"
        if row.tests:
            n = len(row.tests)
            checked += (
                f"<details><summary>{n} test{'s' if n > 1 else ''}</summary>"
                + "<br>".join(_test_link(t) for t in row.tests)
                + "</details>"
            )
        else:
            checked += "<br>no guarding test"
        statement = f"{res.statement}<br>Constant: {res.constant}"
        lines.append(
            "| " + " | ".join(_cell(x) for x in (_status(row), name, statement, checked)) + " |"
        )
    return "\n".join(lines) + "\n"


def details_markdown(rows: Iterable[Row], *, book_dir: Path | str = BOOK_DIR) -> str:
    """What each recorded check verified, as a MyST definition list."""
    notebooks = chapter_notebooks(book_dir)
    out = []
    for row in rows:
        out.append(f"{row.result.name} (`{row.rid}`)")
        if not row.checks:
            out.append(": not checked by any chapter yet\n")
            continue
        for ch, rec in row.checks.items():
            state = "ok" if rec.get("ok") else "FAILED"
            inst = rec.get("instances")
            more = f", {inst} instances" if inst else ""
            detail = str(rec.get("detail", "")).replace("`", "'")
            out.append(f": {_doc(ch, notebooks)} ({state}{more}): {detail}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"

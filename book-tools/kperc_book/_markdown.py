"""Markdown (MyST) pipe tables of the book, built in one place.

* :func:`table_lines` / :func:`table`: a header, its rule and one line per row;
* :func:`text_cell`: plain text made safe inside a cell (``|`` escaped);
* :func:`math_cell`: MyST text with LaTeX norm bars made safe inside a cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["table_lines", "table", "text_cell", "math_cell"]

_RULES = {"l": "---", "r": "---:"}


def table_lines(
    header: Sequence[Any], rows: Iterable[Sequence[Any]], *, align: str | None = None
) -> list[str]:
    """The lines of a pipe table: header, rule, then one line per row.

    Cells are written as given (escape them with :func:`text_cell` or :func:`math_cell`).

    Parameters
    ----------
    header : sequence
        The column titles.
    rows : iterable of sequences
        The cells of each row.
    align : str, optional
        One letter per column, ``l`` (default) or ``r`` (right-aligned numbers).

    Examples
    --------
    >>> print("\\n".join(table_lines(["n", "time"], [[10, "1 ms"]], align="lr")))
    | n | time |
    |---|---:|
    | 10 | 1 ms |
    """
    header = list(header)
    align = align or "l" * len(header)
    if len(align) != len(header) or set(align) - set(_RULES):
        raise ValueError(f"align must be one l or r per column; got {align!r}")
    lines = [_line(header), "|" + "".join(_RULES[a] + "|" for a in align)]
    lines += [_line(row) for row in rows]
    return lines


def table(header: Sequence[Any], rows: Iterable[Sequence[Any]], *, align: str | None = None) -> str:
    """:func:`table_lines` joined by newlines (no newline after the last row)."""
    return "\n".join(table_lines(header, rows, align=align))


def _line(cells: Sequence[Any]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def text_cell(text: Any) -> str:
    """Plain text safe inside a table cell: ``|`` escaped, newlines made spaces.

    Examples
    --------
    >>> text_cell("a|b\\nc")
    'a\\\\|b c'
    """
    return str(text).replace("|", "\\|").replace("\n", " ")


def math_cell(text: str) -> str:
    """MyST text safe inside a table cell, LaTeX included.

    A ``|`` would end the cell, even inside math, so the norm bars of LaTeX become
    ``\\Vert`` and ``\\vert`` (the book's tables have no pipes outside math).

    Examples
    --------
    >>> print(math_cell(r"$\\|x\\|_2 \\le |y|$"))
    $\\Vert x\\Vert _2 \\le \\vert y\\vert $
    """
    return text.replace(r"\|", r"\Vert ").replace("|", r"\vert ").replace("\n", " ")

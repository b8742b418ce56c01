"""The one Markdown-table helper of the book (``kperc_book._markdown``)."""

from __future__ import annotations

import doctest

import pytest

from kperc_book import _markdown, paths
from kperc_book._markdown import math_cell, table, table_lines, text_cell


@pytest.mark.parametrize("module", [_markdown, paths])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_a_table_has_a_header_a_rule_and_its_rows():
    assert table(["a", "b"], [[1, 2], ["x", ""]]) == "| a | b |\n|---|---|\n| 1 | 2 |\n| x |  |"
    assert table_lines(["p", "n", "t"], [], align="lrr") == ["| p | n | t |", "|---|---:|---:|"]


@pytest.mark.parametrize("align", ["l", "lrx", "lcr"])
def test_an_alignment_is_one_l_or_r_per_column(align):
    with pytest.raises(ValueError, match="one l or r per column"):
        table_lines(["a", "b", "c"], [], align=align)


def test_cells_keep_a_pipe_from_ending_them():
    assert text_cell("a|b\nc") == "a\\|b c"
    assert math_cell(r"$\|w\| \ge |y|$") == r"$\Vert w\Vert  \ge \vert y\vert $"

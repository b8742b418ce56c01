"""No command erases a committed record on an empty, partial or wrong selection.

An unset shell variable turns ``reproduce "$CHAPTER"`` into ``reproduce ""``: the command
refuses it with one line and a non-zero exit, before it runs or writes anything. (The
benchmark's result file is published by ``make benchopt`` only when the run holds the
whole grid; ``tests/book/test_benchopt.py`` covers it.)
"""

from __future__ import annotations

import pytest

from kperc_book import paths


@pytest.mark.parametrize("chapters", [[""], ["nosuch"], ["ch01", ""]])
def test_reproduce_refuses_an_empty_or_unknown_chapter(capsys, chapters):
    from kperc_book import reproduce

    before = {p: p.read_bytes() for p in paths.generated_dir().glob("*.json")}
    assert reproduce.main(chapters) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown chapter") and err.count("\n") == 1, err
    assert {p: p.read_bytes() for p in paths.generated_dir().glob("*.json")} == before

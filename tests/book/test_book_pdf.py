"""The PDF of the book (``make pdf``) numbers its chapters as the HTML book does.

Reads the table of contents that LaTeX wrote next to the PDF
(``_build/latex/kperc-book.toc``). Without a PDF build the test skips; with
``KPERC_REQUIRE_PDF=1`` a missing build is a failure.

In the HTML book only the paper's part is numbered (1-7, as the prose's "Chapter 4");
LaTeX numbers every chapter unless told otherwise, so ``_config.yml`` gives it a
preamble that leaves the first part unnumbered, restarts at 1 for the paper's part and
letters the back matter (A, B, ...).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
TARGET = Path(CONFIG["latex"]["latex_documents"]["targetname"]).stem
LATEX_TOC = ROOT / "_build" / "latex" / f"{TARGET}.toc"

#: \contentsline {chapter}{\numberline {4}Title}{page}... or without \numberline
_ENTRY = re.compile(r"\\contentsline \{(part|chapter)\}\{(?:\\numberline \{([^}]*)\})?(.*?)\}\{")


def _entries() -> list[tuple[str, str | None, str]]:
    if not LATEX_TOC.is_file():
        msg = f"{LATEX_TOC} is missing: build the PDF first (make pdf)"
        if os.environ.get("KPERC_REQUIRE_PDF") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    text = LATEX_TOC.read_text(encoding="utf-8", errors="replace")
    return [(m.group(1), m.group(2), m.group(3)) for m in _ENTRY.finditer(text)]


def test_pdf_chapters_are_numbered_as_in_the_html():
    entries = _entries()
    parts = TOC["parts"]
    # group chapter entries by the part that precedes them
    groups: list[list[str | None]] = []
    for kind, number, _title in entries:
        if kind == "part":
            groups.append([])
        elif groups:
            groups[-1].append(number)
    assert len(groups) == len(parts), f"{len(groups)} parts in the PDF, {len(parts)} in _toc.yml"
    # Sphinx appends its generated chapters (bibliography, indices) unnumbered at the end
    extra = groups[-1][len(parts[-1]["chapters"]) :]
    assert extra == [None] * len(extra), "the generated chapters at the end are unnumbered"
    groups[-1] = groups[-1][: len(parts[-1]["chapters"])]
    appendix = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    seen_numbered = False
    for part, numbers in zip(parts, groups, strict=True):
        assert len(numbers) == len(part["chapters"]), part["caption"]
        if part.get("numbered"):
            assert numbers == [str(k) for k in range(1, len(numbers) + 1)], part["caption"]
            seen_numbered = True
        elif not seen_numbered:
            assert numbers == [None] * len(numbers), f"{part['caption']} must be unnumbered"
        else:
            assert numbers == [next(appendix) for _ in numbers], f"{part['caption']}: A, B, ..."

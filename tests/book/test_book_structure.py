"""What a lecture book has: numbered chapters that match the prose, and a landing page.

Static checks of ``_toc.yml``, ``_config.yml`` and ``book/index.md`` (the browser test
checks the built pages). Chapters are numbered only in the part that follows the paper
section by section, so the sidebar's "4." is the file ``ch04_*`` and the prose's
"Chapter 4"; figures, exercises and numbered proofs are numbered per chapter
(``numfig``, "Fig. 4.2").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
INDEX = (ROOT / "book" / "index.md").read_text(encoding="utf-8")
ALGORITHMS = ("NKP", "SNKP", "NVN", "SNKPVN", "ISNKPVN")


def _numbered_files() -> list[str]:
    return [c["file"] for p in TOC["parts"] if p.get("numbered") for c in p["chapters"]]


def _prose(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def test_only_the_papers_chapters_are_numbered_in_order():
    numbered = [p for p in TOC["parts"] if p.get("numbered")]
    assert len(numbered) == 1, "exactly one part (the paper's sections) is numbered"
    files = _numbered_files()
    assert files, "the numbered part has chapters"
    for k, f in enumerate(files, start=1):
        assert re.fullmatch(rf"book/ch{k:02d}_[a-z0-9_]+", f), (
            f"chapter {k} of the sidebar is {f}: its file must start with ch{k:02d}_"
        )
    unnumbered = [c["file"] for p in TOC["parts"] if not p.get("numbered") for c in p["chapters"]]
    assert not [f for f in unnumbered if re.match(r"book/ch\d\d_", f)], (
        "every chNN chapter is in the numbered part"
    )


def test_figures_and_exercises_are_numbered_per_chapter():
    sphinx = CONFIG["sphinx"]["config"]
    assert sphinx.get("numfig") is True
    # Sphinx's default numfig_secnum_depth is 1: "Fig. 4.2" within Chapter 4
    assert sphinx.get("numfig_secnum_depth", 1) == 1


def test_prose_chapter_numbers_exist():
    """Every "Chapter N" / "Chapters N and M" of the prose names a numbered chapter."""
    n = len(_numbered_files())
    bad = []
    for path in sorted((ROOT / "book").glob("*.ipynb")) + sorted((ROOT / "book").glob("*.md")):
        for m in re.finditer(r"\bChapters? ((?:\d+(?:,\s*|\s+and\s+|\s*-\s*)?)+)", _prose(path)):
            for num in re.findall(r"\d+", m.group(1)):
                if not 1 <= int(num) <= n:
                    bad.append(f"{path.name}: {m.group(0)!r}")
    assert not bad, f"chapter numbers beyond 1..{n}: {bad}"


def test_landing_page_defines_the_algorithm_names():
    """Each abbreviation is a definition-list term of the landing page."""
    for name in ALGORITHMS:
        assert re.search(rf"^{name}\n: \S", INDEX, re.M), f"index.md does not define {name}"


def test_landing_page_links_proof_index_and_no_missing_pdf():
    assert "<prf-prf>" in INDEX, "the landing page links sphinx-proof's index (prf-prf)"
    # the PDF link is added by kperc_book.pdf's Sphinx extension only when the PDF exists
    # (test_book_pdf.py checks it in the built book): a plain build links no missing file
    assert "kperc-book.pdf" not in INDEX


def test_footer_licence_and_favicon():
    html = CONFIG["html"]
    assert "CC BY 4.0" in html["extra_footer"]
    assert "BSD 3-Clause" in html["extra_footer"]
    assert (ROOT / html["favicon"]).is_file()


def test_makefile_pdf_target_builds_the_linked_file():
    """`make` prints the PDF without TeX (kperc_book.pdf), then builds the HTML book, whose
    pages link the PDFs that exist."""
    make = (ROOT / "Makefile").read_text()
    assert re.search(r"^all:.* pdf html$", make, re.M)
    assert re.search(r"^pdf:", make, re.M)
    assert "--builder singlehtml" in make and "-m kperc_book.pdf" in make
    assert "pdflatex" not in make and "texlive" not in make


def test_every_chapter_that_checks_results_ends_with_its_check_summary():
    """A reader finds a chapter's checks in one collapsible block, its last code cell."""
    from kperc_book import _notebooks as nbu
    from kperc_book.ledger.chapters import check_cells

    checked = 0
    for path in nbu.toc_notebooks():
        nb = json.loads(path.read_text())
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        last = "".join(code[-1]["source"]).strip() if code else ""
        if check_cells(path):
            checked += 1
            assert last == "ch.summary()", f"{path.name} ends with {last!r}"
            assert "remove-input" in code[-1].get("metadata", {}).get("tags", [])
        else:
            assert "ch.summary()" not in last, f"{path.name} has no checks to summarise"
    assert checked >= 6


def test_every_parameters_cell_is_folded_away():
    """A reader meets the chapter's ideas first; its papermill parameters sit folded."""
    from kperc_book import _notebooks as nbu

    for path in nbu.toc_notebooks():
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            tags = cell.get("metadata", {}).get("tags", [])
            if "parameters" in tags:
                assert "hide-input" in tags, f"{path.name}: the parameters cell is shown"


#: Inline TeX between dollars, as a glued Markdown value would show it untypeset.
_TEX = re.compile(r"\$[^$\s][^$\n]*?[^$\s\\]\$|\$[^$\s]\$")


def test_glued_markdown_holds_no_tex():
    """A value glued as Markdown (``{glue:md}``) is not typeset: TeX in it reaches the
    reader as source (``$G$``, ``$2 \\times 10^{10}$``). Glued text uses Unicode."""
    from kperc_book import _notebooks as nbu

    found = []
    for path in nbu.toc_notebooks():
        cells = json.loads(path.read_text())["cells"]
        prose = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        # a glue:md directive with ':format: myst' is parsed as MyST, math included
        myst = set(re.findall(r"```\{glue:md\}\s+(\S+)\s*\n:format:\s*myst", prose))
        for cell in cells:
            for out in cell.get("outputs", []):
                # a glued Markdown value (a displayed Markdown output is typeset)
                text = out.get("data", {}).get("application/papermill.record/text/markdown")
                text = "".join(text) if isinstance(text, list) else text or ""
                name = out.get("metadata", {}).get("scrapbook", {}).get("name", "?")
                if name not in myst:
                    found += [f"{path.name}: {name}: {m.group(0)!r}" for m in _TEX.finditer(text)]
    assert not found, "\n".join(found)

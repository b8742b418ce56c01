"""The PDF of the book (``make pdf``, part of ``make``) as a reader uses it.

The PDF is the single-page HTML build printed by Chromium (no TeX, see
:mod:`kperc_book.pdf`). The tests check that it holds every page of the book; that its
bookmarks name every page and every section of ``_toc.yml``'s pages (read from the
pages' sources, so that the chapters' text is never written here); that it opens with a
table of contents whose page numbers are those of the bookmarks; that every page prints
its number, which is also its page label; that no line, code included, runs past the
text width (word boxes of ``pdftotext -bbox``); that every page of the book has its own
PDF with its bookmarks and the book's page numbers, linked from its HTML page; and that
the landing page links the whole book.

Its text is read with ``pdftotext`` (Debian's poppler-utils, installed by ``make test``)
and its structure with pypdf. Without a PDF build the tests skip; with
``KPERC_REQUIRE_PDF=1`` (``make test``) a missing build or a missing ``pdftotext`` is a
failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from kperc_book import _notebooks as nbu
from kperc_book import paths
from kperc_book import pdf as book_pdf

pytestmark = pytest.mark.browser

PDF = paths.build_dir() / "html" / "kperc-book.pdf"
PAGE_PDFS = paths.build_dir() / "html" / "pdf"
MANIFEST = paths.build_dir() / "pdf" / book_pdf.MANIFEST
LANDING = paths.build_dir() / "html" / "book" / "index.html"
#: A4 is 210 mm wide; the text runs between the page margins of kperc_book.pdf.
MM = 72 / 25.4


def _unavailable(msg: str):
    if os.environ.get("KPERC_REQUIRE_PDF") == "1":
        pytest.fail(msg)
    pytest.skip(msg)


def _words(text: str) -> str:
    """Letters and digits only, lower case: how a title must reappear in the PDF's text
    (which drops hyphens at line ends and spaces in math)."""
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def _markdown(path: Path) -> str:
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        return "\n".join(nbu._source(c) for c in nb.cells if c.cell_type == "markdown")
    return path.read_text()


def _headings(text: str) -> list[tuple[int, str]]:
    """The ``#`` and ``##`` headings of a page's MyST source, outside code fences."""
    out, fence = [], None
    for line in text.splitlines():
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if m:
            mark = m.group(1)[0] * len(m.group(1))
            if fence is None:
                fence = mark
            elif line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
                fence = None
            continue
        m = re.match(r"^(#{1,2}) (.+?)\s*$", line)
        if fence is None and m:
            out.append((len(m.group(1)), m.group(2)))
    return out


def page_titles(root: Path = paths.ROOT) -> dict[str, str]:
    """The first heading of every page of ``_toc.yml``, with its math left out."""
    titles = {}
    for entry, path in nbu.toc_pages(root):
        if path is None:
            continue
        heads = [t for level, t in _headings(_markdown(path)) if level == 1]
        assert heads, f"{entry} has no title"
        titles[entry] = re.sub(r"\$[^$]*\$", " ", heads[0])
    return titles


def page_sections(root: Path = paths.ROOT) -> dict[str, list[tuple[int, str]]]:
    """Every page of ``_toc.yml``: its title (level 1) and its sections (level 2)."""
    return {
        entry: _headings(_markdown(path)) for entry, path in nbu.toc_pages(root) if path is not None
    }


def _matches(source_title: str, bookmark: str) -> bool:
    """Whether a bookmark names the heading: each piece of the heading's text between
    its formulas appears in the bookmark, in order (a bookmark shows a formula as text
    and a section's number before the title)."""
    pieces = [_words(p) for p in re.split(r"\$[^$]*\$|\{[^}]*\}`[^`]*`", source_title)]
    where = _words(bookmark)
    at = 0
    for piece in filter(None, pieces):
        at = where.find(piece, at)
        if at < 0:
            return False
        at += len(piece)
    return True


def _reader(path: Path = PDF):
    if not path.is_file():
        _unavailable(f"{path} is missing: build it first (make pdf)")
    pypdf = pytest.importorskip("pypdf")
    return pypdf.PdfReader(path)


def _pdftotext(*args: str) -> str:
    if shutil.which("pdftotext") is None:
        _unavailable("pdftotext is missing: apt-get install poppler-utils (make test does)")
    return subprocess.run(["pdftotext", *args], capture_output=True, text=True, check=True).stdout


def test_every_page_has_a_title_to_look_for():
    titles = page_titles()
    assert len(titles) >= 10 and all(len(_words(t)) >= 5 for t in titles.values()), titles


def test_the_pdf_holds_every_page_of_the_book():
    if not PDF.is_file():
        _unavailable(f"{PDF} is missing: build it first (make pdf)")
    text = _pdftotext(str(PDF), "-")
    found = _words(text)
    missing = [e for e, t in page_titles().items() if _words(t) not in found]
    assert not missing, f"pages missing from the PDF: {missing}"
    assert "\\(" not in text and "\\[" not in text, "math left unrendered (MathJax did not run)"


def test_the_landing_page_links_the_pdf():
    if not LANDING.is_file():
        _unavailable(f"{LANDING} is missing: build the book first (make html)")
    links = re.findall(r'href="([^"]*kperc-book\.pdf)"', LANDING.read_text())
    assert links, "the landing page does not link the PDF"
    for href in links:
        assert (LANDING.parent / href).resolve() == PDF.resolve()
    assert PDF.is_file() or os.environ.get("KPERC_REQUIRE_PDF") != "1"


def test_the_pdf_has_a_bookmark_for_every_page_and_section():
    """Each page of the book is a top-level bookmark, in the order of ``_toc.yml``, and
    each of its sections a bookmark below it."""
    marks = book_pdf.outline(_reader())
    tops = [(t, page) for depth, t, page in marks if depth == 1]
    sections = page_sections()
    assert len(tops) == len(sections), [t for t, _ in tops]
    missing = []
    for (entry, heads), (top, _) in zip(sections.items(), tops, strict=True):
        assert _matches(heads[0][1], top), (entry, heads[0][1], top)
        below = [t for depth, t, _ in marks if depth == 2]
        missing += [
            f"{entry}: {t}"
            for level, t in heads[1:]
            if level == 2 and not any(_matches(t, b) for b in below)
        ]
    assert not missing, "sections without a bookmark:\n" + "\n".join(missing)
    pages = [page for _, page in tops]
    assert pages == sorted(pages) and len(set(pages)) == len(pages), "pages out of order"


def test_the_pdf_has_page_numbers_and_a_table_of_contents():
    """Every page prints its number at its foot, which is also its page label; the table
    of contents after the title gives each page of the book with the page of its bookmark."""
    reader = _reader()
    n = len(reader.pages)
    assert list(reader.page_labels) == [str(k) for k in range(1, n + 1)]
    sheets = _pdftotext("-layout", str(PDF), "-").split("\f")[:n]
    feet = [next((ln.strip() for ln in reversed(s.splitlines()) if ln.strip()), "") for s in sheets]
    wrong = [(k, foot) for k, foot in enumerate(feet, start=1) if foot != str(k)]
    assert not wrong, f"pages whose foot is not their number (page, foot): {wrong[:5]}"
    marks = book_pdf.outline(reader)
    first_page = min(page for depth, _, page in marks if depth == 1 and page > 0)
    contents = _words(" ".join(sheets[:first_page]))
    assert "contents" in contents
    for depth, title, page in marks:
        if depth == 1 and page > 0:
            assert _words(title) + str(page + 1) in contents, (title, page + 1)


def test_no_line_of_the_pdf_runs_past_the_text_width():
    """Every word, of code and printed output too, lies between the page's margins:
    code that was cut off at the right edge (or hidden behind a scrollbar) would run on
    past the right margin in the PDF's text."""
    reader = _reader()
    width = float(reader.pages[0].mediabox.width)
    left = float(book_pdf.MARGIN["left"].removesuffix("mm")) * MM
    right = width - float(book_pdf.MARGIN["right"].removesuffix("mm")) * MM
    box = re.compile(
        r'<page width="([\d.]+)"|<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)"[^>]*>([^<]*)<'
    )
    page, past = 0, []
    for m in box.finditer(_pdftotext("-bbox", str(PDF), "-")):
        if m.group(1):
            page += 1
            continue
        x0, x1 = float(m.group(2)), float(m.group(3))
        # Chromium lays the page out in whole CSS pixels (0.75 pt): the page's width and
        # its 15 mm margin (56.7 px) are each rounded, so text may start or end up to two
        # pixels, 1.5 pt, outside the nominal margin (measured: 0.8 pt). Code cut off
        # in a scrolling box runs on to the box's edge, 2.8 pt past the margin (measured
        # on a chapter printed without the print stylesheet's wrapping), or beyond.
        if x1 > right + 1.5 or x0 < left - 1.5:
            past.append(f"page {page}: {m.group(4)!r} at x = {x0:.1f}..{x1:.1f}")
    assert not past, (
        f"{len(past)} words outside the text width {left:.1f}..{right:.1f} pt: "
        + "; ".join(past[:8])
    )


def test_every_page_of_the_book_has_its_own_pdf_linked_from_its_page():
    """Per page of the book: a PDF of its pages of the book, with the book's page numbers
    as labels and its title as first bookmark, next to the HTML book, and a link to it
    on the page."""
    if not MANIFEST.is_file():
        _unavailable(f"{MANIFEST} is missing: build the PDF first (make pdf)")
    import json

    manifest = json.loads(MANIFEST.read_text())
    titles = page_titles()
    docs = {e: p for e, p in nbu.toc_pages(paths.ROOT) if p is not None}
    assert set(manifest["pages"]) == {
        str(p.relative_to(paths.ROOT).with_suffix("")) for p in docs.values()
    } - {"book/index"}
    for doc, entry in manifest["pages"].items():
        reader = _reader(PAGE_PDFS / entry["file"])
        first, last = entry["pages"]
        assert len(reader.pages) == last - first + 1
        assert list(reader.page_labels) == [str(k) for k in range(first, last + 1)]
        top = book_pdf.outline(reader)[0]
        (title,) = [t for e, t in titles.items() if e == doc]
        assert top[0] == 1 and top[2] == 0 and _matches(title, top[1]), (doc, top)
        html = paths.build_dir() / "html" / f"{doc}.html"
        if html.is_file():
            links = re.findall(r'href="([^"]*\.pdf)"', html.read_text())
            assert f"../pdf/{entry['file']}" in links, (doc, links)


def test_pdf_links_appear_only_for_pdfs_that_exist(tmp_path, monkeypatch):
    """The Sphinx extension links the PDFs of the manifest only when they all exist: a
    plain build with no PDF has no PDF link."""
    from docutils import frontend, nodes, utils
    from docutils.parsers.rst import Parser

    def doctree():
        settings = frontend.get_default_settings(Parser)
        doc = utils.new_document("page", settings)
        section = nodes.section()
        section += nodes.title("", "A page")
        section += nodes.paragraph("", "Text.")
        doc += section
        return doc

    class App:
        class builder:
            name = "html"

        class config:
            root_doc = "book/index"

    monkeypatch.setattr(book_pdf, "_pdf_folder", lambda: tmp_path)
    tree = doctree()
    book_pdf._link(App, tree, "book/ch01_introduction")
    assert not list(tree.findall(nodes.reference))  # no manifest, no link
    import json

    manifest = {
        "book": {"file": "kperc-book.pdf", "pages": [1, 9]},
        "pages": {"book/ch01_introduction": {"file": "ch01.pdf", "title": "A", "pages": [3, 5]}},
    }
    (tmp_path / book_pdf.MANIFEST).write_text(json.dumps(manifest))
    (tmp_path / "kperc-book.pdf").write_bytes(b"%PDF")
    book_pdf._link(App, tree, "book/ch01_introduction")
    assert not list(tree.findall(nodes.reference))  # a file of the manifest is missing
    (tmp_path / "ch01.pdf").write_bytes(b"%PDF")
    book_pdf._link(App, tree, "book/ch01_introduction")
    (ref,) = tree.findall(nodes.reference)
    assert ref["refuri"] == "../pdf/ch01.pdf" and "pages 3–5" in ref.astext()
    landing = doctree()
    book_pdf._link(App, landing, "book/index")
    (ref,) = landing.findall(nodes.reference)
    assert ref["refuri"] == "../kperc-book.pdf"

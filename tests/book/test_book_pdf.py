"""The PDF of the book (``make pdf``, part of ``make``) holds every page of the book,
and the landing page of the HTML book links it.

The PDF is the single-page HTML build printed by Chromium (no TeX). Its text is read
with ``pdftotext`` (Debian's poppler-utils, installed by ``make test``). Without a PDF
build the tests skip; with ``KPERC_REQUIRE_PDF=1`` (``make test``) a missing build or a
missing ``pdftotext`` is a failure.
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

pytestmark = pytest.mark.browser

PDF = paths.build_dir() / "html" / "kperc-book.pdf"
LANDING = paths.build_dir() / "html" / "book" / "index.html"


def _unavailable(msg: str):
    if os.environ.get("KPERC_REQUIRE_PDF") == "1":
        pytest.fail(msg)
    pytest.skip(msg)


def _words(text: str) -> str:
    """Letters and digits only, lower case: how a title must reappear in the PDF's text
    (which drops hyphens at line ends and spaces in math)."""
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def page_titles(root: Path = paths.ROOT) -> dict[str, str]:
    """The first heading of every page of ``_toc.yml``, with its math left out."""
    titles = {}
    for entry, path in nbu.toc_pages(root):
        if path is None:
            continue
        if path.suffix == ".ipynb":
            nb = nbformat.read(path, as_version=4)
            text = "\n".join(nbu._source(c) for c in nb.cells if c.cell_type == "markdown")
        else:
            text = path.read_text()
        m = re.search(r"^# (.+)$", text, re.M)
        assert m, f"{entry} has no title"
        titles[entry] = re.sub(r"\$[^$]*\$", " ", m.group(1))
    return titles


def test_every_page_has_a_title_to_look_for():
    titles = page_titles()
    assert len(titles) >= 10 and all(len(_words(t)) >= 5 for t in titles.values()), titles


def test_the_pdf_holds_every_page_of_the_book():
    if not PDF.is_file():
        _unavailable(f"{PDF} is missing: build it first (make pdf)")
    if shutil.which("pdftotext") is None:
        _unavailable("pdftotext is missing: apt-get install poppler-utils (make test does)")
    text = subprocess.run(
        ["pdftotext", str(PDF), "-"], capture_output=True, text=True, check=True
    ).stdout
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

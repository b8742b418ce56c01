"""The book as PDF: the single-page HTML build printed by Chromium, without TeX.

    python -m kperc_book.pdf          # what `make pdf` runs after the singlehtml build

prints ``_build/singlehtml/book/index.html`` with Playwright's ``page.pdf()`` and Debian's
Chromium into ``_build/pdf/``:

* ``kperc-book.pdf``, the whole book: bookmarks for every page, section and subsection
  (Chromium's outline of the tagged PDF), a table of contents with page numbers and links
  after the title, a page number in every footer, and page labels that read as those
  numbers (pypdf). Every page of the book starts on a new PDF page; code wraps at the
  text width (``_static/kperc-print.css``).
* one PDF per page of the book (``ch01_introduction.pdf``, ...): its pages of the whole
  book, with their bookmarks and the book's page numbers;
* ``pdfs.json``: which file holds which page of the book, with its title and pages.

The Sphinx extension of this module (``kperc_book.pdf`` in ``_config.yml``) links those
files from the HTML book: the landing page the whole book, each page its own PDF. It
links only the files that exist when the HTML is built, and copies them next to it, so a
plain ``jupyter-book build .`` without ``make pdf`` has no PDF link at all.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import io
import json
import re
import shutil
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from . import paths

__all__ = ["outline", "print_book", "served", "split_book", "setup"]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run"]
#: The file of the whole book, and the folder of the HTML book's PDFs (relative to it).
BOOK_PDF = "kperc-book.pdf"
MANIFEST = "pdfs.json"
#: Page margins of the PDF (CSS lengths); the test of the PDF reads the text width
#: from them: A4 is 210 mm wide.
MARGIN = {"top": "16mm", "bottom": "18mm", "left": "15mm", "right": "15mm"}
FOOTER = (
    '<div style="width:100%;font-size:9px;text-align:center;color:#333;'
    'font-family:sans-serif"><span class="pageNumber"></span></div>'
)

#: Run in the printed page before printing: each page of the book starts with the
#: heading level it has on its own (singlehtml nests every page below the landing page,
#: as h3, h4, ...), so that the bookmarks nest as the book does; every heading gets an
#: id of its own (singlehtml repeats ids such as "exercises"); returns the headings.
_PREPARE_JS = r"""
() => {
  const article = document.querySelector('article.bd-article') || document.body;
  const relevel = (root, shift) => {
    if (!shift) return;
    for (const h of [...root.querySelectorAll('h1, h2, h3, h4, h5, h6')]) {
      const level = Math.max(1, Math.min(6, Number(h.tagName[1]) - shift));
      const copy = document.createElement('h' + level);
      for (const a of h.attributes) copy.setAttribute(a.name, a.value);
      copy.innerHTML = h.innerHTML;
      h.replaceWith(copy);
    }
  };
  for (const span of article.querySelectorAll('span[id^="document-"]')) {
    const section = span.nextElementSibling;
    if (!section) continue;
    const first = section.querySelector('h1, h2, h3, h4, h5, h6');
    if (first) relevel(section, Number(first.tagName[1]) - 1);
    section.classList.add('kperc-pdf-page');
    section.dataset.doc = span.id.slice('document-'.length);
  }
  const visible = el => el.getClientRects().length > 0;
  const headings = [...article.querySelectorAll('h1, h2, h3, h4, h5, h6')].filter(visible);
  return headings.map((h, i) => {
    h.id = h.id || 'kperc-heading-' + i;
    const page = h.closest('.kperc-pdf-page');
    const copy = h.cloneNode(true);
    copy.querySelectorAll('.headerlink').forEach(a => a.remove());
    // a formula's text is that of its MathML (mjx-assistive-mml), not of its glyphs
    copy.querySelectorAll('mjx-container').forEach(m => {
      const mml = m.querySelector('mjx-assistive-mml');
      m.replaceWith(mml ? mml.textContent : '');
    });
    return {id: h.id, level: Number(h.tagName[1]), doc: page ? page.dataset.doc : null,
            title: copy.textContent.replace(/\u2061/g, ' ').replace(/\s+/g, ' ').trim()};
  });
}
"""

#: Puts the table of contents after the book's title: pages and their sections, each a
#: link with its page number (``pages``: heading id -> page number).
_CONTENTS_JS = r"""
([entries, pages]) => {
  document.getElementById('kperc-pdf-contents')?.remove();
  const nav = document.createElement('div');  // the theme hides every nav in print
  nav.id = 'kperc-pdf-contents';
  const title = document.createElement('p');
  title.className = 'kperc-pdf-contents-title';
  title.textContent = 'Contents';
  nav.append(title);
  for (const e of entries) {
    const line = document.createElement('a');
    line.className = 'kperc-pdf-contents-' + e.level;
    line.href = '#' + e.id;
    const name = document.createElement('span');
    name.textContent = e.title;
    const page = document.createElement('span');
    page.className = 'kperc-pdf-contents-page';
    page.textContent = String(pages[e.id] ?? '000');
    line.append(name, page);
    nav.append(line);
  }
  document.getElementById(entries[0].id).after(nav);  // below the book's title
}
"""


def outline(pdf: Any) -> list[tuple[int, str, int]]:
    """The bookmarks of a PDF in reading order: (depth from 1, title, page index from 0).

    Parameters
    ----------
    pdf : pypdf.PdfReader
        The PDF.

    Returns
    -------
    list of tuple
        One entry per bookmark, parents before their children.
    """
    out: list[tuple[int, str, int]] = []

    def walk(items: list[Any], depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                out.append((depth, str(item.title), pdf.get_destination_page_number(item)))

    walk(pdf.outline, 1)
    return out


def _words(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def _marks(pdf: Any) -> list[tuple[int, str, int, float]]:
    """Chromium's bookmarks: (depth, title, page index, top of the heading on its page)."""
    out: list[tuple[int, str, int, float]] = []

    def walk(items: list[Any], depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                top = item.get("/Top")
                page = pdf.get_destination_page_number(item)
                out.append((depth, str(item.title), page, float(top) if top is not None else 0.0))

    walk(pdf.outline, 1)
    return out


def _pages_of(pdf: Any, headings: list[dict[str, Any]]) -> list[tuple[int, float]]:
    """(page from 1, top) of every heading, from the bookmarks Chromium writes for the
    same headings in the same order. Chromium's titles lose the math of a heading and
    repeat the text of some, so the book's bookmarks take the titles of the page and
    only the places of Chromium's; a title that shares too little with its heading's
    means the two lists went out of step."""
    from difflib import SequenceMatcher

    marks = _marks(pdf)
    if len(marks) != len(headings):
        raise RuntimeError(
            f"Chromium wrote {len(marks)} bookmarks for the {len(headings)} headings of the page"
        )
    for (_, title, _, _), h in zip(marks, headings, strict=True):
        a, b = _words(title), _words(h["title"])
        if not (a in b or b in a or SequenceMatcher(None, a, b).ratio() >= 0.6):
            raise RuntimeError(f"bookmark {title!r} is not the heading {h['title']!r}")
    return [(page + 1, top) for _, _, page, top in marks]


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """``folder`` served on 127.0.0.1 (MathJax loads its parts over HTTP, not file://)."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def print_book(html: Path, dest: Path) -> list[dict[str, Any]]:
    """Print the single-page HTML book ``html`` (served from its folder) to ``dest``, with
    bookmarks, a table of contents, page numbers and page labels.

    Returns
    -------
    list of dict
        The book's headings in reading order: ``id``, ``level``, ``doc`` (the page of the
        book, such as ``"book/ch01_introduction"``; None for the landing page), ``title``
        and ``page`` (the PDF page, from 1).
    """
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader, PdfWriter
    from pypdf.constants import PageLabelStyle

    options: dict[str, Any] = dict(
        format="A4",
        margin=MARGIN,
        print_background=True,
        outline=True,
        tagged=True,
        display_header_footer=True,
        header_template="<span></span>",
        footer_template=FOOTER,
    )
    with served(html.parent) as root, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(root + html.name, timeout=120_000)
            page.wait_for_load_state("networkidle", timeout=120_000)
            page.wait_for_function(
                "() => !window.MathJax || (MathJax.startup && MathJax.startup.promise)",
                timeout=60_000,
            )
            page.evaluate("async () => { if (window.MathJax) await MathJax.startup.promise; }")
            page.emulate_media(media="print")
            headings = page.evaluate(_PREPARE_JS)
            contents = [h for h in headings if h["level"] <= 2]
            # pass 1 with placeholder page numbers, pass 2 with the numbers pass 1 found;
            # the numbers are no wider than the placeholder, so the layout is the same,
            # which the last pass checks
            pages: dict[str, int] = {}
            for _ in range(3):
                page.evaluate(_CONTENTS_JS, [contents, pages])
                pdf_bytes = page.pdf(**options)
                places = _pages_of(PdfReader(io.BytesIO(pdf_bytes)), headings)
                found = {h["id"]: p for h, (p, _) in zip(headings, places, strict=True)}
                if found == pages:
                    break
                pages = found
            else:
                raise RuntimeError("the table of contents does not settle on its page numbers")
        finally:
            browser.close()
    reader = PdfReader(io.BytesIO(pdf_bytes))
    writer = PdfWriter(clone_from=reader)
    del writer.root_object["/Outlines"]
    _add_outline(writer, headings, places, first=1)
    writer.set_page_label(0, len(reader.pages) - 1, style=PageLabelStyle.DECIMAL, start=1)
    writer.add_metadata({"/Title": _title(headings), "/Creator": "kperc_book.pdf (Chromium)"})
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    with tmp.open("wb") as f:
        writer.write(f)
    tmp.replace(dest)
    return [{**h, "page": p, "top": top} for h, (p, top) in zip(headings, places, strict=True)]


def _add_outline(writer: Any, headings: list[dict[str, Any]], places: Any, first: int) -> None:
    """Bookmarks nested as the headings are, each at its heading (``first``: the number
    of the writer's first page in the whole book)."""
    from pypdf.generic import Fit

    parents: list[Any] = []
    for h, (page, top) in zip(headings, places, strict=True):
        level = min(h["level"], len(parents) + 1)
        parent = parents[level - 2] if level > 1 else None
        item = writer.add_outline_item(
            title=h["title"], page_number=page - first, parent=parent, fit=Fit.xyz(left=0, top=top)
        )
        parents = [*parents[: level - 1], item]


def _title(headings: list[dict[str, Any]]) -> str:
    return headings[0]["title"] if headings else "kperc-book"


def split_book(book: Path, headings: list[dict[str, Any]], folder: Path) -> dict[str, Any]:
    """One PDF per page of the book, cut from the whole book ``book`` at its pages'
    first headings, with their bookmarks and the book's page numbers as page labels.

    Returns
    -------
    dict
        The manifest written to ``folder / "pdfs.json"``: the whole book's file, and per
        page of the book (``"book/ch01_introduction"``) its file, title and pages.
    """
    from pypdf import PdfReader, PdfWriter
    from pypdf.constants import PageLabelStyle

    reader = PdfReader(book)
    n = len(reader.pages)
    starts = [h for h in headings if h["doc"] and h["level"] == 1]
    manifest: dict[str, Any] = {"book": {"file": book.name, "pages": [1, n]}, "pages": {}}
    for k, head in enumerate(starts):
        first = head["page"]
        last = starts[k + 1]["page"] - 1 if k + 1 < len(starts) else n
        name = Path(head["doc"]).name + ".pdf"
        writer = PdfWriter()
        writer.append(reader, pages=(first - 1, last), import_outline=False)
        mine = [h for h in headings if h["doc"] == head["doc"]]
        _add_outline(writer, mine, [(h["page"], h["top"]) for h in mine], first=first)
        writer.set_page_label(0, last - first, style=PageLabelStyle.DECIMAL, start=first)
        writer.add_metadata({"/Title": head["title"], "/Creator": "kperc_book.pdf (Chromium)"})
        with (folder / name).open("wb") as f:
            writer.write(f)
        manifest["pages"][head["doc"]] = {
            "file": name,
            "title": head["title"],
            "pages": [first, last],
        }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=paths.singlehtml_page())
    parser.add_argument("--out", type=Path, default=paths.pdf_dir())
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: make chromium installs it", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("*.pdf"):
        old.unlink()
    book = args.out / BOOK_PDF
    # singlehtml writes the root page as book/index.html with links relative to its root
    html = args.html.parent.parent / "kperc-book.html"
    shutil.copyfile(args.html, html)
    headings = print_book(html, book)
    manifest = split_book(book, headings, args.out)
    print(f"{book}: {manifest['book']['pages'][1]} pages; {len(manifest['pages'])} page PDFs")
    return 0


# ----------------------------------------------------------------- the Sphinx extension
def _pdf_folder() -> Path:
    return paths.pdf_dir()


def _manifest() -> dict[str, Any] | None:
    """The manifest of ``make pdf``, when every file it names exists."""
    path = _pdf_folder() / MANIFEST
    if not path.is_file():
        return None
    manifest = json.loads(path.read_text())
    files = [manifest["book"]["file"], *(p["file"] for p in manifest["pages"].values())]
    return manifest if all((_pdf_folder() / f).is_file() for f in files) else None


def _signature() -> str:
    path = _pdf_folder() / MANIFEST
    return hashlib.sha256(path.read_bytes()).hexdigest() if _manifest() else ""


def _outdated(app: Any, env: Any, added: Any, changed: Any, removed: Any) -> list[str]:
    """Every page is rewritten when the set of PDFs changed (links appear or go)."""
    signature = _signature()
    if getattr(env, "kperc_pdf_signature", None) != signature:
        env.kperc_pdf_signature = signature
        return sorted(env.found_docs)
    return []


def _link(app: Any, doctree: Any, docname: str) -> None:
    """A link to the page's PDF (on the landing page: the whole book's) below its title."""
    from docutils import nodes  # type: ignore[import-untyped]

    if app.builder.name != "html":
        return
    manifest = _manifest()
    if manifest is None:
        return
    up = "../" * docname.count("/")
    if docname == app.config.root_doc:
        entry = manifest["book"]
        text = f"The whole book as one PDF ({entry['pages'][1]} pages)"
        href = f"{up}{entry['file']}"
    elif docname in manifest["pages"]:
        entry = manifest["pages"][docname]
        first, last = entry["pages"]
        text = f"This page as a PDF (pages {first}–{last} of the book's PDF)"
        href = f"{up}pdf/{entry['file']}"
    else:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return
    para = nodes.paragraph(classes=["kperc-pdf-link"])
    para += nodes.reference("", text, refuri=href, internal=False)
    index = next((i + 1 for i, c in enumerate(section.children) if isinstance(c, nodes.title)), 0)
    section.insert(index, para)


def _copy(app: Any, exception: Exception | None) -> None:
    """The PDFs next to the HTML book: the whole book at its root, the pages in pdf/."""
    if exception is not None or app.builder.name != "html":
        return
    out = Path(app.outdir)
    shutil.rmtree(out / "pdf", ignore_errors=True)
    (out / BOOK_PDF).unlink(missing_ok=True)
    manifest = _manifest()
    if manifest is None:
        return
    (out / "pdf").mkdir()
    shutil.copy2(_pdf_folder() / manifest["book"]["file"], out / BOOK_PDF)
    for entry in manifest["pages"].values():
        shutil.copy2(_pdf_folder() / entry["file"], out / "pdf" / entry["file"])


def setup(app: Any) -> dict[str, Any]:
    """Sphinx entry point (``kperc_book.pdf`` in ``_config.yml``'s extensions)."""
    app.connect("env-get-outdated", _outdated)
    app.connect("doctree-resolved", _link)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    sys.exit(main())

"""Open every page of the built book in Debian's chromium and check what a reader sees.

Run by ``make test`` after the book build (``make browser``). Standalone, it skips with a
message when ``_build/html`` does not exist; with ``KPERC_REQUIRE_BROWSER=1`` (set by
``make test``) a missing build or browser is a failure instead.

Checks, per page: math is typeset by the MathJax bundled with the book (``mjx-container``
elements, no MathJax errors, the script served locally); every image decodes
(``naturalWidth > 0``); no console errors or uncaught exceptions; no request leaves
127.0.0.1. Over the whole site: every internal link and ``#anchor`` resolves.

:func:`test_page_reads_well` opens every page at two viewports, 1400x900 (a laptop
window) and 390x844 (a phone), and checks what a reader meets:

* width: the page never scrolls sideways, and nothing inside it does either: every
  table fits its column at both widths (wide tables, such as the ledger's, turn into
  one card per row on phones), and no element of the article that scrolls on its own
  (``overflow-x: auto`` or ``scroll``, such as the theme's box around a table or a
  display equation) is wider than its box. Only code and its printed output may scroll
  inside their own box, since wrapping them would change what they say; a printed
  table (a DataFrame, or a table of the book's package) fits its column at 1400 px and
  may scroll only on a phone, and a word or number of its cells never breaks across
  lines;
* captions: every figure caption has a contrast of 4.5:1 or more with the page;
* figure size: every figure (a PNG of ``book/figures``, saved at
  :data:`kperc_book.chapter.SAVE_DPI`) displays at 70 % or more of its nominal size,
  ``pixel width / dpi * 96`` CSS px. At 390 px no figure can have that room, so the
  rule there is 70 % of ``min(nominal size, width of the content column)``: a figure
  may not be shrunk below the column it sits in;
* text: no alt text is a file path; the visible text never shows the developers'
  notes ("PAPER.md") or their tags ("[U]", "[C]", "[D]", "[C/D]"); no
  cross-reference renders with empty text (such as "(Definition )");
* buttons: every page has the repository button, every notebook page the Binder
  launch button, all with well-formed https URLs, and no page a Colab button (a chapter
  needs a clone of the repository);
* landing page: it shows the three headline figures.

At 1400 px it also checks what the prose says (see :func:`_prose_problems`):

* no inline code in the prose names a variable or glue key of the page's notebook
  (on pages that are not notebooks: a glue key or parameter of any notebook), which is
  what a reader sees when a name was written where its value belongs;
* no literal backslash in the rendered text outside code (TeX that was not typeset, or
  an escaped character that reached the page), and no ``$...$`` (inline TeX that a glued
  value or an escaped dollar left untypeset);
* no repository path or developers' word (:data:`INTERNAL_WORDS`, such as
  ``kperc_book``, ``_generated``, ``.json``, ``python -m``, ``pytest`` or "glue") in the
  text outside code cells, except on :data:`CODE_PAGES` (the reproducibility record and
  the API reference, where such names are the subject);
* figure text: every figure shows its smallest text at 9 pt or more. The rule, derived
  in :func:`_smallest_text_pt`: a font of ``f`` pt drawn into a PNG saved at ``dpi`` is
  ``f / 72 * dpi`` image pixels tall; shown ``w`` CSS px wide for ``W`` image pixels it
  is ``f / 72 * dpi * w / W`` CSS px, that is ``f * dpi / 96 * w / W`` pt (96 CSS px per
  inch, 72 pt per inch). With the book's smallest font :func:`_smallest_font_pt` (from
  :func:`kperc_book.chapter.style`, 9 pt) and the saved resolution read from the PNG
  (``SAVE_DPI`` = 200 for ``book/figures``), 9 pt on screen needs ``w >= W * 96 * 9 /
  (dpi * f)``: for 200 dpi and 9 pt fonts, the figure's full nominal width ``W / 200 *
  96``.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import struct
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
HTML = Path(os.environ.get("KPERC_HTML_DIR", ROOT / "_build" / "html"))
REQUIRE = os.environ.get("KPERC_REQUIRE_BROWSER") == "1"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ASSET_DIRS = {"_static", "_sources", "_downloads", "_images", "_sphinx_design_static"}


def _unavailable(msg: str):
    if REQUIRE:
        pytest.fail(msg)
    pytest.skip(msg)


def _pages() -> list[str]:
    if not HTML.is_dir():
        return []
    return sorted(
        p.relative_to(HTML).as_posix()
        for p in HTML.rglob("*.html")
        if not (set(p.relative_to(HTML).parts[:-1]) & ASSET_DIRS)
    )


PAGES = _pages()


# ----------------------------------------------------------------------- static links
class _Scan(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.urls: list[str] = []
        self.math = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name") if tag in ("a",) else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) and tag in ("a", "img", "script", "link", "iframe", "source"):
                self.urls.append(a[key])
        if "math" in (a.get("class") or "").split():
            self.math += 1


@functools.cache
def _scan(rel: str) -> _Scan:
    s = _Scan()
    s.feed((HTML / rel).read_text(encoding="utf-8", errors="replace"))
    return s


def _internal_targets(rel: str):
    """(url as written, target file relative to HTML, fragment) of every local link."""
    base = f"http://site/{rel}"
    for url in _scan(rel).urls:
        parsed = urlparse(url)
        if parsed.scheme and parsed.scheme not in ("http", "https"):
            continue  # mailto:, data:, javascript:
        if parsed.netloc:
            continue  # absolute external link: the browser test checks nothing loads
        full = urlparse(urljoin(base, url))
        path = unquote(full.path).lstrip("/")
        if path == "" or path.endswith("/"):
            path += "index.html"
        yield url, path, unquote(full.fragment)


def test_site_was_built():
    if not PAGES:
        _unavailable(f"{HTML} has no pages: build the book first (make html)")
    assert "index.html" in PAGES


def test_internal_links_and_anchors_resolve():
    if not PAGES:
        _unavailable(f"{HTML} has no pages: build the book first (make html)")
    broken = []
    for rel in PAGES:
        for url, path, fragment in _internal_targets(rel):
            target = HTML / path
            if not target.is_file():
                broken.append(f"{rel}: {url} -> missing file {path}")
            elif fragment and path.endswith(".html") and fragment not in _scan(path).ids:
                broken.append(f"{rel}: {url} -> no id {fragment!r} in {path}")
    assert not broken, "broken internal links:\n" + "\n".join(broken)


# ---------------------------------------------------------------------------- browser
@pytest.fixture(scope="module")
def site():
    if not PAGES:
        _unavailable(f"{HTML} has no pages: build the book first (make html)")
    from kperc_book.pdf import served  # the server the PDF is printed from

    with served(HTML) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        _unavailable(f"{CHROMIUM} is missing: apt-get install -y chromium (make test does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is missing: pip install playwright")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


_IMAGES_JS = """
async () => {
  const imgs = [...document.images];
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
      i.addEventListener('load', r); i.addEventListener('error', r);
      setTimeout(r, 10000); })));
  return imgs.map(i => [i.getAttribute('src'), i.naturalWidth]);
}
"""

_MATH_JS = """
async () => {
  await MathJax.startup.promise;
  return [document.querySelectorAll('mjx-container').length,
          document.querySelectorAll('mjx-merror, [data-mjx-error]').length,
          MathJax.version];
}
"""


@pytest.mark.parametrize("rel", PAGES or ["<no build>"])
def test_page_in_browser(site, browser, rel):
    context = browser.new_context()
    requests, left, errors = [], [], []

    def route(r):
        u = urlparse(r.request.url)
        if u.scheme in ("data", "blob", "about") or u.hostname == "127.0.0.1":
            requests.append(r.request.url)
            r.continue_()
        else:
            left.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on(
        "console",
        lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    try:
        page.goto(site + rel, wait_until="load", timeout=60000)
        page.wait_for_load_state("networkidle", timeout=30000)
        final = urlparse(page.url).path.lstrip("/") or "index.html"
        n_math = _scan(final).math if (HTML / final).is_file() else 0
        problems = []
        if n_math:
            try:
                page.wait_for_function(
                    "() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                    timeout=30000,
                )
                containers, merrors, version = page.evaluate(_MATH_JS)
            except Exception as exc:  # noqa: BLE001 - reported as a failure below
                containers, merrors, version = 0, 0, f"not loaded ({exc})"
            if containers == 0:
                problems.append(f"{n_math} math elements but no mjx-container (MathJax {version})")
            if merrors:
                problems.append(f"{merrors} MathJax errors")
            if not any("/_static/mathjax/" in u for u in requests):
                problems.append("MathJax was not served from the book's _static/mathjax")
        for src, width in page.evaluate(_IMAGES_JS):
            if not width:
                problems.append(f"image does not decode: {src}")
        page.wait_for_timeout(200)  # let late console messages arrive
        problems += errors
        problems += [f"request left 127.0.0.1: {u}" for u in left]
    finally:
        context.close()
    assert not problems, f"{rel}:\n" + "\n".join(problems)


# ------------------------------------------------------------------- reader checks
VIEWPORTS = {"1400": (1400, 900), "390": (390, 844)}
#: The landing page's headline figures (file stems of book/figures).
HEADLINE_FIGURES = ("ch02-normalizing", "ch04-rates", "ch06-outer-loops")
#: Text that must never be visible: the developers' notes and their certainty tags.
FORBIDDEN_TEXT = ("PAPER.md", "[U]", "[C]", "[D]", "[C/D]")
#: Cross-references whose title went missing render as "(Definition )" and the like.
#: TeX that reached the page as text, e.g. from a glued Markdown string with ``$...$``
#: shown by the inline role, whose default format has no dollar math
RAW_TEX = re.compile(r"\$[^$\n]{0,40}\\[A-Za-z]+[^$\n]{0,40}\$|\$[A-Za-z]\$")
EMPTY_REF = re.compile(
    r"\((Definition|Remark|Theorem|Lemma|Algorithm|Proposition|Corollary|Example)\s*\)"
)

#: Pages whose subject is the code and the build (paths, commands and code names belong
#: there); every other page speaks to readers. Sphinx's generated indices list code names.
CODE_PAGES = frozenset(
    {"book/reproducibility.html", "book/api.html", "genindex.html", "py-modindex.html"}
    # the lectures: their prose names the code shown on the page
    | {
        f"book/{name}.html"
        for name in (
            "ch01_introduction",
            "ch02_linear_feasibility",
            "ch03_kernels",
            "ch04_smoothed_perceptron",
            "ch05_infeasible_problems",
            "ch06_primal_dual",
            "ch07_discussion",
            "benchmarks",
        )
    }
)
#: Repository paths and developers' words that a reader of the prose should never meet
#: (checked outside code cells): (label, pattern).
INTERNAL_WORDS = (
    ("kperc_book", re.compile(r"kperc_book")),
    ("_generated", re.compile(r"_generated")),
    (".json", re.compile(r"\.json\b", re.I)),
    ("python -m", re.compile(r"python3?\s+-m\b")),
    ("pytest", re.compile(r"\bpytest\b", re.I)),
    ("glue", re.compile(r"\bglue(d|s|ing)?\b", re.I)),
    ("PAPER.md", re.compile(r"PAPER\.md", re.I)),
    ("papermill", re.compile(r"\bpapermill\b", re.I)),
    ("nbval", re.compile(r"\bnbval\b", re.I)),
)
#: The smallest text a figure may show on screen, in pt (CSS: 96 px = 72 pt = 1 inch).
MIN_FIGURE_PT = 9.0


def _smallest_font_pt() -> float:
    """The smallest font size (pt) that the book's figure style sets.

    :func:`kperc_book.chapter.style` sets every text size of a figure (titles, labels,
    ticks, legends); named sizes such as ``"small"`` are resolved against ``font.size``.
    ``tests/book/test_book_figures.py`` checks that no notebook or experiment module draws
    text smaller than this.
    """
    from kperc_book.chapter import smallest_font_pt

    return smallest_font_pt()


def _png_dpi(path: Path) -> float | None:
    """Horizontal resolution stored in a PNG's pHYs chunk (matplotlib writes it), or None."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    pos = 8
    while pos + 8 <= len(data):
        length, ctype = struct.unpack(">I4s", data[pos : pos + 8])
        if ctype == b"pHYs" and length >= 9:
            ppu_x, _, unit = struct.unpack(">IIB", data[pos + 8 : pos + 17])
            return ppu_x * 0.0254 if unit == 1 else None
        if ctype == b"IDAT":
            return None
        pos += 12 + length
    return None


def _smallest_text_pt(natural: float, shown: float, dpi: float, font_pt: float) -> float:
    """Size on screen (pt) of ``font_pt`` text in a PNG saved at ``dpi``.

    The image is ``natural`` pixels wide and shown ``shown`` CSS px wide: a glyph of
    ``font_pt`` is ``font_pt / 72 * dpi`` image pixels tall, hence ``font_pt / 72 * dpi
    * shown / natural`` CSS px, or that times 72 / 96 in pt.

    >>> round(_smallest_text_pt(1540, 739.2, 200, 9), 6)  # nominal width: 9 pt stays 9 pt
    9.0
    >>> round(_smallest_text_pt(1540, 369.6, 200, 9), 6)  # half of it: 4.5 pt
    4.5
    """
    return font_pt * dpi / 96 * shown / natural


def _notebook_names(ipynb: Path, *, exported: bool = False) -> set[str]:
    """Names a chapter notebook defines at the top level of its code cells, and glue keys.

    Assignment, ``for`` and ``with`` targets, and defined functions and classes (imports
    are left out: they name library objects, which the prose may show as code). Glue
    keys are the first argument of every ``glue(...)`` / ``ch.glue(...)`` call. With
    ``exported=True`` only the names other pages can meet: glue keys and the names set
    by the cell tagged ``parameters``.
    """
    nb = json.loads(ipynb.read_text(encoding="utf-8"))
    names: set[str] = set()

    def targets(node):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                targets(elt)
        elif isinstance(node, ast.Starred):
            targets(node.value)

    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        is_parameters = "parameters" in cell.get("metadata", {}).get("tags", [])
        src = "".join(cell.get("source", []))
        src = "\n".join(
            line for line in src.splitlines() if not line.lstrip().startswith(("%", "!"))
        )
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for stmt in tree.body if (is_parameters or not exported) else ():
            if isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    targets(t)
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
                targets(stmt.target)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                targets(stmt.target)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if item.optional_vars is not None:
                        targets(item.optional_vars)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(stmt.name)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) == "glue"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                names.add(node.args[0].value)
    names.discard("_")
    return names


@functools.cache
def _names_for(rel: str) -> frozenset[str]:
    """Notebook names that inline code on page ``rel`` must not show."""
    own = (HTML / "_sources" / rel).with_suffix(".ipynb")
    if own.is_file():
        return frozenset(_notebook_names(own))
    every: set[str] = set()
    for nb in sorted((HTML / "_sources").rglob("*.ipynb")):
        every |= _notebook_names(nb, exported=True)
    return frozenset(every)


def _prose_problems(rel: str, info: dict) -> list[str]:
    """What the prose of page ``rel`` shows that is meant for developers (see the docstring)."""
    problems = [
        f"literal backslash in the text: {m.group(0)!r}"
        for m in re.finditer(r".{0,30}\\.{0,30}", info["proseNoCode"])
    ]
    problems += [
        f"TeX between dollars shown as source: {m.group(0)!r}"
        for m in re.finditer(r"\$[^$\s][^$\n]{0,60}?[^$\s]\$", info["proseNoCode"])
    ]
    if rel in CODE_PAGES:
        return problems
    names = _names_for(rel)
    for code in sorted(set(info["inlineCode"])):
        if code in names:
            problems.append(f"inline code shows the notebook name {code!r} (a value belongs there)")
    for label, pattern in INTERNAL_WORDS:
        for m in pattern.finditer(info["prose"]):
            a, b = max(0, m.start() - 30), m.end() + 30
            context = info["prose"][a:b].replace("\n", " ")
            problems.append(f"internal word {label!r} in the text: {context!r}")
    return problems


#: Waits until MathJax has typeset the page (formulas are measured after that).
_MATH_READY_JS = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
}"""

_READER_JS = r"""
() => {
  const main = document.querySelector('main') || document.body;
  const article = document.querySelector('article.bd-article') || main;
  const colWidth = article.clientWidth;
  // a table printed by a code cell (a pandas DataFrame) is printed output: it may scroll
  // inside its output box, but its cells must not break a number or name across lines
  const printed = t => t.closest('.cell_output') !== null;
  // a word or number of a printed table's cell never breaks across lines (a cell may
  // hold several lines, and may wrap between words)
  const brokenWord = td => {
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\S+/g)) {
        const r = document.createRange();
        r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
        if (tops.size > 1) return true;
      }
    }
    return false;
  };
  const brokenCells = [...article.querySelectorAll('.cell_output table td')]
      .filter(td => td.innerText.trim() !== '' && brokenWord(td))
      .map(td => td.innerText.slice(0, 40));
  // a printed table (a DataFrame or a table of the book's package) fits its column at
  // laptop widths; on a phone it may scroll inside its output box
  const printedTables = [...article.querySelectorAll('.cell_output table')].map(t => {
    const box = t.closest('.cell_output');
    return [Math.max(t.getBoundingClientRect().width, t.scrollWidth), box.clientWidth,
            (t.querySelector('th, td') || t).innerText.slice(0, 40)];
  });
  // captions are read as text: contrast of at least 4.5:1 with the page (WCAG AA)
  const rgb = c => (c.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = c => {
    const v = rgb(c).map(x => x / 255)
        .map(x => x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4));
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
  };
  const back = lum(getComputedStyle(document.body).backgroundColor || 'rgb(255,255,255)');
  const captionSel = 'figcaption, figcaption *, .caption, .caption-text';
  const captions = [...article.querySelectorAll(captionSel)]
      .filter(el => el.innerText && el.innerText.trim())
      .map(el => { const f = lum(getComputedStyle(el).color);
                   return [(Math.max(f, back) + 0.05) / (Math.min(f, back) + 0.05),
                           el.innerText.slice(0, 40)]; })
      .filter(([ratio]) => ratio < 4.5);
  // a table shown as cards on phones labels every cell with its column (kperc-cards.js)
  const unlabelled = [...article.querySelectorAll('.kperc-autolabel tbody td')]
      .filter(td => !td.hasAttribute('data-label')).map(td => td.innerText.slice(0, 40));
  const tables = [...article.querySelectorAll('table')].filter(t => !printed(t)).map(t => {
    const box = t.parentElement;
    return [t.scrollWidth, box.clientWidth, box.scrollWidth > box.clientWidth + 1,
            (t.querySelector('th, td') || t).innerText.slice(0, 40)];
  });
  const scrollers = [...article.querySelectorAll('*')].filter(el => {
    const ox = getComputedStyle(el).overflowX;
    return (ox === 'auto' || ox === 'scroll') && el.scrollWidth > el.clientWidth + 1
      && !el.closest('pre, div.highlight, .cell_output');
  }).map(el => [el.tagName.toLowerCase() + (el.className ? '.' + String(el.className)
      .trim().split(/\s+/).join('.') : ''), el.scrollWidth, el.clientWidth,
      el.innerText.replace(/\s+/g, ' ').slice(0, 60)]);
  const imgs = [...article.querySelectorAll('img')].map(i => [
      i.getAttribute('src') || '', i.getAttribute('alt') || '', i.naturalWidth,
      i.getBoundingClientRect().width]);
  const refs = [...article.querySelectorAll('a.reference.internal')]
      // an image link (Sphinx wraps a scaled image in a link to the full-size file) is
      // named by its image's alt text, as screen readers name it
      .filter(a => !a.closest('nav') && a.textContent.trim() === ''
                   && ![...a.querySelectorAll('img')].some(i => (i.alt || '').trim()))
      .map(a => a.getAttribute('href'));
  const links = [...document.querySelectorAll('a[href]')].map(a => a.href);
  // inline formulas that run past the right edge of the text column (cut off on a phone)
  const colRight = article.getBoundingClientRect().right;
  const maths = [...article.querySelectorAll('mjx-container:not([display="true"])')]
      .filter(el => { const r = el.getBoundingClientRect();
                      return r.width > 0 && r.right > colRight + 8; })
      .map(el => [Math.round(el.getBoundingClientRect().right), Math.round(colRight),
                  el.innerText.replace(/\s+/g, ' ').slice(0, 50)]);
  // prose: the article without code cells' input, without scripts and typeset math;
  // proseNoCode also without any code element (code may hold a backslash legitimately)
  const strip = (sel) => {
    const copy = article.cloneNode(true);
    copy.querySelectorAll(sel).forEach(el => el.remove());
    return copy.textContent;
  };
  const prose = strip('div.cell_input, script, style, mjx-container, .headerlink');
  const proseNoCode = strip('div.cell_input, script, style, mjx-container, .headerlink, '
      + 'pre, code, kbd, samp, div.highlight, .cell_output .output.text_plain');
  // inline code in the prose: not a code block, not a link to the API (class xref)
  const inlineCode = [...article.querySelectorAll('code')]
      .filter(c => !c.closest('pre, div.highlight, div.cell_input, .xref, dl.py dt'))
      .map(c => c.textContent.trim());
  return {pageWidth: document.documentElement.scrollWidth, viewWidth: window.innerWidth,
          colWidth, tables, printedTables, captions, brokenCells, unlabelled, scrollers,
          imgs, refs, links, maths,
          text: article.innerText, prose, proseNoCode, inlineCode};
}
"""


def _is_notebook_page(rel: str) -> bool:
    return (HTML / "_sources" / rel).with_suffix(".ipynb").is_file()


def _repository_url() -> str:
    import yaml

    return yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"].rstrip("/")


def _well_formed(url: str) -> bool:
    u = urlparse(url)
    return u.scheme == "https" and bool(u.netloc) and " " not in url


@pytest.mark.parametrize("width", list(VIEWPORTS))
@pytest.mark.parametrize("rel", PAGES or ["<no build>"])
def test_page_reads_well(site, browser, rel, width):
    from kperc_book.chapter import SAVE_DPI

    font_pt = _smallest_font_pt()
    vw, vh = VIEWPORTS[width]
    context = browser.new_context(viewport={"width": vw, "height": vh})
    left = []

    def route(r):
        u = urlparse(r.request.url)
        if u.scheme in ("data", "blob", "about") or u.hostname == "127.0.0.1":
            r.continue_()
        else:
            left.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    try:
        page.goto(site + rel, wait_until="load", timeout=60000)
        page.wait_for_load_state("networkidle", timeout=30000)
        page.evaluate(_IMAGES_JS)
        page.evaluate(_MATH_READY_JS)
        info = page.evaluate(_READER_JS)
    finally:
        context.close()
    problems = [f"request left 127.0.0.1: {u}" for u in left]
    if info["pageWidth"] > info["viewWidth"] + 1:
        problems.append(f"page scrolls sideways: {info['pageWidth']} > {info['viewWidth']} px")
    for t_width, box, box_scrolls, head in info["tables"]:
        if t_width > box + 1 or box_scrolls:
            problems.append(f"table {head!r} is {t_width} px wide in a {box} px column")
    if int(width) >= 1000:
        for t_width, col, head in info["printedTables"]:
            if t_width > col + 1:
                problems.append(
                    f"printed table {head!r} is {t_width:.0f} px wide in a {col} px column"
                )
    for ratio, text in info["captions"]:
        problems.append(f"caption {text!r} has a contrast of {ratio:.2f}:1, below 4.5:1")
    for text in info["unlabelled"]:
        problems.append(f"a cell of a card table has no column label: {text!r}")
    for text in info["brokenCells"]:
        problems.append(f"a cell of a printed table breaks across lines: {text!r}")
    for right, col, text in info["maths"]:
        problems.append(f"inline formula ends at {right} px, past the column's {col} px: {text!r}")
    for what, inner, box, text in info["scrollers"]:
        problems.append(f"{what} scrolls sideways ({inner} px in {box} px): {text!r}")
    for src, alt, natural, shown in info["imgs"]:
        name = src.rsplit("/", 1)[-1]
        if alt.strip().lower().endswith((".png", ".svg", ".jpg")) or "/" in alt.split(" ")[0]:
            problems.append(f"alt text of {name} is a file path: {alt!r}")
        if "/_images/" in src or src.startswith("_images/") or "_images/" in src:
            nominal = natural / SAVE_DPI * 96
            need = 0.7 * min(nominal, info["colWidth"]) if int(width) < 1000 else 0.7 * nominal
            if natural and shown < need - 1:
                problems.append(
                    f"figure {name} shows at {shown:.0f} px, below 70 % of "
                    f"{min(nominal, info['colWidth']) if int(width) < 1000 else nominal:.0f} px"
                )
            local = HTML / unquote(urlparse(urljoin(site + rel, src)).path).lstrip("/")
            dpi = (_png_dpi(local) if local.is_file() else None) or SAVE_DPI
            if natural and int(width) >= 1000:
                pt = _smallest_text_pt(natural, shown, dpi, font_pt)
                if pt < MIN_FIGURE_PT - 0.05:
                    need_px = natural * 96 * MIN_FIGURE_PT / (dpi * font_pt)
                    problems.append(
                        f"figure {name} shows its {font_pt:g} pt text at {pt:.1f} pt "
                        f"({shown:.0f} px for {natural} px at {dpi:.0f} dpi; "
                        f"{MIN_FIGURE_PT:g} pt needs {need_px:.0f} px)"
                    )
    for bad in FORBIDDEN_TEXT:
        if bad in info["text"]:
            problems.append(f"visible text contains {bad!r}")
    # code cells and printed outputs may hold TeX legitimately (a figure's label in a string)
    for m in RAW_TEX.finditer(info["proseNoCode"]):
        problems.append(f"TeX shown as source, not typeset: {m.group(0)!r}")
    if int(width) >= 1000:
        problems += _prose_problems(rel, info)
    for m in EMPTY_REF.finditer(info["text"]):
        problems.append(f"cross-reference without title: {m.group(0)!r}")
    problems += [f"cross-reference with empty text -> {h}" for h in info["refs"]]
    repo = _repository_url()
    links = info["links"]
    if not any(u.rstrip("/") == repo for u in links):
        problems.append(f"no repository button linking to {repo}")
    if _is_notebook_page(rel):
        for prefix in ("https://mybinder.org/v2/gh/",):
            found = [u for u in links if u.startswith(prefix)]
            if not found:
                problems.append(f"no launch button starting with {prefix}")
            problems += [f"malformed launch URL {u}" for u in found if not _well_formed(u)]
    problems += [f"Colab launch button {u}" for u in links if "colab.research.google" in u]
    if rel == "index.html":
        shown = {src.rsplit("/", 1)[-1].split(".")[0]: w for src, _, _, w in info["imgs"]}
        for stem in HEADLINE_FIGURES:
            if not shown.get(stem):
                problems.append(f"landing page does not show the headline figure {stem}")
    assert not problems, f"{rel} at {width} px:\n" + "\n".join(problems)

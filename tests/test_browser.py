"""Open every page of the built book in Debian's chromium and check what a reader sees.

Run by ``make test`` after the book build (``make browser``). Standalone, it skips with a
message when ``_build/html`` does not exist; with ``KPERC_REQUIRE_BROWSER=1`` (set by
``make test``) a missing build or browser is a failure instead.

Checks, per page: math is typeset by the MathJax bundled with the book (``mjx-container``
elements, no MathJax errors, the script served locally); every image decodes
(``naturalWidth > 0``); no console errors or uncaught exceptions; no request leaves
127.0.0.1. Over the whole site: every internal link and ``#anchor`` resolves.
"""

from __future__ import annotations

import functools
import os
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
HTML = Path(os.environ.get("KPERC_HTML_DIR", REPO / "_build" / "html"))
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
class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output readable
        pass


@pytest.fixture(scope="module")
def site():
    if not PAGES:
        _unavailable(f"{HTML} has no pages: build the book first (make html)")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(HTML)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


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

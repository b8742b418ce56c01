"""The pages users read (README.md, PYPI.md, the book's Markdown pages and the
notebooks' Markdown cells) name only public objects: no private module path such as
``kperc._ties``. The public docstrings are checked by ``tests/lib/test_public_docs.py``.
"""

from __future__ import annotations

import json
import re

import pytest

from kperc_book import paths

PRIVATE = re.compile(r"\bkperc(?:_book)?(?:\.\w+)*\._[A-Za-z]\w*")


def _pages():
    book = paths.book_dir()
    for path in [paths.ROOT / "README.md", paths.ROOT / "PYPI.md", *sorted(book.glob("*.md"))]:
        yield path.name, path.read_text(encoding="utf-8")
    for path in sorted(book.glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        yield path.name, text


PAGES = dict(_pages())


def test_the_pages_are_found():
    assert {"README.md", "PYPI.md", "api.md"} <= set(PAGES)
    assert any(name.startswith("ch04") for name in PAGES)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_no_private_path_in_user_facing_text(name):
    found = PRIVATE.findall(PAGES[name])
    assert not found, f"{name} shows private paths {found}; name the public object instead"

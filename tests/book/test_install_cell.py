"""Every chapter runs on its own (issue 38): its first code cell installs ``kperc`` and the
book's tools when they are missing, and its first lines say how to run it alone and
where its records go.

The cell and the sentence are the same in every chapter, as written here;
``tests/book/test_install.py`` (slow) runs Chapter 1 copied alone into an empty folder,
in a fresh virtual environment, after this cell's command. In a clone the cell finds
``kperc_book`` and does nothing: it prints nothing, so nbval's comparison is unchanged.
"""

from __future__ import annotations

import json
import re

import pytest

from kperc_book import _notebooks as nbu
from kperc_book import paths

#: The first code cell of every chapter, before its ``parameters`` cell.
INSTALL_CELL = '''\
# Running this chapter on its own (Colab, a bare Jupyter)? This installs kperc and the
# book's tools from the repository; in a clone of it (make env) it does nothing.
import importlib.util

if importlib.util.find_spec("kperc_book") is None:
    repo = "git+https://github.com/kperc-book/kperc-book"
    %pip install --quiet "kperc @ {repo}" "kperc-book @ {repo}#subdirectory=book-tools"'''

#: The second paragraph of every chapter's first cell (under its title).
SENTENCE = (
    "*To run this chapter on its own (on Colab or in any Jupyter), run its first code cell, "
    "which installs `kperc` and the book's tools with their stored datasets; the chapter then "
    "writes its records to `kperc-book-records/` beside the notebook, or to the folder named "
    "by `KPERC_BOOK_RECORDS` (in a clone, {ref}`running-a-chapter`, the cell does nothing and "
    "the records go under `_build/`).*"
)

CHAPTERS = [p for p in nbu.toc_notebooks() if re.match(r"ch\d\d_", p.name)]


def test_the_cell_installs_from_the_repository_the_packages_name():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    urls = tomllib.loads(paths.pyproject_path().read_text())["project"]["urls"]
    (repo,) = re.findall(r'repo = "([^"]+)"', INSTALL_CELL)
    assert repo == f"git+{urls['Source']}"
    book_tools = tomllib.loads((paths.ROOT / "book-tools" / "pyproject.toml").read_text())
    assert book_tools["project"]["urls"]["Source"] == urls["Source"]


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_chapter_starts_with_the_install_cell_and_says_so(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert "".join(code[0]["source"]) == INSTALL_CELL, f"{path.name}: no install cell first"
    assert "parameters" in code[1].get("metadata", {}).get("tags", []), path.name
    assert code[0]["outputs"] == [], f"{path.name}: the install cell printed in a clone"
    title, says = "".join(cells[0]["source"]).split("\n\n")[:2]
    assert cells[0]["cell_type"] == "markdown" and title.startswith("# "), path.name
    assert " ".join(says.split()) == SENTENCE, f"{path.name}: {says!r}"

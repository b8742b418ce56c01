"""Outside a clone, a chapter and the book's tools stop with one correct sentence and
write nothing: not into the current folder, and not beside the installed package (a
virtual environment's site-packages), where ``_build/scratch`` used to be created.

The book's tools are copied to a temporary "site-packages" (as a normal, non-editable
install puts them), the command runs in another temporary folder, and
``KPERC_BOOK_ROOT`` is unset.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import kperc_book
from kperc_book import paths

pytestmark = pytest.mark.slow  # a kernel starts outside the checkout


@pytest.fixture
def outside(tmp_path):
    site = tmp_path / "site-packages"
    shutil.copytree(
        Path(kperc_book.__file__).parent,
        site / "kperc_book",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    elsewhere = tmp_path / "downloads"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != paths.ROOT_ENV}
    kperc_dir = str(Path(__import__("kperc").__file__).parents[1])
    env["PYTHONPATH"] = os.pathsep.join([str(site), kperc_dir])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return site, elsewhere, env


def _files(*folders: Path) -> list[str]:
    return sorted(str(p) for f in folders for p in f.rglob("*") if "__pycache__" not in p.parts)


def test_a_chapter_outside_a_clone_says_what_it_needs_and_writes_nothing(outside):
    site, elsewhere, env = outside
    before = _files(site, elsewhere)
    code = "from kperc_book.chapter import Chapter\nch = Chapter('ch03')\n"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("kperc_book.paths.OutsideCheckout: This chapter runs only inside a ")
    assert "clone of the kperc-book repository" in last and "nothing was written" in last
    assert "; no clone holds the current folder, so" in last and last.endswith("to one.")
    assert _files(site, elsewhere) == before


def test_a_root_that_is_no_clone_is_named_as_the_reason(outside):
    """Set to a folder that is not a clone, KPERC_BOOK_ROOT is the reason the chapter
    gives, even when the current folder is inside a clone (the variable wins)."""
    site, elsewhere, env = outside
    env[paths.ROOT_ENV] = str(elsewhere)
    before = _files(site, elsewhere)
    code = "from kperc_book.chapter import Chapter\nch = Chapter('ch03')\n"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=paths.ROOT, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert f"; {paths.ROOT_ENV} names {elsewhere.resolve()}, which is not one, so nothing" in last
    assert "current folder" not in last
    assert _files(site, elsewhere) == before


def test_in_jupyter_the_error_is_one_sentence(outside):
    """A downloaded chapter run in a kernel shows the sentence, not a traceback."""
    site, elsewhere, env = outside
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("from kperc_book.chapter import Chapter\nch = Chapter('ch03')")
    ]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    path = elsewhere / "ch03_kernels.ipynb"
    nbformat.write(nb, path)
    before = _files(site, elsewhere)
    code = (
        "import sys, nbformat, nbclient\n"
        "nb = nbformat.read(sys.argv[1], as_version=4)\n"
        "try:\n"
        "    nbclient.NotebookClient(nb, resources={'metadata': {'path': '.'}}).execute()\n"
        "except nbclient.exceptions.CellExecutionError:\n"
        "    pass\n"
        "(err,) = [o for o in nb.cells[0].outputs if o.output_type == 'error']\n"
        "print('\\n'.join(err.traceback))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    shown = proc.stdout.strip()
    assert shown.count("\n") == 0 and shown.startswith("OutsideCheckout: This chapter runs only"), (
        shown
    )
    assert _files(site, elsewhere) == before


def test_a_tool_outside_a_clone_is_one_line(outside):
    site, elsewhere, env = outside
    proc = subprocess.run(
        [sys.executable, "-m", "kperc_book.reproduce", "--list"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("kperc_book: the current folder is not a kperc-book checkout")

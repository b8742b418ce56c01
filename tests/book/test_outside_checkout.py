"""Outside a clone, a chapter runs: it reads the stored datasets and the other chapters'
records from the copy the package ships, and writes its records where the reader
chooses (``kperc-book-records/`` in the current folder by default), never beside the
installed package (a virtual environment's site-packages). The book's tools (reproduce,
report) stop with one line.

The book's tools are copied to a temporary "site-packages" as a normal, non-editable
install puts them (the symbolic links of ``kperc_book/_stored/`` followed, as the
wheel's build follows them), the command runs in another temporary folder, and
``KPERC_BOOK_ROOT`` is unset. ``test_install_cell.py`` runs a whole chapter this way, in
a fresh virtual environment.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import kperc_book
from kperc_book import chapter, paths

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
    drop = (paths.ROOT_ENV, chapter.RECORDS_ENV, chapter.STAGING_ENV)
    env = {k: v for k, v in os.environ.items() if k not in drop}
    kperc_dir = str(Path(__import__("kperc").__file__).parents[1])
    env["PYTHONPATH"] = os.pathsep.join([str(site), kperc_dir])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return site, elsewhere, env


def _files(*folders: Path) -> list[str]:
    return sorted(str(p) for f in folders for p in f.rglob("*") if "__pycache__" not in p.parts)


def _python(code: str, cwd: Path, env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True
    )


#: A chapter's start: a stored dataset, a check, a record another chapter wrote.
CHAPTER = """\
import json
from kperc_book import paths
from kperc_book.chapter import Chapter
ch = Chapter("ch03")
ds = ch.load("circles")
ch.check("lemma-1", ds.X.shape == (200, 2), "the stored circles")
print(sorted(json.loads((paths.generated_dir() / "ch02.json").read_text())["glue"])[0])
print(paths.ROOT)
"""


def test_a_chapter_outside_a_clone_runs_and_writes_only_its_records_folder(outside):
    site, elsewhere, env = outside
    before = _files(site)
    proc = _python(CHAPTER, elsewhere, env)
    assert proc.returncode == 0, proc.stderr
    told, first_glue, root = proc.stdout.splitlines()
    records = elsewhere / chapter.DEFAULT_RECORDS
    assert told == (
        f"ch03 writes its records (checks, glued numbers, figures) to {records.resolve()}; set "
        f"{chapter.RECORDS_ENV}, or pass records= to Chapter, to choose another folder."
    )
    assert first_glue and Path(root) == (site / "kperc_book" / "_stored").resolve()
    assert _files(site) == before  # nothing beside the package
    assert _files(elsewhere) == [str(records), str(records / "_generated")] + [
        str(records / "_generated" / "ch03.json")
    ]
    rec = json.loads((records / "_generated" / "ch03.json").read_text())
    stored = json.loads((paths.data_dir() / "manifest.json").read_text())["datasets"]
    assert rec["datasets"] == {"circles": stored["circles"]["sha256"]}  # the same bytes
    assert rec["checks"]["lemma-1"]["ok"] is True


def test_the_reader_chooses_the_records_folder(outside, tmp_path):
    site, elsewhere, env = outside
    chosen = tmp_path / "my records"
    for how in ("env", "argument"):
        target = chosen / how
        code = CHAPTER
        if how == "env":
            env = {**env, chapter.RECORDS_ENV: str(target)}
        else:
            code = code.replace('Chapter("ch03")', f"Chapter('ch03', records={str(target)!r})")
        proc = _python(code, elsewhere, env)
        assert proc.returncode == 0, proc.stderr
        assert f"to {target.resolve()};" in proc.stdout.splitlines()[0]
        assert (target / "_generated" / "ch03.json").is_file()
    assert _files(elsewhere) == []


def test_records_are_never_written_inside_the_installed_package(outside):
    """Run from the package's own folder, the default records folder would lie inside
    it: the chapter refuses in one sentence and writes nothing."""
    site, _, env = outside
    package = site / "kperc_book"
    before = _files(site)
    proc = _python(CHAPTER, package, env)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("kperc_book.paths.OutsideCheckout: The records folder ")
    assert "lies inside the installed packages" in last and "nothing was written" in last
    assert _files(site) == before


def test_a_root_that_is_no_clone_is_named_as_the_reason(outside):
    """Set to a folder that is not a clone, KPERC_BOOK_ROOT is the reason the chapter
    gives, even when the current folder is inside a clone (the variable wins)."""
    site, elsewhere, env = outside
    env[paths.ROOT_ENV] = str(elsewhere)
    before = _files(site, elsewhere)
    code = "from kperc_book.chapter import Chapter\nch = Chapter('ch03')\n"
    proc = _python(code, paths.ROOT, env)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert f": {paths.ROOT_ENV} names {elsewhere.resolve()}, which is not a clone of the " in last
    assert "so nothing was written" in last and "current folder" not in last
    assert _files(site, elsewhere) == before


def test_in_jupyter_the_error_is_one_sentence(outside):
    """A chapter's refusal in a kernel shows the sentence, not a traceback."""
    site, elsewhere, env = outside
    env[paths.ROOT_ENV] = str(elsewhere / "nowhere")
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
    assert shown.count("\n") == 0, shown
    assert shown.startswith(f"OutsideCheckout: {paths.ROOT_ENV} names "), shown
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

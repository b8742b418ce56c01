"""The README's install line, in a fresh virtual environment, is all a reader needs.

After ``python -m pip install -c requirements/constraints.txt -e . -e "./book-tools[test]"``
and no ``make``: the book builds, a chapter runs with papermill from the root and from
``book/``, nbval compares one, a kernel started in ``book/`` runs one (as JupyterLab's
"Run All" does), and the book's tools find the checkout
from any folder. The two wheels hold what they should: ``kperc`` only the library,
``kperc-book`` only the book's tools (with the files a chapter reads). And Chapter 1
copied alone into an empty folder runs in another fresh environment after its install
cell's command.

Slow (a fresh venv; pip takes the packages from its cache): ``make test`` runs it,
``make check`` does not.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: A chapter that reads a stored dataset (``ch.load``) and runs in seconds.
CHAPTER = "ch01_introduction.ipynb"
#: A cheaper setting of one of its parameters, for the papermill runs.
PARAMS = ["-p", "grid_res", "40"]


def _install_line() -> list[str]:
    """The install line, read from the README (so the test follows the documentation)."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Use the book in Jupyter", 1)[1].split("\n## ", 1)[0]
    lines = re.findall(r"^python -m pip install .*$", section, re.M)
    assert len(lines) == 1, lines
    return shlex.split(lines[0])[1:]  # without "python"


def _env() -> dict[str, str]:
    drop = ("PYTHONPATH", "KPERC_BOOK_ROOT", "VIRTUAL_ENV", "JUPYTER_PATH", "JUPYTER_CONFIG_DIR")
    # MPLBACKEND too: it would replace the notebooks' inline backend (no figure outputs)
    drop += ("MPLBACKEND",)
    return {k: v for k, v in os.environ.items() if k not in drop}


def _run(cmd, cwd, timeout=900) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=_env(), capture_output=True, text=True,
        timeout=timeout,
    )  # fmt: skip
    assert done.returncode == 0, (
        f"{' '.join(map(str, cmd))} (in {cwd}) failed:\n{done.stdout[-3000:]}\n"
        f"{done.stderr[-3000:]}"
    )
    return done


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory) -> Path:
    """A fresh virtual environment set up by the README's install line, nothing else."""
    where = tmp_path_factory.mktemp("install") / "venv"
    _run([sys.executable, "-m", "venv", where], cwd=ROOT)
    bin_dir = where / "bin"
    line = _install_line()
    assert line[:3] == ["-m", "pip", "install"]
    _run([bin_dir / "python", *line[:3], "--quiet", *line[3:]], cwd=ROOT)
    return bin_dir


def _outputs_ok(path: Path) -> None:
    nb = json.loads(path.read_text())
    errors = [
        o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]  # fmt: skip
    assert not errors, errors
    assert any(c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code")


def test_the_packages_come_from_the_install_not_from_a_path(venv_bin, tmp_path):
    code = (
        "import kperc, kperc_book\n"
        "from kperc_book import paths\n"
        "print(paths.ROOT)\n"
        "print(paths.require_checkout())\n"
    )
    for cwd in (tmp_path, ROOT, ROOT / "book"):
        out = _run([venv_bin / "python", "-c", code], cwd=cwd).stdout.split()
        assert out == [str(ROOT), str(ROOT)], (cwd, out)
    pths = "".join(p.read_text() for p in venv_bin.parent.glob("lib/python*/site-packages/*.pth"))
    assert "kperc-book-checkout" not in pths


def test_the_tools_say_so_outside_a_checkout(venv_bin, tmp_path):
    env_root = tmp_path / "not-a-checkout"
    env_root.mkdir()
    code = "from kperc_book import paths\npaths.require_checkout()\n"
    done = subprocess.run(
        [str(venv_bin / "python"), "-c", code],
        cwd=tmp_path,
        env={**_env(), "KPERC_BOOK_ROOT": str(env_root)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert "is not a kperc-book checkout" in done.stderr and "KPERC_BOOK_ROOT" in done.stderr
    assert "Traceback" not in done.stderr


def test_jupyter_book_builds_without_make(venv_bin, tmp_path):
    out = _run([venv_bin / "jupyter-book", "build", ".", "--path-output", tmp_path], cwd=ROOT)
    assert "Could not import extension" not in out.stdout + out.stderr
    assert (tmp_path / "_build" / "html" / "index.html").is_file()


@pytest.mark.parametrize("where", ["root", "book"])
def test_papermill_runs_a_chapter_from_the_root_and_from_book(venv_bin, tmp_path, where):
    cwd = ROOT if where == "root" else ROOT / "book"
    src = f"book/{CHAPTER}" if where == "root" else CHAPTER
    out = tmp_path / "out.ipynb"
    _run([venv_bin / "papermill", src, out, *PARAMS], cwd=cwd)
    _outputs_ok(out)


def test_nbval_compares_a_chapter_without_make(venv_bin):
    _run(
        [venv_bin / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval"]
        + [f"book/{CHAPTER}"],
        cwd=ROOT,
    )


def test_a_kernel_started_in_book_runs_a_chapter(venv_bin, tmp_path):
    """JupyterLab's "Run All": the environment's kernel, started in the notebook's folder."""
    code = (
        "import sys, nbclient, nbformat\n"
        f"nb = nbformat.read({CHAPTER!r}, as_version=4)\n"
        "client = nbclient.NotebookClient(nb, timeout=900, resources={'metadata': {'path': '.'}})\n"
        "client.execute()\n"
        "nbformat.write(nb, sys.argv[1])\n"
    )
    _run([venv_bin / "python", "-c", code, tmp_path / "run-all.ipynb"], cwd=ROOT / "book")
    _outputs_ok(tmp_path / "run-all.ipynb")


def test_each_wheel_holds_its_own_packages(venv_bin, tmp_path):
    for src, name in ((ROOT, "kperc"), (ROOT / "book-tools", "kperc_book")):
        _run(
            [venv_bin / "python", "-m", "pip", "wheel", "--quiet", "--no-deps", src]
            + ["-w", tmp_path],
            cwd=tmp_path,
        )
        (wheel,) = tmp_path.glob(f"{name}-*.whl")
        tops = {n.split("/")[0] for n in zipfile.ZipFile(wheel).namelist()}
        tops = {t for t in tops if not t.endswith(".dist-info")}
        want = {"kperc"} if name == "kperc" else {"kperc_book"}
        assert tops == want, (wheel.name, tops)
        wheel.unlink()


# --------------------------------------------------------------------------------------
# A chapter downloaded alone (issue 38): its install cell, a fresh venv, papermill
# --------------------------------------------------------------------------------------
#: The line of a chapter's install cell that says it runs on its own.
RUNS_ALONE = 'importlib.util.find_spec("kperc_book") is None'


def _install_cell(path: Path) -> tuple[str, list[str]]:
    """(the repository's address, the arguments of ``pip install``) of a chapter's
    install cell, with IPython's ``{repo}`` expanded as the ``%pip`` magic does."""
    cells = json.loads(path.read_text())["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    source = "".join(code[0]["source"])
    assert RUNS_ALONE in source, f"{path.name}: the first code cell is not the install cell"
    (repo,) = re.findall(r'^\s*repo = "([^"]+)"$', source, re.M)
    (line,) = re.findall(r"^\s*%pip install (.+)$", source, re.M)
    return repo, shlex.split(line.replace("{repo}", repo))


def _tree(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` (bytecode caches aside) and its size."""
    return {
        str(p.relative_to(folder)): p.stat().st_size
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_a_chapter_copied_alone_runs_after_its_install_cell(tmp_path):
    """ch01 alone in an empty folder, a fresh venv, the install cell's command with the
    repository replaced by the two wheels built from this checkout (the only network
    here is the package registry), then papermill: the chapter runs, its records go
    where it says, and nothing is written into site-packages or the folder's parent."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    repo, args = _install_cell(ROOT / "book" / CHAPTER)
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert repo == f"git+{urls['Source']}", (repo, urls)
    wheels = tmp_path / "wheels"
    for src in (ROOT, ROOT / "book-tools"):
        _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", src, "-w", wheels],
             cwd=tmp_path)  # fmt: skip
    built = {w.name.split("-")[0].replace("_", "-"): w for w in wheels.glob("*.whl")}
    assert set(built) == {"kperc", "kperc-book"}, built
    local, names = [], []
    for arg in args:
        name, at, url = arg.partition(" @ ")
        if at:  # a requirement from the repository: the wheel built from the checkout
            assert url.startswith(repo), arg
            names.append(name)
            arg = f"{name} @ {built[name].as_uri()}"
        local.append(arg)
    assert sorted(names) == ["kperc", "kperc-book"], args
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=tmp_path)
    _run([venv / "bin" / "python", "-m", "pip", "install", *local], cwd=tmp_path)
    (site,) = venv.glob("lib/python*/site-packages")
    reader = tmp_path / "reader"
    folder = reader / "chapter"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "book" / CHAPTER, folder / CHAPTER)
    before = _tree(site)
    env = {**_env(), "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("KPERC_BOOK_RECORDS", None)
    env["JUPYTER_DATA_DIR"] = str(tmp_path / "jupyter")  # no kernel of the user's
    done = subprocess.run(
        [str(venv / "bin" / "papermill"), CHAPTER, "run.ipynb", *PARAMS],
        cwd=folder, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    _outputs_ok(folder / "run.ipynb")
    cells = [c for c in json.loads((folder / "run.ipynb").read_text())["cells"]]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code[0]["outputs"] == []  # the install cell found the packages: silent
    records = folder / "kperc-book-records"
    said = [
        "".join(o.get("text", "")) for c in code for o in c["outputs"]
        if "writes its records" in "".join(o.get("text", ""))
    ]  # fmt: skip
    assert said == [
        f"ch01 writes its records (checks, glued numbers, figures) to {records.resolve()}; set "
        "KPERC_BOOK_RECORDS, or pass records= to Chapter, to choose another folder.\n"
    ], said
    record = json.loads((records / "_generated" / "ch01.json").read_text())
    committed = json.loads((ROOT / "book" / "_generated" / "ch01.json").read_text())
    assert record["datasets"] == committed["datasets"]  # the same stored bytes
    assert set(record["checks"]) == set(committed["checks"])
    assert sorted(p.name for p in (records / "figures").iterdir()) == sorted(
        Path(f["file"]).name for f in committed["figures"].values()
    )
    assert sorted(p.name for p in reader.iterdir()) == ["chapter"]
    assert sorted(p.name for p in folder.iterdir()) == [CHAPTER, "kperc-book-records", "run.ipynb"]
    assert _tree(site) == before  # nothing written beside the installed packages

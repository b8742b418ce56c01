"""A chapter regenerated under another BLAS kernel gives back what is committed.

A reader's CPU makes OpenBLAS pick another kernel (or the reader has Accelerate or MKL),
and another thread count splits sums differently. Everything a reader sees must come
back anyway: the text outputs of every cell and the chapter's record byte for byte, and
the figures within a stated pixel tolerance (their anti-aliasing may follow coordinates
that differ in the last bits). Within that tolerance the pipeline keeps the committed
bytes (:mod:`kperc_book.figure_drift`), so a regeneration leaves every file of the
chapter as it was. This test regenerates chapters in a copy of the repository with
``OPENBLAS_CORETYPE=Sandybridge OPENBLAS_NUM_THREADS=1`` (another kernel and one
thread, on any x86-64 machine) and compares.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kperc_book
from kperc_book import paths
from kperc_book.figure_drift import MAX_CHANGED_FRACTION, MAX_CHANNEL_DIFF, image_difference

pytestmark = pytest.mark.slow

#: The chapters regenerated here (cheap ones: the whole book runs in nbval under the
#: other configurations of ``make test``). Chapter 2's figures drift by round-off under
#: the other kernel (seen: 4 of them), so it exercises the figure tolerance.
CHAPTERS = {"ch01": "ch01_introduction.ipynb", "ch02": "ch02_linear_feasibility.ipynb"}

#: Another OpenBLAS kernel and another thread count than the machine's default.
OTHER_BLAS = {"OPENBLAS_CORETYPE": "Sandybridge", "OPENBLAS_NUM_THREADS": "1"}

TEXT_TYPES = ("text/plain", "text/html", "text/markdown", "text/latex")


def text_outputs(nb_path: Path) -> list[list[str]]:
    """Every text a reader (or nbval) sees, cell by cell; images left out."""
    nb = json.loads(nb_path.read_text())
    cells = []
    for cell in nb["cells"]:
        texts = []
        for out in cell.get("outputs", []):
            if "text" in out:
                texts.append("".join(out["text"]))
            for mime, value in (out.get("data") or {}).items():
                if mime.split("/", 1)[-1].startswith(TEXT_TYPES) or mime.endswith(TEXT_TYPES):
                    texts.append(
                        mime + ": " + ("".join(value) if isinstance(value, list) else value)
                    )
        cells.append(texts)
    return cells


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    """A copy of the checkout whose chapters were regenerated under :data:`OTHER_BLAS`."""
    root = paths.require_checkout()
    copy = tmp_path_factory.mktemp("other-machine") / "repo"
    # not the build output that test_install.py's pip may be writing meanwhile (make unit
    # runs test files on two workers)
    build = ("_build", "build", "dist", "*.egg-info")
    shutil.copytree(
        root,
        copy,
        ignore=shutil.ignore_patterns(".git", ".venv", *build, "__pycache__", ".*cache*"),
    )
    # the book's package as it sits in the copy (wherever the layout puts it)
    pkg_parent = Path(kperc_book.__file__).resolve().parent.parent.relative_to(root)
    env = dict(os.environ, **OTHER_BLAS)
    env["PYTHONPATH"] = os.pathsep.join([str(copy / pkg_parent), str(copy)])
    env.pop("KPERC_BOOK_STAGING", None)
    run = subprocess.run(
        [sys.executable, "-m", "kperc_book.reproduce", *CHAPTERS],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return copy


def test_the_other_blas_is_really_in_use():
    code = (
        "import numpy, threadpoolctl; numpy.ones(2) @ numpy.ones(2); "
        "print([(p.get('architecture'), p['num_threads']) for p in "
        "threadpoolctl.threadpool_info() if p['user_api'] == 'blas'])"
    )
    env = dict(os.environ, **OTHER_BLAS)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    pools = eval(out.stdout)  # noqa: S307 - our own literal output
    if not any(arch and arch.lower() == "sandybridge" for arch, _ in pools):
        pytest.skip(f"numpy's BLAS is not an OpenBLAS that takes OPENBLAS_CORETYPE: {pools}")
    assert all(threads == 1 for _, threads in pools)


@pytest.mark.parametrize("key", sorted(CHAPTERS))
def test_text_outputs_come_back(regenerated, key):
    name = CHAPTERS[key]
    assert text_outputs(regenerated / "book" / name) == text_outputs(paths.BOOK_DIR / name)


@pytest.mark.parametrize("key", sorted(CHAPTERS))
def test_the_notebook_and_record_come_back_byte_for_byte(regenerated, key):
    for rel in (
        paths.BOOK_DIR.relative_to(paths.ROOT) / CHAPTERS[key],
        paths.GENERATED_DIR.relative_to(paths.ROOT) / f"{key}.json",
    ):
        assert (regenerated / rel).read_bytes() == (paths.ROOT / rel).read_bytes(), rel


@pytest.mark.parametrize("key", sorted(CHAPTERS))
def test_figures_come_back_byte_for_byte(regenerated, key):
    """Within the pixel tolerance the committed bytes are kept; beyond it, say by how much."""
    rec = json.loads((paths.GENERATED_DIR / f"{key}.json").read_text())
    assert rec["figures"], f"{key} records no figure"
    for fig in rec["figures"].values():
        committed = paths.BOOK_DIR / fig["file"]
        fresh = regenerated / committed.relative_to(paths.ROOT)
        old, new = committed.read_bytes(), fresh.read_bytes()
        if old != new:
            changed, worst = image_difference(old, new)
            pytest.fail(
                f"{fig['file']}: {changed:.2%} of the pixels differ, by up to {worst:.2f} "
                f"(the tolerance is {MAX_CHANGED_FRACTION:.2%}, {MAX_CHANNEL_DIFF})"
            )

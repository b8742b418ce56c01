"""A chapter regenerated under another BLAS kernel gives back what is committed.

A reader's CPU makes OpenBLAS pick another kernel (or the reader has Accelerate or MKL),
and another thread count splits sums differently. Everything a reader sees must come
back anyway: the text outputs of every cell and the chapter's record byte for byte, and
the figures within a stated pixel tolerance (their anti-aliasing may follow coordinates
that differ in the last bits). This test regenerates a chapter in a copy of the
repository with ``OPENBLAS_CORETYPE=Sandybridge OPENBLAS_NUM_THREADS=1`` (another kernel
and one thread, on any x86-64 machine) and compares.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kperc_book
from kperc_book import paths

pytestmark = pytest.mark.slow

#: The chapters regenerated here (cheap ones: the whole book runs in nbval under the
#: other configurations of ``make test``).
CHAPTERS = {"ch01": "ch01_introduction.ipynb"}

#: Another OpenBLAS kernel and another thread count than the machine's default.
OTHER_BLAS = {"OPENBLAS_CORETYPE": "Sandybridge", "OPENBLAS_NUM_THREADS": "1"}

#: Pixel tolerance of a regenerated figure: at most this fraction of the pixels may
#: differ, each channel by at most ``MAX_CHANNEL_DIFF`` (anti-aliased edges move by a
#: fraction of a pixel when a coordinate moves in its last bits; a wrong curve, label or
#: number changes far more pixels, or by more).
MAX_CHANGED_FRACTION = 0.002
MAX_CHANNEL_DIFF = 0.5

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


def record_without_figure_bytes(path: Path) -> dict:
    rec = json.loads(path.read_text())
    for fig in rec.get("figures", {}).values():
        fig.pop("sha256", None)
    return rec


def image_difference(a: Path, b: Path) -> tuple[float, float]:
    """(fraction of differing pixels, largest channel difference) of two PNG files."""
    import matplotlib.image as mpimg

    x, y = mpimg.imread(a), mpimg.imread(b)
    if x.shape != y.shape:
        return 1.0, 1.0
    diff = np.abs(x.astype(float) - y.astype(float))
    changed = diff.max(axis=-1) > 0 if diff.ndim == 3 else diff > 0
    return float(changed.mean()), float(diff.max())


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    """A copy of the checkout whose chapters were regenerated under :data:`OTHER_BLAS`."""
    root = paths.require_checkout()
    copy = tmp_path_factory.mktemp("other-machine") / "repo"
    shutil.copytree(
        root,
        copy,
        ignore=shutil.ignore_patterns(".git", ".venv", "_build", "__pycache__", ".*cache*"),
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
def test_record_comes_back(regenerated, key):
    rel = paths.GENERATED_DIR.relative_to(paths.ROOT) / f"{key}.json"
    assert record_without_figure_bytes(regenerated / rel) == record_without_figure_bytes(
        paths.ROOT / rel
    )


@pytest.mark.parametrize("key", sorted(CHAPTERS))
def test_figures_come_back_within_the_pixel_tolerance(regenerated, key):
    rec = json.loads((paths.GENERATED_DIR / f"{key}.json").read_text())
    assert rec["figures"], f"{key} records no figure"
    for fig in rec["figures"].values():
        committed = paths.BOOK_DIR / fig["file"]
        fresh = regenerated / committed.relative_to(paths.ROOT)
        changed, worst = image_difference(committed, fresh)
        assert changed <= MAX_CHANGED_FRACTION and worst <= MAX_CHANNEL_DIFF, (
            f"{fig['file']}: {changed:.2%} of the pixels differ, by up to {worst:.2f}"
        )

"""A figure that drifted by round-off keeps its committed bytes; a changed one does not."""

from __future__ import annotations

import base64
import hashlib
import io
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from kperc_book import figure_drift  # noqa: E402


def _png(ys, *, dpi: int = 80) -> bytes:
    fig, ax = plt.subplots(figsize=(3, 2), dpi=dpi)
    ax.plot(np.linspace(0, 1, ys.size), ys, lw=1.2)
    ax.set_ylim(-1.5, 1.5)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)  # not rcParams["savefig.dpi"] (a style may set it)
    plt.close(fig)
    return buf.getvalue()


BASE = np.sin(np.linspace(0, 6, 200))
#: the same curve with coordinates moved in their last bits (another machine's rounding)
DRIFTED = BASE * (1 + 64 * np.finfo(float).eps * np.cos(np.arange(200)))
#: another curve (a real change)
CHANGED = np.sin(np.linspace(0, 6, 200) + 0.3)


def _drifted_pair() -> tuple[bytes, bytes]:
    a, b = _png(BASE), _png(DRIFTED)
    if a == b:  # try harder until the anti-aliasing notices (it usually does at once)
        for k in range(1, 50):
            b = _png(BASE * (1 + 2**k * np.finfo(float).eps * np.cos(np.arange(200))))
            if a != b:
                break
    return a, b


def test_the_tolerance_separates_round_off_from_a_change():
    a, b = _drifted_pair()
    assert a != b
    assert figure_drift.same_up_to_roundoff(a, b)
    assert not figure_drift.same_up_to_roundoff(a, _png(CHANGED))
    assert not figure_drift.same_up_to_roundoff(a, _png(BASE, dpi=90))  # another size
    assert not figure_drift.same_up_to_roundoff(a, b"not a png")


def _chapter(tmp_path, committed: bytes, staged: bytes):
    book, stage = tmp_path / "book", tmp_path / "stage"
    for root, png in ((book, committed), (stage, staged)):
        (root / "figures").mkdir(parents=True)
        (root / "_generated").mkdir()
        (root / "figures" / "ch09-curve.png").write_bytes(png)
        record = {"figures": {"ch09-curve.png": {"sha256": hashlib.sha256(png).hexdigest()}}}
        (root / "_generated" / "ch09.json").write_text(json.dumps(record))
    return book, stage


def test_a_drifted_figure_keeps_its_committed_bytes_and_sha(tmp_path):
    old, new = _drifted_pair()
    book, stage = _chapter(tmp_path, old, new)
    assert figure_drift.keep_committed_figures(stage, book, "ch09") == ["ch09-curve.png"]
    assert (stage / "figures" / "ch09-curve.png").read_bytes() == old
    rec = json.loads((stage / "_generated" / "ch09.json").read_text())
    assert rec["figures"]["ch09-curve.png"]["sha256"] == hashlib.sha256(old).hexdigest()


def test_a_changed_figure_replaces_the_committed_one(tmp_path):
    new = _png(CHANGED)
    book, stage = _chapter(tmp_path, _png(BASE), new)
    assert figure_drift.keep_committed_figures(stage, book, "ch09") == []
    assert (stage / "figures" / "ch09-curve.png").read_bytes() == new


def _notebook(png: bytes, source: str = "plot()") -> dict:
    data = base64.b64encode(png).decode()
    return {
        "cells": [
            {
                "cell_type": "code",
                "source": source,
                "outputs": [
                    {"output_type": "display_data", "data": {"image/png": data}},
                    {
                        "output_type": "display_data",
                        "data": {"application/papermill.record/image/png": data},
                    },
                ],
            }
        ]
    }


def test_notebook_images_that_drifted_keep_their_committed_bytes(tmp_path):
    old, new = _drifted_pair()
    committed = tmp_path / "ch09.ipynb"
    committed.write_text(json.dumps(_notebook(old)))
    nb = _notebook(new)
    assert figure_drift.keep_committed_notebook_images(nb, committed) == 2
    assert nb == _notebook(old)


def test_notebook_images_are_replaced_when_changed(tmp_path):
    committed = tmp_path / "ch09.ipynb"
    committed.write_text(json.dumps(_notebook(_png(BASE))))
    changed = _notebook(_png(CHANGED))
    assert figure_drift.keep_committed_notebook_images(changed, committed) == 0
    assert changed == _notebook(_png(CHANGED))


def test_a_drifted_image_is_found_after_its_cell_moved(tmp_path):
    old, new = _drifted_pair()
    committed = tmp_path / "ch09.ipynb"
    before = _notebook(old)
    before["cells"].insert(0, {"cell_type": "code", "source": "setup()", "outputs": []})
    committed.write_text(json.dumps(before))
    moved = _notebook(new, source="plot(split)")  # the cell was edited and moved up
    assert figure_drift.keep_committed_notebook_images(moved, committed) == 2
    assert moved == _notebook(old, source="plot(split)")

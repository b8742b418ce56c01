"""Figures that differ from the committed ones only by round-off keep their committed bytes.

A reader's machine rounds differently (another OpenBLAS kernel, Accelerate, MKL, another
thread count). The numbers a chapter prints are rounded to their stable digits, but a
figure draws coordinates at full precision, and an anti-aliased edge can move by a
fraction of a pixel when a coordinate moves in its last bits. Such a figure shows the
same thing; rewriting its bytes would only leave a reader's checkout dirty after
``make``. So before a chapter is committed, every image it produced (its figure files
and the images inside its notebook) is compared with the committed one: within the
pixel tolerance below, the committed bytes are kept (and the chapter's record keeps
their sha256); beyond it, the new image replaces the old one.

The tolerance: at most :data:`MAX_CHANGED_FRACTION` of the pixels may differ, each
channel by at most :data:`MAX_CHANNEL_DIFF` (on a 0-1 scale). A moved curve, a changed
label or another number changes far more pixels, or by more; a figure of another size
never counts as unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from .paths import record_dirs

__all__ = [
    "MAX_CHANGED_FRACTION",
    "MAX_CHANNEL_DIFF",
    "image_difference",
    "same_up_to_roundoff",
    "keep_committed_figures",
    "keep_committed_notebook_images",
]

#: Largest fraction of pixels that may differ between two renderings of one figure.
MAX_CHANGED_FRACTION = 0.002
#: Largest difference of one colour channel (0-1 scale) at a differing pixel.
MAX_CHANNEL_DIFF = 0.5

#: The MIME types under which a notebook holds PNG images (inline and glued).
PNG_TYPES = ("image/png", "application/papermill.record/image/png")


def _pixels(png: bytes) -> np.ndarray:
    import matplotlib.image as mpimg

    return np.asarray(mpimg.imread(io.BytesIO(png), format="png"), dtype=float)


def image_difference(a: bytes, b: bytes) -> tuple[float, float]:
    """(fraction of differing pixels, largest channel difference) of two PNG images.

    Images of different shapes give ``(1.0, 1.0)``.

    Examples
    --------
    >>> import io, matplotlib.pyplot as plt
    >>> def png(y):
    ...     fig, ax = plt.subplots(figsize=(1, 1), dpi=50)
    ...     ax.plot([0, 1], [0, y])
    ...     buf = io.BytesIO()
    ...     fig.savefig(buf, format="png")
    ...     plt.close(fig)
    ...     return buf.getvalue()
    >>> image_difference(png(1.0), png(1.0))
    (0.0, 0.0)
    >>> image_difference(png(1.0), png(0.2))[0] > MAX_CHANGED_FRACTION
    True
    """
    x, y = _pixels(a), _pixels(b)
    if x.shape != y.shape:
        return 1.0, 1.0
    diff = np.abs(x - y)
    changed = diff.max(axis=-1) > 0 if diff.ndim == 3 else diff > 0
    return float(changed.mean()), float(diff.max())


def same_up_to_roundoff(a: bytes, b: bytes) -> bool:
    """Whether two PNG images differ by no more than the stated pixel tolerance."""
    if a == b:
        return True
    try:
        fraction, channel = image_difference(a, b)
    except (ValueError, OSError, SyntaxError):  # not a readable PNG: never the same
        return False
    return fraction <= MAX_CHANGED_FRACTION and channel <= MAX_CHANNEL_DIFF


def keep_committed_figures(stage: Path, book_dir: Path, key: str) -> list[str]:
    """Put the committed bytes back for each staged figure of ``key`` that only drifted.

    Parameters
    ----------
    stage : path
        The chapter's staging folder (``figures/`` and ``_generated/`` inside).
    book_dir : path
        The book folder holding the committed ``figures/`` and ``_generated/``.
    key : str
        Chapter key; its record is ``_generated/<key>.json``.

    Returns
    -------
    list of str
        The names of the figures whose committed bytes were kept.
    """
    kept: list[str] = []
    staged_records, staged_figs = record_dirs(stage)
    committed_figs = record_dirs(book_dir)[1]
    if not staged_figs.is_dir():
        return kept
    for new in sorted(staged_figs.glob(f"{key}-*.png")):
        old = committed_figs / new.name
        if not old.is_file():
            continue
        old_bytes, new_bytes = old.read_bytes(), new.read_bytes()
        if old_bytes != new_bytes and same_up_to_roundoff(old_bytes, new_bytes):
            from ._fsio import atomic_write

            atomic_write(new, old_bytes, durable=False)
            kept.append(new.name)
    record = staged_records / f"{key}.json"
    if kept and record.is_file():
        from .chapter import _write_json

        payload = json.loads(record.read_text())
        for name in kept:
            entry = payload.get("figures", {}).get(name)
            if isinstance(entry, dict) and "sha256" in entry:
                entry["sha256"] = hashlib.sha256((staged_figs / name).read_bytes()).hexdigest()
        _write_json(record, payload)
    return kept


def _images(nb: Any) -> list[tuple[int, int, str]]:
    """(cell index, output index, MIME type) of every PNG output of a notebook."""
    found = []
    for i, cell in enumerate(nb.get("cells", [])):
        for j, out in enumerate(cell.get("outputs", []) or []):
            for mime in PNG_TYPES:
                if mime in (out.get("data") or {}):
                    found.append((i, j, mime))
    return found


def _text(value: Any) -> str:
    """A notebook field as one string (on disk it may be a list of lines)."""
    return "".join(value) if isinstance(value, list) else str(value)


def _png(value: Any) -> bytes:
    return base64.b64decode(_text(value))


def keep_committed_notebook_images(new_nb: Any, committed: Path) -> int:
    """In ``new_nb`` (a notebook dict), put back each committed image that only drifted.

    Each new image is compared with the committed notebook's image at the same place
    (cell, output, MIME type) first, then with its other images of that MIME type (cells
    may have been split or moved); the first one within the pixel tolerance gives back
    its bytes. An image that matches none stays as it is.

    Returns
    -------
    int
        The number of images whose committed bytes were kept.
    """
    if not committed.is_file():
        return 0
    try:
        old_nb = json.loads(committed.read_text())
    except (OSError, ValueError):
        return 0
    old_cells, new_cells = old_nb.get("cells", []), new_nb.get("cells", [])
    old_images = {
        (i, j, mime): _text(old_cells[i]["outputs"][j]["data"][mime])
        for i, j, mime in _images(old_nb)
    }
    kept = 0
    for i, j, mime in _images(new_nb):
        new_value = _text(new_cells[i]["outputs"][j]["data"][mime])
        if new_value in old_images.values():
            continue
        same_place = old_images.get((i, j, mime))
        others = [v for (_, _, m), v in old_images.items() if m == mime and v != same_place]
        candidates = ([same_place] if same_place is not None else []) + others
        new_png = _png(new_value)
        for old_value in candidates:
            if same_up_to_roundoff(_png(old_value), new_png):
                new_cells[i]["outputs"][j]["data"][mime] = old_value
                kept += 1
                break
    return kept

"""Values glued by other chapters: read an executed notebook's glue outputs."""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kperc_book.paths import BOOK_DIR

GLUE_PREFIX = "application/papermill.record/"


class MissingGlueError(RuntimeError):
    """A value another chapter should have glued is not there (chapter not run yet?)."""


def _parse_plain(text: str) -> Any:
    """Turn the ``text/plain`` repr of a glued value back into a Python value.

    Literals (numbers, strings, lists, ...) are parsed; NumPy scalar reprs such as
    ``np.float64(0.5)`` are unwrapped; anything else is returned as the text.
    """
    text = text.strip()
    m = re.fullmatch(r"np\.(?:float|int|uint|bool_?)\d*\((.*)\)", text)
    if m:
        text = m.group(1)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def read_glue(path: Path | str) -> dict[str, Any]:
    """Every value glued (with myst-nb ``glue``) in an executed notebook.

    myst-nb stores a glued value as a ``display_data`` output whose metadata carries
    ``{"scrapbook": {"name": key, "mime_prefix": prefix}}``; the value's ``text/plain``
    representation sits under ``prefix + "text/plain"``.

    Parameters
    ----------
    path : path
        An executed ``.ipynb`` file.

    Returns
    -------
    dict
        ``key -> value`` (parsed back from the text representation; a figure or other
        non-text value maps to ``None``). A key glued twice keeps its last value, as
        myst-nb does.
    """
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    out: dict[str, Any] = {}
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs", []):
            meta = output.get("metadata", {}) or {}
            sb = meta.get("scrapbook")
            if not sb or "name" not in sb:
                continue
            prefix = sb.get("mime_prefix", "") or ""
            bundle = output.get("data", {}) or {}
            text = bundle.get(prefix + "text/plain")
            if isinstance(text, list):
                text = "".join(text)
            only_text = all(k[len(prefix) :] in ("text/plain",) for k in bundle)
            out[sb["name"]] = _parse_plain(text) if (text is not None and only_text) else None
    return out


def chapter_notebook(key: str, book_dir: Path | str = BOOK_DIR) -> Path:
    """The notebook ``book/<key>_*.ipynb`` of a chapter such as ``"ch04"``.

    Raises
    ------
    MissingGlueError
        No such notebook (the chapter is not written yet), or several.
    """
    book_dir = Path(book_dir)
    found = sorted(book_dir.glob(f"{key}_*.ipynb"))
    if len(found) != 1:
        what = "no notebook" if not found else f"{len(found)} notebooks"
        raise MissingGlueError(
            f"{what} matching book/{key}_*.ipynb: chapter {key} must be written and "
            f"executed (python -m kperc_book.reproduce {key}) before this chapter can quote "
            "its measurements."
        )
    return found[0]


def _generated_glue(key: str, generated_dir: Path) -> dict[str, Any]:
    """Values a chapter recorded under ``"glue"`` in ``book/_generated/<key>.json``."""
    path = generated_dir / f"{key}.json"
    if not path.exists():
        return {}
    try:
        payload = json.loads(path.read_text())
    except json.JSONDecodeError:
        return {}
    glue = payload.get("glue", {})
    return dict(glue) if isinstance(glue, Mapping) else {}


def glued_values(
    key: str,
    names: Iterable[str],
    *,
    book_dir: Path | str = BOOK_DIR,
    generated_dir: Path | str | None = None,
) -> dict[str, Any]:
    """Fetch values chapter ``key`` glued; fail clearly if any is missing.

    The executed notebook is the primary source; a ``"glue"`` mapping in
    ``book/_generated/<key>.json`` (if the chapter records one) is used as a fallback.

    Parameters
    ----------
    key : str
        Chapter key such as ``"ch04"``.
    names : iterable of str
        Glue keys needed.
    book_dir, generated_dir : path, optional
        Where the notebooks and the generated records live (for tests).

    Returns
    -------
    dict
        ``name -> value`` for every requested name.

    Raises
    ------
    MissingGlueError
        The chapter's notebook is missing, or it glued none of some of the names, or
        glued a non-numeric value for one of them.
    """
    names = list(names)
    book_dir = Path(book_dir)
    generated_dir = Path(generated_dir) if generated_dir else book_dir / "_generated"
    found = _generated_glue(key, generated_dir)
    try:
        nb = chapter_notebook(key, book_dir)
    except MissingGlueError:
        if all(n in found for n in names):
            return {n: found[n] for n in names}
        raise
    found.update(read_glue(nb))
    missing = [n for n in names if n not in found]
    if missing:
        have = ", ".join(sorted(found)) or "(nothing glued: is the notebook executed?)"
        raise MissingGlueError(
            f"{nb.name} glues no value named {', '.join(repr(m) for m in missing)}; "
            f"re-run it (python -m kperc_book.reproduce {key}) or update "
            f"kperc_book.experiments.ch07.ALGORITHMS. It glues: {have}"
        )
    bad = [
        n
        for n in names
        if not isinstance(found[n], (int, float))
        or isinstance(found[n], bool)
        or not math.isfinite(found[n])
    ]
    if bad:
        raise MissingGlueError(
            f"{nb.name}: glued value(s) {', '.join(repr(b) for b in bad)} are not finite "
            f"numbers: {[found[b] for b in bad]}"
        )
    return {n: found[n] for n in names}

"""Values other chapters glued, read from their records in ``book/_generated/``.

Every value a chapter glues (:meth:`kperc_book.chapter.Chapter.glue`) is also written to
the chapter's record, ``book/_generated/<key>.json``, under ``"glue"``. Chapter 7 quotes
measurements of Chapters 2, 4 and 6 from those records: it depends on them having been
regenerated first (``python -m kperc_book.reproduce`` runs the chapters in the order of
``_toc.yml``), and says so clearly when they have not.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kperc_book.paths import BOOK_DIR, GENERATED_DIR


class MissingGlueError(RuntimeError):
    """A value another chapter should have glued is not there (chapter not run yet?)."""


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


def recorded_glue(key: str, generated_dir: Path | str = GENERATED_DIR) -> dict[str, Any]:
    """Every value chapter ``key`` glued, from its record ``<generated_dir>/<key>.json``.

    Raises
    ------
    MissingGlueError
        The record is missing or unreadable, or it holds no ``"glue"`` mapping.
    """
    path = Path(generated_dir) / f"{key}.json"
    try:
        payload = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise MissingGlueError(
            f"no readable record of chapter {key} ({path.name}: {type(err).__name__}); "
            f"regenerate it first: python -m kperc_book.reproduce {key}"
        ) from None
    glue = payload.get("glue") if isinstance(payload, Mapping) else None
    if not isinstance(glue, Mapping):
        raise MissingGlueError(
            f"the record of chapter {key} holds no glued values; regenerate it first: "
            f"python -m kperc_book.reproduce {key}"
        )
    return dict(glue)


def glued_values(
    key: str,
    names: Iterable[str],
    *,
    generated_dir: Path | str = GENERATED_DIR,
) -> dict[str, Any]:
    """Fetch numbers chapter ``key`` glued; fail clearly if any is missing.

    Parameters
    ----------
    key : str
        Chapter key such as ``"ch04"``.
    names : iterable of str
        Glue keys needed.
    generated_dir : path, optional
        Where the chapters' records live (for tests).

    Returns
    -------
    dict
        ``name -> value`` for every requested name.

    Raises
    ------
    MissingGlueError
        The chapter's record is missing, or it glued none of some of the names, or a
        value that is not a finite number.
    """
    names = list(names)
    found = recorded_glue(key, generated_dir)
    missing = [n for n in names if n not in found]
    if missing:
        have = ", ".join(sorted(found)) or "(nothing)"
        raise MissingGlueError(
            f"chapter {key} glues no value named {', '.join(repr(m) for m in missing)}; "
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
            f"chapter {key}: glued value(s) {', '.join(repr(b) for b in bad)} are not finite "
            f"numbers: {[found[b] for b in bad]}"
        )
    return {n: found[n] for n in names}

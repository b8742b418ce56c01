"""Helpers shared by the chapters' experiment modules.

One implementation of each small numerical helper, so that every chapter fits and reports
in the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from kperc_book import data as _data
from kperc_book import paths

__all__ = [
    "REAL_PROBLEMS",
    "TIMINGS_PATH",
    "loglog_slope",
    "glue_all",
    "ClaimError",
    "Verdict",
    "GlueItems",
    "make_verdict",
    "table_text",
    "LINE_WIDTH",
]

#: Longest printed line, in characters, that a page shows without cutting it off.
LINE_WIDTH = 90

#: The stored kernel problems (the keys of :data:`kperc_book.data.PROBLEMS`, in order):
#: Chapter 4 runs NKP and SNKP on them, and ``make bench-micro`` times those runs.
REAL_PROBLEMS = tuple(_data.PROBLEMS)

#: Where ``make bench-micro`` (``bench/test_realdata.py``) stores Chapter 4's timings:
#: pytest-benchmark's JSON, one entry per (problem, method) in ``benchmarks``, with
#: ``extra_info`` (``problem``, ``n``, ``method``, ``nit``) and ``stats`` (``median``,
#: ``rounds``, ... in seconds). Outside a clone, the copy the package ships.
TIMINGS_PATH = paths.generated_dir() / "micro" / "realdata.json"


def loglog_slope(
    x: ArrayLike,
    y: ArrayLike,
    *,
    nonpositive: Literal["raise", "drop"] = "raise",
) -> float:
    """Least-squares slope of ``log y`` against ``log x`` (the exponent of a power law).

    Parameters
    ----------
    x, y : array_like of float
        The abscissae and the measured values, of equal length.
    nonpositive : {"raise", "drop"}, default "raise"
        Policy for pairs in which ``x <= 0`` or ``y <= 0`` (no logarithm exists; the usual
        case is an iteration count of 0, a run that halts before its first update).
        ``"raise"`` refuses them, because silently dropping points changes the fitted
        exponent. ``"drop"`` fits the remaining pairs; use it only where the text says that
        zero counts are left out of the fit.

    Returns
    -------
    float
        The fitted slope.

    Raises
    ------
    ValueError
        If ``x`` and ``y`` differ in length, if ``nonpositive`` is unknown, if a pair is
        non-positive under ``nonpositive="raise"``, or if fewer than two pairs remain.
    """
    xs = np.asarray(x, dtype=float).ravel()
    ys = np.asarray(y, dtype=float).ravel()
    if xs.shape != ys.shape:
        raise ValueError(
            f"x and y must have the same length, got {xs.size} and {ys.size}; "
            "pass one measured value per abscissa."
        )
    if nonpositive not in ("raise", "drop"):
        raise ValueError(f"nonpositive must be 'raise' or 'drop', got {nonpositive!r}.")
    keep = (xs > 0) & (ys > 0) & np.isfinite(xs) & np.isfinite(ys)
    if nonpositive == "raise" and not keep.all():
        raise ValueError(
            f"{int((~keep).sum())} pair(s) have a non-positive or non-finite value, which has "
            "no logarithm; remove them first or pass nonpositive='drop'."
        )
    if keep.sum() < 2:
        raise ValueError(
            f"a slope needs at least two positive pairs, got {int(keep.sum())}; "
            "measure more points."
        )
    return float(np.polyfit(np.log(xs[keep]), np.log(ys[keep]), 1)[0])


class ClaimError(RuntimeError):
    """A claim the chapter's text makes about its numbers does not hold."""


#: The keyword arguments of :meth:`kperc_book.chapter.Chapter.check` after the result id,
#: ``{"ok": bool, "detail": str, "instances": int}`` (``ch.check(id, **verdict)``;
#: ``instances`` is keyword-only there).
Verdict = dict[str, Any]

#: Numbers the prose quotes: ``(glue name, value, significant digits)``, in order.
GlueItems = list[tuple[str, Any, int]]


def make_verdict(ok: bool, detail: str, instances: int) -> Verdict:
    """A :data:`Verdict`: whether every instance held, what was checked, how many."""
    return {"ok": bool(ok), "detail": detail, "instances": int(instances)}


def glue_all(ch: Any, items: Sequence[tuple[str, Any, int]]) -> None:
    """Glue every ``(name, value, digits)`` of ``items`` with ``ch.glue``, in order.

    The chapters' ``*_glue`` functions return such lists, so that the numbers a
    chapter's prose quotes are computed (and tested) outside the notebook.
    """
    for name, value, digits in items:
        ch.glue(name, value, digits=digits)


def table_text(
    df: pd.DataFrame,
    names: dict[str, str] | None = None,
    *,
    index: bool = True,
    float_format: Any = None,
    na: str = "-",
) -> str:
    """``df`` as printed text for a reader: columns and index levels renamed with
    ``names`` (a code name to a heading), missing values shown as ``na``.

    Raises
    ------
    ValueError
        If a line is longer than :data:`LINE_WIDTH` characters: a page would cut it off,
        so shorten the headings or split the table.
    """
    names = names or {}
    out = df.rename(columns=names)
    if index:
        out = out.rename_axis(index=[names.get(str(n), n) for n in out.index.names])
    text = out.to_string(index=index, float_format=float_format, na_rep=na)
    longest = max(len(line) for line in text.splitlines())
    if longest > LINE_WIDTH:
        raise ValueError(
            f"a printed line is {longest} characters long, more than {LINE_WIDTH}; "
            "shorten the headings or split the table"
        )
    return text

"""Figures of Chapter 7: the open-question sweep and the margin paths.

The drawing code is shared with other chapters' figures in
:mod:`kperc_book.experiments.plots`; this module feeds it what
:mod:`kperc_book.experiments.ch07` computed and holds what the chapter's cells pass
to ``ch.figure``: the alt texts (:data:`OPEN_QUESTION_ALT`, :data:`MARGIN_PATHS_ALT`,
which the chapter's ``{glue:figure}`` directives repeat) and the floor of the margin
paths' axis (:data:`PATH_FLOOR`, quoted in the caption).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kperc_book.experiments import plots

__all__ = ["OPEN_QUESTION_ALT", "MARGIN_PATHS_ALT", "PATH_FLOOR", "open_question", "margin_paths"]

#: Alt text of the figure ``ch07-open-question``.
OPEN_QUESTION_ALT = (
    "Two log-log panels of halting index against the number of points n, for SNKPVN, "
    "ISNKPVN and SNKP, with reference curves proportional to sqrt(n) and sqrt(log n) and "
    "SNKPVN's bound. Left, balanced family: all three methods fall slightly with n and "
    "coincide. Right, imbalanced family: SNKPVN and ISNKPVN grow like sqrt(n), above "
    "SNKPVN's lower bound and below its upper bound, while SNKP follows sqrt(log n)."
)

#: Alt text of the figure ``ch07-margin-paths``.
MARGIN_PATHS_ALT = (
    "Five panels, one per real kernel problem, of the margin of the iterates as a fraction "
    "of the optimal margin against the iteration on a log axis: SNKP (green) rises "
    "smoothly to the optimum, NKP (blue) oscillates and approaches it more slowly; black "
    "ticks mark each method's first separator."
)

#: Margin ratios below this value are drawn at it in the margin-paths figure.
PATH_FLOOR = -0.25


def open_question(sweep: Mapping[str, Any], ns: Sequence[int], rho: float):
    """Halting indices against ``n`` on both families (:func:`plots.open_question`).

    Parameters
    ----------
    sweep : mapping
        :func:`kperc_book.experiments.ch07.sweep_table` (its ``med``, ``slopes``, ``low``).
    ns : sequence of int
        The sizes of the sweep.
    rho : float
        Its margin.
    """
    return plots.open_question(sweep["med"], sweep["slopes"], sweep["low"], ns, rho)


def margin_paths(paths: Mapping[str, Mapping[str, Any]], *, floor: float = PATH_FLOOR):
    """Margin of the NKP and SNKP iterates per problem (:func:`plots.margin_paths`)."""
    return plots.margin_paths(paths, floor=floor)

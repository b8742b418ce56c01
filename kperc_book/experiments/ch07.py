"""Chapter 7 (paper Section 7): discussion and open problems.

What the chapter notebook ``book/ch07_discussion.ipynb`` computes, all of it here so
that tests reach it:

* **Values glued by other chapters.** :func:`read_glue` parses an executed notebook
  for myst-nb glue outputs; :func:`glued_values` fetches named values from a chapter
  and raises :class:`MissingGlueError` (naming the chapter, the keys and the command
  that regenerates it) when one is missing. The book's summary table
  (:data:`ALGORITHMS`, :func:`summary_markdown`) quotes the rates Chapters 4 and 6
  measured through them.
* **The open question** (can the primal-dual method's ``sqrt(n)`` become
  ``sqrt(log n)``?): :func:`imbalanced` builds instances with an exact margin on
  which the Euclidean prox-function is slow, :func:`n_sweep` counts the iterations of
  SNKPVN, ISNKPVN and SNKP as ``n`` grows at a fixed margin, :func:`loglog_slope`
  fits the growth exponent, and :func:`check_bounds` tests every count against its
  explicit bound (the paper's Sections 4 and 6).
* **Perceptrons versus the max-margin SVM**: :func:`svc_homogeneous` solves the
  bias-free hard-margin SVM with scikit-learn's SVC on the normalised kernel (by
  symmetrising the signed points, which forces the intercept to 0);
  :func:`svm_comparison` compares the margins that SNKP, NKP and the SVM return with
  the exact optimum :func:`kperc.margin`; :func:`margin_paths` follows the margin of
  the perceptron iterates after they first separate.
* **Timings** never run inside the notebook: :func:`write_timings` (``python -m
  kperc_book.experiments.ch07 --timings``) writes medians over repeats to
  ``book/_generated/timings/ch07-svm.json``; :func:`read_timings` reads them back.
* **The affine margin** (the paper's Sections 5 and 7): :func:`affine_margin_demo`.
"""

from __future__ import annotations

import argparse
import ast
import datetime as _dt
import json
import math
import os
import platform
import re
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

import kperc
from kperc.sweeps import grid, sweep
from kperc_book import data as kdata
from kperc_book.experiments._common import loglog_slope
from kperc_book.paths import BOOK_DIR, TIMINGS_DIR
from kperc_book.paths import ROOT as REPO_DIR

__all__ = [
    "MissingGlueError",
    "read_glue",
    "chapter_notebook",
    "glued_values",
    "Measured",
    "Algorithm",
    "ALGORITHMS",
    "required_glue",
    "measured_values",
    "summary_markdown",
    "imbalanced",
    "balanced",
    "FAMILIES",
    "lone_weight_needed",
    "snkpvn_lower_bound",
    "probe_instance",
    "n_sweep",
    "medians",
    "loglog_slope",
    "sqrt_log_slope",
    "check_bounds",
    "isnkpvn_call_bound",
    "separator_margin",
    "svc_homogeneous",
    "load_problems",
    "svm_comparison",
    "svm_checks",
    "margin_paths",
    "TIMINGS_PATH",
    "TIMING_METHODS",
    "write_timings",
    "read_timings",
    "timings_markdown",
    "affine_margin_demo",
    "main",
]

TIMINGS_PATH = TIMINGS_DIR / "ch07-svm.json"
TIMINGS_COMMAND = "python -m kperc_book.experiments.ch07 --timings"

# --------------------------------------------------------------------------------------
# Values glued by other chapters
# --------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------
# Summary table of the book's algorithms
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """A rate another chapter measured and glued.

    Attributes
    ----------
    chapter : str
        Chapter key (``"ch04"``).
    key : str
        Glue key in that chapter.
    template : str
        MyST text with ``{value}`` where the (formatted) number goes.
    fmt : str
        Format specification of the value (``".2f"``).
    """

    chapter: str
    key: str
    template: str
    fmt: str = ".2f"


@dataclass(frozen=True)
class Algorithm:
    """One row of the summary table (MyST markdown cells)."""

    name: str
    section: str
    guarantee: str
    cost: str
    measured: tuple[Measured, ...] = ()
    note: str = ""


#: The algorithms of the book, their explicit guarantees (derived in the book), their cost per
#: iteration and the glued measurements that quote what the book observed.
ALGORITHMS: tuple[Algorithm, ...] = (
    Algorithm(
        "Perceptron (Alg. 1)",
        "2.1",
        r"$K\le R^2/\rho^2$ (Block-Novikoff)",
        r"$O(nd)$ (linear form)",
        (
            Measured(
                "ch02",
                "ch02_worst_ratio_perceptron",
                "at most {value} of the bound on planted data",
                ".2g",
            ),
            Measured("ch04", "slope_perceptron", r"iterations $\propto\rho^{{-{value}}}$"),
        ),
    ),
    Algorithm(
        "Normalised Perceptron (Alg. 2)",
        "2.1",
        r"$K\le 1/\rho_2^2$",
        r"$O(nd)$ (linear form)",
        (
            Measured(
                "ch02", "ch02_worst_ratio_np", "at most {value} of the bound on planted data", ".2g"
            ),
        ),
    ),
    Algorithm(
        "NKP (Alg. 3)",
        "4",
        r"$K\le 1/\rho_K^2$",
        r"$O(n)$: one column of $G$",
        (
            Measured("ch03", "ch03_nkp_bound_ratio", "at most {value} of the bound", ".2g"),
            Measured("ch04", "slope_nkp", r"iterations $\propto\rho^{{-{value}}}$"),
        ),
    ),
    Algorithm(
        "SNKP (Alg. 4)",
        "4",
        r"$K(K+1)\le 8\log n/\rho_K^2$, so $K<2\sqrt{2\log n}/\rho_K$",
        r"$O(n^2)$: one product with $G$ ($O(nd)$ factored), softmax $O(n)$",
        (
            Measured("ch04", "snkp_bound_ratio_max", "at most {value} of the bound", ".2g"),
            Measured("ch04", "slope_snkp", r"iterations $\propto\rho^{{-{value}}}$"),
        ),
    ),
    Algorithm(
        "Normalised von Neumann (Alg. 5)",
        "5",
        r"$K\le\lceil 1/\varepsilon^2\rceil-1$ (Dantzig); $K\le 1/\rho^2$ if $\rho>0$; "
        r"$K\le\lceil 2\ln(1/\varepsilon)/\rho^2\rceil$ if $\rho<0$ (Epelman-Freund)",
        r"$O(n)$: one column of $G$",
        (
            Measured(
                "ch05", "ch05_efd_worst", "at most {value} of the Epelman-Freund budget", ".2g"
            ),
            Measured(
                "ch05",
                "ch05_edge_slope",
                r"iterations $\propto\varepsilon^{{-{value}}}$ at margin $0$",
                ".1f",
            ),
            Measured(
                "ch06", "ch06_slope_nvn_rho", r"iterations $\propto\rho_K^{{-{value}}}$ (separable)"
            ),
        ),
    ),
    Algorithm(
        "SNKPVN (Alg. 6)",
        "6",
        r"$K<2\sqrt{2n}/\max(\rho_K,\delta)$ if $\rho_K>0$; "
        r"$K<2\sqrt{n}\,\mathrm{dist}(q,W)/\delta$ if infeasible; always "
        r"$K<2\sqrt{2n}/\delta$",
        r"$O(n^2)$: one product with $G$, projection onto $\Delta_n$ $O(n\log n)$",
        (
            Measured("ch06", "ch06_sn_worst_f", "at most {value} of the separable bound", ".2g"),
            Measured("ch06", "ch06_sn_worst_i", "at most {value} of the infeasible bound", ".2g"),
        ),
    ),
    Algorithm(
        "ISNKPVN (Alg. 7)",
        "6",
        r"at most $\lceil\log(\|q_0\|_G/\rho_K)/\log\gamma\rceil$ calls of SNKPVN, "
        r"each $<2\sqrt{2n}/\rho_K$ (feasible); about $\log(1/\varepsilon)/\log\gamma$ "
        r"calls, each $<2\sqrt{2n}\,\gamma\min\{1/\|q_t\|_G,1/|\rho_K|\}$ (infeasible)",
        r"as SNKPVN, per inner iteration",
        (
            Measured("ch06", "ch06_isn_total_worst", "at most {value} of the total bound", ".2g"),
            Measured("ch06", "ch06_slope_isn_rho", r"iterations $\propto\rho_K^{{-{value}}}$"),
            Measured(
                "ch06",
                "ch06_slope_isn_eps",
                r"iterations $\propto\varepsilon^{{-{value}}}$ at margin $0$",
            ),
        ),
    ),
    Algorithm(
        "Winnow (Sec. 2.2)",
        "2.2",
        r"order $\log d/\rho_\infty^2$, constant not recovered (uncertain); "
        r"$K\le 2\ln(2d)/\rho_\infty^2$ with $\eta=\rho_\infty$ (derived in Chapter 2)",
        r"$O(nd)$",
        (
            Measured(
                "ch02", "ch02_w_slope_w", r"iterations $\propto d^{{{value}}}$ on a sparse target"
            ),
        ),
    ),
)


def required_glue(algorithms: Sequence[Algorithm] = ALGORITHMS) -> dict[str, list[str]]:
    """``chapter -> glue keys`` that the summary table needs."""
    need: dict[str, list[str]] = {}
    for alg in algorithms:
        for m in alg.measured:
            keys = need.setdefault(m.chapter, [])
            if m.key not in keys:
                keys.append(m.key)
    return need


def measured_values(
    algorithms: Sequence[Algorithm] = ALGORITHMS, *, book_dir: Path | str = BOOK_DIR
) -> dict[tuple[str, str], float]:
    """Every measurement the summary table quotes, ``(chapter, key) -> value``.

    Raises
    ------
    MissingGlueError
        A chapter (or one of its values) is missing: the table is never built from
        partial or made-up values.
    """
    out: dict[tuple[str, str], float] = {}
    for chapter, keys in required_glue(algorithms).items():
        for k, v in glued_values(chapter, keys, book_dir=book_dir).items():
            out[(chapter, k)] = v
    return out


def _cell(text: str) -> str:
    """Make MyST text safe inside a pipe-table cell.

    A ``|`` would end the cell, even inside math, so the norm bars of LaTeX become
    ``\\Vert`` and ``\\vert`` (there are no pipes outside math in the book's tables).
    """
    return text.replace(r"\|", r"\Vert ").replace("|", r"\vert ").replace("\n", " ")


def summary_markdown(
    values: Mapping[tuple[str, str], float],
    extra: Mapping[str, str] | None = None,
    algorithms: Sequence[Algorithm] = ALGORITHMS,
) -> str:
    """The summary table as a MyST markdown table.

    Parameters
    ----------
    values : mapping
        ``(chapter, key) -> value``, from :func:`measured_values`.
    extra : mapping, optional
        ``algorithm name -> MyST text`` appended to the measured column (for the
        measurements this chapter makes itself).
    algorithms : sequence of Algorithm

    Returns
    -------
    str
        A pipe table with the columns algorithm, guarantee, measured, cost.
    """
    extra = dict(extra or {})
    rows = [
        "| algorithm | guarantee (explicit constants) | measured in this book "
        "| cost per iteration |",
        "|---|---|---|---|",
    ]
    for alg in algorithms:
        parts = []
        for m in alg.measured:
            val = values[(m.chapter, m.key)]
            parts.append(
                m.template.format(value=format(val, m.fmt))
                + f" ({{doc}}`{m.chapter} <{chapter_stem(m.chapter)}>`)"
            )
        if alg.name in extra:
            parts.append(extra[alg.name])
        if alg.note:
            parts.append(alg.note)
        measured = "; ".join(parts) if parts else "not measured"
        rows.append(
            f"| {_cell(alg.name)} | {_cell(alg.guarantee)} | {_cell(measured)} "
            f"| {_cell(alg.cost)} |"
        )
    return "\n".join(rows) + "\n"


def chapter_stem(key: str, book_dir: Path | str = BOOK_DIR) -> str:
    """The document name of a chapter for ``{doc}`` links (``ch04_smoothed_perceptron``)."""
    try:
        return chapter_notebook(key, book_dir).stem
    except MissingGlueError:
        return key


# --------------------------------------------------------------------------------------
# The open question: sqrt(n) or sqrt(log n)?
# --------------------------------------------------------------------------------------


def imbalanced(
    n: int,
    d: int = 10,
    rho: float = 0.05,
    *,
    spread: float = 0.3,
    width: float = 1.0,
    seed: int = 0,
) -> kdata.Dataset:
    """Separable data with exact normalised margin ``rho`` and one lone support point.

    With ``w* = e_1`` and ``u = e_2``, the signed normalised points are
    ``s_- = rho w* - c u`` (``c = sqrt(1 - rho^2)``) and ``n - 1`` points
    ``t_i w* + sqrt(1 - t_i^2) v_i`` with ``t_i`` uniform in
    ``[rho, min(1, rho (1 + width))]`` and unit ``v_i`` orthogonal to ``w*`` clustered
    around ``u`` (``v_i`` proportional to ``u + spread g_i``, with ``g_i`` Gaussian and
    orthogonal to ``w*`` and ``u``, so ``v_i^T u > 0``); the first
    of them is exactly ``s_+ = rho w* + c u``. Every point has ``a_i^T w* >= rho`` and the
    midpoint ``rho w*`` of ``s_+`` and ``s_-`` lies in the hull, so ``rho_2 = rho``
    exactly (the paper's Section 3).

    Starting from the barycentre of the simplex, a method must move about half of the
    weight onto the single point ``s_-``: the Euclidean prox-function of SNKPVN
    (``mu_0 = 2n``) can only do so slowly, the entropy of SNKP multiplicatively.

    Parameters
    ----------
    n : int
        Number of points, ``n >= 2``.
    d : int
        Dimension, ``d >= 2``.
    rho : float
        Margin, ``0 < rho < 1``.
    spread : float
        Spread of the majority's directions around ``u``.
    width : float
        Relative width of the band ``a_i^T w*`` of the majority above ``rho``.
    seed : int

    Returns
    -------
    Dataset
        Labels are random signs (``y_i x_i`` is the signed point); ``info`` has ``rho``,
        ``w_star`` and ``lone`` (the index of ``s_-``).
    """
    if n < 2 or d < 2:
        raise ValueError(f"imbalanced needs n >= 2 and d >= 2; got n={n}, d={d}.")
    if not 0 < rho < 1:
        raise ValueError(f"rho must be in (0, 1); got {rho}.")
    rng = np.random.default_rng(seed)
    w = np.zeros(d)
    w[0] = 1.0
    u = np.zeros(d)
    u[1] = 1.0
    c = math.sqrt(1.0 - rho * rho)
    m = n - 1
    t = rng.uniform(rho, min(1.0, rho * (1.0 + width)), m)
    t[0] = rho
    g = rng.standard_normal((m, d))
    g[:, :2] = 0.0  # perturb only orthogonally to w* and u: v_i^T u > 0
    g[0] = 0.0
    V = u[None, :] + spread * g
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    A = np.vstack([t[:, None] * w[None, :] + np.sqrt(1.0 - t * t)[:, None] * V, rho * w - c * u])
    perm = rng.permutation(n)
    A = A[perm]
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    lone = int(np.flatnonzero(perm == n - 1)[0])
    return kdata.Dataset(A * y[:, None], y, {"rho": float(rho), "w_star": w, "lone": lone})


def balanced(n: int, d: int = 10, rho: float = 0.05, *, seed: int = 0) -> kdata.Dataset:
    """:func:`kperc.datasets.planted` with every point near the margin (``near=1``).

    The directions orthogonal to ``w*`` are isotropic, so their average shrinks as
    ``n`` grows and the barycentre of the simplex is already close to a separator.
    """
    return kdata.planted(n, d, rho, near=1.0, near_width=0.5, seed=seed)


#: Instance families of the open-question sweep.
FAMILIES = {"balanced": balanced, "imbalanced": imbalanced}


def isnkpvn_call_bound(norm_q0: float, rho: float, gamma: float) -> int:
    """Upper bound on the number of SNKPVN calls ISNKPVN makes when ``rho_K > 0``.

    A dual return at call ``t`` needs ``delta_t > rho`` (its certificate has
    ``rho <= ||p||_G < delta_t``), while ``delta_t <= ||q_0||_G gamma^-(t+1)``. So dual
    returns happen only for ``t + 1 < L = log(||q_0||_G / rho) / log(gamma)``, and the
    number of calls is at most ``max(1, ceil(L))`` (the paper's Section 6).
    """
    L = math.log(norm_q0 / rho) / math.log(gamma)
    return max(1, math.ceil(L))


def lone_weight_needed(G, lone: int) -> float:
    """Weight ``beta`` that any separator ``alpha`` in the simplex must put on point ``lone``.

    With ``g_o = max_{i != lone} G_{lone, i} < 0`` (the lone point makes an obtuse angle
    with every other point), ``(G alpha)_lone <= alpha_lone + (1 - alpha_lone) g_o``,
    which is positive only if ``alpha_lone > beta = -g_o / (1 - g_o)``. Returns 0 when
    ``g_o >= 0`` (no constraint).
    """
    col = np.asarray(G.column(lone) if hasattr(G, "column") else G[lone], dtype=float)
    others = np.delete(col, lone)
    g_o = float(others.max())
    return -g_o / (1.0 - g_o) if g_o < 0 else 0.0


def snkpvn_lower_bound(n: int, beta: float) -> int:
    """Smallest halting index SNKPVN (``q = 1/n``, ``mu_0 = 2n``) can have on such data.

    Every prox point is ``Pi(q - G alpha / mu)`` with ``alpha`` in the simplex, so
    ``|G alpha| <= 1`` entrywise and each coordinate exceeds ``q_i`` by at most
    ``2 / mu`` (the threshold of the projection is at least ``-max(G alpha) / mu``).
    ``alpha_K`` is a convex combination of ``q`` and prox points with
    ``mu >= mu_{K-1} = 4n / (K (K+1))``, hence
    ``alpha_K[lone] <= 1/n + K (K+1) / (2n)``. Separating needs
    ``alpha_K[lone] > beta`` (:func:`lone_weight_needed`), so
    ``K (K+1) > 2 (n beta - 1)``: the halting index grows like ``sqrt(2 beta n)``.
    This bound is derived in this book (not in the paper).
    """
    target = 2.0 * (n * beta - 1.0)
    k = 0
    while k * (k + 1) <= target:
        k += 1
    return k


def probe_instance(
    family: str,
    n: int,
    seed: int,
    *,
    rho: float = 0.05,
    d: int = 10,
    gamma: float = 2.0,
    eps: float = 1e-3,
) -> dict[str, Any]:
    """Iteration counts of SNKPVN, ISNKPVN and SNKP on one instance of a family.

    The instance is kept as a factored :func:`kperc.gram_operator` (``O(nd)`` memory),
    so ``n`` can be large. SNKPVN runs with ``q = 1/n`` and ``delta = rho / 2 < rho``
    (it can then only stop with a separator), ISNKPVN with ``gamma`` and ``eps < rho``.

    Returns
    -------
    dict
        ``rho_exact`` (:func:`kperc.margin`), ``norm_q0`` (``||1/n||_G``), the halting
        indices ``snkpvn``, ``isnkpvn``, ``snkp``, the number of ISNKPVN calls
        ``isnkpvn_calls``, the three outcomes and, for the ``imbalanced`` family,
        ``lower_bound`` (:func:`snkpvn_lower_bound`; ``None`` otherwise).
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; known: {sorted(FAMILIES)}")
    ds = FAMILIES[family](n, d, rho, seed=seed)
    G = kperc.gram_operator(ds.X, ds.y)
    exact = kperc.margin(G)
    q0 = np.full(n, 1.0 / n)
    r_vn = kperc.snkpvn(G, q0, delta=rho / 2)
    r_is = kperc.isnkpvn(G, gamma=gamma, eps=eps)
    r_s = kperc.snkp(G)
    lower = None
    if "lone" in ds.info:
        lower = snkpvn_lower_bound(n, lone_weight_needed(G, ds.info["lone"]))
    return {
        "rho_exact": float(exact),
        "lower_bound": lower,
        "norm_q0": float(G.seminorm(q0)),
        "snkpvn": int(r_vn.nit),
        "snkpvn_outcome": r_vn.outcome,
        "isnkpvn": int(r_is.nit),
        "isnkpvn_calls": int(r_is.nouter),
        "isnkpvn_outcome": r_is.outcome,
        "snkp": int(r_s.nit),
        "snkp_outcome": r_s.outcome,
    }


def n_sweep(
    ns: Sequence[int],
    seeds: Sequence[int],
    *,
    families: Sequence[str] = ("balanced", "imbalanced"),
    rho: float = 0.05,
    d: int = 10,
    gamma: float = 2.0,
    eps: float = 1e-3,
    n_jobs: int = 1,
) -> list[dict[str, Any]]:
    """Run :func:`probe_instance` over ``families x ns x seeds`` (joblib, grid order).

    Returns
    -------
    list of dict
        One row per instance, with the grid values and the counts.
    """
    points = [
        dict(p, rho=rho, d=d, gamma=gamma, eps=eps)
        for p in grid(family=list(families), n=list(ns), seed=list(seeds))
    ]
    # small products: multithreaded BLAS only adds contention on a shared machine
    return sweep(probe_instance, points, n_jobs=n_jobs, blas_threads=1)


COUNT_KEYS = ("snkpvn", "isnkpvn", "snkp")


def medians(
    rows: Sequence[Mapping[str, Any]], family: str, keys: Sequence[str] = COUNT_KEYS
) -> dict[str, np.ndarray]:
    """Per-``n`` medians (and minima, maxima) of the counts of one family.

    Returns
    -------
    dict
        ``n`` (sorted) and, for each key ``k``: ``k`` (median), ``k_min``, ``k_max``.
    """
    sel = [r for r in rows if r["family"] == family]
    ns = np.array(sorted({int(r["n"]) for r in sel}))
    out: dict[str, np.ndarray] = {"n": ns}
    for k in keys:
        vals = [[r[k] for r in sel if r["n"] == n] for n in ns]
        out[k] = np.array([np.median(v) for v in vals], dtype=float)
        out[k + "_min"] = np.array([np.min(v) for v in vals], dtype=float)
        out[k + "_max"] = np.array([np.max(v) for v in vals], dtype=float)
    return out


def sqrt_log_slope(n_min: float, n_max: float) -> float:
    """Average log-log slope of ``sqrt(log n)`` between ``n_min`` and ``n_max``."""
    return 0.5 * math.log(math.log(n_max) / math.log(n_min)) / math.log(n_max / n_min)


def check_bounds(
    rows: Sequence[Mapping[str, Any]], *, rho: float, gamma: float = 2.0, tol: float = 1e-9
) -> dict[str, dict[str, Any]]:
    """Check every count of :func:`n_sweep` against its explicit bound.

    * ``margin``: the built instance has margin ``rho`` (``|rho_exact - rho| <= tol``).
    * ``theorem-1``: SNKP separates with ``K (K + 1) <= 8 log n / rho^2``.
    * ``snkpvn-bound``: SNKPVN with ``delta < rho`` separates with
      ``K < 2 sqrt(2n) / rho``.
    * ``isnkpvn``: ISNKPVN separates within :func:`isnkpvn_call_bound` calls and fewer
      than ``calls * 2 sqrt(2n) / rho`` inner iterations.
    * ``snkpvn-lower`` (not a result of the paper; derived in this book): on instances
      with a ``lower_bound``, SNKPVN needs at least that many iterations
      (:func:`snkpvn_lower_bound`); ``worst`` is the largest ratio bound / count.

    Returns
    -------
    dict
        For each check: ``ok``, ``instances``, ``worst`` (largest ratio of a count to
        its bound; for ``margin`` the largest error) and ``detail`` (a rounded sentence
        for :meth:`kperc_book.chapter.Chapter.check`).
    """
    res: dict[str, dict[str, Any]] = {}
    ns = [r["n"] for r in rows]
    span = f"n = {min(ns)}..{max(ns)}, rho = {rho:g}"
    err = max(abs(r["rho_exact"] - rho) for r in rows)
    res["margin"] = {
        "ok": err <= tol,
        "instances": len(rows),
        "worst": err,
        "detail": f"every instance has margin rho to {err:.1e} ({span})",
    }
    ok1, w1, ok2, w2, ok3, w3 = True, 0.0, True, 0.0, True, 0.0
    for r in rows:
        n = r["n"]
        k = r["snkp"]
        ok1 &= r["snkp_outcome"] == "separator" and k * (k + 1) <= 8 * math.log(n) / rho**2
        w1 = max(w1, k / (2 * math.sqrt(2 * math.log(n)) / rho))
        b = 2 * math.sqrt(2 * n) / rho
        ok2 &= r["snkpvn_outcome"] == "separator" and r["snkpvn"] < b
        w2 = max(w2, r["snkpvn"] / b)
        calls = isnkpvn_call_bound(r["norm_q0"], rho, gamma)
        ok3 &= (
            r["isnkpvn_outcome"] == "separator"
            and r["isnkpvn_calls"] <= calls
            and r["isnkpvn"] < calls * b
        )
        w3 = max(w3, r["isnkpvn"] / (calls * b))
    res["theorem-1"] = {
        "ok": bool(ok1),
        "instances": len(rows),
        "worst": w1,
        "detail": f"SNKP separated with K(K+1) <= 8 log n / rho^2 ({span}); worst "
        f"K / (2 sqrt(2 log n) / rho) = {w1:.3f}",
    }
    res["snkpvn-bound"] = {
        "ok": bool(ok2),
        "instances": len(rows),
        "worst": w2,
        "detail": f"SNKPVN (q = 1/n, delta = rho/2) separated with K < 2 sqrt(2n) / rho "
        f"({span}); worst ratio {w2:.3f}",
    }
    res["isnkpvn"] = {
        "ok": bool(ok3),
        "instances": len(rows),
        "worst": w3,
        "detail": f"ISNKPVN (gamma = {gamma:g}) separated within "
        "ceil(log(||q_0||_G / rho) / log gamma) calls of fewer than "
        f"2 sqrt(2n) / rho iterations each ({span}); worst ratio {w3:.3f}",
    }
    low = [r for r in rows if r.get("lower_bound") is not None]
    wl = max((r["lower_bound"] / r["snkpvn"] for r in low if r["snkpvn"] > 0), default=0.0)
    res["snkpvn-lower"] = {
        "ok": all(r["snkpvn"] >= r["lower_bound"] for r in low),
        "instances": len(low),
        "worst": wl,
        "detail": f"SNKPVN needed at least the derived lower bound on all {len(low)} "
        f"imbalanced instances; largest bound / count {wl:.3f}",
    }
    return res


# --------------------------------------------------------------------------------------
# Perceptrons versus the max-margin SVM
# --------------------------------------------------------------------------------------


def separator_margin(G: np.ndarray, alpha: np.ndarray) -> float:
    """Normalised margin ``min_i (G alpha)_i / ||alpha||_G`` of the function ``f_alpha``."""
    ga = G @ alpha
    return float(ga.min() / math.sqrt(max(float(alpha @ ga), 1e-300)))


def svc_homogeneous(
    G: np.ndarray, *, C: float = 1e6, tol: float = 1e-6
) -> tuple[np.ndarray, dict[str, Any]]:
    """The bias-free hard-margin SVM on a normalised signed Gram matrix, via SVC.

    :class:`sklearn.svm.SVC` always fits an intercept, while the paper's separators are
    homogeneous (``f`` with no offset). Training SVC on the ``2n`` signed points
    ``a_1..a_n, -a_1..-a_n`` with labels ``+1`` and ``-1`` (precomputed kernel
    ``[[G, -G], [-G, G]]``) removes the difference: the problem is symmetric under
    ``a -> -a``, so with ``(f, b)`` also ``(f, -b)`` is optimal, and by convexity
    ``(f, 0)``; the optimal ``f`` is unique and is the homogeneous max-margin
    separator, whose margin is ``rho_K`` (the paper's Section 3).

    Parameters
    ----------
    G : ndarray of shape (n, n)
    C : float
        Box constraint; large, so that the soft-margin SVM is the hard-margin one
        (``hard_margin`` in the returned info says whether every dual variable stayed
        below ``C``).
    tol : float
        Stopping tolerance of libsvm.

    Returns
    -------
    alpha : ndarray of shape (n,)
        Coefficients of ``f = sum_i alpha_i a_i``.
    info : dict
        ``intercept`` (close to 0), ``hard_margin`` (bool), ``n_support``.
    """
    from sklearn.svm import SVC

    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    K2 = np.block([[G, -G], [-G, G]])
    y2 = np.concatenate([np.ones(n), -np.ones(n)])
    svc = SVC(C=C, kernel="precomputed", tol=tol).fit(K2, y2)
    dc = np.zeros(2 * n)
    dc[svc.support_] = svc.dual_coef_[0]
    alpha = dc[:n] - dc[n:]
    hard = bool(np.max(np.abs(svc.dual_coef_)) < C * (1 - 1e-9))
    return alpha, {
        "intercept": float(svc.intercept_[0]),
        "hard_margin": hard,
        "n_support": int(svc.support_.size),
    }


def load_problems(problems: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """Gram matrix, labels, kernel and exact margin of each of the book's problems.

    Parameters
    ----------
    problems : sequence of str, optional
        Names of :data:`kperc_book.data.PROBLEMS` (default: all).

    Returns
    -------
    dict
        ``name -> {"G", "y", "kernel", "rho"}`` with ``rho`` from :func:`kperc.margin`.
    """
    out = {}
    for name in problems if problems is not None else list(kdata.PROBLEMS):
        G, ds, kernel, _ = kdata.problem(name)
        out[name] = {"G": G, "y": ds.y, "kernel": kernel, "rho": float(kperc.margin(G))}
    return out


def svm_comparison(
    problems: Mapping[str, Mapping[str, Any]] | None = None, *, C: float = 1e6, tol: float = 1e-6
) -> list[dict[str, Any]]:
    """Margins of the separators SNKP, NKP and the SVM return, on the book's problems.

    Parameters
    ----------
    problems : mapping, optional
        Output of :func:`load_problems` (default: every problem).
    C, tol : float
        SVC parameters (:func:`svc_homogeneous`).

    Returns
    -------
    list of dict
        Per problem: ``problem``, ``n``, ``kernel``, ``rho`` (exact,
        :func:`kperc.margin`), ``snkp`` / ``nkp`` (margins of their separators),
        ``snkp_nit`` / ``nkp_nit``, ``svm`` (bias-free SVC), ``svm_hard``,
        ``svm_intercept``.
    """
    problems = load_problems() if problems is None else problems
    with threadpool_limits(limits=1):
        return [_compare_one(name, pb, C, tol) for name, pb in problems.items()]


def _compare_one(name: str, pb: Mapping[str, Any], C: float, tol: float) -> dict[str, Any]:
    G = pb["G"]
    r_s = kperc.snkp(G)
    r_n = kperc.nkp(G, check_input=False)
    a_svm, info = svc_homogeneous(G, C=C, tol=tol)
    return {
        "problem": name,
        "n": int(G.shape[0]),
        "kernel": pb["kernel"],
        "rho": float(pb["rho"]),
        "snkp": separator_margin(G, r_s.alpha),
        "snkp_nit": int(r_s.nit),
        "snkp_outcome": r_s.outcome,
        "nkp": separator_margin(G, r_n.alpha),
        "nkp_nit": int(r_n.nit),
        "nkp_outcome": r_n.outcome,
        "svm": separator_margin(G, a_svm),
        "svm_hard": info["hard_margin"],
        "svm_intercept": info["intercept"],
    }


def svm_checks(
    rows: Sequence[Mapping[str, Any]], *, rel_tol: float = 1e-4
) -> dict[str, dict[str, Any]]:
    """Check the rows of :func:`svm_comparison` against the results they illustrate.

    * ``minimax-margin``: the bias-free SVC attains ``rho_K = min_p ||p||_G`` to a
      relative ``rel_tol`` as a hard-margin fit, and no returned separator has a
      larger margin than ``rho_K``.
    * ``nkp-bound``: NKP halted within ``1 / rho_K^2``.
    * ``theorem-1``: SNKP halted with ``K (K + 1) <= 8 log n / rho_K^2``.

    Returns
    -------
    dict
        For each check: ``ok``, ``instances``, ``worst`` and ``detail``.
    """
    m = len(rows)
    err = max(abs(r["svm"] - r["rho"]) / r["rho"] for r in rows)
    below = all(max(r["svm"], r["snkp"], r["nkp"]) <= r["rho"] * (1 + 1e-9) for r in rows)
    ok_mm = below and err <= rel_tol and all(r["svm_hard"] for r in rows)
    w_nkp = max(r["nkp_nit"] * r["rho"] ** 2 for r in rows)
    ok_nkp = all(
        r["nkp_outcome"] == "separator" and r["nkp_nit"] <= 1 / r["rho"] ** 2 for r in rows
    )
    w_snkp = max(r["snkp_nit"] * r["rho"] / (2 * math.sqrt(2 * math.log(r["n"]))) for r in rows)
    ok_snkp = all(
        r["snkp_outcome"] == "separator"
        and r["snkp_nit"] * (r["snkp_nit"] + 1) <= 8 * math.log(r["n"]) / r["rho"] ** 2
        for r in rows
    )
    return {
        "minimax-margin": {
            "ok": bool(ok_mm),
            "instances": m,
            "worst": err,
            "detail": f"on {m} real kernel problems the bias-free SVC attains "
            f"rho_K = min_p ||p||_G to a relative {err:.1e}, and no returned "
            "separator has a larger margin",
        },
        "nkp-bound": {
            "ok": bool(ok_nkp),
            "instances": m,
            "worst": w_nkp,
            "detail": f"NKP halted within 1/rho_K^2 on {m} real kernel problems; worst "
            f"ratio {w_nkp:.3f}",
        },
        "theorem-1": {
            "ok": bool(ok_snkp),
            "instances": m,
            "worst": w_snkp,
            "detail": f"SNKP halted with K(K+1) <= 8 log n / rho_K^2 on {m} real kernel "
            f"problems; worst K / (2 sqrt(2 log n) / rho_K) = {w_snkp:.3f}",
        },
    }


def margin_paths(
    problems: Mapping[str, Mapping[str, Any]] | None = None, *, max_iter: int = 2000
) -> dict[str, dict[str, Any]]:
    """Margin of the NKP and SNKP iterates, continued after the first separator.

    Both methods run with ``halt=False`` for ``max_iter`` iterations. NKP is a
    subgradient method and SNKP a smoothed one for the loss ``L`` whose minimiser is
    ``rho_K f*`` (the paper's Section 4), so their margins keep growing towards
    ``rho_K``.

    Parameters
    ----------
    problems : mapping, optional
        Output of :func:`load_problems` (default: every problem).
    max_iter : int

    Returns
    -------
    dict
        ``problem -> {"rho", "nkp", "snkp", "nkp_first", "snkp_first"}``: the margin of
        every iterate as a ratio to ``rho_K`` (negative before the first separating
        iterate) and the index of that iterate.
    """
    problems = load_problems() if problems is None else problems
    out = {}
    for name, pb in problems.items():
        G, rho = pb["G"], pb["rho"]
        with threadpool_limits(limits=1):
            r_n = kperc.nkp(G, max_iter=max_iter, halt=False, trace=True, check_input=False)
            r_s = kperc.snkp(G, max_iter=max_iter, halt=False, trace=True, check_input=False)
        out[name] = {
            "rho": float(rho),
            "nkp": np.asarray(r_n.trace["margin"]) / rho,
            "snkp": np.asarray(r_s.trace["margin"]) / rho,
            "nkp_first": r_n.first_separator_nit,
            "snkp_first": r_s.first_separator_nit,
        }
    return out


# --------------------------------------------------------------------------------------
# Timings (run outside the notebook)
# --------------------------------------------------------------------------------------

#: Methods timed by :func:`write_timings`: key -> description.
TIMING_METHODS = {
    "snkp": "kperc.snkp (Alg. 4), halts at the first separator",
    "nkp": "kperc.nkp (Alg. 3), halts at the first separator",
    "svc_homogeneous": "sklearn SVC, bias-free hard margin (2n symmetrised points)",
    "svc": "sklearn SVC with intercept (n points)",
    "margin": "kperc.margin: exact max margin (NNLS on a factor of G)",
}


def _time(func, repeats: int) -> tuple[float, list[float]]:
    func()  # warm-up (imports, caches)
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        func()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)), ts


def _machine() -> dict[str, Any]:
    from importlib import metadata

    info = {
        "python": platform.python_version(),
        "system": platform.system(),
        "machine": platform.machine(),
        "processor": platform.processor() or "unknown",
        "cpu_count": os.cpu_count(),
    }
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    for dist in ("kperc", "numpy", "scipy", "scikit-learn"):
        try:
            info[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:  # pragma: no cover
            info[dist] = "missing"
    if hasattr(os, "getloadavg"):
        info["load_average_1min_at_start"] = round(os.getloadavg()[0], 2)
    info["threads"] = {
        k: os.environ[k]
        for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
        if k in os.environ
    }
    return info


def write_timings(
    path: Path | str = TIMINGS_PATH,
    *,
    repeats: int = 7,
    problems: Sequence[str] | None = None,
    C: float = 1e6,
    tol: float = 1e-6,
) -> dict[str, Any]:
    """Time SNKP, NKP, SVC and the exact margin on the book's problems; write JSON.

    Every method gets one warm-up call and then ``repeats`` timed calls on the same
    precomputed ``G`` (building ``G`` is not timed; it is validated once, and the
    kperc calls skip validation with ``check_input=False``). The file holds the median
    seconds, the individual times, the date and the machine.

    Parameters
    ----------
    path : path
        Output JSON file (default ``book/_generated/timings/ch07-svm.json``).
    repeats : int
    problems : sequence of str, optional
        Names of :data:`kperc_book.data.PROBLEMS` (default: all).
    C, tol : float
        SVC parameters.

    Returns
    -------
    dict
        The payload written.
    """
    from sklearn.svm import SVC

    if repeats < 1:
        raise ValueError(f"repeats must be >= 1; got {repeats}")
    rows = []
    for name in problems if problems is not None else list(kdata.PROBLEMS):
        G, ds, _, _ = kdata.problem(name)
        n = G.shape[0]
        K2 = np.block([[G, -G], [-G, G]])
        y2 = np.concatenate([np.ones(n), -np.ones(n)])
        K = G * np.outer(ds.y, ds.y)
        calls = {
            "snkp": lambda G=G: kperc.snkp(G, check_input=False),
            "nkp": lambda G=G: kperc.nkp(G, check_input=False),
            "svc_homogeneous": lambda K2=K2, y2=y2: SVC(C=C, kernel="precomputed", tol=tol).fit(
                K2, y2
            ),
            "svc": lambda K=K, y=ds.y: SVC(C=C, kernel="precomputed", tol=tol).fit(K, y),
            "margin": lambda G=G: kperc.margin(G),
        }
        for method, func in calls.items():
            med, ts = _time(func, repeats)
            rows.append(
                {
                    "problem": name,
                    "n": n,
                    "method": method,
                    "seconds_median": med,
                    "seconds": ts,
                    "repeats": repeats,
                }
            )
    payload = {
        "what": "wall time of the methods compared in Chapter 7 (median over repeats)",
        "command": TIMINGS_COMMAND,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d"),
        "machine": _machine(),
        "methods": TIMING_METHODS,
        "svc": {"C": C, "tol": tol},
        "results": rows,
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)
    return payload


def read_timings(path: Path | str = TIMINGS_PATH) -> dict[str, Any]:
    """Read the JSON that :func:`write_timings` wrote.

    Raises
    ------
    FileNotFoundError
        With the command that produces the file.
    ValueError
        If a required field is missing.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path.name} is missing; produce it with `{TIMINGS_COMMAND}`")
    payload = json.loads(path.read_text())
    for field in ("date", "machine", "results", "command"):
        if field not in payload:
            raise ValueError(
                f"{path.name} has no {field!r}; regenerate it with `{TIMINGS_COMMAND}`"
            )
    for row in payload["results"]:
        for field in ("problem", "n", "method", "seconds_median", "repeats"):
            if field not in row:
                raise ValueError(f"{path.name}: a result row has no {field!r}")
    return payload


def _ms(seconds: float) -> str:
    ms = 1e3 * seconds
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.2g}"


def timings_markdown(payload: Mapping[str, Any]) -> str:
    """A markdown table ``problem x method`` of median milliseconds."""
    rows = payload["results"]
    methods = [m for m in TIMING_METHODS if any(r["method"] == m for r in rows)]
    problems = list(dict.fromkeys(r["problem"] for r in rows))
    head = "| problem | n | " + " | ".join(f"`{m}`" for m in methods) + " |"
    lines = [head, "|---|---:|" + "---:|" * len(methods)]
    for p in problems:
        sel = {r["method"]: r for r in rows if r["problem"] == p}
        n = next(iter(sel.values()))["n"]
        cells = [_ms(sel[m]["seconds_median"]) if m in sel else "" for m in methods]
        lines.append(f"| {p} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# The affine margin
# --------------------------------------------------------------------------------------


def affine_margin_demo(name: str = "infeasible_2d", extra_dims: int = 1) -> dict[str, Any]:
    """Definition (5) against the span-restricted ("affine") margin (the paper's Section 5).

    The stored inseparable 2-D points are embedded in ``R^(2 + extra_dims)`` with zero
    extra coordinates. ``G`` does not change, so the span-restricted margin does not
    either; but definition (5), a supremum over every unit ``w`` of the larger space,
    is ``0``: ``w = e_3`` gives ``min_i a_i^T w = 0``, and no unit ``w`` does better
    because the Gordan certificate ``p`` (``sum_i p_i a_i = 0``) gives
    ``min_i a_i^T w <= sum_i p_i a_i^T w = 0``.

    Returns
    -------
    dict
        ``rho_span`` (:func:`kperc.margin` of the 2-D data), ``rho_span_embedded`` (of
        the embedded data), ``orth_value`` (``min_i a_i^T e_3``, exactly 0),
        ``certificate_norm`` (``||sum_i p_i a_i||`` of the certificate) and
        ``theorem3_radius`` (largest ball around 0 inside the hull, the inradius of
        Theorem 3; equals ``-rho_span``).
    """
    ds = kdata.load(name)
    X, y = ds.X, ds.y
    Xe = np.hstack([X, np.zeros((X.shape[0], extra_dims))])
    G = kperc.gram_matrix(X, y)
    Ge = kperc.gram_matrix(Xe, y)
    det = kperc.margin_details(G)
    A = kperc.signed_normalized_points(Xe, y)
    e3 = np.zeros(Xe.shape[1])
    e3[X.shape[1]] = 1.0
    cert = float(np.linalg.norm(A.T @ det.p))
    return {
        "name": name,
        "n": int(X.shape[0]),
        "rho_span": float(det.rho),
        "rho_span_embedded": float(kperc.margin(Ge)),
        "orth_value": float((A @ e3).min()),
        "certificate_norm": cert,
        "theorem3_radius": float(-det.rho),
    }


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """``python -m kperc_book.experiments.ch07 --timings [--repeats R] [--output PATH]``."""
    ap = argparse.ArgumentParser(
        prog="python -m kperc_book.experiments.ch07",
        description="Chapter 7 experiments run outside the book.",
    )
    ap.add_argument(
        "--timings",
        action="store_true",
        help="time SNKP, NKP, SVC and the exact margin on the book's problems "
        "and write book/_generated/timings/ch07-svm.json",
    )
    ap.add_argument("--repeats", type=int, default=7, help="timed calls per method")
    ap.add_argument("--output", default=str(TIMINGS_PATH), help="JSON file to write")
    args = ap.parse_args(argv)
    if not args.timings:
        ap.print_help()
        return 2
    payload = write_timings(args.output, repeats=args.repeats)
    print(timings_markdown(payload), end="")
    try:
        shown = Path(args.output).resolve().relative_to(REPO_DIR)
    except ValueError:
        shown = Path(args.output).name
    print(f"wrote {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

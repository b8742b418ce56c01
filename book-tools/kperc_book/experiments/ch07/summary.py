"""The summary table of the book's algorithms, with the rates other chapters measured."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kperc_book._markdown import math_cell, table
from kperc_book.experiments.ch07.glue import MissingGlueError, chapter_notebook, glued_values
from kperc_book.paths import BOOK_DIR, GENERATED_DIR


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
        r"if $\rho_K>\varepsilon$: at most "
        r"$\max\{1,\lceil\log(\|q_0\|_G/\rho_K)/\log\gamma\rceil\}$ calls of SNKPVN, "
        r"each $<2\sqrt{2n}/\rho_K$; otherwise at most "
        r"$\lfloor\log(\|q_0\|_G/\varepsilon)/\log\gamma\rfloor+1$ calls, each "
        r"$<2\sqrt{2n}/\rho_K$ if $\rho_K>0$ and "
        r"$<2\sqrt{2n}\,\gamma/(\|q_t\|_G+|\rho_K|)$ if infeasible; "
        r"if $\rho_K\le\varepsilon$, fewer than $2\sqrt{2n}\,\gamma^2/((\gamma-1)\varepsilon)$ "
        r"iterations in all",
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
        r"order $\log d/\rho_\infty^2$ (paper, as a remark); "
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
    algorithms: Sequence[Algorithm] = ALGORITHMS, *, generated_dir: Path | str = GENERATED_DIR
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
        for k, v in glued_values(chapter, keys, generated_dir=generated_dir).items():
            out[(chapter, k)] = v
    return out


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
    rows = []
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
        rows.append([math_cell(x) for x in (alg.name, alg.guarantee, measured, alg.cost)])
    header = ["algorithm", "guarantee (explicit constants)", "measured in this book"]
    return table([*header, "cost per iteration"], rows) + "\n"


def chapter_stem(key: str, book_dir: Path | str = BOOK_DIR) -> str:
    """The document name of a chapter for ``{doc}`` links (``ch04_smoothed_perceptron``)."""
    try:
        return chapter_notebook(key, book_dir).stem
    except MissingGlueError:
        return key

"""What one chapter reads from the others: their records, and the book's summary table.

Every chapter writes the numbers it glued to its record (``book/_generated/<key>.json``,
see :meth:`kperc_book.chapter.Chapter.glue`). Chapter 7 quotes them:

* :func:`glued` reads one chapter's glued numbers;
* :data:`GUARANTEES` and :data:`MEASURED` are the two halves of the summary table: the
  guarantee of every algorithm with its explicit constants, and which recorded number
  measures it; :func:`measured` reads those numbers and :func:`summary_table` builds the
  table, each quote linked to its chapter in words;
* :func:`markdown_table` writes a table for a glued ``{glue:md}`` block;
* :func:`cell_names`, :func:`which_table` and :func:`who_won` put the benchopt cells of
  :mod:`kperc_book.benchopt_results` into words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from kperc_book import _markdown, paths

__all__ = [
    "glued",
    "chapter_link",
    "markdown_table",
    "measured_on",
    "GUARANTEES",
    "MEASURED",
    "measured",
    "summary_table",
    "cell_names",
    "ranking",
    "which_table",
    "who_won",
    "micro",
]


def glued(chapter: str) -> dict[str, Any]:
    """The numbers chapter ``chapter`` (``"ch02"``) glued, read from its record.

    Raises
    ------
    FileNotFoundError
        If the chapter has no record yet; the message says how to make it.
    """
    record = paths.generated_dir() / f"{chapter}.json"
    if not record.exists():
        raise FileNotFoundError(f"run {chapter} first: python -m kperc_book.reproduce {chapter}")
    return json.loads(record.read_text())["glue"]


def chapter_link(chapter: str) -> str:
    """A MyST link to chapter ``chapter`` (``"ch02"``) that reads "Chapter 2".

    Examples
    --------
    >>> chapter_link("ch02")
    '{doc}`Chapter 2 <ch02_linear_feasibility>`'
    """
    if not re.fullmatch(r"ch\d\d", chapter):
        raise ValueError(f"chapter must name one chapter notebook, like 'ch02'; got {chapter!r}")
    if not paths.is_checkout(paths.ROOT):  # a chapter run alone: no book to link into
        return f"Chapter {int(chapter[2:])}"
    found = sorted(paths.book_dir().glob(f"{chapter}_*.ipynb"))
    if len(found) != 1:
        raise ValueError(f"chapter must name one chapter notebook, like 'ch02'; got {chapter!r}")
    return f"{{doc}}`Chapter {int(chapter[2:])} <{found[0].stem}>`"


def markdown_table(df: pd.DataFrame) -> str:
    """``df`` (its columns and cells, not its index) as a MyST pipe table.

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"a": [1], "b": ["x"]})))
    | a | b |
    |---|---|
    | 1 | x |
    <BLANKLINE>
    """
    return _markdown.table(df.columns, df.astype(str).values.tolist()) + "\n"


#: The guarantee of each algorithm with the book's explicit constants, and the cost of
#: one of its iterations given the Gram matrix ``G``.
GUARANTEES: dict[str, tuple[str, str]] = {
    "Perceptron (Alg. 1)": (r"$K\le R^2/\rho^2$ (Block-Novikoff)", r"$O(nd)$ (linear form)"),
    "Normalised Perceptron (Alg. 2)": (r"$K\le 1/\rho_2^2$", r"$O(nd)$ (linear form)"),
    "NKP (Alg. 3)": (r"$K\le 1/\rho_K^2$", r"$O(n)$: one column of $G$"),
    "SNKP (Alg. 4)": (
        r"$K(K+1)\le 8\log n/\rho_K^2$, so $K<2\sqrt{2\log n}/\rho_K$",
        r"$O(n^2)$: one product with $G$ ($O(nd)$ factored), softmax $O(n)$",
    ),
    "Normalised von Neumann (Alg. 5)": (
        r"$K\le\lceil 1/\varepsilon^2\rceil-1$ (Dantzig); $K\le 1/\rho^2$ if $\rho>0$; "
        r"$K\le\lceil 2\ln(1/\varepsilon)/\rho^2\rceil$ if $\rho<0$ (Epelman-Freund)",
        r"$O(n)$: one column of $G$",
    ),
    "SNKPVN (Alg. 6)": (
        r"$K<2\sqrt{2n}/\max(\rho_K,\delta)$ if $\rho_K>0$; "
        r"$K<2\sqrt{n}\,\mathrm{dist}(q,W)/\delta$ if infeasible; always $K<2\sqrt{2n}/\delta$",
        r"$O(n^2)$: one product with $G$, projection onto $\Delta_n$ $O(n\log n)$",
    ),
    "ISNKPVN (Alg. 7)": (
        r"if $\rho_K>\varepsilon$: at most "
        r"$\max\{1,\lceil\log(\Vert q_0\Vert _G/\rho_K)/\log\gamma\rceil\}$ "
        r"calls of SNKPVN, each $<2\sqrt{2n}/\rho_K$; otherwise at most "
        r"$\lfloor\log(\Vert q_0\Vert _G/\varepsilon)/\log\gamma\rfloor+1$ calls, each "
        r"$<2\sqrt{2n}/\rho_K$ if $\rho_K>0$ and "
        r"$<2\sqrt{2n}\,\gamma/(\Vert q_t\Vert _G+\vert \rho_K\vert )$ if infeasible; "
        r"if $\rho_K\le\varepsilon$, fewer than $2\sqrt{2n}\,\gamma^2/((\gamma-1)\varepsilon)$ "
        r"iterations in all",
        r"as SNKPVN, per inner iteration",
    ),
    "Winnow (Sec. 2.2)": (
        r"order $\log d/\rho_\infty^2$ (paper, as a remark); "
        r"$K\le 2\ln(2d)/\rho_\infty^2$ with $\eta=\rho_\infty$ (derived in Chapter 2)",
        r"$O(nd)$",
    ),
}

#: Which recorded number measures each algorithm: (algorithm, chapter, glued key, the
#: quantity in words, how the table quotes it). An exponent is quoted with the
#: significant digits its chapter glued it with (``{:#.3g}`` keeps "1.00").
MEASURED: list[tuple[str, str, str, str, str]] = [
    (
        "Perceptron (Alg. 1)",
        "ch02",
        "ch02_worst_ratio_perceptron",
        "Perceptron, largest count / bound",
        "at most {:.2g} of the bound on planted data",
    ),
    (
        "Perceptron (Alg. 1)",
        "ch04",
        "slope_perceptron",
        "Perceptron, exponent of 1/rho",
        r"iterations $\propto\rho^{{-{:#.3g}}}$",
    ),
    (
        "Normalised Perceptron (Alg. 2)",
        "ch02",
        "ch02_worst_ratio_np",
        "Normalised Perceptron, largest count / bound",
        "at most {:.2g} of the bound on planted data",
    ),
    (
        "NKP (Alg. 3)",
        "ch03",
        "ch03_nkp_bound_ratio",
        "NKP, largest count / bound",
        "at most {:.2g} of the bound",
    ),
    (
        "NKP (Alg. 3)",
        "ch04",
        "slope_nkp",
        "NKP, exponent of 1/rho",
        r"iterations $\propto\rho^{{-{:#.3g}}}$",
    ),
    (
        "SNKP (Alg. 4)",
        "ch04",
        "snkp_bound_ratio_max",
        "SNKP, largest count / bound",
        "at most {:.2g} of the bound",
    ),
    (
        "SNKP (Alg. 4)",
        "ch04",
        "slope_snkp",
        "SNKP, exponent of 1/rho",
        r"iterations $\propto\rho^{{-{:#.3g}}}$",
    ),
    (
        "Normalised von Neumann (Alg. 5)",
        "ch05",
        "ch05_efd_worst",
        "NVN, largest count / Epelman-Freund bound",
        "at most {:.2g} of the Epelman-Freund budget",
    ),
    (
        "Normalised von Neumann (Alg. 5)",
        "ch05",
        "ch05_edge_slope",
        "NVN, exponent of 1/eps at margin 0",
        r"iterations $\propto\varepsilon^{{-{:#.3g}}}$ at margin $0$",
    ),
    (
        "Normalised von Neumann (Alg. 5)",
        "ch06",
        "ch06_slope_nvn_rho",
        "NVN, exponent of 1/rho_K (separable)",
        r"iterations $\propto\rho_K^{{-{:#.3g}}}$ (separable)",
    ),
    (
        "SNKPVN (Alg. 6)",
        "ch06",
        "ch06_sn_worst_f",
        "SNKPVN, largest count / separable bound",
        "at most {:.2g} of the separable bound",
    ),
    (
        "SNKPVN (Alg. 6)",
        "ch06",
        "ch06_sn_worst_i",
        "SNKPVN, largest count / inseparable bound",
        "at most {:.2g} of the infeasible bound",
    ),
    (
        "ISNKPVN (Alg. 7)",
        "ch06",
        "ch06_isn_total_worst",
        "ISNKPVN, largest total / its bound",
        "at most {:.2g} of the total bound",
    ),
    (
        "ISNKPVN (Alg. 7)",
        "ch06",
        "ch06_slope_isn_rho",
        "ISNKPVN, exponent of 1/rho_K (separable)",
        r"iterations $\propto\rho_K^{{-{:#.3g}}}$",
    ),
    (
        "ISNKPVN (Alg. 7)",
        "ch06",
        "ch06_slope_isn_eps",
        "ISNKPVN, exponent of 1/eps at margin 0",
        r"iterations $\propto\varepsilon^{{-{:#.2g}}}$ at margin $0$",
    ),
    (
        "Winnow (Sec. 2.2)",
        "ch02",
        "ch02_w_slope_w",
        "Winnow, exponent of d",
        r"iterations $\propto d^{{{:#.2g}}}$ on a sparse target",
    ),
]


def measured(chapters: Sequence[str] = ("ch02", "ch03", "ch04", "ch05", "ch06")) -> pd.DataFrame:
    """The rows of :data:`MEASURED` with the value each chapter's record holds.

    Returns
    -------
    pandas.DataFrame
        Columns ``algorithm``, ``chapter``, ``key``, ``quantity``, ``template`` and
        ``value``.
    """
    records = {chapter: glued(chapter) for chapter in chapters}
    columns = ["algorithm", "chapter", "key", "quantity", "template"]
    quoted = pd.DataFrame(MEASURED, columns=columns)
    quoted["value"] = [records[c][k] for c, k in zip(quoted.chapter, quoted.key, strict=True)]
    return quoted


def summary_table(quoted: pd.DataFrame, here: Mapping[str, str]) -> pd.DataFrame:
    """The book's summary table: algorithm, guarantee, what was measured, cost.

    Parameters
    ----------
    quoted : pandas.DataFrame
        :func:`measured`'s rows.
    here : mapping
        More measurements of the calling chapter, already in words: algorithm to text.
    """
    texts = [
        (alg, t.format(v) + f" ({chapter_link(c)})")
        for alg, t, v, c in zip(
            quoted.algorithm, quoted.template, quoted.value, quoted.chapter, strict=True
        )
    ]
    texts += list(here.items())
    words = pd.DataFrame(texts, columns=["algorithm", "text"])
    joined = words.groupby("algorithm", sort=False).text.agg("; ".join)
    rows = [(alg, g, joined.get(alg, ""), cost) for alg, (g, cost) in GUARANTEES.items()]
    header = ["algorithm", "guarantee (explicit constants)", "measured in this book"]
    return pd.DataFrame(rows, columns=[*header, "cost per iteration"])


# --------------------------------------------------------------- benchopt cells in words


def cell_names(table: pd.DataFrame, keys: Sequence[str]) -> list[str]:
    """Each row's cell in words: its family and the parameters ``keys`` it fixes.

    Examples
    --------
    >>> t = pd.DataFrame({"family": ["planted_rbf"], "n": [1000], "rho": [0.01]})
    >>> cell_names(t, ["n", "rho"])
    ['planted rbf, n = 1000, rho = 0.01']
    """

    def name(row: pd.Series) -> str:
        fixed = [
            f"{k} = {row[k]:g}" if isinstance(row[k], float) else f"{k} = {row[k]}"
            for k in keys
            if pd.notna(row[k])
        ]
        return ", ".join([row["family"].replace("_", " "), *fixed])

    return [name(row) for _, row in table.iterrows()]


def ranking(stats: pd.DataFrame, cell: str) -> tuple[str, str]:
    """The solvers that separated every instance of ``cell``, fastest first (median time
    and range), and those that missed a separator somewhere (how many they separated)."""
    s = stats[stats.cell == cell].set_index("solver")
    every = s[s.separated == s.runs].sort_values("median")
    ranked = [
        f"{name} {r['median']:.2g} s ({r['min']:.2g}-{r['max']:.2g})"
        for name, r in every.iterrows()
    ]
    failed = [
        f"{name} ({r.separated} of {r.runs})" for name, r in s[s.separated < s.runs].iterrows()
    ]
    return "; ".join(ranked) or "none", ", ".join(failed) or "none"


def which_table(cells: pd.DataFrame, stats: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: its instances, the ranking of :func:`ranking`, and whether the
    winner is decided."""
    ranks = [ranking(stats, c) for c in cells.cell]
    instances = zip(cells.seeds, cells.dims, strict=True)
    return pd.DataFrame(
        {
            "problems": cells.cell,
            "instances": [f"{s} seeds x {d} dimensions" for s, d in instances],
            "separated every instance, fastest first: median time (range)": [r[0] for r in ranks],
            "decided": cells.decided.map({True: "yes", False: "no"}),
            "no separator on some instance (separated)": [r[1] for r in ranks],
        }
    )


def who_won(part: pd.DataFrame, solvers: Sequence[str], *, favourite: str = "kperc-snkp") -> str:
    """Who won the decided cells of ``part`` other than ``favourite``, naming every solver.

    Examples
    --------
    >>> part = pd.DataFrame({"decided": [True, True], "winner": ["kperc-snkp", "sklearn-svc"]})
    >>> who_won(part, ["kperc-snkp", "sklearn-svc", "kperc-nkp"])
    'the others went to sklearn-svc (1); no cell went to kperc-nkp'
    """
    wins = part[part.decided].winner.value_counts()
    if wins.empty:
        return "no cell was decided"
    won = [f"{s} ({k})" for s, k in wins.items() if s != favourite]
    text = "the others went to " + ", ".join(won) if won else "SNKP won every one of them"
    none = [s for s in solvers if s not in wins and s != favourite]
    return text + ("; no cell went to " + ", ".join(none) if none else "")


def micro(name: str) -> dict[str, Any]:
    """The pytest-benchmark record ``book/_generated/micro/<name>.json`` (``make bench-micro``).

    Raises
    ------
    FileNotFoundError
        If the book has no such record.
    """
    record = paths.generated_dir() / "micro" / f"{name}.json"
    if not record.exists():
        raise FileNotFoundError(f"no micro-benchmark record {name!r}; run make bench-micro")
    return json.loads(record.read_text())


def measured_on(record: dict[str, Any]) -> str:
    """Where and how a pytest-benchmark record (:func:`micro`) was measured, in one line.

    Raises
    ------
    ValueError
        If it was not measured in CPU time with one BLAS thread, which the book's timings
        promise.
    """
    info, pkgs = record["machine_info"], record["machine_info"]["packages"]
    if not all(lib["num_threads"] == 1 for lib in info["blas"]):
        raise ValueError("the timings were not measured with one BLAS thread")
    if {b["options"]["timer"] for b in record["benchmarks"]} != {"process_time"}:
        raise ValueError("the timings are not CPU time (process_time)")
    machine = f"{info['cpu']['brand_raw']}, {info['cpu']['count']} cores, one BLAS thread"
    software = (
        f"Python {info['python_version']}, numpy {pkgs['numpy']}, "
        f"scikit-learn {pkgs['scikit-learn']}"
    )
    return f"measured on {record['datetime'][:10]} with pytest-benchmark: {machine}; {software}"

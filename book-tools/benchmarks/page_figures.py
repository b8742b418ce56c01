"""The figures of the benchmarks page (``book/benchmarks.ipynb``), drawn from ``bench.json``.

Each function takes the harness's record and returns a matplotlib figure, which the page
saves with ``Chapter.figure`` under the name and alt text of :data:`ALT`. The figures of
the comparison with scikit-learn are :func:`benchmarks.peers.figure.figure`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks._config import PERITER_ALGOS, PERITER_TARGETS
from benchmarks.page import (
    SEPARATOR_STYLES,
    certificates_frame,
    crossover_frame,
    periter_frame,
    separator_frame,
)

Record = dict[str, Any]

#: The alt text of each figure of the page, by its name (``ch.figure(fig, name, alt=...)``).
ALT = {
    "peers-linear": (
        "Four log-log panels, one per planted margin, of seconds to a separator against n "
        "for SNKP (dense and factored), NKP, scikit-learn's Perceptron, LinearSVC and linear "
        "SVC on the linear problems; open triangles mark runs stopped at the time cap and "
        "crosses runs that ended without a separator."
    ),
    "peers-rbf": (
        "Log-log panels, one per planted kernel margin, of seconds to a separator against "
        "n for SNKP on the dense G and on Nystroem features, NKP and RBF SVC on the RBF "
        "problems; open triangles mark runs stopped at the time cap."
    ),
    "periter": (
        "Two log-log panels of time per iteration relative to one product with G against n, "
        "for NKP, NVN, SNKP and SNKPVN, with dotted target lines; dense G on the left, the "
        "factored operator on the right."
    ),
    "separator": (
        "Log-log panels, one per n, of seconds to a separator against the planted margin for "
        "SNKP and NKP on the dense and factored G and for kperc's and scikit-learn's "
        "Perceptron; open triangles mark runs stopped at their time cap."
    ),
    "crossover": (
        "Log-log plot of the crossover margin below which SNKP beats NKP, against n, for the "
        "dense and the factored G, with bars bracketing each estimate."
    ),
    "large": (
        "Log-log plot of seconds to a separator with the factored operator against n for "
        "SNKP, NKP and scikit-learn's Perceptron; open triangles mark runs stopped at the cap."
    ),
    "families-linear": (
        "Four grids, one per linear problem family (planted with unit norms, planted with "
        "spread norms, crowded, two rays), with a cell per margin and size naming the solver "
        "that reached a certified separator first, its time and its iteration count; cells "
        "are shaded by whether a kperc algorithm or a scikit-learn solver was fastest."
    ),
    "families-kernel": (
        "Two grids: the planted RBF problems by margin and size, and the five real kernel "
        "problems, each cell naming the solver that reached a certified separator first, "
        "its time and its iteration count, shaded by whether kperc or scikit-learn won."
    ),
    "certificates": (
        "Two log-log panels against n: wall time to an infeasibility certificate, and the "
        "certificate's G-norm."
    ),
}

#: The colour of each algorithm in the per-iteration figure.
PERITER_COLORS = {"nkp": "tab:blue", "nvn": "tab:green", "snkp": "tab:red", "snkpvn": "tab:purple"}


def periter(rec: Record):
    """Time per iteration over the time of one product against n, dense and factored G,
    with the targets as dotted lines."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    from kperc_book.chapter import figsize

    per = periter_frame(rec)
    ns = sorted(per[per.operator == "dense"].n.unique())
    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.85), sharey=True)
    for ax, op in zip(axes, ("dense", "factored"), strict=True):
        for alg in PERITER_ALGOS:
            r = per[(per.operator == op) & (per.algorithm == alg)].sort_values("n")
            ax.plot(r.n, r.ratio, "o-", color=PERITER_COLORS[alg], label=alg.upper())
            ax.axhline(PERITER_TARGETS[alg], color=PERITER_COLORS[alg], ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_title(f"{op} G" + (" (Z of width 50)" if op == "factored" else ""))
    axes[0].set_ylabel("time per iteration / one product")
    axes[0].set_xticks(ns, [str(n) for n in ns])  # a short range: label the measured sizes
    axes[0].xaxis.set_minor_formatter(NullFormatter())
    fig.tight_layout()
    h, lab = axes[0].get_legend_handles_labels()
    fig.legend(h, lab, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=4)
    return fig


def separator(rec: Record):
    """Seconds to a separator against the planted margin, one panel per n."""
    import matplotlib.pyplot as plt

    from kperc_book.chapter import figsize

    sep = separator_frame(rec)
    sizes = sorted(sep.n.unique())
    cols = 1 if len(sizes) == 1 else 2
    nrows = -(-len(sizes) // cols)
    fig, axes = plt.subplots(
        nrows, cols, figsize=figsize(nrows, cols, aspect=0.8), sharey=True, squeeze=False
    )
    for ax, n in zip(axes.flat, sizes, strict=False):
        for (solver, op), (c, ls, lab) in SEPARATOR_STYLES.items():
            r = sep[(sep.n == n) & (sep.solver == solver) & (sep.operator == op)].sort_values("rho")
            if not len(r):
                continue
            ax.plot(r.rho, r.time_s, color=c, ls=ls, lw=1.2, label=lab)
            done, cap = r[~r.capped], r[r.capped]
            ax.plot(done.rho, done.time_s, "o", color=c, ms=4)
            ax.plot(cap.rho, cap.time_s, "^", mfc="white", color=c, ms=6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.invert_xaxis()
        ax.set_xlabel("planted margin rho")
        ax.set_ylabel("seconds to a separator")
        ax.set_title(f"n = {n}")
    for ax in list(axes.flat)[len(sizes) :]:
        ax.set_visible(False)
    for ax in axes[:, 1:].flat:  # the panels share the y axis of the left column
        ax.set_ylabel("")
    fig.tight_layout()
    h, lab = axes[0, 0].get_legend_handles_labels()
    fig.legend(h, lab, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3)
    return fig


def crossover(rec: Record):
    """The crossover margin below which SNKP beats NKP, against n, with its brackets."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    from kperc_book.chapter import figsize

    cr2 = crossover_frame(rec)
    fig, ax = plt.subplots(figsize=figsize(1, 1, aspect=0.7, width=5.0))  # legend on the right
    for op, c in (("dense", "tab:red"), ("factored", "tab:purple")):
        r = cr2[(cr2.operator == op) & cr2.rho_star.notna()].sort_values("n")
        if len(r):
            lo = np.array([b[0] for b in r.bracket])
            hi = np.array([b[1] for b in r.bracket])
            ax.errorbar(
                r.n,
                r.rho_star,
                yerr=[r.rho_star - lo, hi - r.rho_star],
                fmt="o-",
                color=c,
                capsize=3,
                label=f"{op} G",
            )
        a = cr2[(cr2.operator == op) & (cr2.kind == "snkp-always")].sort_values("n")
        if len(a):  # SNKP won at every measured margin: rho* is above the largest one
            ax.plot(
                a.n,
                [b[1] for b in a.bracket],
                "^",
                color=c,
                mfc="white",
                ms=9,
                label=f"{op} G: SNKP faster at every margin",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("crossover margin rho*")
    cross_ns = sorted(int(n) for n in cr2.n.unique())
    ax.set_xticks(cross_ns, [str(n) for n in cross_ns])  # label the measured sizes
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_title("SNKP is faster than NKP below rho*")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


def large(rec: Record):
    """Seconds to a separator with the factored operator against n (large problems)."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from kperc_book.chapter import figsize

    lg = pd.DataFrame(rec["suites"]["large"]["rows"])
    fig, ax = plt.subplots(figsize=figsize(1, 1, aspect=0.7, width=5.0))  # legend on the right
    for solver, c, lab in (
        ("snkp", "tab:red", "SNKP"),
        ("nkp", "tab:blue", "NKP"),
        ("sklearn-perceptron", "tab:orange", "sklearn Perceptron"),
    ):
        r = lg[lg.solver == solver].sort_values("n")
        if not len(r):
            continue
        ax.plot(r.n, r.time_s, "-", color=c, label=lab)
        ax.plot(r[~r.capped].n, r[~r.capped].time_s, "o", color=c)
        ax.plot(r[r.capped].n, r[r.capped].time_s, "^", mfc="white", color=c, ms=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("seconds to a separator")
    ax.set_title("factored G, d = 50, rho = 1e-3")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


def certificates(rec: Record):
    """Wall time to a certificate of infeasibility and its ``||p||_G`` against n."""
    from kperc_book.experiments import plots

    ce = certificates_frame(rec)
    return plots.certificates(ce, eps=float(ce.eps.iloc[0]))


#: Cell colours of :func:`families_grid`: a kperc algorithm won, a scikit-learn solver won,
#: nobody separated.
FAMILY_WIN_COLORS = {"kperc": "#f4c7c3", "sklearn": "#d9d9d9", None: "white"}


#: Solver names of :func:`families_grid` that need two lines to fit a cell.
FIGURE_NAMES = {
    "normalized-perceptron": "Normalised\nPerceptron",
    "perceptron": "Perceptron\n(kperc)",
    "sklearn-perceptron": "sklearn\nPerceptron",
    "logreg": "Logistic\nRegression",
}


def _grid_panel(ax, entries, rows, cols, row_label, col_label, title) -> None:
    """One panel of :func:`families_grid`: a cell per (row, column) entry."""
    from matplotlib.patches import Rectangle

    from benchmarks.page import fam_label

    ax.set_xlim(0, len(cols))
    ax.set_ylim(len(rows), 0)
    for i, rkey in enumerate(rows):
        for j, ckey in enumerate(cols):
            e = entries.get((rkey, ckey))
            if e is None:
                continue
            ax.add_patch(
                Rectangle((j, i), 1, 1, facecolor=FAMILY_WIN_COLORS[e["winner"]], ec="white", lw=2)
            )
            if e["fastest"] is None:
                text = "nobody\nseparated"
            else:
                nit = f"{e['fastest_nit']:,} it." if e.get("fastest_nit") is not None else ""
                name = FIGURE_NAMES.get(e["fastest"]) or fam_label(e["fastest"])
                text = f"{name}\n{fmt_seconds(e['fastest_s'])}\n{nit}"
            ax.text(j + 0.5, i + 0.5, text, ha="center", va="center", fontsize=9)
    ax.set_xticks([j + 0.5 for j in range(len(cols))], [col_label(c) for c in cols])
    ax.set_yticks([i + 0.5 for i in range(len(rows))], [row_label(r) for r in rows])
    ax.tick_params(length=0)
    ax.grid(False)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title(title)


def fmt_seconds(t: float) -> str:
    """Seconds with two significant digits (no exponent); milliseconds below one second.

    Examples
    --------
    >>> [fmt_seconds(t) for t in (0.000171, 0.0264, 0.297, 0.9996, 5.97, 123.4)]
    ['0.17 ms', '26 ms', '300 ms', '1 s', '6 s', '120 s']
    """
    v, unit = (t * 1e3, "ms") if t < 0.9995 else (t, "s")
    return f"{v:.2g} {unit}" if v < 100 else f"{round(v, -1):.0f} {unit}"


def families_grid(frec: Record, families):
    """Who reached a certified separator first, one panel per family (at most two side by
    side): a cell per instance (rows: margins, columns: sizes) naming the fastest solver,
    its time and its iteration count, shaded by the winning side. Families with a single
    instance (the real problems) share one panel, a row each."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    from benchmarks.peers.analysis import family_winners
    from benchmarks.peers.config import family_label
    from benchmarks.peers.markdown import short_number
    from kperc_book.chapter import figsize

    wins = family_winners(frec)
    single = [
        f for f in families if len({(e["rho"], e["n"]) for e in wins if e["family"] == f}) == 1
    ]
    grids = [f for f in families if f not in single]
    panels = len(grids) + (1 if single else 0)
    if panels == 0:
        raise ValueError("no family of the record was asked for")
    cols = 1 if panels == 1 else 2
    nrows = -(-panels // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=figsize(nrows, cols, aspect=0.95), squeeze=False)
    flat = list(axes.flat)
    for ax, fam in zip(flat, grids, strict=False):
        mine = {(e["rho"], e["n"]): e for e in wins if e["family"] == fam}
        rhos = sorted({k[0] for k in mine}, reverse=True)
        ns = sorted({k[1] for k in mine})
        sym = "ρ₂/r" if fam == "two_rays" else "ρ"
        _grid_panel(
            ax,
            mine,
            rhos,
            ns,
            lambda r, sym=sym: f"{sym} = {short_number(r)}".replace("\u2060", ""),
            lambda n: f"n = {short_number(n)}".replace("\u2060", ""),
            family_label(fam),
        )
    if single:
        ax = flat[len(grids)]
        mine = {(f, 0): next(e for e in wins if e["family"] == f) for f in single}
        _grid_panel(
            ax,
            mine,
            single,
            [0],
            lambda f: family_label(f).replace(" (", "\n("),
            lambda _: "whole data set",
            "real problems",
        )
    for ax in flat[panels:]:
        ax.set_visible(False)
    fig.tight_layout()
    handles = [
        Patch(facecolor=FAMILY_WIN_COLORS["kperc"], label="a kperc algorithm was fastest"),
        Patch(facecolor=FAMILY_WIN_COLORS["sklearn"], label="a scikit-learn solver was fastest"),
    ]
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=1)
    return fig

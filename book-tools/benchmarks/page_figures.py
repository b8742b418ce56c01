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

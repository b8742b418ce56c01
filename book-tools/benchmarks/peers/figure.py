"""A record as a figure: time to a separator against n."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from benchmarks.peers.analysis import is_separator
from benchmarks.peers.config import FAMILY_LABELS, label, solvers_of

#: Line style of each solver in :func:`benchmarks.peers.figure.figure`.
SOLVER_STYLES = {
    "snkp-dense": ("tab:red", "-"),
    "snkp-factored": ("tab:red", "--"),
    "snkp-nystroem": ("tab:purple", "--"),
    "snkp-nystroem-grown": ("tab:purple", "-"),
    "nkp": ("tab:blue", "-"),
    "sklearn-perceptron": ("tab:orange", "-."),
    "linearsvc": ("tab:green", ":"),
    "svc-linear": ("tab:gray", "-"),
    "svc-rbf": ("tab:gray", "-"),
}


def figure(record: dict[str, Any], family: str, rhos: Sequence[float] | None = None):
    """Time to a separator against ``n`` (log-log), one panel per margin, one line per solver.

    At most two panels side by side, further ones stacked. Filled circles: runs that
    separated; crosses: runs that finished without a separator; open triangles at the
    cap: runs that did not finish within the cap. Skipped runs are not drawn.
    """
    import matplotlib.pyplot as plt

    from kperc_book.chapter import figsize, style

    style()
    sub = [r for r in record["rows"] if r["family"] == family]
    if not sub:
        raise ValueError(f"the record has no rows of the family {family!r}")
    if rhos is None:
        rhos = sorted({r["rho"] for r in sub}, reverse=True)
    cols = 1 if len(rhos) == 1 else 2
    nrows = math.ceil(len(rhos) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=figsize(nrows, cols, aspect=0.8), squeeze=False)
    solvers = solvers_of(sub)
    handles = {}
    for ax, rho in zip(axes.flat, rhos, strict=False):
        for s in solvers:
            rs = sorted(
                (r for r in sub if r["rho"] == rho and r["solver"] == s and "time_s" in r),
                key=lambda r: r["n"],
            )
            rs = [r for r in rs if r["status"] in ("finished", "timeout")]
            if not rs:
                continue
            c, ls = SOLVER_STYLES.get(s, ("k", "-"))
            (h,) = ax.plot([r["n"] for r in rs], [r["time_s"] for r in rs], color=c, ls=ls, lw=1.3)
            handles[s] = h
            ok = [r for r in rs if is_separator(r)]
            bad = [r for r in rs if r["status"] == "finished" and not is_separator(r)]
            cap = [r for r in rs if r["status"] == "timeout"]
            ax.plot([r["n"] for r in ok], [r["time_s"] for r in ok], "o", color=c, ms=4)
            ax.plot([r["n"] for r in bad], [r["time_s"] for r in bad], "x", color=c, ms=7, mew=2)
            ax.plot([r["n"] for r in cap], [r["time_s"] for r in cap], "^", color=c, mfc="white")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{FAMILY_LABELS.get(family, family)} problems, rho = {rho:g}")
        ax.set_xlabel("n")
        ax.set_ylabel("seconds to a separator")
    for ax in list(axes.flat)[len(rhos) :]:
        ax.set_visible(False)
    from matplotlib.lines import Line2D

    marks = [
        Line2D([], [], color="k", marker="o", ls="", ms=4, label="separated"),
        Line2D([], [], color="k", marker="x", ls="", ms=7, mew=2, label="no separator"),
        Line2D([], [], color="k", marker="^", mfc="white", ls="", label="stopped at the cap"),
    ]
    hs = [handles[s] for s in solvers if s in handles] + marks
    labs = [label(s) for s in solvers if s in handles] + [m.get_label() for m in marks]
    fig.tight_layout()
    # below every panel, where it cannot hide data (saved with bbox_inches="tight")
    fig.legend(hs, labs, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3)
    return fig

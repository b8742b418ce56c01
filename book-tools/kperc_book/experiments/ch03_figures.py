"""The figures of Chapter 3 (``book/ch03_kernels.ipynb``), drawn from computed results.

Each function takes what :mod:`kperc_book.experiments.ch03` computed and returns the
matplotlib figure; the notebook saves it with ``ch.figure(fig, NAME, alt=ALT, data=DATA)``
using the constants below, so that the drawing, its alt text and the datasets it shows
live in one tested place.

* :func:`nkp_margin_figure`: the normalised margin of NKP run past its first separator
  (:func:`~kperc_book.experiments.ch03.nkp_margin_traces`).
* :func:`boundaries_figure`: the decision boundaries of NKP and of the max-margin function
  on the planar problems (:func:`~kperc_book.experiments.ch03.decision_grid`).
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from kperc_book.chapter import figsize, legend_below

__all__ = [
    "TRACE_PROBLEMS",
    "TRACE_COLORS",
    "NKP_MARGIN_DATA",
    "NKP_MARGIN_ALT",
    "nkp_margin_figure",
    "PLANAR_PROBLEMS",
    "BOUNDARIES_DATA",
    "BOUNDARIES_ALT",
    "boundaries_figure",
]

#: The two real problems of the long NKP runs, and their colours.
TRACE_PROBLEMS = ("breast_cancer-rbf", "xor-poly")
TRACE_COLORS = {"breast_cancer-rbf": "tab:blue", "xor-poly": "tab:orange"}
#: Stored datasets shown by the margin figure.
NKP_MARGIN_DATA = ("breast_cancer", "xor")
NKP_MARGIN_ALT = (
    "Two panels against the iteration k on a log axis, for breast cancer (blue) and "
    "XOR (orange). Left: the normalised margin of the NKP iterate divided by the "
    "exact margin; it oscillates, turns positive at the first separator (dots) and "
    "its running best climbs towards 1. Right: one minus the best margin so far, on "
    "log-log axes, decreasing long after separation."
)

#: The planar problems of the decision-boundary figure (one panel each).
PLANAR_PROBLEMS = ("circles-rbf", "moons-rbf", "xor-poly")
BOUNDARIES_DATA = ("circles", "moons", "xor")
BOUNDARIES_ALT = (
    "Three panels, two on top and one below, for the circles, moons and XOR data. "
    "Each shows the two classes as blue dots and red squares, the max-margin decision "
    "boundary as a solid black curve over shading by its sign, and NKP's first "
    "separator as a dashed green curve that passes closer to some points."
)


def nkp_margin_figure(traces: dict[str, dict[str, Any]]):
    """Margin of the NKP iterate over ``rho_K`` (left) and ``1 -`` its running best (right).

    Parameters
    ----------
    traces : dict
        ``{problem: nkp_margin_trace(...)}`` for problems of :data:`TRACE_COLORS`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    unknown = set(traces) - set(TRACE_COLORS)
    if unknown:
        raise ValueError(f"no colour for {sorted(unknown)}; known: {sorted(TRACE_COLORS)}")
    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.9))
    for nm, tr in traces.items():
        k, m, c = tr["k"], tr["margin"] / tr["rho"], TRACE_COLORS[nm]
        best = np.maximum.accumulate(m)
        axes[0].plot(k, m, color=c, lw=0.5, alpha=0.35)
        axes[0].plot(k, best, color=c, lw=1.8, label=f"{nm} ($\\rho_K$={tr['rho']:.4f})")
        axes[0].plot(
            [tr["first"]],
            [tr["margin_at_first"] / tr["rho"]],
            "o",
            color=c,
            ms=7,
            mec="k",
            zorder=5,
        )
        axes[0].axvline(tr["first"], color=c, ls=":", lw=1.2)
        axes[1].loglog(k[best > 0], 1.0 - best[best > 0], color=c, lw=1.8, label=nm)
        axes[1].axvline(tr["first"], color=c, ls=":", lw=1.2)
    axes[0].axhline(1.0, color="k", lw=1, ls="--", label="$\\rho_K$ (exact)")
    axes[0].set_xscale("log")
    axes[0].set_ylim(-0.6, 1.1)
    axes[0].set_xlabel("iteration $k$")
    axes[0].set_ylabel("margin of $\\alpha_k$ / $\\rho_K$")
    axes[0].set_title("margin of the NKP iterate")
    legend_below(axes[0])
    axes[1].set_xlabel("iteration $k$")
    axes[1].set_ylabel("$1 - $ best margin so far / $\\rho_K$")
    axes[1].set_title("distance to the maximal margin")
    legend_below(axes[1])
    fig.tight_layout()
    return fig


def boundaries_figure(grids: dict[str, dict[str, Any]]):
    """Max-margin and NKP decision boundaries, one panel per planar problem (at most 3).

    Parameters
    ----------
    grids : dict
        ``{problem: decision_grid(problem, ...)}``, in panel order.

    Returns
    -------
    matplotlib.figure.Figure
        A 2 x 2 grid whose fourth panel holds the common legend.
    """
    if not 1 <= len(grids) <= 3:
        raise ValueError(f"one to three problems fit the 2 x 2 grid; got {len(grids)}")
    fig, axes = plt.subplots(2, 2, figsize=figsize(2, 2, aspect=1.0))
    axes = axes.ravel()
    axes[3].axis("off")
    for ax, (nm, g) in zip(axes, grids.items(), strict=False):
        ax.contourf(
            g["xx"],
            g["yy"],
            g["f_max"],
            levels=[-2, 0, 2],
            colors=["#f4c7c3", "#c6dbef"],
            alpha=0.6,
        )
        ax.contour(g["xx"], g["yy"], g["f_max"], levels=[0], colors="k", linewidths=1.5)
        ax.contour(
            g["xx"],
            g["yy"],
            g["f_nkp"],
            levels=[0],
            colors="tab:green",
            linewidths=1.5,
            linestyles="--",
        )
        pos = g["y"] > 0
        ax.scatter(*g["X"][pos].T, s=9, c="tab:blue", label="$y=+1$")
        ax.scatter(*g["X"][~pos].T, s=9, c="tab:red", marker="s", label="$y=-1$")
        ax.plot([], [], "k-", label="max-margin $f_{\\alpha^\\star}$")
        ax.plot([], [], "--", color="tab:green", label="NKP, first separator")
        ax.set_title(
            f"{nm}: $\\rho_K$={g['rho_K']:.4f}\nNKP margin {g['margin_nkp']:.4f} "
            f"at k={g['nkp_nit']}"
        )
        ax.set_xlabel("$x_1$")
        ax.set_ylabel("$x_2$")
        ax.set_aspect("equal")
        handles, labels = ax.get_legend_handles_labels()
        axes[3].legend(handles[:4], labels[:4], loc="upper left", title="all panels")
    fig.tight_layout()
    return fig

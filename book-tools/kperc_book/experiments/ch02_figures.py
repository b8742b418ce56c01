"""The figures of Chapter 2 (``book/ch02_linear_feasibility.ipynb``).

Each function draws one figure from the tables of :mod:`kperc_book.experiments.ch02` and
returns it; the notebook saves it with ``ch.figure(fig, name, alt=ALT[name])``. The
drawing code is the one the notebook used to carry, unchanged, so the saved PNG files do
not change.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

from kperc_book.chapter import figsize, legend_below

__all__ = ["ALT", "normalizing", "planted_bounds", "two_rays", "winnow"]

#: Alt text of each figure, by the content part of its name.
ALT = {
    "planted-bounds": (
        "Two panels. Left: log-log scatter of halting index against bound for the "
        "Perceptron on raw data (red) and the Normalised Perceptron (blue); every point "
        "lies below the dashed diagonal, the red ones far below. Right: box plots of "
        "halting index divided by bound for each planted margin; the blue boxes lie a "
        "small factor below 1, the red ones one to two orders of magnitude lower."
    ),
    "two-rays": (
        "Three panels. Top left: points on two rays in the positive quadrant at norms "
        "from 0.1 to 10, and their normalised copies on the unit circle. Top right: the "
        "normalised margin is flat in the spread r while the scaled raw margin falls like "
        "one over r squared. Bottom: on log-log axes, the Perceptron bound grows like r "
        "to the fourth while the normalised bound stays at 50; measured halting indices "
        "of three rules lie below their bounds."
    ),
    "normalizing": (
        "Two panels. Left: histograms of the ratio of the scaled raw margin to the "
        "normalised margin on random instances; all mass lies at or below the dashed line "
        "at 1. Right: the same ratio against the spread of the norms on log-log axes; it "
        "decreases with the spread and stays above the dotted lower bound, one over the "
        "spread."
    ),
    "winnow": (
        "Two panels with logarithmic axes against the dimension d from 16 to 128. Left: "
        "the l-infinity margin of Winnow stays constant while the Euclidean margin falls "
        "like one over the square root of 3d. Right: median halting indices and bounds; "
        "the Normalised Perceptron's count grows roughly linearly in d, Winnow's grows "
        "slowly and stays below its logarithmic bound."
    ),
}


def planted_bounds(planted: pd.DataFrame):
    """Halting indices against their bounds (left) and their ratio by planted margin
    (right), from a :func:`~kperc_book.experiments.ch02.planted_sweep` table."""
    n_planted = len(planted)
    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.9))
    ax = axes[0]
    ax.scatter(
        planted["bound_perceptron"],
        planted["nit_perceptron"],
        s=12,
        alpha=0.6,
        c="tab:red",
        label="Perceptron on raw data vs $R^2/\\rho^2$",
    )
    ax.scatter(
        planted["bound_np"],
        planted["nit_np"],
        s=12,
        alpha=0.6,
        c="tab:blue",
        label="Normalised Perceptron vs $1/\\rho_2^2$",
    )
    lim = np.array([1, 2 * planted["bound_perceptron"].max()])
    ax.plot(lim, lim, "k--", lw=1, label="halting index = bound")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bound")
    ax.set_ylabel("halting index")
    ax.set_title(f"{n_planted} planted instances")
    legend_below(ax)

    ax = axes[1]
    groups = sorted(planted["rho"].unique())
    pos = np.arange(len(groups))
    bp = [planted.loc[planted["rho"] == r, "ratio_perceptron"] for r in groups]
    bn = [planted.loc[planted["rho"] == r, "ratio_np"] for r in groups]
    b1 = ax.boxplot(bn, positions=pos - 0.18, widths=0.3, patch_artist=True)
    b2 = ax.boxplot(bp, positions=pos + 0.18, widths=0.3, patch_artist=True)
    for b, col in ((b1, "tab:blue"), (b2, "tab:red")):
        for patch in b["boxes"]:
            patch.set_facecolor(col)
            patch.set_alpha(0.5)
    ax.set_yscale("log")
    ax.axhline(1.0, color="k", ls="--", lw=1)
    ax.set_xticks(pos)
    ax.set_xticklabels([f"{r:g}" for r in groups])
    ax.set_xlabel("planted normalised margin $\\rho_2$")
    ax.set_ylabel("halting index / bound")
    legend_below(
        ax,
        [b1["boxes"][0], b2["boxes"][0]],
        ["Normalised Perceptron", "Perceptron (raw)"],
    )
    ax.set_title("how far below the bound")
    fig.tight_layout()
    return fig


def two_rays(example, rays: pd.DataFrame):
    """The two-rays example: the points of ``example`` (a dataset with ``X`` and ``y``)
    and their normalised copies, then margins, bounds and halting indices against the
    spread ``r`` from a :func:`~kperc_book.experiments.ch02.two_rays_sweep` table."""
    Xe, ye = example.X, example.y
    r_ex = float(np.linalg.norm(Xe, axis=1).max())
    fig = plt.figure(figsize=figsize(2, 2, aspect=1.15))
    axes = [fig.add_subplot(2, 2, 1), fig.add_subplot(2, 2, 2), fig.add_subplot(2, 1, 2)]

    ax = axes[0]
    pos = ye > 0
    ax.scatter(*Xe[pos].T, s=25, c="tab:blue", label="$y=+1$, ray through (0.6, 0.8)")
    ax.scatter(*Xe[~pos].T, s=25, c="tab:red", marker="s", label="$y=-1$, ray through (0.8, 0.6)")
    Xn = Xe / np.linalg.norm(Xe, axis=1, keepdims=True)
    ax.scatter(*Xn[pos].T, s=140, facecolors="none", edgecolors="tab:blue", lw=1.5)
    ax.scatter(
        *Xn[~pos].T,
        s=140,
        facecolors="none",
        edgecolors="tab:red",
        marker="s",
        lw=1.5,
        label="normalised points (all coincide)",
    )
    phi = np.linspace(0, np.pi / 2, 100)
    ax.plot(np.cos(phi), np.sin(phi), color="0.6", lw=1)
    ax.plot([0, r_ex], [0, r_ex], "k-", lw=1.2, label="max-margin line $x_1=x_2$")
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_xlim(0, 1.3 * r_ex)
    ax.set_ylim(0, 1.3 * r_ex)
    ax.set_xlabel("$x_1$ (symlog)")
    ax.set_ylabel("$x_2$")
    ax.set_title(f"the example for r = {r_ex:g}")
    legend_below(ax)

    ax = axes[1]
    ax.plot(rays["r"], rays["rho2"], "o-", c="tab:blue", label="$\\rho_2$ (normalised)")
    ax.plot(rays["r"], rays["rho"], "s-", c="tab:orange", label="$\\rho$ (unnormalised)")
    ax.plot(rays["r"], rays["rho_over_R"], "^-", c="tab:red", label="$\\rho/\\max_i\\|x_i\\|$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("spread $r$ (norms in $[1/r, r]$)")
    ax.set_ylabel("margin")
    ax.set_title("margins")
    legend_below(ax)

    ax = axes[2]
    ax.plot(
        rays["r"],
        rays["bound_perceptron"],
        "-",
        c="tab:red",
        lw=2,
        label="bound $R^2/\\rho^2=50r^4$",
    )
    ax.plot(rays["r"], rays["bound_np"], "-", c="tab:blue", lw=2, label="bound $1/\\rho_2^2=50$")
    ax.plot(rays["r"], rays["nit_least"], "v--", c="tab:red", label="Perceptron, lazy adversary")
    ax.plot(
        rays["r"],
        rays["nit_perceptron"],
        "s--",
        c="tab:orange",
        label="Perceptron, most violated point",
    )
    ax.plot(rays["r"], rays["nit_np"], "o--", c="tab:blue", label="Normalised Perceptron")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("spread $r$")
    ax.set_ylabel("updates")
    ax.set_title("bounds and halting indices")
    legend_below(ax, ncol=2)
    fig.tight_layout()
    return fig


def normalizing(ratios: pd.DataFrame, planted: pd.DataFrame):
    """The ratio ``(rho / max ||x_i||) / rho_2``: histograms by kind of instance (left) and
    against the spread of the norms (right), from a
    :func:`~kperc_book.experiments.ch02.margin_ratio_sweep` and a
    :func:`~kperc_book.experiments.ch02.planted_sweep` table."""
    planted_ratio = planted["rho_raw"] / planted["R"] / planted["rho2"]
    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.9))
    ax = axes[0]
    bins = np.linspace(0, 1, 41)
    for kind, col in (("planted", "tab:blue"), ("gaussian", "tab:green")):
        ax.hist(
            ratios.loc[ratios["kind"] == kind, "ratio"],
            bins=bins,
            alpha=0.55,
            color=col,
            label=f"{kind} ({(ratios['kind'] == kind).sum()})",
        )
    ax.hist(
        planted_ratio,
        bins=bins,
        alpha=0.55,
        color="tab:purple",
        label=f"planted, first section ({len(planted_ratio)})",
    )
    ax.axvline(1.0, color="k", ls="--", lw=1, label="proposition: ratio $\\leq 1$")
    ax.set_xlabel("$(\\rho / \\max_i\\|x_i\\|)\\ /\\ \\rho_2$")
    ax.set_ylabel("instances")
    ax.set_title("the normalised bound is never weaker")
    legend_below(ax)

    ax = axes[1]
    for kind, col in (("planted", "tab:blue"), ("gaussian", "tab:green")):
        sub = ratios[ratios["kind"] == kind]
        ax.scatter(sub["spread"], sub["ratio"], s=12, alpha=0.6, c=col, label=kind)
    s = np.geomspace(1, ratios["spread"].max(), 50)
    ax.plot(s, 1 / s, "k:", lw=1, label="$\\min\\|x\\| / \\max\\|x\\|$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("spread $\\max_i\\|x_i\\| / \\min_i\\|x_i\\|$")
    ax.set_ylabel("ratio")
    ax.set_title("against the spread of the norms")
    legend_below(ax)
    fig.tight_layout()
    return fig


def winnow(tab: pd.DataFrame):
    """Margins (left) and median halting indices with their bounds (right) against the
    dimension, from a :func:`~kperc_book.experiments.ch02.winnow_table`."""
    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.9))
    dd = tab.index.to_numpy()
    ax = axes[0]
    ax.plot(dd, tab["rho_inf"], "o-", c="tab:green", label="$\\rho_\\infty$ (LP)")
    ax.plot(dd, tab["rho2"], "s-", c="tab:blue", label="$\\rho_2$")
    ax.plot(dd, 1 / np.sqrt(3 * dd), "k:", label="$1/\\sqrt{3d}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("dimension $d$")
    ax.set_ylabel("margin")
    ax.set_xticks(dd, [str(v) for v in dd], minor=False)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_title("margins (sparse target, k = 3)")
    legend_below(ax)
    ax = axes[1]
    ax.plot(dd, tab["bound_np"], "-", c="tab:blue", lw=2, label="bound $1/\\rho_2^2$")
    ax.plot(dd, tab["nit_np"], "s--", c="tab:blue", label="Normalised Perceptron")
    ax.plot(
        dd,
        tab["bound_winnow"],
        "-",
        c="tab:green",
        lw=2,
        label="bound $2\\ln(2d)/\\rho_\\infty^2$ (derived)",
    )
    ax.plot(dd, tab["nit_winnow"], "o--", c="tab:green", label="Winnow, $\\eta=\\rho_\\infty$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("dimension $d$")
    ax.set_ylabel("updates (median over seeds)")
    ax.set_xticks(dd, [str(v) for v in dd], minor=False)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_title("iterations")
    legend_below(ax)
    fig.tight_layout()
    return fig

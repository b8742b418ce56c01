"""Figures of Chapter 6 (``book/ch06_primal_dual.ipynb``).

Each function takes the tables the notebook computed with
:mod:`kperc_book.experiments.ch06` and returns a finished
:class:`matplotlib.figure.Figure`; the notebook passes it to
:meth:`kperc_book.chapter.Chapter.figure` with the alt text of :data:`ALT`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from kperc_book.chapter import figsize
from kperc_book.experiments import ch06, plots

__all__ = ["ALT", "lemma7", "sandwich", "outer_loops", "vs_nvn", "gamma_choice"]

#: Alt text of every figure, by the figure's name.
ALT = {
    "lemma-7": (
        "Scatter of the distance from a centre q to the witness set against the G-norm of "
        "q, with the Hoffman-type bound as a curve above every point."
    ),
    "sandwich": (
        "Two log-log panels along SNKPVN runs against the iteration: on a separable "
        "instance (left) and on an inseparable one (right), the negated smoothed loss "
        "(green) stays between half the squared G-norm of p_k (blue, below) and its upper "
        "bound (red, above) at every iteration."
    ),
    "outer-loops": (
        "G-norm of the centre q_t against the outer loop t on a log axis for six ISNKPVN "
        "runs: runs that end with a certificate are solid blue-green lines with filled "
        "markers, runs that end with a separator are dotted red-orange lines with hollow "
        "markers and stop early; all fall at least as fast as the dashed line gamma to the "
        "power -t."
    ),
    "vs-nvn": (
        "Three log-log panels of iteration counts. Top left, ISNKPVN, and top right, the "
        "normalised Von Neumann algorithm (NVN), against one over the tolerance epsilon on "
        "three inseparable point sets and an RBF problem with a repeated point, each colour "
        "one problem, solid lines measured and dashed lines the bounds: at margin zero NVN's "
        "count rises steeply, like one over epsilon squared, while ISNKPVN's rises slowly. "
        "Bottom, both methods against one over the margin on separable problems: NVN's "
        "count rises faster than ISNKPVN's, and both stay below their dashed bounds."
    ),
    "gamma": (
        "Two stacked log-log panels against the shrink factor gamma of ISNKPVN: on top the "
        "measured total inner iterations for an inseparable, a margin-0 and a separable "
        "problem; below, the a-priori bound on that total for the same problems."
    ),
}


def lemma7(l7: pd.DataFrame, rhos: Sequence[float]):
    """Lemma 7: ``dist(q, W)`` against ``||q||_G / |rho_K|`` on the ``"cap"`` instances of
    a :func:`~kperc_book.experiments.ch06.lemma7_sweep` (one marker per margin of
    ``rhos``, at most three), under the bound and the slides' form of it."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize(1, 1))
    cap = l7[l7["kind"] == "cap"]
    markers = dict(zip(rhos, "o^s", strict=False))
    for r in rhos:
        sub = cap[cap["rho"] == r]
        x = np.concatenate(
            [nq / abs(re) for nq, re in zip(sub["norm_q_G"], sub["rho_exact"], strict=False)]
        )
        yv = np.concatenate(list(sub["dist"]))
        ax.scatter(x, yv, s=14, alpha=0.7, marker=markers[r], label=f"$\\rho_K\\approx{r:g}$")
    s = np.geomspace(1e-4, 1e2, 200)
    ax.plot(
        s,
        np.sqrt(2) * s / (1 + s),
        "k-",
        lw=1.5,
        label="Lemma 7: $\\sqrt{2}\\,s/(1+s)$, $s=\\|q\\|_G/|\\rho_K|$",
    )
    ax.plot(s, np.minimum(np.sqrt(2), np.sqrt(2) * s), "k:", lw=1, label="slides' form")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("$\\|q\\|_G/|\\rho_K|$")
    ax.set_ylabel("dist$(q,W)$")
    ax.set_title("distance to the exact certificates")
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig


def sandwich(n: int, d: int, rho: float, delta: float):
    """The sandwiches of Lemmas 8 and 9 along two SNKPVN runs from the barycentre (seed 0):
    on a ``"planted"`` instance of margin ``rho`` and on an ``"edge"`` one
    (:func:`kperc_book.experiments.plots.snkpvn_sandwich`)."""
    feas = ch06.sandwich_run("planted", n, d, rho, 0, "barycentre", delta, keep_trace=True)
    infs = ch06.sandwich_run("edge", n, d, 0.0, 0, "barycentre", delta, keep_trace=True)
    return plots.snkpvn_sandwich(feas, infs)


def outer_loops(
    isn_inf: pd.DataFrame,
    isn_feas: pd.DataFrame,
    isn_kern: pd.DataFrame,
    *,
    cap_rhos: Sequence[float],
    feas_rhos: Sequence[float],
    eps_grid: Sequence[float],
    gamma: float,
):
    """``||q_t||_G`` along the outer loops of six ISNKPVN runs (the inseparable ones at the
    smallest tolerance, the kernel ones, the separable one of smallest margin), against
    ``gamma^{-t}``."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize(1, 1))
    emin = min(eps_grid)
    series = [
        (
            f"cap, $\\rho_K={r:g}$",
            isn_inf[
                (isn_inf["kind"] == "cap") & (isn_inf["rho"] == r) & (isn_inf["eps"] == emin)
            ].iloc[0],
        )
        for r in cap_rhos
    ]
    series.append(
        (
            "edge, $\\rho_K=0$",
            isn_inf[(isn_inf["kind"] == "edge") & (isn_inf["eps"] == emin)].iloc[0],
        )
    )
    series.append(
        (
            "moons RBF + duplicate, $\\rho_K=0$",
            isn_kern[(isn_kern["kind"] == "moons-rbf-duplicate")].iloc[-1],
        )
    )
    series.append(
        (
            f"planted, $\\rho_K={min(feas_rhos):g}$",
            isn_feas[(isn_feas["rho"] == min(feas_rhos)) & (isn_feas["seed"] == 0)].iloc[0],
        )
    )
    series.append(("moons RBF (separable)", isn_kern[isn_kern["kind"] == "moons-rbf"].iloc[0]))
    # Certificate runs: solid lines, filled markers, cool colours; separator runs: dotted
    # lines, hollow markers, warm colours. Two legends below the axes say which is which.
    cert_colors = iter(["tab:blue", "tab:cyan", "tab:green", "tab:olive"])
    sep_colors = iter(["tab:red", "tab:orange"])
    handles: dict[str, list] = {"certificate": [], "separator": []}
    for (lab, row), mk in zip(series, "osD^vx", strict=False):
        nq = row["norm_q"]
        cert = row["outcome"] == "certificate"
        (line,) = ax.plot(
            np.arange(nq.size),
            nq,
            marker=mk,
            ms=6,
            lw=1.6,
            ls="-" if cert else ":",
            color=next(cert_colors) if cert else next(sep_colors),
            markerfacecolor=None if cert else "white",
            label=lab,
        )
        handles[row["outcome"]].append(line)
    t = np.arange(0, 16)
    (ref,) = ax.plot(t, gamma ** (-t.astype(float)), "k--", lw=1, label="$\\gamma^{-t}$")
    ax.axhline(emin, color="0.5", lw=0.8, ls=":")
    ax.text(13.5, emin * 1.3, f"$\\varepsilon$ = {emin:g}", color="0.3")
    ax.set_yscale("log")
    ax.set_xlabel("outer loop $t$")
    ax.set_ylabel("$\\|q_t\\|_G$")
    ax.set_title(f"ISNKPVN, $\\gamma$ = {gamma:g}")
    first = ax.legend(
        handles=handles["certificate"] + [ref],
        title="ends with a certificate",
        loc="upper left",
        bbox_to_anchor=(0.0, -0.14),
    )
    ax.add_artist(first)
    ax.legend(
        handles=handles["separator"],
        title="ends with a separator",
        loc="upper right",
        bbox_to_anchor=(1.0, -0.14),
    )
    fig.tight_layout()
    return fig


def vs_nvn(
    isn_inf: pd.DataFrame,
    isn_feas: pd.DataFrame,
    isn_kern: pd.DataFrame,
    *,
    cap_rhos: Sequence[float],
    feas_n: int,
    feas_d: int,
):
    """ISNKPVN and NVN: (a), (b) against ``1/eps`` on the inseparable and kernel
    margin-0 problems, (c) against ``1/rho`` on the separable ones (medians,
    :func:`kperc_book.experiments.ch06.feasible_medians`), each with its bounds."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=figsize(2, 1, aspect=0.5), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.1, 1.0])
    axes = top.subplots(1, 2, sharey=True)
    ax_sep = bottom.subplots()
    insts = [("cap", r, f"cap, $\\rho_K={r:g}$") for r in cap_rhos] + [
        ("edge", 0.0, "edge, $\\rho_K=0$")
    ]
    colours = ["tab:green", "tab:orange", "tab:purple"]
    for (kind, r, lab), colour in zip(insts, colours, strict=False):
        sub = isn_inf[(isn_inf["kind"] == kind) & (isn_inf["rho"] == r)].sort_values("eps")
        axes[0].plot(1 / sub["eps"], sub["nit"], "o-", color=colour, ms=4, label=lab)
        axes[0].plot(1 / sub["eps"], sub["total_bound"], "--", color=colour, lw=1)
        sub_nvn = sub[sub["nvn_nit"].notna()]
        axes[1].plot(1 / sub_nvn["eps"], sub_nvn["nvn_nit"], "o-", color=colour, ms=4)
        axes[1].plot(1 / sub_nvn["eps"], sub_nvn["nvn_bound"], "--", color=colour, lw=1)
    kernel_dup = isn_kern[isn_kern["kind"] == "moons-rbf-duplicate"].sort_values("eps")
    axes[0].plot(
        1 / kernel_dup["eps"],
        kernel_dup["nit"],
        "D-",
        color="tab:red",
        ms=4,
        label="moons RBF + duplicate",
    )
    axes[0].plot(1 / kernel_dup["eps"], kernel_dup["total_bound"], "--", color="tab:red", lw=1)
    kernel_dup_nvn = kernel_dup[kernel_dup["nvn_nit"].notna()]
    axes[1].plot(1 / kernel_dup_nvn["eps"], kernel_dup_nvn["nvn_nit"], "D-", color="tab:red", ms=4)
    axes[1].plot(
        1 / kernel_dup_nvn["eps"], kernel_dup_nvn["nvn_bound"], "--", color="tab:red", lw=1
    )
    for ax, title in ((axes[0], "(a) ISNKPVN, inseparable"), (axes[1], "(b) NVN, inseparable")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("$1/\\varepsilon$")
        ax.set_title(title)
    axes[0].set_ylabel("iterations")
    handles, labels = axes[0].get_legend_handles_labels()
    handles += [
        plt.Line2D([], [], color="0.3", marker="o", ms=4, label="measured"),
        plt.Line2D([], [], color="0.3", ls="--", lw=1, label="bound"),
    ]
    top.legend(handles=handles, loc="outside lower center", ncol=3)
    agg = ch06.feasible_medians(isn_feas)
    ax_sep.plot(1 / agg["rho"], agg["nit"], "o-", color="tab:blue", ms=4, label="ISNKPVN (median)")
    ax_sep.plot(
        1 / agg["rho"], agg["total_bound"], "--", color="tab:blue", lw=1, label="ISNKPVN bound"
    )
    ax_sep.plot(1 / agg["rho"], agg["nvn"], "s-", color="tab:brown", ms=4, label="NVN (median)")
    ax_sep.plot(
        1 / agg["rho"],
        agg["nvn_bound"],
        "--",
        color="tab:brown",
        lw=1,
        label="NVN bound $1/\\rho_K^2$",
    )
    ax_sep.set_xscale("log")
    ax_sep.set_yscale("log")
    ax_sep.xaxis.set_major_locator(plt.matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax_sep.xaxis.set_major_formatter(plt.matplotlib.ticker.FormatStrFormatter("%g"))
    ax_sep.xaxis.set_minor_locator(plt.NullLocator())
    ax_sep.set_xlabel("$1/\\rho_K$")
    ax_sep.set_ylabel("iterations")
    ax_sep.set_title(f"(c) both methods, separable (planted, n={feas_n}, d={feas_d})")
    bottom.legend(loc="outside lower center", ncol=2)
    return fig


def gamma_choice(
    agg: pd.DataFrame,
    *,
    gammas: Sequence[float],
    cap_rho: float,
    feas_rho: float,
    eps: float,
):
    """Mean total iterations of ISNKPVN (top) and its a-priori bound (bottom) against
    ``gamma``, from :func:`kperc_book.experiments.ch06.gamma_means`."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=figsize(2, 1, aspect=0.45), sharex=True)
    labels = {
        "cap": f"cap $\\rho_K={cap_rho:g}$, $\\varepsilon$={eps:g}",
        "edge": f"edge $\\rho_K=0$, $\\varepsilon$={eps:g}",
        "planted": f"planted $\\rho_K={feas_rho:g}$ (separable)",
    }
    for kind, c in zip(
        ["cap", "edge", "planted"], ["tab:orange", "tab:purple", "tab:blue"], strict=False
    ):
        sub = agg[agg["kind"] == kind]
        axes[0].plot(sub["gamma"], sub["nit"], "o-", color=c, label=labels[kind])
        axes[1].plot(sub["gamma"], sub["bound"], "--", color=c, label=labels[kind])
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("$\\gamma$")
        ax.set_xticks(gammas)
        ax.set_xticklabels([f"{g:g}" for g in gammas])
        ax.xaxis.set_minor_locator(plt.NullLocator())
    axes[0].set_ylabel("iterations (mean)")
    axes[0].set_title("measured (solid)")
    axes[1].set_ylabel("bound on the total")
    axes[1].set_title("a-priori bound of the ISNKPVN theorem (dashed)")
    axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2)  # below: hides no data
    fig.tight_layout()
    return fig

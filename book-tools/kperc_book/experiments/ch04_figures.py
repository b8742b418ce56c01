"""Chapter 4's figures, drawn from the results of :mod:`kperc_book.experiments.ch04`.

Each function returns a finished :class:`matplotlib.figure.Figure`; the notebook saves and
shows it with ``ch.figure(fig, name, alt=ALT[name])``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kperc_book.chapter import figsize, legend_below
from kperc_book.experiments import ch04, plots

__all__ = ["ALT", "sandwich", "rates", "n_dependence", "realdata"]

#: Alt text of each figure (what it shows, for readers who cannot see it).
ALT = {
    "sandwich": (
        "Three stacked panels against the iteration on log axes. Top: the loss, the "
        "smoothed loss and its lower and upper bounds along an SNKP run on breast cancer; "
        "the curves stay in order and converge to minus half the squared margin. Middle: "
        "the recorded smoothing parameter lies on the curve 4 over (k+1)(k+2). Bottom: "
        "the slack of Lemma 5 on a small instance stays positive with mu_0 = 2 and turns "
        "negative with mu_0 = 1."
    ),
    "rates": (
        "Log-log plot of halting index against one over the margin for the Perceptron on "
        "raw data (red), the Normalised Perceptron run as NKP (blue) and SNKP (green), "
        "with bands over seeds and dashed bounds. The red and blue curves rise with slope "
        "about 2, the green one with slope about 1, and every curve stays below its "
        "bound."
    ),
    "n-dependence": (
        "Two panels against the number of points n on a log axis at a fixed margin. Left: "
        "SNKP's halting index times the margin for the planted and crowded families, "
        "below the bound 2 sqrt(2 log n); the crowded family follows a multiple of "
        "sqrt(log n). Right: NKP's halting index times the squared margin, below its "
        "bound 1, with the crowded family's points in a random order."
    ),
    "realdata": (
        "Two dot plots side by side, one row per real kernel problem, with NKP as blue "
        "circles and SNKP as green diamonds on logarithmic axes. Left: halting indices; "
        "SNKP needs fewer iterations on every problem, several times fewer on breast cancer "
        "and XOR. Right: median wall time of one run; SNKP takes longer on every problem."
    ),
}


def sandwich(sw: dict[str, Any], rho: float, bad: dict[str, Any]):
    """The sandwich of Lemmas 4 and 5 along one SNKP run, ``mu_k`` against its closed
    form, and the Lemma-5 slack with ``mu_0 = 2`` and ``mu_0 = 1``.

    ``sw``: :func:`ch04.snkp_sandwich` on breast_cancer-rbf; ``rho``: its margin;
    ``bad``: :func:`ch04.mu0_search` with ``mu0 = 1``.
    """
    fig, axes = plt.subplots(3, 1, figsize=figsize(3, 1, aspect=0.45))
    ax = axes[0]
    k = sw["k"] + 1  # shift by one for the log axis
    ax.plot(k, sw["L"], color="k", lw=1.6, label="$L(\\alpha_k)$")
    ax.plot(k, sw["upper"], color="tab:green", lw=1.6, label="$-\\frac{1}{2}\\|p_k\\|_G^2$")
    ax.plot(k, sw["L_mu"], color="tab:blue", lw=1.6, label="$L_{\\mu_k}(\\alpha_k)$")
    ax.plot(k, sw["lower"], color="tab:red", lw=1.6, label="$L(\\alpha_k)-\\mu_k\\log n$")
    ax.axhline(-0.5 * rho**2, color="gray", ls="--", lw=1, label="$-\\rho_K^2/2$")
    ax.axvline(sw["halt"] + 1, color="gray", ls=":", lw=1.2)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1e-4)
    ax.set_xlabel("iteration $k+1$")
    ax.set_title(f"the sandwich along SNKP (breast_cancer-rbf, n={sw['n']})")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))

    ax = axes[1]
    ax.loglog(k, sw["mu"], "o", ms=3, color="tab:blue", label="$\\mu_k$ recorded by SNKP")
    ax.loglog(k, ch04.mu_closed_form(sw["k"]), color="k", lw=1, label="$4/((k+1)(k+2))$")
    ax.set_xlabel("iteration $k+1$")
    ax.set_ylabel("$\\mu_k$")
    ax.set_title("smoothing parameter and its closed form")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))

    ax = axes[2]
    for key, lab, c in (
        ("sandwich_mu2", "$\\mu_0=2$", "tab:green"),
        ("sandwich", "$\\mu_0=1$", "tab:red"),
    ):
        s = bad[key]
        ax.plot(s["k"], s["slack5"], color=c, lw=1.6, label=lab)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_yscale("symlog", linthresh=1e-5)
    ax.set_xlabel("iteration $k$")
    ax.set_ylabel("$-\\frac{1}{2}\\|p_k\\|_G^2 - L_{\\mu_k}(\\alpha_k)$")
    ax.set_title(f"Lemma 5 slack, planted instance (seed {bad['seed']}, n={bad['n']})")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def rates(
    summ: dict[str, Any],
    slopes: dict[str, float],
    *,
    rho_fit_max: float,
    n_points: int,
    dim: int,
    n_seeds: int,
):
    """Halting indices of the three methods against ``1/rho``, with bands and bounds
    (``summ``: :func:`ch04.summarize_rates`, ``slopes``: :func:`ch04.fit_slopes`)."""
    fig, ax = plt.subplots(figsize=figsize(1, 1, aspect=0.7))
    x = 1.0 / summ["rho"]
    styles = {
        "perceptron": ("tab:red", "s", "Perceptron (raw data)", "$R^2/\\rho_{\\rm raw}^2$"),
        "nkp": ("tab:blue", "o", "Normalised Perceptron = NKP", "$1/\\rho^2$"),
        "snkp": ("tab:green", "^", "SNKP", "$2\\sqrt{2\\log n}/\\rho$"),
    }
    for m, (c, mk, lab, blab) in styles.items():
        ax.fill_between(x, summ[f"{m}_min"], summ[f"{m}_max"], color=c, alpha=0.2, lw=0)
        ax.plot(
            x,
            summ[f"{m}_median"],
            marker=mk,
            color=c,
            lw=1.6,
            label=f"{lab}: slope {slopes[m]:.2f}",
        )
        ax.fill_between(x, summ[f"{m}_bound_min"], summ[f"{m}_bound_max"], color=c, alpha=0.1, lw=0)
        ax.plot(x, summ[f"{m}_bound_median"], ls="--", color=c, lw=1.2, label=f"bound {blab}")
    ax.axvline(1.0 / rho_fit_max, color="gray", ls=":", lw=1)
    ax.text(
        1.0 / rho_fit_max * 1.05,
        0.03,
        "slope fit range $\\rightarrow$",
        color="gray",
        transform=ax.get_xaxis_transform(),
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("$1/\\rho$ (planted normalised margin)")
    ax.set_ylabel("halting index (number of updates)")
    ax.set_title(f"planted instances, n={n_points}, d={dim}, {n_seeds} seeds per margin")
    legend_below(ax, ncol=2)
    fig.tight_layout()
    return fig


def n_dependence(agg: pd.DataFrame, n_values: Sequence[int], rho_n: float):
    """SNKP's and NKP's scaled halting indices against ``n`` (``agg``: :func:`ch04.n_table`)."""
    per_sqrt, _ = ch04.crowded_scaling(agg)
    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.9))
    nn = np.array(sorted(n_values), dtype=float)
    fam_style = {"planted": ("tab:purple", "o"), "crowded": ("tab:green", "^")}
    ax = axes[0]
    for fam, (c, mk) in fam_style.items():
        a = agg[agg["family"] == fam]
        ax.fill_between(
            a["n"], rho_n * a["snkp_min"], rho_n * a["snkp_max"], color=c, alpha=0.2, lw=0
        )
        ax.plot(a["n"], rho_n * a["snkp_med"], marker=mk, color=c, lw=1.6, label=f"SNKP, {fam}")
    ax.plot(nn, 2 * np.sqrt(2 * np.log(nn)), "k--", lw=1.2, label="bound $2\\sqrt{2\\log n}$")
    c_fit = float(np.median(per_sqrt)) * rho_n
    ax.plot(
        nn,
        c_fit * np.sqrt(np.log(nn)),
        ":",
        color="tab:green",
        lw=1.5,
        label=f"${c_fit:.2f}\\sqrt{{\\log n}}$ (crowded, median fit)",
    )
    ax.set_xscale("log")
    ax.set_xlabel("number of points $n$")
    ax.set_ylabel("$\\rho\\,\\times$ halting index")
    ax.set_title(f"SNKP, $\\rho$ = {rho_n}")
    legend_below(ax)
    ax = axes[1]
    for fam, (c, mk) in fam_style.items():
        a = agg[agg["family"] == fam]
        ax.plot(a["n"], rho_n**2 * a["nkp_med"], marker=mk, color=c, lw=1.6, label=f"NKP, {fam}")
    ax.axhline(1.0, color="k", ls="--", lw=1.2, label="bound $1$ (i.e. $1/\\rho^2$)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of points $n$")
    ax.set_ylabel("$\\rho^2\\,\\times$ halting index")
    ax.set_title("NKP, same instances (crowded: shuffled)")
    legend_below(ax)
    fig.tight_layout()
    return fig


def realdata(real: list[dict[str, Any]], tim: dict[str, Any]):
    """Iterations and median wall time of NKP and SNKP on the real problems
    (``real``: :func:`ch04.real_data_iterations`, ``tim``: :func:`ch04.read_timings`)."""
    wide = ch04.timings_table(tim, real)
    probs = [r["problem"] for r in real]
    live = {(r["problem"], m): r[f"nit_{m}"] for r in real for m in ("nkp", "snkp")}
    return plots.realdata(
        probs,
        {m: [live[(p, m)] for p in probs] for m in ("nkp", "snkp")},
        {m: wide[m].to_numpy() for m in ("nkp", "snkp")},
        date=tim["date"][:10],
    )

"""Figures of Chapter 5 (``book/ch05_infeasible_problems.ipynb``).

Each function takes what :mod:`kperc_book.experiments.ch05` computed and returns a
finished :class:`matplotlib.figure.Figure`; the notebook saves it with ``ch.figure``.
The planar Von Neumann paths are drawn by :func:`kperc_book.experiments.plots.nvn_2d`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kperc_book.chapter import figsize
from kperc_book.experiments import ch05, plots

__all__ = ["nvn_rates", "theorem3", "caveat"]


def nvn_rates(epsrun: pd.DataFrame, rhos: Sequence[float]):
    """The three rate panels of :func:`kperc_book.experiments.plots.nvn_rates` for the
    tolerance sweep ``epsrun`` (rows of :func:`ch05.nvn_sweep` on
    :func:`ch05.eps_points`; the traced runs give the squared norms)."""
    return plots.nvn_rates(ch05.rate_traces(epsrun), epsrun, rhos)


def theorem3(picture: dict[str, Any]):
    """Theorem 3 on 2-D data (``picture`` from :func:`ch05.theorem3_picture`).

    Top: the hull of the signed points, the inscribed ball of radius ``|rho|``, the closest
    facet and the direction ``-nu`` that attains the margin. Bottom: ``min_i a_i^T u`` and
    ``max_i a_i^T u`` over the angle of the unit direction ``u``, with ``rho`` and
    ``|rho|``.
    """
    h2, prof = picture["hull"], picture["profile"]
    fig, axes = plt.subplots(2, 1, figsize=figsize(2, 1, aspect=0.55))
    ax = axes[0]
    A = h2["A"]
    ax.fill(*h2["polygon"].T, color="tab:blue", alpha=0.12)
    ax.plot(*h2["polygon"].T, color="tab:blue", lw=1, label="hull of the $a_i$")
    ax.scatter(*A.T, s=22, c="tab:blue", zorder=3)
    t = np.linspace(0, 2 * np.pi, 400)
    r = h2["radius"]
    ax.fill(
        r * np.cos(t),
        r * np.sin(t),
        color="tab:orange",
        alpha=0.3,
        label=f"inscribed ball, radius $|\\rho|$ = {r:.3g}",
    )
    ax.plot(*h2["facet"].T, color="tab:red", lw=3, label="facet at distance $|\\rho|$")
    nu = h2["nu"]
    ax.annotate("", xy=-0.8 * nu, xytext=(0, 0), arrowprops={"arrowstyle": "->", "color": "k"})
    ax.text(*(-0.85 * nu + np.array([0.05, 0.0])), "$-\\nu$ (attains $\\rho$)", fontsize=9)
    ax.scatter([0], [0], marker="+", s=120, c="k", zorder=5)
    ax.set_aspect("equal")
    ax.set_xlim(-1.2, 1.2)
    ax.set_ylim(-1.2, 1.2)
    ax.set_xlabel("first coordinate")
    ax.set_ylabel("second coordinate")
    ax.set_title("infeasible_2d: the ball of Theorem 3")
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))  # outside: hides no data
    ax = axes[1]
    ax.plot(prof["phi"], prof["min"], color="tab:blue", label="$\\min_i a_i^\\top u(\\varphi)$")
    ax.plot(
        prof["phi"],
        prof["max"],
        color="tab:green",
        label="$\\max_i a_i^\\top u(\\varphi)$ (support function)",
    )
    ax.axhline(h2["rho"], color="tab:red", ls="--", lw=1, label="$\\rho$ (kperc.margin)")
    ax.axhline(-h2["rho"], color="tab:orange", ls="--", lw=1, label="$|\\rho|$")
    phi_star = np.arctan2(-nu[1], -nu[0]) % (2 * np.pi)
    ax.axvline(phi_star, color="k", lw=0.8, ls=":", label="direction $-\\nu$")
    ax.set_xlabel("angle $\\varphi$ of the unit direction $u$")
    ax.set_ylabel("value")
    ax.set_title("every direction: the margin is the top of the blue curve")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    fig.tight_layout()
    return fig


def caveat(cav: dict[str, Any]):
    """``|rho|`` of the lifted points against the height of the lift (log-log), with the
    span-restricted margin of the planar points (``cav`` from :func:`ch05.caveat_lift`)."""
    fig, ax = plt.subplots(figsize=figsize(1, 1))
    ax.plot(
        cav["heights"],
        -cav["rho_lifted"],
        "o-",
        color="tab:blue",
        label="$|\\rho|$ of the lifted points (rank 3)",
    )
    ax.axhline(
        -cav["rho_2d"],
        color="tab:red",
        ls="--",
        label="$|\\rho|$ span-restricted, height 0 (rank 2)",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("height $t$ of the lift")
    ax.set_ylabel("$|\\rho|$")
    ax.set_title("margin (5) vanishes with the height; the span margin does not")
    ax.legend()
    fig.tight_layout()
    return fig

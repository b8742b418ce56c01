"""Figures of Chapter 1: the cone view of ``planted_2d`` and the ``circles`` problem.

Each function draws one figure of ``book/ch01_introduction.ipynb`` from what
:mod:`kperc_book.experiments.ch01` computed and returns it; the notebook saves it with
``ch.figure(fig, name, alt=...)``, with the alt text of this module (:data:`CONE_ALT`,
:data:`CIRCLES_ALT`), which the chapter's ``{glue:figure}`` repeats.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from kperc_book.chapter import figsize, legend_below
from kperc_book.experiments import ch01

__all__ = ["CONE_ALT", "CIRCLES_ALT", "cone", "circles"]

#: Alt text of the figure ``ch01-cone``.
CONE_ALT = (
    "Two panels. Left: two classes of points in the plane separated by a line through "
    "the origin, with the max-margin direction drawn as an arrow. Right: the same "
    "points normalised to the unit circle and signed by their labels; they fill a "
    "narrow arc, the separating directions form a green arc, and an orange segment "
    "marks the normalised margin as the distance from the origin to their convex "
    "hull."
)

#: Alt text of the figure ``ch01-circles``.
CIRCLES_ALT = (
    "Three panels. Top left: two concentric rings of points that no line separates. "
    "Top right: the circle data of the first panel and SNKP's closed decision "
    "boundary with an RBF kernel, next to the circle traced by the lifted plane. "
    "Bottom: the points lifted onto the paraboloid z equals x1 squared plus x2 "
    "squared, where a plane separates the inner ring from the outer one."
)


def cone(X, y, geo: dict[str, Any]):
    """The data with its max-margin line, and the signed normalised points with the dual cone.

    Parameters
    ----------
    X : array_like of shape (n_samples, 2)
    y : array_like of shape (n_samples,)
    geo : dict
        :func:`kperc_book.experiments.ch01.cone_geometry` of ``(X, y)``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    X = np.asarray(X, dtype=float)
    A, wst, rho2 = geo["A"], geo["w_star"], geo["rho2"]
    pos = np.asarray(y) > 0
    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=1.0))

    ax = axes[0]
    ax.scatter(*X[pos].T, s=22, c="tab:blue", label="$y=+1$")
    ax.scatter(*X[~pos].T, s=22, c="tab:red", marker="s", label="$y=-1$")
    t = np.linspace(-1.3, 1.3, 2)
    perp = np.array([-wst[1], wst[0]])
    ax.plot(t * perp[0], t * perp[1], "k-", lw=1.5, label="max-margin line $w^{\\star\\top}x=0$")
    ax.annotate(
        "", xy=0.5 * wst, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color="k", lw=1.5)
    )
    ax.text(*(0.55 * wst), "$w^\\star$")
    ax.set_aspect("equal")
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.3, 1.3)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title("data (planted_2d)")
    legend_below(ax)

    ax = axes[1]
    phi = np.linspace(0, 2 * np.pi, 400)
    ax.plot(np.cos(phi), np.sin(phi), color="0.75", lw=1)
    th = geo["theta"]
    rel = (th - geo["w_star_angle"] + np.pi) % (2 * np.pi) - np.pi
    span = geo["w_star_angle"] + np.linspace(rel.min(), rel.max(), 100)
    ax.fill(
        np.r_[0, np.cos(span), 0],
        np.r_[0, np.sin(span), 0],
        color="tab:purple",
        alpha=0.12,
        label="cone of the signed points $a_i$",
    )
    ax.scatter(*A.T, s=22, c="tab:purple", zorder=3, label="$a_i=y_ix_i/\\|x_i\\|$")
    lo, hi = geo["arc"]
    arc = np.linspace(lo, hi, 100)
    ax.plot(
        1.08 * np.cos(arc),
        1.08 * np.sin(arc),
        color="tab:green",
        lw=5,
        label="separating directions $w$",
    )
    for e in (lo, hi):
        ax.plot([0, 1.08 * np.cos(e)], [0, 1.08 * np.sin(e)], color="tab:green", lw=0.8, ls="--")
    sup = A[geo["support"]]
    ax.plot(*sup.T, color="k", lw=0.8, ls=":")
    ax.annotate("", xy=wst, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color="k", lw=1.5))
    ax.plot(
        [0, rho2 * wst[0]],
        [0, rho2 * wst[1]],
        color="tab:orange",
        lw=3,
        label=f"$\\rho_2={rho2:.3f}$ (distance to the hull)",
    )
    ax.text(*(0.7 * wst + np.array([-0.17, 0.0])), "$w^\\star$")
    ax.set_aspect("equal")
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.3, 1.3)
    ax.set_xlabel("first coordinate")
    ax.set_ylabel("second coordinate")
    ax.set_title("signed normalised points and the dual cone")
    legend_below(ax)
    fig.tight_layout()
    return fig


def circles(X, y, cm: dict[str, Any], ks: dict[str, Any], *, grid_res: int = 200):
    """The ``circles`` data, SNKP's RBF decision boundary, and the paraboloid lift.

    Parameters
    ----------
    X : array_like of shape (n_samples, 2)
    y : array_like of shape (n_samples,)
    cm : dict
        :func:`kperc_book.experiments.ch01.circles_margins` of ``(X, y)``.
    ks : dict
        :func:`kperc_book.experiments.ch01.kernel_separation` (its fitted ``clf``).
    grid_res : int
        Resolution of the decision-boundary grid.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from mpl_toolkits.mplot3d import Axes3D  # noqa: F401  (registers the 3-D projection)

    X = np.asarray(X, dtype=float)
    pos = np.asarray(y) > 0
    fig = plt.figure(figsize=figsize(2, 2, aspect=1.0))

    ax = fig.add_subplot(2, 2, 1)
    ax.scatter(*X[pos].T, s=12, c="tab:blue", label="$y=+1$ (inner)")
    ax.scatter(*X[~pos].T, s=12, c="tab:red", marker="s", label="$y=-1$ (outer)")
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title(f"circles: best line margin {cm['rho2_plane']:+.3f}")
    legend_below(ax)

    ax = fig.add_subplot(2, 1, 2, projection="3d")
    L = ch01.lift_paraboloid(X)
    ax.scatter(*L[pos].T, s=8, c="tab:blue")
    ax.scatter(*L[~pos].T, s=8, c="tab:red", marker="s")
    w = cm["w_lifted"]
    gx, gy = np.meshgrid(np.linspace(-1.2, 1.2, 12), np.linspace(-1.2, 1.2, 12))
    gz = -(w[0] * gx + w[1] * gy + w[3]) / w[2]
    ax.plot_surface(gx, gy, gz, color="tab:green", alpha=0.25, linewidth=0)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_zlabel("$x_1^2+x_2^2$")
    ax.view_init(elev=12, azim=-60)
    ax.set_title(f"lifted points and separating plane, margin {cm['rho2_lifted']:.3f}")

    ax = fig.add_subplot(2, 2, 2)
    lim = (-1.4, 1.4)
    XX, YY, Z = ch01.decision_grid(ks["clf"], lim, lim, n=grid_res)
    ax.contourf(XX, YY, Z > 0, levels=[-0.5, 0.5, 1.5], colors=["#f6d5d5", "#d5e3f6"])
    ax.contour(XX, YY, Z, levels=[0.0], colors="k", linewidths=1.5)
    ax.scatter(*X[pos].T, s=12, c="tab:blue")
    ax.scatter(*X[~pos].T, s=12, c="tab:red", marker="s")
    c, r = cm["center"], cm["radius"]
    phi = np.linspace(0, 2 * np.pi, 200)
    ax.plot(
        c[0] + r * np.cos(phi),
        c[1] + r * np.sin(phi),
        color="tab:green",
        ls="--",
        label="plane of the lift, seen in the plane",
    )
    ax.set_aspect("equal")
    ax.set_xlim(*lim)
    ax.set_ylim(*lim)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title(f"SNKP, RBF kernel: {ks['nit_snkp']} iterations")
    legend_below(ax)
    fig.tight_layout()
    return fig

"""Figures of the chapters, drawn in the book's one style.

Each function takes the numbers a chapter computed and returns a finished
:class:`matplotlib.figure.Figure`, sized for the content column by
:func:`kperc_book.chapter.figsize`, with at most two panels side by side, short titles
(two lines at most) and legends placed where they cannot hide data: under the panels
(:func:`kperc_book.chapter.legend_below`) or under the whole figure. The notebook then
passes the figure to :meth:`kperc_book.chapter.Chapter.figure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kperc_book.chapter import figsize, legend_below, style

__all__ = [
    "nvn_2d",
    "snkpvn_sandwich",
    "nvn_rates",
]


def _figure(rows: int, cols: int, *, aspect: float, **kwargs):
    import matplotlib.pyplot as plt

    style()
    return plt.subplots(rows, cols, figsize=figsize(rows, cols, aspect=aspect), **kwargs)


def _legend_under_figure(fig, axes, *, ncol: int = 2):
    """One legend for the whole figure, under the axes (entries deduplicated by label)."""
    seen: dict[str, Any] = {}
    for ax in np.ravel(axes):
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(lab, h)
    return _legend_under_legends(fig, list(seen.values()), list(seen.keys()), ncol=ncol)


def _legend_under_legends(fig, handles, labels, *, ncol: int = 1, gap: float = 0.08):
    """A figure legend placed under everything already drawn (axes and their legends)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes]
    bottom = min(b.y0 for b in boxes if b is not None)
    y = (bottom - gap * fig.dpi) / fig.bbox.height
    return fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, y), ncol=ncol)


def nvn_2d(path_inf: Mapping[str, Any], path_feas: Mapping[str, Any], *, rho_feas: float):
    """The normalised Von Neumann iterates in the plane, on an inseparable and a separable set.

    Parameters
    ----------
    path_inf, path_feas : mapping
        A run of :func:`kperc.von_neumann_linear` as Chapter 5 draws it: keys ``A``
        (signed points, rows), ``W`` (the iterates ``w_k``, rows), ``hull`` (closed
        polygon of the hull of the ``A``), ``outcome``, ``nit`` and, for a separator, ``w``.
    rho_feas : float
        Planted margin of the separable set (shown in its title).

    Returns
    -------
    matplotlib.figure.Figure
        Two square panels side by side, one legend under both.

    Examples
    --------
    >>> import numpy as np
    >>> from kperc_book.experiments import plots
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [-0.6, -0.8]])
    >>> path = {"A": A, "W": A[:2] / 2, "hull": A[[0, 1, 2, 0]], "outcome": "certificate", "nit": 1}
    >>> fig = plots.nvn_2d(path, path, rho_feas=0.1)
    >>> len(fig.axes)
    2
    """
    fig, axes = _figure(1, 2, aspect=1.0, sharey=True)
    t = np.linspace(0, 2 * np.pi, 400)
    for ax, pth, head in (
        (axes[0], path_inf, "inseparable"),
        (axes[1], path_feas, f"separable ($\\rho_2={rho_feas:g}$)"),
    ):
        A, Wk = np.asarray(pth["A"]), np.asarray(pth["W"])
        hull = np.asarray(pth["hull"])
        ax.plot(np.cos(t), np.sin(t), color="0.8", lw=1, label="unit circle")
        ax.fill(*hull.T, color="tab:blue", alpha=0.12, label="hull of the $a_i$")
        ax.plot(*hull.T, color="tab:blue", lw=1)
        ax.scatter(*A.T, s=22, c="tab:blue", zorder=3, label="signed points $a_i$")
        ax.plot(*Wk.T, "-o", color="tab:red", ms=3, lw=1.2, zorder=4, label="iterates $w_k$")
        ax.scatter(*Wk[0], s=60, marker="s", c="tab:red", zorder=5, label="$w_0=A\\mathbf{1}/n$")
        ax.scatter([0], [0], marker="+", s=140, c="k", zorder=6, label="origin")
        if pth["outcome"] == "separator":
            w = np.asarray(pth["w"], dtype=float)
            w = w / np.linalg.norm(w)
            ax.plot(
                [-1.2 * w[1], 1.2 * w[1]],
                [1.2 * w[0], -1.2 * w[0]],
                "k--",
                lw=1,
                label="separating line $w^\\top a=0$",
            )
            ax.annotate(
                "", xy=0.5 * w, xytext=(0, 0), arrowprops={"arrowstyle": "->", "color": "k"}
            )
        ax.set_aspect("equal")
        ax.set_xlim(-1.25, 1.25)
        ax.set_ylim(-1.25, 1.25)
        ax.set_xticks([-1, 0, 1])
        ax.set_yticks([-1, 0, 1])
        ax.set_title(f"{head}:\n{pth['outcome']} after {pth['nit']} steps")
        ax.set_xlabel("first coordinate")
    axes[0].set_ylabel("second coordinate")
    fig.tight_layout()
    _legend_under_figure(fig, axes, ncol=3)
    return fig


def _loglog_or_symlog(ax, *curves) -> None:
    values = np.concatenate([np.ravel(c) for c in curves])
    if np.all(values > 0):
        ax.set_yscale("log")
    else:  # a value at or below zero: no logarithmic axis can show it
        ax.set_yscale("symlog", linthresh=1e-3)


def snkpvn_sandwich(feas: Mapping[str, Any], infs: Mapping[str, Any]):
    """The sandwiches of Lemmas 8 and 9 along two SNKPVN runs, both on logarithmic axes.

    Both panels show the negated terms, which are positive: Lemma 8 reads
    ``1/2 ||p_k||_G^2 <= -L^q_mu(alpha_k) <= mu_k - L(alpha_k)`` and Lemma 9
    ``1/2 ||p_k||_G^2 <= -L^q_mu(alpha_k) <= 1/2 mu_k dist(q, W)^2``.

    Parameters
    ----------
    feas, infs : mapping
        Outputs of the ``sandwich_run`` of Chapter 6 (``book/ch06_primal_dual.ipynb``) with
        ``keep_trace=True`` on a separable and an inseparable instance (keys ``trace``
        with ``k``, ``norm_p_G``, ``L_mu_q``, ``L``, ``mu``; ``nit``, ``outcome``;
        ``rho_exact`` for ``feas`` and ``dist`` for ``infs``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = _figure(1, 2, aspect=0.85)
    tr = feas["trace"]
    k1 = np.asarray(tr["k"]) + 1
    half_p = 0.5 * np.asarray(tr["norm_p_G"]) ** 2
    minus_lq = -np.asarray(tr["L_mu_q"])
    upper = np.asarray(tr["mu"]) - np.asarray(tr["L"])
    ax = axes[0]
    ax.plot(k1, half_p, color="tab:blue", label="$\\frac{1}{2}\\|p_k\\|_G^2$")
    ax.plot(k1, minus_lq, color="tab:green", label="$-L^q_{\\mu_k}(\\alpha_k)$")
    ax.plot(k1, upper, color="tab:red", label="$\\mu_k-L(\\alpha_k)$")
    ax.set_xscale("log")
    _loglog_or_symlog(ax, half_p, minus_lq, upper)
    ax.set_title(
        f"Lemma 8, separable ($\\rho_K={feas['rho_exact']:.2g}$):\n"
        f"{feas['outcome']} at $k={feas['nit']}$"
    )
    ax.set_xlabel("$k+1$")
    ax.set_ylabel("value")
    legend_below(ax)
    tr = infs["trace"]
    k1 = np.asarray(tr["k"]) + 1
    half_p = 0.5 * np.asarray(tr["norm_p_G"]) ** 2
    minus_lq = -np.asarray(tr["L_mu_q"])
    upper = 0.5 * np.asarray(tr["mu"]) * float(infs["dist"]) ** 2
    ax = axes[1]
    ax.plot(k1, half_p, color="tab:blue", label="$\\frac{1}{2}\\|p_k\\|_G^2$")
    ax.plot(k1, minus_lq, color="tab:green", label="$-L^q_{\\mu_k}(\\alpha_k)$")
    ax.plot(k1, upper, color="tab:red", label="$\\frac{1}{2}\\mu_k\\,\\mathrm{dist}(q,W)^2$")
    ax.set_xscale("log")
    _loglog_or_symlog(ax, half_p, minus_lq, upper)
    ax.set_title(f"Lemma 9, margin 0:\n{infs['outcome']} at $k={infs['nit']}$")
    ax.set_xlabel("$k+1$")
    legend_below(ax)
    fig.tight_layout()
    return fig


def nvn_rates(traces: Mapping[tuple[str, float], Any], runs, rhos: Sequence[float]):
    """Rates of the normalised Von Neumann algorithm: Dantzig, Epelman-Freund, halting index.

    Parameters
    ----------
    traces : mapping
        ``(kind, rho) -> squared norms ||w_k||^2`` along a run (``kind`` is ``"cap"`` for a
        negative margin, ``"edge"`` for margin 0).
    runs : pandas.DataFrame
        One row per run with columns ``rho``, ``eps``, ``nit`` and ``bound``.
    rhos : sequence of float
        The negative margins, in the order of their colours.

    Returns
    -------
    matplotlib.figure.Figure
        Three stacked panels; one legend under the figure names the margins (colours) and
        the line styles (run or bound), so that no legend sits on a curve.
    """
    from matplotlib.lines import Line2D

    palette = ["tab:green", "tab:orange", "tab:red"]
    colors = {float(r): palette[i % 3] for i, r in enumerate(rhos)}
    colors[0.0] = "tab:purple"
    fig, axes = _figure(3, 1, aspect=0.5)
    for (_, r), sq in traces.items():
        sq = np.asarray(sq, float)
        kk = np.arange(sq.size)
        axes[0].plot(kk + 1, sq, color=colors[float(r)], lw=1.4)
        if r < 0:  # time in units of 1/rho^2: every run and its bound share one scale
            axes[1].plot(kk * r * r, sq, color=colors[float(r)], lw=1.6)
            axes[1].plot(
                kk * r * r, sq[0] * (1 - r * r) ** kk, "--", color=colors[float(r)], lw=1.2
            )
    kmax = max(np.asarray(sq).size for sq in traces.values())
    kk = np.arange(1, kmax + 1)
    axes[0].plot(kk, 1.0 / kk, color="k", ls="--", lw=1.2)
    axes[0].set_xscale("log")
    axes[0].set_yscale("log")
    axes[0].set_xlabel("$k+1$")
    axes[0].set_ylabel("$\\|w_k\\|^2$")
    axes[0].set_title("Dantzig: bound $1/(k+1)$ (black dashed)")
    axes[1].set_yscale("log")
    axes[1].set_xlim(0, max(np.asarray(sq).size * r * r for (_, r), sq in traces.items() if r < 0))
    axes[1].set_ylim(1e-11, 1)
    axes[1].set_xlabel("$\\rho^2 k$ (iterations in units of $1/\\rho^2$)")
    axes[1].set_ylabel("$\\|w_k\\|^2$")
    axes[1].set_title("Epelman-Freund: bound $(1-\\rho^2)^k\\|w_0\\|^2$ (dashed)")
    ax = axes[2]
    for r in [*rhos, 0.0]:
        sub = runs[runs["rho"] == r].sort_values("eps")
        ax.plot(1 / sub["eps"], sub["nit"], "o-", color=colors[float(r)], ms=4, lw=1.4)
        ax.plot(1 / sub["eps"], sub["bound"], "--", color=colors[float(r)], lw=1.2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("$1/\\varepsilon$")
    ax.set_ylabel("halting index")
    ax.set_title("halting index (solid) and its bound (dashed)")
    fig.tight_layout()
    handles = [Line2D([], [], color=colors[float(r)], lw=2) for r in rhos] + [
        Line2D([], [], color=colors[0.0], lw=2),
        Line2D([], [], color="0.3", lw=1.5),
        Line2D([], [], color="0.3", lw=1.2, ls="--"),
    ]
    labels = [f"$\\rho={r:g}$" for r in rhos] + ["$\\rho=0$ (edge)", "run", "bound"]
    _legend_under_legends(fig, handles, labels, ncol=3)
    return fig

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


# ---------------------------------------------------------------------------------------
# Chapters 2 to 4: each function draws one figure of a chapter from the numbers its cells
# computed; ALT holds the figure's description for readers who cannot see it, by the
# figure's name (``chNN-<name>``, as ``Chapter.figure`` saves it).

ALT: dict[str, str] = {
    "ch02-planted-bounds": (
        "Two panels. Left: log-log scatter of halting index against bound for the "
        "Perceptron on raw data (red) and the Normalised Perceptron (blue); every point "
        "lies below the dashed diagonal, the red ones far below. Right: box plots of "
        "halting index divided by bound for each planted margin; the blue boxes lie a "
        "small factor below 1, the red ones one to two orders of magnitude lower."
    ),
    "ch02-two-rays": (
        "Three panels. Top left: points on two rays in the positive quadrant at norms "
        "from 0.1 to 10, and their normalised copies on the unit circle. Top right: the "
        "normalised margin is flat in the spread r while the scaled raw margin falls like "
        "one over r squared. Bottom: on log-log axes, the Perceptron bound grows like r "
        "to the fourth while the normalised bound stays at 50; measured halting indices "
        "of three rules lie below their bounds."
    ),
    "ch02-normalizing": (
        "Two panels. Left: histograms of the ratio of the scaled raw margin to the "
        "normalised margin on random instances; all mass lies at or below the dashed line "
        "at 1. Right: the same ratio against the spread of the norms on log-log axes; it "
        "decreases with the spread and stays above the dotted lower bound, one over the "
        "spread."
    ),
    "ch02-winnow": (
        "Two panels with logarithmic axes against the dimension d from 16 to 128. Left: "
        "the l-infinity margin of Winnow stays constant while the Euclidean margin falls "
        "like one over the square root of 3d. Right: median halting indices and bounds; "
        "the Normalised Perceptron's count grows roughly linearly in d, Winnow's grows "
        "slowly and stays below its logarithmic bound."
    ),
}


def planted_bounds(planted):
    """Halting indices of the Perceptron and the Normalised Perceptron against their bounds.

    Parameters
    ----------
    planted : pandas.DataFrame
        One row per planted instance (Chapter 2), with columns ``rho`` (planted margin),
        ``nit_perceptron``, ``bound_perceptron``, ``nit_np``, ``bound_np``,
        ``ratio_perceptron`` and ``ratio_np`` (halting index over bound).

    Returns
    -------
    matplotlib.figure.Figure
        Left: halting index against bound (log-log); right: the ratios by margin (boxes).
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.9))
    ax = axes[0]
    for nit, bound, c, label in (
        (
            "nit_perceptron",
            "bound_perceptron",
            "tab:red",
            "Perceptron on raw data vs $R^2/\\rho^2$",
        ),
        ("nit_np", "bound_np", "tab:blue", "Normalised Perceptron vs $1/\\rho_2^2$"),
    ):
        ax.scatter(planted[bound], planted[nit], s=12, alpha=0.6, c=c, label=label)
    lim = np.array([1, 2 * planted.bound_perceptron.max()])
    ax.plot(lim, lim, "k--", lw=1, label="halting index = bound")
    ax.set(xscale="log", yscale="log", xlabel="bound", ylabel="halting index")
    ax.set_title(f"{len(planted)} planted instances")
    legend_below(ax)

    ax = axes[1]
    groups = sorted(planted.rho.unique())
    pos = np.arange(len(groups))
    boxes = []
    for col, shift, c in (("ratio_np", -0.18, "tab:blue"), ("ratio_perceptron", 0.18, "tab:red")):
        data = [planted.loc[planted.rho == r, col] for r in groups]
        b = ax.boxplot(data, positions=pos + shift, widths=0.3, patch_artist=True)
        for patch in b["boxes"]:
            patch.set_facecolor(c)
            patch.set_alpha(0.5)
        boxes.append(b["boxes"][0])
    ax.set_yscale("log")
    ax.axhline(1.0, color="k", ls="--", lw=1)
    ax.set_xticks(pos)
    ax.set_xticklabels([f"{r:g}" for r in groups])
    ax.set(xlabel="planted normalised margin $\\rho_2$", ylabel="halting index / bound")
    legend_below(ax, boxes, ["Normalised Perceptron", "Perceptron (raw)"])
    ax.set_title("how far below the bound")
    fig.tight_layout()
    return fig


def two_rays(example, rays):
    """The two-rays example of Chapter 2: the points, their margins and the halting indices.

    Parameters
    ----------
    example : kperc.datasets.Dataset
        One instance of :func:`kperc.datasets.two_rays` (drawn in the top-left panel).
    rays : pandas.DataFrame
        One row per spread ``r``, with columns ``r``, ``rho2``, ``rho``, ``rho_over_R``,
        ``bound_perceptron``, ``bound_np``, ``nit_least``, ``nit_perceptron``, ``nit_np``.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels on top (the example, the margins against ``r``), one below (bounds and
        halting indices against ``r``).
    """
    import matplotlib.pyplot as plt

    Xe, ye = example.X, example.y
    r_ex = np.linalg.norm(Xe, axis=1).max()
    fig = plt.figure(figsize=figsize(2, 2, aspect=1.15))
    axes = [fig.add_subplot(2, 2, 1), fig.add_subplot(2, 2, 2), fig.add_subplot(2, 1, 2)]

    ax = axes[0]
    pos = ye > 0
    ax.scatter(Xe[pos, 0], Xe[pos, 1], s=25, c="tab:blue", label="$y=+1$, ray through (0.6, 0.8)")
    ax.scatter(
        Xe[~pos, 0],
        Xe[~pos, 1],
        s=25,
        c="tab:red",
        marker="s",
        label="$y=-1$, ray through (0.8, 0.6)",
    )
    Xn = Xe / np.linalg.norm(Xe, axis=1, keepdims=True)
    ax.scatter(Xn[pos, 0], Xn[pos, 1], s=140, facecolors="none", edgecolors="tab:blue", lw=1.5)
    ax.scatter(
        Xn[~pos, 0],
        Xn[~pos, 1],
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
    ax.set(xlim=(0, 1.3 * r_ex), ylim=(0, 1.3 * r_ex), xlabel="$x_1$ (symlog)", ylabel="$x_2$")
    ax.set_title(f"the example for r = {r_ex:g}")
    legend_below(ax)

    ax = axes[1]
    ax.plot(rays.r, rays.rho2, "o-", c="tab:blue", label="$\\rho_2$ (normalised)")
    ax.plot(rays.r, rays.rho, "s-", c="tab:orange", label="$\\rho$ (unnormalised)")
    ax.plot(rays.r, rays.rho_over_R, "^-", c="tab:red", label="$\\rho/\\max_i\\|x_i\\|$")
    ax.set(xscale="log", yscale="log", xlabel="spread $r$ (norms in $[1/r, r]$)", ylabel="margin")
    ax.set_title("margins")
    legend_below(ax)

    ax = axes[2]
    ax.plot(
        rays.r, rays.bound_perceptron, "-", c="tab:red", lw=2, label="bound $R^2/\\rho^2=50r^4$"
    )
    ax.plot(rays.r, rays.bound_np, "-", c="tab:blue", lw=2, label="bound $1/\\rho_2^2=50$")
    ax.plot(rays.r, rays.nit_least, "v--", c="tab:red", label="Perceptron, lazy adversary")
    ax.plot(
        rays.r, rays.nit_perceptron, "s--", c="tab:orange", label="Perceptron, most violated point"
    )
    ax.plot(rays.r, rays.nit_np, "o--", c="tab:blue", label="Normalised Perceptron")
    ax.set(xscale="log", yscale="log", xlabel="spread $r$", ylabel="updates")
    ax.set_title("bounds and halting indices")
    legend_below(ax, ncol=2)
    fig.tight_layout()
    return fig


def normalizing_ratio(ratios, planted_ratio):
    """The ratio ``(rho / max_i ||x_i||) / rho_2`` on random instances (Chapter 2).

    Parameters
    ----------
    ratios : pandas.DataFrame
        One row per random instance, with columns ``kind`` (``"planted"`` or
        ``"gaussian"``), ``ratio`` and ``spread`` (``max_i ||x_i|| / min_i ||x_i||``).
    planted_ratio : pandas.Series
        The same ratio on the planted instances of the chapter's first section.

    Returns
    -------
    matplotlib.figure.Figure
        Left: histograms of the ratio; right: the ratio against the spread (log-log).
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.9))
    ax = axes[0]
    bins = np.linspace(0, 1, 41)
    for kind, c in (("planted", "tab:blue"), ("gaussian", "tab:green")):
        sub = ratios.ratio[ratios.kind == kind]
        ax.hist(sub, bins=bins, alpha=0.55, color=c, label=f"{kind} ({len(sub)})")
    ax.hist(
        planted_ratio,
        bins=bins,
        alpha=0.55,
        color="tab:purple",
        label=f"planted, first section ({len(planted_ratio)})",
    )
    ax.axvline(1.0, color="k", ls="--", lw=1, label="proposition: ratio $\\leq 1$")
    ax.set(xlabel="$(\\rho / \\max_i\\|x_i\\|)\\ /\\ \\rho_2$", ylabel="instances")
    ax.set_title("the normalised bound is never weaker")
    legend_below(ax)

    ax = axes[1]
    for kind, c in (("planted", "tab:blue"), ("gaussian", "tab:green")):
        sub = ratios[ratios.kind == kind]
        ax.scatter(sub.spread, sub.ratio, s=12, alpha=0.6, c=c, label=kind)
    s = np.geomspace(1, ratios.spread.max(), 50)
    ax.plot(s, 1 / s, "k:", lw=1, label="$\\min\\|x\\| / \\max\\|x\\|$")
    ax.set(xscale="log", yscale="log", ylabel="ratio")
    ax.set_xlabel("spread $\\max_i\\|x_i\\| / \\min_i\\|x_i\\|$")
    ax.set_title("against the spread of the norms")
    legend_below(ax)
    fig.tight_layout()
    return fig


def _log_axes_at(ax, dd) -> None:
    """Log-log axes with a tick at each dimension and plain-number ticks on y."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

    ax.set(xscale="log", yscale="log", xlabel="dimension $d$")
    ax.set_xticks(dd, [str(v) for v in dd], minor=False)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def winnow(tab):
    """Winnow against the Normalised Perceptron on a sparse target, by dimension (Chapter 2).

    Parameters
    ----------
    tab : pandas.DataFrame
        Indexed by the dimension ``d``, with columns ``rho2``, ``rho_inf`` (margins),
        ``nit_np``, ``bound_np``, ``nit_winnow`` and ``bound_winnow``.

    Returns
    -------
    matplotlib.figure.Figure
        Left: the two margins; right: halting indices and bounds.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.9))
    dd = tab.index.to_numpy()
    ax = axes[0]
    ax.plot(dd, tab.rho_inf, "o-", c="tab:green", label="$\\rho_\\infty$ (LP)")
    ax.plot(dd, tab.rho2, "s-", c="tab:blue", label="$\\rho_2$")
    ax.plot(dd, 1 / np.sqrt(3 * dd), "k:", label="$1/\\sqrt{3d}$")
    _log_axes_at(ax, dd)
    ax.set(ylabel="margin", title="margins (sparse target, k = 3)")
    legend_below(ax)
    ax = axes[1]
    ax.plot(dd, tab.bound_np, "-", c="tab:blue", lw=2, label="bound $1/\\rho_2^2$")
    ax.plot(dd, tab.nit_np, "s--", c="tab:blue", label="Normalised Perceptron")
    ax.plot(
        dd,
        tab.bound_winnow,
        "-",
        c="tab:green",
        lw=2,
        label="bound $2\\ln(2d)/\\rho_\\infty^2$ (derived)",
    )
    ax.plot(dd, tab.nit_winnow, "o--", c="tab:green", label="Winnow, $\\eta=\\rho_\\infty$")
    _log_axes_at(ax, dd)
    ax.set(ylabel="updates (median over seeds)", title="iterations")
    legend_below(ax)
    fig.tight_layout()
    return fig


ALT |= {
    "ch03-nkp-margin": (
        "Two panels against the iteration k on a log axis, for breast cancer (blue) and XOR "
        "(orange). Left: the normalised margin of the NKP iterate divided by the exact margin; it "
        "oscillates, turns positive at the first separator (dots) and its running best climbs "
        "towards 1. Right: one minus the best margin so far, on log-log axes, decreasing long "
        "after separation."
    ),
    "ch03-boundaries": (
        "Three panels, two on top and one below, for the circles, moons and XOR data. Each "
        "shows the two classes as blue dots and red squares, the max-margin decision boundary as a "
        "solid black curve over shading by its sign, and NKP's first separator as a dashed green "
        "curve that passes closer to some points."
    ),
}


def nkp_margin(traces: Mapping[str, Mapping[str, Any]]):
    """The normalised margin of the NKP iterates, run on past the first separator (Chapter 3).

    Parameters
    ----------
    traces : mapping
        Problem name to one run (two runs, one colour each): ``k`` (iterations),
        ``margin`` (``min_i (G alpha_k)_i / ||alpha_k||_G`` at each), ``first`` (the first
        separating iteration), ``at first`` (its margin) and ``rho`` (the exact margin).

    Returns
    -------
    matplotlib.figure.Figure
        Left: the margin over ``rho_K`` and its running best; right: one minus the best.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.9))
    for (name, tr), c in zip(traces.items(), ["tab:blue", "tab:orange"], strict=True):
        m = tr["margin"] / tr["rho"]
        best = np.maximum.accumulate(m)
        axes[0].plot(tr["k"], m, color=c, lw=0.5, alpha=0.35)
        axes[0].plot(tr["k"], best, color=c, lw=1.8, label=f"{name} ($\\rho_K$={tr['rho']:.4f})")
        axes[0].plot(
            [tr["first"]], [tr["at first"] / tr["rho"]], "o", color=c, ms=7, mec="k", zorder=5
        )
        axes[1].loglog(tr["k"][best > 0], 1.0 - best[best > 0], color=c, lw=1.8, label=name)
        for ax in axes:
            ax.axvline(tr["first"], color=c, ls=":", lw=1.2)
    axes[0].axhline(1.0, color="k", lw=1, ls="--", label="$\\rho_K$ (exact)")
    axes[0].set(
        xscale="log",
        ylim=(-0.6, 1.1),
        xlabel="iteration $k$",
        ylabel="margin of $\\alpha_k$ / $\\rho_K$",
        title="margin of the NKP iterate",
    )
    axes[1].set(
        xlabel="iteration $k$",
        ylabel="$1 - $ best margin so far / $\\rho_K$",
        title="distance to the maximal margin",
    )
    for ax in axes:
        legend_below(ax)
    fig.tight_layout()
    return fig


def plane_grid(X: np.ndarray, resolution: int, pad: float = 0.3):
    """A square grid over planar points, padded on every side (Chapter 3).

    Parameters
    ----------
    X : ndarray of shape (n, 2)
        The points.
    resolution : int
        Grid points per axis.
    pad : float, default 0.3
        Margin added around the points' bounding box.

    Returns
    -------
    xx, yy : ndarray of shape (resolution, resolution)
        The grid, as from :func:`numpy.meshgrid`.
    at : ndarray of shape (resolution**2, 2)
        The grid points as rows, in the order of ``xx.ravel()``.

    Examples
    --------
    >>> xx, yy, at = plane_grid(np.array([[0.0, 0.0], [1.0, 2.0]]), 3, pad=0.5)
    >>> xx[0], yy[:, 0]
    (array([-0.5,  0.5,  1.5]), array([-0.5,  1. ,  2.5]))
    >>> at.shape
    (9, 2)
    """
    (x0, y0), (x1, y1) = X.min(axis=0) - pad, X.max(axis=0) + pad
    xx, yy = np.meshgrid(np.linspace(x0, x1, resolution), np.linspace(y0, y1, resolution))
    return xx, yy, np.column_stack([xx.ravel(), yy.ravel()])


def boundaries(grids: Mapping[str, Mapping[str, Any]]):
    """Decision boundaries of the max-margin function and of NKP's first separator.

    Parameters
    ----------
    grids : mapping
        Problem name to its planar data and both functions on a grid (three problems):
        ``X``, ``y`` (points and labels), ``xx``, ``yy`` (the grid), ``f_max``, ``f_nkp``
        (the two functions there, flat or in the grid's shape; each is scaled to [-1, 1]
        here), ``rho`` (exact margin), ``nit`` and ``margin_nkp``
        (NKP's halting index and the margin of its separator).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per problem, two on top and one below, and the legend in the fourth place.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=figsize(2, 2, aspect=1.0))
    axes = axes.ravel()
    for ax, (name, g) in zip(axes[:3], grids.items(), strict=True):
        f_max, f_nkp = (
            np.reshape(f / np.abs(f).max(), g["xx"].shape) for f in (g["f_max"], g["f_nkp"])
        )
        ax.contourf(
            g["xx"],
            g["yy"],
            f_max,
            levels=[-2, 0, 2],
            colors=["#f4c7c3", "#c6dbef"],
            alpha=0.6,
        )
        ax.contour(g["xx"], g["yy"], f_max, levels=[0], colors="k", linewidths=1.5)
        ax.contour(
            g["xx"],
            g["yy"],
            f_nkp,
            levels=[0],
            colors="tab:green",
            linewidths=1.5,
            linestyles="--",
        )
        pos = g["y"] > 0
        ax.scatter(*g["X"][pos].T, s=9, c="tab:blue", label="$y=+1$")
        ax.scatter(*g["X"][~pos].T, s=9, c="tab:red", marker="s", label="$y=-1$")
        ax.set(
            xlabel="$x_1$",
            ylabel="$x_2$",
            aspect="equal",
            title=f"{name}: $\\rho_K$={g['rho']:.4f}\n"
            f"NKP margin {g['margin_nkp']:.4f} at k={g['nit']}",
        )
    ax.plot([], [], "k-", label="max-margin $f_{\\alpha^\\star}$")
    ax.plot([], [], "--", color="tab:green", label="NKP, first separator")
    axes[3].axis("off")
    axes[3].legend(*ax.get_legend_handles_labels(), loc="upper left", title="all panels")
    fig.tight_layout()
    return fig


ALT |= {
    "ch04-sandwich": (
        "Three stacked panels against the iteration on log axes. Top: the loss, the smoothed "
        "loss and its lower and upper bounds along an SNKP run on breast cancer; the curves "
        "stay in order and converge to minus half the squared margin. Middle: the recorded "
        "smoothing parameter lies on the curve 4 over (k+1)(k+2). Bottom: the slack of Lemma "
        "5 on a small instance stays positive with mu_0 = 2 and turns negative with mu_0 = 1."
    ),
    "ch04-rates": (
        "Log-log plot of halting index against one over the margin for the Perceptron on raw "
        "data (red), the Normalised Perceptron run as NKP (blue) and SNKP (green), with bands "
        "over seeds and dashed bounds. The red and blue curves rise with slope about 2, the "
        "green one with slope about 1, and every curve stays below its bound."
    ),
    "ch04-n-dependence": (
        "Two panels against the number of points n on a log axis at a fixed margin. Left: "
        "SNKP's halting index times the margin for the planted and crowded families, below "
        "the bound 2 sqrt(2 log n); the crowded family follows a multiple of sqrt(log n). "
        "Right: NKP's halting index times the squared margin, below its bound 1, with the "
        "crowded family's points in a random order."
    ),
    "ch04-realdata": (
        "Two dot plots side by side, one row per real kernel problem, with NKP as blue "
        "circles and SNKP as green diamonds on logarithmic axes. Left: halting indices; SNKP "
        "needs fewer iterations on every problem, several times fewer on breast cancer and "
        "XOR. Right: median CPU time of one run of each method."
    ),
}


def snkp_sandwich(sw: Mapping[str, Any], rho: float, bad: Mapping[str, Any]):
    """Lemmas 4 and 5 along SNKP, the closed form of ``mu_k``, and a ``mu_0`` that fails.

    Parameters
    ----------
    sw : mapping
        One traced SNKP run on breast cancer (RBF), as Chapter 4's ``sandwich`` returns it:
        ``k``, ``L``, ``L_mu``, ``mu``, ``lower`` (Lemma 4's bound), ``upper`` (Lemma 5's),
        ``halt`` (the halting index) and ``n``.
    rho : float
        The exact margin of that problem.
    bad : mapping
        The first instance on which ``mu_0 = 1`` breaks Lemma 5: ``seed``, ``n``, and the
        runs ``sw`` (``mu_0 = 1``) and ``ref`` (``mu_0 = 2``), each with ``k`` and ``slack5``.

    Returns
    -------
    matplotlib.figure.Figure
        Three stacked panels, each with its legend on its right.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=figsize(3, 1, aspect=0.45))
    k = sw["k"] + 1  # shifted by one for the log axis
    ax = axes[0]
    ax.plot(k, sw["L"], color="k", lw=1.6, label="$L(\\alpha_k)$")
    ax.plot(k, sw["upper"], color="tab:green", lw=1.6, label="$-\\frac{1}{2}\\|p_k\\|_G^2$")
    ax.plot(k, sw["L_mu"], color="tab:blue", lw=1.6, label="$L_{\\mu_k}(\\alpha_k)$")
    ax.plot(k, sw["lower"], color="tab:red", lw=1.6, label="$L(\\alpha_k)-\\mu_k\\log n$")
    ax.axhline(-0.5 * rho**2, color="gray", ls="--", lw=1, label="$-\\rho_K^2/2$")
    ax.axvline(sw["halt"] + 1, color="gray", ls=":", lw=1.2)
    ax.set(xscale="log", xlabel="iteration $k+1$")
    ax.set_yscale("symlog", linthresh=1e-4)
    ax.set_title(f"the sandwich along SNKP (breast_cancer-rbf, n={sw['n']})")
    ax = axes[1]
    ax.loglog(k, sw["mu"], "o", ms=3, color="tab:blue", label="$\\mu_k$ recorded by SNKP")
    ax.loglog(k, 4 / (k * (k + 1)), color="k", lw=1, label="$4/((k+1)(k+2))$")
    ax.set(
        xlabel="iteration $k+1$", ylabel="$\\mu_k$", title="smoothing parameter and its closed form"
    )
    ax = axes[2]
    ax.plot(bad["ref"]["k"], bad["ref"]["slack5"], color="tab:green", lw=1.6, label="$\\mu_0=2$")
    ax.plot(bad["sw"]["k"], bad["sw"]["slack5"], color="tab:red", lw=1.6, label="$\\mu_0=1$")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_yscale("symlog", linthresh=1e-5)
    ax.set(xlabel="iteration $k$", ylabel="$-\\frac{1}{2}\\|p_k\\|_G^2 - L_{\\mu_k}(\\alpha_k)$")
    ax.set_title(f"Lemma 5 slack, planted instance (seed {bad['seed']}, n={bad['n']})")
    for ax in axes:
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def snkp_rates(stats, slopes: Mapping[str, float], *, rho_fit_max: float, title: str):
    """Halting indices of the Perceptron, NKP and SNKP against ``1/rho`` (Chapter 4).

    Parameters
    ----------
    stats : pandas.DataFrame
        Indexed by the planted margin, with ``(column, statistic)`` columns for ``nit_m``
        and ``bound_m`` (``m`` in ``perceptron``, ``nkp``, ``snkp``) and the statistics
        ``median``, ``min`` and ``max`` over seeds.
    slopes : mapping
        Method to the fitted slope of ``log(halting index)`` against ``log(1/rho)``.
    rho_fit_max : float
        Largest margin of the fit (marked by a dotted line).
    title : str
        The panel's title (the instances).

    Returns
    -------
    matplotlib.figure.Figure
        One log-log panel: medians with bands over seeds, dashed bounds.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize(1, 1, aspect=0.7))
    x = 1.0 / stats.index
    styles = {
        "perceptron": ("tab:red", "s", "Perceptron (raw data)", "$R^2/\\rho_{\\rm raw}^2$"),
        "nkp": ("tab:blue", "o", "Normalised Perceptron = NKP", "$1/\\rho^2$"),
        "snkp": ("tab:green", "^", "SNKP", "$2\\sqrt{2\\log n}/\\rho$"),
    }
    for m, (c, mk, label, bound_label) in styles.items():
        nit, bound = stats[f"nit_{m}"], stats[f"bound_{m}"]
        ax.fill_between(x, nit["min"], nit["max"], color=c, alpha=0.2, lw=0)
        ax.plot(
            x, nit["median"], marker=mk, color=c, lw=1.6, label=f"{label}: slope {slopes[m]:.2f}"
        )
        ax.fill_between(x, bound["min"], bound["max"], color=c, alpha=0.1, lw=0)
        ax.plot(x, bound["median"], ls="--", color=c, lw=1.2, label=f"bound {bound_label}")
    ax.axvline(1.0 / rho_fit_max, color="gray", ls=":", lw=1)
    ax.text(
        1.05 / rho_fit_max,
        0.03,
        "slope fit range $\\rightarrow$",
        color="gray",
        transform=ax.get_xaxis_transform(),
    )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="$1/\\rho$ (planted normalised margin)",
        ylabel="halting index (number of updates)",
    )
    ax.set_title(title)
    legend_below(ax, ncol=2)
    fig.tight_layout()
    return fig


def n_dependence(by_n, rho: float, c_fit: float):
    """SNKP's and NKP's halting indices against the number of points (Chapter 4).

    Parameters
    ----------
    by_n : pandas.DataFrame
        One row per family (``planted``, ``crowded``) and size ``n``, with the SNKP
        statistics ``snkp_med``, ``snkp_min``, ``snkp_max`` and NKP's ``nkp_med``.
    rho : float
        The margin of every instance.
    c_fit : float
        The constant of the fit ``c sqrt(log n)`` to ``rho`` times the crowded family's
        halting index (a dotted line).

    Returns
    -------
    matplotlib.figure.Figure
        Left: ``rho`` times SNKP's halting index; right: ``rho**2`` times NKP's.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.9))
    nn = np.array(sorted(by_n.n.unique()), dtype=float)
    style = {"planted": ("tab:purple", "o"), "crowded": ("tab:green", "^")}
    for fam, (c, mk) in style.items():
        a = by_n[by_n.family == fam]
        axes[0].fill_between(a.n, rho * a.snkp_min, rho * a.snkp_max, color=c, alpha=0.2, lw=0)
        axes[0].plot(a.n, rho * a.snkp_med, marker=mk, color=c, lw=1.6, label=f"SNKP, {fam}")
        axes[1].plot(a.n, rho**2 * a.nkp_med, marker=mk, color=c, lw=1.6, label=f"NKP, {fam}")
    axes[0].plot(nn, 2 * np.sqrt(2 * np.log(nn)), "k--", lw=1.2, label="bound $2\\sqrt{2\\log n}$")
    axes[0].plot(
        nn,
        c_fit * np.sqrt(np.log(nn)),
        ":",
        color="tab:green",
        lw=1.5,
        label=f"${c_fit:.2f}\\sqrt{{\\log n}}$ (crowded, median fit)",
    )
    axes[0].set(ylabel="$\\rho\\,\\times$ halting index", title=f"SNKP, $\\rho$ = {rho}")
    axes[1].axhline(1.0, color="k", ls="--", lw=1.2, label="bound $1$ (i.e. $1/\\rho^2$)")
    axes[1].set(
        yscale="log",
        ylabel="$\\rho^2\\,\\times$ halting index",
        title="NKP, same instances (crowded: shuffled)",
    )
    for ax in axes:
        ax.set(xscale="log", xlabel="number of points $n$")
        legend_below(ax)
    fig.tight_layout()
    return fig


def snkp_realdata(real, ms, date: str):
    """NKP against SNKP on the real kernel problems: halting indices and CPU times.

    Parameters
    ----------
    real : pandas.DataFrame
        Indexed by problem name (``"breast_cancer-rbf"``, ...), with columns ``NKP`` and
        ``SNKP`` (halting indices).
    ms : pandas.DataFrame
        The same index, with columns ``nkp`` and ``snkp`` (median CPU time, ms).
    date : str
        When the times were measured (in the right panel's title).

    Returns
    -------
    matplotlib.figure.Figure
        Two dot plots side by side on logarithmic axes, one row per problem.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=figsize(1, 2, aspect=0.75), sharey=True)
    y = np.arange(len(real))[::-1]
    nit = {"nkp": real["NKP"], "snkp": real["SNKP"]}
    for ax, vals, title in [
        (axes[0], nit, "iterations"),
        (axes[1], ms, f"CPU time,\nmeasured {date}"),
    ]:
        a, b = np.asarray(vals["nkp"], float), np.asarray(vals["snkp"], float)
        ax.hlines(y, np.minimum(a, b), np.maximum(a, b), color="0.7", lw=1.2, zorder=1)
        ax.scatter(a, y, s=36, color="tab:blue", marker="o", zorder=3, label="NKP")
        ax.scatter(b, y, s=36, color="tab:green", marker="D", zorder=3, label="SNKP")
        ax.set(
            xscale="log",
            xlim=(min(a.min(), b.min()) / 1.6, max(a.max(), b.max()) * 1.6),
            title=title,
        )
        ax.grid(True, axis="x", which="both", alpha=0.3)
        ax.grid(False, axis="y")
    axes[0].set(xlabel="halting index", yticks=y, ylim=(-0.6, len(real) - 0.4))
    kernel = {"rbf": "RBF", "poly": "polynomial"}
    labels = [f"{d.replace('_', ' ')} ({kernel[k]})" for d, k in real.index.str.split("-")]
    axes[0].set_yticklabels([label.replace("xor", "XOR") for label in labels])
    axes[1].set_xlabel("median CPU time (ms)")
    legend_below(axes[0], ncol=2)
    fig.tight_layout()
    return fig

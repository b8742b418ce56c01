"""Figures of Chapters 5, 6 and 7, each drawn by one call with its alt text.

Every ``plot_*``-style function takes the numbers a chapter computed and returns a
finished :class:`matplotlib.figure.Figure`, sized by :func:`kperc_book.chapter.figsize`.
:data:`ALT` holds the words that describe each figure for a reader who cannot see it,
and :func:`figure` hands a figure to :meth:`kperc_book.chapter.Chapter.figure` with them,
so that a chapter shows a figure in one line::

    figures.figure(ch, "caveat", figures.caveat(heights, rho_lifted, rho_2d))

The figure's name is the second argument, as in ``ch.figure(fig, "name")``, so that the
reproducibility page can trace the cell that saved each figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kperc_book.chapter import figsize, style

__all__ = [
    "ALT",
    "figure",
    "theorem3",
    "caveat",
    "nvn_path",
    "lemma7",
    "outer_loops",
    "vs_nvn",
    "gamma_choice",
    "open_question",
    "margin_paths",
    "problem_label",
]

#: What each figure shows, in words (its ``alt`` text), keyed by ``<chapter>-<name>``.
ALT: dict[str, str] = {
    "ch05-theorem-3": (
        "Top: an infeasible planar point set, its hull, and the largest ball around the "
        "origin inside the hull, touching the nearest facet. Bottom: the smallest and largest "
        "inner products of the points with a unit direction as the direction turns; the "
        "highest value of the smallest one equals the computed negative margin."
    ),
    "ch05-caveat": (
        "Log-log plot of the magnitude of margin (5) for the inseparable planar points lifted "
        "to height t in three dimensions: it falls towards zero with t, while the "
        "span-restricted margin of the planar points (dashed line) does not change."
    ),
    "ch05-nvn-2d": (
        "Two scatter plots of signed points in the plane with the path of the Von Neumann "
        "iterates: on the left the path zig-zags into the origin inside the hull (a "
        "certificate), on the right it stops at a separating line."
    ),
    "ch05-nvn-rates": (
        "Three stacked log-scale panels: squared norm of the iterates against the iteration "
        "count with Dantzig's 1/(k+1) bound, the same against rho squared times the "
        "iteration count with the Epelman-Freund geometric bound of each negative margin, "
        "and the halting index against 1/epsilon with its bound."
    ),
    "ch06-lemma-7": (
        "Scatter of the distance from a centre q to the witness set against the G-norm of "
        "q, with the Hoffman-type bound as a curve above every point."
    ),
    "ch06-sandwich": (
        "Two log-log panels along SNKPVN runs against the iteration: on a separable instance "
        "(left) and on an inseparable one (right), the negated smoothed loss (green) stays "
        "between half the squared G-norm of p_k (blue, below) and its upper bound (red, "
        "above) at every iteration."
    ),
    "ch06-outer-loops": (
        "G-norm of the centre q_t against the outer loop t on a log axis for six ISNKPVN "
        "runs: runs that end with a certificate are solid blue-green lines with filled "
        "markers, runs that end with a separator are dotted red-orange lines with hollow "
        "markers and stop early; all fall at least as fast as the dashed line gamma to the "
        "power -t."
    ),
    "ch06-vs-nvn": (
        "Three log-log panels of iteration counts. Top left, ISNKPVN, and top right, the "
        "normalised Von Neumann algorithm (NVN), against one over the tolerance epsilon on "
        "three inseparable point sets and an RBF problem with a repeated point, each colour "
        "one problem, solid lines measured and dashed lines the bounds: at margin zero NVN's "
        "count rises steeply, like one over epsilon squared, while ISNKPVN's rises slowly. "
        "Bottom, both methods against one over the margin on separable problems: NVN's count "
        "rises faster than ISNKPVN's, and both stay below their dashed bounds."
    ),
    "ch06-gamma": (
        "Two stacked log-log panels against the shrink factor gamma of ISNKPVN: on top the "
        "measured total inner iterations for an inseparable, a margin-0 and a separable "
        "problem; below, the a-priori bound on that total for the same problems."
    ),
    "ch07-open-question": (
        "Two log-log panels of halting index against the number of points n, for SNKPVN, "
        "ISNKPVN and SNKP, with reference curves proportional to sqrt(n) and sqrt(log n) and "
        "SNKPVN's bound. Left, balanced family: all three methods fall slightly with n and "
        "coincide. Right, imbalanced family: SNKPVN and ISNKPVN grow like sqrt(n), above "
        "SNKPVN's lower bound and below its upper bound, while SNKP follows sqrt(log n)."
    ),
    "ch07-margin-paths": (
        "Five panels, one per real kernel problem, of the margin of the iterates as a "
        "fraction of the optimal margin against the iteration on a log axis: SNKP (green) "
        "rises smoothly to the optimum, NKP (blue) oscillates and approaches it more slowly; "
        "black ticks mark each method's first separator."
    ),
}


def figure(ch: Any, name: str, fig: Any, *, data: tuple[str, ...] | None = None) -> None:
    """Save, record and glue ``fig`` as the figure ``name`` of chapter ``ch``, with its alt.

    Parameters
    ----------
    ch : kperc_book.chapter.Chapter
        The chapter; its key and ``name`` select the alt text in :data:`ALT`.
    name : str
        The figure's name within the chapter (``"theorem-3"``).
    fig : matplotlib.figure.Figure
        The finished figure.
    data : tuple of str, optional
        The stored datasets the figure shows (see :meth:`~kperc_book.chapter.Chapter.figure`).

    Raises
    ------
    KeyError
        If :data:`ALT` has no words for ``<chapter>-<name>``.
    """
    key = f"{ch.key}-{name}"
    if key not in ALT:
        raise KeyError(f"no alt text for the figure {key!r}; add it to figures.ALT")
    ch.figure(fig, name, alt=ALT[key], data=data)


def _subplots(rows: int, cols: int, *, aspect: float = 0.62, **kwargs):
    import matplotlib.pyplot as plt

    style()
    return plt.subplots(rows, cols, figsize=figsize(rows, cols, aspect=aspect), **kwargs)


# ----------------------------------------------------------------------------- Chapter 5


def nvn_path(ds: Any, eps: float) -> dict[str, Any]:
    """The linear form of NVN on a planar dataset, as :func:`plots.nvn_2d` draws it.

    Runs :func:`kperc.von_neumann_linear` with ``trace=True`` (it records the iterates
    ``w_k``) and adds the signed points and the closed polygon of their hull.

    Examples
    --------
    >>> import kperc
    >>> path = nvn_path(kperc.datasets.planted(20, 2, 0.1, seed=0), 1e-3)
    >>> path["outcome"], path["W"].shape[1]
    ('separator', 2)
    """
    from scipy.spatial import ConvexHull

    import kperc

    lin = kperc.von_neumann_linear(ds.X, ds.y, eps=eps, trace=True)
    A = kperc.signed_normalized_points(ds.X, ds.y)
    v = ConvexHull(A).vertices
    return {
        "A": A,
        "hull": A[np.r_[v, v[:1]]],
        "W": np.asarray(lin.trace["w"]),
        "outcome": lin.outcome,
        "nit": lin.nit,
        "w": lin.w,
        "p": lin.p,
    }


def _draw_ball(ax, A, hull, i, radius, nu) -> None:
    """The hull of the signed points, the ball of radius |rho| and the closest facet."""
    polygon = A[np.r_[hull.vertices, hull.vertices[:1]]]
    ax.fill(*polygon.T, color="tab:blue", alpha=0.12)
    ax.plot(*polygon.T, color="tab:blue", lw=1, label="hull of the $a_i$")
    ax.scatter(*A.T, s=22, c="tab:blue", zorder=3)
    t = np.linspace(0, 2 * np.pi, 400)
    ax.fill(
        radius * np.cos(t),
        radius * np.sin(t),
        color="tab:orange",
        alpha=0.3,
        label=f"inscribed ball, radius $|\\rho|$ = {radius:.3g}",
    )
    ax.plot(*A[hull.simplices[i]].T, color="tab:red", lw=3, label="facet at distance $|\\rho|$")
    ax.annotate("", xy=-0.8 * nu, xytext=(0, 0), arrowprops={"arrowstyle": "->", "color": "k"})
    ax.text(*(-0.85 * nu + np.array([0.05, 0.0])), "$-\\nu$ (attains $\\rho$)", fontsize=9)
    ax.scatter([0], [0], marker="+", s=120, c="k", zorder=5)
    ax.set(
        aspect="equal",
        xlim=(-1.2, 1.2),
        ylim=(-1.2, 1.2),
        xlabel="first coordinate",
        ylabel="second coordinate",
        title="infeasible_2d: the ball of Theorem 3",
    )
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))  # outside: hides no data


def _draw_profile(bx, A, nu, rho, phi) -> None:
    """min_i a_i^T u and max_i a_i^T u over the angle of the unit direction u."""
    U = np.column_stack([np.cos(phi), np.sin(phi)])
    V = U @ A.T  # a_i^T u(phi)
    bx.plot(phi, V.min(axis=1), color="tab:blue", label="$\\min_i a_i^\\top u(\\varphi)$")
    bx.plot(
        phi,
        V.max(axis=1),
        color="tab:green",
        label="$\\max_i a_i^\\top u(\\varphi)$ (support function)",
    )
    bx.axhline(rho, color="tab:red", ls="--", lw=1, label="$\\rho$ (kperc.margin)")
    bx.axhline(-rho, color="tab:orange", ls="--", lw=1, label="$|\\rho|$")
    bx.axvline(
        np.arctan2(-nu[1], -nu[0]) % (2 * np.pi),
        color="k",
        lw=0.8,
        ls=":",
        label="direction $-\\nu$",
    )
    bx.set(
        xlabel="angle $\\varphi$ of the unit direction $u$",
        ylabel="value",
        title="every direction: the margin is the top of the blue curve",
    )
    bx.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)


def theorem3(A: np.ndarray, hull: Any, i: int, rho: float, phi: np.ndarray):
    """Theorem 3 in the plane: the inscribed ball, and the margin over every direction.

    Parameters
    ----------
    A : ndarray of shape (n, 2)
        The signed normalised points (rows).
    hull : scipy.spatial.ConvexHull
        Their hull; ``i`` is the index of the facet closest to the origin.
    i : int
        That facet.
    rho : float
        The margin (negative), minus the facet's distance to the origin.
    phi : ndarray
        Angles of the unit directions of the lower panel.

    Examples
    --------
    >>> from scipy.spatial import ConvexHull
    >>> A = np.array([[1.0, 0.0], [-0.5, 0.8], [-0.5, -0.8]])
    >>> hull = ConvexHull(A)
    >>> i = int(np.argmin(-hull.equations[:, -1]))
    >>> len(theorem3(A, hull, i, hull.equations[i, -1], np.linspace(0, 6, 50)).axes)
    2
    """
    radius, nu = -hull.equations[i, -1], hull.equations[i, :-1]
    fig, (ax, bx) = _subplots(2, 1, aspect=0.55)
    _draw_ball(ax, A, hull, i, radius, nu)
    _draw_profile(bx, A, nu, rho, phi)
    fig.tight_layout()
    return fig


def caveat(heights: Sequence[float], rho_lifted: Sequence[float], rho_2d: float):
    """The margin (5) of lifted points against the height of the lift, and the span margin.

    Examples
    --------
    >>> len(caveat([1.0, 0.1], np.array([-0.2, -0.02]), -0.3).axes)
    1
    """
    fig, ax = _subplots(1, 1)
    ax.plot(
        heights,
        -np.asarray(rho_lifted),
        "o-",
        color="tab:blue",
        label="$|\\rho|$ of the lifted points (rank 3)",
    )
    ax.axhline(
        -rho_2d, color="tab:red", ls="--", label="$|\\rho|$ span-restricted, height 0 (rank 2)"
    )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="height $t$ of the lift",
        ylabel="$|\\rho|$",
        title="margin (5) vanishes with the height; the span margin does not",
    )
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16))  # under the panel: hides no data
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- Chapter 6


def lemma7(l7: Any, rhos: Sequence[float]):
    """Lemma 7: dist(q, W) against ||q||_G / |rho_K| for every centre, and the bound.

    Parameters
    ----------
    l7 : pandas.DataFrame
        One row per instance: ``kind``, ``rho`` (its target), ``rho_exact`` and, per
        centre, arrays ``norm_q_G`` and ``dist``.
    rhos : sequence of float
        The target margins of the "cap" instances, one marker each.

    Examples
    --------
    >>> import pandas as pd
    >>> l7 = pd.DataFrame({"kind": ["cap"], "rho": [-0.1], "rho_exact": [-0.1],
    ...                    "norm_q_G": [np.array([0.01, 0.5])], "dist": [np.array([0.1, 1.0])]})
    >>> len(lemma7(l7, [-0.1]).axes)
    1
    """
    fig, ax = _subplots(1, 1)
    cap = l7[l7.kind == "cap"]
    for r, marker in zip(rhos, "o^s", strict=False):
        sub = cap[cap.rho == r]
        s = np.concatenate(
            [nq / abs(re) for nq, re in zip(sub.norm_q_G, sub.rho_exact, strict=True)]
        )
        dist = np.concatenate(list(sub.dist))
        ax.scatter(s, dist, s=14, alpha=0.7, marker=marker, label=f"$\\rho_K\\approx{r:g}$")
    s = np.geomspace(1e-4, 1e2, 200)
    lemma = "Lemma 7: $\\sqrt{2}\\,s/(1+s)$, $s=\\|q\\|_G/|\\rho_K|$"
    ax.plot(s, np.sqrt(2) * s / (1 + s), "k-", lw=1.5, label=lemma)
    ax.plot(s, np.minimum(np.sqrt(2), np.sqrt(2) * s), "k:", lw=1, label="slides' form")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="$\\|q\\|_G/|\\rho_K|$",
        ylabel="dist$(q,W)$",
        title="distance to the exact certificates",
    )
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig


def outer_loops(series: Sequence[tuple[str, Any]], *, gamma: float, eps: float):
    """||q_t||_G across the outer loops of ISNKPVN runs, certificates and separators apart.

    Parameters
    ----------
    series : sequence of (label, row)
        Each ``row`` has ``norm_q`` (one value per outer loop) and ``outcome``; at most
        four runs end with a certificate and two with a separator.
    gamma, eps : float
        The decrease factor (the dashed reference ``gamma**-t``) and the tolerance.

    Examples
    --------
    >>> from types import SimpleNamespace as Row
    >>> runs = [("a", Row(norm_q=np.array([1.0, 0.3, 0.05]), outcome="certificate")),
    ...         ("b", Row(norm_q=np.array([1.0, 0.4]), outcome="separator"))]
    >>> len(outer_loops(runs, gamma=2.0, eps=0.1).axes)
    1
    """
    fig, ax = _subplots(1, 1)
    colors = {
        "certificate": iter(["tab:blue", "tab:cyan", "tab:green", "tab:olive"]),
        "separator": iter(["tab:red", "tab:orange"]),
    }
    handles: dict[str, list[Any]] = {"certificate": [], "separator": []}
    for (label, row), marker in zip(series, "osD^vx", strict=False):
        cert = row.outcome == "certificate"  # solid and filled; separators dotted and hollow
        (line,) = ax.plot(
            np.arange(row.norm_q.size),
            row.norm_q,
            marker=marker,
            ms=6,
            lw=1.6,
            ls="-" if cert else ":",
            color=next(colors[row.outcome]),
            markerfacecolor=None if cert else "white",
            label=label,
        )
        handles[row.outcome].append(line)
    t = np.arange(0, 16)
    (ref,) = ax.plot(t, gamma ** (-t.astype(float)), "k--", lw=1, label="$\\gamma^{-t}$")
    ax.axhline(eps, color="0.5", lw=0.8, ls=":")
    ax.text(13.5, eps * 1.3, f"$\\varepsilon$ = {eps:g}", color="0.3")
    ax.set(
        yscale="log",
        xlabel="outer loop $t$",
        ylabel="$\\|q_t\\|_G$",
        title=f"ISNKPVN, $\\gamma$ = {gamma:g}",
    )
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


def _inseparable_panels(axes, problems: Sequence[tuple[str, Any]]) -> None:
    """(a) ISNKPVN and (b) NVN against 1/eps, measured (solid) and bound (dashed)."""
    colours, markers = ["tab:green", "tab:orange", "tab:purple", "tab:red"], "oooD"
    for (label, sub), c, mk in zip(problems, colours, markers, strict=True):
        sub = sub.sort_values("eps")
        axes[0].plot(1 / sub.eps, sub.nit, mk + "-", color=c, ms=4, label=label)
        axes[0].plot(1 / sub.eps, sub.total_bound, "--", color=c, lw=1)
        sub = sub[sub.nvn_nit.notna()]
        axes[1].plot(1 / sub.eps, sub.nvn_nit, mk + "-", color=c, ms=4)
        axes[1].plot(1 / sub.eps, sub.nvn_bound, "--", color=c, lw=1)
    for ax, title in zip(axes, ["(a) ISNKPVN, inseparable", "(b) NVN, inseparable"], strict=True):
        ax.set(xscale="log", yscale="log", xlabel="$1/\\varepsilon$", title=title)
    axes[0].set_ylabel("iterations")


def _separable_panel(ax, feas: Any, title: str) -> None:
    """(c) both methods against 1/rho_K: medians over the seeds (solid), bounds (dashed)."""
    import matplotlib.pyplot as plt

    x = 1 / feas.index
    ax.plot(x, feas.nit, "o-", color="tab:blue", ms=4, label="ISNKPVN (median)")
    ax.plot(x, feas.total_bound, "--", color="tab:blue", lw=1, label="ISNKPVN bound")
    ax.plot(x, feas.nvn, "s-", color="tab:brown", ms=4, label="NVN (median)")
    ax.plot(x, feas.nvn_bound, "--", color="tab:brown", lw=1, label="NVN bound $1/\\rho_K^2$")
    ax.set(xscale="log", yscale="log", xlabel="$1/\\rho_K$", ylabel="iterations", title=title)
    ax.xaxis.set_major_locator(plt.matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(plt.matplotlib.ticker.FormatStrFormatter("%g"))
    ax.xaxis.set_minor_locator(plt.NullLocator())


def vs_nvn(problems: Sequence[tuple[str, Any]], feas: Any, *, title: str):
    """ISNKPVN against NVN: (a, b) over 1/eps on inseparable problems, (c) over 1/rho_K.

    Parameters
    ----------
    problems : sequence of (label, DataFrame)
        Four inseparable problems, each with rows over ``eps`` and columns ``nit``,
        ``total_bound``, ``nvn_nit`` and ``nvn_bound``.
    feas : pandas.DataFrame
        Separable problems indexed by the margin: ``nit``, ``total_bound``, ``nvn``,
        ``nvn_bound``.
    title : str
        The title of panel (c).
    """
    import matplotlib.pyplot as plt

    style()
    fig = plt.figure(figsize=figsize(2, 1, aspect=0.5), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.1, 1.0])  # type: ignore[misc]
    axes = top.subplots(1, 2, sharey=True)
    _inseparable_panels(axes, problems)
    handles, _ = axes[0].get_legend_handles_labels()
    handles += [
        plt.Line2D([], [], color="0.3", marker="o", ms=4, label="measured"),
        plt.Line2D([], [], color="0.3", ls="--", lw=1, label="bound"),
    ]
    top.legend(handles=handles, loc="outside lower center", ncol=3)
    _separable_panel(bottom.subplots(), feas, title)
    bottom.legend(loc="outside lower center", ncol=2)
    return fig


def gamma_choice(means: Any, gammas: Sequence[float], *, rhos: Mapping[str, float], eps: float):
    """Measured total iterations (top) and the a-priori bound (bottom) against gamma.

    Parameters
    ----------
    means : pandas.DataFrame
        One row per gamma, columns ``("nit", kind)`` and ``("bound", kind)`` for the three
        kinds ``"cap"``, ``"edge"`` (inseparable, margin 0) and ``"planted"`` (separable).
    gammas : sequence of float
        The values of gamma, as ticks.
    rhos : mapping
        The margins of the ``"cap"`` and ``"planted"`` problems, for the legend.
    eps : float
        The tolerance of the two inseparable runs, for the legend.
    """
    import matplotlib.pyplot as plt

    labels = {
        "cap": f"cap $\\rho_K={rhos['cap']:g}$, $\\varepsilon$={eps:g}",
        "edge": f"edge $\\rho_K=0$, $\\varepsilon$={eps:g}",
        "planted": f"planted $\\rho_K={rhos['planted']:g}$ (separable)",
    }

    fig, axes = _subplots(2, 1, aspect=0.45, sharex=True)
    for kind, c in zip(labels, ["tab:orange", "tab:purple", "tab:blue"], strict=True):
        axes[0].plot(means.index, means.nit[kind], "o-", color=c, label=labels[kind])
        axes[1].plot(means.index, means.bound[kind], "--", color=c, label=labels[kind])
    for ax in axes:
        ax.set(xscale="log", yscale="log", xlabel="$\\gamma$")
        ax.set_xticks(gammas, [f"{g:g}" for g in gammas])
        ax.xaxis.set_minor_locator(plt.NullLocator())
    axes[0].set(ylabel="iterations (mean)", title="measured (solid)")
    axes[1].set(ylabel="bound on the total", title="a-priori bound of the ISNKPVN theorem (dashed)")
    axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2)  # hides no data
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- Chapter 7

#: Colour, marker and marker size of each method of the open question's sweep (larger
#: markers stay visible where counts coincide).
_STYLE = {
    "SNKPVN": ("tab:red", "o", 7.5),
    "ISNKPVN": ("tab:orange", "s", 5.5),
    "SNKP": ("tab:blue", "^", 4.0),
}


def open_question(runs: Any, med: Any, names: Mapping[str, str], *, rho: float):
    """Halting index against n on the two families of Chapter 7's sweep.

    Parameters
    ----------
    runs : pandas.DataFrame
        One row per run: ``family``, ``n`` and a count per key of ``names``.
    med : pandas.DataFrame
        Medians indexed by ``n``, columns ``(family, method)``, and
        ``("imbalanced", "lower bound")``.
    names : mapping
        Each count's column in ``runs`` and the method's name.
    rho : float
        The fixed margin (the grey bound ``2 sqrt(2n) / rho``).
    """
    fig, axes = _subplots(1, 2, aspect=1.1, sharey=True, layout="constrained")
    n = np.asarray(med.index, dtype=float)
    for ax, fam in zip(axes, ["balanced", "imbalanced"], strict=True):
        by_n = runs[runs.family == fam].groupby("n")
        for key, name in names.items():
            color, marker, size = _STYLE[name]
            ax.fill_between(n, by_n[key].min(), by_n[key].max(), color=color, alpha=0.15, lw=0)
            ax.plot(n, med[(fam, name)], marker=marker, ms=size, color=color, lw=1.6, label=name)
        if fam == "imbalanced":
            lower = med[(fam, "lower bound")]
            ax.plot(n, lower, "v-", color="tab:purple", ms=4, lw=1.2, label="SNKPVN lower bound")
        vn, s = med[(fam, "SNKPVN")].iloc[0], med[(fam, "SNKP")].iloc[0]  # the first points
        ax.plot(n, vn * np.sqrt(n / n[0]), "k--", lw=1, label="$\\propto\\sqrt{n}$")
        sqrt_log = np.sqrt(np.log(n) / np.log(n[0]))
        ax.plot(n, s * sqrt_log, "k:", lw=1.3, label="$\\propto\\sqrt{\\log n}$")
        ax.plot(n, 2 * np.sqrt(2 * n) / rho, color="0.6", lw=1.2, label="bound $2\\sqrt{2n}/\\rho$")
        ax.set(xscale="log", yscale="log", xlabel="number of points $n$", title=f"{fam} family")
    axes[0].set_ylabel("halting index (median, band: range)")
    fig.legend(*axes[1].get_legend_handles_labels(), loc="outside lower center", ncol=2)
    return fig


_KERNEL_NAMES = {"rbf": "RBF", "poly": "polynomial"}


def problem_label(problem: str) -> str:
    """A kernel problem's name in words.

    Examples
    --------
    >>> problem_label("digits_3_vs_8-rbf"), problem_label("xor-poly")
    ('digits 3 vs 8 (RBF)', 'XOR (polynomial)')
    """
    data, kernel = problem.split("-")
    data = "XOR" if data == "xor" else data.replace("_", " ")
    return f"{data} ({_KERNEL_NAMES[kernel]})"


def margin_paths(paths: Any, *, floor: float = -0.25):
    """Margin / rho_K of every iterate of NKP and SNKP run past their first separator.

    Parameters
    ----------
    paths : pandas.DataFrame
        One row per problem (the index), columns ``NKP``, ``SNKP`` (arrays of margin /
        rho_K per iterate) and ``NKP first``, ``SNKP first`` (first separating index).
    floor : float
        Margins below it are drawn at it (a negative margin: no separator).
    """
    rows = (len(paths) + 1) // 2
    fig, axes = _subplots(rows, 2, aspect=0.62, sharex=True, sharey=True, layout="constrained")
    axes = np.atleast_2d(axes)
    for ax, (problem, row) in zip(axes.flat, paths.iterrows(), strict=False):
        for name, color, lw in [("NKP", "tab:blue", 0.9), ("SNKP", "tab:green", 1.8)]:
            m, first = row[name], row[name + " first"]
            ax.plot(
                np.arange(1, m.size), np.clip(m[1:], floor, None), color=color, lw=lw, label=name
            )
            ax.plot([first], [max(m[first], floor)], "k|", ms=11, mew=1.5, label="first separator")
        ax.axhline(1.0, color="k", lw=0.8, ls="--", label="optimal margin $\\rho_K$")
        ax.set(xscale="log", ylim=(floor - 0.03, 1.08), yticks=[0, 0.5, 1])
        ax.set(title=problem_label(problem), xlabel="iteration $k$")
        ax.xaxis.set_tick_params(labelbottom=True)
    for ax in axes.flat[len(paths) :]:
        fig.delaxes(ax)
    for ax in axes[:, 0]:
        ax.set_ylabel("margin / $\\rho_K$")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))  # one "first separator" entry
    fig.legend(unique.values(), unique.keys(), loc="outside lower center", ncol=2)
    return fig

"""The chapter figures of kperc_book.experiments.plots are readable by construction.

For every figure function: at most two panels side by side, every text at 9 pt or more,
no legend over any panel, no two titles overlapping, nothing wider than the column.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import kperc  # noqa: E402
from kperc_book.chapter import COLUMN_WIDTH  # noqa: E402
from kperc_book.experiments import plots  # noqa: E402


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def assert_readable(fig) -> None:
    import matplotlib.pyplot as plt

    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert fig.get_figwidth() <= COLUMN_WIDTH + 1e-9
    # at most two panels share a row
    rows: dict[float, int] = {}
    for ax in axes:
        y = round(ax.get_position().y0, 3)
        rows[y] = rows.get(y, 0) + 1
    assert max(rows.values()) <= 2, rows
    # text size
    for t in fig.findobj(matplotlib.text.Text):
        if t.get_visible() and t.get_text().strip():
            assert t.get_fontsize() >= 9 - 1e-9, (t.get_text(), t.get_fontsize())
    # legends never cover a panel
    legends = [ax.get_legend() for ax in axes if ax.get_legend()] + list(fig.legends)
    for leg in legends:
        lb = leg.get_window_extent(r)
        for ax in axes:
            assert not _overlap(lb, ax.get_window_extent(r)), "a legend covers a panel"
    # titles do not run into each other
    titles = [ax.title.get_window_extent(r) for ax in axes if ax.get_title()]
    for i, a in enumerate(titles):
        for b in titles[i + 1 :]:
            assert not _overlap(a, b), "two panel titles overlap"
    plt.close(fig)


def _nvn_path(ds):
    """A run of the linear Von Neumann algorithm as Chapter 5 draws it."""
    from scipy.spatial import ConvexHull

    lin = kperc.von_neumann_linear(ds.X, ds.y, eps=1e-3, trace=True)
    A = kperc.signed_normalized_points(ds.X, ds.y)
    v = ConvexHull(A).vertices
    W = np.asarray(lin.trace["w"])
    return {
        "A": A,
        "hull": A[np.r_[v, v[:1]]],
        "W": W,
        "outcome": lin.outcome,
        "nit": lin.nit,
        "w": lin.w,
    }


def test_nvn_2d_is_readable():
    inf = kperc.datasets.infeasible(12, 2, -0.2, seed=0)
    sep = kperc.datasets.planted(12, 2, 0.1, seed=0)
    fig = plots.nvn_2d(_nvn_path(inf), _nvn_path(sep), rho_feas=0.1)
    assert_readable(fig)


def _trace(k: int, rng) -> dict[str, np.ndarray]:
    kk = np.arange(k)
    mu = 4.0 * 30 / ((kk + 1) * (kk + 2))
    p = 0.3 / np.sqrt(kk + 1) + 0.01 * rng.random(k)
    lq = -0.5 * p**2 - 0.001
    return {"k": kk, "norm_p_G": p, "L_mu_q": lq, "L": 0.1 * rng.random(k), "mu": mu}


@pytest.mark.parametrize("seed", [0, 1])
def test_snkpvn_sandwich_is_readable(seed):
    rng = np.random.default_rng(seed)
    feas = {"trace": _trace(120, rng), "rho_exact": 0.0213, "outcome": "separator", "nit": 119}
    infs = {"trace": _trace(400, rng), "dist": 0.8, "outcome": "certificate", "nit": 399}
    assert_readable(plots.snkpvn_sandwich(feas, infs))


def test_snkpvn_sandwich_falls_back_to_symlog_for_non_positive_terms():
    rng = np.random.default_rng(2)
    tr = _trace(50, rng)
    tr["L"] = tr["mu"] + 1.0  # mu_k - L(alpha_k) < 0: no log axis can show it
    fig = plots.snkpvn_sandwich(
        {"trace": tr, "rho_exact": 0.1, "outcome": "separator", "nit": 49},
        {"trace": _trace(50, rng), "dist": 0.5, "outcome": "certificate", "nit": 49},
    )
    assert fig.axes[0].get_yscale() == "symlog" and fig.axes[1].get_yscale() == "log"
    assert_readable(fig)


def test_nvn_rates_is_readable_with_one_legend_under_the_panels():
    import pandas as pd

    rhos = [-0.3, -0.1]
    traces = {("cap", r): 0.3 * (1 - r * r) ** np.arange(int(20 / r**2)) for r in rhos}
    traces[("edge", 0.0)] = 0.3 / (1 + np.arange(2000))
    runs = pd.DataFrame(
        [
            {"rho": r, "eps": e, "nit": 10 / e**0.5, "bound": 20 / e**0.5}
            for r in [*rhos, 0.0]
            for e in (1e-1, 1e-2, 1e-3)
        ]
    )
    fig = plots.nvn_rates(traces, runs, rhos)
    assert not any(ax.get_legend() for ax in fig.axes) and len(fig.legends) == 1
    assert_readable(fig)

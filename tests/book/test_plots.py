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


# Chapters 2 to 4: each figure function on a small table shaped as its chapter makes it.


def _planted_table(rng, n=24):
    import pandas as pd

    rho = np.repeat([0.05, 0.1, 0.2], n // 3)
    bound_np = 1 / rho**2
    bound_p = bound_np * rng.uniform(5, 50, n)
    nit_np = bound_np * rng.uniform(0.1, 0.5, n)
    nit_p = bound_p * rng.uniform(0.001, 0.05, n)
    return pd.DataFrame(
        {
            **{"rho": rho, "nit_np": nit_np, "bound_np": bound_np, "ratio_np": nit_np / bound_np},
            **{"nit_perceptron": nit_p, "bound_perceptron": bound_p},
            "ratio_perceptron": nit_p / bound_p,
        }
    )


def test_chapter_2_figures_are_readable():
    import pandas as pd

    rng = np.random.default_rng(0)
    assert_readable(plots.planted_bounds(_planted_table(rng)))
    r = np.geomspace(1, 100, 5)
    rays = pd.DataFrame(
        {
            **{"r": r, "rho2": np.full(5, 0.14), "rho": 0.14 / r, "rho_over_R": 0.14 / r**2},
            **{"bound_perceptron": 50 * r**4, "bound_np": np.full(5, 50.0)},
            **{"nit_least": 10 * r**2, "nit_perceptron": 3 * r, "nit_np": np.full(5, 3.0)},
        }
    )
    assert_readable(plots.two_rays(kperc.datasets.two_rays(10.0, 10), rays))
    ratios = pd.DataFrame(
        {
            "kind": ["planted", "gaussian"] * 20,
            "ratio": rng.uniform(0.1, 1.0, 40),
            "spread": rng.uniform(1, 20, 40),
        }
    )
    assert_readable(plots.normalizing_ratio(ratios, pd.Series(rng.uniform(0.3, 1.0, 10))))
    d = np.array([16, 32, 64])
    tab = pd.DataFrame(
        {
            **{"rho2": 1 / np.sqrt(3 * d), "rho_inf": np.full(3, 1 / 3)},
            **{"nit_np": 2.0 * d, "bound_np": 3.0 * d},
            **{"nit_winnow": 10 + np.log(d), "bound_winnow": 18 * np.log(2 * d)},
        },
        index=pd.Index(d, name="d"),
    )
    assert_readable(plots.winnow(tab))
    assert {"ch02-planted-bounds", "ch02-two-rays", "ch02-normalizing", "ch02-winnow"} <= set(
        plots.ALT
    )


def test_chapter_3_margin_traces_are_readable():
    k = np.arange(1, 500)
    traces = {
        name: {"k": k, "margin": rho * (1 - 1.5 / np.sqrt(k)), "first": 3, "at first": 0.1 * rho}
        | {"rho": rho}
        for name, rho in [("breast_cancer-rbf", 0.01), ("xor-poly", 0.05)]
    }
    assert_readable(plots.nkp_margin(traces))


def test_chapter_3_boundaries_keep_the_legend_off_the_three_panels():
    import matplotlib.pyplot as plt

    xx, yy = np.meshgrid(np.linspace(-1, 1, 20), np.linspace(-1, 1, 20))
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (30, 2))
    grid = {"X": X, "y": np.sign(X[:, 0]), "xx": xx, "yy": yy, "f_max": xx, "f_nkp": xx + 0.1 * yy}
    grids = {name: grid | {"rho": 0.1, "nit": 7, "margin_nkp": 0.05} for name in "abc"}
    fig = plots.boundaries(grids)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    panels = [ax.get_window_extent(r) for ax in fig.axes[:3]]
    legend = fig.axes[3].get_legend().get_window_extent(r)
    assert not any(_overlap(legend, p) for p in panels)
    assert fig.get_figwidth() <= COLUMN_WIDTH + 1e-9
    plt.close(fig)


def test_chapter_4_figures_are_readable():
    import pandas as pd

    k = np.arange(300)
    mu = 4 / ((k + 1) * (k + 2))
    L = -0.005 + 1 / (k + 2)
    sw = {"k": k, "L": L, "L_mu": L - mu, "mu": mu, "lower": L - 2 * mu, "upper": L - mu / 2}
    slack = {"k": k[:100], "slack5": 1e-4 * np.cos(k[:100] / 10)}
    bad = {"seed": 0, "n": 8, "sw": slack, "ref": slack | {"slack5": np.abs(slack["slack5"])}}
    assert_readable(plots.snkp_sandwich(sw | {"halt": 40, "n": 569}, 0.1, bad))

    rhos = np.array([0.1, 0.03, 0.01, 0.001])
    columns = {}
    for m, p in [("perceptron", 2), ("nkp", 2), ("snkp", 1)]:
        for key, scale in [("nit", 0.3), ("bound", 1.0)]:
            for stat, f in [("median", 1.0), ("min", 0.8), ("max", 1.2)]:
                columns[(f"{key}_{m}", stat)] = scale * f / rhos**p
    stats = pd.DataFrame(columns, index=pd.Index(rhos, name="rho"))
    slopes = {"perceptron": 2.0, "nkp": 2.0, "snkp": 1.0}
    assert_readable(plots.snkp_rates(stats, slopes, rho_fit_max=0.03, title="planted instances"))

    n = np.array([10, 100, 1000])
    by_n = pd.DataFrame(
        {
            "family": ["planted"] * 3 + ["crowded"] * 3,
            "n": np.tile(n, 2),
            **{"snkp_med": np.tile(50.0 * np.sqrt(np.log(n)), 2), "nkp_med": np.full(6, 500.0)},
        }
    )
    by_n["snkp_min"], by_n["snkp_max"] = 0.8 * by_n.snkp_med, 1.2 * by_n.snkp_med
    assert_readable(plots.n_dependence(by_n, 0.01, 0.5))

    problems = ["breast_cancer-rbf", "digits_3_vs_8-rbf", "xor-poly"]
    real = pd.DataFrame({"NKP": [240, 24, 68], "SNKP": [56, 18, 10]}, index=problems)
    ms = pd.DataFrame({"nkp": [0.8, 0.25, 0.24], "snkp": [3.9, 1.2, 0.45]}, index=problems)
    assert_readable(plots.snkp_realdata(real, ms, "2026-11-23"))
    assert {"ch04-sandwich", "ch04-rates", "ch04-n-dependence", "ch04-realdata"} <= set(plots.ALT)

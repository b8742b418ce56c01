"""The functions behind the cells of ``book/ch02_linear_feasibility.ipynb``: verdicts (on
a good table and on a spoiled one, so that each can fail), the checks that replaced the
notebook's asserts, printed tables, glued numbers and figures, on small instances."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from kperc_book import data  # noqa: E402
from kperc_book.chapter import STAGING_ENV, Chapter  # noqa: E402
from kperc_book.experiments import ch02, ch02_figures  # noqa: E402


def _shape(v):
    assert set(v) == {"ok", "detail", "instances"}
    assert isinstance(v["ok"], bool) and isinstance(v["detail"], str)
    assert isinstance(v["instances"], int)
    return v["ok"], v["detail"], v["instances"]


@pytest.fixture
def chapter(tmp_path, monkeypatch):
    monkeypatch.setenv(STAGING_ENV, str(tmp_path))
    return Chapter("ch02")


def _record(tmp_path):
    return json.loads((tmp_path / "_generated" / "ch02.json").read_text())


# ------------------------------------------------------------------------ planted


@pytest.fixture(scope="module")
def planted():
    return ch02.planted_sweep([0.1, 0.2], range(3), n=30, d=3, norm_range=(0.5, 2.0))


def test_planted_verdicts_hold(planted):
    ok, detail, n = _shape(ch02.block_novikoff_verdict(planted))
    assert ok and n == 6
    assert detail == (
        "Perceptron halting index <= R^2/rho^2 on 6 planted instances; "
        f"worst ratio {planted['ratio_perceptron'].max():.3g}"
    )
    ok, detail, n = _shape(ch02.np_bound_verdict(planted))
    assert ok and n == 6
    assert f"worst ratio {planted['ratio_np'].max():.3g}" in detail


def test_planted_verdicts_fail_on_a_spoiled_table(planted):
    bad = planted.copy()
    bad.loc[2, "nit_perceptron"] = int(bad.loc[2, "bound_perceptron"]) + 1
    assert not ch02.block_novikoff_verdict(bad)["ok"]
    assert ch02.np_bound_verdict(bad)["ok"]
    bad = planted.copy()
    bad.loc[0, "nit_np"] = int(bad.loc[0, "bound_np"]) + 1
    assert not ch02.np_bound_verdict(bad)["ok"]
    assert ch02.block_novikoff_verdict(bad)["ok"]


def test_a_failed_verdict_raises_through_chapter_check(planted, chapter):
    assert chapter.check("np-bound", **ch02.np_bound_verdict(planted))
    bad = planted.copy()
    bad["nit_np"] = bad["bound_np"] * 2
    with pytest.raises(AssertionError, match="np-bound"):
        chapter.check("np-bound", **ch02.np_bound_verdict(bad))


def test_check_planted_refuses_capped_runs_and_a_wrong_margin(planted):
    ch02.check_planted(planted)
    bad = planted.copy()
    bad.loc[1, "sep_np"] = False
    with pytest.raises(ch02.ClaimError, match="1 planted run"):
        ch02.block_novikoff_verdict(bad)
    bad = planted.copy()
    bad.loc[0, "rho2"] *= 1.001
    with pytest.raises(ch02.ClaimError, match="planted margin"):
        ch02.np_bound_verdict(bad)


def test_planted_table_and_glue(planted):
    text = ch02.planted_table(planted)
    lines = text.splitlines()
    assert lines[0].startswith("Perceptron on raw data, NP = Normalised Perceptron")
    assert "NP worst ratio" in lines[2] and lines[4].startswith("0.1") and len(lines) == 6
    assert max(map(len, lines)) <= 90 and "_" not in lines[2]
    glued = {k: (v, d) for k, v, d in ch02.planted_glue(planted)}
    assert list(glued) == [
        "ch02_n_planted",
        "ch02_np_over_perceptron",
        "ch02_worst_ratio_np",
        "ch02_worst_ratio_perceptron",
        "ch02_median_ratio_np",
        "ch02_median_ratio_perceptron",
    ]
    assert glued["ch02_n_planted"][0] == 6
    assert glued["ch02_worst_ratio_np"] == (planted["ratio_np"].max(), 2)
    assert glued["ch02_median_ratio_perceptron"][0] == planted["ratio_perceptron"].median()
    ratio = glued["ch02_np_over_perceptron"][0]
    assert ratio == pytest.approx(np.median(planted["nit_np"] / planted["nit_perceptron"]))


def test_glue_all_records_rounded_values(planted, chapter, tmp_path):
    ch02.glue_all(chapter, ch02.norm_range_glue([0.5, 2.0]) + ch02.planted_glue(planted))
    glue = _record(tmp_path)["glue"]
    assert glue["ch02_norm_lo"] == 0.5 and glue["ch02_norm_hi"] == 2.0
    assert glue["ch02_n_planted"] == 6
    assert glue["ch02_worst_ratio_np"] == float(f"{planted['ratio_np'].max():.2g}")


# ------------------------------------------------------------------- sign patterns


@pytest.fixture(scope="module")
def signs():
    return ch02.sign_pattern_sweep(range(3), n=20, d=3, rho=0.1)


def test_sign_pattern_verdict(signs):
    ok, detail, n = _shape(ch02.np_equals_perceptron_verdict(signs))
    assert ok and n == 3
    assert detail.endswith(f"at all {int(signs['steps'].sum())} steps of 3 runs")
    for col in ("same_signs", "same_choices", "scaled_equal"):
        bad = signs.copy()
        bad.loc[1, col] = False
        assert not ch02.np_equals_perceptron_verdict(bad)["ok"], col
    bad = signs.copy()
    bad.loc[0, "nit_perceptron"] += 1
    assert not ch02.np_equals_perceptron_verdict(bad)["ok"]


def test_sign_pattern_text_and_glue(signs):
    differ = int((~signs["raw_same_choices"]).sum())
    lines = ch02.sign_pattern_text(signs).splitlines()
    assert lines == [
        "median halting index:",
        f"  {signs['nit_np'].median():.0f} Normalised Perceptron = Perceptron on normalised points",
        f"  {signs['nit_raw'].median():.0f} Perceptron on raw points",
        f"runs where the raw Perceptron chose a different sequence: {differ} of 3",
    ]
    assert ch02.sign_pattern_glue(signs) == [
        ("ch02_sign_steps", int(signs["steps"].sum()), 4),
        ("ch02_sign_runs", 3, 4),
        ("ch02_raw_differ", differ, 4),
    ]


# ----------------------------------------------------------------------- two rays


@pytest.fixture(scope="module")
def rays():
    return ch02.two_rays_sweep([1.0, 3.0, 10.0, 30.0], n_per_ray=5, max_iter=20_000)


def test_two_rays_text(rays):
    lines = ch02.two_rays_text(rays, max_iter=20_000).splitlines()
    assert lines[0].startswith("halting indices of the Perceptron (two rules)")
    lines = lines[1:]
    assert lines[0].split() == "r margin margin / R bound Perceptron lazy rule NP".split()
    assert len(lines) == 1 + 4 + 4
    assert lines[5] == "rho_2 = 0.141421 for every r (sqrt(2)/10 = 0.141421)"
    assert lines[6] == "fitted exponent of the bound ratio (R^2/rho^2)/(1/rho_2^2) in r: 4.0000"
    exponent, lazy = ch02.two_rays_exponents(rays)
    assert exponent == pytest.approx(4.0, abs=1e-9)
    assert lines[7].endswith(f"(r >= 3): {lazy:.3f}") and 1.0 < lazy < 3.0
    assert lines[8] == "runs that reached max_iter = 20000: 0"


def test_two_rays_glue(rays):
    glued = {k: v for k, v, _ in ch02.two_rays_glue(rays, r_max=30.0, max_iter=20_000)}
    assert glued["rho2_example"] == pytest.approx(np.sqrt(2) / 10, rel=1e-12)
    assert glued["ch02_rays_rmax"] == 30.0 and glued["ch02_max_iter"] == 20_000
    assert glued["ch02_rays_bound_max"] == pytest.approx(50 * 30.0**4, rel=1e-8)
    assert glued["ch02_rays_lazy_max"] == int(rays["nit_least"].max())
    assert glued["ch02_rays_capped"] == 0
    capped = rays.copy()
    capped.loc[3, "capped_least"] = True
    glued = {k: v for k, v, _ in ch02.two_rays_glue(capped, r_max=30.0, max_iter=20_000)}
    assert glued["ch02_rays_capped"] == 1


@pytest.mark.parametrize(
    ("column", "factor", "message"),
    [
        ("rho2", 1.001, "sqrt\\(2\\)/10"),
        ("rho", 1.001, "rho_2 / r"),
        ("R", 1.001, "not r"),
        ("nit_least", 1e9, "nit_least exceeds bound_perceptron"),
        ("nit_np", 100, "nit_np exceeds bound_np"),
    ],
)
def test_two_rays_checks_fail_on_a_spoiled_table(rays, column, factor, message):
    bad = rays.copy()
    bad[column] = bad[column] * factor
    with pytest.raises(ch02.ClaimError, match=message):
        ch02.two_rays_text(bad, max_iter=20_000)
    with pytest.raises(ch02.ClaimError, match=message):
        ch02.two_rays_glue(bad, r_max=30.0, max_iter=20_000)


def test_two_rays_exercise_text():
    ds = data.two_rays(5.0, 10)
    rho2 = float(__import__("kperc").data_margin(ds.X, ds.y))
    assert ch02.two_rays_rho2_text(rho2) == "rho_2 = 0.141421, sqrt(2)/10 = 0.141421"
    with pytest.raises(ch02.ClaimError, match="not sqrt"):
        ch02.two_rays_rho2_text(rho2 + 1e-8)


# --------------------------------------------------------------- normalising never hurts


@pytest.fixture(scope="module")
def ratios():
    return ch02.margin_ratio_sweep(range(4))


def test_normalizing_verdict(ratios, planted):
    r = ch02.all_margin_ratios(ratios, planted)
    assert r.size == 8 + 6
    assert np.array_equal(r[:8], ratios["ratio"].to_numpy())
    ok, detail, n = _shape(ch02.normalizing_verdict(ratios, planted))
    assert ok and n == 14
    assert detail.endswith(f"on 14 random instances; worst {r.max():.4f}")
    bad = ratios.copy()
    bad.loc[3, "ratio"] = 1.01
    v = ch02.normalizing_verdict(bad, planted)
    assert not v["ok"] and v["detail"].endswith("worst 1.0100")
    bad = planted.copy()
    bad.loc[0, "rho_raw"] = 1.5 * bad.loc[0, "R"] * bad.loc[0, "rho2"]
    assert not ch02.normalizing_verdict(ratios, bad)["ok"]


def test_margin_ratio_text_and_glue(ratios, planted):
    lines = ch02.margin_ratio_text(ratios, planted).splitlines()
    assert lines[0].split() == ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]
    assert lines[2].startswith("gaussian") and lines[3].startswith("planted")
    r = ch02.all_margin_ratios(ratios, planted)
    infl = 1 / r**2
    assert lines[4] == (
        f"bound inflation R^2 rho_2^2 / rho^2: median {np.median(infl):.3g}, "
        f"smallest {infl.min():.4g}"
    )
    assert ch02.margin_ratio_glue(ratios, planted) == [
        ("ch02_ratio_worst", float(r.max()), 3),
        ("ch02_ratio_median", float(np.median(r)), 2),
        ("ch02_ratio_n", 14, 4),
        ("ch02_inflation_median", float(np.median(infl)), 2),
    ]


# ------------------------------------------------------------------------- Winnow


@pytest.fixture(scope="module")
def win():
    return ch02.winnow_sweep([8, 16], range(2))


def test_winnow_table_text_and_glue(win):
    tab = ch02.winnow_table(win)
    assert list(tab.index) == [8, 16]
    assert list(tab["n"]) == [32, 64]
    assert (tab["rho_inf"] >= 1 / 3 - 1e-9).all()
    lines = ch02.winnow_text(tab).splitlines()
    assert lines[0].startswith("NP = Normalised Perceptron")
    lines = lines[1:]
    head = "n l2 margin l-inf margin NP NP bound Winnow Winnow bound"
    assert lines[0].split() == head.split()
    assert lines[4].startswith("fitted exponent in d of the median halting index:")
    scaled = tab["rho2"].to_numpy() * np.sqrt(3 * tab.index.to_numpy())
    assert lines[5] == "rho_2 * sqrt(3 d) = " + ", ".join(f"{v:.6f}" for v in scaled)
    glued = {k: v for k, v, _ in ch02.winnow_glue(win, tab)}
    assert glued["ch02_w_dmax"] == 16
    assert glued["ch02_w_rho_inf"] == win["rho_inf"].min()
    assert glued["ch02_w_nit_w_dmax"] == tab.loc[16, "nit_winnow"]
    assert glued["ch02_w_slope_np"] == pytest.approx(
        np.log(tab.loc[16, "nit_np"] / tab.loc[8, "nit_np"]) / np.log(2)
    )


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("sep_winnow", False, "without a separator"),
        ("nit_np", 10**9, "Normalised Perceptron exceeds"),
        ("nit_winnow", 10**9, "Winnow exceeds"),
        ("rho_inf", 0.2, "below 1/k"),
    ],
)
def test_winnow_table_refuses_a_spoiled_sweep(win, column, value, message):
    bad = win.copy()
    bad.loc[2, column] = value
    with pytest.raises(ch02.ClaimError, match=message):
        ch02.winnow_table(bad)


# ------------------------------------------------------------------------ figures


def _texts(fig):
    return [ax.get_title() for ax in fig.axes]


def test_figures(planted, rays, ratios, win):
    figs = {
        "planted-bounds": ch02_figures.planted_bounds(planted),
        "two-rays": ch02_figures.two_rays(data.two_rays(10.0, 10), rays),
        "normalizing": ch02_figures.normalizing(ratios, planted),
        "winnow": ch02_figures.winnow(ch02.winnow_table(win)),
    }
    try:
        assert set(figs) == set(ch02_figures.ALT)
        assert _texts(figs["planted-bounds"]) == ["6 planted instances", "how far below the bound"]
        assert _texts(figs["two-rays"]) == [
            "the example for r = 10",
            "margins",
            "bounds and halting indices",
        ]
        assert _texts(figs["normalizing"]) == [
            "the normalised bound is never weaker",
            "against the spread of the norms",
        ]
        legend = figs["normalizing"].axes[0].get_legend()
        assert "planted, first section (6)" in [t.get_text() for t in legend.get_texts()]
        assert _texts(figs["winnow"]) == ["margins (sparse target, k = 3)", "iterations"]
        assert [t.get_text() for t in figs["winnow"].axes[1].get_xticklabels()] == ["8", "16"]
        # the halting indices drawn are the table's
        line = figs["two-rays"].axes[2].get_lines()[2]
        assert np.array_equal(line.get_ydata(), rays["nit_least"].to_numpy())
    finally:
        for fig in figs.values():
            plt.close(fig)


def test_figures_go_through_chapter_figure(planted, chapter, tmp_path):
    path = chapter.figure(
        ch02_figures.planted_bounds(planted),
        "planted-bounds",
        data=(),
        alt=ch02_figures.ALT["planted-bounds"],
    )
    assert path.name == "ch02-planted-bounds.png" and path.read_bytes()[:4] == b"\x89PNG"
    rec = _record(tmp_path)["figures"]["ch02-planted-bounds.png"]
    assert rec["alt"] == ch02_figures.ALT["planted-bounds"] and rec["data"] == {}

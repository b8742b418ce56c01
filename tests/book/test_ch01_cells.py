"""What Chapter 1's cells print, glue and draw (kperc_book.experiments.ch01, ch01_figures).

The notebook's cells only call these functions; here each one runs on the chapter's
stored data, and the checks they make are shown to fail on a tampered input.
"""

from __future__ import annotations

import types

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import kperc  # noqa: E402
from kperc_book import data  # noqa: E402
from kperc_book.experiments import ch01, ch01_figures  # noqa: E402


@pytest.fixture(scope="module")
def cone():
    ds = data.load("planted_2d")
    geo = ch01.cone_geometry(ds.X, ds.y)
    brute = ch01.separating_fraction(ds.X, ds.y, geo["arc"], n_grid=720)
    return ds, geo, brute


@pytest.fixture(scope="module")
def circles():
    ds = data.load("circles")
    return ds, ch01.circles_margins(ds.X, ds.y), ch01.kernel_separation("circles-rbf")


@pytest.fixture
def chapter(tmp_path, monkeypatch):
    from kperc_book.chapter import STAGING_ENV, Chapter

    monkeypatch.setenv(STAGING_ENV, str(tmp_path))
    return Chapter("ch01")


def test_cone_report_prints_the_measured_geometry(cone):
    ds, geo, brute = cone
    lines = ch01.cone_report(ds.X, geo, brute, 720).splitlines()
    assert lines[0] == f"n = {ds.X.shape[0]} points in R^2"
    assert lines[1] == "rho_2 (minimum-norm point of the hull) = 0.150000"
    assert lines[2] == "sin(half-width of the separating arc)  = 0.150000"
    assert (
        lines[3]
        == f"arc of separating directions: width {np.degrees(geo['arc_width']):.3f} degrees"
    )
    assert lines[4].startswith(
        f"fraction of 720 grid directions that separate: {brute['fraction']:.4f}"
    )
    assert lines[4].endswith("mismatches away from the end points: 0)")
    assert lines[5] == "max-margin direction = midpoint of the arc: True"


def test_cone_report_refuses_a_wrong_arc_or_a_mismatch(cone):
    ds, geo, brute = cone
    with pytest.raises(ch01.ClaimError, match="half-width"):
        ch01.cone_report(ds.X, dict(geo, rho2_arc=geo["rho2"] + 1e-6), brute, 720)
    with pytest.raises(ch01.ClaimError, match="3 of 720 grid directions"):
        ch01.cone_report(ds.X, geo, dict(brute, mismatches=3), 720)
    # a scan that really disagrees: the arc of other data
    other = data.planted(30, 2, 0.3, seed=0)
    wrong = ch01.separating_fraction(other.X, other.y, geo["arc"], n_grid=720)
    assert wrong["mismatches"] > 0
    with pytest.raises(ch01.ClaimError):
        ch01.cone_report(ds.X, geo, wrong, 720)


def test_glue_cone_records_the_quoted_values(cone, chapter):
    _, geo, _ = cone
    ch01.glue_cone(chapter, geo, 720)
    assert list(chapter.glued) == ["ch01_rho2_planted", "ch01_arc_deg", "ch01_n_grid"]
    assert chapter.glued["ch01_rho2_planted"] == 0.15
    assert chapter.glued["ch01_arc_deg"] == float(f"{np.degrees(geo['arc_width']):.4g}")
    assert chapter.glued["ch01_n_grid"] == 720


def test_circles_report_prints_both_margins_and_the_run(circles):
    _, cm, ks = circles
    lines = ch01.circles_report(cm, ks).splitlines()
    assert len(lines) == 7
    assert lines[0].endswith(f"{cm['rho2_plane']:+.4f}") and cm["rho2_plane"] < 0
    assert lines[1].endswith(f"{cm['rho2_lifted']:+.4f}") and cm["rho2_lifted"] > 0
    assert lines[4] == f"SNKP on the Gram matrix:       halting index {ks['nit_snkp']}"
    assert "training accuracy 1.000" in lines[5]
    assert lines[6] == f"Theorem 1 bound 2 sqrt(2 log n) / rho_K = {ks['snkp_bound']:.1f}"


@pytest.mark.parametrize(
    "change, match",
    [
        ({"cm": {"rho2_plane": 0.01}}, "no separating line"),
        ({"cm": {"rho2_lifted": -0.01}}, "no separating line"),
        ({"ks": {"nit_clf": -1}}, "should agree"),
        ({"ks": {"sep_snkp": False}}, "should agree"),
        ({"ks": {"train_accuracy": 0.99}}, "should agree"),
        ({"ks": {"snkp_bound": 1.0}}, "Theorem 1"),
    ],
)
def test_circles_report_refuses_a_failed_claim(circles, change, match):
    _, cm, ks = circles
    with pytest.raises(ch01.ClaimError, match=match):
        ch01.circles_report(dict(cm, **change.get("cm", {})), dict(ks, **change.get("ks", {})))


def test_glue_circles_records_the_quoted_values(circles, chapter):
    _, cm, ks = circles
    ch01.glue_circles(chapter, cm, ks)
    assert chapter.glued == {
        "ch01_rho_plane": float(f"{cm['rho2_plane']:.3g}"),
        "ch01_rho_lifted": float(f"{cm['rho2_lifted']:.3g}"),
        "ch01_circle_radius": float(f"{cm['radius']:.3g}"),
        "ch01_rho_rbf": float(f"{ks['rho_K']:.3g}"),
        "ch01_nit_snkp": ks["nit_snkp"],
        "ch01_snkp_bound": float(f"{ks['snkp_bound']:.3g}"),
        "ch01_gamma": ks["params"]["gamma"],
    }
    assert list(chapter.glued)[0] == "ch01_rho_plane"


def test_roadmap_report_finds_every_function_and_names_a_missing_one():
    n = len(ch01.roadmap_functions())
    assert ch01.roadmap_report() == (
        f"kperc functions named in the roadmap: {n}, missing from the package: []"
    )
    partial = types.SimpleNamespace(
        **{f: getattr(kperc, f) for f in ch01.roadmap_functions() if f != "snkp"}
    )
    with pytest.raises(ch01.ClaimError, match=r"\['snkp'\]"):
        ch01.roadmap_report(partial)


def test_glue_roadmap_glues_the_markdown_table(monkeypatch):
    """myst-nb's glue formats the table and hands it to IPython's display: catch it there."""
    import myst_nb.ext.glue

    shown = []
    monkeypatch.setattr(myst_nb.ext.glue, "ipy_display", lambda obj, **kw: shown.append((obj, kw)))
    ch01.glue_roadmap()
    ((bundle, kw),) = shown
    assert kw["metadata"]["scrapbook"]["name"] == "ch01-roadmap"
    md = bundle["application/papermill.record/text/markdown"]
    assert md == ch01.roadmap_markdown()


def test_cone_figure_draws_the_margin_and_the_arc(cone):
    ds, geo, _ = cone
    fig = ch01_figures.cone(ds.X, ds.y, geo)
    try:
        left, right = fig.axes
        assert left.get_title() == "data (planted_2d)"
        labels = [line.get_label() for line in right.get_lines()]
        assert "$\\rho_2=0.150$ (distance to the hull)" in labels
        # the orange segment is rho_2 long, in the direction of w*
        seg = next(ln for ln in right.get_lines() if ln.get_label().startswith("$\\rho_2"))
        end = np.array([seg.get_xdata()[1], seg.get_ydata()[1]])
        assert np.allclose(end, geo["rho2"] * geo["w_star"])
        # the green arc spans the separating directions
        arc = next(ln for ln in right.get_lines() if ln.get_label() == "separating directions $w$")
        angles = np.arctan2(arc.get_ydata(), arc.get_xdata())
        assert np.isclose(np.ptp(np.unwrap(angles)), geo["arc_width"])
    finally:
        plt.close(fig)


def test_circles_figure_draws_three_panels(circles):
    ds, cm, ks = circles
    fig = ch01_figures.circles(ds.X, ds.y, cm, ks, grid_res=20)
    try:
        assert len(fig.axes) == 3
        titles = [ax.get_title() for ax in fig.axes]
        assert titles[0] == f"circles: best line margin {cm['rho2_plane']:+.3f}"
        assert titles[2] == f"SNKP, RBF kernel: {ks['nit_snkp']} iterations"
        assert fig.axes[1].name == "3d"
        circle = fig.axes[2].get_lines()[0]
        r = np.hypot(circle.get_xdata() - cm["center"][0], circle.get_ydata() - cm["center"][1])
        assert np.allclose(r, cm["radius"])
    finally:
        plt.close(fig)


def test_alt_texts_are_those_of_the_chapter():
    import json

    from kperc_book.paths import BOOK_DIR

    nb = json.loads((BOOK_DIR / "ch01_introduction.ipynb").read_text())
    md = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert f":alt: {ch01_figures.CONE_ALT}\n" in md
    assert f":alt: {ch01_figures.CIRCLES_ALT}\n" in md

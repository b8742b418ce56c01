"""The functions behind the cells of ``book/ch06_primal_dual.ipynb``: sweep points,
verdicts (on a good table and on a spoiled one, so that each can fail), printed tables,
glued numbers and figures, on small instances."""

from __future__ import annotations

import json
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from kperc_book import data  # noqa: E402
from kperc_book.experiments import ch06, ch06_figures  # noqa: E402


def _verdict_shape(v):
    assert set(v) == {"ok", "detail", "instances"}
    ok, detail, instances = v["ok"], v["detail"], v["instances"]
    assert isinstance(ok, bool) and isinstance(detail, str) and isinstance(instances, int)
    return ok, detail, instances


# ----------------------------------------------------------------------------- Lemma 7


@pytest.fixture(scope="module")
def l7():
    pts = ch06.lemma7_points([-0.2, -0.05], [2], 1, 4, n=12)
    return ch06.lemma7_sweep(pts)


def test_lemma7_points():
    pts = ch06.lemma7_points([-0.3, -0.1], [2, 3], 2, 5)
    assert len(pts) == 2 * 2 * 2 + 2
    assert {p["kind"] for p in pts[:8]} == {"cap"} and {p["kind"] for p in pts[8:]} == {"edge"}
    assert all(p["n"] == 20 and p["n_q"] == 5 for p in pts)
    assert [p["d"] for p in pts[8:]] == [2, 3] and all(p["rho"] == 0.0 for p in pts[8:])


def test_lemma7_verdict_table_and_glue(l7):
    ok, detail, n = _verdict_shape(ch06.lemma7_verdict(l7))
    assert ok and n == 3 * 4
    assert f"for {n} centres on 3 inseparable instances" in detail
    table = ch06.lemma7_table(l7)
    assert "largest dist / bound" in table and "edge" in table and "cap" in table
    glued = {k: v for k, v, _ in ch06.lemma7_glue(l7)}
    assert glued == {
        "ch06_l7_n": 12,
        "ch06_l7_inst": 3,
        "ch06_l7_worst": l7["worst_ratio"].max(),
    }
    assert glued["ch06_l7_worst"] < 1


def test_lemma7_verdict_fails_on_a_violation(l7):
    bad = l7.copy()
    bad.at[0, "dist"] = bad.at[0, "bound"] * 1.01 + 1e-6
    assert not ch06.lemma7_verdict(bad)["ok"]
    bad = l7.copy()
    bad.at[0, "max_residual"] = 1e-6  # an unverified witness
    assert not ch06.lemma7_verdict(bad)["ok"]


def test_lemma7_figure(l7):
    fig = ch06_figures.lemma7(l7, [-0.2, -0.05])
    (ax,) = fig.axes
    assert len(ax.collections) == 2 and ax.get_xscale() == "log"
    plt.close(fig)


# ----------------------------------------------------------------------- Lemmas 8 and 9


@pytest.fixture(scope="module")
def sw():
    pts = ch06.sandwich_points(12, 2, [0.1], [-0.1], [1e-2], 1)
    return ch06.sandwich_sweep(pts)


def test_sandwich_points():
    pts = ch06.sandwich_points(30, 3, [0.2, 0.05], [-0.1], [1e-2, 1e-3], 2)
    assert len(pts) == 2 * 2 * 3 * 2 + 2 * 2 * 3 * 2
    assert sum(p["q_kind"] == "near-witness" for p in pts) == 2 * 2 * 2
    assert not any(p["kind"] == "planted" and p["q_kind"] == "near-witness" for p in pts)


def test_sandwich_verdicts(sw):
    ok8, detail8, n8 = _verdict_shape(ch06.lemma8_verdict(sw))
    ok9, detail9, n9 = _verdict_shape(ch06.lemma9_verdict(sw))
    assert ok8 and ok9
    assert n8 == int(sw["iterates"].sum()) and n9 < n8
    assert f"{len(sw)} SNKPVN runs (6 of them inseparable)" in detail8
    assert "of 6 inseparable runs" in detail9
    table = ch06.sandwich_table(sw)
    assert "L9 right, min" in table and "no W" in table and "NaN" not in table
    assert [k for k, _, _ in ch06.sandwich_glue(sw)] == ["ch06_sw_iterates", "ch06_sw_runs"]


def test_sandwich_verdicts_fail(sw):
    bad = sw.copy()
    bad.loc[bad.index[0], "lemma8_right"] = -1e-3
    assert not ch06.lemma8_verdict(bad)["ok"]
    inf = sw.index[sw["kind"] != "planted"]
    bad = sw.copy()
    bad.loc[inf[0], "lemma9_right"] = -1e-3
    assert ch06.lemma8_verdict(bad)["ok"] and not ch06.lemma9_verdict(bad)["ok"]


def test_sandwich_figure():
    fig = ch06_figures.sandwich(12, 2, 0.1, 1e-2)
    assert len(fig.axes) >= 2
    plt.close(fig)


# ---------------------------------------------------------------------- SNKPVN bounds


@pytest.fixture(scope="module")
def sn():
    pts = ch06.snkpvn_points(12, 2, [0.1], [0.5, 2.0], [-0.1], [1e-2], 1)
    return ch06.snkpvn_sweep(pts)


def test_snkpvn_points():
    pts = ch06.snkpvn_points(30, 3, [0.2], [0.1, 0.5], [-0.2, -0.02], [1e-1, 1e-2], 2)
    assert len(pts) == 2 * 3 * 2 + 3 * 2 * 4 * 2
    assert all("delta_rel" in p for p in pts)


def test_snkpvn_verdicts(sn):
    ok, detail, n = _verdict_shape(ch06.snkpvn_verdict(sn))
    assert ok and n == 6 and "whenever delta < rho (3 runs)" in detail
    ok, detail, n = _verdict_shape(ch06.snkpvn_infeasible_verdict(sn))
    assert ok and n == len(sn) - 6
    table = ch06.snkpvn_table(sn)
    assert "separable, delta < rho" in table and "inseparable" in table
    glued = {k: v for k, v, _ in ch06.snkpvn_glue(sn)}
    assert glued["ch06_sn_n"] == len(sn) and 0 < glued["ch06_sn_worst_f"] < 1


def test_snkpvn_verdicts_fail(sn):
    bad = sn.copy()
    bad.loc[bad.index[bad["kind"] == "planted"][0], "ok"] = False
    assert not ch06.snkpvn_verdict(bad)["ok"] and ch06.snkpvn_infeasible_verdict(bad)["ok"]
    bad = sn.copy()
    bad.loc[bad.index[bad["kind"] != "planted"][0], "ok"] = False
    assert ch06.snkpvn_verdict(bad)["ok"] and not ch06.snkpvn_infeasible_verdict(bad)["ok"]


def test_slides_order_text():
    demo = ch06.slides_order_demo(max_iter=50)
    text = ch06.slides_order_text(demo)
    assert "stopped by the cap\n  after 50 iterations" in text
    assert "certificate after 0 calls" in text
    assert max(len(line) for line in text.splitlines()) <= 90
    with pytest.raises(RuntimeError, match="cap"):
        ch06.slides_order_text({**demo, "slides_outcome": "certificate"})


# ----------------------------------------------------------------------------- ISNKPVN


@pytest.fixture(scope="module")
def isn():
    inf = ch06.isnkpvn_sweep(ch06.isnkpvn_inf_points(20, 2, [-0.1], [1e-1, 1e-2], 2.0, 1e-2))
    feas = ch06.isnkpvn_sweep(ch06.isnkpvn_feas_points(20, 3, [0.1, 0.05], 1, 2.0, 1e-4))
    moons = data.load("moons")
    k_sep = ch06.rbf_problem(moons.X[:30], moons.y[:30], gamma=2.0)
    k_dup = ch06.rbf_duplicate_problem(moons.X[:30], moons.y[:30], gamma=2.0)
    kern = ch06.isnkpvn_kernel(
        k_sep, k_dup, gamma=2.0, sep_eps=min(1e-4, k_sep.info["rho"] / 2), dup_eps=[1e-1, 1e-2],
        nvn_min_eps=1e-1,
    )  # fmt: skip
    return inf, feas, kern


def test_isnkpvn_points():
    pts = ch06.isnkpvn_inf_points(40, 2, [-0.1, -0.01], [1e-1, 1e-3, 1e-4], 2.0, 1e-3)
    assert len(pts) == 2 * 3 + 3
    assert [p["nvn"] for p in pts if p["kind"] == "edge"] == [True, True, False]
    pts = ch06.isnkpvn_feas_points(40, 5, [0.1, 0.05], 3, 2.0, 1e-4)
    assert len(pts) == 6 and all(p["kind"] == "planted" and p["nvn"] for p in pts)


def test_isnkpvn_kernel_table(isn):
    _, _, kern = isn
    assert list(kern["kind"]) == ["moons-rbf", "moons-rbf-duplicate", "moons-rbf-duplicate"]
    assert list(kern["outcome"]) == ["separator", "certificate", "certificate"]
    assert kern["nvn_nit"].notna().tolist() == [True, True, False]


def test_isnkpvn_verdict_tables_and_glue(isn):
    inf, feas, kern = isn
    ok, detail, n = _verdict_shape(ch06.isnkpvn_verdict(inf, feas, kern))
    assert ok and n == len(inf) + len(feas) + len(kern) == 9
    assert "(3 separators with G alpha > 0, 6 certificates" in detail
    text = ch06.isnkpvn_tables(inf, feas, kern)
    runs, medians = text.split("\n\n")
    assert len(runs.splitlines()) == 1 + len(inf) + len(kern)
    head = runs.splitlines()[0]
    assert all(h in head for h in ch06.ISNKPVN_COLUMNS.values()) and "_" not in head
    assert "NaN" not in text and "ISNKPVN" in medians and "NVN bound" in medians
    glued = {
        k: v
        for k, v, _ in ch06.isnkpvn_glue(
            inf, feas, kern, nvn_min_eps=1e-3, moons_rho=0.09, n_moons=31
        )
    }
    assert glued["ch06_isn_runs"] == 9 and glued["ch06_n_moons"] == 31
    assert glued["ch06_nvn_min_eps"] == 1e-3 and 0 < glued["ch06_isn_call_worst"] < 1


def test_isnkpvn_verdict_fails(isn):
    inf, feas, kern = isn
    bad = feas.copy()
    bad.loc[bad.index[0], "ok"] = False
    assert not ch06.isnkpvn_verdict(inf, bad, kern)["ok"]
    bad = kern.copy()
    bad.loc[bad.index[1], "nvn_ok"] = False
    with pytest.raises(RuntimeError, match="NVN"):
        ch06.isnkpvn_verdict(inf, feas, bad)


def test_feasible_medians_and_vs_nvn_glue(isn):
    inf, feas, kern = isn
    agg = ch06.feasible_medians(feas)
    assert list(agg["rho"]) == [0.05, 0.1]
    assert (agg["nit"] < agg["total_bound"]).all() and (agg["nvn"] <= agg["nvn_bound"]).all()
    glued = {
        k: v
        for k, v, _ in ch06.vs_nvn_glue(inf, feas, kern, cap_rhos=[-0.1], eps_grid=[1e-1, 1e-2])
    }
    edge = inf[(inf["kind"] == "edge") & (inf["eps"] == 1e-2)].iloc[0]
    assert glued["ch06_edge_eps"] == 1e-2
    assert glued["ch06_edge_ratio"] == pytest.approx(edge["nvn_nit"] / edge["nit"])
    assert glued["ch06_kdup_eps"] == 1e-1  # NVN ran only down to 1e-1 on the kernel problem
    assert glued["ch06_cap_rho"] == glued["ch06_cap2_rho"] == -0.1
    assert glued["ch06_feas_rho"] == 0.05
    assert glued["ch06_slope_nvn_eps"] == pytest.approx(
        math.log(
            edge["nvn_nit"] / inf[(inf["kind"] == "edge") & (inf["eps"] == 1e-1)].iloc[0]["nvn_nit"]
        )
        / math.log(10)
    )


def test_isnkpvn_figures(isn):
    inf, feas, kern = isn
    fig = ch06_figures.outer_loops(
        inf, feas, kern, cap_rhos=[-0.1], feas_rhos=[0.1, 0.05], eps_grid=[1e-1, 1e-2], gamma=2.0
    )
    (ax,) = fig.axes
    assert len(ax.lines) == 5 + 2  # five runs, gamma^-t and the eps line
    plt.close(fig)
    fig = ch06_figures.vs_nvn(inf, feas, kern, cap_rhos=[-0.1], feas_n=20, feas_d=3)
    assert len(fig.axes) == 3
    plt.close(fig)


# ------------------------------------------------------------------------------- gamma


def test_gamma_points():
    pts = ch06.gamma_points(
        isn_n=40, isn_d=2, cap_rho=-0.01, feas_n=40, feas_d=5, feas_rho=0.005,
        gammas=[1.5, 2.0, 4.0], eps=1e-3, feas_eps=1e-4, n_seeds=2,
    )  # fmt: skip
    assert len(pts) == 3 * 2 * 3
    assert not any(p["nvn"] for p in pts)
    assert {p["eps"] for p in pts if p["kind"] == "planted"} == {1e-4}


def _gamma_agg():
    rows = []
    for kind, nits in {"cap": [30, 20, 25], "edge": [40, 10, 20], "planted": [5, 6, 4]}.items():
        for g, nit in zip([1.5, 2.0, 4.0], nits, strict=True):
            rows.append(dict(kind=kind, rho=0.0, gamma=g, nit=float(nit), nouter=1.0, bound=99.0))
    return pd.DataFrame(rows)


def test_gamma_glue_and_table():
    agg = _gamma_agg()
    glued = {k: v for k, v, _ in ch06.gamma_glue(agg, gamma=2.0, runs=18)}
    assert glued["ch06_gamma_best_cap"] == 2.0
    assert glued["ch06_gamma_best_edge"] == 2.0
    assert glued["ch06_gamma_best_planted"] == 4.0
    assert glued["ch06_gamma_spread"] == pytest.approx(4.0)
    assert glued["ch06_gamma_default_ratio"] == pytest.approx(6 / 4)
    assert glued["ch06_gamma_runs"] == 18
    table = ch06.gamma_table(agg).splitlines()
    assert table[0].split() == ["kind", "cap", "edge", "planted"] and len(table) == 2 + 3


def test_gamma_means_and_figure():
    pts = ch06.gamma_points(
        isn_n=16, isn_d=2, cap_rho=-0.1, feas_n=16, feas_d=3, feas_rho=0.05,
        gammas=[2.0, 4.0], eps=1e-2, feas_eps=1e-3, n_seeds=1,
    )  # fmt: skip
    gam = ch06.isnkpvn_sweep(pts)
    agg = ch06.gamma_means(gam)
    assert len(agg) == 3 * 2 and (agg["nit"] < agg["bound"]).all()
    fig = ch06_figures.gamma_choice(agg, gammas=[2.0, 4.0], cap_rho=-0.1, feas_rho=0.05, eps=1e-2)
    assert len(fig.axes) == 2
    plt.close(fig)
    bad = gam.copy()
    bad.loc[bad.index[0], "ok"] = False
    with pytest.raises(RuntimeError, match="failed their checks"):
        ch06.gamma_means(bad)


def test_gamma_bound_exercise():
    lines = ch06.gamma_bound_exercise(100, 1e-6, -0.1, 1.0).splitlines()
    assert lines[0].startswith("gamma = 2: bound / smallest bound = 1.0")
    assert lines[1].startswith("gamma = 10: bound / smallest bound = 1.")
    best = float(lines[2].split("gamma = ")[1].split()[0])
    assert 2 < best < 4 and abs(best - math.e) < 0.5
    # margin 0: the total is 2 sqrt(2n) gamma^2 / ((gamma - 1) eps), smallest at gamma = 2
    with pytest.raises(RuntimeError, match="smallest at gamma = 2.00"):
        ch06.gamma_bound_exercise(100, 1e-6, 0.0, 1.0)
    # separable: the bound only improves as gamma grows, so the claim fails
    with pytest.raises(RuntimeError, match="far from e"):
        ch06.gamma_bound_exercise(100, 1e-3, 0.1, 1.0)


# ------------------------------------------------------------------------------- glue


def test_glue_all_records_every_number(tmp_path, monkeypatch):
    from kperc_book.chapter import STAGING_ENV, Chapter

    monkeypatch.setenv(STAGING_ENV, str(tmp_path))
    ch = Chapter("ch42")
    ch06.glue_all(ch, [("a", 0.123456, 3), ("b", np.int64(7), 4), ("c", 2.0, 3)])
    record = json.loads((tmp_path / "_generated" / "ch42.json").read_text())
    assert record["glue"] == {"a": 0.123, "b": 7, "c": 2.0}


def test_verdicts_are_chapter_check_arguments(tmp_path, monkeypatch, sn):
    from kperc_book.chapter import STAGING_ENV, Chapter

    monkeypatch.setenv(STAGING_ENV, str(tmp_path))
    ch = Chapter("ch42")
    assert ch.check("snkpvn-bound", **ch06.snkpvn_verdict(sn))
    assert ch.checks["snkpvn-bound"]["instances"] == 6
    bad = sn.copy()
    bad["ok"] = False
    with pytest.raises(AssertionError, match="snkpvn-infeasible-bound"):
        ch.check("snkpvn-infeasible-bound", **ch06.snkpvn_infeasible_verdict(bad))

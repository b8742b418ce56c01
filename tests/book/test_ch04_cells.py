"""Tests of what chapter 4's notebook cells call: its tables, printed reports, verdicts,
glued values and figures (``kperc_book.experiments.ch04`` and ``ch04_figures``).

Small sweeps (seconds); every verdict is tried on a good result and on a spoiled copy, and
every error the notebook relies on (in place of its former ``assert`` lines) is raised.
"""

from __future__ import annotations

import copy
import json

import matplotlib
import numpy as np
import pytest

from kperc_book import data
from kperc_book.chapter import STAGING_ENV, Chapter
from kperc_book.experiments import ch04, ch04_figures

matplotlib.use("Agg")


@pytest.fixture
def chapter(tmp_path, monkeypatch):
    """A real :class:`Chapter` writing its record to a temporary staging folder."""
    monkeypatch.setenv(STAGING_ENV, str(tmp_path))
    return Chapter("ch42")


@pytest.fixture(scope="module")
def chk():
    return ch04.check_sandwich(range(3), [0], real=("circles-rbf",), extra=30)


@pytest.fixture(scope="module")
def rows():
    return ch04.rate_sweep([0.05, 0.02, 0.01], [0, 1], n=60, d=8)


@pytest.fixture(scope="module")
def nrows():
    return ch04.n_sweep([10, 100], [0, 1], rho=0.05)


@pytest.fixture(scope="module")
def real():
    return ch04.real_data_iterations()


@pytest.fixture(scope="module")
def bad():
    return ch04.mu0_search(1.0, range(20))


# ---------------------------------------------------------------------------------------
# Glue plumbing and parameters
# ---------------------------------------------------------------------------------------
def test_glue_all_records_every_number(chapter, tmp_path):
    ch04.glue_all(chapter, [("a", 0.123456, 3), ("b", np.int64(7), 4), ("c", "x y", 4)])
    record = json.loads((tmp_path / "_generated" / "ch42.json").read_text())
    assert record["glue"] == {"a": 0.123, "b": 7, "c": "x y"}


def test_real_datasets_and_parameter_glue():
    assert ch04.real_datasets(("circles-rbf", "xor-poly")) == ("circles", "xor")
    assert ch04.real_datasets() == tuple(data.PROBLEMS[p][0] for p in ch04.REAL_PROBLEMS)
    assert len(set(ch04.real_datasets())) == len(ch04.REAL_PROBLEMS)
    items = ch04.parameter_glue(
        sandwich_extra=200, near_width=0.2, rho_fit_max=0.03, n_points=300, rho_n=0.01
    )
    assert {k: v for k, v, _ in items} == {
        "ch04_sandwich_extra": 200,
        "ch04_near_width": 0.2,
        "ch04_rho_fit_max": 0.03,
        "ch04_n_points": 300,
        "ch04_rho_n": 0.01,
    }


# ---------------------------------------------------------------------------------------
# Lemmas 4 and 5, mu_k
# ---------------------------------------------------------------------------------------
def test_sandwich_report_and_glue(chk):
    lines = ch04.sandwich_report(chk).splitlines()
    assert lines[0] == f"{chk['instances']} runs, {chk['iterates']} iterates"
    assert f"{chk['min_slack4']:.3e}" in lines[1] and "Lemma 4" in lines[1]
    assert f"{chk['min_slack5']:.3e}" in lines[2] and "Lemma 5" in lines[2]
    assert f"{chk['min_slack_wd']:.3e}" in lines[3]
    assert lines[4].endswith("<= 1e-12")
    sw = ch04.snkp_sandwich(data.problem("circles-rbf")[0], extra=5)
    glued = {k: v for k, v, _ in ch04.sandwich_glue(chk, sw)}
    assert glued == {
        "ch04_sw_runs": chk["instances"],
        "ch04_sw_iterates": chk["iterates"],
        "ch04_sw_halt": sw["halt"],
        "ch04_mu_err": "1e-12",
    }


def test_sandwich_report_raises_when_mu_strays(chk):
    spoiled = dict(chk, max_mu_rel_err=1e-9)
    with pytest.raises(AssertionError, match="exceeds its stated bound"):
        ch04.sandwich_report(spoiled)


@pytest.mark.parametrize(
    ("verdict", "flag", "rid"),
    [
        (ch04.lemma4_verdict, "ok4", "lemma-4"),
        (ch04.lemma5_verdict, "ok5", "lemma-5"),
        (ch04.mu_verdict, "ok_mu", "mu-closed-form"),
    ],
)
def test_sandwich_verdicts_pass_and_fail(chapter, chk, verdict, flag, rid):
    good = verdict(chk)
    assert good["ok"] is True and good["instances"] == chk["instances"]
    assert str(chk["iterates"]) in good["detail"]
    assert chapter.check(rid, **good)
    assert chapter.checks[rid]["instances"] == chk["instances"]
    spoiled = verdict(dict(chk, **{flag: False}))
    assert spoiled["ok"] is False
    with pytest.raises(AssertionError, match=rid):
        chapter.check(rid, **spoiled)


def test_mu0_report_glue_and_outcome(bad):
    lines = ch04.mu0_report(bad).splitlines()
    assert lines[0].startswith(f"first violating instance: seed {bad['seed']} (n = {bad['n']}")
    assert lines[1].startswith("  found after trying 1 instance")
    assert f"at {bad['violations']} of 101 iterates" in lines[2]  # max_iter = 100: k = 0..100
    assert f"{bad['slack_mu2_min']:.3e}" in lines[3]
    glued = {k: (v, d) for k, v, d in ch04.mu0_glue(bad)}
    assert glued["ch04_mu0_k"] == (bad["k"], 4) and glued["ch04_mu0_viol"][1] == 2
    assert ch04.mu0_outcome(1.0, bad, searched=20).startswith(
        f"mu0 = 1: Lemma 5 fails on instance {bad['seed']} first at k = {bad['k']}"
    )
    assert ch04.mu0_outcome(1.5, None, searched=200) == (
        "mu0 = 1.5: no violation of Lemma 5 on the 200 instances searched"
    )


def test_mu0_report_raises_without_a_violation():
    none = ch04.mu0_search(2.0, range(2))
    assert none is None
    with pytest.raises(ValueError, match="no instance"):
        ch04.mu0_report(none)
    with pytest.raises(ValueError, match="no instance"):
        ch04.mu0_glue(none)


def test_mu_recursion_agreement():
    mu = [2.0]
    for j in range(199):
        mu.append((1 - 2 / (j + 3)) * mu[-1])
    assert ch04.mu_recursion_agreement(mu) == "< 1e-12"
    wrong = [m * (1 + 1e-9) for m in mu]
    with pytest.raises(AssertionError, match="differ by a relative"):
        ch04.mu_recursion_agreement(wrong)
    # a recursion from mu_0 = 1 matches the closed form with mu0 = 1 only
    half = [m / 2 for m in mu]
    assert ch04.mu_recursion_agreement(half, mu0=1.0) == "< 1e-12"
    with pytest.raises(AssertionError):
        ch04.mu_recursion_agreement(half)


# ---------------------------------------------------------------------------------------
# Rates against the margin
# ---------------------------------------------------------------------------------------
def test_margin_grid():
    g = ch04.margin_grid(0.1, 1e-3, 3)
    np.testing.assert_allclose(g, [0.1, 0.01, 1e-3])
    assert g[0] > g[-1]


def test_rates_table_report_and_glue(rows):
    summ = ch04.summarize_rates(rows)
    slopes = ch04.fit_slopes(rows, rho_max=0.03)
    tab = ch04.rates_table(summ)
    assert list(tab.index) == ["5.00e-02", "2.00e-02", "1.00e-02"]
    assert list(tab["NKP"]) == [int(v) for v in summ["nkp_median"]]
    assert list(tab["NKP bound"]) == ["400", "2500", "10000"]
    lines = ch04.rates_report(summ, slopes, 0.03).splitlines()
    assert lines[-3] == "fitted slope of log(halting index) against log(1/rho), rho <= 0.03:"
    assert lines[-2] == (
        f"  Perceptron {slopes['perceptron']:.3f}, NKP {slopes['nkp']:.3f}, "
        f"SNKP {slopes['snkp']:.3f}"
    )
    assert lines[-1].startswith("largest ratio of halting index to bound: Perceptron ")
    assert max(map(len, lines)) <= 90 and "_" not in "".join(lines)
    glued = {k: v for k, v, _ in ch04.rates_glue(rows, summ, slopes)}
    assert glued["ch04_slope_gap"] == pytest.approx(slopes["nkp"] - slopes["snkp"])
    assert glued["ch04_rate_runs"] == len(rows) == 6
    assert glued["ch04_rho_min"] == 0.01
    nkp, snkp = summ["nkp_median"][-1], summ["snkp_median"][-1]
    assert glued["ch04_iter_ratio"] == round(nkp / snkp)
    assert glued["ch04_work_ratio"] == pytest.approx(nkp / (snkp * 60))


def test_rates_glue_raises_on_a_bad_sweep(rows):
    summ = ch04.summarize_rates(rows)
    slopes = ch04.fit_slopes(rows, rho_max=0.03)
    with pytest.raises(ValueError, match="slope exceeds SNKP's by"):
        ch04.rates_glue(rows, summ, dict(slopes, snkp=slopes["nkp"] - 0.4))
    over = copy.deepcopy(rows)
    over[0]["nit_snkp"] = int(over[0]["bound_snkp"]) + 1
    with pytest.raises(ValueError, match="exceeded its bound"):
        ch04.rates_glue(over, ch04.summarize_rates(over), slopes)
    unsep = copy.deepcopy(rows)
    unsep[-1]["separated"] = False
    with pytest.raises(ValueError, match="did not separate"):
        ch04.rates_glue(unsep, summ, slopes)


# ---------------------------------------------------------------------------------------
# Dependence on n
# ---------------------------------------------------------------------------------------
def test_n_table_report_and_glue(nrows):
    agg = ch04.n_table(nrows)
    assert list(zip(agg["family"], agg["n"], strict=True)) == [
        ("crowded", 10),
        ("crowded", 100),
        ("planted", 10),
        ("planted", 100),
    ]
    pl10 = [r["nit_snkp"] for r in nrows if r["family"] == "planted" and r["n"] == 10]
    row = agg[(agg["family"] == "planted") & (agg["n"] == 10)].iloc[0]
    assert (row["snkp_med"], row["snkp_min"], row["snkp_max"]) == (
        np.median(pl10),
        min(pl10),
        max(pl10),
    )
    per_sqrt, per_log = ch04.crowded_scaling(agg)
    cr = agg[agg["family"] == "crowded"]
    np.testing.assert_allclose(per_sqrt, cr["snkp_med"] / np.sqrt(np.log([10, 100])))
    np.testing.assert_allclose(per_log, cr["snkp_med"] / np.log([10, 100]))
    lines = ch04.n_report(agg).splitlines()
    assert lines[0].split() == "family n SNKP median min max NKP median SNKP bound".split()
    assert lines[-2] == "NKP on the crowded family: the points in a random order"
    assert lines[-1].startswith(f"crowded: SNKP's K / sqrt(log n) from {per_sqrt.min():.1f} to ")
    # the crowded family's NKP column is the shuffled one, not the stored order's 2 updates
    shuffled = [r["nit_nkp"] for r in nrows if r["family"] == "crowded" and r["n"] == 100]
    assert cr["nkp_med"].iloc[-1] == np.median(shuffled)
    assert all(r["nit_nkp_stored"] == 2 for r in nrows if r["family"] == "crowded")
    perm = ch04.crowded_nkp_permuted([10, 100], [0], rho=0.05)
    glued = {k: v for k, v, _ in ch04.n_glue(agg, perm)}
    assert glued["ch04_n_max"] == 100
    assert glued["ch04_cr_nkp_perm"] == int(perm["median"])
    assert glued["ch04_cr_sqrt_spread"] == pytest.approx(per_sqrt.max() / per_sqrt.min())
    pl = agg[agg["family"] == "planted"]
    assert glued["ch04_pl_peak"] == int(pl["snkp_med"].max())
    assert glued["ch04_cr_nkp"] == int(cr["nkp_stored_max"].max()) == 2


def test_n_glue_raises_when_nkp_fails(nrows):
    agg = ch04.n_table(nrows)
    with pytest.raises(ValueError, match="did not separate"):
        ch04.n_glue(agg, {"nit": [3], "median": 3.0, "separated": False})


# ---------------------------------------------------------------------------------------
# Real data, Theorem 1, timings
# ---------------------------------------------------------------------------------------
def test_real_data_table(real):
    tab = ch04.real_data_table(real)
    assert list(tab.index) == list(ch04.REAL_PROBLEMS)
    assert list(tab["SNKP iterations"]) == [r["nit_snkp"] for r in real]
    assert tab.loc["circles-rbf", "margin"] == f"{real[2]['rho_K']:.4f}"


def test_real_data_table_raises_when_the_stated_speedups_fail(real):
    slow = copy.deepcopy(real)
    slow[2]["nit_snkp"] = slow[2]["nit_nkp"]
    with pytest.raises(ValueError, match="no fewer iterations"):
        ch04.real_data_table(slow)
    xor = next(i for i, r in enumerate(real) if r["problem"] == "xor-poly")
    lazy = copy.deepcopy(real)
    lazy[xor]["nit_snkp"] = lazy[xor]["nit_nkp"] // 3 + 1
    with pytest.raises(ValueError, match="three times fewer"):
        ch04.real_data_table(lazy)


def test_theorem1_verdict_and_glue(chapter, rows, nrows, chk):
    real = ch04.real_data_iterations(("circles-rbf", "xor-poly"))
    v = ch04.theorem1_verdict(rows, nrows, chk["rows"], real)
    total = len(rows) + len(nrows) + len(chk["rows"]) + len(real)
    assert v["ok"] is True and v["instances"] == total
    assert chapter.check("theorem-1", **v)
    glued = dict((k, val) for k, val, _ in ch04.theorem1_glue(rows, nrows, chk["rows"], real))
    assert glued["ch04_thm1_runs"] == total
    assert 0 < glued["ch04_thm1_ratio"] < 1
    assert f"{glued['ch04_thm1_ratio']:.3f}" in v["detail"]

    broken = copy.deepcopy(nrows)
    broken[0]["theorem1"] = False
    bad_v = ch04.theorem1_verdict(rows, broken, chk["rows"], real)
    assert bad_v["ok"] is False
    with pytest.raises(AssertionError, match="theorem-1"):
        chapter.check("theorem-1", **bad_v)
    unsep = copy.deepcopy(rows)
    unsep[0]["separated"] = False
    assert not ch04.theorem1_verdict(unsep, nrows, chk["rows"], real)["ok"]
    over = copy.deepcopy(real)
    over[0]["nit_nkp"] = int(over[0]["bound_nkp"]) + 1
    assert not ch04.theorem1_verdict(rows, nrows, chk["rows"], over)["ok"]


def test_timings_table_report_and_glue(real):
    tim = ch04.read_timings()
    wide = ch04.timings_table(tim, real)
    assert list(wide.index) == [r["problem"] for r in real]
    first = next(r for r in tim["rows"] if r["problem"] == "circles-rbf" and r["method"] == "snkp")
    assert wide.loc["circles-rbf", "snkp"] == pytest.approx(first["seconds_median"] * 1e3)
    lines = ch04.timings_report(tim, real).splitlines()
    assert lines[0] == f"measured {tim['date']}, {tim['rows'][0]['repeats']} repeats,"
    assert lines[1].startswith(f"  on {tim['machine']['platform']} (")
    assert "SNKP / NKP" in lines[2] and max(map(len, lines)) <= 90
    glued = {k: v for k, v, _ in ch04.timings_glue(tim, real)}
    ratio = wide["snkp"] / wide["nkp"]
    assert glued["ch04_tim_date"] == tim["date"][:10]
    assert glued["ch04_tim_ratio_min"] == pytest.approx(ratio.min())
    assert glued["ch04_tim_ratio_max"] == pytest.approx(ratio.max())


def test_timings_table_raises_when_stale(real):
    tim = copy.deepcopy(ch04.read_timings())
    tim["rows"][0]["nit"] += 1
    with pytest.raises(ValueError, match="stale"):
        ch04.timings_table(tim, real)


# ---------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------
def test_figures_draw(rows, nrows, real, bad):
    import matplotlib.pyplot as plt

    G = data.problem("circles-rbf")[0]
    sw = ch04.snkp_sandwich(G, extra=10)
    fig = ch04_figures.sandwich(sw, 0.16, bad)
    assert len(fig.axes) == 3
    assert f"seed {bad['seed']}" in fig.axes[2].get_title()
    plt.close(fig)

    summ = ch04.summarize_rates(rows)
    slopes = ch04.fit_slopes(rows, rho_max=0.03)
    fig = ch04_figures.rates(summ, slopes, rho_fit_max=0.03, n_points=60, dim=8, n_seeds=2)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert f"SNKP: slope {slopes['snkp']:.2f}" in labels
    plt.close(fig)

    fig = ch04_figures.n_dependence(ch04.n_table(nrows), [10, 100], 0.05)
    assert len(fig.axes) == 2 and fig.axes[0].get_title() == "SNKP, $\\rho$ = 0.05"
    plt.close(fig)

    fig = ch04_figures.realdata(real, ch04.read_timings())
    assert len(fig.axes) == 2
    plt.close(fig)
    assert set(ch04_figures.ALT) == {"sandwich", "rates", "n-dependence", "realdata"}

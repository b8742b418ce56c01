"""What the Chapter 5 notebook shows, computed by kperc_book.experiments.ch05 (and drawn by
ch05_figures): its verdicts (each must pass on real sweeps and fail on a broken table),
printed tables and texts, quoted numbers and figures, on small seeded instances.
"""

from __future__ import annotations

import inspect

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from kperc_book import data  # noqa: E402
from kperc_book.chapter import Chapter  # noqa: E402
from kperc_book.experiments import ch05, ch05_figures  # noqa: E402


def _binds_to_check(verdict: dict) -> None:
    """The verdict is exactly the keyword arguments of Chapter.check after the id."""
    inspect.signature(Chapter.check).bind(None, "gordan", **verdict)
    assert set(verdict) == {"ok", "detail", "instances"}
    assert isinstance(verdict["ok"], bool) and isinstance(verdict["instances"], int)


# ----------------------------------------------------------------------------- Gordan


@pytest.fixture(scope="module")
def gordan():
    return ch05.gordan_sweep(["planted", "cap", "edge", "gauss"], range(2), n=20, d=(2, 3))


def test_gordan_verdict_holds_on_a_sweep(gordan):
    v = ch05.gordan_verdict(gordan)
    _binds_to_check(v)
    assert v["ok"] and v["instances"] == len(gordan) == 16
    sep, cert = int(gordan["separator"].sum()), int(gordan["certificate"].sum())
    assert sep + cert == 16 and sep >= 4 and cert >= 8  # planted separable; cap, edge not
    assert v["detail"].endswith(f"on 16 linear instances; separable {sep}, certified {cert}")


@pytest.mark.parametrize("column", ["exactly_one", "dual_gap_ok"])
def test_gordan_verdict_fails_on_a_broken_row(gordan, column):
    bad = gordan.copy()
    bad.loc[3, column] = False
    assert not ch05.gordan_verdict(bad)["ok"]
    assert not ch05.gordan_verdict(gordan.iloc[:0])["ok"]  # nothing checked: no verdict


def test_gordan_table_and_numbers(gordan):
    lines = ch05.gordan_table(gordan).splitlines()
    assert (
        lines[0].split()
        == "instances separator certificate smallest LP value smallest ||Ap||".split()
    )
    rows = {ln.split()[0]: ln.split()[1:] for ln in lines[2:]}
    assert rows["planted"][:3] == ["4", "4", "0"]
    assert float(rows["planted"][3]) >= 0.1  # a unit w with margin 0.1 lies in the box
    assert rows["cap"] == ["4", "0", "4", "0", "0"]  # round-off shown as an exact 0
    nums = ch05.gordan_numbers(gordan)
    assert nums["n"] == 16 and nums["gauss_n"] == 4
    assert nums["gauss_separable"] == int(rows["gauss"][1])


# ------------------------------------------------------------------------- Theorem 2


@pytest.fixture(scope="module")
def kernel_problems():
    examples = ch05.kernel_examples(seed=0)
    kern = ch05.kernel_gordan_sweep(["rbf", "rbf-dup", "quadratic"], [6, 8], [0, 1])
    return kern, examples


def test_theorem2_verdict_holds_and_fails(kernel_problems):
    kern, examples = kernel_problems
    v = ch05.theorem2_verdict(kern, examples)
    _binds_to_check(v)
    assert v["ok"] and v["instances"] == len(kern) + len(examples) == 17
    assert v["detail"].startswith("exactly one alternative (G alpha > 0 xor ||p||_G = 0) on 17")
    rbf = kern.index[kern["kind"] == "rbf"][0]
    dup = kern.index[kern["kind"] == "rbf-dup"][0]
    for row, column, value in [
        (rbf, "lambda_min", -1e-3),
        (rbf, "inverse_separator", False),
        (dup, "certificate", False),
        (dup, "exactly_one", False),
    ]:
        bad = kern.copy()
        bad.loc[row, column] = value
        assert not ch05.theorem2_verdict(bad, examples)["ok"], column
    bad_ex = examples.copy()
    bad_ex.loc[0, "exactly_one"] = False
    assert not ch05.theorem2_verdict(kern, bad_ex)["ok"]


def test_kernel_tables_and_numbers(kernel_problems):
    kern, examples = kernel_problems
    lines = ch05.kernel_examples_table(examples).splitlines()
    head = "example n rank min eig LP value min ||p||_G separable certified margin"
    assert lines[0].split() == head.split() and len(lines) == 6
    assert max(map(len, lines)) <= 90 and "True" not in lines[1] + lines[2]
    dup = next(ln.split() for ln in lines if ln.split()[0] == "rbf-duplicate")
    assert dup[3:6] == ["0", "0", "0"]  # lambda_min, lp value, ||p||_G: exact zeros
    summary = ch05.kernel_sweep_table(kern).splitlines()
    assert summary[0].split() == ["separable", "certified", "largest", "rank"]
    assert len(summary) == 2 + 3 * 2
    nums = ch05.kernel_numbers(kern, examples)
    ex = examples.set_index("example")
    assert nums["rbf_lmin"] == ex.loc["rbf-distinct", "lambda_min"] > 0
    assert nums["quad_rho"] < 0 < nums["xor_rho"] and nums["lin_rho"] < 0
    assert nums["rbf_min_lmin"] == kern.loc[kern["kind"] == "rbf", "lambda_min"].min() > 0
    assert nums["n"] == 17


# ------------------------------------------------------------------------ NVN paths


def test_nvn_path_expect_and_text():
    inf = data.load("infeasible_2d")
    feas = data.planted(20, 2, 0.1, near=0.5, seed=0)
    p_inf = ch05.nvn_path(inf.X, inf.y, eps=1e-3, expect="certificate")
    p_feas = ch05.nvn_path(feas.X, feas.y, eps=1e-3, expect="separator")
    text = ch05.path_text(p_inf, "inf").splitlines()
    norm = np.linalg.norm(p_inf["A"].T @ p_inf["p"])
    assert text == [
        f"inf: certificate after {p_inf['nit']} iterations,",
        f"  ||A p|| = {norm:.3g} <= eps = 0.001, p in the simplex",
    ]
    margin = (p_feas["A"] @ p_feas["w"]).min()
    assert margin > 0
    assert ch05.path_text(p_feas, "feas").endswith(f"min_i a_i^T w = {margin:.3g} > 0")
    with pytest.raises(AssertionError, match="expected to return a verified separator"):
        ch05.nvn_path(inf.X, inf.y, eps=1e-3, expect="separator")
    with pytest.raises(AssertionError, match="verified certificate"):
        ch05.nvn_path(feas.X, feas.y, eps=1e-3, expect="certificate")
    with pytest.raises(ValueError, match="expect"):
        ch05.nvn_path(feas.X, feas.y, eps=1e-3, expect="max_iter")
    with pytest.raises(ValueError, match="no certificate or separator"):
        ch05.path_text({**p_feas, "outcome": "max_iter"}, "feas")


def test_stall_text_checks_the_stall():
    feas = data.planted(20, 2, 0.1, near=0.5, seed=0)
    stall = ch05.no_primal_exit(feas.X, feas.y, eps=1e-3, max_iter=300)
    text = ch05.stall_text(stall)
    assert "without the primal exit: stopped by the cap after 300 iterations" in text
    assert f"first holds at k = {stall['first_separating']};" in text
    assert "(never <= eps = 0.001)" in text
    with pytest.raises(AssertionError, match="did not stall"):
        ch05.stall_text({**stall, "outcome": "certificate"})
    with pytest.raises(AssertionError, match="did not stall"):
        ch05.stall_text({**stall, "final_norm": stall["rho"] - 1e-6})


# ------------------------------------------------------------------------------ rates


@pytest.fixture(scope="module")
def rate_sweeps():
    rate = ch05.nvn_sweep(
        ch05.rate_points(
            [-0.3],
            [2],
            [0, 1],
            n=20,
            edge_eps=3e-2,
            planted_rhos=[0.2, 0.1],
            planted_seeds=[0],
            planted_d=2,
        )
    )
    epsrun = ch05.nvn_sweep(ch05.eps_points([-0.3, -0.1], [1e-1, 1e-2, 1e-3], n=20))
    return rate, epsrun


def test_rate_verdicts_hold(rate_sweeps):
    rate, epsrun = rate_sweeps
    c = ch05.rate_checks(rate, epsrun)
    assert c["n_runs"] == len(rate) + len(epsrun)
    assert c["linear_checked"] == int(rate["linear_checked"].sum() + epsrun["linear_checked"].sum())
    assert ch05.cross_check_text(c).startswith(
        f"kernel and linear forms agree on all {c['linear_checked']} runs"
    )
    for fn, n in [
        (ch05.dantzig_verdict, c["n_runs"]),
        (ch05.ef_primal_verdict, 2),
        (ch05.ef_dual_verdict, 2 + 2 * 3),
    ]:
        v = fn(c)
        _binds_to_check(v)
        assert v["ok"] and v["instances"] == n, fn.__name__
    assert f"worst {c['dantzig_worst']:.3g}" in ch05.dantzig_verdict(c)["detail"]


def test_rate_verdicts_fail_on_broken_runs(rate_sweeps):
    rate, epsrun = rate_sweeps
    bad = rate.copy()
    bad["nit"] = bad["nit"].astype(float)
    neg = bad["rho_exact"] < 0
    bad.loc[neg, "nit"] = bad.loc[neg, "ef_dual_bound"] + 1
    assert not ch05.ef_dual_verdict(ch05.rate_checks(bad, epsrun))["ok"]
    bad = rate.copy()
    bad.loc[bad["rho_exact"] > 0, "nit"] = 10**6
    assert not ch05.ef_primal_verdict(ch05.rate_checks(bad, epsrun))["ok"]
    bad = rate.copy()
    bad.loc[0, "dantzig_ratio"] = 1.01
    assert not ch05.dantzig_verdict(ch05.rate_checks(bad, epsrun))["ok"]
    bad = rate.copy()
    bad["certificate_ok"] = bad["separator_ok"] = False
    with pytest.raises(AssertionError, match="failed verification"):
        ch05.rate_checks(bad, epsrun)
    no_planted = rate[rate["kind"] != "planted"]
    assert not ch05.ef_primal_verdict(ch05.rate_checks(no_planted, epsrun))["ok"]


def test_rate_table_traces_and_numbers(rate_sweeps):
    rate, epsrun = rate_sweeps
    lines = ch05.rate_table(rate).splitlines()
    assert lines[0].split() == "runs median K largest K bound K / bound".split()
    assert len(lines) == 2 + 4  # cap -0.3, edge 0, planted 0.1 and 0.2
    traces = ch05.rate_traces(epsrun)
    assert set(traces) == {("cap", -0.3), ("cap", -0.1), ("edge", 0.0)}
    assert all(sq.ndim == 1 and sq.size >= 1 for sq in traces.values())
    assert ch05.rate_traces(rate) == {}  # no traced run: none taken for one
    nums = ch05.rate_numbers(epsrun, [-0.3, -0.1])
    cap = epsrun[(epsrun["kind"] == "cap") & (epsrun["rho"] == -0.3)]
    assert nums["cap_rho"] == -0.3 and nums["cap_eps_min"] == 1e-3
    assert nums["cap_nit_small_eps"] == int(cap.loc[cap["eps"] == 1e-3, "nit"].iloc[0])
    assert 1.0 < nums["edge_slope"] < 3.0  # margin 0: about 1/eps^2


# ------------------------------------------------------------------------- Theorem 3


@pytest.fixture(scope="module")
def thm3():
    return ch05.theorem3_sweep([2, 3], [-0.4, -0.1], [0], n=16, n_dirs=300)


def test_theorem3_verdict_holds_and_fails(thm3):
    v = ch05.theorem3_verdict(thm3)
    _binds_to_check(v)
    assert v["ok"] and v["instances"] == 4
    assert "no better direction among 300 sampled" in v["detail"]
    assert v["detail"].endswith("on 4 instances (d = 2..3)")
    bad = thm3.copy()
    bad.loc[1, "ok"] = False
    assert not ch05.theorem3_verdict(bad)["ok"]
    assert not ch05.theorem3_verdict(thm3.iloc[:0])["ok"]


def test_theorem3_table_numbers_and_picture(thm3):
    lines = ch05.theorem3_table(thm3).splitlines()
    assert lines[0].split() == "instances passed margin best sampled gap".split()
    assert "slack" not in thm3  # the table does not change its input
    nums = ch05.theorem3_numbers(thm3)
    assert nums["n"] == 4
    assert nums["gap_median"] == pytest.approx(float((thm3["rho"] - thm3["sampled_max"]).median()))
    assert nums["gap_median"] >= 0
    inf = data.load("infeasible_2d")
    pic = ch05.theorem3_picture(inf.X, inf.y, m=720)
    assert pic["hull"]["agree"] and pic["profile"]["phi"].size == 720
    assert pic["profile"]["min"].max() <= pic["hull"]["rho"] + 1e-12


# --------------------------------------------------------------------- caveat, exercise


@pytest.fixture(scope="module")
def cav():
    inf = data.load("infeasible_2d")
    return ch05.caveat_lift(inf.X, inf.y, [1.0, 0.1, 0.01], n_dirs=500)


def test_caveat_text_and_slope(cav):
    lines = ch05.caveat_text(cav).splitlines()
    assert lines[0] == "span-restricted margin in the plane:           -0.3000"
    assert lines[2] == "margin (5) in R^3: best of 500 sampled unit w and +-e_3: 0.0000"
    assert lines[4].startswith("  lifted by height 1     : margin in R^3 = -0.")
    assert len(lines) == 4 + 3
    assert 0.5 < ch05.caveat_slope(cav) < 1.5  # |rho| shrinks about in proportion to t
    with pytest.raises(AssertionError, match="want 0"):
        ch05.caveat_text({**cav, "sampled_sup": 0.01})
    with pytest.raises(AssertionError, match="span margin"):
        ch05.caveat_text({**cav, "rho_span_3d": cav["rho_2d"] + 1e-6})


def test_weak_duality_sample():
    wd = ch05.weak_duality_sample(20, 3, 0.1, seed=1, m=200)
    assert wd["points"] == 400
    assert wd["rho2"] == pytest.approx(0.1, abs=1e-9)
    assert wd["min_norm"] >= wd["rho2"]
    assert ch05.weak_duality_text(wd) == (
        f"rho_2 = 0.1000; smallest ||Ap|| over 400 points p: {wd['min_norm']:.4f}"
    )


# --------------------------------------------------------------------------- figures


def test_figures_draw(rate_sweeps, cav):
    _, epsrun = rate_sweeps
    inf = data.load("infeasible_2d")
    figs = [
        ch05_figures.nvn_rates(epsrun, [-0.3, -0.1]),
        ch05_figures.theorem3(ch05.theorem3_picture(inf.X, inf.y, m=360)),
        ch05_figures.caveat(cav),
    ]
    try:
        assert [len(f.axes) for f in figs] == [3, 2, 1]
        top = figs[1].axes[0]
        assert top.get_title() == "infeasible_2d: the ball of Theorem 3"
        (line,) = [ln for ln in figs[2].axes[0].get_lines() if ln.get_marker() == "o"]
        assert np.allclose(line.get_ydata(), -cav["rho_lifted"])
        assert figs[2].axes[0].get_xscale() == "log"
    finally:
        for f in figs:
            plt.close(f)

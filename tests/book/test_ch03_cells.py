"""Tests of what Chapter 3's notebook shows: tables, printed lines, verdicts, figures.

The notebook ``book/ch03_kernels.ipynb`` only calls these functions of
:mod:`kperc_book.experiments.ch03` and :mod:`kperc_book.experiments.ch03_figures`; each
test runs them on small instances, and every verdict is also given a bad input so that it
can fail.
"""

from __future__ import annotations

import copy
import inspect

import matplotlib
import numpy as np
import pytest

import kperc
from kperc_book.chapter import Chapter
from kperc_book.experiments import ch03, ch03_figures

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CHECK = inspect.signature(Chapter.check)


def _assert_check_arguments(verdict):
    """The verdict is exactly the keyword arguments that ``ch.check(id, **verdict)`` takes."""
    assert set(verdict) == {"ok", "detail", "instances"}
    CHECK.bind(None, "some-id", **verdict)
    assert isinstance(verdict["ok"], bool) and isinstance(verdict["instances"], int)


@pytest.fixture(scope="module")
def lemma1():
    return ch03.check_lemma1(range(1), n_alpha=20)


def test_gram_properties_table():
    tab = ch03.gram_properties(seed=0)
    assert list(tab.index) == list(ch03.KERNELS)
    for kern in ch03.KERNELS:
        prob = ch03.separable_problem(kern, 0)
        row = tab.loc[kern]
        assert row["n"] == len(prob.y)
        assert row["rho_K"] == f"{prob.info['rho']:.4f}"
        assert row["max |G_ii - 1|"].startswith("<= ")
        assert float(row["max |G_ij|, i != j"]) <= 1.0
        assert float(row["largest eigenvalue"]) <= len(prob.y)


def test_lemma1_report_and_verdict(lemma1):
    text = ch03.lemma1_report(lemma1)
    assert text.splitlines()[0] == "separable instances: 3, inseparable: 1"
    assert f"with L < 0: {lemma1['n_negative_L']}," in text
    v = ch03.lemma1_verdict(lemma1)
    _assert_check_arguments(v)
    assert v["ok"] and v["instances"] == 4
    assert v["detail"].startswith(f"{lemma1['n_negative_L']} of {lemma1['n_alpha_tested']}")
    assert not ch03.lemma1_verdict({**lemma1, "ok": False})["ok"]
    # a certificate of inseparability that is not zero breaks both the text and the verdict
    bad = {**lemma1, "max_cert_norm": 1e-3}
    for f in (ch03.lemma1_report, ch03.lemma1_verdict):
        with pytest.raises(AssertionError, match="exceeds its stated bound"):
            f(bad)


def test_lemma2_report_and_verdict():
    l2 = ch03.check_lemma2(range(1), n_alpha=20)
    lines = ch03.lemma2_report(l2).splitlines()
    assert lines[0] == f"{l2['vectors']} vectors on 3 instances"
    assert lines[1].endswith(f"{l2['max_ratio_G_1']:.6f}")
    v = ch03.lemma2_verdict(l2)
    _assert_check_arguments(v)
    assert v["ok"] and v["detail"] == (
        f"max ratios {l2['max_ratio_G_1']:.4f} (G vs l1), "
        f"{l2['max_ratio_1_2']:.4f} (l1 vs sqrt(n) l2)"
    )
    assert not ch03.lemma2_verdict({**l2, "ok": False})["ok"]


def test_lemma3_report_and_verdict():
    l3 = ch03.check_lemma3(range(1), n_p=20)
    text = ch03.lemma3_report(l3)
    assert "|L(rho alpha*) + rho^2/2| / rho^2          <= 1e-6" in text
    v = ch03.lemma3_verdict(l3)
    _assert_check_arguments(v)
    assert v["ok"] and v["instances"] == 3
    assert v["detail"].endswith(f"min ||p||_G/rho_K = {l3['min_ratio']:.3f}")
    assert not ch03.lemma3_verdict({**l3, "ok": False})["ok"]
    with pytest.raises(AssertionError):
        ch03.lemma3_verdict({**l3, "max_value_error": 1e-3})


def test_minimax_report_and_verdict():
    mm = ch03.check_minimax([0])
    assert ch03.minimax_report(mm).splitlines()[0] == "3 instances"
    v = ch03.minimax_verdict(mm)
    _assert_check_arguments(v)
    assert v["ok"] and v["detail"].startswith("primal-dual gap <= 1e-6 (rel.)")
    assert not ch03.minimax_verdict({**mm, "ok": False})["ok"]
    with pytest.raises(AssertionError):
        ch03.minimax_report({**mm, "planted_error": 1e-4})


@pytest.fixture(scope="module")
def svc_circles():
    return ch03.svc_study(["circles-rbf"], cs=[0.0, 10.0, 1000.0])


def test_svc_tables_and_order(svc_circles):
    margins, sweep = ch03.svc_tables(svc_circles)
    assert list(margins.columns) == list(ch03.SVC_COLUMNS)
    assert list(sweep.columns) == ["rho_K", "c=0", "c=10", "c=1000", "SVC gamma"]
    row = svc_circles["problems"]["circles-rbf"]
    assert margins.loc["circles-rbf", "n"] == 200
    assert margins.loc["circles-rbf", "rho_K"] == f"{row['svc']['rho_K']:.6f}"
    # c = 0 is the homogeneous problem: its column is rho_K itself
    assert sweep.loc["circles-rbf", "c=0"] == sweep.loc["circles-rbf", "rho_K"]
    assert ch03.svc_order_failures(svc_circles) == []
    assert ch03.svc_order_report(svc_circles).endswith("recovers rho_K: True")


def test_svc_order_fails_on_a_bad_study(svc_circles):
    bad = copy.deepcopy(svc_circles)
    pr = bad["problems"]["circles-rbf"]
    pr["lin"]["margin"] *= 0.5
    pr["aug"] = pr["aug"][::-1]  # decreasing in c, and wrong at both ends
    failures = ch03.svc_order_failures(bad)
    assert "circles-rbf: LinearSVC gives rho_K" in failures
    assert "circles-rbf: margin increases with c" in failures
    assert "circles-rbf: c = 0 gives rho_K" in failures
    with pytest.raises(RuntimeError, match="not in the stated order"):
        ch03.svc_order_report(bad)


def test_svc_quoted():
    def svc(rho, gamma, b, hom):
        return {"svc": {"rho_K": rho, "gamma_svc": gamma, "intercept": b, "homogeneous": hom}}

    study = {
        "cs": [0.0],
        "problems": {
            "circles-rbf": svc(0.16, 0.18, -1.2, -0.03),
            "breast_cancer-rbf": svc(0.04, 0.0401, 0.005, 0.039),
        },
    }
    q = ch03.svc_quoted(study)
    assert q["circ_rho"] == 0.16 and q["circ_gamma"] == 0.18
    assert q["circ_b"] == -1.2 and q["circ_hom"] == -0.03 and q["bc_b"] == 0.005
    assert q["bc_reldiff"] == pytest.approx(0.0001 / 0.04)


def test_nkp_bound_report_and_verdict():
    rows = ch03.nkp_bound_sweep([0.2], [0, 1], [0], n=40, d=5)
    real = [ch03.real_problem_summary("circles-rbf")]
    text = ch03.nkp_bound_report(rows, real)
    assert [line.split()[0] for line in text.splitlines()[2:5]] == ["planted", "poly", "rbf"]
    assert text.splitlines()[-1].startswith("real problems: max halting index / bound = ")
    ratios = ch03.nkp_bound_ratios(rows, real)
    assert len(ratios) == 5 and ratios[-1] == real[0]["nkp_nit"] / real[0]["nkp_bound"]
    v = ch03.nkp_bound_verdict(rows, real)
    _assert_check_arguments(v)
    assert v["ok"] and v["instances"] == 5
    assert v["detail"].endswith(f"worst ratio {max(ratios):.3f}")
    over = [{**rows[0], "nit": int(rows[0]["bound"]) + 1}] + rows[1:]
    assert not ch03.nkp_bound_verdict(over, real)["ok"]
    wrong = [{**real[0], "train_accuracy": 0.99}]
    assert not ch03.nkp_bound_verdict(rows, wrong)["ok"]


def test_nkp_vs_np_report_and_verdict():
    eq = [ch03.nkp_vs_np(s, n=30, d=4) for s in range(2)]
    lines = ch03.nkp_vs_np_report(eq).splitlines()
    assert len(lines) == 2 and lines[1].startswith(f"seed 1: halting index NP {eq[1]['nit_np']}")
    v = ch03.nkp_vs_np_verdict(eq)
    _assert_check_arguments(v)
    assert v["ok"] and v["instances"] == 2
    assert not ch03.nkp_vs_np_verdict([eq[0], {**eq[1], "same": False}])["ok"]
    with pytest.raises(AssertionError):
        ch03.nkp_vs_np_report([{**eq[0], "max_w_diff": 1e-3}])


@pytest.fixture(scope="module")
def traces():
    return ch03.nkp_margin_traces(ch03_figures.TRACE_PROBLEMS, max_iter=4000)


def test_nkp_traces_report_and_quoted(traces):
    assert list(traces) == list(ch03_figures.TRACE_PROBLEMS)
    lines = ch03.nkp_trace_report(traces).splitlines()
    bc = traces["breast_cancer-rbf"]
    assert lines[0].startswith(f"breast_cancer-rbf: rho_K = {bc['rho']:.5f}; first separator")
    assert "after 4000 updates" in lines[0]
    q = ch03.nkp_trace_quoted(traces)
    assert q["iter"] == 4000 and q["first"] == bc["first"]
    assert q["m_final"] == bc["margin_final"] / bc["rho"]
    assert q["m_final"] > ch03.TRACE_GAIN * q["m_first"]
    # no tenfold gain after the first separator: the prose's claim fails loudly
    flat = {**traces, "breast_cancer-rbf": {**bc, "margin_final": 2 * bc["margin_at_first"]}}
    with pytest.raises(RuntimeError, match="not 10 times"):
        ch03.nkp_trace_quoted(flat)


def test_real_problem_table():
    real = [ch03.real_problem_summary(nm) for nm in ("circles-rbf", "xor-poly")]
    tab = ch03.real_problem_table(real)
    assert list(tab.index) == ["circles-rbf", "xor-poly"]
    assert tab.loc["xor-poly", "kernel"] == "poly"
    assert tab.loc["circles-rbf", "NKP halting index"] == real[0]["nkp_nit"]
    assert float(tab.loc["circles-rbf", "index / bound"]) <= 1.0


def test_random_labels_exercise():
    X, y = ch03.random_labels(60, seed=0)
    X2, y2 = ch03.random_labels(60, seed=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert X.shape == (60, 2) and set(np.unique(y)) == {-1.0, 1.0}
    G = kperc.gram_matrix(X, y, "rbf", gamma=1.0)
    rho = kperc.margin(G)
    line = ch03.rbf_margin_bound(G, rho)
    assert line.startswith(f"random labels: rho_K = {rho:.2e} >= sqrt(lambda_min / n) = ")
    with pytest.raises(RuntimeError, match="is not >="):
        ch03.rbf_margin_bound(G, 0.0)
    assert ch03.millions_of_iterations(1e-3) == "1.0 million"
    assert ch03.millions_of_iterations(rho) == f"{1.0 / rho**2 / 1e6:.1f} million"


def test_nkp_margin_figure(traces):
    fig = ch03_figures.nkp_margin_figure(traces)
    try:
        left, right = fig.axes
        assert left.get_title() == "margin of the NKP iterate"
        assert right.get_xscale() == "log" and right.get_yscale() == "log"
        # per problem: every iterate, the running best, the first separator; plus rho_K
        assert len(left.get_lines()) == 3 * 2 + 2 + 1
        assert ch03_figures.NKP_MARGIN_ALT.startswith("Two panels")
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="no colour"):
        ch03_figures.nkp_margin_figure({"moons-rbf": traces["xor-poly"]})


def test_boundaries_figure():
    grids = {nm: ch03.decision_grid(nm, resolution=20) for nm in ("circles-rbf", "xor-poly")}
    fig = ch03_figures.boundaries_figure(grids)
    try:
        axes = fig.axes
        assert len(axes) == 4 and not axes[3].axison
        assert axes[0].get_title().startswith("circles-rbf: $\\rho_K$=")
        assert axes[1].get_title().startswith("xor-poly: ")
        assert not axes[2].collections  # third panel unused with two problems
        assert axes[3].get_legend().get_title().get_text() == "all panels"
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="one to three"):
        ch03_figures.boundaries_figure({})

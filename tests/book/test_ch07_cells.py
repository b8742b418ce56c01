"""What Chapter 7's cells print, check, glue and draw (kperc_book.experiments.ch07.report,
kperc_book.experiments.ch07_figures).

The notebook's cells only call these functions; here each one runs on small real
instances (or the committed records the chapter reads), and every claim they check is
shown to fail on a table that breaks it.
"""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

import kperc  # noqa: E402
import kperc.datasets  # noqa: E402
import kperc_book.data  # noqa: E402
from kperc_book.experiments import ch07, ch07_figures  # noqa: E402

NS, RHO = [50, 200, 800], 0.05


@pytest.fixture(scope="module")
def sweep_rows():
    rows = ch07.n_sweep(NS, [0], rho=RHO, d=10)
    return rows, ch07.check_bounds(rows, rho=RHO)


@pytest.fixture(scope="module")
def xor():
    probs = ch07.load_problems(["xor-poly"])
    rows = ch07.svm_comparison(probs)
    return probs, rows, ch07.svm_checks(rows)


@pytest.fixture
def chapter(tmp_path, monkeypatch):
    from kperc_book.chapter import STAGING_ENV, Chapter

    monkeypatch.setenv(STAGING_ENV, str(tmp_path))
    return Chapter("ch07")


@pytest.fixture
def shown(monkeypatch):
    """What myst-nb's glue hands to IPython's display: ``name -> mime bundle``."""
    import myst_nb.ext.glue

    out: dict[str, dict] = {}

    def display(bundle, **kw):
        out[kw["metadata"]["scrapbook"]["name"]] = bundle

    monkeypatch.setattr(myst_nb.ext.glue, "ipy_display", display)
    return out


MD = "application/papermill.record/text/markdown"

# ------------------------------------------------------------------------------ verdict


def test_verdict_passes_one_check_through_and_combines_several():
    a = {"ok": True, "detail": "sweep", "instances": 3, "worst": 0.5}
    b = {"ok": False, "detail": "real", "instances": 2, "worst": 2.0}
    assert ch07.verdict(a) == {"ok": True, "detail": "sweep", "instances": 3}
    assert ch07.verdict(a, b) == {"ok": False, "detail": "sweep; real", "instances": 5}
    assert ch07.verdict(a, dict(b, instances=None))["instances"] is None
    with pytest.raises(ValueError):
        ch07.verdict()


def test_verdict_feeds_chapter_check(chapter, sweep_rows):
    _, res = sweep_rows
    assert chapter.check("snkpvn-bound", **ch07.verdict(res["snkpvn-bound"]))
    assert chapter.checks["snkpvn-bound"] == {
        "ok": True,
        "detail": res["snkpvn-bound"]["detail"],
        "instances": len(NS) * 2,
    }
    with pytest.raises(AssertionError, match="theorem-1"):
        chapter.check("theorem-1", **ch07.verdict(res["theorem-1"], dict(res["isnkpvn"], ok=False)))


# ------------------------------------------------------------------------ the sweep


def test_sweep_table_of_a_small_sweep(sweep_rows):
    rows, res = sweep_rows
    sweep = ch07.sweep_table(rows, res)
    table = sweep["table"]
    assert list(table.index) == [*NS, "exponent"]
    assert ("imbalanced", "lower bound") in table.columns
    assert table.loc[50, ("imbalanced", "SNKPVN")] == int(sweep["med"]["imbalanced"]["snkpvn"][0])
    exp = sweep["slopes"]["imbalanced"]["snkpvn"]
    assert table.loc["exponent", ("imbalanced", "SNKPVN")] == f"{exp:+.2f}"
    assert sweep["ref"] == pytest.approx(ch07.sqrt_log_slope(50, 800))
    first, second, _, last = sweep["caption"].splitlines()
    low = res["snkpvn-lower"]
    assert first == f"the remark's lower bound held on all {low['instances']} imbalanced instances"
    assert second == f"  (largest bound / count {low['worst']:.3f})"
    assert last.endswith(f"sqrt(log n): {sweep['ref']:.3f} here)")
    assert max(len(line) for line in sweep["caption"].splitlines()) <= 90


def test_sweep_table_refuses_a_failed_check(sweep_rows):
    rows, res = sweep_rows
    for key in ("margin", "snkpvn-lower"):
        bad = dict(res, **{key: dict(res[key], ok=False)})
        with pytest.raises(ch07.ClaimError, match=key):
            ch07.sweep_table(rows, bad)


def test_sweep_table_refuses_what_the_text_would_misread(sweep_rows):
    rows, res = sweep_rows
    swap = {"balanced": "imbalanced", "imbalanced": "balanced"}
    swapped = [dict(r, family=swap[r["family"]], lower_bound=r["lower_bound"] or 1) for r in rows]
    with pytest.raises(ch07.ClaimError, match="should fall with n"):
        ch07.sweep_table(swapped, res)
    fast_snkp = [dict(r, snkp=r["snkp"] * r["n"]) for r in rows]
    with pytest.raises(ch07.ClaimError, match="exponent above 0.35"):
        ch07.sweep_table(fast_snkp, res)
    slow_snkpvn = [dict(r, snkpvn=10) if r["family"] == "imbalanced" else r for r in rows]
    with pytest.raises(ch07.ClaimError, match="exponent above 0.35"):
        ch07.sweep_table(slow_snkpvn, res)


def test_glue_sweep(chapter, sweep_rows):
    rows, res = sweep_rows
    sweep = ch07.sweep_table(rows, res)
    ch07.glue_sweep(chapter, sweep, res, rows, ns=NS, seeds=[0], rho=RHO, d=10, gamma=2.0, eps=1e-3)
    g = chapter.glued
    assert list(g)[:8] == [
        "ch07_rho",
        "ch07_d",
        "ch07_n_min",
        "ch07_n_max",
        "ch07_n_seeds",
        "ch07_gamma",
        "ch07_eps",
        "ch07_ref_sqrtlog",
    ]
    assert (g["ch07_n_min"], g["ch07_n_max"], g["ch07_n_seeds"]) == (50, 800, 1)
    assert g["ch07_slope_imbalanced_lower_bound"] == round(
        sweep["slopes"]["imbalanced"]["lower_bound"], 2
    )
    assert g["ch07_imb_last"] == int(sweep["med"]["imbalanced"]["snkpvn"][-1])
    assert g["ch07_imb_bound_last"] == int(2 * np.sqrt(2 * 800) / RHO) == 1600
    assert g["ch07_worst_snkp"] == float(f"{res['theorem-1']['worst']:.2g}")
    assert g["ch07_n_instances"] == len(rows) == 6
    assert list(g)[-1] == "ch07_n_instances"


def test_open_question_figure(sweep_rows):
    rows, res = sweep_rows
    fig = ch07_figures.open_question(ch07.sweep_table(rows, res), NS, RHO)
    try:
        assert len(fig.axes) >= 2
        assert all(ax.get_xscale() == "log" for ax in fig.axes[:2])
    finally:
        plt.close(fig)


# ------------------------------------------------------------------------- the SVM


def test_record_problem_datasets(chapter):
    ch07.record_problem_datasets(chapter)
    names = {d for d, _, _ in kperc_book.data.PROBLEMS.values()}
    assert set(chapter.datasets) == names
    assert all(len(h) == 64 for h in chapter.datasets.values())


def test_svm_table_and_glue(xor, chapter):
    _, rows, svm = xor
    (r,) = rows
    table = ch07.svm_table(rows)
    assert list(table.index) == ["xor-poly"]
    assert table.loc["xor-poly", "exact margin"] == f"{r['rho']:.4g}"
    assert table.loc["xor-poly", "NKP K"] == r["nkp_nit"]
    ch07.glue_svm(chapter, rows, svm, 1e6)
    g = chapter.glued
    assert list(g) == [
        "ch07_svm_err",
        "ch07_svm_C",
        "ch07_svm_b_max",
        "ch07_first_ratio_max",
        "ch07_first_ratio_min",
    ]
    ratios = [r["snkp"] / r["rho"], r["nkp"] / r["rho"]]
    assert g["ch07_first_ratio_max"] == float(f"{max(ratios):.2g}")
    assert g["ch07_first_ratio_min"] == float(f"{min(ratios):.2g}")
    assert g["ch07_svm_C"] == 1e6


def test_final_margins_glue_paths_and_figure(xor, chapter):
    probs, _, _ = xor
    paths = ch07.margin_paths(probs, max_iter=200)
    final = ch07.final_margins(paths)
    assert final.loc["xor-poly", "NKP"] == paths["xor-poly"]["nkp"][-1]
    assert final.loc["xor-poly", "SNKP"] == paths["xor-poly"]["snkp"][-1]
    ch07.glue_paths(chapter, final, path_iters=200, floor=ch07_figures.PATH_FLOOR)
    assert chapter.glued["ch07_path_floor"] == -0.25
    assert chapter.glued["ch07_path_snkp_min"] == float(f"{final['SNKP'].min():.3g}")
    fig = ch07_figures.margin_paths(paths)
    try:
        assert any(ax.get_lines() for ax in fig.axes)
    finally:
        plt.close(fig)


# ------------------------------------------------------------------------ timings


def test_timings_header_and_ratio():
    tm = ch07.read_timings()
    lines = ch07.timings_header(tm).splitlines()
    assert lines[0] == f"measured on {tm['date']} by the book's benchmark harness"
    assert len(lines) == 4
    mach = {
        k: v
        for k, v in tm["machine"].items()
        if k not in ("cpu_model", "load_average_1min_at_start")
    }
    bare = ch07.timings_header(dict(tm, machine=dict(mach, processor="x86_64")))
    assert "machine: x86_64, " in bare and bare.endswith("started: not recorded")
    rows = [
        {"problem": "a", "method": "snkp", "seconds_median": 0.5},
        {"problem": "a", "method": "svc_homogeneous", "seconds_median": 2.0},
        {"problem": "b", "method": "snkp", "seconds_median": 1.0},
        {"problem": "b", "method": "svc_homogeneous", "seconds_median": 3.0},
    ]
    assert ch07.svc_over_snkp({"results": rows}).to_dict() == {"a": 4.0, "b": 3.0}


def test_glue_timings(chapter, shown):
    tm = ch07.read_timings()
    ch07.glue_timings(chapter, tm)
    assert shown["ch07-timings-table"][MD] == ch07.timings_markdown(tm)
    ratio = ch07.svc_over_snkp(tm)
    assert chapter.glued["ch07_snkp_vs_svc_max"] == float(f"{ratio.max():.2g}")
    assert chapter.glued["ch07_timing_date"] == tm["date"]


def test_peers_words():
    labels = {"linear": "linear", "rbf": "RBF"}
    assert ch07.peers_lost_text([], labels) == "SNKP lost none of them"
    one = [("rbf", 0.01, 10_000, "svc"), ("rbf", 0.001, 20_000, "svc")]
    assert ch07.peers_lost_text(one, labels) == "the 2 it lost are all RBF problems"
    two = [*one, ("linear", 0.01, 10_000, "linsvc")]
    assert ch07.peers_lost_text(two, labels) == "it lost 3, on RBF and linear problems"
    assert ch07.peers_machine_text(True).startswith("a busy machine")
    assert ch07.peers_machine_text(False) == "an otherwise idle machine"


def test_glue_peers(chapter, shown):
    from benchmarks.peers.analysis import snkp_goal
    from benchmarks.peers.config import DEFAULT_OUT
    from benchmarks.record import load_record

    record = load_record(DEFAULT_OUT)
    ch07.glue_peers(chapter)
    assert set(shown) >= {"ch07-crossover-grid-linear", "ch07-crossover-grid-rbf"}
    goal = snkp_goal(record)
    assert chapter.glued["ch07_peers_cases"] == goal["cases"]
    assert chapter.glued["ch07_peers_snkp_wins"] == goal["snkp_wins"]
    assert chapter.glued["ch07_peers_cap"] == f"{record['config']['cap_s']:g}"
    assert chapter.glued["ch07_peers_nkp"] == ch07.peers_nkp_text(record)
    ch07.glue_peers(chapter, dict(record, busy=not record["busy"]))
    assert chapter.glued["ch07_peers_machine"] == ch07.peers_machine_text(not record["busy"])


def test_families_goal_names_every_winner():
    def run(fam, rho, solver, t):
        return {"family": fam, "rho": rho, "n": 10_000, "solver": solver,
                "status": "finished", "separated": True, "time_s": t, "nit": 1}  # fmt: skip

    rec = {
        "rows": [
            run("planted", 0.001, "snkp", 0.04),
            run("planted", 0.001, "logreg", 0.01),
            run("spread", 0.01, "snkp", 0.01),
            run("spread", 0.01, "logreg", 0.02),
            run("crowded", 0.001, "logreg", 0.01),
            run("crowded", 0.001, "snkp", 0.02),
            {**run("planted", 0.1, "logreg", 0.001)},  # margin above the region: not counted
        ]
    }
    goal = ch07.families_goal(rec)
    assert goal["cases"] == 3 and goal["snkp_first"] == 1
    assert ch07.families_goal_text(goal) == (
        "the others went to LogisticRegression on crowded (ρ = 0.001) "
        "and planted, unit norms (ρ = 0.001)"
    )
    assert ch07.families_goal_text({"others": {}}) == "no solver was faster than SNKP there"


def test_glue_families_names_logistic_regression(chapter):
    from benchmarks.peers.config import FAMILIES_OUT
    from benchmarks.record import load_record

    record = load_record(FAMILIES_OUT)
    ch07.glue_families(chapter, record)
    goal = ch07.families_goal(record)
    assert chapter.glued["ch07_fam_goal_cases"] == goal["cases"]
    assert chapter.glued["ch07_fam_goal_others"] == ch07.families_goal_text(goal)


# --------------------------------------------------------------- quoted values, affine


def test_quoted_line_and_glue_winnow(chapter):
    w2 = {"ch02_w_dmax": 128, "ch02_w_slope_w": 0.4321, "ch02_w_slope_np": 0.94}
    assert list(w2) == list(ch07.WINNOW_GLUE)
    assert ch07.quoted_line("Chapter 2", w2).splitlines() == [
        "quoted from Chapter 2:",
        "  largest dimension d: 128",
        "  Winnow, exponent of d: 0.4321",
        "  Normalised Perceptron, exponent of d: 0.94",
    ]
    ch07.glue_winnow(chapter, w2)
    assert chapter.glued == {"ch07_w_dmax": 128, "ch07_w_slope_w": 0.43, "ch07_w_slope_np": 0.94}


def test_affine_report_and_glue(chapter):
    am = ch07.affine_margin_demo("infeasible_2d")
    lines = ch07.affine_report(am).splitlines()
    assert lines[0] == f"infeasible_2d, n = {am['n']}"
    assert lines[1].endswith(f"{am['rho_span']:+.6f}") and am["rho_span"] < 0
    assert "w = e_3 gives min_i a_i^T w = +0.0" in lines[3]
    assert lines[4].endswith("||sum p_i a_i|| < 1e-12")
    assert max(map(len, lines)) <= 90
    for bad, match in [
        ({"rho_span_embedded": am["rho_span"] + 1e-9}, "changed on embedding"),
        ({"orth_value": 1e-300}, "e_3"),
        ({"certificate_norm": 1e-9}, "Gordan"),
    ]:
        with pytest.raises(ch07.ClaimError, match=match):
            ch07.affine_report(dict(am, **bad))
    ch07.glue_affine(chapter, am)
    assert chapter.glued == {
        "ch07_aff_rho": float(f"{am['rho_span']:.3g}"),
        "ch07_aff_radius": float(f"{am['theorem3_radius']:.3g}"),
    }


# ------------------------------------------------------------------ the book's summary


def test_summary_table_glues_the_sweep_rates(shown):
    s_imb = {"snkp": 0.114, "snkpvn": 0.526, "isnkpvn": 0.6}
    rates = ch07.sweep_rates(s_imb)
    assert rates["SNKP (Alg. 4)"].startswith("grows like $n^{0.11}$ at fixed margin")
    assert "$n^{0.53}$ on the imbalanced family" in rates["SNKPVN (Alg. 6)"]
    measured = ch07.measured_values()
    ch07.glue_summary_table(measured, s_imb)
    md = shown["ch07-summary-table"][MD]
    assert md == ch07.summary_markdown(measured, extra=rates)
    assert "$n^{0.60}$" in md


def test_quoted_values_lists_every_value_sorted():
    values = {("ch04", "slope_snkp"): 1.0, ("ch02", "ch02_w_slope_w"): 0.43}
    values[("ch04", "slope_nkp")] = 2
    assert ch07.quoted_values(values).splitlines() == [
        "quoted from the chapters:",
        "  Chapter 2, Winnow, exponent of d: 0.43",
        "  Chapter 4, NKP, exponent of 1/rho: 2",
        "  Chapter 4, SNKP, exponent of 1/rho: 1.0",
    ]
    # every value the summary quotes is named in words, none by its key
    assert {k for _, k in ch07.measured_values()} <= set(ch07.QUOTED_LABELS)


# ------------------------------------------------------------------------------ exercise


def test_symmetrisation_report_on_the_exercise():
    pl = kperc.datasets.planted(30, 4, 0.1, seed=1)
    G = kperc.gram_matrix(pl.X, pl.y)
    n = len(G)
    svc = SVC(kernel="precomputed", C=1e8, tol=1e-8)
    svc.fit(np.block([[G, -G], [-G, G]]), np.r_[np.ones(n), -np.ones(n)])
    c = np.zeros(2 * n)
    c[svc.support_] = svc.dual_coef_[0]
    alpha = c[:n] - c[n:]
    margin = (G @ alpha).min() / np.sqrt(alpha @ G @ alpha)
    rho = kperc.margin(G)
    assert ch07.symmetrisation_report(svc.intercept_[0], margin, rho) == (
        f"|intercept| < 1e-4: True; SVC margin {margin:.6f}, rho_K {rho:.6f}"
    )
    with pytest.raises(ch07.ClaimError, match="intercept"):
        ch07.symmetrisation_report(0.01, margin, rho)
    with pytest.raises(ch07.ClaimError, match="margin"):
        ch07.symmetrisation_report(0.0, 0.99 * rho, rho)


# ------------------------------------------------------------------------ alt texts


def test_alt_texts_are_those_of_the_chapter():
    from kperc_book.paths import BOOK_DIR

    nb = json.loads((BOOK_DIR / "ch07_discussion.ipynb").read_text())
    md = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert f":alt: {ch07_figures.OPEN_QUESTION_ALT}\n" in md
    assert f":alt: {ch07_figures.MARGIN_PATHS_ALT}\n" in md

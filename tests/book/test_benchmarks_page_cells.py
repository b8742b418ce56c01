"""The benchmarks page's record-to-prose logic and figures (benchmarks.page, page_figures).

On the committed records each section must give exactly what the committed page glues; on
small synthetic records each branch of the prose (won, lost, not measured, ...) is checked.
"""

from __future__ import annotations

import copy
import json
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from benchmarks import (  # noqa: E402
    page,
    page_classifier,
    page_figures,
    page_fixedcost,
    page_nystroem,
    page_separable,
)
from benchmarks._config import PERITER_ALGOS, PERITER_TARGETS  # noqa: E402
from benchmarks.record import load_record  # noqa: E402
from kperc_book import paths  # noqa: E402

BENCH_SECTIONS = (
    page.bench_setup,
    page.periter_texts,
    page_fixedcost.fixedcost_texts,
    page_classifier.classifier_texts,
    page_separable.separable_texts,
    page.separator_texts,
    page.crossover_texts,
    page.kernels_texts,
    page.large_texts,
    page.nystroem_texts,
    page.certificates_texts,
    page.memory_texts,
    page.regen_texts,
)
PEERS_SECTIONS = (
    page.peers_setup,
    page.peers_wins_losses,
    page.peers_exact,
    page_nystroem.nystroem_grown_texts,
)


@pytest.fixture(scope="module")
def rec():
    return load_record(paths.generated_dir() / "bench.json")


@pytest.fixture(scope="module")
def prec():
    return load_record(paths.generated_dir() / "peers.json")


@pytest.fixture(scope="module")
def frec():
    return load_record(paths.generated_dir() / "families.json")


@pytest.fixture(scope="module")
def page_outputs():
    """Glue name -> the (markdown or plain) text the committed page shows for it."""
    nb = json.loads((paths.book_dir() / "benchmarks.ipynb").read_text(encoding="utf-8"))
    out = {}
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            data = o.get("data", {})
            if name and "application/papermill.record/image/png" not in data:
                md = data.get("application/papermill.record/text/markdown")
                out[name] = (
                    md if md is not None else data["application/papermill.record/text/plain"]
                )
    return out


def _shown(e: page.Glue) -> str:
    """What the page shows for an entry: the Markdown, or the repr of the rounded value."""
    if e.markdown:
        return e.value
    v = e.value
    if isinstance(v, float):
        v = float(f"{v:.{e.digits}g}")
    return repr(v)


# --------------------------------------------------------------- the committed records


def test_sections_give_what_the_committed_page_glues(rec, prec, frec, page_outputs):
    entries = [e for f in BENCH_SECTIONS for e in f(rec)]
    entries += [e for f in PEERS_SECTIONS for e in f(prec)]
    entries += page.families_caveat(frec, prec) + page.families_texts(frec)
    names = page.as_dict(entries)  # raises on a name used twice
    assert set(names) == set(page_outputs)
    for e in entries:
        assert _shown(e) == page_outputs[e.name], e.name


def test_committed_glued_numbers_match_the_chapter_record(rec, prec, frec):
    record = json.loads((paths.generated_dir() / "benchmarks.json").read_text())
    numbers = [e for f in BENCH_SECTIONS for e in f(rec) if not e.markdown]
    numbers += [e for f in PEERS_SECTIONS for e in f(prec) if not e.markdown]
    numbers += [e for e in page.families_texts(frec) if not e.markdown]
    for e in numbers:
        want = record["glue"][e.name]
        got = float(f"{e.value:.{e.digits}g}") if isinstance(e.value, float) else e.value
        assert got == want or (math.isnan(got) and math.isnan(want)), e.name


def test_figures_of_the_committed_record(rec):
    for name, draw, n_axes in (
        ("periter", page_figures.periter, 2),
        ("crossover", page_figures.crossover, 1),
        ("large", page_figures.large, 1),
        ("certificates", page_figures.certificates, 2),
    ):
        fig = draw(rec)
        assert len(fig.axes) == n_axes, name
        assert name in page_figures.ALT
        plt.close(fig)
    fig = page_figures.periter(rec)
    assert [ax.get_title() for ax in fig.axes] == ["dense G", "factored G (Z of width 50)"]
    # one line and one target line per algorithm in each panel
    assert all(len(ax.get_lines()) == 2 * len(PERITER_ALGOS) for ax in fig.axes)
    plt.close(fig)
    sizes = sorted({r["n"] for r in rec["suites"]["separator"]["rows"]})
    fig = page_figures.separator(rec)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == [f"n = {n}" for n in sizes]
    plt.close(fig)


def test_alt_texts_describe_the_figures():
    for name, alt in page_figures.ALT.items():
        assert len(alt) >= 20 and not alt.endswith(".png"), name


# --------------------------------------------------------------------- text helpers


def test_small_text_helpers():
    assert page.fmt_s(0.0123) == "12.3 ms" and page.fmt_s(2.345) == "2.35 s"
    assert page.when_text("2024-01-02T03:04:05Z") == "2024-01-02 03:04:05 UTC"
    assert page.md_table(["a", "b"], [[1, "x"]]) == "| a | b |\n|---|---|\n| 1 | x |"
    assert page.busy_text(True, 3.04, 2).startswith("**Measured on a busy machine.**")
    assert "3.0 on 2 cores" in page.busy_text(True, 3.04, 2)
    assert page.busy_text(False, None, 4) == (
        "The machine was otherwise idle (1-minute load average unknown on 4 cores)."
    )
    assert page.busy_text(None, 0.5, 2).startswith("The record does not say")
    m = {
        "cpu": "CPU",
        "cores": 2,
        "platform": "Linux",
        "python": "3.11",
        "numpy": "2.0",
        "scipy": "1.14",
        "scikit-learn": "1.5",
    }
    assert page.machine_text(m) == (
        "CPU, 2 cores, ? GB, Linux, Python 3.11, NumPy 2.0 (?), SciPy 1.14, scikit-learn 1.5"
    )
    with pytest.raises(ValueError, match="twice"):
        page.as_dict([page.num("a", 1), page.md("a", "x")])


def test_verdicts_and_details_of_missing_targets():
    t = {"id": "x", "value": 0.5, "target": 1.0, "met": True, "detail": "fine"}
    rec = {"targets": [t]}
    assert page.verdict(rec, "x") == "within the reference value (0.5 <= 1)"
    assert page.detail(rec, "x") == "fine"
    assert page.verdict(rec, "y") == "**not measured** in this record"
    assert page.detail(rec, "y") == "not measured"


def test_count_and_list_words():
    assert [page.count_text(k) for k in (1, 2, 3)] == ["once", "twice", "3 times"]
    assert page.and_list(["SVC"]) == "SVC"
    assert page.and_list(["Perceptron", "LinearSVC", "SVC"]) == "Perceptron, LinearSVC and SVC"


def test_glue_all_rounds_numbers_and_records_them():
    import kperc_book.chapter

    ch = kperc_book.chapter.Chapter("pagetest")
    page.glue_all(ch, [page.num("x", 1.23456, digits=3), page.md("y", "**b**"), page.num("n", 7)])
    assert ch.glued == {"x": 1.23, "n": 7}  # Markdown is glued, not recorded


# ----------------------------------------------------------- synthetic peers records


def _row(solver, n, t, status="finished", separated=True, rho=0.01, family="linear", **kw):
    r = {"family": family, "rho": rho, "n": n, "solver": solver, "status": status, "cap_s": 10.0}
    if status in ("finished", "timeout"):
        r["time_s"] = t
    if status == "finished":
        r["separated"] = separated
    r.update(kw)
    return r


def test_wins_and_losses_on_a_synthetic_record():
    rows = [
        _row("snkp-factored", 10_000, 1.0, rho=1e-3),  # SNKP wins
        _row("svc-linear", 10_000, 4.0, rho=1e-3),
        _row("snkp-factored", 20_000, 5.0, rho=1e-3),  # a peer wins
        _row("svc-linear", 20_000, 1.0, rho=1e-3),
        _row("snkp-factored", 50_000, 10.0, status="timeout", rho=1e-3),  # nobody
        _row("svc-linear", 50_000, None, status="skipped", rho=1e-3),
        _row("snkp-factored", 100, 0.5, rho=0.1),  # an easy problem a peer won
        _row("svc-linear", 100, 0.002, rho=0.1),
        _row("snkp-factored", 1000, 0.5, rho=1e-3),  # below n = 10^4: not counted
        _row("svc-linear", 1000, 0.1, rho=1e-3),
    ]
    lin, easy, rbf = page.wins_losses_lines({"rows": rows})
    assert lin.startswith("**Linear problems, $\\rho \\le 10^{-2}$ and $n \\ge 10^4$:**")
    assert "before scikit-learn's SVC in 1 of 3 cases; a scikit-learn solver was faster in" in lin
    assert "$\\rho$ = 0.001, $n$ = 20,000 (SVC, linear 1 s against SNKP, factored G 5 s)" in lin
    assert lin.endswith("; nobody separated within the cap at $\\rho$ = 0.001, $n$ = 50,000.")
    assert easy == (
        "On the easy linear problems ($\\rho$ above $10^{-2}$) a scikit-learn solver was faster "
        "once: "
        "$n$ = 100: SVC, linear 2 ms against SNKP, factored G 500 ms."
    )
    assert rbf.startswith("**RBF problems") and rbf.endswith("in 0 of 0 cases.")


def test_kernel_goal_missed_and_met():
    rbf = {"family": "rbf", "exact_rows": "all"}
    rows = [
        # rho = 0.01: SNKP separated (also under the exact kernel), 4 times slower than SVC
        _row("snkp-nystroem", 10_000, 0.4, nit=120, **rbf)
        | {"exact_separated": True, "exact_fraction": 1.0},
        _row("svc-rbf", 10_000, 0.1, family="rbf", n_support=70),
        # rho = 0.001: the Nystroem separator fails under the exact kernel, so only SVC counts
        _row("snkp-nystroem", 10_000, 0.3, rho=1e-3, nit=900, **rbf)
        | {"exact_separated": False, "exact_fraction": 0.999},
        _row("svc-rbf", 10_000, 0.2, rho=1e-3, family="rbf", n_support=90),
        _row("snkp-dense", 20_000, 10.0, status="timeout", family="rbf"),
    ]
    got = page.as_dict(page.kernel_miss_texts({"rows": rows}))
    assert got["peers-rbf-miss"] == (
        "On the kernel problems SNKP was not always first: where SNKP did separate, it took 4.0 "
        "times as long as `SVC`; at ρ = 0.001, *n* = 10,000 no SNKP run produced a separator "
        "of the exact kernel within the cap, while `SVC` took 200 ms."
    )
    assert got["peers-rbf-sv"] == "between 70 and 90 support vectors, for *n* from 10,000 to 10,000"
    assert got["peers-rbf-snkp-nit"] == "120 (*n* = 10,000)"  # at rho = 0.01 only
    assert got["peers-rbf-nystroem-bad"] == (
        "at ρ = 0.001, *n* = 10,000 it left 10 of the points on the wrong side"
    )
    assert got["peers-rbf-dense-cap"] == "SNKP on it was stopped at the cap from *n* = 20,000"
    met = page.as_dict(page.kernel_miss_texts({"rows": [_row("nkp", 100, 0.1)]}))
    assert (
        met["peers-rbf-miss"]
        == "On the kernel problems, too, SNKP separated first in every case of that region."
    )
    assert met["peers-rbf-sv"] == "a number of support vectors this record does not hold"
    assert met["peers-rbf-snkp-nit"] == "not recorded"
    assert met["peers-rbf-nystroem-bad"].startswith("none of the Nyström separators failed")
    assert met["peers-rbf-dense-cap"] == "SNKP on it finished within the cap wherever it ran"


def test_svc_on_the_easy_kernel_problem():
    rows = [
        _row("svc-rbf", 1000, 0.05, rho=0.1, family="rbf"),
        _row("snkp-dense", 1000, 0.2, rho=0.1, family="rbf"),
        _row("nkp", 1000, 0.03, rho=0.1, family="rbf"),
        _row("nkp", 10_000, 0.01, rho=0.01, family="rbf"),  # not the easy, small problem
    ]
    assert page.svc_easy_text({"rows": rows}) == (
        "`SVC` finishes the easy kernel problem (ρ = 0.1, *n* = 1,000) in 50 ms; kperc's "
        "fastest, NKP, needs 30 ms."
    )
    rows[0] = _row("svc-rbf", 1000, 0.05, rho=0.1, family="rbf", separated=False)
    assert page.svc_easy_text({"rows": rows}).startswith("`SVC` did not separate")
    assert page.svc_easy_text({"rows": [_row("nkp", 10, 0.1)]}) == (
        "This record has no RBF problems."
    )
    assert page.peer_families({"rows": [_row("nkp", 10, 0.1)]}) == ["linear"]
    assert page.peer_families({"rows": rows}) == ["linear", "rbf"]


def test_nystroem_separators_under_the_exact_kernel():
    ny = {"family": "rbf"}
    rows = [
        _row("snkp-nystroem", 1000, 1.0, exact_rows="all", exact_separated=True, **ny),
        _row("snkp-nystroem", 2000, 1.0, exact_rows="all", exact_separated=False, **ny)
        | {"exact_fraction": 0.995},
        _row("snkp-nystroem", 100_000, 1.0, rho=1e-3, exact_rows=1000, **ny)
        | {"exact_separated": False, "exact_fraction": 0.9987},
        _row("snkp-nystroem", 200_000, 1.0, status="timeout", **ny),  # not finished
    ]
    assert page.nystroem_exact_text({"rows": rows}) == (
        "Under the exact kernel, SNKP's Nyström separators separated every training point in "
        "1 of the 2 runs checked on all points (the others separated at least 99.5 % of the "
        "points); at larger *n*, on random subsets of points, they separated 99.87 % "
        "(ρ = 0.001, *n* = 100,000)."
    )


def test_peers_setup_counts_runs_and_certificates(prec):
    p = copy.deepcopy(prec)
    p["rows"] = [
        _row("snkp-factored", 10, 0.1, certified=True),
        _row("nkp", 10, 0.1, certified=False),
        _row("svc-linear", 10, 0.1, certified=True),  # not a kperc run
        _row("snkp-dense", 10, 1.0, status="timeout"),
        _row("snkp-dense", 20, None, status="skipped"),
        _row("nkp", 20, None, status="error"),
    ]
    p["busy"], p["loadavg_1min_before"], p["loadavg_1min_after"] = True, 1.0, 2.5
    got = page.as_dict(page.peers_setup(p))
    assert got["peers-certified"] == (
        "1 of the 2 kperc runs that separated ended with a certified separator"
    )
    assert (got["peers-n-runs"], got["peers-n-timeout"]) == (6, 1)
    assert (got["peers-n-skipped"], got["peers-n-error"]) == (1, 1)
    assert "load average was 2.5 on" in got["peers-busy"]
    p["loadavg_1min_before"] = None
    assert "load average was unknown" in page.as_dict(page.peers_setup(p))["peers-busy"]


# ------------------------------------------------------------- synthetic bench records


def _periter_rows(ns=(500, 2000, 8000), ratio=1.0):
    rows = []
    for op in ("dense", "factored"):
        for alg in PERITER_ALGOS:
            for n in ns:
                rows.append(
                    {
                        "operator": op,
                        "algorithm": alg,
                        "n": n,
                        "ratio": ratio * PERITER_TARGETS[alg] * n / 2000,
                        "matvec_s": 1e-6 * n,
                        "per_iter_s": 2e-6 * n,
                        "columns_per_iter": 0.25,
                    }
                )
    return rows


def test_periter_texts_on_a_synthetic_record():
    rec = {"suites": {"periter": {"rows": _periter_rows()}}, "targets": []}
    got = page.as_dict(page.periter_texts(rec, cache_mb=1))
    assert (got["bench-n0"], got["bench-n1"], got["bench-nt"], got["bench-nbig"]) == (
        500,
        8000,
        2000,
        8000,
    )
    # at n = 2000 the ratio equals the target (within); at 8000 it is 4 times above it
    assert got["bench-v-fact-snkp-nt"] == f"within the reference value {PERITER_TARGETS['snkp']}"
    assert got["bench-ratio-fact-snkp-big"] == pytest.approx(4 * PERITER_TARGETS["snkp"])
    assert got["bench-snkp-overhead-us"] == pytest.approx(500.0)  # 2 us * n - 1 us * n
    assert got["bench-floor-fact-snkp-nt-us"] == pytest.approx(2000.0)
    assert got["bench-floor-fact-nkp-nt-us"] == pytest.approx(4000.0)  # no product to remove
    assert got["bench-cols-fact-nvn-big"] == pytest.approx(25.0)
    assert got["bench-cache-cols-big"] == 2**20 // (8 * 8000)
    assert got["bench-v-dense-snkp"] == "**not measured** in this record"
    above = {"suites": {"periter": {"rows": _periter_rows(ratio=1.5)}}, "targets": []}
    got = page.as_dict(page.periter_texts(above, cache_mb=1))
    assert got["bench-v-fact-nvn-nt"] == f"above the reference value {PERITER_TARGETS['nvn']}"


def _sep_rows(bad_margin=False):
    rows = []
    for n in (500, 2000):
        for rho in (1e-1, 1e-2, 1e-3):
            for solver in ("snkp", "nkp"):
                capped = solver == "nkp" and rho == 1e-3
                rows.append(
                    {
                        "n": n,
                        "rho": rho,
                        "solver": solver,
                        "operator": "dense",
                        "time_s": 0.01 / rho,
                        "capped": capped,
                        "separated": not capped,
                        "nit": round(rho ** (-1 if solver == "snkp" else -2)),
                        "margin": rho / 2,
                        "reference_margin": rho,
                    }
                )
    if bad_margin:
        rows[0]["margin"] = 2 * rows[0]["reference_margin"]
    return rows


def test_separator_texts_tables_exponents_and_margins():
    rec = {"suites": {"separator": {"rows": _sep_rows()}}}
    got = page.as_dict(page.separator_texts(rec))
    assert got["bench-sep-nmid"] == 2000
    assert got["bench-sep-table-dense"].splitlines() == [
        "| ρ | SNKP | NKP |",
        "|---|---|---|",
        "| 0.1 | 100 ms | 100 ms |",
        "| 0.01 | 1 s | 1 s |",
        "| 0.001 | 10 s | ≥ 10 s |",
    ]
    assert got["bench-sep-table-factored"].splitlines()[2] == "| 0.1 |  |  |  |  |"
    # nit + 1 = 11, 101, 1001 against rho: slope just under 1; NKP's capped run is left out,
    assert got["bench-exp-snkp"] == "0.98"
    assert got["bench-exp-nkp"] == "2.00"  # 101 and 10001: just under 2
    assert got["bench-n-separators"] == 10
    assert got["bench-separators-ok"] == "all of them"
    bad = {"suites": {"separator": {"rows": _sep_rows(bad_margin=True)}}}
    assert page.as_dict(page.separator_texts(bad))["bench-separators-ok"] == "NOT all of them"
    one = [r for r in _sep_rows() if r["rho"] == 1e-1]
    assert page.iteration_exponent_text(
        page.separator_frame({"suites": {"separator": {"rows": one}}}), "snkp"
    ) == ("not available")


def test_crossover_texts_on_a_synthetic_record():
    assert page.crossover_text("interpolated", 0.0132, [0.01, 0.03]) == (
        "0.013 (between 0.01 and 0.03)"
    )
    assert page.crossover_text("snkp-always", math.nan, [0.03, 0.1]).startswith("above 0.1:")
    assert page.crossover_text("nkp-always", math.nan, [1e-4, 3e-4]).startswith("below 0.0001:")
    assert page.crossover_text("undecided", math.nan, [None, None]) == (
        "not decided (both runs stopped)"
    )
    cross = [
        {
            "operator": "dense",
            "n": 1000,
            "kind": "interpolated",
            "rho_star": 1e-2,
            "bracket": [0.003, 0.03],
        },
        {
            "operator": "dense",
            "n": 4000,
            "kind": "interpolated",
            "rho_star": 1e-3,
            "bracket": [3e-4, 3e-3],
        },
        {
            "operator": "factored",
            "n": 1000,
            "kind": "snkp-always",
            "rho_star": None,
            "bracket": [0.03, 0.1],
        },
    ]
    rec = {
        "suites": {
            "separator": {"crossover": cross},
            "periter": {"rows": _periter_rows((1000, 4000))},
        }
    }
    got = page.as_dict(page.crossover_texts(rec))
    assert got["bench-cross-n"] == 4000
    assert got["bench-cross-dense-nx"] == "0.001 (between 0.0003 and 0.003)"
    assert got["bench-cross-factored-nx"] == "not measured"
    assert got["bench-cross-slope"] == f"{math.log(0.1) / math.log(4):.2f}"
    assert got["bench-mv-growth"] == pytest.approx(4.0) and got["bench-mv-entries"] == 16
    rec["suites"]["separator"]["crossover"] = cross[1:]
    assert page.as_dict(page.crossover_texts(rec))["bench-cross-slope"].startswith("not available")


def _ker(problem, solver, t, capped=False, separated=True, margin=0.01):
    return {
        "problem": problem,
        "solver": solver,
        "n": 100,
        "reference_margin": 0.02,
        "time_s": t,
        "capped": capped,
        "separated": separated,
        "margin": margin,
    }


def test_kernels_texts_tables_and_counts():
    ker = [
        _ker("a", "snkp", 0.01),
        _ker("a", "nkp", 0.5, capped=True, separated=False, margin=None),
        _ker("a", "sklearn-svc", 0.1),
        _ker("b", "snkp", 2.0),
        _ker("b", "nkp", 0.05),
        _ker("b", "sklearn-svc", 1.5),
    ]
    got = page.as_dict(page.kernels_texts({"suites": {"kernels": {"rows": ker}}}))
    assert got["bench-kernels-table"].splitlines()[2] == (
        "| a | 100 | 0.02 | 10 ms | >= 500 ms, no separator | 100 ms |"
    )
    assert got["bench-kernels-margins"].splitlines()[2] == "| a | 0.01 | - | 0.01 |"
    assert got["bench-kernels-n"] == 2 and got["bench-kernels-svc-max"] == "1.5 s"
    assert (got["bench-kernels-snkp-faster"], got["bench-kernels-nkp-faster"]) == (1, 1)
    no_svc = [r for r in ker if r["solver"] != "sklearn-svc"]
    got = page.as_dict(page.kernels_texts({"suites": {"kernels": {"rows": no_svc}}}))
    assert got["bench-kernels-svc-max"] == "not measured"
    assert (
        got["bench-kernels-table"]
        .splitlines()[2]
        .endswith("| 10 ms | >= 500 ms, no separator |  |")
    )


def test_large_nystroem_memory_and_regen_texts():
    lg = [
        {"n": 1000, "generate_s": 0.01, "solver": "snkp"},
        {"n": 100_000, "generate_s": 1.234, "solver": "snkp"},
    ]
    target = {
        "id": "nystroem-time-20000",
        "target": 30.0,
        "value": 12.0,
        "met": True,
        "detail": "12 s",
    }
    rec = {
        "targets": [target],
        "suites": {
            "large": {"rows": lg},
            "memory": {
                "rows": [
                    {
                        "algorithm": "snkp",
                        "n": 4000,
                        "gram_mb": 122.07,
                        "build_peak_over_baseline_in_G": 1.1,
                        "peak_over_baseline_in_G": 1.2,
                        "extra_iter_in_G": 0.0004,
                    }
                ]
            },
            "regen": {
                "chapters": [{"chapter": "ch01", "preset": "default", "runtime_s": 5.94}],
                "total_runtime_s": 5.94,
                "missing": ["ch02"],
            },
        },
    }
    got = page.as_dict(page.large_texts(rec))
    assert got["bench-gen-big"] == "1.23 s for n = 100000"
    assert got["bench-v-large-snkp-time"] == "**not measured** in this record"
    got = page.as_dict(page.nystroem_texts(rec))
    assert (
        got["bench-nystroem-targets"]
        == "* $n$ = 20,000, at most 30 s: within the reference value (12 <= 30). 12 s."
    )
    assert got["bench-nystroem-setup"] == "not measured in this record"
    assert got["bench-nystroem-m"] == 0
    rec["suites"]["nystroem"] = {"rows": [{"rho": 0.01, "d": 3, "gamma": 2.0, "n_components": 300}]}
    got = page.as_dict(page.nystroem_texts(rec))
    assert got["bench-nystroem-setup"] == "planted margin ρ = 0.01, dimension 3, γ = 2"
    assert got["bench-nystroem-m"] == 300
    got = page.as_dict(page.memory_texts(rec))
    assert got["bench-memory-table"].splitlines()[2] == "| snkp | 122 | 1.100 | 1.200 | 0.000 |"
    assert got["bench-mem-n"] == 4000
    got = page.as_dict(page.regen_texts(rec))
    assert got["bench-regen-table"].splitlines()[2] == "| ch01 | default | 5.9 |"
    assert got["bench-regen-missing"] == "ch02"
    assert got["bench-build"] == "not timed in this run"
    rec["suites"]["regen"] |= {"missing": [], "build_s": 61.4}
    got = page.as_dict(page.regen_texts(rec))
    assert (got["bench-regen-missing"], got["bench-build"]) == ("none", "61 s")


def test_certificates_texts_fastest_smallest_and_all_ok():
    rows = [
        {"solver": s, "n": n, "time_s": t, "norm_p_G": p, "certificate": True, "eps": 1e-6}
        for s, n, t, p in (
            ("nvn", 100, 0.01, 1e-6),
            ("clarabel", 100, 0.02, 1e-12),
            ("nvn", 400, 0.05, 1e-6),
            ("clarabel", 400, 0.03, 1e-13),
        )
    ]
    rec = {"suites": {"certificates": {"rows": rows}}}
    got = page.as_dict(page.certificates_texts(rec))
    assert got["bench-cert-n"] == 400 and got["bench-cert-nvn-t"] == 0.05
    assert math.isnan(got["bench-cert-isnkpvn-t"])  # not measured: NaN, as the page shows
    assert (got["bench-cert-fastest"], got["bench-cert-smallest"]) == ("Clarabel", "Clarabel")
    assert got["bench-cert-all-ok"] == "all"
    rows[2] |= {"time_s": 0.001, "certificate": False}
    got = page.as_dict(page.certificates_texts(rec))
    assert (got["bench-cert-fastest"], got["bench-cert-all-ok"]) == ("NVN", "not all")
    fig = page_figures.certificates(rec)
    assert len(fig.axes) == 2
    plt.close(fig)

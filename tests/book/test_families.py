"""The by-family comparison: its harness (quick sizes), its one check, who wins, the table.

The labels the benchmarks page and chapter 7 show are recomputed here from the committed
record's rows, independently of :func:`benchmarks.peers.analysis.family_winners`.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import _peer_runners as runners
from benchmarks import page
from benchmarks._config import BenchConfig
from benchmarks.peers import analysis, config
from benchmarks.record import load_record
from kperc.datasets import Dataset

#: Every kperc algorithm, as the harness names them.
KPERC_ALGORITHMS = ("perceptron", "normalized-perceptron", "nkp", "snkp", "isnkpvn")


@pytest.fixture(scope="module")
def quick_record(tmp_path_factory):
    from benchmarks.suites.families import suite_families

    out = tmp_path_factory.mktemp("families")
    result = suite_families(BenchConfig(quick=True, timings_dir=str(out)), log=lambda s: None)
    record = load_record(out / "families.json")
    return result, record


@pytest.fixture(scope="module")
def frec():
    return load_record(config.FAMILIES_OUT)


def _linear(fam: str) -> bool:
    return fam in ("planted", "spread", "crowded", "two_rays")


# ------------------------------------------------------------------- the harness, quick


def test_quick_run_covers_every_family_solver_and_size(quick_record):
    result, record = quick_record
    cfg = config.families_quick_config()
    assert result["file"] == "families.json" and "winners" in result
    assert record["command"] == "python -m benchmarks.bench --suite families --quick"
    want = sum(
        len(spec["ns"]) * len(spec["rhos"]) * len(spec["solvers"]) for spec in cfg.families.values()
    )
    assert len(record["rows"]) == want
    for fam, spec in cfg.families.items():
        solvers = {r["solver"] for r in record["rows"] if r["family"] == fam}
        assert solvers == set(spec["solvers"]), fam
        kperc_here = {"nkp", "snkp", "isnkpvn"} | (
            {"perceptron", "normalized-perceptron"} if _linear(fam) else set()
        )
        assert kperc_here <= solvers, fam


def test_quick_run_checks_every_answer_the_same_way(quick_record):
    _, record = quick_record
    done = [r for r in record["rows"] if r["status"] == "finished"]
    assert done and all(r["check"] == "rounding" for r in done)
    # at these sizes every solver separates, and every kperc separator is certified by kperc too
    assert all(r["separated"] for r in done)
    assert all(r["certified"] for r in done if r["solver"] in KPERC_ALGORITHMS)
    assert all(r["wrong"] == 0 for r in done)


def test_families_config_refuses_unknown_families_and_solvers():
    with pytest.raises(ValueError, match="unknown family 'nope'"):
        config.families_config(
            families={"nope": {"ns": (10,), "rhos": (0.1,), "d": 2, "solvers": ()}}
        )
    with pytest.raises(ValueError, match="lacks"):
        config.families_config(families={"planted": {"ns": (10,)}})
    bad = {"planted": {"ns": (10,), "rhos": (0.1,), "d": 2, "solvers": ("fast",)}}
    with pytest.raises(ValueError, match="unknown solver 'fast'"):
        config.families_config(families=bad)


def test_family_problems_have_their_margins():
    import kperc

    spec = {"n": 200, "d": 5, "rho": 0.05, "seed": 0}
    for fam in ("planted", "spread", "crowded"):
        ds = runners.family_problem({**spec, "family": fam})
        assert kperc.data_margin(ds.X, ds.y) == pytest.approx(0.05, rel=1e-6), fam
    norms = np.linalg.norm(runners.family_problem({**spec, "family": "spread"}).X, axis=1)
    assert norms.min() < 0.1 and norms.max() > 10
    rays = runners.family_problem({**spec, "family": "two_rays"})
    assert rays.info["r"] == pytest.approx(np.sqrt(2) / 10 / 0.05)
    real = runners.family_problem({**spec, "family": "xor-poly"})
    assert real.kernel == "poly" and real.kernel_params["degree"] == 2
    with pytest.raises(ValueError, match="unknown family"):
        runners.family_problem({**spec, "family": "nope"})


# ------------------------------------------------------------------------ the one check


def test_check_model_refuses_a_margin_within_rounding():
    X = np.array([[1.0, -1.0], [1.0, 0.0], [0.0, 1.0]])
    ds = Dataset(X, np.array([1.0, 1.0, 1.0]))
    eps = np.finfo(np.float64).eps
    w = np.array([1.0 + eps, 1.0])  # y_0 f(x_0) = eps > 0: cancellation, within rounding
    chk = runners.check_model(ds, {"kind": "linear", "w": w, "rows": "raw"})
    assert (chk["yf"] > 0).all() and not chk["separated"] and chk["wrong"] == 1
    w = np.array([1.0, 0.5])
    ok = runners.check_model(ds, {"kind": "linear", "w": w, "rows": "raw"})
    assert ok["separated"] and ok["margin"] == pytest.approx(0.5 / np.sqrt(2) / np.linalg.norm(w))
    with pytest.raises(ValueError, match="model kind"):
        runners.check_model(ds, {"kind": "tree"})


def test_check_model_kernel_form_matches_kperc_and_svc():
    from sklearn.svm import SVC

    import kperc

    ds = runners.family_problem({"family": "moons-rbf", "n": 0, "d": 0, "rho": 0.0, "seed": 0})
    p = runners._kparams(ds)
    G = kperc.gram_matrix(ds.X, ds.y, ds.kernel, **p)
    res = kperc.snkp(G)
    chk = runners.check_model(ds, {"kind": "kernel", "alpha": res.alpha}, block=64)
    np.testing.assert_allclose(chk["yf"], G @ res.alpha, atol=1e-12)
    assert chk["separated"] == (res.outcome == "separator")
    clf = SVC(kernel="rbf", C=1e8, **p).fit(ds.X, ds.y)
    alpha = np.zeros(len(ds.y))
    alpha[clf.support_] = np.abs(clf.dual_coef_.ravel())
    chk = runners.check_model(
        ds, {"kind": "kernel", "alpha": alpha, "b": float(clf.intercept_[0])}, block=50
    )
    np.testing.assert_allclose(chk["yf"], ds.y * clf.decision_function(ds.X), atol=1e-9)


# ------------------------------------------------------------------------ who wins


def _rows(*runs, family="spread", rho=0.001, n=1000):
    return [
        {"family": family, "rho": rho, "n": n, "solver": s, "status": st, "time_s": t,
         "separated": st == "finished" and sep, "nit": 7, "cap_s": 10.0}
        for s, st, t, sep in runs
    ]  # fmt: skip


def test_family_winners_sides_and_factors():
    both = analysis.family_winners(
        {"rows": _rows(("snkp", "finished", 0.5, True), ("svc-linear", "finished", 0.1, True))}
    )[0]
    assert (both["winner"], both["peer"], both["kperc"]) == ("sklearn", "svc-linear", "snkp")
    assert both["factor"] == pytest.approx(5.0) and both["factor_bound"] == "="
    capped = analysis.family_winners(
        {"rows": _rows(("nkp", "finished", 2.0, True), ("logreg", "timeout", 10.0, False))}
    )[0]
    assert capped["winner"] == "kperc" and capped["factor_bound"] == ">="
    assert capped["factor"] == pytest.approx(5.0)
    wrong = analysis.family_winners(
        {"rows": _rows(("snkp", "finished", 0.1, False), ("svc-linear", "finished", 3.0, True))}
    )[0]
    assert wrong["winner"] == "sklearn" and wrong["factor"] is None and wrong["kperc"] is None
    nobody = analysis.family_winners({"rows": _rows(("snkp", "timeout", 10.0, False))})[0]
    assert nobody["winner"] is None and nobody["fastest"] is None


def test_which_algorithm_rows_on_a_synthetic_record():
    rows = _rows(("snkp", "finished", 0.5, True), ("svc-linear", "finished", 0.1, True))
    rows += _rows(("snkp", "finished", 0.01, True), rho=0.01)
    rows += _rows(("nkp", "finished", 0.3, True), ("svc-kernel", "finished", 0.2, True),
                  family="circles-rbf", rho=0.0, n=200)  # fmt: skip
    out = page.which_algorithm_rows({"rows": rows})
    assert [r["family_key"] for r in out] == ["spread", "circles-rbf"]
    spread, circles = out
    assert spread["cell"].startswith("ρ = ") and spread["kperc_won"] == 1 and spread["cells"] == 2
    assert spread["verdict"] == "scikit-learn 5x faster" and spread["classifier"] == "snkp"
    assert circles["cell"] == "real data, n = 200" and circles["classifier"] == "nkp"
    table = page.which_algorithm_markdown({"rows": rows})
    assert table.count("\n") == 3 and "kernel SVC" in table
    with pytest.raises(ValueError, match="no rows of the family"):
        page.hardest_cell({"rows": rows}, "planted")


# ------------------------------------------------------------ the committed record


def test_every_kperc_algorithm_is_in_the_committed_grid(frec):
    for fam in page.families_of(frec):
        solvers = {r["solver"] for r in frec["rows"] if r["family"] == fam}
        need = set(KPERC_ALGORITHMS) if _linear(fam) else {"nkp", "snkp", "isnkpvn"}
        assert need <= solvers, fam
    assert {r["family"] for r in frec["rows"]} >= {"planted", "spread", "crowded", "two_rays"}


def test_labels_agree_with_the_committed_record(frec):
    """Each family's row of the table names the solvers its rows say were fastest."""
    kperc_side = set(config.KPERC_SOLVERS)
    for row in page.which_algorithm_rows(frec):
        fam = row["family_key"]
        cells = {(r["rho"], r["n"]) for r in frec["rows"] if r["family"] == fam}
        rho, n = min(cells, key=lambda c: (c[0], -c[1]))
        at = [r for r in frec["rows"] if r["family"] == fam and r["rho"] == rho and r["n"] == n]
        ok = [
            r
            for r in at
            if r["status"] == "finished" and r["separated"] is True and r.get("check") == "rounding"
        ]
        best = min(ok, key=lambda r: r["time_s"]) if ok else None
        assert row["fastest"] == (best["solver"] if best else None), fam
        mine = [r for r in ok if r["solver"] in kperc_side]
        kbest = min(mine, key=lambda r: r["time_s"]) if mine else None
        assert row["kperc"] == (kbest["solver"] if kbest else None), fam
        if best is not None:
            side = "kperc" if best["solver"] in kperc_side else "scikit-learn"
            assert row["verdict"].startswith(side) or row["verdict"].startswith("only " + side)


def test_the_committed_pages_show_the_table_of_the_record(frec):
    from kperc_book import paths

    want = page.which_algorithm_markdown(frec)
    for nb_name, key in (
        ("benchmarks.ipynb", "fam-which-table"),
        ("ch07_discussion.ipynb", "ch07-which-table"),
    ):
        nb = json.loads((paths.book_dir() / nb_name).read_text(encoding="utf-8"))
        shown = [
            o["data"]["application/papermill.record/text/markdown"]
            for c in nb["cells"]
            for o in c.get("outputs", [])
            if o.get("metadata", {}).get("scrapbook", {}).get("name") == key
        ]
        assert shown == [want], nb_name


def test_classifier_docstring_table_agrees_with_the_committed_record(frec):
    """Each family row of SNKPClassifier's "which algorithm when" table names the fastest
    of its algorithms at that family's hardest instance in the committed record."""
    import inspect
    import re

    import kperc

    doc = inspect.getdoc(kperc.SNKPClassifier)
    table = doc[doc.index("Which algorithm when") : doc.index("The default follows the table")]
    named = dict(re.findall(r"^\s*(\S.*?)\s{2,}\"(snkp|nkp|isnkpvn)\"", table, flags=re.M))
    by_name = {config.family_label(f): f for f in page.families_of(frec)}
    assert set(named) <= set(by_name), set(named) - set(by_name)
    generated = [f for f in page.GENERATED_FAMILIES if f in page.families_of(frec)]
    assert {by_name[k] for k in named} == set(generated)
    rows = {r["family_key"]: r for r in page.which_algorithm_rows(frec)}
    for name, algorithm in named.items():
        assert rows[by_name[name]]["classifier"] == algorithm, name
    assert 'default="snkp"' in doc


# ------------------------------------------------------------------- texts and figures


def test_texts_on_a_synthetic_record():
    rows = _rows(("snkp", "finished", 0.05, True), ("logreg", "finished", 0.01, True),
                 ("perceptron", "finished", 2.0, True))  # fmt: skip
    rows += _rows(("snkp", "finished", 0.4, True), ("logreg", "finished", 0.01, False),
                  ("nkp", "finished", 1.0, True), family="crowded")  # fmt: skip
    rows += _rows(("normalized-perceptron", "finished", 0.001, True),
                  ("snkp", "timeout", 10.0, False),
                  ("perceptron", "finished", 0.002, True), family="two_rays")  # fmt: skip
    rec = {"rows": rows}
    adv = page.adversarial_text(rec)
    assert "on *planted, spread norms* (ρ = " in adv
    assert "the fastest was LogisticRegression, in 10 ms, against 50 ms for SNKP (5 times" in adv
    assert (
        "on *crowded* (ρ = " in adv and "SNKP was the fastest, in 400 ms, 2.5 times faster" in adv
    )
    assert "on *two rays* (ρ₂/r = " in adv and "SNKP did not separate within the cap" in adv
    lr = page.logreg_text(rec)
    assert lr.startswith("`LogisticRegression` was the fastest of all on 1 of the 2 instances")
    assert "without a separator on *crowded*" in lr
    assert page.rays_text(rec).startswith("at most 7 updates, where the bound 50 *r*⁴ reaches ")
    assert page.rbf_why_text(rec) == "This record has no planted RBF problems."
    prec = {"rows": [{"solver": "snkp-factored"}, {"solver": "svc-linear"}]}
    assert "leave out `LogisticRegression`" in page.peers_caveat_text(rec, prec)
    assert page.adversarial_text({"rows": _rows(family="planted")}) == (
        "This record has no adversarial families."
    )


def test_family_grids_of_the_committed_record(frec):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from benchmarks import page_figures

    fig = page_figures.families_grid(frec, page.LINEAR_FAMILIES)
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert titles == [config.family_label(f) for f in page.LINEAR_FAMILIES]
    plt.close(fig)
    kernel = [f for f in page.families_of(frec) if f not in page.LINEAR_FAMILIES]
    fig = page_figures.families_grid(frec, kernel)
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == [
        "RBF, planted",
        "real problems",
    ]
    # each cell names the fastest solver of the record
    texts = [t.get_text() for t in fig.axes[1].texts]
    real = [f for f in kernel if f != "rbf"]
    assert len(texts) == len(real)
    plt.close(fig)
    for name in ("families-linear", "families-kernel"):
        assert name in page_figures.ALT
    with pytest.raises(ValueError, match="no family"):
        page_figures.families_grid(frec, [])


def test_command_writes_the_families_record(tmp_path, capsys):
    from benchmarks.peers import cli

    out = tmp_path / "fam.json"
    assert cli.main(["--families", "--quick", "--quiet", "--out", str(out)]) == 0
    rec = load_record(out)
    assert rec["command"].startswith("python -m benchmarks.peers --families --quick --out ")
    assert rec["config"]["raw_inputs"] is True and rec["config"]["families"]
    printed = capsys.readouterr().out
    assert page.which_algorithm_markdown(rec) in printed


def test_check_text_says_how_separation_was_decided(quick_record):
    _, record = quick_record
    assert "beyond rounding" in page.check_text(record)
    old = {"rows": [{"status": "finished", "separated": True}]}
    assert page.check_text(old).startswith("In this record the sign")

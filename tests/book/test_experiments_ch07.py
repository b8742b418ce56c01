"""Tests of kperc_book.experiments.ch07 (Chapter 7: discussion and open problems)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import kperc
import kperc_book.data
from kperc_book.experiments import ch07

# ----------------------------------------------------------------------------- glue


def _write_record(gen, key, glue):
    """A chapter record as kperc_book.chapter.Chapter writes it, with its glued values."""
    gen.mkdir(parents=True, exist_ok=True)
    payload = {"chapter": key, "checks": {}, "figures": {}, "datasets": {}, "glue": glue}
    (gen / f"{key}.json").write_text(json.dumps(payload))


def test_glued_values_returns_requested_numbers(tmp_path):
    _write_record(tmp_path, "ch04", {"a": 0.5, "b": 3, "c": "text"})
    assert ch07.glued_values("ch04", ["a", "b"], generated_dir=tmp_path) == {"a": 0.5, "b": 3}


def test_glued_values_fails_clearly_when_the_chapter_is_missing(tmp_path):
    with pytest.raises(ch07.MissingGlueError, match=r"python -m kperc_book.reproduce ch06"):
        ch07.glued_values("ch06", ["ratio"], generated_dir=tmp_path)


@pytest.mark.parametrize("payload", ["not json", "[1, 2]", '{"checks": {}}', '{"glue": 3}'])
def test_glued_values_fails_clearly_on_a_record_without_glue(tmp_path, payload):
    (tmp_path / "ch06.json").write_text(payload)
    with pytest.raises(ch07.MissingGlueError, match=r"python -m kperc_book.reproduce ch06"):
        ch07.glued_values("ch06", ["ratio"], generated_dir=tmp_path)


def test_glued_values_fails_clearly_when_a_key_is_missing(tmp_path):
    _write_record(tmp_path, "ch04", {"a": 0.5})
    with pytest.raises(ch07.MissingGlueError, match=r"'zzz'.*It glues: a"):
        ch07.glued_values("ch04", ["a", "zzz"], generated_dir=tmp_path)


@pytest.mark.parametrize("bad", ["text", float("nan"), True, None])
def test_glued_values_refuses_non_numbers(tmp_path, bad):
    _write_record(tmp_path, "ch04", {"a": bad})
    with pytest.raises(ch07.MissingGlueError, match="not finite numbers"):
        ch07.glued_values("ch04", ["a"], generated_dir=tmp_path)


def test_chapter_records_what_it_glues(tmp_path, monkeypatch):
    """Chapter.glue writes the rounded value into the record that chapter 7 reads."""
    from kperc_book.chapter import STAGING_ENV, Chapter

    monkeypatch.setenv(STAGING_ENV, str(tmp_path))
    ch = Chapter("ch42")
    ch.glue("x", np.float64(0.123456789), digits=3)
    ch.glue("n", np.int64(7))
    ch.glue("s", "1e-6")
    gen = tmp_path / "_generated"
    assert ch07.recorded_glue("ch42", gen) == {"x": 0.123, "n": 7, "s": "1e-6"}


def test_summary_table_quotes_every_measurement(tmp_path):
    need = ch07.required_glue()
    for ch, keys in need.items():
        _write_record(tmp_path, ch, {k: 1 + i / 10 for i, k in enumerate(keys)})
    values = ch07.measured_values(generated_dir=tmp_path)
    assert set(values) == {(ch, k) for ch, keys in need.items() for k in keys}
    table = ch07.summary_markdown(values, extra={"SNKPVN (Alg. 6)": "grows"})
    lines = table.strip().splitlines()
    assert len(lines) == 2 + len(ch07.ALGORITHMS)
    assert all(line.count("|") - line.count(r"\|") == 5 for line in lines)
    assert "grows" in table
    for alg in ch07.ALGORITHMS:
        for m in alg.measured:
            assert format(values[(m.chapter, m.key)], m.fmt) in table


def test_summary_table_fails_without_the_chapters(tmp_path):
    if not ch07.required_glue():  # pragma: no cover - the table always quotes something
        pytest.skip("no measurement quoted")
    with pytest.raises(ch07.MissingGlueError):
        ch07.measured_values(generated_dir=tmp_path)


# ------------------------------------------------------------------- open question


@pytest.mark.parametrize("n,seed", [(2, 0), (7, 1), (60, 2)])
def test_imbalanced_has_the_planted_margin(n, seed):
    ds = ch07.imbalanced(n, d=4, rho=0.1, seed=seed)
    G = kperc.gram_matrix(ds.X, ds.y)
    assert kperc.margin(G) == pytest.approx(0.1, abs=1e-10)
    A = kperc.signed_normalized_points(ds.X, ds.y)
    assert A[ds.info["lone"]] @ np.array([0, 1, 0, 0]) < 0
    assert np.min(A @ ds.info["w_star"]) >= 0.1 - 1e-12


def test_imbalanced_rejects_bad_parameters():
    with pytest.raises(ValueError):
        ch07.imbalanced(1)
    with pytest.raises(ValueError):
        ch07.imbalanced(10, rho=1.5)


def test_lower_bound_holds_and_grows():
    bounds = []
    for n in (20, 80, 320):
        ds = ch07.imbalanced(n, d=5, rho=0.1, seed=n)
        G = kperc.gram_matrix(ds.X, ds.y)
        beta = ch07.lone_weight_needed(G, ds.info["lone"])
        assert 0 < beta < 1
        lb = ch07.snkpvn_lower_bound(n, beta)
        r = kperc.snkpvn(G, delta=0.05)
        assert r.outcome == "separator"
        assert r.nit >= lb
        # the separator does put more than beta on the lone point
        assert r.alpha[ds.info["lone"]] > beta
        bounds.append(lb)
    assert bounds[0] < bounds[1] < bounds[2]


def test_snkpvn_lower_bound_formula():
    assert ch07.snkpvn_lower_bound(10, 0.0) == 0
    for n, beta in [(100, 0.3), (5000, 0.25)]:
        k = ch07.snkpvn_lower_bound(n, beta)
        assert k * (k + 1) > 2 * (n * beta - 1) >= (k - 1) * k


def test_isnkpvn_call_bound():
    assert ch07.isnkpvn_call_bound(0.5, 0.6, 2.0) == 1
    assert ch07.isnkpvn_call_bound(1.0, 0.05, 2.0) == math.ceil(math.log(20) / math.log(2))


@pytest.mark.ledger("snkpvn-bound")
def test_sweep_counts_respect_their_bounds():
    rows = ch07.n_sweep([30, 120], [0, 1], rho=0.1, d=5)
    assert len(rows) == 2 * 2 * 2
    res = ch07.check_bounds(rows, rho=0.1)
    assert set(res) == {"margin", "theorem-1", "snkpvn-bound", "isnkpvn", "snkpvn-lower"}
    assert all(v["ok"] for v in res.values()), res
    assert all(0 <= v["worst"] < 1 for k, v in res.items() if k != "margin")
    assert all("n = 30..120" in v["detail"] for k, v in res.items() if k != "snkpvn-lower")
    m = ch07.medians(rows, "imbalanced")
    assert m["n"].tolist() == [30, 120]
    assert np.all(m["snkpvn_min"] <= m["snkpvn"]) and np.all(m["snkpvn"] <= m["snkpvn_max"])


def test_check_bounds_detects_a_violation():
    row = {
        "n": 100,
        "rho_exact": 0.1,
        "norm_q0": 0.5,
        "snkp": 10**6,
        "snkp_outcome": "separator",
        "snkpvn": 3,
        "snkpvn_outcome": "separator",
        "isnkpvn": 3,
        "isnkpvn_calls": 1,
        "isnkpvn_outcome": "separator",
        "lower_bound": 5,
    }
    res = ch07.check_bounds([row], rho=0.1)
    assert not res["theorem-1"]["ok"]
    assert not res["snkpvn-lower"]["ok"]
    assert res["snkpvn-bound"]["ok"]


def test_probe_run_unknown_family():
    with pytest.raises(ValueError, match="unknown family"):
        ch07.probe_run("nope", 10, 0)


def test_slopes():
    n = np.array([10.0, 100.0, 1000.0])
    assert ch07.loglog_slope(n, 3 * np.sqrt(n)) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        ch07.loglog_slope(n, [1.0, 0.0, 2.0])
    with pytest.raises(ValueError):
        ch07.loglog_slope([1.0], [1.0])
    s = ch07.sqrt_log_slope(50, 5000)
    assert s == pytest.approx(ch07.loglog_slope([50, 5000], np.sqrt(np.log([50, 5000]))))
    assert 0 < s < 0.5


# ------------------------------------------------------------------------- the SVM


@pytest.mark.ledger("minimax-margin")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bias_free_svc_attains_the_exact_margin(seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (60, 2))
    keep = np.abs(np.sum(X**2, axis=1) - 0.5) > 0.1
    X = X[keep]
    y = np.where(np.sum(X**2, axis=1) < 0.5, 1.0, -1.0)
    G = kperc.gram_matrix(X, y, "rbf", gamma=2.0)
    rho = kperc.margin(G)
    alpha, info = ch07.svc_homogeneous(G)
    assert info["hard_margin"]
    assert abs(info["intercept"]) < 1e-5
    assert ch07.separator_margin(G, alpha) == pytest.approx(rho, rel=1e-4)


def test_svm_comparison_and_margin_paths_on_a_small_problem():
    probs = ch07.load_problems(["xor-poly"])
    rows = ch07.svm_comparison(probs)
    (r,) = rows
    assert r["problem"] == "xor-poly" and r["n"] == 200
    assert r["snkp_outcome"] == r["nkp_outcome"] == "separator"
    for key in ("snkp", "nkp", "svm"):
        assert 0 < r[key] <= r["rho"] * (1 + 1e-6)
    assert r["svm"] == pytest.approx(r["rho"], rel=1e-4)
    assert r["nkp_nit"] <= 1 / r["rho"] ** 2
    checks = ch07.svm_checks(rows)
    assert set(checks) == {"minimax-margin", "nkp-bound", "theorem-1"}
    assert all(c["ok"] and c["instances"] == 1 and c["detail"] for c in checks.values())
    bad = dict(r, svm=r["rho"] * 1.01)
    assert not ch07.svm_checks([bad])["minimax-margin"]["ok"]
    paths = ch07.margin_paths(probs, max_iter=100)
    p = paths["xor-poly"]
    assert p["nkp"].shape == (101,) and p["snkp"].shape == (101,)
    assert np.max(p["nkp"]) <= 1 + 1e-9 and np.max(p["snkp"]) <= 1 + 1e-9
    assert p["nkp_first"] == r["nkp_nit"] and p["snkp_first"] == r["snkp_nit"]


# ------------------------------------------------------------------------ timings


def test_read_timings_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="--suite svm"):
        ch07.read_timings(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"date": "x", "machine": {}, "command": "c"}))
    with pytest.raises(ValueError, match="results"):
        ch07.read_timings(bad)


def test_committed_timings_are_readable():
    payload = ch07.read_timings()
    problems = {r["problem"] for r in payload["results"]}
    assert problems == set(kperc_book.data.PROBLEMS)
    table = ch07.timings_markdown(payload)
    assert table.count("\n") == 2 + len(problems)


def test_the_chapter_uses_sweeps_blas_option_not_bare_threadpool_limits():
    import inspect

    import kperc_book.experiments.ch07 as pkg

    for mod in ("glue", "summary", "open_question", "svm", "timings", "affine"):
        src = inspect.getsource(__import__(f"{pkg.__name__}.{mod}", fromlist=["x"]))
        assert "threadpool_limits" not in src, mod


# ------------------------------------------------------------------ affine margin


def test_affine_margin_demo():
    r = ch07.affine_margin_demo()
    assert r["rho_span"] == pytest.approx(-0.3, abs=1e-9)
    assert r["rho_span_embedded"] == pytest.approx(r["rho_span"], abs=1e-12)
    assert r["orth_value"] == 0.0
    assert r["certificate_norm"] < 1e-12

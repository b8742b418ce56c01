"""The ``large`` suite: the factored operator at large ``n``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks._config import (
    BenchConfig,
)
from benchmarks._problems import (
    planted_problem,
)
from benchmarks._runners import (
    _kperc_row,
    run_sklearn_perceptron,
)
from benchmarks._timing import _now, run_capped
from benchmarks.targets import target
from kperc._kernels import gram_operator
from kperc._perceptrons import nkp, snkp

#: Speed-ups: met when the value reaches the target from below.
HIGHER_IS_BETTER = frozenset({"large-nkp-speedup", "large-sklearn-speedup"})


def suite_large(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """The factored operator at large ``n`` (d = 50 by default), planted margin 1e-3."""
    rows = []
    for n in cfg.large_ns:
        t0 = _now()
        ds = planted_problem(n, cfg.d, cfg.large_rho, cfg.seed)
        gen = _now() - t0
        t0 = _now()
        op = gram_operator(ds.X, ds.y)
        build = _now() - t0
        base = {
            "n": n,
            "d": cfg.d,
            "rho": cfg.large_rho,
            "reference_margin": ds.info["rho"],
            "generate_s": gen,
            "operator_build_s": build,
            "operator": "factored",
        }
        s = run_capped(lambda k, op=op: snkp(op, max_iter=k, check_input=False), cfg.large_cap_s)
        rows.append({**base, **_kperc_row("snkp", s, op)})
        msg = f"large n={n:<8d} generate {gen:.3g}s snkp {s['time_s']:.3g}s ({rows[-1]['nit']} it)"
        if n <= cfg.large_nkp_max_n:
            cap = float(min(cfg.large_cap_s, max(cfg.min_cap_s, cfg.large_rel_cap * s["time_s"])))
            k = run_capped(lambda k, op=op: nkp(op, max_iter=k, check_input=False), cap)
            rows.append({**base, **_kperc_row("nkp", k, op)})
            msg += f" nkp {k['time_s']:.3g}s{' (capped)' if k['capped'] else ''}"
        cap = float(min(cfg.large_cap_s, max(cfg.min_cap_s, cfg.peer_rel_cap * s["time_s"])))
        sk = run_sklearn_perceptron(ds.X, ds.y, cap, seed=cfg.seed)
        rows.append({**base, "solver": "sklearn-perceptron", **sk})
        msg += f" sklearn {sk['time_s']:.3g}s{' (capped)' if sk['capped'] else ''}"
        log(msg)
        del ds, op
    return {"rows": rows}


def targets(large: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """SNKP against NKP and scikit-learn's Perceptron at large ``n``; SNKP's time at the largest."""
    out: list[dict[str, Any]] = []
    if large:
        rows = large["rows"]
        ns = sorted({r["n"] for r in rows})
        mid = 100_000 if 100_000 in ns else (ns[-2] if len(ns) > 1 else ns[-1])
        s = next((r for r in rows if r["n"] == mid and r["solver"] == "snkp"), None)
        k = next((r for r in rows if r["n"] == mid and r["solver"] == "nkp"), None)
        sk = next((r for r in rows if r["n"] == mid and r["solver"] == "sklearn-perceptron"), None)
        if s and k:
            sp = k["time_s"] / s["time_s"]
            exact = not k["capped"]
            ok = s["separated"] and sp >= 10 if (exact or sp >= 10) else None
            out.append(
                target(
                    "large-nkp-speedup",
                    f"SNKP vs NKP, factored, n = {mid}, rho = {cfg.large_rho}",
                    sp,
                    10.0,
                    ok,
                    f"SNKP {s['time_s']:.3g} s ({s['nit']} it), NKP "
                    + (
                        f"{k['time_s']:.3g} s"
                        if exact
                        else f"stopped after {k['time_s']:.3g} s / {k['nit']} it "
                        "without a separator"
                    )
                    + f": speed-up {'=' if exact else '>='} {sp:.3g}",
                )
            )
        if s and sk:
            sp = sk["time_s"] / s["time_s"]
            ok = (sp > 1) if (not sk["capped"] or sp > 1) else None
            out.append(
                target(
                    "large-sklearn-speedup",
                    f"SNKP vs scikit-learn Perceptron, n = {mid}",
                    sp,
                    1.0,
                    ok,
                    f"Perceptron {sk['time_s']:.3g} s ({sk['nit']} epochs"
                    + ("" if sk["separated"] else ", no separator yet")
                    + f"), SNKP {s['time_s']:.3g} s: ratio {'=' if not sk['capped'] else '>='} "
                    f"{sp:.3g}",
                )
            )
        big = max(ns)
        sb = next((r for r in rows if r["n"] == big and r["solver"] == "snkp"), None)
        if sb:
            out.append(
                target(
                    "large-snkp-time",
                    f"SNKP wall time, factored, n = {big}",
                    sb["time_s"],
                    120.0,
                    sb["separated"] and sb["time_s"] < 120.0,
                    f"{sb['time_s']:.3g} s, {sb['nit']} iterations, "
                    f"{'separator found' if sb['separated'] else 'no separator'}; generating the "
                    f"instance took {sb['generate_s']:.3g} s",
                )
            )
    return out

"""The ``separator`` suite: time to a separator; crossover margins."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
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
from kperc._kernels import gram_matrix, gram_operator
from kperc._perceptrons import nkp, perceptron, snkp


def crossover(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Margin below which SNKP halts sooner (wall time) than NKP, for one ``n`` and ``G``.

    ``rows`` are separator rows of one instance family with solvers ``"snkp"`` and
    ``"nkp"``. At each margin the speed-up ``s = t_NKP / t_SNKP`` is known exactly, or
    only from below when NKP was stopped (``>=``), or from above when SNKP was stopped.
    The crossover is bracketed between the smallest margin where NKP is faster
    (``s < 1``) and the largest smaller margin where SNKP is faster (``s > 1``), and
    interpolated linearly in ``log s`` against ``log rho`` (bounds used as values).

    Returns
    -------
    dict
        ``rho_star`` (None when not bracketed), ``bracket`` ``[rho_lo, rho_hi]``,
        ``kind`` (``"interpolated"``, ``"snkp-always"`` when SNKP wins at every
        measured margin, ``"nkp-always"`` when NKP does, or ``"undecided"``) and the
        speed-ups per margin.
    """
    by_rho: dict[float, dict[str, dict[str, Any]]] = {}
    for r in rows:
        by_rho.setdefault(r["rho"], {})[r["solver"]] = r
    pts = []
    for rho in sorted(by_rho, reverse=True):
        s, k = by_rho[rho].get("snkp"), by_rho[rho].get("nkp")
        if s is None or k is None:
            continue
        ratio = k["time_s"] / max(s["time_s"], 1e-12)
        if s["capped"] and k["capped"]:
            rel = "unknown"
        elif k["capped"]:
            rel = ">="
        elif s["capped"]:
            rel = "<="
        else:
            rel = "="
        wins = None
        if rel in ("=", ">=") and ratio > 1:
            wins = "snkp"
        elif rel in ("=", "<=") and ratio < 1:
            wins = "nkp"
        pts.append({"rho": rho, "speedup": ratio, "relation": rel, "winner": wins})
    out: dict[str, Any] = {"points": pts, "rho_star": None, "bracket": None}
    decided = [p for p in pts if p["winner"] is not None]
    if not decided:
        out["kind"] = "undecided"
        return out
    if all(p["winner"] == "snkp" for p in decided):
        out["kind"] = "snkp-always"
        out["bracket"] = [None, decided[0]["rho"]]
        return out
    # the largest margin at which SNKP wins after the last NKP win above it
    last_nkp = max(i for i, p in enumerate(decided) if p["winner"] == "nkp")
    after = [p for p in decided[last_nkp + 1 :] if p["winner"] == "snkp"]
    if not after:
        out["kind"] = "nkp-always"
        out["bracket"] = [decided[last_nkp]["rho"], None]
        return out
    hi, lo = decided[last_nkp], after[0]
    x0, x1 = math.log(hi["rho"]), math.log(lo["rho"])
    y0, y1 = math.log(hi["speedup"]), math.log(lo["speedup"])
    xs = x0 + (0.0 - y0) * (x1 - x0) / (y1 - y0) if y1 != y0 else 0.5 * (x0 + x1)
    out.update(kind="interpolated", rho_star=float(math.exp(xs)), bracket=[lo["rho"], hi["rho"]])
    return out


def _separator_run(
    n: int, rho: float, cfg: BenchConfig, rows: list[dict[str, Any]], log: Callable[[str], None]
) -> None:
    ds = planted_problem(n, cfg.d, rho, cfg.seed)
    X, y = ds.X, ds.y
    t0 = _now()
    G = gram_matrix(X, y)
    build = _now() - t0
    op = gram_operator(X, y)
    base = {
        "n": n,
        "d": cfg.d,
        "rho": rho,
        "reference_margin": ds.info["rho"],
        "reference": "planted (exact)",
    }

    def cap_rel(t_snkp: float) -> float:
        return float(min(cfg.cap_s, max(cfg.min_cap_s, cfg.rel_cap * t_snkp)))

    t_snkp: dict[str, float] = {}
    for kind, GG in (("dense", G), ("factored", op)):
        s = run_capped(lambda k, GG=GG: snkp(GG, max_iter=k, check_input=False), cfg.cap_s)
        srow = _kperc_row("snkp", s, GG)
        k = run_capped(
            lambda k, GG=GG: nkp(GG, max_iter=k, check_input=False), cap_rel(s["time_s"])
        )
        krow = _kperc_row("nkp", k, GG)
        for r in (srow, krow):
            rows.append(
                {**base, "operator": kind, **r, "gram_build_s": build if kind == "dense" else None}
            )
        log(
            f"separator n={n:<5d} rho={rho:<7.0e} {kind:8s} snkp {s['time_s']:.3g}s "
            f"({srow['nit']} it{', capped' if s['capped'] else ''})  nkp {k['time_s']:.3g}s "
            f"({krow['nit']} it{', capped' if k['capped'] else ''})"
        )
        t_snkp[kind] = s["time_s"]
    # the perceptrons only need to be timed up to the faster SNKP's time to be ranked
    cap = float(min(cfg.cap_s, max(cfg.min_cap_s, cfg.peer_rel_cap * min(t_snkp.values()))))
    p = run_capped(lambda k: perceptron(X, y, max_iter=k), cap)
    rows.append({**base, "operator": "data", **_kperc_row("perceptron", p, op)})
    sk = run_sklearn_perceptron(X, y, cap, seed=cfg.seed)
    rows.append({**base, "operator": "data", "solver": "sklearn-perceptron", **sk})
    log(
        f"separator n={n:<5d} rho={rho:<7.0e} data     kperc perceptron {p['time_s']:.3g}s"
        f"{' (capped)' if p['capped'] else ''}  sklearn {sk['time_s']:.3g}s "
        f"({sk['nit']} epochs{', capped' if sk['capped'] else ''})"
    )


def suite_separator(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Time to a separator on planted instances; crossover margins of SNKP over NKP."""
    rows: list[dict[str, Any]] = []
    for n in cfg.sizes:
        for rho in cfg.rhos:
            _separator_run(n, rho, cfg, rows, log)
    cross = []
    for kind in ("dense", "factored"):
        for n in cfg.sizes:
            sub = [r for r in rows if r["n"] == n and r["operator"] == kind]
            c = crossover(sub)
            cross.append({"operator": kind, "n": n, **c})
            log(f"crossover {kind:8s} n={n:<5d} {c['kind']:12s} rho* = {c['rho_star']}")
    return {"rows": rows, "crossover": cross}


def summary(sep: dict[str, Any]) -> list[str]:
    """Lines of the text summary: the crossover margin per ``n`` and operator."""
    lines: list[str] = []
    if sep:
        lines.append("")
        lines.append("crossover margin (SNKP faster than NKP below it)")
        for c in sep["crossover"]:
            rs = f"{c['rho_star']:.3g}" if c["rho_star"] else "-"
            lines.append(
                f"  {c['operator']:8s} n={c['n']:<6d} {c['kind']:12s} rho* = {rs}"
                f"  bracket {c['bracket']}"
            )
    return lines

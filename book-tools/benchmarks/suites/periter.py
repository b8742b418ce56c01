"""The ``periter`` suite: time per iteration over the time of one product."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks._config import (
    PERITER_ALGOS,
    PERITER_RHO,
    PERITER_TARGETS,
    BenchConfig,
)
from benchmarks._problems import (
    periter_problem,
)
from benchmarks._timing import _now, per_iteration_interleaved
from benchmarks.targets import target
from kperc._kernels import gram_matrix, gram_operator


def suite_periter(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Per-iteration cost of NKP, NVN, SNKP, SNKPVN against one product with ``G``."""
    rows = []
    for n in (*cfg.sizes, *cfg.factored_extra_sizes):
        dense = n in cfg.sizes
        X, y = periter_problem(n, cfg.d, cfg.seed)
        t0 = _now()
        G = gram_matrix(X, y) if dense else None
        build = _now() - t0
        op = gram_operator(X, y)
        for kind, GG in ((("dense", G),) if dense else ()) + (("factored", op),):
            # the repeats of the four algorithms alternate (round robin), each next to
            # its own product, so a busy phase of the machine hits all of them alike
            ms = per_iteration_interleaved(
                PERITER_ALGOS, GG, repeats=cfg.repeats, target_time=0.02 if cfg.quick else 0.08
            )
            for alg in PERITER_ALGOS:
                m = ms[alg]
                row = {
                    "n": n,
                    "d": cfg.d,
                    "operator": kind,
                    "algorithm": alg,
                    **m,
                    "target": PERITER_TARGETS[alg],
                    "met": m["ratio"] <= PERITER_TARGETS[alg],
                    "gram_build_s": build if kind == "dense" else None,
                }
                rows.append(row)
                log(
                    f"periter n={n:<6d} {kind:8s} {alg:7s} ratio {m['ratio']:.3f} "
                    f"[{m['ratio_spread']['min']:.3f}-{m['ratio_spread']['max']:.3f}] "
                    f"(target {PERITER_TARGETS[alg]}, {m['per_iter_s'] * 1e6:.1f} us/iter, "
                    f"product {m['matvec_s'] * 1e6:.1f} us)"
                )
        del G, op
    return {
        "rows": rows,
        "instance": f"planted, rho = {PERITER_RHO:g}",
        "clock": "thread CPU time",
        "schedule": "round robin over the algorithms, each repeat next to its own product",
    }


def targets(per: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """The per-iteration targets: for each operator and algorithm, the worst ratio over ``n``."""
    out: list[dict[str, Any]] = []
    if per:
        for kind in ("dense", "factored"):
            for alg in PERITER_ALGOS:
                rs = [r for r in per["rows"] if r["operator"] == kind and r["algorithm"] == alg]
                if not rs:
                    continue
                worst = max(rs, key=lambda r: r["ratio"])
                tgt = PERITER_TARGETS[alg]
                out.append(
                    target(
                        f"periter-{kind}-{alg}",
                        f"{alg.upper()} time per iteration / one product ({kind} G), worst n",
                        worst["ratio"],
                        tgt,
                        worst["ratio"] <= tgt,
                        f"worst at n = {worst['n']}: {worst['ratio']:.3g} (target <= {tgt}); "
                        f"{sum(r['ratio'] <= tgt for r in rs)} of {len(rs)} sizes meet it",
                    )
                )
    return out


def summary(per: dict[str, Any]) -> list[str]:
    """Lines of the text summary: the ratios per operator, algorithm and ``n``."""
    lines: list[str] = []
    if per:
        lines.append("")
        lines.append("time per iteration / one product with G: median [min-max over repeats]")
        ns = sorted({r["n"] for r in per["rows"]})
        lines.append(f"{'':18s}" + "".join(f"{n:>22d}" for n in ns))
        for kind in ("dense", "factored"):
            for alg in PERITER_ALGOS:
                vals = {
                    r["n"]: r
                    for r in per["rows"]
                    if r["operator"] == kind and r["algorithm"] == alg
                }
                lines.append(f"{kind + ' ' + alg:18s}" + "".join(_cell(vals.get(n)) for n in ns))
    return lines


def _cell(row: dict[str, Any] | None) -> str:
    """``median [min-max]`` of a per-iteration row, 22 characters wide."""
    if row is None:
        return f"{'-':>22s}"
    sp = row.get("ratio_spread")
    if not sp:
        return f"{row['ratio']:22.3f}"
    return f"{row['ratio']:8.3f} [{sp['min']:.2f}-{sp['max']:.2f}]".rjust(22)

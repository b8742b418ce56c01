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
from benchmarks._instances import (
    periter_instance,
)
from benchmarks._timing import _now, per_iteration_interleaved
from kperc._kernels import gram_matrix, gram_operator


def suite_periter(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Per-iteration cost of NKP, NVN, SNKP, SNKPVN against one product with ``G``."""
    rows = []
    for n in (*cfg.sizes, *cfg.factored_extra_sizes):
        dense = n in cfg.sizes
        X, y = periter_instance(n, cfg.d, cfg.seed)
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

"""The ``large`` suite: the factored operator at large ``n``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks._config import (
    BenchConfig,
)
from benchmarks._instances import (
    planted_instance,
)
from benchmarks._runners import (
    _kperc_row,
    run_sklearn_perceptron,
)
from benchmarks._timing import _now, run_capped
from kperc._kernels import gram_operator
from kperc._perceptrons import nkp, snkp


def suite_large(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """The factored operator at large ``n`` (d = 50 by default), planted margin 1e-3."""
    rows = []
    for n in cfg.large_ns:
        t0 = _now()
        ds = planted_instance(n, cfg.d, cfg.large_rho, cfg.seed)
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

"""The ``kernels`` suite: the book's kernel problems against libsvm."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks._config import (
    BenchConfig,
)
from benchmarks._runners import (
    _kperc_row,
    run_svc,
)
from benchmarks._timing import _now, run_capped
from kperc._perceptrons import nkp, snkp
from kperc_book import data as _data


def suite_kernels(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """The real kernel problems: NKP, SNKP and libsvm's SVC on the same normalised kernel."""
    from kperc._margins import margin

    rows = []
    for name in cfg.kernel_problems:
        G, ds, kernel, params = _data.problem(name)
        n = G.shape[0]
        t0 = _now()
        ref = float(margin(G))
        t_ref = _now() - t0
        base = {
            "problem": name,
            "n": n,
            "kernel": kernel,
            "reference_margin": ref,
            "reference": "kperc.margin",
            "reference_time_s": t_ref,
        }
        s = run_capped(lambda k, G=G: snkp(G, max_iter=k, check_input=False), cfg.cap_s)
        rows.append({**base, **_kperc_row("snkp", s, G)})
        cap = float(min(cfg.cap_s, max(cfg.min_cap_s, cfg.rel_cap * s["time_s"])))
        k = run_capped(lambda k, G=G: nkp(G, max_iter=k, check_input=False), cap)
        rows.append({**base, **_kperc_row("nkp", k, G)})
        v = run_svc(G, ds.y)
        rows.append({**base, "solver": "sklearn-svc", **v})
        log(
            f"kernels {name:20s} n={n:<4d} rho={ref:.3g} snkp {s['time_s']:.3g}s nkp "
            f"{k['time_s']:.3g}s{' (capped)' if k['capped'] else ''} svc {v['time_s']:.3g}s"
        )
    return {"rows": rows}

"""The ``certificates`` suite: NVN and ISNKPVN against Clarabel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._config import (
    BenchConfig,
)
from benchmarks._runners import (
    _signed_points,
)
from benchmarks._timing import _now
from kperc._kernels import gram_matrix
from kperc._primal_dual import isnkpvn
from kperc._von_neumann import nvn
from kperc_book import data as _data


def _clarabel_certificate(Z: np.ndarray, eps: float) -> dict[str, Any]:
    """``min ||Z^T p||`` over the simplex with Clarabel through CVXPY (an SOCP)."""
    import cvxpy as cp

    n = Z.shape[0]
    p = cp.Variable(n)
    prob = cp.Problem(cp.Minimize(cp.norm(Z.T @ p, 2)), [p >= 0, cp.sum(p) == 1])
    t0 = _now()
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=eps * 1e-2, tol_gap_rel=1e-10, tol_feas=1e-10)
    dt = _now() - t0
    q = np.clip(np.asarray(p.value, dtype=np.float64), 0.0, None)
    q /= q.sum()
    stats = prob.solver_stats
    return {
        "time_s": dt,
        "solve_time_s": float(stats.solve_time or 0.0),
        "nit": int(stats.num_iters or 0),
        "norm_p_G": float(np.linalg.norm(Z.T @ q)),
        "status": str(prob.status),
    }


def suite_certificates(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """NVN and ISNKPVN to ``eps`` on infeasible instances against Clarabel (CVXPY)."""
    try:
        import cvxpy  # noqa: F401

        have_qp = True
    except ImportError:  # pragma: no cover - optional benchmark extra
        have_qp = False
    rows = []
    d = min(cfg.d, 5)
    for n in cfg.cert_sizes:
        ds = _data.infeasible(n, d, -0.05, seed=cfg.seed)
        G = gram_matrix(ds.X, ds.y)
        Z = _signed_points(ds.X, ds.y)
        base = {"n": n, "d": d, "eps": cfg.cert_eps, "reference_margin": ds.info["rho"]}
        for name, fn in (("nvn", nvn), ("isnkpvn", isnkpvn)):
            t0 = _now()
            r = fn(G, eps=cfg.cert_eps, check_input=False)
            dt = _now() - t0
            ok = r.outcome == "certificate"
            rows.append(
                {
                    **base,
                    "solver": name,
                    "time_s": dt,
                    "nit": int(r.nit),
                    "certificate": ok,
                    "norm_p_G": float(np.linalg.norm(Z.T @ r.p)),
                }
            )
        if have_qp:
            c = _clarabel_certificate(Z, cfg.cert_eps)
            rows.append(
                {**base, "solver": "clarabel", "certificate": c["norm_p_G"] <= cfg.cert_eps, **c}
            )
        log(
            f"certificates n={n} "
            + " ".join(
                f"{r['solver']} {r['time_s']:.3g}s |p|_G={r['norm_p_G']:.2g}"
                for r in rows
                if r["n"] == n
            )
        )
    return {"rows": rows, "qp_solver": "clarabel via cvxpy" if have_qp else None}

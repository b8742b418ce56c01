"""The ``nystroem`` suite: kernel problems beyond memory, end to end, with peak memory.

``SNKPClassifier(kernel="rbf", n_components="auto")`` is fitted on a planted RBF problem
(:func:`benchmarks._peer_runners.rbf_problem`, ``d = 3``) at ``n`` up to a million, as a
user would fit it: the Nystroem features are built inside ``fit``, so the time is end to
end. Each size runs in a subprocess that reports its wall time, whether the model
separates every training point with a separator certified under the exact kernel
(``converged_``: the grown rank's check), and the peak resident memory of the fit above what was
resident before it, in units of the ``n x m`` feature matrix (8 n m bytes): memory
``O(n m)`` means that this ratio stays bounded as ``n`` grows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._config import (
    NYSTROEM_MEMORY_TARGET,
    NYSTROEM_TARGETS_S,
    REPO_DIR,
    BenchConfig,
)
from benchmarks.targets import target

_CHILD = r"""
import json, sys, time
import numpy as np
from benchmarks._procmem import reset_peak, status
from threadpoolctl import threadpool_limits
from benchmarks._peer_runners import rbf_problem
from kperc import SNKPClassifier
n, threads, seed = (int(a) for a in sys.argv[1:4])
rho, gamma = (float(a) for a in sys.argv[4:6])
if threads > 0:
    threadpool_limits(threads, user_api="blas")
t0 = time.perf_counter()
ds = rbf_problem(n, 3, rho, seed, gamma=gamma)
generate = time.perf_counter() - t0
SNKPClassifier(kernel="rbf", gamma=gamma).fit(ds.X[:200], ds.y[:200])  # warm imports
before = status("VmRSS:")
can_reset = reset_peak()
t0 = time.perf_counter()
clf = SNKPClassifier(kernel="rbf", gamma=gamma, n_components="auto").fit(ds.X, ds.y)
fit = time.perf_counter() - t0
peak = status("VmHWM:")
margins = clf.decision_function(ds.X) * ds.y
print(json.dumps({
    "generate_s": generate, "time_s": fit, "before": before, "peak": peak,
    "can_reset": can_reset, "gram_form": clf.gram_form_, "m": clf.n_components_,
    "outcome": clf.outcome_, "n_iter": int(clf.n_iter_),
    "certified": bool(clf.converged_),
    "separated": bool(clf.converged_ and np.all(margins > 0)),
    "train_fraction": float(np.mean(margins > 0)),
}))
"""


def suite_nystroem(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """End-to-end fits of the classifier on Nystroem features, with peak memory."""
    if not Path("/proc/self/status").exists():  # pragma: no cover - Linux only
        return {"rows": [], "skipped": "needs /proc (Linux)"}
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_DIR) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    rows = []
    for n in cfg.nystroem_ns:
        args = [n, cfg.blas_threads or 0, cfg.seed, cfg.nystroem_rho, cfg.nystroem_gamma]
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, *map(str, args)],
            capture_output=True,
            text=True,
            env=env,
            cwd=str(REPO_DIR),
            timeout=1800,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"the nystroem subprocess failed at n = {n}: {proc.stderr[-2000:]}")
        m = json.loads(proc.stdout.strip().splitlines()[-1])
        feat = 8.0 * n * (m["m"] or n)
        row = {
            "n": n,
            "d": 3,
            "rho": cfg.nystroem_rho,
            "gamma": cfg.nystroem_gamma,
            "gram_form": m["gram_form"],
            "n_components": m["m"],
            "time_s": m["time_s"],
            "generate_s": m["generate_s"],
            "outcome": m["outcome"],
            "nit": m["n_iter"],
            "certified": m["certified"],
            "separated": m["separated"],
            "train_fraction": m["train_fraction"],
            "peak_mb": (m["peak"] - m["before"]) / 2**20,
            "peak_in_features": (m["peak"] - m["before"]) / feat,
            "peak_reset": bool(m["can_reset"]),
        }
        rows.append(row)
        log(
            f"nystroem n={n:<8d} {row['gram_form']} m={row['n_components']} fit "
            f"{row['time_s']:.3g}s ({row['nit']} it, {row['outcome']}) peak "
            f"{row['peak_mb']:.0f} MB = {row['peak_in_features']:.2f} x 8nm"
        )
    return {"rows": rows}


def targets(ny: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """Seconds to a separator at each ``n`` with a target, and the peak memory of a fit."""
    out: list[dict[str, Any]] = []
    if ny and ny["rows"]:
        for r in ny["rows"]:
            tgt = NYSTROEM_TARGETS_S.get(r["n"])
            if tgt is None:
                continue
            ok = r["separated"] and r["time_s"] <= tgt
            out.append(
                target(
                    f"nystroem-time-{r['n']}",
                    f"RBF classifier on Nystroem features, n = {r['n']:,}, seconds to a "
                    "separator, end to end",
                    r["time_s"],
                    tgt,
                    ok,
                    f"{r['n_components']} features, {r['nit']} iterations, outcome "
                    f"{r['outcome']}; separates {100 * r['train_fraction']:.4g} % of the "
                    "training points",
                )
            )
        worst = max(ny["rows"], key=lambda r: r["peak_in_features"])
        out.append(
            target(
                "nystroem-memory",
                "peak memory of a Nystroem fit, units of its n x m features, worst n",
                worst["peak_in_features"],
                NYSTROEM_MEMORY_TARGET,
                worst["peak_in_features"] <= NYSTROEM_MEMORY_TARGET,
                "; ".join(
                    f"n = {r['n']:,}: {r['peak_mb']:.0f} MB = {r['peak_in_features']:.2f} x 8nm"
                    for r in ny["rows"]
                ),
            )
        )
    return out

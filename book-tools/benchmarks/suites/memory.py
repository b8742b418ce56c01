"""The ``memory`` suite: peak resident memory, in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._config import (
    REPO_DIR,
    BenchConfig,
)
from benchmarks.targets import target

_MEMORY_CHILD = r"""
import json, sys
from benchmarks._procmem import reset_peak, status
import kperc
from benchmarks._problems import random_labels, _fixed_run
n, d, iters, threads = (int(a) for a in sys.argv[1:5])
algs = sys.argv[5].split(",")
if threads > 0:
    from threadpoolctl import threadpool_limits
    threadpool_limits(threads, user_api="blas")
X, y = random_labels(n, d, 0)
kperc.snkp(kperc.gram_matrix(X[:50], y[:50], "rbf"), max_iter=2)  # warm every code path
baseline = status("VmRSS:")
can_reset = reset_peak()
G = kperc.gram_matrix(X, y, "rbf", gamma=1.0 / d)
out = {"baseline": baseline, "build_peak": status("VmHWM:"), "after_build": status("VmRSS:"),
       "gram_bytes": G.nbytes, "can_reset": can_reset, "runs": {}}
for alg in algs:
    reset_peak()
    before = status("VmRSS:")
    if alg == "validate":
        kperc.snkp(G, max_iter=1)  # check_input=True: symmetry, diagonal (PSD test if small)
    else:
        _fixed_run(alg, G, iters)
    out["runs"][alg] = {"before": before, "peak": status("VmHWM:")}
print(json.dumps(out))
"""

MEMORY_ALGOS = ("validate", "nkp", "nvn", "snkp", "snkpvn")


def suite_memory(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Peak resident memory of building ``G`` and of each algorithm, in a subprocess.

    The subprocess imports kperc (``baseline`` = resident memory then), builds an RBF
    ``G`` of size ``n`` (peak: ``build``), then, for each algorithm, resets the
    kernel's peak counter (``/proc/self/clear_refs``) and runs it for a fixed number of
    iterations (peak: ``run``). ``extra_iter_in_G`` is what the run added on top of
    what was resident before it, in units of ``G``: an ``n x n`` temporary inside the
    iterations would show up as about 1. Without a peak reset (old kernels) only the
    overall peak is meaningful.
    """
    if not Path("/proc/self/status").exists():  # pragma: no cover - Linux only
        return {"rows": [], "skipped": "needs /proc (Linux)"}
    n = cfg.memory_n
    iters = 5 if cfg.quick else 30
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_DIR) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _MEMORY_CHILD,
            str(n),
            str(cfg.d),
            str(iters),
            str(cfg.blas_threads or 0),
            ",".join(MEMORY_ALGOS),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO_DIR),
        timeout=900,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the memory subprocess failed: {proc.stderr[-2000:]}")
    m = json.loads(proc.stdout.strip().splitlines()[-1])
    gb = m["gram_bytes"]
    base = m["baseline"]
    rows = []
    for alg in MEMORY_ALGOS:
        r = m["runs"][alg]
        peak = max(m["build_peak"], r["peak"])
        row = {
            "n": n,
            "algorithm": alg,
            "gram_mb": gb / 2**20,
            "baseline_mb": base / 2**20,
            "build_peak_over_baseline_in_G": (m["build_peak"] - base) / gb,
            "run_peak_over_baseline_in_G": (r["peak"] - base) / gb,
            "peak_over_baseline_in_G": (peak - base) / gb,
            "extra_iter_in_G": (r["peak"] - r["before"]) / gb,
            "peak_reset": bool(m["can_reset"]),
        }
        rows.append(row)
        log(
            f"memory n={n} {alg:8s} peak - baseline = {row['peak_over_baseline_in_G']:.2f} G "
            f"(build {row['build_peak_over_baseline_in_G']:.2f} G; the run adds "
            f"{row['extra_iter_in_G']:.3f} G)"
        )
    return {"rows": rows, "kernel": "rbf", "iterations": iters}


def targets(mem: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """Peak memory and the memory added by the iterations, in units of ``G``."""
    out: list[dict[str, Any]] = []
    if mem and mem["rows"]:
        worst = max(mem["rows"], key=lambda r: r["peak_over_baseline_in_G"])
        out.append(
            target(
                "memory-peak",
                f"peak RSS - baseline, in units of G (n = {worst['n']})",
                worst["peak_over_baseline_in_G"],
                2.0,
                worst["peak_over_baseline_in_G"] <= 2.0,
                f"worst: {worst['algorithm']} ({worst['gram_mb']:.0f} MB G)",
            )
        )
        it = max(
            (r for r in mem["rows"] if r["algorithm"] != "validate"),
            key=lambda r: r["extra_iter_in_G"],
        )
        out.append(
            target(
                "memory-iterations",
                "memory added by the iterations, units of G",
                it["extra_iter_in_G"],
                0.5,
                it["extra_iter_in_G"] < 0.5,
                f"worst: {it['algorithm']}; an n x n temporary would add ~1",
            )
        )
    return out


def timed(cfg: BenchConfig) -> bool:
    """Never: the suite measures memory, which other processes' load does not change."""
    return False

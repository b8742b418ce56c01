"""The run loop: every (family, margin, n, solver) of a configuration, and its record."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from benchmarks import _machine
from benchmarks.peers.analysis import crossovers
from benchmarks.peers.config import FAMILY_KEYS, SCHEMA_VERSION, PeersConfig
from benchmarks.peers.worker import Worker
from benchmarks.record import clean_json
from kperc_book.machine import loadavg, machine_info


def _loadavg() -> float | None:
    load = loadavg()
    return round(float(load[0]), 2) if load else None


def is_busy(load_before: float | None, load_after: float | None, cores: int | None) -> bool | None:
    """Whether other work competed for the cores during the run (``None``: unknown).

    The harness's one busy rule (:func:`benchmarks._machine.busy_verdict`), with this
    comparison's own load of one BLAS thread.
    """
    if load_before is None or load_after is None:
        return None
    return _machine.busy_verdict([load_before], [load_after], cores, 1)["busy"]


def _dense_needs_gb(n: int) -> float:
    return 8.0 * n * n / 2**30


def _uses_dense(name: str, n: int, cfg: PeersConfig) -> bool:
    return name == "snkp-dense" or (name == "nkp" and n <= cfg.nkp_dense_max_n)


def _families(cfg: PeersConfig):
    if cfg.linear_ns:
        yield "linear", cfg.linear_ns, cfg.linear_rhos, cfg.linear_solvers, cfg.d
    if cfg.rbf_ns:
        yield "rbf", cfg.rbf_ns, cfg.rbf_rhos, cfg.rbf_solvers, cfg.rbf_d
    for fam, spec in cfg.families.items():
        yield fam, spec["ns"], spec["rhos"], spec["solvers"], spec["d"]


def run(cfg: PeersConfig, log: Callable[[str], None] = print, command: str | None = None):
    """Run every (family, margin, n, solver) of ``cfg``; return the record (JSON-ready).

    The families are "linear" and "rbf" (when their sizes are not empty), then those of
    ``cfg.families``; a run of every one checks its answer with
    :func:`benchmarks._peer_runners.evaluate`.
    """
    t_start = time.perf_counter()
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_before = _loadavg()
    rows: list[dict[str, Any]] = []
    instances: list[dict[str, Any]] = []
    worker = Worker(cfg.blas_threads)
    try:
        for family, ns, rhos, solvers, d in _families(cfg):
            for rho in rhos:
                stopped: dict[str, str] = {}  # solver -> why it is skipped from now on
                for n in sorted(ns):
                    spec = {
                        "family": family,
                        "n": int(n),
                        "d": int(d),
                        "rho": float(rho),
                        "seed": cfg.seed,
                        "gamma": cfg.rbf_gamma,
                        "margin_max_n": cfg.margin_max_n,
                    }
                    info = None
                    for name in solvers:
                        base = {"family": family, "rho": float(rho), "n": int(n), "d": int(d)}
                        base["solver"] = name
                        if name in stopped:
                            rows.append({**base, "status": "skipped", "reason": stopped[name]})
                            log(f"{family:6s} rho={rho:<6.0e} n={n:<8d} {name:18s} skipped")
                            continue
                        if _uses_dense(name, n, cfg) and _dense_needs_gb(n) > cfg.dense_max_gb:
                            need = _dense_needs_gb(n)
                            rows.append(
                                {
                                    **base,
                                    "status": "skipped",
                                    "memory_needed_gb": need,
                                    "reason": f"the dense n x n G would need {need:.3g} GB "
                                    f"(limit {cfg.dense_max_gb:g} GB)",
                                }
                            )
                            log(f"{family:6s} rho={rho:<6.0e} n={n:<8d} {name:18s} skipped (G)")
                            continue
                        if info is None:
                            t0 = time.perf_counter()
                            info = worker.prepare(spec)
                            instances.append({**spec, **info})
                            log(
                                f"{family:6s} rho={rho:<6.0e} n={n:<8d} instance in "
                                f"{time.perf_counter() - t0:.2f} s"
                                + (
                                    f", kernel margin {info['kernel_margin']:.3g}"
                                    if info.get("kernel_margin") is not None
                                    else ""
                                )
                            )
                        out = worker.fit(spec, name, cfg)
                        row = {**base, **out, "cap_s": cfg.cap_s}
                        rows.append(row)
                        if out["status"] in ("timeout", "error"):
                            stopped[name] = (
                                f"timed out at n = {n} (cap {cfg.cap_s:g} s)"
                                if out["status"] == "timeout"
                                else f"failed at n = {n}: {out.get('error', '?')}"
                            )
                        log(_progress(row))
    finally:
        worker.stop()
    load_after = _loadavg()
    machine = machine_info()
    record = {
        "schema": SCHEMA_VERSION,
        "command": command or "python -m benchmarks.peers",
        "started_utc": started,
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "elapsed_s": time.perf_counter() - t_start,
        "loadavg_1min_before": load_before,
        "loadavg_1min_after": load_after,
        "busy": is_busy(load_before, load_after, machine.get("cores")),
        "blas_threads": cfg.blas_threads,
        "machine": machine,
        "config": asdict(cfg),
        "instances": instances,
        "rows": rows,
    }
    record["crossovers"] = crossovers(record)
    return clean_json(record)


def _progress(row: dict[str, Any]) -> str:
    head = f"{row['family']:6s} rho={row['rho']:<6.0e} n={row['n']:<8d} {row['solver']:18s}"
    st = row["status"]
    if st == "finished":
        m = row.get("margin")
        return (
            f"{head} {row['time_s']:8.3g} s  separated={row['separated']}"
            + (f" margin={m:.3g}" if m is not None else "")
            + (f" ({row['margin_space']})" if row.get("margin_space") else "")
        )
    if st == "timeout":
        return f"{head} did not finish within the cap ({row['cap_s']:g} s)"
    return f"{head} {st}: {row.get('error', row.get('reason', ''))}"


def merge_family(old: dict[str, Any], new: dict[str, Any], family: str) -> dict[str, Any]:
    """``old`` with the rows, instances and configuration of ``family`` taken from ``new``.

    For re-measuring one family without re-running the other: the other family's rows,
    instances and configuration keys (:data:`benchmarks.peers.config.FAMILY_KEYS`) stay
    those of ``old``, the crossovers are recomputed, ``busy`` is true if either run was
    busy, and ``family_runs[family]`` records the command, times, load and machine of
    the new run (the top-level ones stay those of ``old``).
    """
    if family not in FAMILY_KEYS:
        raise ValueError(f"family must be one of {sorted(FAMILY_KEYS)}; got {family!r}")
    other = [f for f in FAMILY_KEYS if f != family]
    merged = dict(old)
    merged["rows"] = [r for r in old["rows"] if r["family"] != family] + [
        r for r in new["rows"] if r["family"] == family
    ]
    merged["instances"] = [i for i in old["instances"] if i["family"] != family] + [
        i for i in new["instances"] if i["family"] == family
    ]
    config = dict(new["config"])
    for f in other:
        for key in FAMILY_KEYS[f]:
            if key in old["config"]:
                config[key] = old["config"][key]
    merged["config"] = config
    if old.get("busy") is None or new.get("busy") is None:
        merged["busy"] = old.get("busy") or new.get("busy") or None
    else:
        merged["busy"] = bool(old["busy"] or new["busy"])
    keys = ("command", "started_utc", "finished_utc", "elapsed_s", "loadavg_1min_before")
    keys += ("loadavg_1min_after", "busy", "machine")
    merged["family_runs"] = {**old.get("family_runs", {}), family: {k: new[k] for k in keys}}
    merged["crossovers"] = crossovers(merged)
    return clean_json(merged)

"""Run the configured suites and assemble the benchmark record."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks._config import SCHEMA_VERSION, BenchConfig
from benchmarks._machine import _blas_threads, busy_verdict, loadavg, machine_info
from benchmarks._timing import _now
from benchmarks.record import clean_json, display_path
from benchmarks.suites import SUITES, is_timed, suite_func
from benchmarks.targets import evaluate_targets
from kperc_book.chapter import _json_default


def run(
    cfg: BenchConfig, log: Callable[[str], None] = print, command: str | None = None
) -> dict[str, Any]:
    """Run the configured suites and return the benchmark record (JSON-ready)."""
    unknown = set(cfg.suites) - set(SUITES)
    if unknown:
        raise ValueError(f"unknown suite(s) {sorted(unknown)}; choose from {SUITES}")
    t_start = _now()
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_start = loadavg()
    suites: dict[str, Any] = {}
    timings: dict[str, float] = {}
    with _blas_threads(cfg.blas_threads):
        for name in SUITES:
            if name not in cfg.suites:
                continue
            t0 = _now()
            load0 = loadavg()
            suites[name] = suite_func(name)(cfg, log)
            timings[name] = _now() - t0
            load1 = loadavg()
            timed = is_timed(name, cfg)
            verdict = busy_verdict(load0, load1, os.cpu_count(), cfg.blas_threads)
            suites[name]["measured"] = {
                "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "elapsed_s": timings[name],
                "loadavg_start": load0,
                "loadavg_end": load1,
                "busy": verdict["busy"] if timed else None,
                "busy_load_1min": verdict["load_1min"],
                "busy_limit": verdict["limit"],
                "command": command or "python -m benchmarks.bench",
            }
            if timed and verdict["busy"]:
                log(
                    f"{name}: measured on a busy machine (1-minute load average "
                    f"{verdict['load_1min']:.2f} above {verdict['limit']:.2f})"
                )
    settings = asdict(cfg)
    if settings.get("timings_dir"):  # no machine paths in the record
        settings["timings_dir"] = display_path(Path(settings["timings_dir"]))
    record = {
        "schema": SCHEMA_VERSION,
        "command": command or "python -m benchmarks.bench",
        "started_utc": started,
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "elapsed_s": _now() - t_start,
        "suite_elapsed_s": timings,
        "loadavg_start": load_start,
        "loadavg_end": loadavg(),
        "machine": machine_info(),
        "settings": settings,
        "suites": suites,
        "busy_suites": [k for k, v in suites.items() if v["measured"]["busy"]],
        "targets": evaluate_targets(suites, cfg),
    }
    return clean_json(json.loads(json.dumps(record, default=_json_default)))

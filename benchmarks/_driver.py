"""Run the configured suites and assemble the benchmark record."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np

from benchmarks._config import (
    SCHEMA_VERSION,
    SUITES,
    BenchConfig,
)
from benchmarks._machine import _blas_threads, _loadavg, machine_info
from benchmarks._timing import _now
from benchmarks.suites import SUITE_FUNCS
from benchmarks.targets import evaluate_targets
from kperc_book.chapter import _json_default


def _clean(obj):
    """Replace NaN/inf by None so that the JSON is strict."""
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, (float, np.floating)) and not math.isfinite(float(obj)):
        return None
    return obj


def run(
    cfg: BenchConfig, log: Callable[[str], None] = print, command: str | None = None
) -> dict[str, Any]:
    """Run the configured suites and return the benchmark record (JSON-ready)."""
    unknown = set(cfg.suites) - set(SUITES)
    if unknown:
        raise ValueError(f"unknown suite(s) {sorted(unknown)}; choose from {SUITES}")
    t_start = _now()
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_start = _loadavg()
    suites: dict[str, Any] = {}
    timings: dict[str, float] = {}
    with _blas_threads(cfg.blas_threads):
        for name in SUITES:
            if name not in cfg.suites:
                continue
            t0 = _now()
            load0 = _loadavg()
            suites[name] = SUITE_FUNCS[name](cfg, log)
            timings[name] = _now() - t0
            suites[name]["measured"] = {
                "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "elapsed_s": timings[name],
                "loadavg_start": load0,
                "loadavg_end": _loadavg(),
                "command": command or "python -m benchmarks.bench",
            }
    settings = asdict(cfg)
    record = {
        "schema": SCHEMA_VERSION,
        "command": command or "python -m benchmarks.bench",
        "started_utc": started,
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "elapsed_s": _now() - t_start,
        "suite_elapsed_s": timings,
        "loadavg_start": load_start,
        "loadavg_end": _loadavg(),
        "machine": machine_info(),
        "settings": settings,
        "suites": suites,
        "targets": evaluate_targets(suites, cfg),
    }
    return _clean(json.loads(json.dumps(record, default=_json_default)))

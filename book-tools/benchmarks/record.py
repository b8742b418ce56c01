"""Benchmark records: strict JSON, atomic writes, reading and merging."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._config import (
    DEFAULT_OUT,
    BenchConfig,
)
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


def write_json(path: Path, payload: dict[str, Any], *, indent: int = 1) -> None:
    """Write ``payload`` as strict, sorted JSON, atomically (temporary file, then rename).

    A failed or interrupted run leaves the previous file intact.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=indent, sort_keys=True, allow_nan=False) + "\n")
    os.replace(tmp, path)


def merge(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Replace the suites of ``old`` that ``new`` measured; recompute the targets.

    Each suite keeps its own ``measured`` block (time, load, command), so a merged
    record still says when and how every number was measured.
    """
    if old.get("schema") != new.get("schema"):
        return new
    suites = {**old.get("suites", {}), **new["suites"]}
    cfg = BenchConfig(
        **{k: tuple(v) if isinstance(v, list) else v for k, v in new["settings"].items()}
    )
    merged = {**new, "suites": suites}
    merged["suite_elapsed_s"] = {**old.get("suite_elapsed_s", {}), **new["suite_elapsed_s"]}
    # the record as a whole spans every run that contributed a suite
    merged["elapsed_s"] = float(sum(merged["suite_elapsed_s"].values()))
    merged["started_utc"] = min(old.get("started_utc", new["started_utc"]), new["started_utc"])
    if old.get("command") and old["command"] != new["command"]:
        merged["command"] = f"{old['command']}, then {new['command']}"
    merged["settings_by_suite"] = {
        **old.get("settings_by_suite", {}),
        **{k: new["settings"] for k in new["suites"]},
    }
    merged["targets"] = _clean(
        json.loads(json.dumps(evaluate_targets(suites, cfg), default=_json_default))
    )
    return merged


def load_record(path: Path | str | None = None) -> dict[str, Any]:
    """Read a benchmark record (default ``book/_generated/bench.json``)."""
    return json.loads(Path(path or DEFAULT_OUT).read_text())

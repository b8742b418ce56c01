"""Benchmark records: strict JSON, atomic writes, reading and merging."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._config import DEFAULT_OUT, REPO_DIR, BenchConfig
from benchmarks.targets import evaluate_targets
from kperc_book._fsio import atomic_write
from kperc_book.chapter import _json_default


def clean_json(obj):
    """JSON-ready: numpy scalars to Python, NaN/inf to None (strict JSON), keys to text.

    Examples
    --------
    >>> import numpy as np
    >>> clean_json({1: [np.float64(0.5), float("nan")], "t": (np.int64(3),)})
    {'1': [0.5, None], 't': [3]}
    """
    if isinstance(obj, dict):
        return {str(k): clean_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean_json(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def write_json(path: Path | str, payload: dict[str, Any], *, indent: int = 1) -> Path:
    """Write ``payload`` as strict, sorted JSON, atomically (:func:`kperc_book._fsio.atomic_write`).

    The one writer of the harness's files (``bench.json``, ``peers.json``, the chapters'
    timings). A failed or interrupted write leaves the previous file intact and no
    temporary file behind; NaN is refused (``ValueError``).
    """
    path = Path(path)
    text = json.dumps(payload, indent=indent, sort_keys=True, allow_nan=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, text)


def display_path(path: Path | str) -> str:
    """``path`` relative to the checkout, or only its name: records hold no machine paths."""
    try:
        return str(Path(path).resolve().relative_to(REPO_DIR))
    except ValueError:
        return Path(path).name


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
    merged["targets"] = clean_json(
        json.loads(json.dumps(evaluate_targets(suites, cfg), default=_json_default))
    )
    return merged


def load_record(path: Path | str | None = None) -> dict[str, Any]:
    """Read a record of the harness (default ``book/_generated/bench.json``).

    The peer comparison's record is ``load_record(benchmarks.peers.config.DEFAULT_OUT)``.
    """
    return json.loads(Path(path or DEFAULT_OUT).read_text())

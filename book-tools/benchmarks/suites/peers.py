"""The ``peers`` suite: time to a separator, kperc against scikit-learn's solvers.

The comparison itself lives in the package :mod:`benchmarks.peers` (its own command,
``python -m benchmarks.peers``); this suite runs it from the harness so that
``make bench`` measures everything in one command. It writes
``book/_generated/peers.json`` (the file the benchmarks page reads; a ``--quick`` run
writes beside its output instead) and returns the crossovers for the benchmark record.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._config import BenchConfig
from benchmarks.peers import analysis, config, measure
from benchmarks.record import write_json

#: The command recorded in the file when the harness writes it.
COMMAND = "python -m benchmarks.bench --suite peers"


def run_and_write(
    cfg: BenchConfig,
    log: Callable[[str], None],
    pcfg: config.PeersConfig,
    out: Path,
    command: str,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run the comparison with ``pcfg`` and write its record to ``out`` (beside the other
    timings when ``cfg.timings_dir`` is set): the record and the suite's common result."""
    record = measure.run(pcfg, log=log, command=command + (" --quick" if cfg.quick else ""))
    path = Path(cfg.timings_dir) / out.name if cfg.timings_dir else out
    write_json(path, record)
    common = {"file": path.name, "busy": record["busy"], "elapsed_s": record["elapsed_s"]}
    return record, common


def suite_peers(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the peer comparison (quick sizes when ``cfg.quick``) and write its file."""
    pcfg = config.quick_config() if cfg.quick else config.default_config()
    record, common = run_and_write(cfg, log, pcfg, config.DEFAULT_OUT, COMMAND)
    return {**common, "crossovers": analysis.crossovers(record)}

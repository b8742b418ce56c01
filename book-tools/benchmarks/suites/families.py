"""The ``families`` suite: who reaches a certified separator first, family by family.

Every kperc algorithm (Perceptron, Normalised Perceptron, NKP, SNKP, ISNKPVN) and
scikit-learn's solvers on the same instances of each problem family, by the comparison
harness :mod:`benchmarks.peers` with :func:`benchmarks.peers.config.families_config`
(its own command: ``python -m benchmarks.peers --families``). It writes
``book/_generated/families.json`` (the file the benchmarks page and chapter 7 read; with
``cfg.timings_dir`` set, beside the other timings instead) and returns the winners for the
benchmark record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks._config import BenchConfig
from benchmarks.peers import analysis, config
from benchmarks.suites.peers import run_and_write

#: The command recorded in the file when the harness writes it.
COMMAND = "python -m benchmarks.bench --suite families"


def suite_families(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the by-family comparison (small sizes when ``cfg.quick``) and write its file."""
    fcfg = config.families_quick_config() if cfg.quick else config.families_config()
    record, common = run_and_write(cfg, log, fcfg, config.FAMILIES_OUT, COMMAND)
    return {**common, "winners": analysis.family_winners(record)}

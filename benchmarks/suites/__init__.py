"""The benchmark suites, one module each; :data:`SUITE_FUNCS` maps a name to its function."""

from __future__ import annotations

from benchmarks.suites.certificates import suite_certificates
from benchmarks.suites.kernels import suite_kernels
from benchmarks.suites.large import suite_large
from benchmarks.suites.memory import suite_memory
from benchmarks.suites.periter import suite_periter
from benchmarks.suites.regen import suite_regen
from benchmarks.suites.separator import suite_separator

SUITE_FUNCS = {
    "periter": suite_periter,
    "separator": suite_separator,
    "kernels": suite_kernels,
    "large": suite_large,
    "certificates": suite_certificates,
    "memory": suite_memory,
    "regen": suite_regen,
}

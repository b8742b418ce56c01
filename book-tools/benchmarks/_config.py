"""Configuration of a benchmark run: suites, sizes, caps, targets."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.suites import SUITES
from kperc_book import data as _data
from kperc_book import paths as _paths
from kperc_book.experiments.ch04 import REAL_PROBLEMS

REPO_DIR = _paths.ROOT
DEFAULT_OUT = _paths.GENERATED_DIR / "bench.json"
SCHEMA_VERSION = 1
#: Targets of the per-iteration suite: time per iteration / time of one ``G @ v``.
PERITER_TARGETS = {"snkp": 1.3, "snkpvn": 2.3, "nkp": 0.2, "nvn": 0.2}
#: Target of the ``dist`` suite: seconds for ``dist_to_witness`` at its largest ``n``.
DIST_TARGET_S = 1.0
#: Targets of the ``nystroem`` suite: seconds end to end at these ``n``, and the peak
#: memory of a fit in units of its ``n x m`` feature matrix.
NYSTROEM_TARGETS_S = {100_000: 30.0, 1_000_000: 300.0}
NYSTROEM_MEMORY_TARGET = 4.0
#: Algorithms of the per-iteration suite, cheapest first.
PERITER_ALGOS = ("nkp", "nvn", "snkp", "snkpvn")
#: Planted hard instances: this fraction of the points lies in a band of relative
#: width ``NEAR_WIDTH`` just above the margin.
NEAR, NEAR_WIDTH = 0.5, 1.0
#: Planted margin of the per-iteration instance (no algorithm halts on it).
PERITER_RHO = 1e-6


@dataclass
class BenchConfig:
    """Sizes, caps and repeats of a benchmark run.

    Attributes
    ----------
    suites : tuple of str
        Which suites to run (a subset of :data:`SUITES`).
    sizes : tuple of int
        ``n`` for the per-iteration and dense separator suites.
    factored_extra_sizes : tuple of int
        Larger ``n`` at which the per-iteration suite also measures the factored
        operator (where its product is memory-bound, as for a dense ``G``).
    d : int
        Dimension of the generated instances.
    repeats : int
        Repeats per measurement (medians are reported).
    rhos : tuple of float
        Planted margins of the separator suite, largest first.
    cap_s : float
        Longest run of one algorithm on one instance (seconds).
    rel_cap : float
        NKP and the perceptrons are stopped after ``rel_cap`` times SNKP's time on
        the same instance (within ``[min_cap_s, cap_s]``): a stopped run then proves
        that SNKP is at least ``rel_cap`` times faster there.
    peer_rel_cap : float
        The same for kperc's and scikit-learn's Perceptron in the separator suite.
    min_cap_s : float
        Smallest cap for relative caps.
    large_ns : tuple of int
        ``n`` of the large factored-operator suite.
    large_rho : float
        Planted margin of the large suite.
    large_nkp_max_n : int
        NKP runs in the large suite up to this ``n`` (it needs a time cap anyway).
    large_rel_cap : float
        Relative cap of NKP in the large suite (10.5: a stopped run proves a speed-up
        above the 10x target).
    large_cap_s : float
        Absolute cap in the large suite.
    cert_sizes : tuple of int
        ``n`` of the certificate suite.
    cert_eps : float
        Certificate tolerance.
    dist_sizes : tuple of int
        ``n`` of the ``dist`` suite (``kperc.dist_to_witness``).
    memory_n : int
        ``n`` of the memory suite.
    nystroem_ns : tuple of int
        ``n`` of the ``nystroem`` suite (end-to-end RBF fits on Nystroem features).
    nystroem_rho, nystroem_gamma : float
        Planted kernel margin and RBF parameter of its instances.
    seed : int
        Seed of every generated instance.
    blas_threads : int
        BLAS threads during the measurements.
    build : bool
        Also time ``jupyter-book build`` in the regeneration suite.
    quick : bool
        Smoke-run sizes.
    kernel_problems : tuple of str
        Problems of the ``kernels`` suite.
    floor_n, floor_d : int
        Size of the ``floor`` suite's instance (factored operator).
    realdata_problems : tuple of str
        Problems of the ``realdata`` suite (Chapter 4's timings).
    realdata_repeats : int
        Timed runs per method in the ``realdata`` suite.
    svm_problems : tuple of str
        Problems of the ``svm`` suite (Chapter 7's timings).
    svm_repeats : int
        Timed runs per method in the ``svm`` suite.
    timings_dir : str, optional
        Folder of the chapters' timing files written by ``realdata`` and ``svm``
        (default ``book/_generated/timings``).
    """

    suites: tuple[str, ...] = SUITES
    sizes: tuple[int, ...] = (500, 1000, 2000, 4000)
    factored_extra_sizes: tuple[int, ...] = (100_000,)
    d: int = 50
    repeats: int = 5
    rhos: tuple[float, ...] = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4)
    cap_s: float = 60.0
    rel_cap: float = 1.5
    peer_rel_cap: float = 1.1
    min_cap_s: float = 1.0
    large_ns: tuple[int, ...] = (10_000, 100_000, 1_000_000)
    large_rho: float = 1e-3
    large_nkp_max_n: int = 100_000
    large_rel_cap: float = 10.5
    large_cap_s: float = 110.0
    cert_sizes: tuple[int, ...] = (500, 1000, 2000, 4000)
    cert_eps: float = 1e-6
    dist_sizes: tuple[int, ...] = (100, 200, 400, 1000)
    memory_n: int = 4000
    nystroem_ns: tuple[int, ...] = (100_000, 1_000_000)
    nystroem_rho: float = 1e-2
    nystroem_gamma: float = 2.0
    seed: int = 0
    blas_threads: int = 1
    build: bool = False
    quick: bool = False
    kernel_problems: tuple[str, ...] = field(default_factory=lambda: tuple(_data.PROBLEMS))
    floor_n: int = 2000
    floor_d: int = 50
    realdata_problems: tuple[str, ...] = REAL_PROBLEMS
    realdata_repeats: int = 21
    svm_problems: tuple[str, ...] = field(default_factory=lambda: tuple(_data.PROBLEMS))
    svm_repeats: int = 7
    timings_dir: str | None = None


def default_config(**overrides: Any) -> BenchConfig:
    """The full benchmark (about 10-15 minutes on 2 cores)."""
    return BenchConfig(**overrides)


def quick_config(**overrides: Any) -> BenchConfig:
    """A smoke run of every suite at tiny sizes (seconds)."""
    base = {
        "sizes": (120, 200),
        "factored_extra_sizes": (),
        "d": 8,
        "repeats": 2,
        "rhos": (1e-1, 1e-2),
        "cap_s": 2.0,
        "min_cap_s": 0.2,
        "large_ns": (3000,),
        "large_rho": 1e-2,
        "large_nkp_max_n": 3000,
        "large_cap_s": 3.0,
        "cert_sizes": (60,),
        "cert_eps": 1e-4,
        "dist_sizes": (40,),
        "memory_n": 300,
        "nystroem_ns": (6000,),
        "quick": True,
        "kernel_problems": ("xor-poly",),
        "floor_n": 300,
        "floor_d": 8,
        "realdata_problems": ("circles-rbf",),
        "realdata_repeats": 2,
        "svm_problems": ("xor-poly",),
        "svm_repeats": 1,
    }
    base.update(overrides)
    return BenchConfig(**base)


def timings_path(cfg: BenchConfig, name: str) -> Path:
    """Where a chapter's timing file ``name`` goes: ``cfg.timings_dir`` or the book's."""
    return (Path(cfg.timings_dir) if cfg.timings_dir else _paths.TIMINGS_DIR) / name

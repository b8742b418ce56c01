"""Benchmark harness: ``python -m benchmarks.bench``.

Speed is a measured, published property of the book. This module measures it in one
process, side by side, with medians over repeats, and writes one JSON file (default
``book/_generated/bench.json``) that the appendix page ``book/benchmarks.ipynb``
reads. The notebook never times anything itself, so the book regenerates
byte-identically.

Suites (``--suite``, default all):

``periter``
    Time per iteration of NKP, NVN, SNKP and SNKPVN divided by the time of one product
    ``G @ v`` with the same ``G``, for a dense ``G`` and for the factored linear
    operator (:class:`kperc.GramOperator`). Each algorithm runs a fixed number of
    iterations on an instance where it does not halt (:func:`periter_instance`), with
    ``check_input=False``; the setup is removed by differencing two run lengths.
``separator``
    Time to a separator on planted hard instances (half the points near the margin),
    margins ``1e-1`` to ``1e-4``: SNKP and NKP on dense ``G`` and on the factored
    operator, kperc's Perceptron and scikit-learn's Perceptron on the data. Runs
    longer than a cap are stopped and reported as lower bounds. The crossover margin
    below which SNKP beats NKP is located for every ``n``.
``kernels``
    The real kernel problems of :data:`kperc_book.data.PROBLEMS`: NKP, SNKP and
    scikit-learn's SVC (libsvm, hard margin through a large ``C``, precomputed kernel).
``large``
    The factored operator at ``n`` up to ``10^6`` with ``d = 50``, ``rho = 1e-3``:
    SNKP against NKP (capped) and scikit-learn's Perceptron.
``certificates``
    NVN and ISNKPVN to ``eps = 1e-6`` on infeasible instances against
    ``min ||p||_G`` over the simplex solved by Clarabel through CVXPY.
``memory``
    Peak resident memory, measured in a subprocess, against the size of ``G``.
``regen``
    Chapter regeneration times from ``book/_generated/runs.json`` (written by
    ``python -m kperc_book.reproduce``) and, with ``--build``, the time of
    ``jupyter-book build``.

``--quick`` runs every suite at tiny sizes in seconds (the smoke test of the test
suite). BLAS runs single-threaded by default (``--blas-threads``): on a shared 2-core
machine a multi-threaded matrix-vector product waits for busy cores and becomes up to
100 times slower, which would measure the machine's load rather than the algorithms.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from kperc._kernels import GramOperator, gram_matrix, gram_operator
from kperc._perceptrons import nkp, perceptron, snkp
from kperc._primal_dual import isnkpvn, snkpvn
from kperc._von_neumann import nvn
from kperc_book import data as _data
from kperc_book import paths as _paths
from kperc_book.chapter import _json_default

__all__ = [
    "BenchConfig",
    "SUITES",
    "PERITER_TARGETS",
    "default_config",
    "quick_config",
    "machine_info",
    "random_labels",
    "planted_instance",
    "normalized_margin",
    "time_matvec",
    "per_iteration",
    "run_capped",
    "run_sklearn_perceptron",
    "run_svc",
    "crossover",
    "suite_periter",
    "suite_separator",
    "suite_kernels",
    "suite_large",
    "suite_certificates",
    "suite_memory",
    "suite_regen",
    "evaluate_targets",
    "run",
    "merge",
    "load_record",
    "target_verdict",
    "format_table",
    "main",
]

REPO_DIR = _paths.ROOT
DEFAULT_OUT = _paths.GENERATED_DIR / "bench.json"
SCHEMA_VERSION = 1
SUITES = ("periter", "separator", "kernels", "large", "certificates", "memory", "regen")
#: Targets of the per-iteration suite: time per iteration / time of one ``G @ v``.
PERITER_TARGETS = {"snkp": 1.3, "snkpvn": 2.3, "nkp": 0.2, "nvn": 0.2}
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
    memory_n : int
        ``n`` of the memory suite.
    seed : int
        Seed of every generated instance.
    blas_threads : int
        BLAS threads during the measurements.
    build : bool
        Also time ``jupyter-book build`` in the regeneration suite.
    quick : bool
        Smoke-run sizes.
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
    memory_n: int = 4000
    seed: int = 0
    blas_threads: int = 1
    build: bool = False
    quick: bool = False
    kernel_problems: tuple[str, ...] = field(default_factory=lambda: tuple(_data.PROBLEMS))


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
        "memory_n": 300,
        "quick": True,
        "kernel_problems": ("xor-poly",),
    }
    base.update(overrides)
    return BenchConfig(**base)


# --------------------------------------------------------------------------- machine


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on Linux
        return None


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "missing"


def machine_info() -> dict[str, Any]:
    """CPU model, core count, memory and library versions (no paths, no host name)."""
    info: dict[str, Any] = {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "platform": f"{platform.system()}-{platform.machine()}",
        "python": platform.python_version(),
    }
    for dist in ("numpy", "scipy", "scikit-learn", "joblib", "kperc", "cvxpy", "clarabel"):
        info[dist] = _version(dist)
    try:
        import psutil

        info["memory_gb"] = round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:  # pragma: no cover - psutil is in the bench extra
        info["memory_gb"] = None
    try:
        from threadpoolctl import threadpool_info

        blas = sorted(
            {
                f"{p.get('internal_api')} {p.get('version')} ({p.get('prefix')})"
                for p in threadpool_info()
                if p.get("user_api") == "blas"
            }
        )
        if blas:  # every BLAS loaded (NumPy's and SciPy's may differ); no paths
            info["blas"] = ", ".join(blas)
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        pass
    return info


@contextlib.contextmanager
def _blas_threads(n: int | None):
    """Limit BLAS threads (``None``: leave as is)."""
    if n is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=int(n), user_api="blas"):
        yield


# --------------------------------------------------------------------------- instances


def random_labels(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian points with random labels: infeasible when ``n`` is well above ``2 d``.

    Used where an algorithm must not halt (fixed-length runs); the harness checks
    that every such run used all its iterations.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return X, y


def planted_instance(n: int, d: int, rho: float, seed: int = 0) -> _data.Dataset:
    """A planted hard instance: :func:`kperc.datasets.planted` with half the points near rho."""
    return _data.planted(n, d, rho, near=NEAR, near_width=NEAR_WIDTH, seed=seed)


def _products(G) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], float]]:
    """``(v -> G v, v -> ||v||_G)``; from the factor for a :class:`GramOperator`."""
    if isinstance(G, GramOperator):
        Z = G.Z
        return (lambda v: Z @ (Z.T @ v)), (lambda v: float(np.linalg.norm(Z.T @ v)))
    return (lambda v: G @ v), (lambda v: float(np.sqrt(max(float(v @ (G @ v)), 0.0))))


def normalized_margin(G, alpha: np.ndarray) -> float:
    """``min_i (G alpha)_i / ||alpha||_G``: the normalised margin of the separator alpha."""
    mv, norm = _products(G)
    alpha = np.asarray(alpha, dtype=np.float64)
    na = norm(alpha)
    return float(np.min(mv(alpha)) / na) if na > 0 else float("nan")


# --------------------------------------------------------------------------- timing


def _now() -> float:
    return time.perf_counter()


def _cpu() -> float:
    """CPU time of the calling thread: what the per-iteration ratios compare.

    BLAS runs single-threaded during the measurements, so all the work of an algorithm
    is done by this thread, and its CPU time does not count the time the thread spent
    waiting for a core that other processes were using (wall time does).
    """
    return time.thread_time()


def time_matvec(
    G, repeats: int = 5, min_time: float = 0.02, clock: Callable[[], float] = _cpu
) -> float:
    """Median time (s) of one product ``G @ v`` (the factored form: ``Z (Z^T v)``)."""
    mv, _ = _products(G)
    n = G.shape[0]
    v = np.random.default_rng(1).random(n)
    mv(v)
    t0 = _now()
    mv(v)
    one = max(_now() - t0, 1e-7)
    inner = max(1, int(min_time / one))
    times = []
    for _ in range(repeats):
        t0 = clock()
        for _ in range(inner):
            mv(v)
        times.append((clock() - t0) / inner)
    return float(np.median(times))


def periter_instance(n: int, d: int, seed: int = 0) -> _data.Dataset:
    """The instance of the per-iteration suite: planted margin ``PERITER_RHO = 1e-6``.

    No algorithm halts on it within the measured iterations: NVN runs without its
    primal exit and with ``eps = rho / 10`` (``||p||_G >= rho`` on a separable
    instance, so no certificate), SNKPVN with ``delta = rho / 10`` (only a separator
    can end it, after about ``1/rho`` iterations), and NKP and SNKP need about
    ``1/rho^2`` and ``1/rho`` iterations. (Infeasible instances do not work for the
    dual methods: their iterates reach an exact witness, where ``||p||_G`` rounds to 0.)
    """
    return _data.planted(n, d, PERITER_RHO, near=NEAR, near_width=NEAR_WIDTH, seed=seed)


def _fixed_run(alg: str, G, iters: int):
    """Run ``alg`` for ``iters`` iterations on the per-iteration instance."""
    if alg == "nkp":
        return nkp(G, max_iter=iters, check_input=False)
    if alg == "nvn":
        return nvn(G, eps=0.1 * PERITER_RHO, primal_exit=False, max_iter=iters, check_input=False)
    if alg == "snkp":
        return snkp(G, max_iter=iters, check_input=False)
    if alg == "snkpvn":
        return snkpvn(G, delta=0.1 * PERITER_RHO, max_iter=iters, check_input=False)
    raise ValueError(f"unknown algorithm {alg!r}")


def per_iteration(alg: str, G, repeats: int = 5, target_time: float = 0.08) -> dict[str, Any]:
    """Time per iteration of ``alg`` and its ratio to one product with ``G``.

    Two run lengths ``K`` and ``2 K`` are timed, interleaved with the product, in every
    repeat; ``(t(2K) - t(K)) / K`` removes the setup (validation, first products,
    result assembly). Times are the CPU time of this thread (:func:`_cpu`). The ratio is
    the median over repeats of per-iteration time over product time, so slow phases of
    a loaded machine affect both alike.

    Returns
    -------
    dict
        ``per_iter_s``, ``matvec_s``, ``ratio``, ``iters``, ``full_length`` (every
        run used all its iterations, i.e. the instance did not let it halt) and
        ``columns_per_iter`` (NKP and NVN: columns of ``G`` computed per iteration in
        the longer run, i.e. the miss rate of the column cache; ``None`` otherwise).
    """
    tmv = time_matvec(G, repeats=3)
    iters, full = 16, True
    while True:  # calibrate K so that the K extra iterations take about target_time
        t0 = _cpu()
        r1 = _fixed_run(alg, G, iters)
        t1 = _cpu() - t0
        t0 = _cpu()
        r2 = _fixed_run(alg, G, 2 * iters)
        extra = _cpu() - t0 - t1
        full = full and r1.nit == iters and r2.nit == 2 * iters
        if extra >= 0.3 * target_time or iters >= 500_000:
            break
        grow = target_time / extra if extra > 0 else 16.0
        iters = int(min(500_000, iters * min(16.0, max(2.0, grow))))
    ratios, per_iters, mvs = [], [], []
    for _ in range(repeats):
        mv_t = time_matvec(G, repeats=1)
        t0 = _cpu()
        r1 = _fixed_run(alg, G, iters)
        t1 = _cpu() - t0
        t0 = _cpu()
        r2 = _fixed_run(alg, G, 2 * iters)
        t2 = _cpu() - t0
        full = full and r1.nit == iters and r2.nit == 2 * iters
        per = max(t2 - t1, 0.0) / iters
        per_iters.append(per)
        mvs.append(mv_t)
        ratios.append(per / mv_t)
    cols = getattr(r2, "ncol", None)  # NKP and NVN: columns of G computed (cache misses)
    return {
        "per_iter_s": float(np.median(per_iters)),
        "matvec_s": float(np.median(mvs)),
        "matvec_first_s": tmv,
        "ratio": float(np.median(ratios)),
        "columns_per_iter": (cols / r2.nit) if cols is not None and r2.nit else None,
        "ratio_iqr": [float(np.percentile(ratios, 25)), float(np.percentile(ratios, 75))],
        "iters": iters,
        "full_length": bool(full),
    }


def run_capped(
    make: Callable[[int], Any], cap_s: float, *, max_iter: int = 10**9, pilot_time: float = 0.05
) -> dict[str, Any]:
    """Run ``make(max_iter)`` to completion, or for about ``cap_s`` seconds.

    kperc's algorithms stop after ``max_iter`` iterations. Pilot runs with growing
    ``max_iter`` estimate the time per iteration; the final run gets the iteration
    budget that fits in ``cap_s`` (and is repeated with a larger budget, up to four
    times, if it stops short of ``0.95 cap_s``). A run that halts within a pilot is
    the result.

    Returns
    -------
    dict
        ``result`` (the :class:`~kperc.KpercResult`), ``time_s`` (wall time of that
        complete run), ``capped`` (stopped by the cap) and ``cap_s``.
    """
    k, prev = 16, None
    while True:
        k = min(k, max_iter)
        t0 = _now()
        res = make(k)
        dt = _now() - t0
        if res.outcome != "max_iter" or k >= max_iter:
            return {
                "result": res,
                "time_s": dt,
                "capped": res.outcome == "max_iter",
                "cap_s": cap_s,
            }
        if dt >= pilot_time or dt >= cap_s:
            break
        prev = (k, dt)
        k *= 4
    # time per iteration from the last two pilots (their difference removes the setup)
    slope = dt / k
    if prev is not None and dt > prev[1]:
        slope = (dt - prev[1]) / (k - prev[0])
    # aim 20% past the cap: a stopped run must have lasted at least about cap_s, since
    # its time is quoted as a lower bound against a goal (the estimate is noisy)
    budget = int(min(max_iter, max(k + 1, k + 1.2 * (cap_s - dt) / max(slope, 1e-12))))
    if dt >= cap_s:
        return {"result": res, "time_s": dt, "capped": True, "cap_s": cap_s}
    last = (k, dt)
    for _ in range(4):
        t0 = _now()
        res = make(budget)
        dt = _now() - t0
        # An iteration can get cheaper as a run goes on (NKP's and NVN's column cache
        # fills), so the pilots may overestimate its cost and a stopped run fall short
        # of the cap; then run again, extrapolating with the cost of the iterations
        # that this run added over the previous one.
        if res.outcome != "max_iter" or dt >= 0.95 * cap_s or budget >= max_iter:
            break
        slope = (dt - last[1]) / (budget - last[0]) if dt > last[1] else dt / budget
        last = (budget, dt)
        budget = int(
            min(max_iter, max(budget + 1, budget + 1.2 * (cap_s - dt) / max(slope, 1e-12)))
        )
    return {"result": res, "time_s": dt, "capped": res.outcome == "max_iter", "cap_s": cap_s}


def _signed_points(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    return X * (y / np.linalg.norm(X, axis=1))[:, None]


def run_sklearn_perceptron(
    X: np.ndarray, y: np.ndarray, cap_s: float, seed: int = 0
) -> dict[str, Any]:
    """scikit-learn's online Perceptron until it separates, or for about ``cap_s`` s.

    It is fitted on the normalised points ``x_i / ||x_i||`` with
    ``fit_intercept=False``, ``shuffle=True``, a constant step and no early stopping
    (``tol=None``), in chunks of epochs (``warm_start``; each chunk at most a tenth of
    the epochs so far, so at most 10% overshoot). After each chunk the harness checks
    whether ``w`` separates (one product with the data, included in the time).
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import Perceptron

    Xn = X / np.linalg.norm(X, axis=1)[:, None]
    A = Xn * y[:, None]
    clf = Perceptron(
        fit_intercept=False,
        shuffle=True,
        random_state=seed,
        tol=None,
        max_iter=1,
        warm_start=True,
        eta0=1.0,
    )
    epochs = 0
    t0 = _now()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        while True:
            chunk = max(1, epochs // 10)
            clf.set_params(max_iter=chunk)
            clf.fit(Xn, y)
            epochs += chunk
            w = clf.coef_.ravel()
            m = A @ w
            separated = bool(m.min() > 0)
            elapsed = _now() - t0
            if separated or elapsed >= cap_s:
                break
    nw = float(np.linalg.norm(w))
    return {
        "time_s": elapsed,
        "nit": epochs,
        "capped": not separated,
        "cap_s": cap_s,
        "separated": separated,
        "margin": float(m.min() / nw) if nw > 0 else float("nan"),
    }


def run_svc(G: np.ndarray, y: np.ndarray, C: float = 1e8) -> dict[str, Any]:
    """scikit-learn's SVC (libsvm) with a precomputed normalised kernel and a large C.

    The kernel is ``K~_ij = y_i y_j G_ij`` (the normalised kernel without signs). libsvm
    always fits a bias ``b``: ``separated`` says whether its decision function (with
    ``b``) classifies every training point correctly, and ``margin`` is the normalised
    margin ``min (G alpha) / ||alpha||_G`` of its homogeneous part
    (``alpha_i = |dual coefficient|``), comparable with kperc's separators.
    """
    from sklearn.svm import SVC

    K = G * np.outer(y, y)
    clf = SVC(C=C, kernel="precomputed", tol=1e-3)
    t0 = _now()
    clf.fit(K, y)
    dt = _now() - t0
    dec = clf.decision_function(K)
    alpha = np.zeros(G.shape[0])
    alpha[clf.support_] = np.abs(clf.dual_coef_.ravel())
    bounded = int(np.sum(np.abs(clf.dual_coef_) >= C * (1 - 1e-9)))
    return {
        "time_s": dt,
        "nit": int(np.sum(clf.n_iter_)),
        "capped": False,
        "separated": bool(np.all(y * dec > 0)),
        "margin": normalized_margin(G, alpha),
        "n_support": int(clf.support_.size),
        "bounded_sv": bounded,
        "intercept": float(clf.intercept_[0]),
    }


def _kperc_row(solver: str, out: dict[str, Any], G) -> dict[str, Any]:
    res = out["result"]
    sep = res.outcome == "separator"
    return {
        "solver": solver,
        "time_s": out["time_s"],
        "nit": int(res.nit),
        "capped": bool(out["capped"]),
        "cap_s": out["cap_s"],
        "separated": bool(sep),
        "margin": normalized_margin(G, res.alpha) if sep else None,
    }


# --------------------------------------------------------------------------- suites


def suite_periter(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Per-iteration cost of NKP, NVN, SNKP, SNKPVN against one product with ``G``."""
    rows = []
    for n in (*cfg.sizes, *cfg.factored_extra_sizes):
        dense = n in cfg.sizes
        X, y = periter_instance(n, cfg.d, cfg.seed)
        t0 = _now()
        G = gram_matrix(X, y) if dense else None
        build = _now() - t0
        op = gram_operator(X, y)
        for kind, GG in ((("dense", G),) if dense else ()) + (("factored", op),):
            for alg in PERITER_ALGOS:
                m = per_iteration(
                    alg, GG, repeats=cfg.repeats, target_time=0.02 if cfg.quick else 0.08
                )
                row = {
                    "n": n,
                    "d": cfg.d,
                    "operator": kind,
                    "algorithm": alg,
                    **m,
                    "target": PERITER_TARGETS[alg],
                    "met": m["ratio"] <= PERITER_TARGETS[alg],
                    "gram_build_s": build if kind == "dense" else None,
                }
                rows.append(row)
                log(
                    f"periter n={n:<6d} {kind:8s} {alg:7s} ratio {m['ratio']:.3f} "
                    f"(target {PERITER_TARGETS[alg]}, {m['per_iter_s'] * 1e6:.1f} us/iter, "
                    f"product {m['matvec_s'] * 1e6:.1f} us)"
                )
        del G, op
    return {"rows": rows, "instance": f"planted, rho = {PERITER_RHO:g}", "clock": "thread CPU time"}


def crossover(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Margin below which SNKP halts sooner (wall time) than NKP, for one ``n`` and ``G``.

    ``rows`` are separator rows of one instance family with solvers ``"snkp"`` and
    ``"nkp"``. At each margin the speed-up ``s = t_NKP / t_SNKP`` is known exactly, or
    only from below when NKP was stopped (``>=``), or from above when SNKP was stopped.
    The crossover is bracketed between the smallest margin where NKP is faster
    (``s < 1``) and the largest smaller margin where SNKP is faster (``s > 1``), and
    interpolated linearly in ``log s`` against ``log rho`` (bounds used as values).

    Returns
    -------
    dict
        ``rho_star`` (None when not bracketed), ``bracket`` ``[rho_lo, rho_hi]``,
        ``kind`` (``"interpolated"``, ``"snkp-always"`` when SNKP wins at every
        measured margin, ``"nkp-always"`` when NKP does, or ``"undecided"``) and the
        speed-ups per margin.
    """
    by_rho: dict[float, dict[str, dict[str, Any]]] = {}
    for r in rows:
        by_rho.setdefault(r["rho"], {})[r["solver"]] = r
    pts = []
    for rho in sorted(by_rho, reverse=True):
        s, k = by_rho[rho].get("snkp"), by_rho[rho].get("nkp")
        if s is None or k is None:
            continue
        ratio = k["time_s"] / max(s["time_s"], 1e-12)
        if s["capped"] and k["capped"]:
            rel = "unknown"
        elif k["capped"]:
            rel = ">="
        elif s["capped"]:
            rel = "<="
        else:
            rel = "="
        wins = None
        if rel in ("=", ">=") and ratio > 1:
            wins = "snkp"
        elif rel in ("=", "<=") and ratio < 1:
            wins = "nkp"
        pts.append({"rho": rho, "speedup": ratio, "relation": rel, "winner": wins})
    out: dict[str, Any] = {"points": pts, "rho_star": None, "bracket": None}
    decided = [p for p in pts if p["winner"] is not None]
    if not decided:
        out["kind"] = "undecided"
        return out
    if all(p["winner"] == "snkp" for p in decided):
        out["kind"] = "snkp-always"
        out["bracket"] = [None, decided[0]["rho"]]
        return out
    # the largest margin at which SNKP wins after the last NKP win above it
    last_nkp = max(i for i, p in enumerate(decided) if p["winner"] == "nkp")
    after = [p for p in decided[last_nkp + 1 :] if p["winner"] == "snkp"]
    if not after:
        out["kind"] = "nkp-always"
        out["bracket"] = [decided[last_nkp]["rho"], None]
        return out
    hi, lo = decided[last_nkp], after[0]
    x0, x1 = math.log(hi["rho"]), math.log(lo["rho"])
    y0, y1 = math.log(hi["speedup"]), math.log(lo["speedup"])
    xs = x0 + (0.0 - y0) * (x1 - x0) / (y1 - y0) if y1 != y0 else 0.5 * (x0 + x1)
    out.update(kind="interpolated", rho_star=float(math.exp(xs)), bracket=[lo["rho"], hi["rho"]])
    return out


def _separator_instance(
    n: int, rho: float, cfg: BenchConfig, rows: list[dict[str, Any]], log: Callable[[str], None]
) -> None:
    ds = planted_instance(n, cfg.d, rho, cfg.seed)
    X, y = ds.X, ds.y
    t0 = _now()
    G = gram_matrix(X, y)
    build = _now() - t0
    op = gram_operator(X, y)
    base = {
        "n": n,
        "d": cfg.d,
        "rho": rho,
        "reference_margin": ds.info["rho"],
        "reference": "planted (exact)",
    }

    def cap_rel(t_snkp: float) -> float:
        return float(min(cfg.cap_s, max(cfg.min_cap_s, cfg.rel_cap * t_snkp)))

    t_snkp: dict[str, float] = {}
    for kind, GG in (("dense", G), ("factored", op)):
        s = run_capped(lambda k, GG=GG: snkp(GG, max_iter=k, check_input=False), cfg.cap_s)
        srow = _kperc_row("snkp", s, GG)
        k = run_capped(
            lambda k, GG=GG: nkp(GG, max_iter=k, check_input=False), cap_rel(s["time_s"])
        )
        krow = _kperc_row("nkp", k, GG)
        for r in (srow, krow):
            rows.append(
                {**base, "operator": kind, **r, "gram_build_s": build if kind == "dense" else None}
            )
        log(
            f"separator n={n:<5d} rho={rho:<7.0e} {kind:8s} snkp {s['time_s']:.3g}s "
            f"({srow['nit']} it{', capped' if s['capped'] else ''})  nkp {k['time_s']:.3g}s "
            f"({krow['nit']} it{', capped' if k['capped'] else ''})"
        )
        t_snkp[kind] = s["time_s"]
    # the perceptrons only need to be timed up to the faster SNKP's time to be ranked
    cap = float(min(cfg.cap_s, max(cfg.min_cap_s, cfg.peer_rel_cap * min(t_snkp.values()))))
    p = run_capped(lambda k: perceptron(X, y, max_iter=k), cap)
    rows.append({**base, "operator": "data", **_kperc_row("perceptron", p, op)})
    sk = run_sklearn_perceptron(X, y, cap, seed=cfg.seed)
    rows.append({**base, "operator": "data", "solver": "sklearn-perceptron", **sk})
    log(
        f"separator n={n:<5d} rho={rho:<7.0e} data     kperc perceptron {p['time_s']:.3g}s"
        f"{' (capped)' if p['capped'] else ''}  sklearn {sk['time_s']:.3g}s "
        f"({sk['nit']} epochs{', capped' if sk['capped'] else ''})"
    )


def suite_separator(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Time to a separator on planted instances; crossover margins of SNKP over NKP."""
    rows: list[dict[str, Any]] = []
    for n in cfg.sizes:
        for rho in cfg.rhos:
            _separator_instance(n, rho, cfg, rows, log)
    cross = []
    for kind in ("dense", "factored"):
        for n in cfg.sizes:
            sub = [r for r in rows if r["n"] == n and r["operator"] == kind]
            c = crossover(sub)
            cross.append({"operator": kind, "n": n, **c})
            log(f"crossover {kind:8s} n={n:<5d} {c['kind']:12s} rho* = {c['rho_star']}")
    return {"rows": rows, "crossover": cross}


def suite_kernels(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """The real kernel problems: NKP, SNKP and libsvm's SVC on the same normalised kernel."""
    from kperc._margins import margin

    rows = []
    for name in cfg.kernel_problems:
        G, ds, kernel, params = _data.problem(name)
        n = G.shape[0]
        t0 = _now()
        ref = float(margin(G))
        t_ref = _now() - t0
        base = {
            "problem": name,
            "n": n,
            "kernel": kernel,
            "reference_margin": ref,
            "reference": "kperc.margin",
            "reference_time_s": t_ref,
        }
        s = run_capped(lambda k, G=G: snkp(G, max_iter=k, check_input=False), cfg.cap_s)
        rows.append({**base, **_kperc_row("snkp", s, G)})
        cap = float(min(cfg.cap_s, max(cfg.min_cap_s, cfg.rel_cap * s["time_s"])))
        k = run_capped(lambda k, G=G: nkp(G, max_iter=k, check_input=False), cap)
        rows.append({**base, **_kperc_row("nkp", k, G)})
        v = run_svc(G, ds.y)
        rows.append({**base, "solver": "sklearn-svc", **v})
        log(
            f"kernels {name:20s} n={n:<4d} rho={ref:.3g} snkp {s['time_s']:.3g}s nkp "
            f"{k['time_s']:.3g}s{' (capped)' if k['capped'] else ''} svc {v['time_s']:.3g}s"
        )
    return {"rows": rows}


def suite_large(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """The factored operator at large ``n`` (d = 50 by default), planted margin 1e-3."""
    rows = []
    for n in cfg.large_ns:
        t0 = _now()
        ds = planted_instance(n, cfg.d, cfg.large_rho, cfg.seed)
        gen = _now() - t0
        t0 = _now()
        op = gram_operator(ds.X, ds.y)
        build = _now() - t0
        base = {
            "n": n,
            "d": cfg.d,
            "rho": cfg.large_rho,
            "reference_margin": ds.info["rho"],
            "generate_s": gen,
            "operator_build_s": build,
            "operator": "factored",
        }
        s = run_capped(lambda k, op=op: snkp(op, max_iter=k, check_input=False), cfg.large_cap_s)
        rows.append({**base, **_kperc_row("snkp", s, op)})
        msg = f"large n={n:<8d} generate {gen:.3g}s snkp {s['time_s']:.3g}s ({rows[-1]['nit']} it)"
        if n <= cfg.large_nkp_max_n:
            cap = float(min(cfg.large_cap_s, max(cfg.min_cap_s, cfg.large_rel_cap * s["time_s"])))
            k = run_capped(lambda k, op=op: nkp(op, max_iter=k, check_input=False), cap)
            rows.append({**base, **_kperc_row("nkp", k, op)})
            msg += f" nkp {k['time_s']:.3g}s{' (capped)' if k['capped'] else ''}"
        cap = float(min(cfg.large_cap_s, max(cfg.min_cap_s, cfg.peer_rel_cap * s["time_s"])))
        sk = run_sklearn_perceptron(ds.X, ds.y, cap, seed=cfg.seed)
        rows.append({**base, "solver": "sklearn-perceptron", **sk})
        msg += f" sklearn {sk['time_s']:.3g}s{' (capped)' if sk['capped'] else ''}"
        log(msg)
        del ds, op
    return {"rows": rows}


def _clarabel_certificate(Z: np.ndarray, eps: float) -> dict[str, Any]:
    """``min ||Z^T p||`` over the simplex with Clarabel through CVXPY (an SOCP)."""
    import cvxpy as cp

    n = Z.shape[0]
    p = cp.Variable(n)
    prob = cp.Problem(cp.Minimize(cp.norm(Z.T @ p, 2)), [p >= 0, cp.sum(p) == 1])
    t0 = _now()
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=eps * 1e-2, tol_gap_rel=1e-10, tol_feas=1e-10)
    dt = _now() - t0
    q = np.clip(np.asarray(p.value, dtype=np.float64), 0.0, None)
    q /= q.sum()
    stats = prob.solver_stats
    return {
        "time_s": dt,
        "solve_time_s": float(stats.solve_time or 0.0),
        "nit": int(stats.num_iters or 0),
        "norm_p_G": float(np.linalg.norm(Z.T @ q)),
        "status": str(prob.status),
    }


def suite_certificates(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """NVN and ISNKPVN to ``eps`` on infeasible instances against Clarabel (CVXPY)."""
    try:
        import cvxpy  # noqa: F401

        have_qp = True
    except ImportError:  # pragma: no cover - optional benchmark extra
        have_qp = False
    rows = []
    d = min(cfg.d, 5)
    for n in cfg.cert_sizes:
        ds = _data.infeasible(n, d, -0.05, seed=cfg.seed)
        G = gram_matrix(ds.X, ds.y)
        Z = _signed_points(ds.X, ds.y)
        base = {"n": n, "d": d, "eps": cfg.cert_eps, "reference_margin": ds.info["rho"]}
        for name, fn in (("nvn", nvn), ("isnkpvn", isnkpvn)):
            t0 = _now()
            r = fn(G, eps=cfg.cert_eps, check_input=False)
            dt = _now() - t0
            ok = r.outcome == "certificate"
            rows.append(
                {
                    **base,
                    "solver": name,
                    "time_s": dt,
                    "nit": int(r.nit),
                    "certificate": ok,
                    "norm_p_G": float(np.linalg.norm(Z.T @ r.p)),
                }
            )
        if have_qp:
            c = _clarabel_certificate(Z, cfg.cert_eps)
            rows.append(
                {**base, "solver": "clarabel", "certificate": c["norm_p_G"] <= cfg.cert_eps, **c}
            )
        log(
            f"certificates n={n} "
            + " ".join(
                f"{r['solver']} {r['time_s']:.3g}s |p|_G={r['norm_p_G']:.2g}"
                for r in rows
                if r["n"] == n
            )
        )
    return {"rows": rows, "qp_solver": "clarabel via cvxpy" if have_qp else None}


_MEMORY_CHILD = r"""
import json, sys
def status(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return status("VmHWM:") <= status("VmRSS:") + 4096 * 16
    except OSError:
        return False
import kperc
from benchmarks.bench import random_labels, _fixed_run
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


def _toc_chapters() -> list[str]:
    toc = REPO_DIR / "_toc.yml"
    if not toc.exists():
        return []
    names = []
    for line in toc.read_text().splitlines():
        line = line.strip()
        if line.startswith("- file: book/ch"):
            names.append(line.split("book/", 1)[1])
    return names


def suite_regen(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Regeneration times recorded by ``python -m kperc_book.reproduce`` (and the book build).

    Reads ``book/_generated/runs.json``: the runtime of the last run of each chapter
    with its default parameters. With ``cfg.build`` it also times
    ``jupyter-book build`` into a temporary folder.
    """
    runs_path = REPO_DIR / "book" / "_generated" / "runs.json"
    chapters = []
    if runs_path.exists():
        runs = json.loads(runs_path.read_text()).get("chapters", {})
        for name, entry in sorted(runs.items()):
            chapters.append(
                {
                    "chapter": name,
                    "runtime_s": entry.get("runtime_s"),
                    "preset": entry.get("preset"),
                    "finished_utc": entry.get("finished_utc"),
                }
            )
    toc = _toc_chapters()
    recorded = {c["chapter"] for c in chapters if c["preset"] == "default"}
    missing = [c for c in toc if c not in recorded]
    default = [c for c in chapters if c["preset"] == "default" and c["runtime_s"] is not None]
    total = float(sum(c["runtime_s"] for c in default))
    out: dict[str, Any] = {
        "chapters": chapters,
        "toc_chapters": toc,
        "missing": missing,
        "total_runtime_s": total,
        "max_chapter_s": max((c["runtime_s"] for c in default), default=None),
        "build_s": None,
    }
    if cfg.build:
        jb = Path(sys.executable).with_name("jupyter-book")
        with tempfile.TemporaryDirectory() as tmp:
            t0 = _now()
            proc = subprocess.run(
                [str(jb), "build", ".", "--path-output", tmp],
                cwd=str(REPO_DIR),
                capture_output=True,
                text=True,
            )
            out["build_s"] = _now() - t0
            out["build_ok"] = proc.returncode == 0
    log(f"regen: {len(default)} chapters recorded, total {total:.1f}s, missing {missing}")
    return out


SUITE_FUNCS = {
    "periter": suite_periter,
    "separator": suite_separator,
    "kernels": suite_kernels,
    "large": suite_large,
    "certificates": suite_certificates,
    "memory": suite_memory,
    "regen": suite_regen,
}


# --------------------------------------------------------------------------- targets


def _target(tid: str, description: str, value, target, met, detail: str) -> dict[str, Any]:
    return {
        "id": tid,
        "description": description,
        "value": value,
        "target": target,
        "met": None if met is None else bool(met),
        "detail": detail,
    }


def evaluate_targets(suites: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """Compare the measurements with the targets of the benchmark issue.

    Every entry has the measured ``value``, the ``target``, ``met`` (``None`` when the
    suite was not run or the measurement is inconclusive) and a ``detail`` sentence.
    """
    out = []
    per = suites.get("periter")
    if per:
        for kind in ("dense", "factored"):
            for alg in PERITER_ALGOS:
                rs = [r for r in per["rows"] if r["operator"] == kind and r["algorithm"] == alg]
                if not rs:
                    continue
                worst = max(rs, key=lambda r: r["ratio"])
                tgt = PERITER_TARGETS[alg]
                out.append(
                    _target(
                        f"periter-{kind}-{alg}",
                        f"{alg.upper()} time per iteration / one product ({kind} G), worst n",
                        worst["ratio"],
                        tgt,
                        worst["ratio"] <= tgt,
                        f"worst at n = {worst['n']}: {worst['ratio']:.3g} (target <= {tgt}); "
                        f"{sum(r['ratio'] <= tgt for r in rs)} of {len(rs)} sizes meet it",
                    )
                )
    large = suites.get("large")
    if large:
        rows = large["rows"]
        ns = sorted({r["n"] for r in rows})
        mid = 100_000 if 100_000 in ns else (ns[-2] if len(ns) > 1 else ns[-1])
        s = next((r for r in rows if r["n"] == mid and r["solver"] == "snkp"), None)
        k = next((r for r in rows if r["n"] == mid and r["solver"] == "nkp"), None)
        sk = next((r for r in rows if r["n"] == mid and r["solver"] == "sklearn-perceptron"), None)
        if s and k:
            sp = k["time_s"] / s["time_s"]
            exact = not k["capped"]
            ok = s["separated"] and sp >= 10 if (exact or sp >= 10) else None
            out.append(
                _target(
                    "large-nkp-speedup",
                    f"SNKP vs NKP, factored, n = {mid}, rho = {cfg.large_rho}",
                    sp,
                    10.0,
                    ok,
                    f"SNKP {s['time_s']:.3g} s ({s['nit']} it), NKP "
                    + (
                        f"{k['time_s']:.3g} s"
                        if exact
                        else f"stopped after {k['time_s']:.3g} s / {k['nit']} it "
                        "without a separator"
                    )
                    + f": speed-up {'=' if exact else '>='} {sp:.3g}",
                )
            )
        if s and sk:
            sp = sk["time_s"] / s["time_s"]
            ok = (sp > 1) if (not sk["capped"] or sp > 1) else None
            out.append(
                _target(
                    "large-sklearn-speedup",
                    f"SNKP vs scikit-learn Perceptron, n = {mid}",
                    sp,
                    1.0,
                    ok,
                    f"Perceptron {sk['time_s']:.3g} s ({sk['nit']} epochs"
                    + ("" if sk["separated"] else ", no separator yet")
                    + f"), SNKP {s['time_s']:.3g} s: ratio {'=' if not sk['capped'] else '>='} "
                    f"{sp:.3g}",
                )
            )
        big = max(ns)
        sb = next((r for r in rows if r["n"] == big and r["solver"] == "snkp"), None)
        if sb:
            out.append(
                _target(
                    "large-snkp-time",
                    f"SNKP wall time, factored, n = {big}",
                    sb["time_s"],
                    120.0,
                    sb["separated"] and sb["time_s"] < 120.0,
                    f"{sb['time_s']:.3g} s, {sb['nit']} iterations, "
                    f"{'separator found' if sb['separated'] else 'no separator'}; generating the "
                    f"instance took {sb['generate_s']:.3g} s",
                )
            )
    regen = suites.get("regen")
    if regen:
        tot, mx = regen["total_runtime_s"], regen["max_chapter_s"]
        complete = not regen["missing"]
        out.append(
            _target(
                "regen-total",
                "whole regeneration (chapters, default parameters)",
                tot,
                180.0,
                (tot < 180.0) if complete else None,
                f"{tot:.1f} s over {len(regen['chapters'])} recorded chapters"
                + ("" if complete else f"; not recorded yet: {', '.join(regen['missing'])}"),
            )
        )
        if mx is not None:
            out.append(
                _target("regen-max-chapter", "slowest chapter", mx, 90.0, mx <= 90.0, f"{mx:.1f} s")
            )
    mem = suites.get("memory")
    if mem and mem["rows"]:
        worst = max(mem["rows"], key=lambda r: r["peak_over_baseline_in_G"])
        out.append(
            _target(
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
            _target(
                "memory-iterations",
                "memory added by the iterations, units of G",
                it["extra_iter_in_G"],
                0.5,
                it["extra_iter_in_G"] < 0.5,
                f"worst: {it['algorithm']}; an n x n temporary would add ~1",
            )
        )
    return out


# --------------------------------------------------------------------------- driver


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


def target_verdict(t: dict[str, Any], digits: int = 3) -> str:
    """A Markdown phrase for a target entry: met, missed (by how much) or undecided."""
    val, goal = t["value"], t["target"]
    if val is None or t["met"] is None:
        return "**not decided** by this run"
    v = f"{val:.{digits}g}"
    lower_is_better = not t["id"].startswith(("large-nkp", "large-sklearn"))
    if t["met"]:
        rel = "<=" if lower_is_better else ">="
        return f"**met** ({v} {rel} {goal:g})"
    if lower_is_better:
        return f"**missed** by {100 * (val / goal - 1):.0f}% ({v} against at most {goal:g})"
    return f"**missed** ({v} against at least {goal:g})"


def load_record(path: Path | str | None = None) -> dict[str, Any]:
    """Read a benchmark record (default ``book/_generated/bench.json``)."""
    return json.loads(Path(path or DEFAULT_OUT).read_text())


def format_table(record: dict[str, Any]) -> str:
    """A plain-text summary: the targets, then the per-iteration ratios."""
    lines = []
    t = record.get("targets", [])
    if t:
        w = max(len(x["description"]) for x in t)
        lines.append(f"{'target':{w}s}  {'value':>10s}  {'goal':>7s}  met")
        for x in t:
            met = {True: "yes", False: "NO", None: "?"}[x["met"]]
            val = x["value"]
            val = f"{val:10.4g}" if isinstance(val, (int, float)) else f"{'-':>10s}"
            lines.append(f"{x['description']:{w}s}  {val}  {x['target']:7.4g}  {met}")
    per = record["suites"].get("periter")
    if per:
        lines.append("")
        lines.append("time per iteration / one product with G")
        ns = sorted({r["n"] for r in per["rows"]})
        lines.append(f"{'':18s}" + "".join(f"{n:>10d}" for n in ns))
        for kind in ("dense", "factored"):
            for alg in PERITER_ALGOS:
                vals = {
                    r["n"]: r["ratio"]
                    for r in per["rows"]
                    if r["operator"] == kind and r["algorithm"] == alg
                }
                lines.append(
                    f"{kind + ' ' + alg:18s}"
                    + "".join(f"{vals.get(n, float('nan')):10.3f}" for n in ns)
                )
    sep = record["suites"].get("separator")
    if sep:
        lines.append("")
        lines.append("crossover margin (SNKP faster than NKP below it)")
        for c in sep["crossover"]:
            rs = f"{c['rho_star']:.3g}" if c["rho_star"] else "-"
            lines.append(
                f"  {c['operator']:8s} n={c['n']:<6d} {c['kind']:12s} rho* = {rs}"
                f"  bracket {c['bracket']}"
            )
    lines.append("")
    lines.append(
        f"elapsed {record['elapsed_s']:.0f} s; load average "
        f"{record['loadavg_start']} -> {record['loadavg_end']}"
    )
    return "\n".join(lines)


def _parse_ints(s: str) -> tuple[int, ...]:
    return tuple(int(float(x)) for x in s.split(",") if x.strip())


def _parse_floats(s: str) -> tuple[float, ...]:
    return tuple(float(x) for x in s.split(",") if x.strip())


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_DIR))
    except ValueError:
        return path.name


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.bench [--quick] [--suite S,...] [--sizes ...] [--out PATH]``."""
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.bench",
        description="Measure kperc's speed; write JSON and a table.",
    )
    ap.add_argument("--quick", action="store_true", help="smoke run at tiny sizes (seconds)")
    ap.add_argument(
        "--suite",
        default="all",
        help=f"comma-separated subset of {','.join(SUITES)} (default: all)",
    )
    ap.add_argument("--sizes", help="n for the per-iteration and separator suites")
    ap.add_argument("--rhos", help="planted margins of the separator suite")
    ap.add_argument("--large-ns", help="n of the large factored-operator suite")
    ap.add_argument("--cert-sizes", help="n of the certificate suite")
    ap.add_argument("--memory-n", type=int, help="n of the memory suite")
    ap.add_argument("--repeats", type=int, help="repeats per measurement (medians)")
    ap.add_argument("--cap", type=float, help="longest single run, seconds")
    ap.add_argument("--blas-threads", type=int, help="BLAS threads (default 1; 0: leave)")
    ap.add_argument("--build", action="store_true", help="also time `jupyter-book build`")
    ap.add_argument(
        "--out", default=str(DEFAULT_OUT), help="output JSON (default: book/_generated/bench.json)"
    )
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    ap.add_argument(
        "--merge", action="store_true", help="keep the other suites of an existing output file"
    )
    args = ap.parse_args(argv)
    over: dict[str, Any] = {}
    if args.suite != "all":
        over["suites"] = tuple(s.strip() for s in args.suite.split(",") if s.strip())
    if args.sizes:
        over["sizes"] = _parse_ints(args.sizes)
    if args.rhos:
        over["rhos"] = tuple(sorted(_parse_floats(args.rhos), reverse=True))
    if args.large_ns:
        over["large_ns"] = _parse_ints(args.large_ns)
    if args.cert_sizes:
        over["cert_sizes"] = _parse_ints(args.cert_sizes)
    if args.memory_n:
        over["memory_n"] = args.memory_n
    if args.repeats:
        over["repeats"] = args.repeats
    if args.cap:
        over["cap_s"] = args.cap
    if args.blas_threads is not None:
        over["blas_threads"] = args.blas_threads or None
    if args.build:
        over["build"] = True
    cfg = quick_config(**over) if args.quick else default_config(**over)
    out = Path(args.out)
    argv_used = sys.argv[1:] if argv is None else list(argv)
    shown = []
    skip = False
    for i, a in enumerate(argv_used):  # never record machine paths
        if skip:
            skip = False
            continue
        if a == "--out" and i + 1 < len(argv_used):
            shown += ["--out", _display_path(Path(argv_used[i + 1]))]
            skip = True
        elif a.startswith("--out="):
            shown.append("--out=" + _display_path(Path(a[6:])))
        else:
            shown.append(a)
    command = " ".join(["python -m benchmarks.bench", *shown])
    log = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))
    record = run(cfg, log=log, command=command)
    record["settings_by_suite"] = {k: record["settings"] for k in record["suites"]}
    if args.merge and out.exists():
        record = merge(load_record(out), record)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True, allow_nan=False) + "\n")
    tmp.replace(out)
    print(format_table(record))
    print(f"wrote {_display_path(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

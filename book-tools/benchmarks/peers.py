"""Time to a separator: kperc against the solvers people use. ``python -m benchmarks.peers``.

One run, the same instances for every solver:

* **Solvers.** SNKP on the dense ``G`` (:func:`kperc.gram_matrix`), on the factored
  linear operator (:func:`kperc.gram_operator`) and on Nystroem features
  (:func:`kperc.approx_gram_operator`, RBF); NKP (dense ``G`` for small ``n``, the factored
  operator or the on-demand kernel operator :func:`kperc.kernel_gram_operator` above);
  scikit-learn's ``Perceptron``, ``LinearSVC`` (hinge loss, large ``C``) and ``SVC`` with a
  hard margin through a large ``C``, linear and RBF. BLAS runs single-threaded for every
  solver (threadpoolctl), so that no solver gains from the second core.
* **Problems.** Planted linear instances (``d = 20``, unit-norm points, normalised margin
  exactly ``rho``) and RBF instances whose margin in the kernel's feature space is planted
  (:func:`benchmarks._peer_runners.rbf_instance`), for the margins and sizes of
  :class:`PeersConfig`.
* **Per run.** Wall time, end to end (building ``G``, the operator or the features
  included); whether the result separates the training data; the normalised margin it
  reached. Both are decided the same way for every solver (:func:`evaluate`): with
  ``f(x) = <w, phi(x)> + b`` the trained decision function (``b = 0`` for the homogeneous
  solvers: kperc, ``Perceptron``, ``LinearSVC``),

  * ``separated``: ``y_i f(x_i) > 0`` for every training point;
  * normalised margin: ``min_i y_i f(x_i) / (||w|| max_i ||phi(x_i)||)``,

  with ``phi`` the identity on the unit-norm points for linear solvers, and the feature map
  of the exact RBF kernel (``||phi(x)|| = 1``) for the kernel solvers. For SNKP on Nystroem
  features the decision function is linear in the normalised Nystroem features, so both
  are measured on the approximate kernel; the same ``alpha`` is also checked under the
  exact kernel (``exact_*`` fields: on every point where ``n <= exact_max_n``, on a random
  subsample above). kperc's results also carry their own certificate (``certified``: the
  algorithm ended with a separator it verified).
* **Caps.** Every run executes in a worker process; a run that does not finish within
  ``cap_s`` seconds is stopped (the worker is ended) and recorded as ``timeout`` ("did not
  finish within the cap"). A solver that timed out at some ``n`` is ``skipped`` at larger
  ``n`` for the same family and margin, and the dense ``G`` is ``skipped`` where the
  ``n x n`` matrix would exceed ``dense_max_gb`` (the row records the memory it would need).

The record (default ``book/_generated/peers.json``, written atomically) holds the machine,
the 1-minute load average before and after with a ``busy`` flag, the configuration and
one row per (family, margin, n, solver). :func:`crossovers` finds the fastest solver that
separated at each ``n``, and where SNKP or the peers win; :func:`peers_markdown` renders
tables and :func:`figure` the time to a separator against ``n``.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import _machine
from benchmarks import _peer_runners as runners
from benchmarks.bench import machine_info
from kperc_book import paths as _paths
from kperc_book.machine import loadavg

__all__ = [
    "PeersConfig",
    "crossover_grid_markdown",
    "kernel_goal_miss",
    "snkp_goal",
    "default_config",
    "quick_config",
    "SOLVER_LABELS",
    "KPERC_SNKP",
    "PEERS",
    "run",
    "write_record",
    "load_record",
    "is_busy",
    "crossovers",
    "peers_markdown",
    "short_number",
    "figure",
    "main",
]

DEFAULT_OUT = _paths.GENERATED_DIR / "peers.json"
SCHEMA_VERSION = 1
#: Display names of the solvers.
SOLVER_LABELS = {
    "snkp-dense": "SNKP, dense G",
    "snkp-factored": "SNKP, factored G",
    "snkp-nystroem": "SNKP, Nystroem",
    "nkp": "NKP",
    "sklearn-perceptron": "sklearn Perceptron",
    "linearsvc": "LinearSVC (hinge)",
    "svc-linear": "SVC, linear",
    "svc-rbf": "SVC, RBF",
}
#: Short names of the solvers, for table cells.
SHORT_LABELS = {
    "snkp-dense": "dense",
    "snkp-factored": "factored",
    "snkp-nystroem": "Nystroem",
    "nkp": "NKP",
    "sklearn-perceptron": "Perceptron",
    "linearsvc": "LinearSVC",
    "svc-linear": "SVC",
    "svc-rbf": "SVC",
}
#: Display names of the problem families.
FAMILY_LABELS = {"linear": "linear", "rbf": "RBF"}
#: kperc's SNKP variants and the scikit-learn peers, as compared by :func:`crossovers`.
KPERC_SNKP = ("snkp-dense", "snkp-factored", "snkp-nystroem")
PEERS = ("sklearn-perceptron", "linearsvc", "svc-linear", "svc-rbf")


@dataclass
class PeersConfig:
    """Problems, solvers and caps of a run.

    Attributes
    ----------
    linear_ns, rbf_ns : tuple of int
        Sizes of the linear and RBF families (ascending).
    linear_rhos, rbf_rhos : tuple of float
        Planted margins (largest first).
    d : int
        Dimension of the linear instances.
    rbf_d : int
        Dimension of the RBF instances.
    rbf_gamma : float
        RBF parameter of the instances and of every kernel solver.
    linear_solvers, rbf_solvers : tuple of str
        Solvers per family (names of :data:`benchmarks._peer_runners.SOLVERS`).
    cap_s : float
        Longest run of one solver on one instance, seconds (a hard cap).
    dense_max_gb : float
        The dense ``G`` is skipped where ``8 n^2`` bytes exceed this.
    nkp_dense_max_n : int
        NKP uses the dense ``G`` up to this ``n``, an operator above.
    nystroem_components : int
        Landmarks of the Nystroem features.
    exact_max_n : int
        Nystroem results are checked under the exact kernel on every point up to this ``n``.
    exact_rows : int
        Above it, on this many random points.
    margin_max_n : int
        The exact kernel margin of an RBF instance is measured up to this ``n``.
    linearsvc_C, svc_C : float
        The large ``C`` of ``LinearSVC`` and of the hard-margin ``SVC``.
    blas_threads : int
        BLAS threads of every solver.
    seed : int
        Seed of every instance and solver.
    quick : bool
        Smoke-run sizes.
    """

    linear_ns: tuple[int, ...] = (1_000, 10_000, 100_000, 1_000_000)
    rbf_ns: tuple[int, ...] = (1_000, 10_000, 100_000)
    linear_rhos: tuple[float, ...] = (1e-1, 1e-2, 1e-3, 1e-4)
    rbf_rhos: tuple[float, ...] = (1e-1, 1e-2, 1e-3)
    d: int = 20
    rbf_d: int = 3
    rbf_gamma: float = 2.0
    linear_solvers: tuple[str, ...] = runners.LINEAR_SOLVERS
    rbf_solvers: tuple[str, ...] = runners.RBF_SOLVERS
    cap_s: float = 20.0
    dense_max_gb: float = 1.0
    nkp_dense_max_n: int = 5_000
    nystroem_components: int = 300
    exact_max_n: int = 10_000
    exact_rows: int = 2_000
    margin_max_n: int = 1_000
    linearsvc_C: float = 1e6
    svc_C: float = 1e8
    blas_threads: int = 1
    seed: int = 0
    quick: bool = False
    extra_solvers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.cap_s > 0:
            raise ValueError(f"cap_s must be positive (seconds); got {self.cap_s}")
        for name in (*self.linear_solvers, *self.rbf_solvers):
            if name not in runners.SOLVERS and name not in self.extra_solvers:
                raise ValueError(
                    f"unknown solver {name!r} in the config; choose from {sorted(runners.SOLVERS)}"
                )


def default_config(**overrides: Any) -> PeersConfig:
    """The full comparison (about 15 minutes on 2 cores)."""
    return PeersConfig(**overrides)


def quick_config(**overrides: Any) -> PeersConfig:
    """Tiny sizes for tests and development (well under a minute)."""
    base: dict[str, Any] = {
        "linear_ns": (200, 1_000),
        "rbf_ns": (200, 600),
        "linear_rhos": (1e-1, 1e-2),
        "rbf_rhos": (1e-1,),
        "cap_s": 5.0,
        "nkp_dense_max_n": 500,
        "nystroem_components": 100,
        "exact_max_n": 300,
        "exact_rows": 200,
        "margin_max_n": 200,
        "quick": True,
    }
    base.update(overrides)
    return PeersConfig(**base)


# --------------------------------------------------------------------------- load


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


# --------------------------------------------------------------------------- worker


def _resolve(name: str, cfg: PeersConfig) -> Callable:
    if name in cfg.extra_solvers:  # "module:function", for tests and experiments
        import importlib

        mod, _, fn = cfg.extra_solvers[name].partition(":")
        return getattr(importlib.import_module(mod), fn)
    return runners.SOLVERS[name]


def _worker(conn, blas_threads: int) -> None:  # pragma: no cover - runs in a child process
    if blas_threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=int(blas_threads))
    inst = None
    while True:
        msg = conn.recv()
        if msg is None:
            return
        kind, payload = msg
        try:
            if kind == "instance":
                inst = runners.make_instance(payload)
                conn.send(("ok", dict(inst.info)))
            else:
                name, cfg = payload
                t0 = time.perf_counter()
                fit = _resolve(name, cfg)(inst, cfg)
                conn.send(("fitted", time.perf_counter() - t0))
                fit = runners.evaluate(fit)
                conn.send(("ok", _fit_fields(fit)))
        except Exception as exc:  # report, keep serving
            conn.send(("error", f"{type(exc).__name__}: {exc}", traceback.format_exc()[-1500:]))


def _fit_fields(fit: runners.Fit) -> dict[str, Any]:
    return {
        "time_s": float(fit.time_s),
        "separated": fit.separated,
        "margin": fit.margin,
        "margin_space": fit.space,
        "certified": fit.certified,
        "nit": fit.nit,
        "capped": bool(fit.capped),
        **fit.extra,
    }


class _Worker:
    """A worker process that can be ended when a run exceeds its cap."""

    def __init__(self, blas_threads: int):
        self.blas_threads = blas_threads
        self.proc = None
        self.conn = None
        self.spec = None

    def _start(self) -> None:
        ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, self.blas_threads), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent
        self.spec = None

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
            self.conn.close()
        self.proc = self.conn = None
        self.spec = None

    def _recv(self, timeout: float | None):
        if not self.conn.poll(timeout):
            return None
        try:
            return self.conn.recv()
        except EOFError:
            return ("error", "the worker process died (out of memory?)", "")

    def instance(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Build (or keep) the instance ``spec`` in the worker; return its ``info``."""
        if self.proc is None or not self.proc.is_alive():
            self._start()
        self.conn.send(("instance", spec))
        msg = self._recv(None)
        if msg[0] != "ok":
            self.stop()
            raise RuntimeError(f"building the instance {spec} failed: {msg[1]}\n{msg[2]}")
        self.spec = spec
        return msg[1]

    def fit(self, spec: dict[str, Any], name: str, cfg: PeersConfig) -> dict[str, Any]:
        """Run ``name`` on ``spec`` with the hard cap ``cfg.cap_s``."""
        if self.proc is None or not self.proc.is_alive() or self.spec != spec:
            self.instance(spec)
        self.conn.send(("fit", (name, cfg)))
        grace = 0.5 + 0.05 * cfg.cap_s
        msg = self._recv(cfg.cap_s + grace)
        if msg is None:  # over the cap: end the worker
            self.stop()
            return {"status": "timeout", "time_s": cfg.cap_s}
        if msg[0] == "error":
            self.stop()
            return {"status": "error", "error": msg[1]}
        fitted = msg[1]
        msg = self._recv(max(120.0, 4 * cfg.cap_s))  # the evaluation is not timed
        if msg is None or msg[0] != "ok":
            self.stop()
            why = "evaluation timed out" if msg is None else msg[1]
            return {"status": "error", "error": why, "time_s": fitted}
        out = msg[1]
        if out.pop("capped") or out["time_s"] > cfg.cap_s:
            out["status"] = "timeout"
        else:
            out["status"] = "finished"
        return out


# --------------------------------------------------------------------------- run


def _dense_needs_gb(n: int) -> float:
    return 8.0 * n * n / 2**30


def _uses_dense(name: str, n: int, cfg: PeersConfig) -> bool:
    return name == "snkp-dense" or (name == "nkp" and n <= cfg.nkp_dense_max_n)


def _families(cfg: PeersConfig):
    yield "linear", cfg.linear_ns, cfg.linear_rhos, cfg.linear_solvers, cfg.d
    yield "rbf", cfg.rbf_ns, cfg.rbf_rhos, cfg.rbf_solvers, cfg.rbf_d


def run(cfg: PeersConfig, log: Callable[[str], None] = print, command: str | None = None):
    """Run every (family, margin, n, solver) of ``cfg``; return the record (JSON-ready)."""
    t_start = time.perf_counter()
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_before = _loadavg()
    rows: list[dict[str, Any]] = []
    instances: list[dict[str, Any]] = []
    worker = _Worker(cfg.blas_threads)
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
                            info = worker.instance(spec)
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
    return _clean(record)


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


def _clean(obj):
    """JSON-ready: numpy scalars to Python, NaN/inf to None."""
    import numpy as np

    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def write_record(record: dict[str, Any], path: Path | str = DEFAULT_OUT) -> Path:
    """Write ``record`` as JSON atomically (a temporary file, then :func:`os.replace`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(record, indent=1, sort_keys=True, allow_nan=False) + "\n")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def load_record(path: Path | str | None = None) -> dict[str, Any]:
    """Read a record (default ``book/_generated/peers.json``)."""
    return json.loads(Path(path or DEFAULT_OUT).read_text())


# --------------------------------------------------------------------------- analysis


def _ok(r: dict[str, Any]) -> bool:
    """A run counts as a separator when it separated, and, for a run on an approximate
    kernel (Nystroem), when the exact kernel's check found no point on the wrong side."""
    return (
        r.get("status") == "finished"
        and r.get("separated") is True
        and r.get("exact_separated") is not False
    )


def crossovers(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Per family and margin: the fastest solver that separated at each ``n``, and who wins.

    For each (family, rho, n): ``fastest`` (the solver with the least time among the runs
    that finished with a separator, any solver), ``snkp`` (the fastest SNKP variant that
    separated) and ``peer`` (the fastest scikit-learn solver that separated), with their
    times, and ``winner``:

    * ``"snkp"`` when an SNKP variant separated and no peer separated faster (a peer that
      timed out, was skipped or did not separate loses);
    * ``"peers"`` when a peer separated faster than every SNKP variant (or no SNKP
      variant separated);
    * ``None`` when nobody separated.

    ``speedup`` is the best peer's time over the best SNKP time (a lower bound, with
    ``speedup_bound = ">="``, when no peer separated: the cap is used for the peers' time
    if some peer timed out, and the entry is ``None`` if all were skipped or failed).
    Each (family, rho) entry lists these per ``n`` in ``by_n`` and summarises them in
    ``snkp_wins_n`` and ``peers_win_n``.
    """
    rows = record["rows"]
    keys = sorted({(r["family"], r["rho"]) for r in rows}, key=lambda k: (k[0], -k[1]))
    out = []
    for fam, rho in keys:
        sub = [r for r in rows if r["family"] == fam and r["rho"] == rho]
        by_n = []
        for n in sorted({r["n"] for r in sub}):
            at = [r for r in sub if r["n"] == n]
            ok = sorted((r for r in at if _ok(r)), key=lambda r: r["time_s"])
            s = next((r for r in ok if r["solver"] in KPERC_SNKP), None)
            p = next((r for r in ok if r["solver"] in PEERS), None)
            entry: dict[str, Any] = {
                "n": n,
                "fastest": ok[0]["solver"] if ok else None,
                "fastest_s": ok[0]["time_s"] if ok else None,
                "snkp": s["solver"] if s else None,
                "snkp_s": s["time_s"] if s else None,
                "peer": p["solver"] if p else None,
                "peer_s": p["time_s"] if p else None,
                "winner": None,
                "speedup": None,
                "speedup_bound": None,
            }
            if s and (p is None or s["time_s"] <= p["time_s"]):
                entry["winner"] = "snkp"
            elif p:
                entry["winner"] = "peers"
            if s and p:
                entry["speedup"] = p["time_s"] / max(s["time_s"], 1e-12)
                entry["speedup_bound"] = "="
            elif s:
                timed = [r for r in at if r["solver"] in PEERS and r["status"] == "timeout"]
                if timed:
                    entry["speedup"] = max(r["time_s"] for r in timed) / max(s["time_s"], 1e-12)
                    entry["speedup_bound"] = ">="
            by_n.append(entry)
        out.append(
            {
                "family": fam,
                "rho": rho,
                "by_n": by_n,
                "snkp_wins_n": [e["n"] for e in by_n if e["winner"] == "snkp"],
                "peers_win_n": [e["n"] for e in by_n if e["winner"] == "peers"],
            }
        )
    return out


def _label(solver: str | None) -> str:
    return SOLVER_LABELS.get(solver, str(solver))


def _solvers_of(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Solvers of ``rows``: the known ones in display order, then any others."""
    present = {r["solver"] for r in rows}
    return [s for s in SOLVER_LABELS if s in present] + sorted(present - set(SOLVER_LABELS))


_SUP = str.maketrans(
    "-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
)


def short_number(x: float) -> str:
    """``10^k`` with a superscript exponent for a power of ten (a table cell that cannot
    wrap), else the plain number."""
    k = round(math.log10(x)) if x > 0 else None
    if k is not None and math.isclose(x, 10.0**k, rel_tol=1e-12):
        # word joiners (U+2060) between the characters: a narrow column cannot break them
        return "\u2060".join("10" + str(k).translate(_SUP))
    return f"{x:g}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fmt_time(t: float) -> str:
    """Seconds with three significant digits; milliseconds below one second."""
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def _cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return ""
    st = r["status"]
    if st == "skipped":
        return "skipped"
    if st == "timeout":
        return f"> {r['cap_s']:g} s"
    if st == "error":
        return "failed"
    t = _fmt_time(r["time_s"])
    return t if r["separated"] else f"{t}, no separator"


def crossover_grid_markdown(record: dict[str, Any], family: str | None = None) -> str:
    """One compact table of the crossovers: a row per (family, rho), a column per n.

    With ``family`` (``"linear"`` or ``"rbf"``) the table has that family's rows only and
    no problem column, so that it fits a phone's screen.

    A cell names the winner and by how much: ``SNKP 8.1x`` (the best peer took 8.1 times
    as long as the best SNKP variant; ``>=`` when no peer separated within its cap),
    ``SVC 5.2x`` (a peer was 5.2 times as fast as every SNKP variant, or ``only`` when no
    SNKP variant separated), ``none`` when no solver separated, empty when not measured.

    Examples
    --------
    >>> rows = [
    ...     {"family": "linear", "rho": 0.01, "n": 1000, "solver": s, "status": "finished",
    ...      "separated": True, "time_s": t}
    ...     for s, t in (("snkp-factored", 0.01), ("sklearn-perceptron", 0.05))
    ... ]
    >>> table = crossover_grid_markdown({"rows": rows})
    >>> print(table.replace("\u2060", "").splitlines()[2])  # without the word joiners
    | linear | 10⁻² | SNKP 5x |
    >>> print(crossover_grid_markdown({"rows": rows}, "linear").replace("\u2060", ""))
    | ρ | n = 10³ |
    |---|---|
    | 10⁻² | SNKP 5x |
    """
    cross = crossovers(record)
    if family is not None:
        if family not in FAMILY_LABELS:
            raise ValueError(f"family must be one of {sorted(FAMILY_LABELS)}, got {family!r}")
        cross = [c for c in cross if c["family"] == family]
    ns = sorted({e["n"] for c in cross for e in c["by_n"]})
    header = ([] if family else ["problem"]) + ["ρ"] + [f"n = {short_number(n)}" for n in ns]
    body = []
    for c in cross:
        by = {e["n"]: e for e in c["by_n"]}
        cells = []
        for n in ns:
            e = by.get(n)
            if e is None:
                cells.append("")
            elif e["winner"] is None:
                cells.append("none")
            elif e["winner"] == "snkp":
                sp = e["speedup"]
                bound = "≥ " if e["speedup_bound"] == ">=" else ""
                cells.append("SNKP only" if sp is None else f"SNKP {bound}{sp:.2g}x")
            else:
                who = SHORT_LABELS.get(e["peer"], e["peer"])
                sp = e["speedup"]
                cells.append(f"{who} only" if sp is None else f"{who} {1 / sp:.2g}x")
        first = [] if family else [FAMILY_LABELS.get(c["family"], c["family"])]
        body.append([*first, short_number(c["rho"]), *cells])
    return _md_table(header, body)


def snkp_goal(record: dict[str, Any], rho_max: float = 1e-2, n_min: int = 10_000) -> dict[str, Any]:
    """How often SNKP is ahead of every peer where the goal asks (rho <= rho_max, n >= n_min).

    Returns ``cases`` (measured (family, rho, n) cases in that region where some solver
    separated), ``snkp_wins`` and ``peers_win`` (counts), and ``lost`` (the cases SNKP
    lost, as ``(family, rho, n, peer)``).
    """
    wins, lost = 0, []
    for c in crossovers(record):
        if c["rho"] > rho_max:
            continue
        for e in c["by_n"]:
            if e["n"] < n_min or e["winner"] is None:
                continue
            if e["winner"] == "snkp":
                wins += 1
            else:
                lost.append((c["family"], c["rho"], e["n"], e["peer"]))
    return {"cases": wins + len(lost), "snkp_wins": wins, "peers_win": len(lost), "lost": lost}


def kernel_goal_miss(
    record: dict[str, Any], rho_max: float = 1e-2, n_min: int = 10_000
) -> dict[str, Any]:
    """The kernel (RBF) cases of the goal that SNKP lost, and the measurements behind why.

    Returns
    -------
    dict
        ``slower``: ``(rho, n, snkp_s, peer_s)`` where SNKP separated but a peer was
        faster; ``unsolved``: ``(rho, n, peer_s)`` where only a peer separated;
        ``svc_support``: ``(min, max)`` support vectors of the finished RBF ``SVC`` runs
        and ``svc_ns``: ``(min, max)`` of their ``n`` (both None without such runs);
        ``snkp_nit``: ``(n, nit)`` of the Nystroem SNKP runs at ``rho_max`` and
        ``n >= n_min``; ``nystroem_wrong``: ``(rho, n, points)`` for each Nystroem
        separator checked on all points that misplaced ``points`` under the exact kernel;
        ``dense_cap_n``: the smallest ``n`` at which SNKP on the dense ``G`` hit the cap.

    Examples
    --------
    >>> rows = [
    ...     {"family": "rbf", "rho": 0.01, "n": 10_000, "solver": s, "status": "finished",
    ...      "separated": True, "time_s": t, **extra}
    ...     for s, t, extra in (("snkp-nystroem", 0.4, {"nit": 120}),
    ...                         ("svc-rbf", 0.1, {"n_support": 70}))
    ... ]
    >>> miss = kernel_goal_miss({"rows": rows})
    >>> miss["slower"], miss["svc_support"], miss["snkp_nit"]
    ([(0.01, 10000, 0.4, 0.1)], (70, 70), [(10000, 120)])
    """
    rows = [r for r in record["rows"] if r["family"] == "rbf"]
    slower, unsolved = [], []
    for c in crossovers({"rows": rows}):
        if c["rho"] > rho_max:
            continue
        for e in c["by_n"]:
            if e["n"] < n_min or e["winner"] != "peers":
                continue
            if e["snkp"]:
                slower.append((c["rho"], e["n"], e["snkp_s"], e["peer_s"]))
            else:
                unsolved.append((c["rho"], e["n"], e["peer_s"]))
    done = [r for r in rows if r["status"] == "finished"]
    svc = [r for r in done if r["solver"] == "svc-rbf" and r.get("n_support")]
    ny = [r for r in done if r["solver"] == "snkp-nystroem"]
    capped = [r["n"] for r in rows if r["solver"] == "snkp-dense" and r["status"] == "timeout"]
    return {
        "slower": slower,
        "unsolved": unsolved,
        "svc_support": (min(r["n_support"] for r in svc), max(r["n_support"] for r in svc))
        if svc
        else None,
        "svc_ns": (min(r["n"] for r in svc), max(r["n"] for r in svc)) if svc else None,
        "snkp_nit": [(r["n"], r["nit"]) for r in ny if r["rho"] == rho_max and r["n"] >= n_min],
        "nystroem_wrong": [
            (r["rho"], r["n"], r["n"] - round(r["exact_fraction"] * r["n"]))
            for r in ny
            if r.get("exact_separated") is False and r.get("exact_rows") == "all"
        ],
        "dense_cap_n": min(capped) if capped else None,
    }


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def peers_markdown(record: dict[str, Any]) -> str:
    """Markdown tables: time to a separator per family and margin (solvers by ``n``), then
    the crossovers per family."""
    rows = record["rows"]
    parts = []
    fams = [f for f in FAMILY_LABELS if any(r["family"] == f for r in rows)]
    for fam in fams:
        sub = [r for r in rows if r["family"] == fam]
        for rho in sorted({r["rho"] for r in sub}, reverse=True):
            at = [r for r in sub if r["rho"] == rho]
            ns = sorted({r["n"] for r in at})
            body = []
            for s in _solvers_of(at):
                by_n = {r["n"]: r for r in at if r["solver"] == s}
                body.append([_label(s)] + [_cell(by_n.get(n)) for n in ns])
            parts.append(
                f"**{_cap(FAMILY_LABELS[fam])} problems, \u03c1 = {rho:g}**: "
                "time to a separator\n\n"
                + _md_table(["solver"] + [f"n = {short_number(n)}" for n in ns], body)
            )
    cr = record.get("crossovers") or crossovers(record)
    for fam in fams:

        def lab(s, t):
            return f"{_fmt_time(t)} ({SHORT_LABELS.get(s, s)})" if s else "none"

        body = []
        for c in (c for c in cr if c["family"] == fam):
            for e in c["by_n"]:
                sp = e["speedup"]
                spt = (
                    ""
                    if sp is None
                    else (">= " if e["speedup_bound"] == ">=" else "") + f"{sp:.3g}"
                )
                body.append(
                    [
                        f"{short_number(c['rho'])}, {short_number(e['n'])}",
                        lab(e["snkp"], e["snkp_s"]),
                        lab(e["peer"], e["peer_s"]),
                        spt,
                        _label(e["fastest"]) if e["fastest"] else "none",
                    ]
                )
        parts.append(
            f"**Crossovers, {FAMILY_LABELS[fam]} problems**\n\n"
            + _md_table(
                ["\u03c1, n", "best SNKP", "best peer", "peer / SNKP", "fastest"],
                body,
            )
        )
    return "\n\n".join(parts) + "\n"


#: Line style of each solver in :func:`figure`.
SOLVER_STYLES = {
    "snkp-dense": ("tab:red", "-"),
    "snkp-factored": ("tab:red", "--"),
    "snkp-nystroem": ("tab:purple", "--"),
    "nkp": ("tab:blue", "-"),
    "sklearn-perceptron": ("tab:orange", "-."),
    "linearsvc": ("tab:green", ":"),
    "svc-linear": ("tab:gray", "-"),
    "svc-rbf": ("tab:gray", "-"),
}


def figure(record: dict[str, Any], family: str, rhos: Sequence[float] | None = None):
    """Time to a separator against ``n`` (log-log), one panel per margin, one line per solver.

    At most two panels side by side, further ones stacked. Filled circles: runs that
    separated; crosses: runs that finished without a separator; open triangles at the
    cap: runs that did not finish within the cap. Skipped runs are not drawn.
    """
    import matplotlib.pyplot as plt

    from kperc_book.chapter import figsize, style

    style()
    sub = [r for r in record["rows"] if r["family"] == family]
    if not sub:
        raise ValueError(f"the record has no rows of the family {family!r}")
    if rhos is None:
        rhos = sorted({r["rho"] for r in sub}, reverse=True)
    cols = 1 if len(rhos) == 1 else 2
    nrows = math.ceil(len(rhos) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=figsize(nrows, cols, aspect=0.8), squeeze=False)
    solvers = _solvers_of(sub)
    handles = {}
    for ax, rho in zip(axes.flat, rhos, strict=False):
        for s in solvers:
            rs = sorted(
                (r for r in sub if r["rho"] == rho and r["solver"] == s and "time_s" in r),
                key=lambda r: r["n"],
            )
            rs = [r for r in rs if r["status"] in ("finished", "timeout")]
            if not rs:
                continue
            c, ls = SOLVER_STYLES.get(s, ("k", "-"))
            (h,) = ax.plot([r["n"] for r in rs], [r["time_s"] for r in rs], color=c, ls=ls, lw=1.3)
            handles[s] = h
            ok = [r for r in rs if _ok(r)]
            bad = [r for r in rs if r["status"] == "finished" and not r["separated"]]
            cap = [r for r in rs if r["status"] == "timeout"]
            ax.plot([r["n"] for r in ok], [r["time_s"] for r in ok], "o", color=c, ms=4)
            ax.plot([r["n"] for r in bad], [r["time_s"] for r in bad], "x", color=c, ms=7, mew=2)
            ax.plot([r["n"] for r in cap], [r["time_s"] for r in cap], "^", color=c, mfc="white")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{FAMILY_LABELS.get(family, family)} problems, rho = {rho:g}")
        ax.set_xlabel("n")
        ax.set_ylabel("seconds to a separator")
    for ax in list(axes.flat)[len(rhos) :]:
        ax.set_visible(False)
    from matplotlib.lines import Line2D

    marks = [
        Line2D([], [], color="k", marker="o", ls="", ms=4, label="separated"),
        Line2D([], [], color="k", marker="x", ls="", ms=7, mew=2, label="no separator"),
        Line2D([], [], color="k", marker="^", mfc="white", ls="", label="stopped at the cap"),
    ]
    hs = [handles[s] for s in solvers if s in handles] + marks
    labs = [_label(s) for s in solvers if s in handles] + [m.get_label() for m in marks]
    fig.tight_layout()
    # below every panel, where it cannot hide data (saved with bbox_inches="tight")
    fig.legend(hs, labs, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3)
    return fig


# --------------------------------------------------------------------------- CLI


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(_paths.ROOT))
    except ValueError:
        return path.name


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.peers [--quick] [--cap SECONDS] [--out PATH]``."""
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.peers",
        description="Time to a separator: kperc against scikit-learn, on the same instances.",
    )
    ap.add_argument("--quick", action="store_true", help="tiny sizes (well under a minute)")
    ap.add_argument("--cap", type=float, help="hard cap of one run, seconds (default 20)")
    ap.add_argument(
        "--out", default=str(DEFAULT_OUT), help="output JSON (default book/_generated/peers.json)"
    )
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(argv)
    over: dict[str, Any] = {}
    if args.cap is not None:
        if not args.cap > 0:
            ap.error(f"--cap must be a positive number of seconds; got {args.cap}")
        over["cap_s"] = args.cap
    cfg = quick_config(**over) if args.quick else default_config(**over)
    out = Path(args.out)
    shown = ["python -m benchmarks.peers"]
    if args.quick:
        shown.append("--quick")
    if args.cap is not None:
        shown.append(f"--cap {args.cap:g}")
    if args.out != str(DEFAULT_OUT):
        shown.append(f"--out {_display_path(out)}")
    log = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))
    record = run(cfg, log=log, command=" ".join(shown))
    write_record(record, out)
    print(peers_markdown(record))
    print(
        f"elapsed {record['elapsed_s']:.0f} s; load average {record['loadavg_1min_before']} -> "
        f"{record['loadavg_1min_after']}{' (busy)' if record['busy'] else ''}"
    )
    print(f"wrote {_display_path(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The worker process that runs one solver on one problem, ended at the cap."""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from benchmarks import _peer_runners as runners
from benchmarks.peers.config import PeersConfig


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
    ds = None
    while True:
        msg = conn.recv()
        if msg is None:
            return
        kind, payload = msg
        try:
            if kind == "problem":
                ds = runners.make_problem(payload)
                conn.send(("ok", dict(ds.info)))
            else:
                name, cfg = payload
                t0 = time.perf_counter()
                fit = _resolve(name, cfg)(ds, cfg)
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


class Worker:
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

    def prepare(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Build the problem ``spec`` in the worker (kept for the next fits); return its
        ``info``."""
        if self.proc is None or not self.proc.is_alive():
            self._start()
        self.conn.send(("problem", spec))
        msg = self._recv(None)
        if msg[0] != "ok":
            self.stop()
            raise RuntimeError(f"building the problem {spec} failed: {msg[1]}\n{msg[2]}")
        self.spec = spec
        return msg[1]

    def fit(self, spec: dict[str, Any], name: str, cfg: PeersConfig) -> dict[str, Any]:
        """Run ``name`` on ``spec`` with the hard cap ``cfg.cap_s``."""
        if self.proc is None or not self.proc.is_alive() or self.spec != spec:
            self.prepare(spec)
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

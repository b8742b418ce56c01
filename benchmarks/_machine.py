"""The machine a benchmark runs on, and its BLAS thread limit."""

from __future__ import annotations

import contextlib
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any


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

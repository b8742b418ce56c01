"""The machine and the software a measurement ran on, collected in one place.

``python -m kperc_book.reproduce`` takes the platform, the package versions and the BLAS
of each run it logs from here; :func:`machine_info` and :func:`loadavg` describe the
machine of a measurement. Nothing here records a path or the host name: the records are
committed.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_PACKAGES",
    "blas_libraries",
    "cpu_model",
    "loadavg",
    "machine_info",
    "package_versions",
    "platform_tag",
]

#: Distributions whose versions :func:`machine_info` records by default.
DEFAULT_PACKAGES = (
    "numpy",
    "scipy",
    "scikit-learn",
    "joblib",
    "threadpoolctl",
    "kperc",
    "cvxpy",
    "clarabel",
    "numexpr",
)

#: Environment variables that set thread-pool sizes (recorded when set).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what :mod:`platform` knows.

    Examples
    --------
    >>> from kperc_book.machine import cpu_model
    >>> isinstance(cpu_model(), str)
    True
    """
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def loadavg() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages, rounded to 0.01 (``None`` if unknown).

    Examples
    --------
    >>> from kperc_book.machine import loadavg
    >>> la = loadavg()
    >>> la is None or len(la) == 3
    True
    """
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):  # pragma: no cover - not on a Unix
        return None


def package_versions(packages: Iterable[str] = DEFAULT_PACKAGES) -> dict[str, str]:
    """``{distribution: version}``, with ``"missing"`` for one that is not installed.

    Examples
    --------
    >>> from kperc_book.machine import package_versions
    >>> v = package_versions(["numpy", "no-such-distribution-xyz"])
    >>> v["no-such-distribution-xyz"]
    'missing'
    """
    out = {}
    for dist in packages:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "missing"
    return out


def platform_tag() -> str:
    """``system-architecture``, for example ``Linux-x86_64``.

    Examples
    --------
    >>> from kperc_book.machine import platform_tag
    >>> platform_tag().count("-") >= 1
    True
    """
    return f"{platform.system()}-{platform.machine()}"


def _memory_gb() -> float | None:
    try:
        import psutil

        return round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:
        pass
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not on a Unix
        return None


def _blas() -> str | None:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return None
    blas = sorted(
        {
            f"{p.get('internal_api')} {p.get('version')} ({p.get('prefix')})"
            for p in threadpool_info()
            if p.get("user_api") == "blas"
        }
    )
    # every BLAS loaded (NumPy's and SciPy's may differ); no paths
    return ", ".join(blas) if blas else None


def blas_libraries() -> list[dict[str, Any]]:
    """The BLAS libraries numpy and scipy load, with their kernel and thread count.

    numpy and scipy's linear algebra are imported first, so that the libraries they
    link are loaded; threadpoolctl then reports each one.

    Returns
    -------
    list of dict
        One entry per library: ``library`` (``openblas``, ``mkl``, ...), ``version``,
        ``kernel`` (the CPU architecture the library chose, e.g. ``Haswell``),
        ``threads`` and ``threading_layer``.

    Examples
    --------
    >>> libs = blas_libraries()
    >>> all(set(lib) == {"library", "version", "kernel", "threads", "threading_layer"}
    ...     for lib in libs)
    True
    """
    import numpy  # noqa: F401 - loads the BLAS that threadpoolctl inspects

    try:
        import scipy.linalg  # noqa: F401
    except ImportError:  # pragma: no cover - scipy is a dependency of kperc
        pass
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return []
    seen = []
    for lib in threadpool_info():
        if lib.get("user_api") != "blas":
            continue
        entry = {
            "library": str(lib.get("internal_api", "?")),
            "version": str(lib.get("version") or "?"),
            "kernel": str(lib.get("architecture") or "?"),
            "threads": lib.get("num_threads"),
            "threading_layer": str(lib.get("threading_layer") or "?"),
        }
        if entry not in seen:
            seen.append(entry)
    return seen


def machine_info(packages: Iterable[str] = DEFAULT_PACKAGES) -> dict[str, Any]:
    """CPU, cores, memory, BLAS, load and library versions (no paths, no host name).

    Parameters
    ----------
    packages : iterable of str
        Distributions whose versions to record (default :data:`DEFAULT_PACKAGES`).

    Returns
    -------
    dict
        ``cpu`` (model name), ``cores``, ``platform`` (``system-architecture``),
        ``system``, ``machine``, ``processor``, ``python``, ``memory_gb``, ``blas`` (the
        BLAS libraries loaded, when threadpoolctl sees one), ``threads`` (thread-pool
        environment variables that are set), ``loadavg`` (1, 5 and 15 minutes, at the
        call) and one entry per distribution. ``cpu_model`` and ``cpu_count`` repeat
        ``cpu`` and ``cores`` under the names the chapter pages read.

    Examples
    --------
    >>> from kperc_book.machine import machine_info
    >>> info = machine_info(packages=["numpy"])
    >>> info["cores"] == info["cpu_count"] and info["cpu"] == info["cpu_model"]
    True
    >>> sorted(k for k in ("python", "numpy", "platform") if k in info)
    ['numpy', 'platform', 'python']
    """
    cpu = cpu_model()
    cores = os.cpu_count()
    info: dict[str, Any] = {
        "cpu": cpu,
        "cpu_model": cpu,
        "cores": cores,
        "cpu_count": cores,
        "platform": platform_tag(),
        "system": platform.system(),
        "machine": platform.machine(),
        "processor": platform.processor() or "unknown",
        "python": platform.python_version(),
        "memory_gb": _memory_gb(),
        "threads": {k: os.environ[k] for k in THREAD_VARIABLES if k in os.environ},
        "loadavg": loadavg(),
    }
    blas = _blas()
    if blas:
        info["blas"] = blas
    info.update(package_versions(packages))
    return info

"""Every benchmark runs with one BLAS thread; the JSON records the machine without its name."""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version

import pytest
import threadpoolctl

#: Versions recorded with every measurement.
PACKAGES = ("kperc", "numpy", "scipy", "scikit-learn", "threadpoolctl", "pytest-benchmark")
_BLAS: list[dict] = []


@pytest.fixture(scope="session", autouse=True)
def one_blas_thread():
    """One BLAS thread for kperc and scikit-learn alike, as issue 30's comparison has it."""
    with threadpoolctl.threadpool_limits(1):
        _BLAS[:] = [
            {k: p.get(k) for k in ("internal_api", "version", "num_threads", "architecture")}
            for p in threadpoolctl.threadpool_info()
        ]
        yield


def _version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def pytest_benchmark_update_machine_info(config, machine_info):
    """Drop the host name; add the BLAS libraries, their threads, versions and the load."""
    machine_info.pop("node", None)
    machine_info["blas"] = list(_BLAS)
    machine_info["packages"] = {name: _version(name) for name in PACKAGES}
    machine_info["loadavg"] = [round(x, 2) for x in os.getloadavg()]


def pytest_benchmark_update_commit_info(config, commit_info):
    """The project's name, not the name of the folder it was checked out in."""
    commit_info["project"] = "kperc-book"

"""Resident memory of the current process from ``/proc`` (Linux), for measuring children.

The ``memory`` and ``nystroem`` suites run their measurement in a fresh subprocess that
imports these two functions.
"""

from __future__ import annotations


def status(key: str) -> int:
    """A byte count from ``/proc/self/status``, e.g. ``"VmRSS:"`` or ``"VmHWM:"`` (peak)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    raise KeyError(f"{key!r} is not in /proc/self/status")


def reset_peak() -> bool:
    """Reset the peak resident memory (``VmHWM``) to the current one; False if impossible."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return status("VmHWM:") <= status("VmRSS:") + 4096 * 16
    except OSError:
        return False

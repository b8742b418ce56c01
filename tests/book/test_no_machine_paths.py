"""No committed file mentions a path of the machine that produced it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the home, work and temporary folders of the build machines (spelled in pieces so that
# this file does not match itself)
MACHINE = re.compile(
    r"(?<![\w.~-])/(" + "|".join(["wo" + "rk", "ro" + "ot", "t" + "mp"]) + r")(?=/|\b)"
)


def _committed() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: nothing is committed here")
    return [ROOT / p for p in out.decode().split("\0") if p]


def test_pattern_catches_machine_paths():
    assert MACHINE.search('"input_path": "/' + 'work/main/book/ch01.ipynb"')
    assert MACHINE.search("File /" + "tmp/ipykernel_12/123.py, line 3")
    assert MACHINE.search("/" + "root/.cache")
    assert not MACHINE.search("see docs/working.md or a/tmp_dir and /rooted")


def test_no_committed_file_contains_a_machine_path():
    offenders = []
    for path in _committed():
        if not path.is_file():
            continue  # deleted in the working tree
        blob = path.read_bytes()
        if b"\0" in blob[:8192]:
            continue  # binary (PNG, npz)
        for n, line in enumerate(blob.decode("utf-8", "replace").splitlines(), 1):
            if MACHINE.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:120]}")
    assert not offenders, "machine paths in committed files:\n" + "\n".join(offenders)

"""make bench-device's script (bench/device.py) at small n on the CPU, as CI runs it (a test of
the checkout's bench/, so not among the library's tests, which also run outside it)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "device.py"

pytestmark = pytest.mark.skipif(
    torch.cuda.is_available(), reason="on a CUDA GPU the script runs the issue's sizes"
)


def test_bench_device_on_the_cpu(tmp_path):
    out = tmp_path / "record.json"
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--scale", "tiny", "--out", str(out)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert "no CUDA GPU" in run.stdout
    record = json.loads(out.read_text())
    assert record["device"].startswith("cpu") and record["scale"] == "tiny"
    assert list(record["steps"]) == ["gv", "snkp", "clf", "svc", "fly", "svc_fly"]
    for entry in record["steps"].values():
        assert entry["status"] in ("done", "budget reached")
    for step in ("snkp", "clf", "fly"):  # small problems with a margin: certified within budget
        assert record["steps"][step]["certified"], record["steps"][step]
    assert record["steps"]["gv"]["bandwidth_GBps"] > 0


def test_bench_device_never_writes_the_book_on_the_cpu():
    target = ROOT / "book" / "_generated" / "device" / "record.json"
    existed = target.exists()
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--scale", "tiny", "--out", str(target)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode != 0 and "only a run on a CUDA GPU" in run.stderr
    assert target.exists() == existed

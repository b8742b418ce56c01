"""make bench-device: kperc on a CUDA GPU in one short run (issue 37), a JSON record.

Steps, each with its own time budget, the record rewritten after each one (a kill loses
only the step under way):

1. ``gv``: ``planted_rbf(n, d=8, rho=1e-3)``, its exact RBF Gram matrix formed on the
   device in float32 (:func:`kperc.gram_matrix` of a torch tensor), then one ``G @ v``
   timed against the device's bandwidth (its nominal peak where torch reports it, and a
   measured device-to-device copy);
2. ``snkp``: :func:`kperc.snkp` on that ``G``, end to end: Gram formation (step 1) plus the
   iterations and the float64 certification of the exit;
3. ``clf``: ``SNKPClassifier(device=...)`` on the same data, end to end (validation,
   the kernel on the device, SNKP, every exit checked in float64 for the data), in a
   subprocess stopped at its budget; ``tol`` below the margin, so that no certificate
   ends it early (``tol="auto"`` would be ``1/sqrt(n)``, above ``rho``);
4. ``svc``: scikit-learn's ``SVC(C=1e6)`` (hard margin) on the machine's CPUs on the same
   data, in a subprocess stopped at its budget;
5. ``fly``: :func:`kperc.snkp` on the on-the-fly operator (:func:`kperc.kernel_gram_operator`
   of a torch tensor, never forming ``G``) on ``planted_rbf(n_fly, d=8, rho=1e-2)``;
6. ``svc_fly``: ``SVC(C=1e6)`` on that problem.

A step that runs out of its budget stops and records ``"budget reached"``. With a CUDA GPU
the sizes are ``n = 1e5`` and ``n_fly = 1e6`` and the record goes to
``book/_generated/device/record.json``, with the machine. Without one the script says so,
runs the same steps at small ``n`` on the CPU with torch and writes to
``_build/device/record.json`` (or ``--out``): never to ``book/_generated``.

Run: ``python bench/device.py [--scale cpu|tiny] [--out PATH]`` with kperc importable (see
the Makefile's ``bench-device`` target for the GPU machine).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BOOK_RECORD = ROOT / "book" / "_generated" / "device" / "record.json"
CPU_RECORD = ROOT / "_build" / "device" / "record.json"

#: problem sizes: the issue's on a GPU; small ones on the CPU (``tiny`` for the test)
SCALES = {
    "gpu": {"n": 100_000, "n_fly": 1_000_000},
    "cpu": {"n": 2_000, "n_fly": 4_000},
    "tiny": {"n": 300, "n_fly": 500},
}
#: seconds per step (on the CPU scales, a fifth), within 8 minutes in all
BUDGETS = {"gv": 40.0, "snkp": 60.0, "clf": 60.0, "svc": 60.0, "fly": 180.0, "svc_fly": 60.0}
TOTAL_S = 470.0
D, GAMMA, SEED = 8, 2.0, 0

SVC_CODE = """
import sys, time, numpy as np
from sklearn.svm import SVC
X = np.load(sys.argv[1]); y = np.load(sys.argv[2])
t = time.perf_counter()
clf = SVC(C=1e6, kernel="rbf", gamma=float(sys.argv[3]), cache_size=4000).fit(X, y)
print(time.perf_counter() - t, int((clf.predict(X) != y).sum()), clf.n_support_.sum())
"""

CLF_CODE = """
import json, sys, time, warnings, numpy as np, torch
from kperc import SNKPClassifier
X = np.load(sys.argv[1]); y = np.load(sys.argv[2])
torch.zeros(1, device=sys.argv[4])  # the device's context, started before the clock
clf = SNKPClassifier(gamma=float(sys.argv[3]), tol=1e-4, device=sys.argv[4])
t = time.perf_counter()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    clf.fit(X, y)
fit_s = time.perf_counter() - t
sub = np.random.default_rng(0).choice(len(y), min(len(y), 1000), replace=False)
print(json.dumps({"fit_s": fit_s, "outcome": clf.outcome_, "certified": bool(clf.converged_),
    "n_iter": int(clf.n_iter_), "gram_form": clf.gram_form_,
    "sample_errors": int((clf.predict(X[sub]) != y[sub]).sum()),
    "warnings": [str(w.message)[:300] for w in caught]}))
"""


def _machine(torch, cuda: bool) -> dict:
    try:  # the book's record of a machine, when its tools are importable
        from kperc_book.machine import machine_info

        info = machine_info(packages=["numpy", "scipy", "scikit-learn", "torch"])
    except ImportError:
        info = {
            "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "torch": torch.__version__,
        }
    if cuda:
        props = torch.cuda.get_device_properties(0)
        info["gpu"] = props.name
        info["gpu_memory_gb"] = round(props.total_memory / 2**30, 1)
        info["cuda"] = torch.version.cuda
    return info


def _peak_bandwidth(torch) -> float | None:
    """The GPU's nominal memory bandwidth (bytes/s) from its clock and bus width."""
    props = torch.cuda.get_device_properties(0)
    clock = getattr(props, "memory_clock_rate", None)  # kHz
    bus = getattr(props, "memory_bus_width", None)  # bits
    return 2.0 * clock * 1e3 * bus / 8 if clock and bus else None


class Budget:
    """A callback that stops a kperc run when its time is up (``StopIteration``)."""

    def __init__(self, seconds: float):
        self.deadline = time.perf_counter() + seconds
        self.reached = False

    def __call__(self, intermediate_result):
        if time.perf_counter() > self.deadline:
            self.reached = True
            raise StopIteration


def _sync(torch, cuda: bool) -> None:
    if cuda:
        torch.cuda.synchronize()


def _timed(fn, torch, cuda):
    _sync(torch, cuda)
    t = time.perf_counter()
    out = fn()
    _sync(torch, cuda)
    return out, time.perf_counter() - t


def _clf(X, y, device: str, budget: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        np.save(f"{tmp}/X.npy", X)
        np.save(f"{tmp}/y.npy", y)
        cmd = [sys.executable, "-c", CLF_CODE, f"{tmp}/X.npy", f"{tmp}/y.npy", str(GAMMA), device]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=budget, check=True)
        except subprocess.TimeoutExpired:
            return {"status": "budget reached", "budget_s": budget}
    return {"status": "done", "device": device, **json.loads(out.stdout.splitlines()[-1])}


def _svc(X, y, budget: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        np.save(f"{tmp}/X.npy", X)
        np.save(f"{tmp}/y.npy", y)
        cmd = [sys.executable, "-c", SVC_CODE, f"{tmp}/X.npy", f"{tmp}/y.npy", str(GAMMA)]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=budget, check=True)
        except subprocess.TimeoutExpired:
            return {"status": "budget reached", "budget_s": budget}
    secs, errors, nsv = out.stdout.split()
    return {"status": "done", "fit_s": float(secs), "train_errors": int(errors), "n_sv": int(nsv)}


def _snkp_entry(res, budget: Budget, seconds: float) -> dict:
    entry = {
        "status": "budget reached" if budget.reached else "done",
        "outcome": res.outcome,
        "certified": res.outcome == "separator",
        "nit": int(res.nit),
        "seconds": seconds,
        "message": res.message,
    }
    return entry


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=["cpu", "tiny"], default="cpu")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    import torch

    import kperc
    from kperc.datasets import planted_rbf

    cuda = torch.cuda.is_available()
    start = time.perf_counter()
    if cuda:
        scale, device, factor = "gpu", "cuda", 1.0
        out = args.out or BOOK_RECORD
    else:
        print("no CUDA GPU on this machine: the same steps at small n on the CPU (torch)")
        scale, device, factor = args.scale, "cpu", 0.2
        out = args.out or CPU_RECORD
        if BOOK_RECORD.parent.resolve() in out.resolve().parents:
            raise SystemExit(f"--out={out}: only a run on a CUDA GPU writes to book/_generated")
    sizes = SCALES[scale]
    record: dict = {
        "issue": 37,
        "device": torch.cuda.get_device_name(0) if cuda else "cpu (no CUDA GPU)",
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "scale": scale,
        "sizes": sizes,
        "budgets_s": {k: v * factor for k, v in BUDGETS.items()},
        "machine": _machine(torch, cuda),
        "steps": {},
    }

    def save(step: str, entry: dict) -> None:
        record["steps"][step] = entry
        record["elapsed_s"] = time.perf_counter() - start
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(record, indent=2, default=str) + "\n")
        tmp.replace(out)
        print(f"{step}: {json.dumps(entry, default=str)}", flush=True)

    def budget(step: str) -> float:
        left = TOTAL_S * factor - (time.perf_counter() - start)
        return max(1.0, min(BUDGETS[step] * factor, left))

    n = sizes["n"]
    # 1. one G @ v at n in float32, and the Gram formation
    t = time.perf_counter()
    X, y = planted_rbf(n, D, rho=1e-3, gamma=GAMMA, seed=SEED)
    data_s = time.perf_counter() - t
    Xd = torch.asarray(X, dtype=torch.float32, device=device)
    yd = torch.asarray(y, dtype=torch.float32, device=device)
    G, gram_s = _timed(lambda: kperc.gram_matrix(Xd, yd, "rbf", gamma=GAMMA), torch, cuda)
    v = torch.full((n,), 1.0 / n, dtype=torch.float32, device=device)
    G @ v
    times: list[float] = []
    stop = time.perf_counter() + budget("gv")
    while len(times) < 20 and time.perf_counter() < stop:
        times.append(_timed(lambda: G @ v, torch, cuda)[1])
    gv_s = float(np.median(times))
    entry = {
        "status": "done",
        "n": n,
        "data_s": data_s,
        "gram_s": gram_s,
        "gv_s": gv_s,
        "reps": len(times),
        "bytes": 4 * n * n,
        "bandwidth_GBps": 4 * n * n / gv_s / 1e9,
    }
    if cuda:
        peak = _peak_bandwidth(torch)
        buf = torch.empty(2**28, dtype=torch.float32, device=device)  # 1 GiB
        buf.clone()
        copy_s = min(_timed(lambda: buf.clone(), torch, cuda)[1] for _ in range(5))
        entry["copy_bandwidth_GBps"] = 2 * buf.numel() * 4 / copy_s / 1e9
        del buf
        if peak:
            entry["peak_bandwidth_GBps"] = peak / 1e9
            entry["fraction_of_peak"] = entry["bandwidth_GBps"] * 1e9 / peak
    save("gv", entry)

    # 2. SNKP end to end on that G: formation (above), iterations, certification
    b = Budget(budget("snkp"))
    res, snkp_s = _timed(lambda: kperc.snkp(G, callback=b), torch, cuda)
    entry = _snkp_entry(res, b, gram_s + snkp_s)
    entry.update(gram_s=gram_s, iterations_s=snkp_s)
    if res.nit:
        entry["per_iteration_s"] = snkp_s / res.nit
        entry["per_iteration_over_gv"] = snkp_s / res.nit / gv_s
    save("snkp", entry)
    G = None  # frees the device memory for the next steps
    if cuda:
        torch.cuda.empty_cache()  # so that the operator's blocks are sized from it

    # 3. the estimator on the device, same data (a subprocess: its own budget)
    save("clf", {"n": n, **_clf(X, y, device, budget("clf"))})

    # 4. hard-margin SVC on the CPUs, same data
    save("svc", {"n": n, **_svc(X, y, budget("svc"))})

    # 5. SNKP on the on-the-fly operator at n_fly, rho = 1e-2
    nf = sizes["n_fly"]
    t = time.perf_counter()
    Xf, yf = planted_rbf(nf, D, rho=1e-2, gamma=GAMMA, seed=SEED)
    data_s = time.perf_counter() - t
    op = kperc.kernel_gram_operator(
        torch.asarray(Xf, dtype=torch.float32, device=device),
        torch.asarray(yf, dtype=torch.float32, device=device),
        "rbf",
        gamma=GAMMA,
    )
    b = Budget(budget("fly"))
    res, fly_s = _timed(lambda: kperc.snkp(op, callback=b), torch, cuda)
    save(
        "fly",
        {"n": nf, "data_s": data_s, "block_rows": op.block_size, **_snkp_entry(res, b, fly_s)},
    )

    # 6. hard-margin SVC on that problem
    save("svc_fly", {"n": nf, **_svc(Xf, yf, budget("svc_fly"))})
    print(f"record: {out} ({record['elapsed_s']:.0f} s)")
    return record


if __name__ == "__main__":
    main()

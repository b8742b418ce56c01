"""The ``floor`` suite: what one SNKP iteration costs besides its product with ``G``.

With the factored operator at ``n = 2000``, ``d = 50``, a product ``Z (Z^T v)`` takes a
few tens of microseconds, and the dozen NumPy calls of SNKP's step (the update of
``alpha``, the shift-exp-normalise of the softmax, the update of ``p``) cost about as
much again. This suite measures that floor step by step, outside the library, on a
state taken from a real SNKP run, and tries numexpr (when installed) for the fused
updates and the fused shift-exp. The library adopts numexpr only if an iteration
built from its steps meets the per-iteration targets (:data:`PERITER_TARGETS`); the
verdict is recorded with the numbers.

numexpr runs with one thread, as BLAS does here: the clock is the calling thread's CPU
time, which would not count work done by other threads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._config import PERITER_TARGETS, BenchConfig
from benchmarks._problems import _products, periter_problem
from benchmarks._timing import (
    _cpu,
    interleaved_times,
    per_iteration_interleaved,
    summarize,
)
from benchmarks.targets import target
from kperc._kernels import gram_operator
from kperc._perceptrons import snkp
from kperc._smoothing import EXP_FLOOR, entropy_prox

#: SNKP iterations run to reach the state the steps are timed on.
STATE_ITERS = 200
#: The steps of one SNKP iteration besides the product, in the library's order.
STEPS = ("update", "softmax", "p_update")
#: The parts of the softmax step.
SOFTMAX_PARTS = ("min", "shift", "mask", "exp", "normalise")


def _state(n: int, d: int, seed: int):
    """``(X, Y, Z, mu, theta, op)`` after :data:`STATE_ITERS` SNKP iterations."""
    ds = periter_problem(n, d, seed)
    op = gram_operator(ds.X, ds.y)
    res = snkp(op, max_iter=STATE_ITERS, check_input=False)
    k = int(res.nit)
    mu = 4.0 / ((k + 1) * (k + 2))
    theta = 2.0 / (k + 3)
    mv, _ = _products(op)
    alpha, p = np.asarray(res.alpha, dtype=np.float64), np.asarray(res.p, dtype=np.float64)
    X = np.vstack([alpha, mv(alpha)])  # rows alpha, G alpha (as the library keeps them)
    Y = np.vstack([p, mv(p)])
    phat = entropy_prox(X[1], mu)
    Z = np.vstack([phat, mv(phat)])
    return X, Y, Z, mu, theta, op


def _numpy_steps(X, Y, Z, mu, theta, matvec) -> dict[str, Callable[[], None]]:
    """The library's step, call for call (kperc/_perceptrons.py, SNKP's loop)."""
    n = X.shape[1]
    T = np.empty_like(X)
    ga, phat, z = X[1], Z[0], T[0]
    keep = np.empty(n, dtype=bool)
    one = 1.0 - theta
    gmin = float(ga.min())

    def update() -> None:
        np.multiply(Y, theta, out=T)
        np.add(X, T, out=T)
        np.multiply(T, one, out=T)
        np.multiply(Z, theta * theta, out=X)
        np.add(T, X, out=X)

    def vmin() -> None:
        np.minimum.reduce(ga)

    def shift() -> None:
        np.divide(ga, -mu, out=z)
        np.subtract(z, gmin / -mu, out=z)

    def mask() -> None:
        np.greater(z, -EXP_FLOOR, out=keep)

    def exp() -> None:
        phat.fill(0.0)
        np.exp(z, out=phat, where=keep)

    def normalise() -> None:
        np.divide(phat, np.add.reduce(phat), out=phat)

    def softmax() -> None:
        vmin()
        shift()
        mask()
        exp()
        normalise()

    def p_update() -> None:
        np.multiply(Y, one, out=Y)
        np.multiply(Z, theta, out=T)
        np.add(Y, T, out=Y)

    def product() -> None:
        matvec(phat)

    return {
        "update": update,
        "softmax": softmax,
        "p_update": p_update,
        "min": vmin,
        "shift": shift,
        "mask": mask,
        "exp": exp,
        "normalise": normalise,
        "product": product,
    }


def _numexpr_steps(X, Y, Z, mu, theta, matvec, ne) -> dict[str, Callable[[], None]]:
    """The same step with numexpr: one compiled expression per update, a fused shift-exp."""
    f8 = np.float64
    sig = [("one", f8), ("x", f8), ("theta", f8), ("y", f8), ("t2", f8), ("zz", f8)]
    upd = ne.NumExpr("one * (x + theta * y) + t2 * zz", signature=sig)
    sm = ne.NumExpr("exp((g - ga) / m)", signature=[("g", f8), ("ga", f8), ("m", f8)])
    pu = ne.NumExpr(
        "one * y + theta * zz", signature=[("one", f8), ("y", f8), ("theta", f8), ("zz", f8)]
    )
    ga, phat = X[1], Z[0]
    one = 1.0 - theta

    def update() -> None:
        upd.run(one, X, theta, Y, theta * theta, Z, out=X, ex_uses_vml=False)

    def softmax() -> None:
        gmin = float(np.minimum.reduce(ga))
        sm.run(gmin, ga, mu, out=phat, ex_uses_vml=False)  # exp(-(ga - gmin) / mu)
        np.divide(phat, np.add.reduce(phat), out=phat)

    def p_update() -> None:
        pu.run(one, Y, theta, Z, out=Y, ex_uses_vml=False)

    def iteration() -> None:
        update()
        softmax()
        matvec(phat)
        p_update()

    return {"update": update, "softmax": softmax, "p_update": p_update, "iteration": iteration}


def _loop(f: Callable[[], None], inner: int) -> Callable[[], None]:
    def run() -> None:
        for _ in range(inner):
            f()

    return run


def suite_floor(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """SNKP's per-iteration floor with the factored operator, NumPy against numexpr."""
    try:
        import numexpr as ne
    except ImportError:
        ne = None
    n, d = cfg.floor_n, cfg.floor_d
    X, Y, Z, mu, theta, op = _state(n, d, cfg.seed)
    mv, _ = _products(op)
    variants: dict[str, dict[str, Callable[[], None]]] = {}
    base = (X.copy(), Y.copy(), Z.copy())
    np_steps = _numpy_steps(*base, mu, theta, mv)

    def np_iteration() -> None:
        np_steps["update"]()
        np_steps["softmax"]()
        np_steps["product"]()
        np_steps["p_update"]()

    variants["numpy"] = {**np_steps, "iteration": np_iteration}
    threads_before = None
    if ne is not None:
        threads_before = ne.set_num_threads(1)
        variants["numexpr"] = _numexpr_steps(X.copy(), Y.copy(), Z.copy(), mu, theta, mv, ne)
    try:
        calls = {f"{v}:{k}": f for v, steps in variants.items() for k, f in steps.items()}
        one = max(1e-7, min(_time_once(f) for f in calls.values()))
        inner = max(1, int((0.001 if cfg.quick else 0.004) / one))
        looped = {k: _loop(f, inner) for k, f in calls.items()}
        times = interleaved_times(looped, cfg.repeats, clock=_cpu)
        per_call = {k: [t / inner for t in ts] for k, ts in times.items()}
        lib = per_iteration_interleaved(
            ("snkp", "snkpvn"), op, repeats=cfg.repeats, target_time=0.02 if cfg.quick else 0.08
        )
    finally:
        if ne is not None and threads_before is not None:
            ne.set_num_threads(threads_before)
    product = per_call["numpy:product"]
    out: dict[str, Any] = {
        "n": n,
        "d": d,
        "operator": "factored",
        "state_iterations": STATE_ITERS,
        "clock": "thread CPU time",
        "inner_calls": inner,
        "numexpr": ne.__version__ if ne is not None else None,
        "numexpr_threads": 1 if ne is not None else None,
        "product_s": summarize(product),
        "steps": {},
        "iteration_ratio": {},
        "floor_in_products": {},
    }
    for v, steps in variants.items():
        out["steps"][v] = {
            k: summarize(per_call[f"{v}:{k}"]) for k in steps if k not in ("product", "iteration")
        }
        it = per_call[f"{v}:iteration"]
        # each repeat's iteration against the product measured in the same repeat
        ratios = [a / b for a, b in zip(it, product, strict=True)]
        out["iteration_ratio"][v] = summarize(ratios)
        out["floor_in_products"][v] = summarize([r - 1.0 for r in ratios])
    out["softmax_parts"] = {k: out["steps"]["numpy"].pop(k) for k in SOFTMAX_PARTS}
    out["library"] = {
        alg: {
            "ratio": m["ratio"],
            "ratio_spread": m["ratio_spread"],
            "target": PERITER_TARGETS[alg],
        }
        for alg, m in lib.items()
    }
    tgt = PERITER_TARGETS["snkp"]
    if "numexpr" in out["iteration_ratio"]:
        r_ne = out["iteration_ratio"]["numexpr"]["median"]
        r_np = out["iteration_ratio"]["numpy"]["median"]
        out["numexpr_meets_target"] = bool(r_ne <= tgt)
        out["verdict"] = (
            f"numexpr: an SNKP iteration costs {r_ne:.2f} products against {r_np:.2f} with "
            f"NumPy (target {tgt}); "
            + (
                "it meets the target"
                if r_ne <= tgt
                else "it does not meet the target, so the library keeps NumPy"
            )
        )
    else:
        out["numexpr_meets_target"] = None
        out["verdict"] = "numexpr is not installed; only the NumPy floor was measured"
    s = out["steps"]["numpy"]
    log(
        f"floor n={n} d={d}: product {np.median(product) * 1e6:.1f} us; numpy steps "
        + ", ".join(f"{k} {s[k]['median'] * 1e6:.1f} us" for k in STEPS)
        + f"; {out['verdict']}"
    )
    return out


def _time_once(f: Callable[[], None]) -> float:
    f()
    t0 = _cpu()
    f()
    return _cpu() - t0


def targets(floor: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """SNKP's iteration rebuilt from its steps, against the SNKP per-iteration target."""
    out: list[dict[str, Any]] = []
    if floor and floor.get("iteration_ratio"):
        tgt = PERITER_TARGETS["snkp"]
        best = min(floor["iteration_ratio"], key=lambda v: floor["iteration_ratio"][v]["median"])
        r = floor["iteration_ratio"][best]
        parts = floor.get("softmax_parts", {})
        out.append(
            target(
                "floor-snkp",
                f"SNKP iteration built from its steps, factored G, n = {floor['n']}, "
                f"best of {', '.join(floor['iteration_ratio'])}",
                r["median"],
                tgt,
                r["median"] <= tgt,
                f"{best}: {r['median']:.3g} products per iteration "
                f"(spread {r['min']:.3g}-{r['max']:.3g}); the softmax's masked exp alone "
                f"takes {parts.get('exp', {}).get('median', float('nan')) * 1e6:.3g} us against "
                f"{floor['product_s']['median'] * 1e6:.3g} us for the product. "
                f"{floor['verdict']}",
            )
        )
    return out


def summary(floor: dict[str, Any]) -> list[str]:
    """Lines of the text summary: SNKP's iteration from its steps, per variant."""
    lines: list[str] = []
    if floor and floor.get("iteration_ratio"):
        lines.append("")
        lines.append(
            f"SNKP iteration from its steps, factored G, n = {floor['n']} "
            "(products per iteration, median [min-max])"
        )
        for v, r in floor["iteration_ratio"].items():
            lines.append(f"  {v:8s} {r['median']:.3f} [{r['min']:.3f}-{r['max']:.3f}]")
    return lines

"""The ``fixedcost`` suite: what one call of an algorithm costs before its iteration 1.

On a plain dense ``G`` every call of ``snkp``, ``nkp``, ``nvn`` and ``isnkpvn`` checks
the matrix (symmetry, unit diagonal, finiteness and positive semidefiniteness: a
Cholesky factorisation up to ``n = 3000``, 30 Lanczos steps above). A
:class:`kperc.ValidatedGram` is checked once, when it is built, and then accepted by
every call without checks. This suite measures, at ``n = 2000`` and ``4000``, the
validation of a plain matrix, the one-off construction of a ``ValidatedGram``, one SNKP
call on the plain matrix and one call of each algorithm on the ``ValidatedGram`` (calls
with ``max_iter=1``), in seconds and in units of one product ``G @ v``. The target is a
fixed cost of at most :data:`TARGET_PRODUCTS` products per call.

A call with ``max_iter=1`` also runs its one iteration (about one product for SNKP and
ISNKPVN, a column for NKP and NVN) and assembles its result, so the measured call is an
upper bound on the fixed cost. The calls on a ``ValidatedGram`` are measured for each of
SNKP, NKP, NVN and ISNKPVN, interleaved with a timing of ten products
(:func:`benchmarks._timing.interleaved_times`, the calling thread's CPU clock), and each
call is divided by the product timed in the same repeat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._config import BenchConfig
from benchmarks._timing import _cpu, interleaved_times, summarize, time_matvec
from benchmarks.targets import target
from kperc import ValidatedGram, gram_matrix, isnkpvn, nkp, nvn, snkp
from kperc._validation import check_gram
from kperc.datasets import planted

#: The target: fixed cost of one call, in products ``G @ v``.
TARGET_PRODUCTS = 20.0
#: Products timed together, next to each call, as the unit of its cost.
PRODUCTS_PER_TIMING = 10
#: The algorithms whose call on a ValidatedGram is measured (the issue's four).
ALGORITHMS: dict[str, Callable[..., Any]] = {
    "snkp": snkp,
    "nkp": nkp,
    "nvn": nvn,
    "isnkpvn": isnkpvn,
}


def _median_cpu(fn: Callable[[], Any], repeats: int) -> dict[str, Any]:
    times = []
    for _ in range(repeats):
        t0 = _cpu()
        fn()
        times.append(_cpu() - t0)
    return summarize(times)


def suite_fixedcost(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Fixed cost of one call on a plain matrix and on a :class:`kperc.ValidatedGram`."""
    sizes = (300, 600) if cfg.quick else (2000, 4000)
    repeats = max(1, min(cfg.repeats, 3))
    rows = []
    for n in sizes:
        X, y = planted(n, 20, rho=0.05, seed=cfg.seed)
        G = gram_matrix(X, y, "rbf", gamma=0.05)
        prod = time_matvec(G, repeats=cfg.repeats)
        validate = _median_cpu(lambda G=G: check_gram(G), repeats)
        build = _median_cpu(lambda G=G: ValidatedGram(G), repeats)
        VG = ValidatedGram(G)
        # one SNKP call with one iteration: its fixed cost plus about 2 products
        plain_call = _median_cpu(lambda G=G: snkp(G, max_iter=1), repeats)
        calls: dict[str, Callable[[], Any]] = {
            a: (lambda f=f, VG=VG: f(VG, max_iter=1)) for a, f in ALGORITHMS.items()
        }
        v = np.random.default_rng(1).random(n)
        calls["product"] = lambda G=G, v=v: [G @ v for _ in range(PRODUCTS_PER_TIMING)]
        times = interleaved_times(calls, max(cfg.repeats, 7), clock=_cpu)
        # each repeat's call against the products timed next to it (a busy phase of a
        # shared machine slows both)
        unit = [t / PRODUCTS_PER_TIMING for t in times.pop("product")]
        vg = {a: summarize(ts) for a, ts in times.items()}
        vg_products = {
            a: summarize([t / u for t, u in zip(ts, unit, strict=True)]) for a, ts in times.items()
        }
        vg_call = vg["snkp"]
        worst = max(vg_products, key=lambda a: vg_products[a]["median"])
        row = {
            "n": n,
            "product_s": prod,
            "validate_plain_s": validate["median"],
            "validate_plain_products": validate["median"] / prod,
            "build_validated_s": build["median"],
            "build_validated_products": build["median"] / prod,
            "call_plain_s": plain_call["median"],
            "call_plain_products": plain_call["median"] / prod,
            "call_validated_s": vg_call["median"],
            "call_validated_products": vg_products["snkp"]["median"],
            "call_validated_by_algorithm": {
                a: {
                    "s": vg[a]["median"],
                    "products": vg_products[a]["median"],
                    "spread_products": vg_products[a],
                }
                for a in vg
            },
            "product_interleaved_s": float(np.median(unit)),
            "call_validated_worst": worst,
            "call_validated_worst_products": vg_products[worst]["median"],
            "target_products": TARGET_PRODUCTS,
            "met": bool(vg_products[worst]["median"] <= TARGET_PRODUCTS),
        }
        rows.append(row)
        log(
            f"fixedcost n={n:<5d} product {prod * 1e3:.3g} ms; plain call "
            f"{row['call_plain_products']:.0f} products ({plain_call['median']:.3g} s); "
            f"ValidatedGram built once in {row['build_validated_products']:.0f} products, "
            f"then a call costs {row['call_validated_products']:.1f} products (worst of "
            f"{', '.join(ALGORITHMS)}: {worst} {row['call_validated_worst_products']:.1f})"
        )
    return {"rows": rows, "target_products": TARGET_PRODUCTS}


def targets(result: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """One target per ``n``: the costliest call on a ``ValidatedGram`` against 20 products."""
    out: list[dict[str, Any]] = []
    for r in (result or {}).get("rows", []):
        v = r["call_validated_worst_products"]
        out.append(
            target(
                f"fixedcost-n{r['n']}",
                f"Fixed cost of one call on a kperc.ValidatedGram (products G @ v), "
                f"n = {r['n']}, worst of {', '.join(r['call_validated_by_algorithm'])}",
                v,
                r["target_products"],
                v <= r["target_products"],
                f"{r['call_validated_worst']}: {v:.3g} products per call with max_iter=1 "
                f"(one product {r['product_s'] * 1e3:.3g} ms); the ValidatedGram was built "
                f"once in {r['build_validated_products']:.3g} products; on a plain matrix "
                f"the same SNKP call costs {r['call_plain_products']:.3g} products, "
                f"{r['validate_plain_products']:.3g} of them the validation",
            )
        )
    return out


def summary(result: dict[str, Any]) -> list[str]:
    """Lines of the text summary: the fixed cost of one call, plain and validated."""
    rows = (result or {}).get("rows", [])
    if not rows:
        return []
    lines = [
        "",
        "Fixed cost of one call (products G @ v): plain G | ValidatedGram built once | "
        "call on it (worst algorithm)",
    ]
    for r in rows:
        lines.append(
            f"  n={r['n']:<6d} {r['call_plain_products']:8.1f} | "
            f"{r['build_validated_products']:8.1f} | "
            f"{r['call_validated_worst_products']:6.2f} ({r['call_validated_worst']})"
        )
    return lines


if __name__ == "__main__":  # pragma: no cover - a manual run of this suite alone
    from benchmarks._config import default_config

    np.set_printoptions(precision=3)
    print(suite_fixedcost(default_config(suites=("fixedcost",))))

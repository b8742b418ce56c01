"""Shared configuration and problem builders for the kperc test suite.

Hypothesis profiles
-------------------
``kperc`` (the default) is deterministic (``derandomize=True``) with a modest number of
examples, so that the whole kperc suite runs in a few minutes on 2 cores. ``thorough``
draws many more (random) examples; select it with ``HYPOTHESIS_PROFILE=thorough``.

Problem builders
----------------
The helpers below build seeded problems whose margin is known exactly (planted linear
data), or computed by :func:`kperc.margin` (kernel problems), or controlled
(inseparable data with a negative margin). Each returns a :class:`kperc.datasets.Dataset`,
the one type of a problem: its margin is ``info["rho"]``, its kernel ``kernel`` and
``kernel_params``, and ``gram()`` gives its Gram matrix. Test modules import them with
``from conftest import ...``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import kperc
from kperc import datasets as data
from kperc.datasets import Dataset

settings.register_profile(
    "kperc",
    derandomize=True,
    max_examples=25,
    deadline=None,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
settings.register_profile(
    "thorough",
    max_examples=200,
    deadline=None,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "kperc"))

#: Seeds drawn by hypothesis (each seed is one reproducible random problem).
seeds = st.integers(min_value=0, max_value=2**31 - 1)

#: The ledger's registry, where the ledger ids are defined (the keys of ``REGISTRY``):
#: read here as text, not imported, because the library's tests also run outside the
#: checkout without the book's tools (``make wheel``), where it is absent.
REGISTRY_FILE = Path(__file__).resolve().parents[1] / "book-tools/kperc_book/ledger/registry.py"


def ledger_ids(path: Path = REGISTRY_FILE) -> frozenset[str] | None:
    """The keys of the ``REGISTRY`` dict literal in ``path`` (None if there is no such file).

    tests/book/test_ledger.py checks that they are the keys of the imported registry.
    """
    import ast

    if not path.is_file():
        return None
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        named = any(isinstance(t, ast.Name) and t.id == "REGISTRY" for t in targets)
        value = getattr(node, "value", None)
        if named and isinstance(value, ast.Dict):
            return frozenset(str(k.value) for k in value.keys if isinstance(k, ast.Constant))
    raise RuntimeError(f"{path} defines no REGISTRY dict literal")  # pragma: no cover


#: The ledger ids (None outside the checkout, where a marker is checked only for its form).
LEDGER_IDS = ledger_ids()


def _algorithms() -> dict[str, object]:
    """kperc's algorithms: its public functions whose result is a :class:`kperc.KpercResult`."""
    import inspect
    import typing

    return {
        name: obj
        for name in kperc.__all__
        if inspect.isfunction(obj := getattr(kperc, name))
        and typing.get_type_hints(obj).get("return") is kperc.KpercResult
    }


def _first_parameter(func) -> str:
    import inspect

    return next(iter(inspect.signature(func).parameters))


#: Every algorithm of kperc, by name, derived from kperc itself (a new public function that
#: returns a KpercResult joins it): tests/lib/test_algorithm_lists.py checks that each
#: test module's table of algorithms covers these, so none is left out silently.
ALGORITHMS = tuple(_algorithms())
#: Those that run on a normalised signed Gram matrix (first parameter ``G``): NKP, SNKP, ...
GRAM_ALGORITHMS = tuple(n for n, f in _algorithms().items() if _first_parameter(f) == "G")
#: Those that run on the data ``X, y`` (the Perceptron, Winnow, ...).
DATA_ALGORITHMS = tuple(n for n in ALGORITHMS if n not in GRAM_ALGORITHMS)
#: The generators of :mod:`kperc.datasets` (its dataset families), derived from it.
DATASET_FAMILIES = tuple(n for n in data.__all__ if n != "Dataset")


#: Library tests that take more than about 5 s on a busy 2-core machine, as (file, test
#: function) pairs: marked ``slow`` here, in one list, rather than in each file. ``make
#: check`` and the floor check (``make minversions``) leave them out; ``make test`` runs them
#: (``make unit`` and ``make wheel``). tests/book/test_pipeline_wheelcheck.py checks that
#: every entry names a test of tests/lib/.
SLOW_TESTS = frozenset(
    {
        ("test_sweeps.py", "test_sweep_on_local_processes_equals_serial"),
        ("test_sweeps.py", "test_points_run_on_one_blas_thread_whatever_the_caller_has"),
        ("test_dist_to_witness.py", "test_agrees_with_reference_on_inseparable_data"),
        ("test_dist_to_witness.py", "test_thin_witness_sets_against_closed_form_and_reference"),
        ("test_kernel_columns.py", "test_smoothed_algorithms_accept_the_operator"),
        ("test_perceptrons.py", "test_no_overflow_or_nan_on_duplicate_opposite_points"),
        ("test_margins.py", "test_theorem3_inradius"),
        ("test_hostile_exits.py", "test_linear_separators_are_certified"),
        ("test_kernels.py", "test_dense_and_operator_give_identical_runs"),
    }
)


@pytest.hookimpl(tryfirst=True)  # before -m "not slow" deselects
def pytest_collection_modifyitems(config, items):
    """Mark :data:`SLOW_TESTS` slow; refuse ledger ids outside :data:`LEDGER_IDS` (typos
    would hide a result; outside the checkout tests/book/test_ledger.py has checked them)."""
    for item in items:
        name = getattr(item, "originalname", None) or item.name.split("[")[0]
        if (item.path.name, name) in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
        for mark in item.iter_markers("ledger"):
            known = LEDGER_IDS is None or (mark.args and mark.args[0] in LEDGER_IDS)
            if len(mark.args) != 1 or not isinstance(mark.args[0], str) or not known:
                raise pytest.UsageError(f"{item.nodeid}: unknown ledger id {mark.args!r}")


def planted_problem(
    seed: int,
    *,
    n: int | None = None,
    d: int | None = None,
    rho: float | None = None,
    norm_range=(1.0, 1.0),
) -> Dataset:
    """Linear separable data with an exactly planted normalised margin (``info["rho"]``)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 40)) if n is None else n
    d = int(rng.integers(2, 6)) if d is None else d
    rho = float(np.exp(rng.uniform(np.log(0.05), np.log(0.6)))) if rho is None else rho
    return data.planted(n, d, rho, near=float(rng.uniform(0, 1)), norm_range=norm_range, seed=seed)


def kernel_problem(
    seed: int, kernel: str | None = None, *, n: int | None = None, min_rho: float = 0.03
) -> Dataset:
    """A separable kernel (rbf or poly) problem; ``info["rho"]`` from :func:`kperc.margin`.

    Points are uniform in the square ``[-1, 1]^2``; labels come from a circle (which a
    degree-2 polynomial kernel separates) with a gap around it. The seed is shifted
    until the margin is at least ``min_rho`` so that NKP's ``1/rho^2`` stays cheap.
    """
    rng = np.random.default_rng(seed)
    kernel = ("rbf", "poly")[int(rng.integers(2))] if kernel is None else kernel
    n = int(rng.integers(5, 30)) if n is None else n
    for _ in range(50):
        X = rng.uniform(-1.0, 1.0, (4 * n, 2))
        r2 = np.sum(X**2, axis=1)
        keep = np.abs(r2 - 0.5) > 0.15
        X = X[keep][:n]
        if X.shape[0] < n:
            continue
        y = np.where(np.sum(X**2, axis=1) < 0.5, 1.0, -1.0)
        if kernel == "rbf":
            params = {"gamma": float(rng.uniform(0.5, 5.0))}
        else:
            params = {"degree": 2, "gamma": 1.0, "coef0": float(rng.uniform(0.2, 1.0))}
        G = kperc.gram_matrix(X, y, kernel, **params)
        rho = kperc.margin(G)
        if rho >= min_rho:
            return Dataset(X, y, {"rho": rho}, kernel, params)
    raise RuntimeError("no kernel problem with a large enough margin")  # pragma: no cover


def infeasible_problem(
    seed: int, *, n: int | None = None, d: int | None = None, rho: float | None = None
) -> Dataset:
    """Inseparable linear data with a negative span-restricted margin (``info["rho"]``).

    With few points in 3-D the generator's random points sometimes fail to surround the
    origin (2 seeds in 3000); it refuses them, and the generator's seed is shifted.
    """
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 4)) if d is None else d
    rho = -float(rng.uniform(0.05, 0.6)) if rho is None else rho
    if n is None:
        n = int(rng.integers(d + 6, 30)) if d > 2 else 30
    for shift in range(20):
        try:
            return data.infeasible(n, d, rho, seed=seed + shift)
        except ValueError as exc:
            if "did not surround the origin" not in str(exc):
                raise
    raise RuntimeError("no inseparable problem for these parameters")  # pragma: no cover


def any_problem(seed: int) -> Dataset:
    """A planted linear, a kernel, or an inseparable problem, chosen by the seed."""
    which = seed % 3
    if which == 0:
        return planted_problem(seed)
    if which == 1:
        return kernel_problem(seed)
    return infeasible_problem(seed)


def random_simplex(rng: np.random.Generator, n: int, sparse: bool = False) -> np.ndarray:
    """A random point of the simplex (optionally with some zero entries)."""
    p = rng.exponential(size=n)
    if sparse:
        p[rng.random(n) < 0.5] = 0.0
        if p.sum() == 0:
            p[int(rng.integers(n))] = 1.0
    return p / p.sum()


def g_norm(G: np.ndarray, v: np.ndarray) -> float:
    """``||v||_G`` straight from the definition (clamped at 0)."""
    return float(np.sqrt(max(float(v @ G @ v), 0.0)))


def duplicate_opposite(seed: int, n: int = 6, d: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Random points where point 0 is repeated with the opposite label (W is nonempty)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    X = np.vstack([X, X[:1]])
    y = np.concatenate([y, -y[:1]])
    return X, y


# The micro-benchmarks' package bench/ lives at the checkout's root, which `python -m pytest`
# puts on sys.path and plain `pytest` does not (tests/bench/ imports it). No conftest.py of
# its own in tests/bench/: test modules import this one as `conftest`, and a second file of
# that name shadows it on some worker of `pytest -n 2`. Appended, so that an installed kperc
# still comes first; outside the checkout (the wheel check's copy of tests/lib) there is no
# bench/ and nothing is added.
_ROOT = Path(__file__).resolve().parents[1]
if (_ROOT / "bench" / "run.py").is_file() and str(_ROOT) not in sys.path:
    sys.path.append(str(_ROOT))

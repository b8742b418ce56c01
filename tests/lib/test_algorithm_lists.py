"""Each list of kperc's algorithms and dataset families is kept once, derived from kperc
itself (``ALGORITHMS``, ``GRAM_ALGORITHMS``, ``DATA_ALGORITHMS`` and ``DATASET_FAMILIES``
of tests/conftest.py). The test modules' own tables, which say how to call each
algorithm, must cover those lists: an algorithm or a family added to kperc and left out
of one of them fails here instead of going untested silently."""

from __future__ import annotations

import importlib

import pytest
from conftest import (
    ALGORITHMS,
    DATA_ALGORITHMS,
    DATASET_FAMILIES,
    GRAM_ALGORITHMS,
    _algorithms,
    _first_parameter,
)

import kperc
from kperc.datasets import Dataset

#: (test module, its table of calls, the derived list the table must cover).
TABLES = [
    ("test_validation", "GRAM_FUNCS", GRAM_ALGORITHMS),
    ("test_validation", "DATA_FUNCS", DATA_ALGORITHMS),
    ("test_hostile_inputs", "GRAM_FUNCS", GRAM_ALGORITHMS),
    ("test_hostile_inputs", "DATA_FUNCS", DATA_ALGORITHMS),
    ("test_predict", "ALGORITHMS", GRAM_ALGORITHMS),
    ("test_speed_validated_gram", "ALGORITHMS", GRAM_ALGORITHMS),
    ("test_callbacks", "ALGORITHMS", ALGORITHMS),
    ("test_edges_inputs", "ALGOS", GRAM_ALGORITHMS),
]


@pytest.mark.parametrize(
    ("module", "table", "derived"), TABLES, ids=[f"{m}.{t}" for m, t, _ in TABLES]
)
def test_each_table_of_calls_covers_every_algorithm(module, table, derived):
    calls = getattr(importlib.import_module(module), table)
    missing = sorted(set(derived) - set(calls))
    assert not missing, f"{module}.{table} does not call {missing}"


def test_the_algorithms_are_derived_from_kperc(monkeypatch):
    """Nine algorithms today, split by what they run on; a new public function that
    returns a KpercResult joins the list without any test module naming it."""
    assert len(ALGORITHMS) == len(set(ALGORITHMS)) == 9
    assert set(GRAM_ALGORITHMS) | set(DATA_ALGORITHMS) == set(ALGORITHMS)
    assert {"nkp", "snkp", "isnkpvn"} <= set(GRAM_ALGORITHMS)
    assert {"perceptron", "winnow"} <= set(DATA_ALGORITHMS)

    def newcomer(G, *, max_iter: int = 1) -> kperc.KpercResult:  # pragma: no cover
        raise NotImplementedError

    monkeypatch.setattr(kperc, "newcomer", newcomer, raising=False)
    monkeypatch.setattr(kperc, "__all__", [*kperc.__all__, "newcomer"])
    assert "newcomer" in _algorithms() and _first_parameter(newcomer) == "G"


#: A small call of each generator of kperc.datasets (its dataset families).
SMALL_CALLS = {
    "planted": {"n": 12, "d": 3, "rho": 0.2},
    "planted_rbf": {"n": 20, "d": 2, "rho": 0.05},
    "two_rays": {"r": 4.0, "n_per_ray": 3},
    "crowded": {"n": 12, "rho": 0.1},
    "infeasible": {"n": 12, "d": 2, "rho": -0.3},
    "circles": {"n": 20},
    "moons": {"n": 20},
    "xor": {"n": 20},
    "breast_cancer": {},
    "digits": {"pair": (3, 8)},
}


def test_every_dataset_family_gives_a_dataset():
    assert sorted(SMALL_CALLS) == sorted(DATASET_FAMILIES)
    for name, kwargs in SMALL_CALLS.items():
        ds = getattr(kperc.datasets, name)(**kwargs)
        assert isinstance(ds, Dataset) and ds.X.shape[0] == len(ds.y) > 0, name

"""``kperc.datasets.Dataset``: the one type of a problem, and its kernel."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import infeasible_problem, kernel_problem, planted_problem

import kperc
from kperc.datasets import Dataset, circles, planted, planted_rbf


def test_positional_construction_and_unpacking_still_work():
    X, y = np.eye(3), np.array([1.0, -1.0, 1.0])
    ds = Dataset(X, y, {"rho": 0.5})
    A, b = ds
    assert A is X and b is y and ds.info == {"rho": 0.5}
    assert ds.kernel == "linear" and ds.kernel_params == {}


def test_every_dataset_has_its_own_kernel_parameters():
    a, b = Dataset(np.eye(2), np.ones(2)), Dataset(np.eye(2), np.ones(2))
    a.kernel_params["gamma"] = 1.0
    assert b.kernel_params == {}  # no shared mutable default


@pytest.mark.parametrize(
    "ds",
    [
        planted(12, 3, 0.2, seed=1),
        circles(10, seed=0),
        Dataset(
            np.arange(8.0).reshape(4, 2) + 1,
            np.array([1.0, -1, 1, -1]),
            {},
            "poly",
            {"degree": 2, "gamma": 1.0, "coef0": 0.5},
        ),
    ],
)
def test_gram_is_the_gram_matrix_of_its_kernel(ds):
    want = kperc.gram_matrix(ds.X, ds.y, ds.kernel, **ds.kernel_params)
    np.testing.assert_array_equal(ds.gram(), want)


def test_planted_rbf_states_the_kernel_of_its_margin():
    ds = planted_rbf(40, 2, rho=0.05, gamma=3.0, seed=0)
    assert ds.kernel == "rbf" and ds.kernel_params == {"gamma": 3.0}
    G = ds.gram()
    np.testing.assert_array_equal(G, kperc.gram_matrix(ds.X, ds.y, "rbf", gamma=3.0))
    assert kperc.margin(G) >= ds.info["rho"]  # the planted gap bounds the kernel margin
    # the linear Gram matrix of the same points is another problem
    assert not np.array_equal(G, kperc.gram_matrix(ds.X, ds.y))


def test_gram_is_not_cached_across_changes_of_the_data():
    ds = planted(10, 3, 0.2, seed=0)
    before = ds.gram()
    ds.X = ds.X[::-1].copy()
    np.testing.assert_array_equal(ds.gram(), kperc.gram_matrix(ds.X, ds.y))
    assert not np.array_equal(ds.gram(), before)


def test_bad_kernel_parameters_are_named_by_gram():
    ds = Dataset(np.eye(2), np.array([1.0, -1.0]), {}, "rbf", {"gamma": -1.0})
    with pytest.raises(ValueError, match="gamma"):
        ds.gram()


@pytest.mark.parametrize("build", [planted_problem, kernel_problem, infeasible_problem])
def test_the_test_builders_return_datasets_with_their_margin(build):
    ds = build(3)
    assert isinstance(ds, Dataset)
    assert kperc.margin(ds.gram()) == pytest.approx(ds.info["rho"], abs=1e-9)

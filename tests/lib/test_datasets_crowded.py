"""kperc.datasets.crowded: exact margin, unit norms, determinism, refused parameters."""

import numpy as np
import pytest

import kperc
from kperc.datasets import crowded


@pytest.mark.parametrize(("n", "rho"), [(3, 0.3), (40, 0.05), (500, 0.01)])
def test_crowded_margin_is_exact(n, rho):
    ds = crowded(n, rho, seed=2)
    assert ds.X.shape == (n, 5)
    np.testing.assert_allclose(np.linalg.norm(ds.X, axis=1), 1.0, rtol=1e-14)
    np.testing.assert_array_equal(ds.y[:2], [1.0, -1.0])
    assert ds.info["rho"] == rho
    assert kperc.data_margin(ds.X, ds.y) == pytest.approx(rho, rel=1e-9)


def test_crowded_is_seeded_and_depends_on_the_seed():
    a, b, c = crowded(50, 0.1, seed=3), crowded(50, 0.1, seed=3), crowded(50, 0.1, seed=4)
    np.testing.assert_array_equal(a.X, b.X)
    assert not np.array_equal(a.X, c.X)


def test_crowded_in_random_order_costs_the_perceptron_many_updates():
    # stored order: the two support points first, and NKP's first-index rule finds them
    ds = crowded(400, 0.02, seed=0)
    G = kperc.gram_operator(ds.X, ds.y)
    assert kperc.nkp(G).nit == 2
    perm = np.random.default_rng(1).permutation(400)
    res = kperc.normalized_perceptron(ds.X[perm], ds.y[perm])
    assert res.outcome == "separator" and res.nit > 100


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n": 2, "rho": 0.1}, "n"),
        ({"n": 10, "rho": 0.0}, "rho"),
        ({"n": 10, "rho": 1.0}, "rho"),
        ({"n": 10, "rho": float("nan")}, "rho"),
        ({"n": 10, "rho": 0.1, "d": 2}, "d"),
        ({"n": 10, "rho": 0.1, "jitter": -1.0}, "jitter"),
        ({"n": 10, "rho": 0.1, "width": 0.0}, "width"),
        ({"n": 10, "rho": 0.1, "seed": -1}, "seed"),
    ],
)
def test_crowded_refuses_bad_parameters_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        crowded(**kwargs)

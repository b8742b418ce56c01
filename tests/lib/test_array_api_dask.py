"""The row-block product on a Dask cluster takes the single-process run's decisions."""

import pytest

import kperc
from kperc.datasets import circles, planted_rbf

distributed = pytest.importorskip("distributed")
from kperc._dask import DaskKernelGramOperator  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.mark.parametrize(
    "data", [planted_rbf(300, 2, rho=0.05, seed=5), circles(200, seed=6)], ids=["rbf", "circles"]
)
@pytest.mark.parametrize("name", ["snkp", "nvn", "snkpvn"])
def test_dask_product_same_decisions(client, data, name):
    X, y = data
    algorithm = getattr(kperc, name)
    ref = algorithm(kperc.kernel_gram_operator(X, y, gamma=2.0, block_size=64))
    G = DaskKernelGramOperator(X, y, "rbf", {"gamma": 2.0}, block_size=64, client=client)
    assert len(G._parts) == 2 and all(a % 64 == 0 for a, _ in G._parts)
    res = algorithm(G)
    assert (res.nit, res.outcome) == (ref.nit, ref.outcome)

import numpy as np
from benchopt import BaseDataset

from kperc.datasets import crowded


class Dataset(BaseDataset):
    """:func:`kperc.datasets.crowded`: normalised margin exactly ``rho``, the points crowded
    next to one support point, in a random order (no help from the generator's order)."""

    name = "crowded"
    requirements = []
    parameters = {
        "n": [1_000, 10_000],
        "d": [5, 20],
        "rho": [1e-2, 1e-3],
        "seed": [0, 1, 2],
    }
    test_parameters = {"n": [40], "d": [3], "rho": [0.1], "seed": [0]}

    def get_data(self):
        ds = crowded(self.n, self.rho, d=self.d, seed=self.seed)
        perm = np.random.default_rng([9, self.seed, self.n]).permutation(self.n)
        return dict(X=ds.X[perm], y=ds.y[perm], kernel="linear", kernel_params={})

from benchopt import BaseDataset

from kperc.datasets import planted_rbf


class Dataset(BaseDataset):
    """:func:`kperc.datasets.planted_rbf`: points separated in the RBF kernel's feature
    space by a known function with normalised margin at least ``rho`` (half of them in the
    band ``rho <= |g| <= 2 rho``), in ``d = 2`` and in higher dimension."""

    name = "planted_rbf"
    requirements = []
    parameters = {
        "n": [1_000, 3_000],
        "d": [2, 8],
        "rho": [1e-2, 1e-3],
        "gamma": [2.0],
        "seed": [0, 1, 2],
    }
    test_parameters = {"n": [40], "d": [2], "rho": [0.05], "gamma": [2.0], "seed": [0]}

    def get_data(self):
        ds = planted_rbf(self.n, self.d, self.rho, gamma=self.gamma, seed=self.seed)
        return dict(X=ds.X, y=ds.y, kernel="rbf", kernel_params={"gamma": self.gamma})

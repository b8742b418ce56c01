from benchopt import BaseDataset

from kperc.datasets import planted

#: The norms ||x_i|| (log-uniform in the range): "unit", or "spread" over four decades.
NORMS = {"unit": (1.0, 1.0), "spread": (0.01, 100.0)}


class Dataset(BaseDataset):
    """:func:`kperc.datasets.planted`: linearly separable points with normalised margin
    exactly ``rho``, half of them in a band just above it, with unit or spread norms."""

    name = "planted"
    requirements = []
    parameters = {
        "norms": ["unit", "spread"],
        "n": [1_000, 10_000],
        "d": [20, 50],
        "rho": [1e-2, 1e-3],
        "seed": [0, 1, 2],
    }
    test_parameters = {"norms": ["unit"], "n": [40], "d": [3], "rho": [0.1], "seed": [0]}

    def get_data(self):
        ds = planted(self.n, self.d, self.rho, norm_range=NORMS[self.norms], seed=self.seed)
        return dict(X=ds.X, y=ds.y, kernel="linear", kernel_params={})

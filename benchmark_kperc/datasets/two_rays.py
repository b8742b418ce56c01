import math

from benchopt import BaseDataset

from kperc.datasets import two_rays

#: rho_2 of the two rays (their normalised margin), whatever their spread r.
RHO2 = math.sqrt(2.0) / 10.0


class Dataset(BaseDataset):
    """:func:`kperc.datasets.two_rays` (Section 2.2 of the paper), in 2-D: ``n / 2`` points
    on each ray, spread ``r = rho_2 / rho``, so ``rho`` is the unnormalised margin
    ``rho_2 / r`` (the normalised margin is ``rho_2 = sqrt(2) / 10`` at every ``r``).
    Deterministic: there is no seed."""

    name = "two_rays"
    requirements = []
    parameters = {"n": [1_000, 10_000], "rho": [1e-2, 1e-3]}
    test_parameters = {"n": [20], "rho": [0.05]}

    def get_data(self):
        ds = two_rays(RHO2 / self.rho, max(2, self.n // 2))
        return dict(X=ds.X, y=ds.y, kernel="linear", kernel_params={})

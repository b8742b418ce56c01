import math

import numpy as np
from benchopt import BaseDataset

from kperc.datasets import two_rays

#: rho_2 of the two rays (their normalised margin), whatever their spread r.
RHO2 = math.sqrt(2.0) / 10.0


class Dataset(BaseDataset):
    """:func:`kperc.datasets.two_rays` (Section 2.2 of the paper): ``n / 2`` points on each
    ray, spread ``r = rho_2 / rho``, so ``rho`` is the unnormalised margin ``rho_2 / r``
    (the normalised margin is ``rho_2 = sqrt(2) / 10`` at every ``r``).

    The 2-D rays are placed in ``d`` dimensions by a random map with orthonormal columns
    (``x -> Q x``, ``Q^T Q = I``) and their points shuffled, both drawn from ``seed``. The
    map keeps every inner product, so every norm and margin of the paper's example (the
    best ``w`` lies in the plane of the rays); ``seed`` changes only the orientation and
    the order in which the points come.
    """

    name = "two_rays"
    requirements = []
    parameters = {
        "n": [1_000, 10_000],
        "d": [2, 20],
        "rho": [1e-2, 1e-3],
        "seed": [0, 1, 2],
    }
    test_parameters = {"n": [20], "d": [3], "rho": [0.05], "seed": [0]}

    def get_data(self):
        if self.d < 2:
            raise ValueError(f"two_rays needs d >= 2 (the rays span a plane); got d={self.d}.")
        ds = two_rays(RHO2 / self.rho, max(2, self.n // 2))
        rng = np.random.default_rng([7, self.seed, self.d])
        Q, _ = np.linalg.qr(rng.standard_normal((self.d, 2)))  # d x 2, orthonormal columns
        perm = rng.permutation(len(ds.y))
        return dict(X=ds.X[perm] @ Q.T, y=ds.y[perm], kernel="linear", kernel_params={})

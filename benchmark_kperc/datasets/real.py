"""The book's real problems, built by kperc's own generators.

This file imports kperc only, not the book's tools (``kperc_book``): it runs wherever
kperc is installed, with or without the checkout and its ``data/`` folder. The generators
and parameters are those of the stored datasets (``data/manifest.json``) and the kernels
those of ``kperc_book.data.PROBLEMS``; ``tests/book/test_benchopt.py`` checks that the
data equal the stored ones within the tolerance of ``python -m kperc_book.data --check``
and that the kernels agree.
"""

from benchopt import BaseDataset

from kperc import datasets

#: problem -> (generator, its keyword arguments, kernel, kernel parameters); gamma "scale"
#: is 1 / (n_features * X.var()), as in sklearn.svm.SVC.
PROBLEMS = {
    "breast_cancer-rbf": ("breast_cancer", {}, "rbf", {"gamma": "scale"}),
    "digits_3_vs_8-rbf": ("digits", {"pair": (3, 8)}, "rbf", {"gamma": "scale"}),
    "circles-rbf": (
        "circles",
        {"n": 200, "noise": 0.05, "factor": 0.5, "seed": 0},
        "rbf",
        {"gamma": 2.0},
    ),
    "moons-rbf": ("moons", {"n": 200, "noise": 0.1, "seed": 0}, "rbf", {"gamma": 2.0}),
    "xor-poly": (
        "xor",
        {"n": 200, "gap": 0.1, "seed": 0},
        "poly",
        {"degree": 2, "gamma": 1.0, "coef0": 1.0},
    ),
}


class Dataset(BaseDataset):
    """The book's real problems (sizes fixed by the data: no n, d, rho or seed)."""

    name = "real"
    requirements = []
    parameters = {"problem": list(PROBLEMS)}
    test_parameters = {"problem": ["circles-rbf"]}

    def get_data(self):
        generator, kwargs, kernel, params = PROBLEMS[self.problem]
        ds = getattr(datasets, generator)(**kwargs)
        params = dict(params)
        if params.get("gamma") == "scale":
            params["gamma"] = float(1.0 / (ds.X.shape[1] * ds.X.var()))
        return dict(X=ds.X, y=ds.y, kernel=kernel, kernel_params=params)

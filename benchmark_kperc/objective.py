"""kperc's benchmark: how fast does each solver reach a separator certified beyond rounding?

The interface, for anyone's dataset file (``benchopt run <folder> -d their_file.py``):
a ``Dataset.get_data()`` returns ``dict(X=..., y=..., kernel=..., kernel_params=...)``:

* ``X``: array of shape (n, d), finite;
* ``y``: labels in {-1, +1}, one per row of ``X``;
* ``kernel``: a kernel name that :func:`kperc.gram_matrix` accepts ("linear", "poly",
  "rbf");
* ``kernel_params``: a dict of its parameters (``gamma``, ``degree``, ``coef0``), for
  example ``{"gamma": 2.0}``.

(``kernel`` and ``kernel_params`` may be left out: the linear kernel.)

The problem is the paper's (Ramdas & Pena, ICML 2014): find ``f`` in the kernel's feature
space with ``y_i f(x_i) > 0`` for every point. A solver's answer (``Solver.get_result``)
is one of

* ``alpha``: non-negative dual weights in kperc's form, ``f = sum_j alpha_j y_j phi(x_j) /
  ||phi(x_j)||``, so that ``y_i f(x_i) / ||phi(x_i)|| = (G alpha)_i`` for the normalised
  signed Gram matrix ``G`` (``result.alpha`` of every kperc algorithm);
* ``w``: for the linear kernel, a weight vector, ``f(x) = <w, x>``;

with an optional ``intercept`` ``b`` added to ``f`` (``SVC`` fits one).

``evaluate_result`` reports

* ``separated``: 1 when ``y_i f(x_i) > 0`` holds for every point beyond rounding, computed
  with the exact kernel (never an approximation of it), else 0;
* ``min_margin``: the normalised margin of the answer, ``min_i y_i f(x_i) / (||w||
  ||phi(x_i)||)`` with ``w`` the linear part of ``f`` (the margin of the paper for a
  homogeneous answer; 0 for ``w = 0``, where every curve of an iterative method starts);
* ``fraction_separated``: the fraction of points with ``y_i f(x_i) > 0`` beyond rounding.

"Beyond rounding": for ``alpha`` without intercept, :func:`kperc.exact_margin_check` (its
``certified``: the bound ``n u ||alpha||_1`` on the error of ``(G alpha)_i``, ``u =
2^-53``); with an intercept its share ``y_i b / ||phi(x_i)||`` is added and the bound
widened to ``(n + 2) u (||alpha||_1 + |b| / ||phi(x_i)||)``. For ``w``, ``y_i (<w, x_i> +
b)`` must exceed ``(d + 2) u (|x_i| . |w| + |b|)``, the error bound of a sum of ``d + 1``
products; under the linear kernel an ``alpha`` is checked that way too, as the ``w = sum_j
alpha_j y_j x_j / ||x_j||`` it stands for (O(n d) work instead of O(n^2 d)). A value
within rounding of 0 proves nothing.
"""

import numpy as np
from benchmark_utils.kernels import kernel_diagonal
from benchopt import BaseObjective

import kperc

#: Unit round-off of float64.
U = float(np.finfo(np.float64).eps) / 2


class Objective(BaseObjective):
    name = "kperc: separate the data"
    min_benchopt_version = "1.10"
    # kperc comes from the checkout (the README's install line), not from a package index
    requirements = []
    # `benchopt test`: every solver runs on the linear kernel, so the tiny planted problem
    test_dataset_name = "planted"

    def set_data(self, X, y, kernel="linear", kernel_params=None):
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must be a non-empty 2-D array (n, d); got shape {X.shape}.")
        if not np.all(np.isfinite(X)):
            raise ValueError("X must be finite (no NaN or inf).")
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must have shape ({X.shape[0]},), one label per row of X.")
        if not np.all((y == 1) | (y == -1)):
            raise ValueError("y must hold labels in {-1, +1}.")
        kernel_params = dict(kernel_params or {})
        if not isinstance(kernel, str):
            raise ValueError(
                f"kernel must be a name that kperc.gram_matrix accepts; got {kernel!r}"
            )
        kperc.kernel_matrix(X[:1], kernel=kernel, **kernel_params)  # refuses a bad kernel/param
        diag = kernel_diagonal(X, kernel, kernel_params)
        if not np.all(np.isfinite(diag) & (diag > 0)):
            raise ValueError(
                "X has a point with K(x, x) = 0 (or not finite): phi(x) has no direction."
            )
        self.X, self.y, self.kernel, self.kernel_params = X, y, kernel, kernel_params
        self.root_diag = np.sqrt(diag)

    def get_objective(self):
        return dict(X=self.X, y=self.y, kernel=self.kernel, kernel_params=self.kernel_params)

    def evaluate_result(self, alpha=None, w=None, intercept=0.0):
        if (alpha is None) == (w is None):
            raise ValueError("a solver's answer is either alpha or w (exactly one of them).")
        b = float(intercept)
        answer = np.asarray(w if alpha is None else alpha, dtype=np.float64)
        if not (np.all(np.isfinite(answer)) and np.isfinite(b)):  # a diverged solver
            return dict(separated=0, min_margin=float("nan"), fraction_separated=0.0)
        if w is not None:
            yf, err, norm = self._primal(answer, b)
        else:
            yf, err, norm = self._dual(answer, b)
        ok = yf > err
        return dict(
            separated=int(np.all(ok)),
            min_margin=float(np.min(yf) / norm) if norm > 0 else 0.0,
            fraction_separated=float(np.mean(ok)),
        )

    def _primal(self, w, b):
        """``y_i f(x_i) / ||x_i||``, its rounding bound, and ``||w||``."""
        if self.kernel != "linear":
            raise ValueError("an answer w needs the linear kernel; give alpha for a kernel.")
        if w.shape != (self.X.shape[1],):
            raise ValueError(f"w must have shape ({self.X.shape[1]},); got {w.shape}.")
        yf = self.y * (self.X @ w + b)
        err = (self.X.shape[1] + 2) * U * (np.abs(self.X) @ np.abs(w) + abs(b))
        return yf / self.root_diag, err / self.root_diag, float(np.linalg.norm(w))

    def _dual(self, alpha, b):
        """``(G alpha)_i`` plus the intercept's share, its rounding bound, ``||alpha||_G``."""
        n = len(self.y)
        if alpha.shape != (n,):
            raise ValueError(f"alpha must have shape ({n},), one weight per point.")
        if np.any(alpha < 0):
            raise ValueError("alpha must be non-negative (kperc's form; see the module docstring).")
        if self.kernel == "linear":  # w = sum_j alpha_j y_j x_j / ||x_j||: O(n d), not O(n^2 d)
            Z = self.X * (self.y / self.root_diag)[:, None]
            return self._primal(Z.T @ alpha, b)
        chk = kperc.exact_margin_check(self.X, self.y, alpha, self.kernel, **self.kernel_params)
        norm = float(np.sqrt(max(float(alpha @ chk.Galpha), 0.0)))
        l1 = float(np.sum(alpha))
        if b == 0.0:
            # kperc's own bound: all(Galpha > err) is exactly chk.certified
            return chk.Galpha, np.full(n, n * U * l1), norm
        share = self.y * b / self.root_diag
        err = (n + 2) * U * (l1 + abs(b) / self.root_diag)
        return chk.Galpha + share, err, norm

    def get_one_result(self):
        return dict(alpha=np.full(len(self.y), 1.0 / len(self.y)))

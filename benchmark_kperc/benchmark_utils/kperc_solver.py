"""The base of the ``kperc-*`` solvers: one call to a kperc algorithm with a growing
iteration cap (benchopt's "iteration" sampling strategy).

``run(n_iter)`` is the timed part, end to end, exactly what a user's call costs: it builds
the Gram matrix (the factored operator :func:`kperc.gram_operator` for the linear kernel,
the dense :func:`kperc.gram_matrix` otherwise) and runs the algorithm with
``max_iter=n_iter``; the answer is its last iterate, a certified separator when it halted
by itself. ``n_iter = 0`` gives the first iterate (its callback stops it there). Once the
algorithm halts before the cap, a larger cap returns the same answer and the curve ends
(:class:`benchmark_utils.stopping.AnswerStable`).

``device`` (a parameter, default ``"cpu"``): ``"cpu"`` runs on numpy arrays, the path the
book's grid measures (its solver names are unchanged); any other value is a torch device
(``"cuda"``, ``"cuda:1"``, or ``"torch-cpu"`` for torch on the CPU) on which the data, the
Gram matrix (or the factor of the linear kernel) and the products live in float32, the
exits certified in float64 (kperc._device): ``-s "kperc-snkp[device=cuda]"``.

(benchopt's "callback" strategy would follow one run iterate by iterate, but kperc's
callback hands over a fresh copy of ``alpha`` at every iteration: an O(n) cost inside the
timed part that doubles the time of an O(n) NKP iteration on a dense ``G``.)
"""

import numpy as np
from benchopt import BaseSolver

import kperc
from benchmark_utils.stopping import AnswerStable


def _first_iterate(intermediate):
    raise StopIteration


class KpercSolver(BaseSolver):
    """Subclasses set ``name``, ``linear_only`` and :meth:`algorithm`."""

    # kperc comes from the checkout (the README's install line), not from a package index
    requirements = []
    sampling_strategy = "iteration"
    stopping_criterion = AnswerStable(strategy="iteration")
    #: Whether the algorithm takes the data themselves (the perceptrons), not a Gram matrix.
    linear_only = False
    parameters = {"device": ["cpu"]}

    def __repr__(self):
        # the default device keeps the names of the book's results ("kperc-snkp")
        params = {k: v for k, v in self._parameters.items()}
        if params.get("device", "cpu") == "cpu":
            params.pop("device", None)
        body = ",".join(f"{k}={params[k]}" for k in sorted(params))
        return f"{self.name}[{body}]" if body else self.name

    def skip(self, X, y, kernel, kernel_params):
        if self.linear_only and kernel != "linear":
            return True, f"{self.name} runs on the data themselves (linear kernel only)"
        if self.device != "cpu":
            if self.linear_only:
                return True, f"{self.name} runs on numpy only (device={self.device!r})"
            if kernel not in ("linear", "rbf"):
                return True, f"kernel={kernel!r} runs on numpy only (device={self.device!r})"
            try:
                import torch
            except ImportError:
                return True, f"device={self.device!r} needs torch"
            if self.device.startswith("cuda") and not torch.cuda.is_available():
                return True, f"device={self.device!r}: no CUDA GPU on this machine"
        return False, None

    def set_objective(self, X, y, kernel, kernel_params):
        self.X, self.y, self.kernel, self.kernel_params = X, y, kernel, kernel_params
        self.alpha = np.zeros(len(y))

    def gram(self):
        """The normalised signed Gram matrix the algorithm runs on (timed)."""
        if self.device != "cpu":  # torch tensors on the device, float32
            import torch

            dev = "cpu" if self.device == "torch-cpu" else self.device
            X = torch.asarray(self.X, dtype=torch.float32, device=dev)
            y = torch.asarray(self.y, dtype=torch.float32, device=dev)
            if self.kernel == "linear":  # the factor Z (Z^T v), never n x n
                return kperc.kernel_gram_operator(X, y, "linear")
            return kperc.gram_matrix(X, y, self.kernel, **self.kernel_params)
        if self.kernel == "linear":
            return kperc.gram_operator(self.X, self.y)
        return kperc.gram_matrix(self.X, self.y, self.kernel, **self.kernel_params)

    def algorithm(self, max_iter, callback):
        """Run the algorithm and return its :class:`kperc.KpercResult`."""
        raise NotImplementedError

    def run(self, n_iter):
        if n_iter == 0:
            alpha = self.algorithm(1, _first_iterate).alpha
        else:
            alpha = self.algorithm(n_iter, None).alpha
        # a device's result back to numpy for the objective (a no-op on numpy)
        self.alpha = alpha if isinstance(alpha, np.ndarray) else alpha.cpu().numpy()

    def get_result(self):
        return dict(alpha=self.alpha)

"""Problems and solver runners of :mod:`benchmarks.peers` (time to a separator).

Every runner takes a problem (a :class:`kperc.datasets.Dataset`: points, labels, kernel
and kernel parameters) and a :class:`benchmarks.peers.PeersConfig` and
returns a :class:`Fit`: the wall time of the fit, end to end (building ``G``, the
operator or the features included), and what the harness needs to check the result the
same way for every solver: ``y_i f(x_i)`` on every training point, ``||w||`` of the
decision function's linear part, and the radius ``max_i ||phi(x_i)||`` of the data in the
space where ``f`` is linear. :func:`evaluate` turns these into ``separated`` and the
normalised margin (defined in :mod:`benchmarks.peers`).

The runners run inside the worker process of :mod:`benchmarks.peers`, which enforces the
time cap by ending the worker.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchmarks._problems import planted_problem
from benchmarks._runners import run_sklearn_perceptron
from kperc.datasets import Dataset, planted_rbf

__all__ = [
    "Fit",
    "linear_problem",
    "rbf_problem",
    "make_problem",
    "evaluate",
    "SOLVERS",
    "LINEAR_SOLVERS",
    "RBF_SOLVERS",
]

#: Iteration cap passed to kperc's algorithms: high enough that only the time cap stops them.
KPERC_MAX_ITER = 10**9


@dataclass
class Fit:
    """What a runner returns (see the module docstring)."""

    time_s: float
    yf: np.ndarray | None
    w_norm: float | None
    radius: float
    space: str
    nit: int | None = None
    certified: bool | None = None
    capped: bool = False
    separated: bool | None = None
    margin: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------- problems


def linear_problem(n: int, d: int, rho: float, seed: int = 0) -> Dataset:
    """Planted linear problem (:func:`benchmarks._problems.planted_problem`): unit-norm
    points, normalised margin exactly ``rho``, half the points in a band just above it.

    ``info`` has ``planted_margin`` and ``kernel_margin`` (both the exact margin).
    """
    ds = planted_problem(n, d, rho, seed)
    margin = float(ds.info["rho"])
    return Dataset(ds.X, ds.y, {"planted_margin": margin, "kernel_margin": margin})


def _rbf(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    from sklearn.metrics.pairwise import rbf_kernel

    return rbf_kernel(A, B, gamma=gamma)


def rbf_problem(
    n: int,
    d: int,
    rho: float,
    seed: int = 0,
    *,
    gamma: float = 2.0,
    n_centers: int = 12,
    near: float = 0.5,
) -> Dataset:
    """An RBF problem whose margin in the kernel's feature space is planted:
    :func:`kperc.datasets.planted_rbf` (its docstring says how).

    The problem's own kernel margin ``rho_K`` is at least the planted one; the harness
    measures it exactly where ``n`` allows (:func:`kperc.margin`). ``info`` has
    ``planted_margin`` (a lower bound on ``rho_K``), ``kernel_margin`` (``None`` until
    measured) and ``n_centers``.
    """
    ds = planted_rbf(n, d, rho, gamma=gamma, n_centers=n_centers, near=near, seed=seed)
    info = {
        "planted_margin": ds.info["planted_margin"],
        "kernel_margin": None,
        "n_centers": n_centers,
    }
    return Dataset(ds.X, ds.y, info, "rbf", {"gamma": gamma})


def make_problem(spec: dict[str, Any]) -> Dataset:
    """Build the problem that ``spec`` describes (family, n, d, rho, seed, ...).

    ``info`` (what the record keeps of the problem) also has ``generate_s`` and, for an
    RBF problem with ``n <= spec["margin_max_n"]``, the exact ``kernel_margin`` and
    ``kernel_margin_s``.
    """
    t0 = time.perf_counter()
    if spec["family"] == "linear":
        ds = linear_problem(spec["n"], spec["d"], spec["rho"], spec["seed"])
    elif spec["family"] == "rbf":
        ds = rbf_problem(spec["n"], spec["d"], spec["rho"], spec["seed"], gamma=spec["gamma"])
    else:
        raise ValueError(f"unknown family {spec['family']!r}; choose 'linear' or 'rbf'")
    ds.info["generate_s"] = time.perf_counter() - t0
    if spec["family"] == "rbf" and spec["n"] <= spec.get("margin_max_n", 0):
        import kperc

        t0 = time.perf_counter()
        G = ds.gram()
        ds.info["kernel_margin"] = float(kperc.margin(G))
        ds.info["kernel_margin_s"] = time.perf_counter() - t0
        del G
    return ds


# --------------------------------------------------------------------------- evaluation


def evaluate(fit: Fit) -> Fit:
    """Decide ``separated`` and the normalised margin from ``fit.yf`` (the one check).

    ``separated``: ``y_i f(x_i) > 0`` for every training point. Normalised margin:
    ``min_i y_i f(x_i) / (||w|| max_i ||phi(x_i)||)``.
    """
    if fit.yf is None:
        return fit
    yf = np.asarray(fit.yf, dtype=np.float64)
    fit.separated = bool(yf.size > 0 and np.all(yf > 0))
    den = (fit.w_norm or 0.0) * fit.radius
    fit.margin = float(yf.min() / den) if den > 0 and np.isfinite(den) else None
    return fit


def _now() -> float:
    return time.perf_counter()


def _kperc_fit(t0: float, res, Galpha: np.ndarray, norm: float, space: str) -> Fit:
    dt = _now() - t0
    return Fit(
        dt,
        Galpha,
        norm,
        1.0,
        space,
        nit=int(res.nit),
        certified=res.outcome == "separator",
        extra={"outcome": res.outcome},
    )


# In the kperc runners f(x) = sum_j alpha_j y_j phi(x_j) / ||phi(x_j)||, so that
# y_i f(x_i) / ||phi(x_i)|| = (G alpha)_i and ||w|| = ||alpha||_G = sqrt(alpha^T G alpha); the
# points phi(x_i) / ||phi(x_i)|| have unit norm (radius 1). Evaluations after the timed part.


def _exact_check(ds: Dataset, alpha: np.ndarray) -> tuple[np.ndarray, float]:
    import kperc

    chk = kperc.exact_margin_check(ds.X, ds.y, alpha, ds.kernel, **ds.kernel_params)
    Ga = chk.Galpha
    return Ga, math.sqrt(max(float(alpha @ Ga), 0.0))


def run_snkp_dense(ds: Dataset, cfg) -> Fit:
    """SNKP on the dense ``G`` of :func:`kperc.gram_matrix`."""
    import kperc

    t0 = _now()
    G = kperc.gram_matrix(ds.X, ds.y, ds.kernel, **ds.kernel_params)
    res = kperc.snkp(G, max_iter=KPERC_MAX_ITER, check_input=False)
    dt = _now() - t0
    Ga = G @ res.alpha
    fit = _kperc_fit(t0, res, Ga, math.sqrt(max(float(res.alpha @ Ga), 0.0)), "exact kernel")
    fit.time_s = dt
    return fit


def run_snkp_factored(ds: Dataset, cfg) -> Fit:
    """SNKP on the factored linear operator of :func:`kperc.gram_operator`."""
    import kperc

    t0 = _now()
    op = kperc.gram_operator(ds.X, ds.y)
    res = kperc.snkp(op, max_iter=KPERC_MAX_ITER, check_input=False)
    dt = _now() - t0
    v = op.Z.T @ res.alpha
    fit = _kperc_fit(t0, res, op.Z @ v, float(np.linalg.norm(v)), "exact kernel")
    fit.time_s = dt
    return fit


def run_snkp_nystroem(ds: Dataset, cfg) -> Fit:
    """SNKP on the Nystroem operator of :func:`kperc.approx_gram_operator` (features included).

    ``separated`` and the margin are those of the model that SNKP trained, which is linear
    in the normalised Nystroem features. The same ``alpha`` is checked under the exact
    kernel too (``exact_*`` fields): on every point where ``n <= cfg.exact_max_n``, on a
    random subsample of ``cfg.exact_rows`` points otherwise.
    """
    import kperc

    m = int(cfg.nystroem_components)
    t0 = _now()
    op = kperc.approx_gram_operator(
        ds.X,
        ds.y,
        "rbf",
        gamma=ds.kernel_params["gamma"],
        n_components=m,
        random_state=cfg.seed,
    )
    res = kperc.snkp(op, max_iter=KPERC_MAX_ITER, check_input=False)
    dt = _now() - t0
    v = op.Z.T @ res.alpha
    fit = _kperc_fit(t0, res, op.Z @ v, float(np.linalg.norm(v)), f"Nystroem kernel (m = {m})")
    fit.time_s = dt
    fit.extra["n_components"] = m
    if len(ds.y) <= cfg.exact_max_n:
        Ga, na = _exact_check(ds, res.alpha)
        fit.extra.update(
            exact_rows="all",
            exact_separated=bool(np.all(Ga > 0)),
            exact_fraction=float(np.mean(Ga > 0)),
            exact_margin=float(Ga.min() / na) if na > 0 else None,
        )
    else:
        rows = np.random.default_rng(cfg.seed).choice(len(ds.y), cfg.exact_rows, replace=False)
        chk = kperc.exact_margin_check(
            ds.X, ds.y, res.alpha, "rbf", rows=rows, gamma=ds.kernel_params["gamma"]
        )
        fit.extra.update(
            exact_rows=int(cfg.exact_rows),
            exact_separated=bool(np.all(chk.Galpha > 0)),
            exact_fraction=float(chk.fraction_separated),
            exact_margin=None,
        )
    return fit


def run_nkp(ds: Dataset, cfg) -> Fit:
    """NKP: dense ``G`` up to ``cfg.nkp_dense_max_n``; above, the factored operator (linear)
    or the on-demand kernel operator :func:`kperc.kernel_gram_operator` (RBF)."""
    import kperc

    t0 = _now()
    if len(ds.y) <= cfg.nkp_dense_max_n:
        G = kperc.gram_matrix(ds.X, ds.y, ds.kernel, **ds.kernel_params)
        how = "dense"
    elif ds.kernel == "linear":
        G = kperc.gram_operator(ds.X, ds.y)
        how = "factored"
    else:
        G = kperc.kernel_gram_operator(ds.X, ds.y, ds.kernel, **ds.kernel_params)
        how = "columns on demand"
    res = kperc.nkp(G, max_iter=KPERC_MAX_ITER, check_input=False)
    dt = _now() - t0
    if how == "dense":
        Ga = G @ res.alpha
        na = math.sqrt(max(float(res.alpha @ Ga), 0.0))
    elif how == "factored":
        v = G.Z.T @ res.alpha
        Ga, na = G.Z @ v, float(np.linalg.norm(v))
    else:  # alpha is sparse (at most nit + 1 points): the blocked exact check is cheap
        Ga, na = _exact_check(ds, res.alpha)
    fit = _kperc_fit(t0, res, Ga, na, "exact kernel")
    fit.time_s = dt
    fit.extra["operator"] = how
    return fit


def _unit_rows(X: np.ndarray) -> np.ndarray:
    return X / np.linalg.norm(X, axis=1)[:, None]


def run_sklearn_perceptron_peer(ds: Dataset, cfg) -> Fit:
    """scikit-learn's ``Perceptron`` (:func:`benchmarks._runners.run_sklearn_perceptron`).

    It checks after every chunk of epochs whether ``w`` separates (the same check as
    :func:`evaluate`, on the unit-norm points), so it reports ``separated`` and the margin
    itself; it stops by itself at the cap.
    """
    out = run_sklearn_perceptron(ds.X, ds.y, cfg.cap_s, seed=cfg.seed)
    return Fit(
        out["time_s"],
        None,
        None,
        1.0,
        "input space",
        nit=int(out["nit"]),
        capped=bool(out["capped"]),
        separated=bool(out["separated"]),
        margin=out["margin"],
        extra={"epochs": int(out["nit"])},
    )


def run_linearsvc(ds: Dataset, cfg) -> Fit:
    """``LinearSVC`` with the hinge loss and a large ``C`` (liblinear's dual solver: the
    hinge loss has no primal solver there), no intercept, on the unit-norm points."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    Xn = _unit_rows(ds.X)
    clf = LinearSVC(
        loss="hinge",
        C=cfg.linearsvc_C,
        dual=True,
        fit_intercept=False,
        tol=1e-5,
        max_iter=10**8,
        random_state=cfg.seed,
    )
    t0 = _now()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(Xn, ds.y)
    dt = _now() - t0
    w = clf.coef_.ravel()
    return Fit(
        dt,
        ds.y * (Xn @ w),
        float(np.linalg.norm(w)),
        1.0,
        "input space",
        nit=int(np.max(clf.n_iter_)),
    )


def _svc(ds: Dataset, cfg, kernel: str) -> Fit:
    from sklearn.svm import SVC

    Xn = _unit_rows(ds.X) if kernel == "linear" else ds.X
    params = {"gamma": ds.kernel_params["gamma"]} if kernel == "rbf" else {}
    clf = SVC(kernel=kernel, C=cfg.svc_C, tol=1e-3, **params)
    t0 = _now()
    clf.fit(Xn, ds.y)
    dt = _now() - t0
    yf = ds.y * clf.decision_function(Xn)
    coef = clf.dual_coef_.ravel()
    if kernel == "linear":
        w_norm = float(np.linalg.norm(clf.coef_.ravel()))
    else:  # ||w||^2 = c^T K(SV, SV) c, by row blocks
        S = clf.support_vectors_
        sq = 0.0
        step = max(1, 2_000_000 // max(S.shape[0], 1))
        for i0 in range(0, S.shape[0], step):
            sq += float(
                coef[i0 : i0 + step]
                @ (_rbf(S[i0 : i0 + step], S, ds.kernel_params["gamma"]) @ coef)
            )
        w_norm = math.sqrt(max(sq, 0.0))
    bounded = int(np.sum(np.abs(coef) >= cfg.svc_C * (1 - 1e-9)))
    return Fit(
        dt,
        yf,
        w_norm,
        1.0,
        "input space" if kernel == "linear" else "exact kernel",
        nit=int(np.sum(clf.n_iter_)),
        extra={"n_support": int(clf.support_.size), "bounded_sv": bounded},
    )


def run_svc_linear(ds: Dataset, cfg) -> Fit:
    """``SVC(kernel="linear")`` (libsvm), hard margin through a large ``C``, unit-norm points."""
    return _svc(ds, cfg, "linear")


def run_svc_rbf(ds: Dataset, cfg) -> Fit:
    """``SVC(kernel="rbf")`` (libsvm) with the problem's ``gamma``, hard margin via large ``C``."""
    return _svc(ds, cfg, "rbf")


#: Runner of each solver name.
SOLVERS: dict[str, Callable[[Dataset, Any], Fit]] = {
    "snkp-dense": run_snkp_dense,
    "snkp-factored": run_snkp_factored,
    "snkp-nystroem": run_snkp_nystroem,
    "nkp": run_nkp,
    "sklearn-perceptron": run_sklearn_perceptron_peer,
    "linearsvc": run_linearsvc,
    "svc-linear": run_svc_linear,
    "svc-rbf": run_svc_rbf,
}
LINEAR_SOLVERS = (
    "snkp-dense",
    "snkp-factored",
    "nkp",
    "sklearn-perceptron",
    "linearsvc",
    "svc-linear",
)
RBF_SOLVERS = ("snkp-dense", "snkp-nystroem", "nkp", "svc-rbf")

"""Instances and solver runners of :mod:`benchmarks.peers` (time to a separator).

Every runner takes an :class:`Instance` and a :class:`benchmarks.peers.PeersConfig` and
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

from benchmarks._instances import planted_instance
from benchmarks._runners import run_sklearn_perceptron
from kperc.datasets import planted_rbf

__all__ = [
    "Instance",
    "Fit",
    "linear_instance",
    "rbf_instance",
    "make_instance",
    "evaluate",
    "SOLVERS",
    "LINEAR_SOLVERS",
    "RBF_SOLVERS",
]

#: Iteration cap passed to kperc's algorithms: high enough that only the time cap stops them.
KPERC_MAX_ITER = 10**9


@dataclass
class Instance:
    """One problem: data, labels, kernel and what is known of its margin.

    Attributes
    ----------
    family : {"linear", "rbf"}
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    rho : float
        The planted margin (the nominal parameter of the instance).
    kernel : {"linear", "rbf"}
    gamma : float or None
        RBF parameter (``K(x, x') = exp(-gamma ||x - x'||^2)``).
    info : dict
        ``planted_margin`` (normalised margin of the planted separator, a lower bound on
        the instance's margin; exact for linear instances), ``kernel_margin`` (the
        instance's exact normalised kernel margin, when measured) and timings.
    """

    family: str
    X: np.ndarray
    y: np.ndarray
    rho: float
    kernel: str
    gamma: float | None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def kernel_params(self) -> dict[str, float]:
        return {} if self.gamma is None else {"gamma": self.gamma}


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


# --------------------------------------------------------------------------- instances


def linear_instance(n: int, d: int, rho: float, seed: int = 0) -> Instance:
    """Planted linear instance (:func:`benchmarks._instances.planted_instance`): unit-norm points,
    normalised margin exactly ``rho``, half the points in a band just above it."""
    ds = planted_instance(n, d, rho, seed)
    return Instance(
        "linear",
        ds.X,
        ds.y,
        rho,
        "linear",
        None,
        {"planted_margin": float(ds.info["rho"]), "kernel_margin": float(ds.info["rho"])},
    )


def _rbf(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    from sklearn.metrics.pairwise import rbf_kernel

    return rbf_kernel(A, B, gamma=gamma)


def rbf_instance(
    n: int,
    d: int,
    rho: float,
    seed: int = 0,
    *,
    gamma: float = 2.0,
    n_centers: int = 12,
    near: float = 0.5,
) -> Instance:
    """An RBF problem whose margin in the kernel's feature space is planted:
    :func:`kperc.datasets.planted_rbf` (its docstring says how).

    The instance's own kernel margin ``rho_K`` is at least the planted one; the harness
    measures it exactly where ``n`` allows (:func:`kperc.margin`).
    """
    ds = planted_rbf(n, d, rho, gamma=gamma, n_centers=n_centers, near=near, seed=seed)
    return Instance(
        "rbf",
        ds.X,
        ds.y,
        rho,
        "rbf",
        gamma,
        {
            "planted_margin": ds.info["planted_margin"],
            "kernel_margin": None,
            "n_centers": n_centers,
        },
    )


def make_instance(spec: dict[str, Any]) -> Instance:
    """Build the instance that ``spec`` describes (family, n, d, rho, seed, ...)."""
    t0 = time.perf_counter()
    if spec["family"] == "linear":
        inst = linear_instance(spec["n"], spec["d"], spec["rho"], spec["seed"])
    elif spec["family"] == "rbf":
        inst = rbf_instance(spec["n"], spec["d"], spec["rho"], spec["seed"], gamma=spec["gamma"])
    else:
        raise ValueError(f"unknown family {spec['family']!r}; choose 'linear' or 'rbf'")
    inst.info["generate_s"] = time.perf_counter() - t0
    if inst.family == "rbf" and spec["n"] <= spec.get("margin_max_n", 0):
        import kperc

        t0 = time.perf_counter()
        G = kperc.gram_matrix(inst.X, inst.y, "rbf", gamma=inst.gamma)
        inst.info["kernel_margin"] = float(kperc.margin(G))
        inst.info["kernel_margin_s"] = time.perf_counter() - t0
        del G
    return inst


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


def _exact_check(inst: Instance, alpha: np.ndarray) -> tuple[np.ndarray, float]:
    import kperc

    chk = kperc.exact_margin_check(inst.X, inst.y, alpha, inst.kernel, **inst.kernel_params)
    Ga = chk.Galpha
    return Ga, math.sqrt(max(float(alpha @ Ga), 0.0))


def run_snkp_dense(inst: Instance, cfg) -> Fit:
    """SNKP on the dense ``G`` of :func:`kperc.gram_matrix`."""
    import kperc

    t0 = _now()
    G = kperc.gram_matrix(inst.X, inst.y, inst.kernel, **inst.kernel_params)
    res = kperc.snkp(G, max_iter=KPERC_MAX_ITER, check_input=False)
    dt = _now() - t0
    Ga = G @ res.alpha
    fit = _kperc_fit(t0, res, Ga, math.sqrt(max(float(res.alpha @ Ga), 0.0)), "exact kernel")
    fit.time_s = dt
    return fit


def run_snkp_factored(inst: Instance, cfg) -> Fit:
    """SNKP on the factored linear operator of :func:`kperc.gram_operator`."""
    import kperc

    t0 = _now()
    op = kperc.gram_operator(inst.X, inst.y)
    res = kperc.snkp(op, max_iter=KPERC_MAX_ITER, check_input=False)
    dt = _now() - t0
    v = op.Z.T @ res.alpha
    fit = _kperc_fit(t0, res, op.Z @ v, float(np.linalg.norm(v)), "exact kernel")
    fit.time_s = dt
    return fit


def run_snkp_nystroem(inst: Instance, cfg) -> Fit:
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
        inst.X,
        inst.y,
        "rbf",
        gamma=inst.gamma,
        n_components=m,
        random_state=cfg.seed,
    )
    res = kperc.snkp(op, max_iter=KPERC_MAX_ITER, check_input=False)
    dt = _now() - t0
    v = op.Z.T @ res.alpha
    fit = _kperc_fit(t0, res, op.Z @ v, float(np.linalg.norm(v)), f"Nystroem kernel (m = {m})")
    fit.time_s = dt
    fit.extra["n_components"] = m
    if inst.n <= cfg.exact_max_n:
        Ga, na = _exact_check(inst, res.alpha)
        fit.extra.update(
            exact_rows="all",
            exact_separated=bool(np.all(Ga > 0)),
            exact_fraction=float(np.mean(Ga > 0)),
            exact_margin=float(Ga.min() / na) if na > 0 else None,
        )
    else:
        rows = np.random.default_rng(cfg.seed).choice(inst.n, cfg.exact_rows, replace=False)
        chk = kperc.exact_margin_check(
            inst.X, inst.y, res.alpha, "rbf", rows=rows, gamma=inst.gamma
        )
        fit.extra.update(
            exact_rows=int(cfg.exact_rows),
            exact_separated=bool(np.all(chk.Galpha > 0)),
            exact_fraction=float(chk.fraction_separated),
            exact_margin=None,
        )
    return fit


def run_snkp_nystroem_grown(inst: Instance, cfg) -> Fit:
    """SNKP on Nystroem features whose rank grows until the exact kernel certifies
    (:func:`kperc.snkp_nystroem`: from ``cfg.nystroem_start`` landmarks, doubling up to
    ``cfg.nystroem_max``; float32 products, float64 certificate).

    The timed part includes every stage and the certification. The decision function is
    ``f(x) = sum_l beta_l K(x, z_l)`` over the landmarks, so ``y_i f(x_i)`` is taken from
    exact kernel values on every point, as for ``SVC``; ``||w||^2 = beta^T K(Z_L, Z_L) beta``
    and the radius is 1 (``K(x, x) = 1``). A run whose check did not pass counts as not
    separated, whatever the signs of the computed values.
    """
    import kperc

    t0 = _now()
    res = kperc.snkp_nystroem(
        inst.X,
        inst.y,
        gamma=inst.gamma,
        n_components=cfg.nystroem_start,
        max_components=cfg.nystroem_max,
        max_iter=KPERC_MAX_ITER,
        random_state=cfg.seed,
    )
    dt = _now() - t0
    m = int(res.n_components)
    L, beta = res.landmarks, res.landmark_coef
    w_norm = math.sqrt(max(float(beta @ (_rbf(L, L, inst.gamma) @ beta)), 0.0))
    fit = Fit(
        dt,
        res.yf,
        w_norm,
        1.0,
        f"exact kernel ({m} landmarks)",
        nit=int(res.nit),
        certified=bool(res.certified),
        extra={
            "outcome": res.outcome,
            "n_components": m,
            "stages": len(res.stages),
            "stop": res.stop,
            "exact_rows": "all",
            "exact_separated": bool(res.certified),
            "exact_fraction": None if res.yf is None else float(np.mean(res.yf > 0)),
        },
    )
    if not res.certified:  # evaluate() leaves a fit without yf alone
        fit.yf, fit.separated = None, False
    return fit


def run_nkp(inst: Instance, cfg) -> Fit:
    """NKP: dense ``G`` up to ``cfg.nkp_dense_max_n``; above, the factored operator (linear)
    or the on-demand kernel operator :func:`kperc.kernel_gram_operator` (RBF)."""
    import kperc

    t0 = _now()
    if inst.n <= cfg.nkp_dense_max_n:
        G = kperc.gram_matrix(inst.X, inst.y, inst.kernel, **inst.kernel_params)
        how = "dense"
    elif inst.kernel == "linear":
        G = kperc.gram_operator(inst.X, inst.y)
        how = "factored"
    else:
        G = kperc.kernel_gram_operator(inst.X, inst.y, inst.kernel, **inst.kernel_params)
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
        Ga, na = _exact_check(inst, res.alpha)
    fit = _kperc_fit(t0, res, Ga, na, "exact kernel")
    fit.time_s = dt
    fit.extra["operator"] = how
    return fit


def _unit_rows(X: np.ndarray) -> np.ndarray:
    return X / np.linalg.norm(X, axis=1)[:, None]


def run_sklearn_perceptron_peer(inst: Instance, cfg) -> Fit:
    """scikit-learn's ``Perceptron`` (:func:`benchmarks._runners.run_sklearn_perceptron`).

    It checks after every chunk of epochs whether ``w`` separates (the same check as
    :func:`evaluate`, on the unit-norm points), so it reports ``separated`` and the margin
    itself; it stops by itself at the cap.
    """
    out = run_sklearn_perceptron(inst.X, inst.y, cfg.cap_s, seed=cfg.seed)
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


def run_linearsvc(inst: Instance, cfg) -> Fit:
    """``LinearSVC`` with the hinge loss and a large ``C`` (liblinear's dual solver: the
    hinge loss has no primal solver there), no intercept, on the unit-norm points."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    Xn = _unit_rows(inst.X)
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
        clf.fit(Xn, inst.y)
    dt = _now() - t0
    w = clf.coef_.ravel()
    return Fit(
        dt,
        inst.y * (Xn @ w),
        float(np.linalg.norm(w)),
        1.0,
        "input space",
        nit=int(np.max(clf.n_iter_)),
    )


def _svc(inst: Instance, cfg, kernel: str) -> Fit:
    from sklearn.svm import SVC

    Xn = _unit_rows(inst.X) if kernel == "linear" else inst.X
    params = {"gamma": inst.gamma} if kernel == "rbf" else {}
    clf = SVC(kernel=kernel, C=cfg.svc_C, tol=1e-3, **params)
    t0 = _now()
    clf.fit(Xn, inst.y)
    dt = _now() - t0
    yf = inst.y * clf.decision_function(Xn)
    coef = clf.dual_coef_.ravel()
    if kernel == "linear":
        w_norm = float(np.linalg.norm(clf.coef_.ravel()))
    else:  # ||w||^2 = c^T K(SV, SV) c, by row blocks
        S = clf.support_vectors_
        sq = 0.0
        step = max(1, 2_000_000 // max(S.shape[0], 1))
        for i0 in range(0, S.shape[0], step):
            sq += float(coef[i0 : i0 + step] @ (_rbf(S[i0 : i0 + step], S, inst.gamma) @ coef))
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


def run_svc_linear(inst: Instance, cfg) -> Fit:
    """``SVC(kernel="linear")`` (libsvm), hard margin through a large ``C``, unit-norm points."""
    return _svc(inst, cfg, "linear")


def run_svc_rbf(inst: Instance, cfg) -> Fit:
    """``SVC(kernel="rbf")`` (libsvm) with the instance's ``gamma``, hard margin via large ``C``."""
    return _svc(inst, cfg, "rbf")


#: Runner of each solver name.
SOLVERS: dict[str, Callable[[Instance, Any], Fit]] = {
    "snkp-dense": run_snkp_dense,
    "snkp-factored": run_snkp_factored,
    "snkp-nystroem": run_snkp_nystroem,
    "snkp-nystroem-grown": run_snkp_nystroem_grown,
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
RBF_SOLVERS = ("snkp-dense", "snkp-nystroem", "snkp-nystroem-grown", "nkp", "svc-rbf")

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
from kperc.datasets import Dataset, planted_rbf

__all__ = [
    "Fit",
    "linear_problem",
    "rbf_problem",
    "make_problem",
    "family_problem",
    "FAMILY_BUILDERS",
    "check_model",
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
    model: dict[str, Any] | None = None


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

    ``info`` (what the record keeps of the problem) also has ``generate_s`` and, for a
    kernel problem with ``n <= spec["margin_max_n"]``, the exact ``kernel_margin`` and
    ``kernel_margin_s``.
    """
    t0 = time.perf_counter()
    if spec["family"] == "linear":
        ds = linear_problem(spec["n"], spec["d"], spec["rho"], spec["seed"])
    elif spec["family"] == "rbf":
        ds = rbf_problem(spec["n"], spec["d"], spec["rho"], spec["seed"], gamma=spec["gamma"])
    elif spec["family"] in FAMILY_BUILDERS:
        ds = family_problem(spec)
    else:
        known = ["linear", "rbf", *FAMILY_BUILDERS]
        raise ValueError(f"unknown family {spec['family']!r}; choose one of {known}")
    ds.info["generate_s"] = time.perf_counter() - t0
    if ds.kernel != "linear" and spec["n"] <= spec.get("margin_max_n", 0):
        import kperc

        t0 = time.perf_counter()
        G = ds.gram()
        ds.info["kernel_margin"] = float(kperc.margin(G))
        ds.info["kernel_margin_s"] = time.perf_counter() - t0
        del G
    return ds


# --------------------------------------------------------------------------- more families
# The by-family comparison (``python -m benchmarks.peers --families``). Its rho axis is the
# planted normalised margin, except for "two_rays" (the unnormalised margin rho_2 / r of
# Section 2.2 of the paper; the normalised margin is sqrt(2)/10 at every r) and the real
# problems (rho = 0 in the rows: nothing is planted, the exact margin is measured).

#: ``rho_2`` of :func:`kperc.datasets.two_rays`, whatever its spread ``r``.
TWO_RAYS_RHO2 = math.sqrt(2.0) / 10.0
#: The norms of the "spread" family: log-uniform in this range.
SPREAD_NORMS = (0.01, 100.0)


def _planted(spec: dict[str, Any], **kw: Any) -> Dataset:
    from kperc.datasets import planted

    ds = planted(spec["n"], spec["d"], spec["rho"], seed=spec["seed"], **kw)
    rho = float(ds.info["rho"])
    return Dataset(ds.X, ds.y, {"planted_margin": rho, "kernel_margin": rho})


def _crowded(spec: dict[str, Any]) -> Dataset:
    from kperc.datasets import crowded

    n, seed = spec["n"], spec["seed"]
    ds = crowded(n, spec["rho"], d=spec["d"], seed=seed)
    perm = np.random.default_rng([9, seed, n]).permutation(n)  # no help from the order
    rho = float(ds.info["rho"])
    return Dataset(ds.X[perm], ds.y[perm], {"planted_margin": rho, "kernel_margin": rho})


def _two_rays(spec: dict[str, Any]) -> Dataset:
    from kperc.datasets import two_rays

    r = TWO_RAYS_RHO2 / spec["rho"]
    ds = two_rays(r, max(2, spec["n"] // 2))
    rho2 = float(ds.info["rho2"])
    return Dataset(ds.X, ds.y, {"planted_margin": rho2, "kernel_margin": rho2, "r": r})


def _real(spec: dict[str, Any]) -> Dataset:
    from kperc_book import data as kdata

    dname, kernel, params = kdata.PROBLEMS[spec["family"]]
    ds = kdata.load(dname)
    params = dict(params)
    if params.get("gamma") == "scale":
        params["gamma"] = float(1.0 / (ds.X.shape[1] * ds.X.var()))
    return Dataset(ds.X, ds.y, {"planted_margin": None, "kernel_margin": None}, kernel, params)


def _real_builders() -> dict[str, Callable[[dict[str, Any]], Dataset]]:
    from kperc_book import data as kdata

    return {name: _real for name in kdata.PROBLEMS}


#: Builder of each family beyond "linear" and "rbf" (a spec: family, n, d, rho, seed).
FAMILY_BUILDERS: dict[str, Callable[[dict[str, Any]], Dataset]] = {
    "planted": _planted,
    "spread": lambda spec: _planted(spec, norm_range=SPREAD_NORMS),
    "crowded": _crowded,
    "two_rays": _two_rays,
    **_real_builders(),
}


def family_problem(spec: dict[str, Any]) -> Dataset:
    """The problem of a family of :data:`FAMILY_BUILDERS` that ``spec`` describes."""
    if spec["family"] not in FAMILY_BUILDERS:
        raise ValueError(
            f"unknown family {spec['family']!r}; choose one of {sorted(FAMILY_BUILDERS)}"
        )
    return FAMILY_BUILDERS[spec["family"]](spec)


def _kparams(ds: Dataset) -> dict[str, Any]:
    """The kernel parameters of ``ds`` (``degree`` and ``coef0`` too, for "poly")."""
    return dict(ds.kernel_params)


# --------------------------------------------------------------------------- evaluation


#: Unit round-off of float64.
_U = float(np.finfo(np.float64).eps) / 2


def _kernel_diag(ds: Dataset) -> np.ndarray:
    """``K(x_i, x_i)`` for every point."""
    sq = np.einsum("ij,ij->i", ds.X, ds.X)
    p = _kparams(ds)
    if ds.kernel == "rbf":
        return np.ones(len(ds.y))
    if ds.kernel == "poly":
        g = p.get("gamma") or 1.0 / ds.X.shape[1]
        return (g * sq + p.get("coef0", 1.0)) ** p.get("degree", 3)
    return sq


def check_model(ds: Dataset, model: dict[str, Any], block: int = 2_000) -> dict[str, Any]:
    """The one check of every solver's answer: ``y_i f(x_i) > 0`` beyond rounding.

    ``model`` is the decision function a solver trained, in one of three forms:

    * ``{"kind": "linear", "w", "b", "rows"}``: ``f(x) = <w, x> + b`` on the rows the
      solver saw, ``"unit"`` (``x_i / ||x_i||``) or ``"raw"`` (``x_i`` as given);
    * ``{"kind": "expansion", "centres", "coef", "b"}``: ``f(x) = sum_l coef_l K(x, c_l)
      + b`` over any centres (the landmarks of a Nystroem model), with the exact kernel;
    * ``{"kind": "kernel", "alpha", "b"}``: ``f = sum_j alpha_j y_j phi(x_j) / ||phi(x_j)||
      + b`` with ``alpha >= 0`` over the training points and the instance's exact kernel
      (kperc's ``alpha``; for ``SVC``, ``alpha_j = |dual_coef_j| sqrt(K(x_j, x_j))``).

    Each ``y_i f(x_i)`` (for a kernel model, divided by ``||phi(x_i)||``: the entries of
    ``G alpha``, plus the intercept's share) is a sum of ``k`` products; it counts as
    positive only when it exceeds ``(k + 2) u`` times the sum of the products' absolute
    values (``u = 2^-53``), the bound of floating-point summation. A value within rounding
    of 0 proves nothing, whoever computed it.

    Returns
    -------
    dict
        ``yf`` and ``err`` (arrays), ``separated`` (``yf > err`` everywhere), ``margin``
        (``min_i y_i f(x_i) / (||w|| ||x_i||)``: the normalised margin of a homogeneous
        model) and ``wrong`` (the number of points not separated beyond rounding).
    """
    y = ds.y
    b = float(model.get("b", 0.0))
    if model["kind"] == "linear":
        raw = model.get("rows", "unit") == "raw"
        Xs = ds.X if raw else _unit_rows(ds.X)
        w = np.asarray(model["w"], dtype=np.float64)
        yf = y * (Xs @ w + b)
        err = (Xs.shape[1] + 2) * _U * (np.abs(Xs) @ np.abs(w) + abs(b))
        scale = np.linalg.norm(Xs, axis=1) if raw else np.ones(len(ds.y))
        nw = float(np.linalg.norm(w))
    elif model["kind"] == "kernel":
        import kperc

        alpha = np.asarray(model["alpha"], dtype=np.float64)
        S = np.flatnonzero(alpha)
        aS = alpha[S]
        kd = np.sqrt(_kernel_diag(ds))
        p = _kparams(ds)
        yf = np.empty(len(ds.y))
        err = np.empty(len(ds.y))
        sS = y[S] / kd[S]
        GSa = np.zeros(S.size)
        for i0 in range(0, len(ds.y), block):
            rows = slice(i0, i0 + block)
            K = kperc.kernel_matrix(ds.X[rows], ds.X[S], ds.kernel, **p)
            Gb = K * (y[rows] / kd[rows])[:, None] * sS[None, :]
            yf[rows] = Gb @ aS + y[rows] * b / kd[rows]
            err[rows] = (S.size + 2) * _U * (np.abs(Gb) @ aS + abs(b) / kd[rows])
        for j0 in range(0, S.size, block):
            K = kperc.kernel_matrix(ds.X[S[j0 : j0 + block]], ds.X[S], ds.kernel, **p)
            GSa[j0 : j0 + block] = (K * sS[j0 : j0 + block, None] * sS[None, :]) @ aS
        nw = math.sqrt(max(float(aS @ GSa), 0.0))
        scale = np.ones(len(ds.y))
    elif model["kind"] == "expansion":
        import kperc

        L = np.asarray(model["centres"], dtype=np.float64)
        beta = np.asarray(model["coef"], dtype=np.float64)
        kd = np.sqrt(_kernel_diag(ds))
        p = _kparams(ds)
        yf = np.empty(len(ds.y))
        err = np.empty(len(ds.y))
        for i0 in range(0, len(ds.y), block):
            rows = slice(i0, i0 + block)
            Kb = kperc.kernel_matrix(ds.X[rows], L, ds.kernel, **p) * (y[rows] / kd[rows])[:, None]
            yf[rows] = Kb @ beta + y[rows] * b / kd[rows]
            err[rows] = (beta.size + 2) * _U * (np.abs(Kb) @ np.abs(beta) + abs(b) / kd[rows])
        KL = kperc.kernel_matrix(L, L, ds.kernel, **p)
        nw = math.sqrt(max(float(beta @ (KL @ beta)), 0.0))
        scale = np.ones(len(ds.y))
    else:
        raise ValueError(
            f"unknown model kind {model['kind']!r}; choose 'linear', 'kernel' or 'expansion'"
        )
    ok = yf > err
    return {
        "yf": yf,
        "err": err,
        "separated": bool(yf.size > 0 and np.all(ok)),
        "wrong": int(np.sum(~ok)),
        "margin": float(np.min(yf / scale) / nw) if nw > 0 else None,
    }


def evaluate(fit: Fit, ds: Dataset | None = None) -> Fit:
    """Decide ``separated`` and the normalised margin (the one check).

    With a ``fit.model`` and the instance: :func:`check_model` (separated beyond
    rounding; ``extra["check"] = "rounding"``, ``extra["wrong"]`` the points not
    separated). Otherwise from ``fit.yf``: ``separated`` is ``y_i f(x_i) > 0`` for
    every training point, and the normalised margin is
    ``min_i y_i f(x_i) / (||w|| max_i ||phi(x_i)||)``.
    """
    if fit.model is not None and ds is not None:
        chk = check_model(ds, fit.model)
        fit.separated, fit.margin = chk["separated"], chk["margin"]
        fit.extra.update(check="rounding", wrong=chk["wrong"])
        fit.yf = fit.model = None  # not sent back to the parent
        return fit
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

    chk = kperc.exact_margin_check(ds.X, ds.y, alpha, ds.kernel, **_kparams(ds))
    Ga = chk.Galpha
    return Ga, math.sqrt(max(float(alpha @ Ga), 0.0))


def run_snkp_dense(ds: Dataset, cfg) -> Fit:
    """SNKP on the dense ``G`` of :func:`kperc.gram_matrix`."""
    import kperc

    t0 = _now()
    G = kperc.gram_matrix(ds.X, ds.y, ds.kernel, **_kparams(ds))
    res = kperc.snkp(G, max_iter=KPERC_MAX_ITER, check_input=False)
    dt = _now() - t0
    Ga = G @ res.alpha
    fit = _kperc_fit(t0, res, Ga, math.sqrt(max(float(res.alpha @ Ga), 0.0)), "exact kernel")
    fit.time_s = dt
    fit.model = {"kind": "kernel", "alpha": res.alpha}
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
    fit.model = {"kind": "linear", "w": v, "rows": "unit"}  # v = Z^T alpha, Z = y_i x_i/||x_i||
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


def run_snkp_nystroem_grown(ds: Dataset, cfg) -> Fit:
    """SNKP on Nystroem features whose rank grows until the exact kernel certifies
    (:func:`kperc.snkp_nystroem`: from ``cfg.nystroem_start`` landmarks, doubling up to
    ``cfg.nystroem_max``; float32 products, float64 certificate).

    The timed part includes every stage and kperc's own certification. The decision
    function is ``f(x) = sum_l beta_l K(x, z_l)`` over the landmarks, and the one check of
    :func:`check_model` (form ``"expansion"``) decides from exact kernel values on every
    point, as for ``SVC``. A run whose own certificate did not pass counts as not
    separated, whatever the signs of its values.
    """
    import kperc

    gamma = ds.kernel_params["gamma"]
    t0 = _now()
    res = kperc.snkp_nystroem(
        ds.X,
        ds.y,
        gamma=gamma,
        n_components=cfg.nystroem_start,
        max_components=cfg.nystroem_max,
        max_iter=KPERC_MAX_ITER,
        random_state=cfg.seed,
    )
    dt = _now() - t0
    m = int(res.n_components)
    fit = Fit(
        dt,
        None,
        None,
        1.0,
        f"exact kernel ({m} landmarks)",
        nit=int(res.nit),
        certified=bool(res.certified),
        separated=False,
        extra={
            "outcome": res.outcome,
            "n_components": m,
            "stages": len(res.stages),
            "stop": res.stop,
            "exact_rows": "all",
            "exact_separated": bool(res.certified),
        },
    )
    if res.certified:
        fit.separated = None
        fit.model = {"kind": "expansion", "centres": res.landmarks, "coef": res.landmark_coef}
    return fit


def run_nkp(ds: Dataset, cfg) -> Fit:
    """NKP: dense ``G`` up to ``cfg.nkp_dense_max_n``; above, the factored operator (linear)
    or the on-demand kernel operator :func:`kperc.kernel_gram_operator` (RBF)."""
    import kperc

    t0 = _now()
    if len(ds.y) <= cfg.nkp_dense_max_n:
        G = kperc.gram_matrix(ds.X, ds.y, ds.kernel, **_kparams(ds))
        how = "dense"
    elif ds.kernel == "linear":
        G = kperc.gram_operator(ds.X, ds.y)
        how = "factored"
    else:
        G = kperc.kernel_gram_operator(ds.X, ds.y, ds.kernel, **_kparams(ds))
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
    fit.model = {"kind": "kernel", "alpha": res.alpha}
    return fit


def _unit_rows(X: np.ndarray) -> np.ndarray:
    return X / np.linalg.norm(X, axis=1)[:, None]


def _rows_kind(cfg) -> str:
    """ "raw" when ``cfg.raw_inputs`` (the data as given), else "unit" (unit-norm rows)."""
    return "raw" if getattr(cfg, "raw_inputs", False) else "unit"


def _seen_rows(ds: Dataset, cfg) -> np.ndarray:
    """The rows a linear scikit-learn solver is given (see :func:`_rows_kind`)."""
    return ds.X if _rows_kind(cfg) == "raw" else _unit_rows(ds.X)


def run_sklearn_perceptron_peer(ds: Dataset, cfg) -> Fit:
    """scikit-learn's ``Perceptron``, in chunks of epochs until its ``w`` separates.

    As :func:`benchmarks._runners.run_sklearn_perceptron` (no intercept, shuffled, constant
    step, no early stopping, chunks of at most a tenth of the epochs so far), on the rows
    of :func:`_seen_rows`, and after each chunk ``w`` is checked by :func:`check_model`
    (included in the time); it stops by itself at the cap.
    """
    from benchmarks._runners import sklearn_perceptron_chunks

    Xs = _seen_rows(ds, cfg)
    t0 = _now()
    epochs = 0
    for epochs_done, w in sklearn_perceptron_chunks(Xs, ds.y, cfg.seed):
        epochs = epochs_done
        model = {"kind": "linear", "w": w.copy(), "rows": _rows_kind(cfg)}
        separated = check_model(ds, model)["separated"]
        elapsed = _now() - t0
        if separated or elapsed >= cfg.cap_s:
            break
    return Fit(
        elapsed,
        None,
        None,
        1.0,
        "input space",
        nit=epochs,
        capped=not separated,
        extra={"epochs": epochs},
        model=model,
    )


def _kperc_model(ds: Dataset, res, G) -> dict[str, Any]:
    """The model of a kperc result: ``w = Z^T alpha`` for a factored operator, else alpha."""
    if hasattr(G, "Z"):
        return {"kind": "linear", "w": G.Z.T @ res.alpha, "rows": "unit"}
    return {"kind": "kernel", "alpha": res.alpha}


def _kperc_gram(ds: Dataset, cfg):
    """The factored operator for a linear instance, else the dense ``G`` (exact kernel)."""
    import kperc

    if ds.kernel == "linear":
        return kperc.gram_operator(ds.X, ds.y)
    return kperc.gram_matrix(ds.X, ds.y, ds.kernel, **_kparams(ds))


def _kperc_result_fit(t0: float, res, model: dict[str, Any], how: str) -> Fit:
    return Fit(
        _now() - t0,
        None,
        None,
        1.0,
        "exact kernel",
        nit=int(res.nit),
        certified=res.outcome == "separator",
        extra={"outcome": res.outcome, "operator": how},
        model=model,
    )


def run_perceptron(ds: Dataset, cfg) -> Fit:
    """kperc's Perceptron (Algorithm 1) on the data as given (linear instances only)."""
    import kperc

    if ds.kernel != "linear":
        raise ValueError("the perceptron runs on linear instances only (kernel='linear')")
    t0 = _now()
    res = kperc.perceptron(ds.X, ds.y, max_iter=KPERC_MAX_ITER)
    return _kperc_result_fit(t0, res, {"kind": "linear", "w": res.w, "rows": "raw"}, "data")


def run_normalized_perceptron(ds: Dataset, cfg) -> Fit:
    """kperc's Normalised Perceptron (Algorithm 2) on the unit-norm points (linear only)."""
    import kperc

    if ds.kernel != "linear":
        raise ValueError("the normalised perceptron runs on linear instances only")
    t0 = _now()
    res = kperc.normalized_perceptron(ds.X, ds.y, max_iter=KPERC_MAX_ITER)
    return _kperc_result_fit(t0, res, {"kind": "linear", "w": res.w, "rows": "unit"}, "data")


def run_snkp(ds: Dataset, cfg) -> Fit:
    """SNKP on the factored operator (linear instances) or the dense ``G`` (kernels)."""
    import kperc

    t0 = _now()
    G = _kperc_gram(ds, cfg)
    res = kperc.snkp(G, max_iter=KPERC_MAX_ITER, check_input=False)
    how = "factored" if hasattr(G, "Z") else "dense"
    return _kperc_result_fit(t0, res, _kperc_model(ds, res, G), how)


def run_isnkpvn(ds: Dataset, cfg) -> Fit:
    """ISNKPVN (Algorithm 7) with ``eps = cfg.isnkpvn_eps``, on the factored operator
    (linear instances) or the dense ``G`` (kernels). A certificate is not a separator."""
    import kperc

    t0 = _now()
    G = _kperc_gram(ds, cfg)
    res = kperc.isnkpvn(G, eps=cfg.isnkpvn_eps, max_iter=KPERC_MAX_ITER, check_input=False)
    how = "factored" if hasattr(G, "Z") else "dense"
    return _kperc_result_fit(t0, res, _kperc_model(ds, res, G), how)


def run_logreg(ds: Dataset, cfg) -> Fit:
    """``LogisticRegression`` (lbfgs) with a large ``C``, no intercept, on :func:`_seen_rows`."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    Xs = _seen_rows(ds, cfg)
    clf = LogisticRegression(C=cfg.logreg_C, fit_intercept=False, max_iter=10**5, tol=1e-8)
    t0 = _now()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(Xs, ds.y)
    dt = _now() - t0
    return Fit(
        dt,
        None,
        None,
        1.0,
        "input space",
        nit=int(np.max(clf.n_iter_)),
        model={"kind": "linear", "w": clf.coef_.ravel(), "rows": _rows_kind(cfg)},
    )


def run_linearsvc(ds: Dataset, cfg) -> Fit:
    """``LinearSVC`` with the hinge loss and a large ``C`` (liblinear's dual solver: the
    hinge loss has no primal solver there), no intercept, on the unit-norm points."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    Xn = _seen_rows(ds, cfg)
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
        model={"kind": "linear", "w": w, "rows": _rows_kind(cfg)},
    )


def _svc(ds: Dataset, cfg, kernel: str) -> Fit:
    from sklearn.svm import SVC

    Xn = _seen_rows(ds, cfg) if kernel == "linear" else ds.X
    params = _kparams(ds) if kernel != "linear" else {}
    clf = SVC(kernel=kernel, C=cfg.svc_C, tol=1e-3, **params)
    t0 = _now()
    clf.fit(Xn, ds.y)
    dt = _now() - t0
    yf = ds.y * clf.decision_function(Xn)
    coef = clf.dual_coef_.ravel()
    if kernel == "linear":
        w_norm = float(np.linalg.norm(clf.coef_.ravel()))
    elif kernel == "rbf":  # ||w||^2 = c^T K(SV, SV) c, by row blocks
        S = clf.support_vectors_
        sq = 0.0
        step = max(1, 2_000_000 // max(S.shape[0], 1))
        for i0 in range(0, S.shape[0], step):
            sq += float(
                coef[i0 : i0 + step]
                @ (_rbf(S[i0 : i0 + step], S, ds.kernel_params["gamma"]) @ coef)
            )
        w_norm = math.sqrt(max(sq, 0.0))
    else:  # measured by check_model
        w_norm = None
    bounded = int(np.sum(np.abs(coef) >= cfg.svc_C * (1 - 1e-9)))
    b = float(clf.intercept_[0])
    if kernel == "linear":
        model = {"kind": "linear", "w": clf.coef_.ravel(), "b": b, "rows": _rows_kind(cfg)}
    else:  # alpha_j = |c_j| sqrt(K(x_j, x_j)): f in the form of check_model
        alpha = np.zeros(len(ds.y))
        alpha[clf.support_] = np.abs(coef) * np.sqrt(_kernel_diag(ds)[clf.support_])
        model = {"kind": "kernel", "alpha": alpha, "b": b}
    return Fit(
        dt,
        yf,
        w_norm,
        1.0,
        "input space" if kernel == "linear" else "exact kernel",
        nit=int(np.sum(clf.n_iter_)),
        extra={"n_support": int(clf.support_.size), "bounded_sv": bounded},
        model=model,
    )


def run_svc_linear(ds: Dataset, cfg) -> Fit:
    """``SVC(kernel="linear")`` (libsvm), hard margin through a large ``C``, unit-norm points."""
    return _svc(ds, cfg, "linear")


def run_svc_rbf(ds: Dataset, cfg) -> Fit:
    """``SVC(kernel="rbf")`` (libsvm) with the instance's ``gamma``, hard margin via large ``C``."""
    return _svc(ds, cfg, "rbf")


def run_svc_kernel(ds: Dataset, cfg) -> Fit:
    """``SVC`` (libsvm) with the instance's own kernel and parameters, hard margin via large
    ``C`` (a linear instance gets the linear kernel on :func:`_seen_rows`)."""
    return _svc(ds, cfg, ds.kernel)


#: Runner of each solver name.
SOLVERS: dict[str, Callable[[Dataset, Any], Fit]] = {
    "snkp-dense": run_snkp_dense,
    "snkp-factored": run_snkp_factored,
    "snkp-nystroem": run_snkp_nystroem,
    "snkp-nystroem-grown": run_snkp_nystroem_grown,
    "nkp": run_nkp,
    "sklearn-perceptron": run_sklearn_perceptron_peer,
    "linearsvc": run_linearsvc,
    "svc-linear": run_svc_linear,
    "svc-rbf": run_svc_rbf,
    "perceptron": run_perceptron,
    "normalized-perceptron": run_normalized_perceptron,
    "snkp": run_snkp,
    "isnkpvn": run_isnkpvn,
    "logreg": run_logreg,
    "svc-kernel": run_svc_kernel,
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
#: Solvers of the by-family comparison: every kperc algorithm and the scikit-learn peers,
#: on linear instances and on kernel instances.
FAMILY_LINEAR_SOLVERS = (
    "perceptron",
    "normalized-perceptron",
    "nkp",
    "snkp",
    "isnkpvn",
    "sklearn-perceptron",
    "logreg",
    "linearsvc",
    "svc-linear",
)
FAMILY_KERNEL_SOLVERS = ("nkp", "snkp", "isnkpvn", "svc-kernel")

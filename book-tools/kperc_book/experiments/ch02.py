"""Experiments of Chapter 2 (paper Section 2): linear feasibility problems.

Everything the notebook ``book/ch02_linear_feasibility.ipynb`` computes lives here:

* :func:`planted_run` / :func:`planted_sweep`: halting indices of the Perceptron
  (Algorithm 1, raw data) and of the Normalised Perceptron (Algorithm 2) against the
  Block-Novikoff bound ``R^2 / rho^2`` and the normalised bound ``1 / rho_2^2``.
* :func:`two_rays_run` / :func:`two_rays_sweep`: the Section 2.2 example, where the
  ratio of the two bounds grows like ``r^4``.
* :func:`perceptron_rule`: Algorithm 1 with a chosen (allowed) rule for the violated
  point, to show how much the choice matters on raw data.
* :func:`margin_ratio_run` / :func:`margin_ratio_sweep`: ``(rho / max ||x_i||) / rho_2``
  on random instances ("normalising never hurts").
* :func:`sign_pattern_run`: the Normalised Perceptron and the most-violated-point
  Perceptron (on the normalised data) produce the same sign patterns at every step.
* :func:`sparse_target` / :func:`winnow_run`: Winnow's l_inf-normalised margin against
  ``rho_2`` on a sparse-target problem.

Around each sweep, the notebook calls a *verdict* (the keyword arguments of
:meth:`kperc_book.chapter.Chapter.check`: ``ch.check("np-bound", **np_bound_verdict(t))``),
a printed table or text and a list of glued values (``glue_all(ch, planted_glue(t))``);
these functions also verify what the prose takes for granted about the instances (every
run separated, the planted margin exact, ...) and raise :class:`ClaimError` otherwise.
The figures are drawn by :mod:`kperc_book.experiments.ch02_figures`.

Every function is seeded and deterministic; sweeps go through
:func:`kperc.sweeps.sweep` (joblib) and return :class:`pandas.DataFrame` objects in grid
order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

import kperc
from kperc.sweeps import grid, sweep
from kperc_book import data
from kperc_book.experiments._common import (
    ClaimError,
    GlueItems,
    Verdict,
    glue_all,
    loglog_slope,
    make_verdict,
    table_text,
)

__all__ = [
    "ClaimError",
    "GlueItems",
    "RHO2_TWO_RAYS",
    "Verdict",
    "all_margin_ratios",
    "block_novikoff_verdict",
    "check_planted",
    "check_two_rays",
    "glue_all",
    "margin_ratio_glue",
    "margin_ratio_text",
    "norm_range_glue",
    "normalizing_verdict",
    "np_bound_verdict",
    "np_equals_perceptron_verdict",
    "planted_glue",
    "planted_table",
    "sign_pattern_glue",
    "sign_pattern_text",
    "two_rays_exponents",
    "two_rays_glue",
    "two_rays_rho2_text",
    "two_rays_text",
    "winnow_glue",
    "winnow_table",
    "winnow_text",
    "perceptron_rule",
    "planted_run",
    "planted_sweep",
    "two_rays_run",
    "two_rays_sweep",
    "loglog_slope",
    "margin_ratio_run",
    "margin_ratio_sweep",
    "sign_pattern_run",
    "sign_pattern_sweep",
    "sparse_target",
    "winnow_bound",
    "winnow_run",
    "winnow_sweep",
]


# ---------------------------------------------------------------------------------------
# Algorithm 1 with an explicit choice of the violated point
# ---------------------------------------------------------------------------------------
def _exact_integers(Z: np.ndarray) -> np.ndarray:
    """The doubles of ``Z`` as Python integers on one common binary scale (exactly).

    Every double is ``m 2^e`` with an integer ``m``; multiplying all of them by
    ``2^-min(e)`` gives integers, whose sums and products are exact.
    """
    ratios = [float(v).as_integer_ratio() for v in Z.ravel()]
    shift = max(den for _, den in ratios).bit_length() - 1  # dens are powers of two
    ints = [num << (shift - (den.bit_length() - 1)) for num, den in ratios]
    return np.array(ints, dtype=object).reshape(Z.shape)


def perceptron_rule(
    X, y, rule: str = "most", *, max_iter: int = 100_000
) -> tuple[int, bool, np.ndarray]:
    """Algorithm 1 (Perceptron on raw data) with a chosen rule, in exact arithmetic.

    Algorithm 1 may update with *any* violated point (``y_i x_i^T w <= 0``). Two
    deterministic rules are offered:

    * ``"most"``: the most violated point, ``argmin_i y_i x_i^T w``, ties to the first
      index (the rule of :func:`kperc.perceptron`).
    * ``"least"``: the violated point with the largest ``y_i x_i^T w`` (the one the
      current ``w`` gets least wrong), ties broken towards the largest ``||x_i||`` and
      then the first index. A lazy adversary: allowed by Algorithm 1, it makes the
      smallest corrections it can (at ``w_0 = 0`` it starts from a largest point).

    The margins are computed exactly (integer arithmetic on the stored doubles), so
    equal margins are really equal and the halting index is the same on every machine.
    In floating point the lazy rule meets many margins that are equal in exact arithmetic
    (a whole ray of points at margin 0), and rounding would pick among them at random.
    Meant for small instances: each update costs ``O(n d)`` integer operations.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.
    rule : {"most", "least"}
    max_iter : int
        Cap on the number of updates.

    Returns
    -------
    nit : int
        Number of updates made (the halting index when ``separated``).
    separated : bool
        Whether the final ``w`` separates the data (``False``: ``max_iter`` reached).
    w : ndarray of shape (n_features,)
        The last iterate, rounded to doubles (a sum of rows ``y_i x_i``). ``separated``
        is decided exactly; the rounded ``w`` may miss a point whose exact margin is
        below rounding.

    Examples
    --------
    >>> from kperc.datasets import two_rays
    >>> X, y = two_rays(10.0, 10)
    >>> perceptron_rule(X, y, "least")[:2]
    (97, True)
    """
    if rule not in ("most", "least"):
        raise ValueError(f"rule must be 'most' or 'least'; got {rule!r}")
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    Z = X * y[:, None]  # exact: y = +-1
    Zi = _exact_integers(Z)
    sq_norms = [int(v) for v in (Zi * Zi).sum(axis=1)]
    counts = np.zeros(X.shape[0], dtype=np.int64)
    m = [0] * X.shape[0]  # exact margins, scaled by a power of two
    k = 0
    while True:
        if min(m) > 0:
            break
        if k >= max_iter:
            break
        if rule == "most":
            j = m.index(min(m))
        else:
            top = max(v for v in m if v <= 0)
            j = max((i for i, v in enumerate(m) if v == top), key=lambda i: (sq_norms[i], -i))
        col = Zi @ Zi[j]
        m = [a + int(b) for a, b in zip(m, col, strict=True)]
        counts[j] += 1
        k += 1
    w = counts.astype(float) @ Z
    return k, min(m) > 0, w


# ---------------------------------------------------------------------------------------
# Planted instances: halting indices against the two bounds
# ---------------------------------------------------------------------------------------
def planted_run(
    n: int,
    d: int,
    rho: float,
    seed: int,
    *,
    near: float = 0.5,
    norm_range: tuple[float, float] = (0.2, 5.0),
    max_iter: int = 1_000_000,
) -> dict[str, float]:
    """Perceptron and Normalised Perceptron on one planted instance.

    Parameters
    ----------
    n, d, rho, seed, near, norm_range
        Passed to :func:`kperc.datasets.planted` (``rho`` is the exact normalised margin).
    max_iter : int
        Cap for both algorithms (never reached below the bounds used in the book).

    Returns
    -------
    dict
        ``rho2`` (exact normalised margin, recomputed), ``rho_raw`` (unnormalised margin
        ``rho``), ``R`` (``max ||x_i||``), ``nit_perceptron`` and ``bound_perceptron``
        (``R^2 / rho^2``), ``nit_np`` and ``bound_np`` (``1 / rho_2^2``), and the
        success flags ``sep_perceptron``, ``sep_np``.
    """
    ds = data.planted(n, d, rho, near=near, norm_range=tuple(norm_range), seed=seed)
    rho2 = kperc.data_margin(ds.X, ds.y)
    rho_raw = kperc.data_margin(ds.X, ds.y, normalize=False)
    R = float(np.linalg.norm(ds.X, axis=1).max())
    p = kperc.perceptron(ds.X, ds.y, max_iter=max_iter)
    q = kperc.normalized_perceptron(ds.X, ds.y, max_iter=max_iter)
    return {
        "rho2": float(rho2),
        "rho_raw": float(rho_raw),
        "R": R,
        "nit_perceptron": int(p.nit),
        "bound_perceptron": float(R**2 / rho_raw**2),
        "sep_perceptron": p.outcome == "separator",
        "nit_np": int(q.nit),
        "bound_np": float(1.0 / rho2**2),
        "sep_np": q.outcome == "separator",
    }


def planted_sweep(
    rhos: Sequence[float],
    seeds: Sequence[int],
    *,
    n: int = 100,
    d: int = 5,
    near: float = 0.5,
    norm_range: tuple[float, float] = (0.2, 5.0),
    n_jobs: int = 1,
) -> pd.DataFrame:
    """:func:`planted_run` over a grid of planted margins and seeds.

    Returns
    -------
    pandas.DataFrame
        One row per instance with the columns of :func:`planted_run` and the ratios
        ``ratio_perceptron = nit / bound`` and ``ratio_np``.
    """
    pts = [
        dict(p, n=n, d=d, near=near, norm_range=tuple(norm_range))
        for p in grid(rho=list(rhos), seed=list(seeds))
    ]
    df = pd.DataFrame(sweep(planted_run, pts, n_jobs=n_jobs))
    df["ratio_perceptron"] = df["nit_perceptron"] / df["bound_perceptron"]
    df["ratio_np"] = df["nit_np"] / df["bound_np"]
    return df


# ---------------------------------------------------------------------------------------
# The two-rays example of Section 2.2
# ---------------------------------------------------------------------------------------
def two_rays_run(r: float, n_per_ray: int = 10, *, max_iter: int = 200_000) -> dict[str, float]:
    """Margins, bounds and halting indices on :func:`kperc.datasets.two_rays`.

    Parameters
    ----------
    r : float
        Norms are spread over ``[1/r, r]``.
    n_per_ray : int
    max_iter : int
        Cap on every run; ``capped_*`` says whether it was reached.

    Returns
    -------
    dict
        ``rho2``, ``rho`` (raw margin), ``R``, ``rho_over_R``, ``bound_perceptron``
        (``R^2 / rho^2``), ``bound_np`` (``1 / rho_2^2``), ``bound_ratio`` and the halting
        indices ``nit_perceptron`` (most violated point), ``nit_least`` (least violated
        point, see :func:`perceptron_rule`) and ``nit_np``, with ``capped_least``.
    """
    ds = data.two_rays(r, n_per_ray)
    rho2 = kperc.data_margin(ds.X, ds.y)
    rho = kperc.data_margin(ds.X, ds.y, normalize=False)
    R = float(np.linalg.norm(ds.X, axis=1).max())
    p = kperc.perceptron(ds.X, ds.y, max_iter=max_iter)
    nit_least, sep_least, _ = perceptron_rule(ds.X, ds.y, "least", max_iter=max_iter)
    q = kperc.normalized_perceptron(ds.X, ds.y, max_iter=max_iter)
    bp = R**2 / rho**2
    bn = 1.0 / rho2**2
    return {
        "rho2": float(rho2),
        "rho": float(rho),
        "R": R,
        "rho_over_R": float(rho / R),
        "bound_perceptron": float(bp),
        "bound_np": float(bn),
        "bound_ratio": float(bp / bn),
        "nit_perceptron": int(p.nit),
        "capped_perceptron": p.outcome != "separator",
        "nit_least": int(nit_least),
        "capped_least": not sep_least,
        "nit_np": int(q.nit),
        "capped_np": q.outcome != "separator",
    }


def two_rays_sweep(
    rs: Sequence[float], n_per_ray: int = 10, *, max_iter: int = 200_000, n_jobs: int = 1
) -> pd.DataFrame:
    """:func:`two_rays_run` for every spread ``r`` in ``rs``."""
    pts = [dict(r=float(r), n_per_ray=n_per_ray, max_iter=max_iter) for r in rs]
    return pd.DataFrame(sweep(two_rays_run, pts, n_jobs=n_jobs))


# ---------------------------------------------------------------------------------------
# Normalising never hurts
# ---------------------------------------------------------------------------------------
def margin_ratio_run(seed: int, kind: str = "planted") -> dict[str, float]:
    """``(rho / max_i ||x_i||) / rho_2`` on one random separable instance.

    Parameters
    ----------
    seed : int
    kind : {"planted", "gaussian"}
        ``"planted"``: :func:`kperc.datasets.planted` with random ``n``, ``d``, margin and a
        random spread of norms. ``"gaussian"``: Gaussian points with norms rescaled
        log-uniformly, labelled by a random homogeneous hyperplane (with a random
        gap so the margin is positive).

    Returns
    -------
    dict
        ``n``, ``d``, ``spread`` (``max ||x|| / min ||x||``), ``rho``, ``R``, ``rho2`` and
        ``ratio = (rho / R) / rho2`` (at most 1 by the normalisation remark).
    """
    rng = np.random.default_rng(10_000 + seed)
    n = int(rng.integers(10, 80))
    d = int(rng.integers(2, 8))
    hi = float(np.exp(rng.uniform(0.0, np.log(20.0))))
    if kind == "planted":
        rho_p = float(np.exp(rng.uniform(np.log(0.03), np.log(0.5))))
        ds = data.planted(
            n,
            d,
            rho_p,
            near=float(rng.uniform(0, 1)),
            norm_range=(1.0 / np.sqrt(hi), np.sqrt(hi)),
            seed=seed,
        )
        X, y = ds.X, ds.y
    elif kind == "gaussian":
        w = rng.standard_normal(d)
        w /= np.linalg.norm(w)
        gap = float(rng.uniform(0.02, 0.3))
        X = rng.standard_normal((4 * n, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        X = X[np.abs(X @ w) >= gap][:n]
        X = X * np.exp(rng.uniform(-0.5, 0.5, X.shape[0]) * np.log(hi))[:, None]
        y = np.sign(X @ w)
    else:
        raise ValueError(f"kind must be 'planted' or 'gaussian'; got {kind!r}")
    norms = np.linalg.norm(X, axis=1)
    rho = kperc.data_margin(X, y, normalize=False)
    rho2 = kperc.data_margin(X, y)
    R = float(norms.max())
    return {
        "n": int(X.shape[0]),
        "d": d,
        "spread": float(norms.max() / norms.min()),
        "rho": float(rho),
        "R": R,
        "rho2": float(rho2),
        "ratio": float(rho / R / rho2),
    }


def margin_ratio_sweep(
    seeds: Sequence[int], kinds: Sequence[str] = ("planted", "gaussian"), *, n_jobs: int = 1
) -> pd.DataFrame:
    """:func:`margin_ratio_run` for every kind and seed (one row each)."""
    return pd.DataFrame(
        sweep(margin_ratio_run, grid(kind=list(kinds), seed=list(seeds)), n_jobs=n_jobs)
    )


# ---------------------------------------------------------------------------------------
# Normalised Perceptron = most-violated-point Perceptron (same sign patterns)
# ---------------------------------------------------------------------------------------
def sign_pattern_run(
    seed: int,
    *,
    n: int = 60,
    d: int = 4,
    rho: float = 0.05,
    norm_range: tuple[float, float] = (0.2, 5.0),
) -> dict[str, float]:
    """Compare the sign patterns of the Normalised Perceptron and the Perceptron.

    Both run on the same planted instance: Algorithm 2 through
    :func:`kperc.normalized_perceptron` (which normalises internally) and Algorithm 1
    through :func:`kperc.perceptron` on the normalised points ``x_i / ||x_i||``, both
    with ``trace=True``. At every step ``k`` the sign vectors
    ``sign(y_i a_i^T w_k)`` of the two iterates are compared; so are the chosen indices.
    For contrast, the Perceptron on the *raw* points is also run: its choices can differ.

    Returns
    -------
    dict
        ``steps`` (number of iterates compared), ``nit_np``, ``nit_perceptron``,
        ``same_signs`` (all sign vectors equal), ``same_choices`` (all chosen indices
        equal), ``scaled_equal`` (``k w_k^{NP}`` equals the Perceptron's sum of chosen
        points, to round-off), ``nit_raw`` and ``raw_same_choices``.
    """
    ds = data.planted(n, d, rho, near=0.5, norm_range=tuple(norm_range), seed=seed)
    X, y = ds.X, ds.y
    norms = np.linalg.norm(X, axis=1)
    Xn = X / norms[:, None]
    A = Xn * y[:, None]  # rows a_i
    q = kperc.normalized_perceptron(X, y, trace=True)
    p = kperc.perceptron(Xn, y, trace=True)
    Wq = np.asarray(q.trace["w"])
    Wp = np.asarray(p.trace["w"])
    steps = min(len(Wq), len(Wp))
    sq = np.sign(Wq[:steps] @ A.T)
    sp = np.sign(Wp[:steps] @ A.T)
    # sum of the points chosen so far, rebuilt from the chosen indices (independent of
    # how the trace scales w)
    jq = np.asarray(q.trace["j"])
    jp = np.asarray(p.trace["j"])
    chosen = jp[:-1] if len(jp) > 1 else np.zeros(0, dtype=int)
    U = np.vstack([np.zeros(d), np.cumsum(A[chosen], axis=0)]) if chosen.size else np.zeros((1, d))
    k = np.arange(U.shape[0])[:, None]
    scaled = np.allclose(k * Wq[: U.shape[0]], U, rtol=1e-10, atol=1e-10)
    raw = kperc.perceptron(X, y, trace=True)
    jr = np.asarray(raw.trace["j"])
    return {
        "seed": seed,
        "steps": int(steps),
        "nit_np": int(q.nit),
        "nit_perceptron": int(p.nit),
        "same_signs": bool(len(Wq) == len(Wp) and np.array_equal(sq, sp)),
        "same_choices": bool(np.array_equal(jq, jp)),
        "scaled_equal": bool(scaled),
        "nit_raw": int(raw.nit),
        "raw_same_choices": bool(np.array_equal(jr, jq)),
    }


def sign_pattern_sweep(
    seeds: Sequence[int],
    *,
    n: int = 60,
    d: int = 4,
    rho: float = 0.05,
    norm_range: tuple[float, float] = (0.2, 5.0),
    n_jobs: int = 1,
) -> pd.DataFrame:
    """:func:`sign_pattern_run` for every seed."""
    pts = [dict(seed=s, n=n, d=d, rho=rho, norm_range=tuple(norm_range)) for s in seeds]
    rows = sweep(sign_pattern_run, pts, n_jobs=n_jobs)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------
# Winnow on a sparse target
# ---------------------------------------------------------------------------------------
def sparse_target(n: int, d: int, k: int = 3, *, seed: int = 0) -> data.Dataset:
    """Boolean (+-1) features labelled by a sparse majority vote.

    Every ``x_i`` is uniform in ``{-1, +1}^d``; a target ``w*`` has ``k`` (odd) nonzero
    entries equal to ``+-1`` on random coordinates, and ``y_i = sign(w*^T x_i)``. Since
    ``k`` is odd, ``|w*^T x_i| >= 1``, so with ``||x_i||_inf = 1`` and ``||w*||_1 = k``
    the l_inf-normalised margin is at least ``1/k`` whatever ``d``, while the
    Euclidean one of ``w*`` is only ``1 / sqrt(k d)``.

    Parameters
    ----------
    n : int
        Number of points.
    d : int
        Dimension, ``d >= k``.
    k : int
        Number of relevant features (odd).
    seed : int

    Returns
    -------
    Dataset
        ``info`` has ``w_star``, ``support`` and the margin lower bounds
        ``rho_inf_lower = 1/k`` and ``rho2_wstar = min_i y_i w*^T x_i / (||w*|| ||x_i||)``.
    """
    if k % 2 == 0 or k < 1 or d < k:
        raise ValueError(f"sparse_target needs an odd k with 1 <= k <= d; got k={k}, d={d}.")
    rng = np.random.default_rng(seed)
    support = np.sort(rng.choice(d, size=k, replace=False))
    w = np.zeros(d)
    w[support] = rng.choice([-1.0, 1.0], size=k)
    X = rng.choice([-1.0, 1.0], size=(n, d))
    y = np.sign(X @ w)
    rho2_w = float(np.min(y * (X @ w)) / (np.sqrt(k) * np.sqrt(d)))
    return data.Dataset(
        X, y, {"w_star": w, "support": support, "rho_inf_lower": 1.0 / k, "rho2_wstar": rho2_w}
    )


def winnow_bound(rho_inf: float, d: int) -> float:
    """``2 ln(2d) / rho_inf^2``: a mistake bound for :func:`kperc.winnow` with ``eta = rho_inf``.

    Derived in the book, not taken from the paper (whose constant is not available; see
    the Sources and derivations page): with the relative entropy ``KL(v* || v)`` as
    potential (at most ``ln(2d)`` at the start), an update on a violated ``b`` (entries
    in ``[-1, 1]``, ``b^T v <= 0``) lowers it by at least ``eta rho_inf - eta^2 / 2``
    (Hoeffding's lemma), which is ``rho_inf^2 / 2`` for ``eta = rho_inf``.
    """
    return float(2.0 * np.log(2 * d) / rho_inf**2)


def winnow_run(
    d: int, seed: int, *, n: int | None = None, k: int = 3, max_iter: int = 200_000
) -> dict[str, float]:
    """Margins and iteration counts of Winnow and the Normalised Perceptron.

    Parameters
    ----------
    d : int
        Dimension.
    seed : int
    n : int, optional
        Number of points (default ``4 d``, so that the sample pins down the target).
    k : int
        Sparsity of the target (odd).
    max_iter : int

    Returns
    -------
    dict
        ``rho2`` (exact, :func:`kperc.data_margin`), ``rho_inf`` (exact LP,
        :func:`kperc.linf_margin`), ``nit_winnow`` (with ``eta = rho_inf``),
        ``bound_winnow`` (:func:`winnow_bound`), ``nit_np``, ``bound_np`` (``1/rho_2^2``)
        and the success flags.
    """
    n = 4 * d if n is None else n
    ds = sparse_target(n, d, k, seed=seed)
    rho2 = kperc.data_margin(ds.X, ds.y)
    rho_inf = float(kperc.linf_margin(ds.X, ds.y).rho)
    wn = kperc.winnow(ds.X, ds.y, eta=rho_inf, max_iter=max_iter)
    q = kperc.normalized_perceptron(ds.X, ds.y, max_iter=max_iter)
    return {
        "n": n,
        "rho2": float(rho2),
        "rho_inf": rho_inf,
        "rho_inf_lower": 1.0 / k,
        "nit_winnow": int(wn.nit),
        "sep_winnow": wn.outcome == "separator",
        "bound_winnow": winnow_bound(rho_inf, d),
        "nit_np": int(q.nit),
        "sep_np": q.outcome == "separator",
        "bound_np": float(1.0 / rho2**2),
    }


def winnow_sweep(
    ds: Sequence[int], seeds: Sequence[int], *, k: int = 3, n_jobs: int = 1
) -> pd.DataFrame:
    """:func:`winnow_run` over dimensions and seeds (one row each)."""
    pts = [dict(p, k=k) for p in grid(d=list(ds), seed=list(seeds))]
    return pd.DataFrame(sweep(winnow_run, pts, n_jobs=n_jobs))


# =======================================================================================
# What the notebook does around the sweeps: verdicts, printed tables, glued values
# =======================================================================================
#: The normalised margin of the two-rays example, ``0.2 / sqrt(2) = sqrt(2) / 10``.
RHO2_TWO_RAYS = float(np.sqrt(2.0) / 10.0)


def _require(ok: bool, message: str) -> None:
    if not bool(ok):
        raise ClaimError(message)


def norm_range_glue(norm_range: Sequence[float]) -> GlueItems:
    """The spread of the norms of the planted instances, as quoted in the prose."""
    return [("ch02_norm_lo", norm_range[0], 3), ("ch02_norm_hi", norm_range[1], 3)]


# ---------------------------------------------------------------------------------------
# Planted instances
# ---------------------------------------------------------------------------------------
def check_planted(planted: pd.DataFrame) -> None:
    """Raise :class:`ClaimError` unless every run of a :func:`planted_sweep` table
    separated the data and the recomputed ``rho_2`` equals the planted one
    (:func:`numpy.allclose` with ``atol=1e-9``).

    A halting index is compared with its bound only for runs that halted; a capped run
    would make the comparison meaningless.
    """
    bad = int((~planted["sep_perceptron"]).sum() + (~planted["sep_np"]).sum())
    _require(bad == 0, f"{bad} planted run(s) stopped at max_iter without a separator")
    err = float(np.abs(planted["rho2"] - planted["rho"]).max())
    _require(
        bool(np.allclose(planted["rho2"], planted["rho"], atol=1e-9)),
        f"the recomputed rho_2 differs from the planted margin by {err:.3g}",
    )


def block_novikoff_verdict(planted: pd.DataFrame) -> Verdict:
    """Block-Novikoff on a :func:`planted_sweep` table: every Perceptron halting index is at
    most ``R^2 / rho^2``."""
    check_planted(planted)
    n = len(planted)
    ok = (planted["nit_perceptron"] <= planted["bound_perceptron"]).all()
    worst = planted["ratio_perceptron"].max()
    detail = (
        f"Perceptron halting index <= R^2/rho^2 on {n} planted instances; worst ratio {worst:.3g}"
    )
    return make_verdict(ok, detail, n)


def np_bound_verdict(planted: pd.DataFrame) -> Verdict:
    """The Normalised Perceptron's guarantee on a :func:`planted_sweep` table: every halting
    index is at most ``1 / rho_2^2``."""
    check_planted(planted)
    n = len(planted)
    ok = (planted["nit_np"] <= planted["bound_np"]).all()
    worst = planted["ratio_np"].max()
    detail = (
        f"Normalised Perceptron halting index <= 1/rho_2^2 on {n} planted "
        f"instances; worst ratio {worst:.3g}"
    )
    return make_verdict(ok, detail, n)


def planted_table(planted: pd.DataFrame) -> str:
    """Medians over the seeds of halting indices and bounds, and the worst ratios, by
    planted margin (the printed table of the section)."""
    summary = planted.groupby("rho").agg(
        nit_perceptron=("nit_perceptron", "median"),
        bound_perceptron=("bound_perceptron", "median"),
        nit_np=("nit_np", "median"),
        bound_np=("bound_np", "median"),
        worst_ratio_perceptron=("ratio_perceptron", "max"),
        worst_ratio_np=("ratio_np", "max"),
    )
    names = {
        "rho": "margin",
        "nit_perceptron": "Perceptron",
        "bound_perceptron": "bound",
        "nit_np": "NP",
        "bound_np": "NP bound",
        "worst_ratio_perceptron": "worst ratio",
        "worst_ratio_np": "NP worst ratio",
    }
    return (
        "Perceptron on raw data, NP = Normalised Perceptron; medians over seeds\n"
        "(halting index and bound; worst ratio = largest halting index / bound)\n"
        + table_text(summary, names, float_format=lambda v: f"{v:.4g}")
    )


def planted_glue(planted: pd.DataFrame) -> GlueItems:
    """The numbers the prose quotes about the planted instances."""
    np_over_raw = (planted["nit_np"] / planted["nit_perceptron"]).median()
    return [
        ("ch02_n_planted", len(planted), 4),
        ("ch02_np_over_perceptron", np_over_raw, 2),
        ("ch02_worst_ratio_np", planted["ratio_np"].max(), 2),
        ("ch02_worst_ratio_perceptron", planted["ratio_perceptron"].max(), 2),
        ("ch02_median_ratio_np", planted["ratio_np"].median(), 2),
        ("ch02_median_ratio_perceptron", planted["ratio_perceptron"].median(), 2),
    ]


# ---------------------------------------------------------------------------------------
# Same sign patterns
# ---------------------------------------------------------------------------------------
def np_equals_perceptron_verdict(signs: pd.DataFrame) -> Verdict:
    """The proposition "same sign patterns" on a :func:`sign_pattern_sweep` table: same
    sign vectors, same chosen points, ``w_P = k w_NP`` and the same halting index."""
    n_steps = int(signs["steps"].sum())
    ok = bool(
        signs["same_signs"].all()
        and signs["same_choices"].all()
        and signs["scaled_equal"].all()
        and (signs["nit_np"] == signs["nit_perceptron"]).all()
    )
    detail = (
        f"same sign vector sign(A^T w_k), same chosen point and w_P = k w_NP at all "
        f"{n_steps} steps of {len(signs)} runs"
    )
    return make_verdict(ok, detail, len(signs))


def sign_pattern_text(signs: pd.DataFrame) -> str:
    """Median halting indices on normalised and raw points, and how often the raw
    Perceptron chose a different sequence of points."""
    n_raw_differ = int((~signs["raw_same_choices"]).sum())
    return (
        "median halting index:\n"
        f"  {signs['nit_np'].median():.0f} Normalised Perceptron = Perceptron on normalised "
        "points\n"
        f"  {signs['nit_raw'].median():.0f} Perceptron on raw points\n"
        f"runs where the raw Perceptron chose a different sequence: {n_raw_differ} of "
        f"{len(signs)}"
    )


def sign_pattern_glue(signs: pd.DataFrame) -> GlueItems:
    """Steps and runs compared, and the runs where the raw Perceptron differs."""
    return [
        ("ch02_sign_steps", int(signs["steps"].sum()), 4),
        ("ch02_sign_runs", len(signs), 4),
        ("ch02_raw_differ", int((~signs["raw_same_choices"]).sum()), 4),
    ]


# ---------------------------------------------------------------------------------------
# Two rays
# ---------------------------------------------------------------------------------------
def check_two_rays(rays: pd.DataFrame) -> None:
    """Raise :class:`ClaimError` unless a :func:`two_rays_sweep` table matches the example:
    ``rho_2 = sqrt(2)/10``, ``rho = rho_2 / r`` (to ``1e-9`` relative), ``R = r`` (to
    ``1e-12``), and every halting index is within its bound."""
    _require(
        bool(np.allclose(rays["rho2"], RHO2_TWO_RAYS, rtol=1e-9)),
        f"rho_2 of the two rays is not sqrt(2)/10 for every r: {rays['rho2'].tolist()}",
    )
    _require(
        bool(np.allclose(rays["rho"], RHO2_TWO_RAYS / rays["r"], rtol=1e-9)),
        "the raw margin of the two rays is not rho_2 / r",
    )
    _require(bool(np.allclose(rays["R"], rays["r"], rtol=1e-12)), "max ||x_i|| is not r")
    for col, bound in (
        ("nit_perceptron", "bound_perceptron"),
        ("nit_least", "bound_perceptron"),
        ("nit_np", "bound_np"),
    ):
        over = int((rays[col] > rays[bound]).sum())
        _require(over == 0, f"{col} exceeds {bound} on {over} spread(s) r")


def two_rays_exponents(rays: pd.DataFrame) -> tuple[float, float]:
    """Fitted exponents in ``r`` of the bound ratio (all ``r``) and of the lazy adversary's
    halting index (``r >= 3``)."""
    exponent = loglog_slope(rays["r"], rays["bound_ratio"])
    big = rays["r"] >= 3
    lazy_exponent = loglog_slope(rays.loc[big, "r"], rays.loc[big, "nit_least"])
    return exponent, lazy_exponent


def _two_rays_capped(rays: pd.DataFrame) -> int:
    return int(rays[["capped_perceptron", "capped_least", "capped_np"]].to_numpy().sum())


def two_rays_text(rays: pd.DataFrame, *, max_iter: int) -> str:
    """The printed table of the two-rays sweep, the fitted exponents and the capped runs
    (after :func:`check_two_rays`)."""
    check_two_rays(rays)
    exponent, lazy_exponent = two_rays_exponents(rays)
    names = {
        "r": "r",
        "rho": "margin",
        "rho_over_R": "margin / R",
        "bound_perceptron": "bound",
        "nit_perceptron": "Perceptron",
        "nit_least": "lazy rule",
        "nit_np": "NP",
    }
    return "\n".join(
        [
            "halting indices of the Perceptron (two rules) and the Normalised Perceptron (NP)",
            table_text(rays[list(names)], names, index=False, float_format=lambda v: f"{v:.4g}"),
            f"rho_2 = {rays['rho2'].iloc[0]:.6f} for every r (sqrt(2)/10 = {RHO2_TWO_RAYS:.6f})",
            f"fitted exponent of the bound ratio (R^2/rho^2)/(1/rho_2^2) in r: {exponent:.4f}",
            f"fitted exponent of the lazy adversary's halting index (r >= 3): {lazy_exponent:.3f}",
            f"runs that reached max_iter = {max_iter}: {_two_rays_capped(rays)}",
        ]
    )


def two_rays_glue(rays: pd.DataFrame, *, r_max: float, max_iter: int) -> GlueItems:
    """The numbers the prose quotes about the two-rays example (after
    :func:`check_two_rays`)."""
    check_two_rays(rays)
    exponent, lazy_exponent = two_rays_exponents(rays)
    return [
        ("rho2_example", rays["rho2"].iloc[0], 4),
        ("bound_ratio_exponent", exponent, 3),
        ("ch02_lazy_exponent", lazy_exponent, 2),
        ("ch02_rays_rmax", r_max, 4),
        ("ch02_rays_bound_max", rays["bound_perceptron"].max(), 3),
        ("ch02_rays_nit_max", int(rays["nit_perceptron"].max()), 4),
        ("ch02_rays_lazy_max", int(rays["nit_least"].max()), 4),
        ("ch02_rays_np_max", int(rays["nit_np"].max()), 4),
        ("ch02_rays_capped", _two_rays_capped(rays), 4),
        ("ch02_max_iter", max_iter, 4),
    ]


def two_rays_rho2_text(rho2: float) -> str:
    """``rho_2`` of the two rays next to ``sqrt(2)/10`` (the exercise); raise
    :class:`ClaimError` if they differ by ``1e-9`` or more."""
    _require(
        abs(rho2 - RHO2_TWO_RAYS) < 1e-9,
        f"rho_2 = {rho2!r} is not sqrt(2)/10 = {RHO2_TWO_RAYS!r}",
    )
    return f"rho_2 = {rho2:.6f}, sqrt(2)/10 = {np.sqrt(2) / 10:.6f}"


# ---------------------------------------------------------------------------------------
# Normalising never hurts
# ---------------------------------------------------------------------------------------
def all_margin_ratios(ratios: pd.DataFrame, planted: pd.DataFrame) -> np.ndarray:
    """``(rho / max ||x_i||) / rho_2`` of a :func:`margin_ratio_sweep` table followed by
    those of the planted instances of a :func:`planted_sweep` table."""
    planted_ratio = planted["rho_raw"] / planted["R"] / planted["rho2"]
    return np.concatenate([ratios["ratio"].to_numpy(), planted_ratio.to_numpy()])


def normalizing_verdict(ratios: pd.DataFrame, planted: pd.DataFrame) -> Verdict:
    """The statement "normalising never hurts" on every instance of both tables: each
    ratio at most 1 (to ``1e-12``)."""
    r = all_margin_ratios(ratios, planted)
    worst = float(r.max())
    detail = f"(rho / max||x_i||) / rho_2 <= 1 on {r.size} random instances; worst {worst:.4f}"
    return make_verdict((r <= 1 + 1e-12).all(), detail, r.size)


def margin_ratio_text(ratios: pd.DataFrame, planted: pd.DataFrame) -> str:
    """The distribution of the ratio by kind, and how much the Perceptron's bound is
    inflated, ``R^2 rho_2^2 / rho^2``, over all instances."""
    inflation = 1.0 / all_margin_ratios(ratios, planted) ** 2
    return (
        ratios.groupby("kind")["ratio"].describe().to_string(float_format=lambda v: f"{v:.3g}")
        + "\n"
        + f"bound inflation R^2 rho_2^2 / rho^2: median {np.median(inflation):.3g}, "
        f"smallest {inflation.min():.4g}"
    )


def margin_ratio_glue(ratios: pd.DataFrame, planted: pd.DataFrame) -> GlueItems:
    """The worst and median ratio, the number of instances and the median inflation."""
    r = all_margin_ratios(ratios, planted)
    return [
        ("ch02_ratio_worst", float(r.max()), 3),
        ("ch02_ratio_median", float(np.median(r)), 2),
        ("ch02_ratio_n", r.size, 4),
        ("ch02_inflation_median", float(np.median(1.0 / r**2)), 2),
    ]


# ---------------------------------------------------------------------------------------
# Winnow
# ---------------------------------------------------------------------------------------
def winnow_table(win: pd.DataFrame) -> pd.DataFrame:
    """Means of the margins and medians of the halting indices and bounds, by dimension.

    Raises :class:`ClaimError` unless every run of the :func:`winnow_sweep` table
    separated, stayed within its bound (``1/rho_2^2``, :func:`winnow_bound`), and
    ``rho_inf >= 1/k`` (to ``1e-9``), as the section states.
    """
    bad = int((~win["sep_winnow"]).sum() + (~win["sep_np"]).sum())
    _require(bad == 0, f"{bad} run(s) stopped at max_iter without a separator")
    over_np = int((win["nit_np"] > win["bound_np"]).sum())
    _require(over_np == 0, f"the Normalised Perceptron exceeds 1/rho_2^2 on {over_np} run(s)")
    over_w = int((win["nit_winnow"] > win["bound_winnow"]).sum())
    _require(over_w == 0, f"Winnow exceeds 2 ln(2d)/rho_inf^2 on {over_w} run(s)")
    low = int((win["rho_inf"] < win["rho_inf_lower"] - 1e-9).sum())
    _require(low == 0, f"rho_inf is below 1/k on {low} instance(s)")
    return win.groupby("d").agg(
        n=("n", "first"),
        rho2=("rho2", "mean"),
        rho_inf=("rho_inf", "mean"),
        nit_np=("nit_np", "median"),
        bound_np=("bound_np", "median"),
        nit_winnow=("nit_winnow", "median"),
        bound_winnow=("bound_winnow", "median"),
    )


def _winnow_slopes(tab: pd.DataFrame) -> tuple[float, float]:
    return loglog_slope(tab.index, tab["nit_np"]), loglog_slope(tab.index, tab["nit_winnow"])


#: Headings of the printed Winnow table.
_WINNOW_NAMES = {
    "rho2": "l2 margin",
    "rho_inf": "l-inf margin",
    "nit_np": "NP",
    "bound_np": "NP bound",
    "nit_winnow": "Winnow",
    "bound_winnow": "Winnow bound",
}


def winnow_text(tab: pd.DataFrame) -> str:
    """The :func:`winnow_table`, the fitted exponents in ``d`` and ``rho_2 sqrt(3 d)``."""
    slope_np, slope_w = _winnow_slopes(tab)
    scaled = tab["rho2"].to_numpy() * np.sqrt(3 * tab.index.to_numpy())
    return "\n".join(
        [
            "NP = Normalised Perceptron; margins are means, halting indices and bounds medians",
            table_text(tab, _WINNOW_NAMES, float_format=lambda v: f"{v:.4g}"),
            f"fitted exponent in d of the median halting index: NP {slope_np:.2f}, "
            f"Winnow {slope_w:.2f}",
            "rho_2 * sqrt(3 d) = " + ", ".join(f"{v:.6f}" for v in scaled),
        ]
    )


def winnow_glue(win: pd.DataFrame, tab: pd.DataFrame) -> GlueItems:
    """The numbers the prose quotes at the largest dimension, and the fitted exponents."""
    slope_np, slope_w = _winnow_slopes(tab)
    dmax = int(tab.index.max())
    return [
        ("ch02_w_dmax", dmax, 4),
        ("ch02_w_rho_inf", float(win["rho_inf"].min()), 4),
        ("ch02_w_rho2_dmax", float(tab.loc[dmax, "rho2"]), 3),
        ("ch02_w_nit_np_dmax", float(tab.loc[dmax, "nit_np"]), 4),
        ("ch02_w_nit_w_dmax", float(tab.loc[dmax, "nit_winnow"]), 4),
        ("ch02_w_slope_np", slope_np, 2),
        ("ch02_w_slope_w", slope_w, 2),
    ]

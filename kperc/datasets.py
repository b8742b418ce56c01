"""Seeded data generators with known margins, and two real data sets.

Every generator returns a :class:`Dataset`; those with randomness take ``seed``.

* :func:`planted`: separable data with an exactly planted normalised margin: ``rho w*``
  is the midpoint of two support points on the sphere and every signed point has
  ``a_i^T w* >= rho``, so the normalised margin equals ``rho``.
* :func:`planted_rbf`: data with a planted margin in the RBF kernel's feature space (a
  kernel problem whose margin is known from below).
* :func:`two_rays`: the normalised-versus-unnormalised example of Section 2 of the paper.
* :func:`crowded`: separable data with an exact margin whose points crowd next to one
  support point (a hard family for methods that start from the uniform weights, and
  for the perceptrons when the points come in a random order).
* :func:`infeasible`: inseparable data whose signed points' hull contains a ball of a
  chosen radius around 0 (a controlled negative margin).
* :func:`circles`, :func:`moons`, :func:`xor`: the usual nonlinear sets.
* :func:`breast_cancer`, :func:`digits`: real data bundled with scikit-learn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._gram_matrix import gram_matrix
from ._typing import KernelLike
from ._validation import check_finite, check_nonnegative, check_positive

#: Largest number of points a generator makes (a larger ``n`` is refused up front
#: rather than failing inside numpy's allocator).
MAX_SAMPLES = 10**8


def _check_n(n, name: str = "n", low: int = 1) -> int:
    n = check_positive(n, name, integer=True)
    if n < low or n > MAX_SAMPLES:
        raise ValueError(f"{name} must be an integer in [{low}, {MAX_SAMPLES}]; got {n}.")
    return n


def _check_seed(seed) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}.")
    return int(seed)


__all__ = [
    "Dataset",
    "planted",
    "planted_rbf",
    "two_rays",
    "crowded",
    "infeasible",
    "circles",
    "moons",
    "xor",
    "breast_cancer",
    "digits",
]


@dataclass
class Dataset:
    """A labelled data set: the one type of a test problem in kperc and its book.

    The margin a generator knows (``info["rho"]``) is stated in a feature space: the
    kernel's, named by ``kernel`` and ``kernel_params`` (the linear kernel unless the
    generator planted the margin elsewhere, as :func:`kperc.datasets.planted_rbf`
    does). :meth:`gram` builds the normalised signed Gram matrix of that kernel.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    info : dict
        What the generator knows exactly (planted margin, maximiser, ...).
    kernel : {"linear", "poly", "rbf"} or callable, default="linear"
        The kernel of the problem (see :func:`kperc.kernel_matrix`).
    kernel_params : dict, default={}
        Its parameters (``gamma``, ``degree``, ``coef0``).

    Examples
    --------
    >>> from kperc.datasets import circles
    >>> ds = circles(10, seed=0)
    >>> X, y = ds
    >>> X.shape, sorted(set(y.tolist()))
    ((10, 2), [-1.0, 1.0])
    >>> ds.kernel, ds.gram().shape
    ('linear', (10, 10))
    """

    X: np.ndarray
    y: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)
    kernel: KernelLike = "linear"
    kernel_params: dict[str, Any] = field(default_factory=dict)

    def __iter__(self):  # allows ``X, y = dataset``
        return iter((self.X, self.y))

    def gram(self) -> np.ndarray:
        """The normalised signed Gram matrix of the problem's kernel.

        Returns
        -------
        G : ndarray of shape (n_samples, n_samples)
            :func:`kperc.gram_matrix` of ``X``, ``y``, ``kernel`` and ``kernel_params``,
            computed on each call (the data may have changed since the last one).
        """
        return gram_matrix(self.X, self.y, self.kernel, **self.kernel_params)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.sqrt(np.sum(v * v))


def _orthogonal_directions(rng, w: np.ndarray, m: int) -> np.ndarray:
    """``m`` random unit vectors orthogonal to the unit vector ``w`` (rows)."""
    g = rng.standard_normal((m, w.size))
    g -= np.outer(g @ w, w)
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def _check_norm_range(norm_range) -> tuple[float, float]:
    """``(low, high)`` with ``0 < low <= high``, both finite, and no overflow of the points."""
    try:
        lo, hi = norm_range
    except (TypeError, ValueError):
        raise ValueError(
            f"norm_range must be a pair (low, high) of positive numbers; got {norm_range!r}."
        ) from None
    lo, hi = check_positive(lo, "norm_range[0]"), check_positive(hi, "norm_range[1]")
    if lo > hi:
        raise ValueError(f"norm_range must satisfy 0 < low <= high; got {norm_range!r}.")
    if hi > 1e300 or lo < 1e-300:
        raise ValueError(
            f"norm_range must lie within [1e-300, 1e300] (beyond, the coordinates of the "
            f"points overflow or lose their digits to underflow); got {norm_range!r}."
        )
    return lo, hi


def _labels_and_norms(rng, A: np.ndarray, norm_range: tuple[float, float]):
    n = A.shape[0]
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    rng.shuffle(y)
    lo, hi = norm_range
    r = np.exp(rng.uniform(np.log(lo), np.log(hi), n)) if hi > lo else np.full(n, lo)
    return A * (y * r)[:, None], y


def planted(
    n: int = 100,
    d: int = 5,
    rho: float = 0.1,
    *,
    near: float = 0.5,
    near_width: float = 1.0,
    norm_range: tuple[float, float] = (1.0, 1.0),
    seed: int = 0,
) -> Dataset:
    """Separable data with normalised margin exactly ``rho``.

    A unit ``w*`` is drawn; two support points ``rho w* +- sqrt(1 - rho^2) u`` lie on
    the unit sphere with their midpoint ``rho w*`` at distance ``rho`` from 0; every
    other signed point ``a_i`` has ``a_i^T w* = t_i >= rho``. The nearest point of the
    hull to 0 is therefore ``rho w*`` and ``rho_2 = rho`` (Section 3 of the paper).

    Parameters
    ----------
    n : int
        Number of points (``n >= 2``).
    d : int
        Dimension (``d >= 2``).
    rho : float
        Planted normalised margin, ``0 < rho < 1``.
    near : float
        Fraction of the other points placed near the margin, with
        ``t_i`` uniform in ``[rho, rho (1 + near_width)]``; the rest have ``t_i``
        uniform in ``[rho, 1]``. Points near the margin make the instance hard.
    near_width : float
        Relative width of the band near the margin, finite and ``> 0``.
    norm_range : (float, float)
        Norms ``||x_i||`` are log-uniform in this range (the normalised margin does not
        depend on them; the unnormalised one does).
    seed : int
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same data.

    Returns
    -------
    Dataset
        ``X`` of shape (n, d), ``y`` in {-1, +1}; ``info`` has ``rho`` (the planted
        normalised margin), ``rho_bounds`` (an interval, certified with exact signs, that
        contains the normalised margin of the returned floating-point data: rounding the
        coordinates moves it by a few units of ``d`` times the unit round-off), ``w_star``
        and ``support`` (indices of the two support points).

    Raises
    ------
    ValueError
        For invalid parameters, and for a ``rho`` so small that rounding the points
        could change the margin by more than half of it (below about ``1e-13`` for small
        ``d``): such a margin cannot be planted in double precision.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted
    >>> ds = planted(50, 4, rho=0.1, seed=0)
    >>> ds.X.shape, round(kperc.data_margin(ds.X, ds.y), 6)
    ((50, 4), 0.1)
    """
    n, d, seed = _check_n(n), _check_n(d, "d"), _check_seed(seed)
    rho, near = check_finite(rho, "rho"), check_finite(near, "near")
    near_width = check_positive(near_width, "near_width")
    norm_range = _check_norm_range(norm_range)
    if n < 2 or d < 2:
        raise ValueError(f"planted needs n >= 2 and d >= 2; got n={n}, d={d}.")
    if not 0 < rho < 1:
        raise ValueError(f"rho must be in (0, 1); got {rho}.")
    if not 0 <= near <= 1:
        raise ValueError(f"near must be a fraction in [0, 1]; got {near}.")
    rng = np.random.default_rng(seed)
    w = _unit(rng.standard_normal(d))
    c = np.sqrt(1.0 - rho * rho)
    u = _orthogonal_directions(rng, w, 1)[0]
    m = n - 2
    n_near = int(round(near * m))
    hi_near = min(1.0, rho * (1.0 + near_width))
    t = np.concatenate([rng.uniform(rho, hi_near, n_near), rng.uniform(rho, 1.0, m - n_near)])
    V = _orthogonal_directions(rng, w, m)
    rest = t[:, None] * w[None, :] + np.sqrt(1.0 - t * t)[:, None] * V
    A = np.vstack([rho * w + c * u, rho * w - c * u, rest])
    perm = rng.permutation(n)
    A = A[perm]
    support = np.sort(np.flatnonzero(perm < 2))
    X, y = _labels_and_norms(rng, A, norm_range)
    bounds = _planted_bounds(X, y, w, support)
    if not (bounds[0] > rho / 2 and bounds[1] < 2 * rho):
        raise ValueError(
            f"rho={rho:g} cannot be planted in double precision: rounding the coordinates "
            f"leaves the margin of the data only known to lie in [{bounds[0]:.3g}, "
            f"{bounds[1]:.3g}]. Use a larger rho (rho >= 1e-12 is safe for d <= 100)."
        )
    return Dataset(X, y, {"rho": float(rho), "rho_bounds": bounds, "w_star": w, "support": support})


def _planted_bounds(X, y, w, support) -> tuple[float, float]:
    """A certified interval for the normalised margin of the floating-point data.

    Lower: the margin of the direction ``w*`` with every sign of ``y_i x_i^T w*`` decided
    exactly; upper: the distance to 0 of the midpoint of the two support points.
    """
    from ._margins import _RowCertifier

    cert = _RowCertifier(X * y[:, None], normalized=True)
    low = cert._check(w)
    p = np.zeros(X.shape[0])
    p[support] = 0.5
    return (float(low) if low is not None else 0.0, float(cert.upper(p)))


#: Rejection rounds :func:`planted_rbf` tries before it says that ``rho`` is too large.
_RBF_MAX_ROUNDS = 200


def planted_rbf(
    n: int = 200,
    d: int = 2,
    rho: float = 0.01,
    *,
    gamma: float = 2.0,
    n_centers: int = 12,
    near: float = 0.5,
    seed: int = 0,
) -> Dataset:
    """Data separated by a known function of the RBF kernel's feature space, with a gap.

    A function ``f = sum_j c_j K(z_j, .)`` with ``n_centers`` centres ``z_j`` uniform in
    ``[-1, 1]^d`` and signs ``c_j = +-1`` lies in the feature space of the RBF kernel
    ``K(x, z) = exp(-gamma ||x - z||^2)``, with norm ``||f|| = sqrt(c^T K(Z, Z) c)``.
    Since ``K(x, x) = 1``, the normalised value of a point is ``g(x) = f(x) / ||f||``.
    Points are labelled ``sign g(x)`` and kept only where ``|g(x)| >= rho``, so ``f``
    separates them with normalised margin at least ``rho``: the kernel margin
    ``rho_K`` of the data (Section 3 of the paper) is at least ``rho``. A fraction
    ``near`` of the points lies in the band ``rho <= |g| <= 2 rho`` (found by bisection
    on segments that cross the decision boundary), which makes the instance hard; the
    others are uniform in the cube where ``|g| >= 2 rho``.

    Parameters
    ----------
    n : int
        Number of points (``n >= 2``).
    d : int
        Dimension (``d >= 1``).
    rho : float
        The gap, ``0 < rho < 1``: a lower bound on the kernel margin.
    gamma : float
        RBF kernel parameter, finite and ``> 0``; pass the same value to the kernel.
    n_centers : int
        Number of centres of ``f`` (``>= 2``): more centres, a more winding boundary.
    near : float
        Fraction of the points in the band next to the gap, in ``[0, 1]``.
    seed : int
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same data.

    Returns
    -------
    Dataset
        ``X`` of shape (n, d), ``y`` in {-1, +1}; ``info`` has ``rho`` (the requested
        gap), ``planted_margin`` (``min_i |g(x_i)|``, at least ``rho`` up to the
        rounding of ``g``), ``gamma``, ``centers`` and ``coef`` (the ``z_j`` and
        ``c_j``); ``kernel`` is ``"rbf"`` and ``kernel_params`` ``{"gamma": gamma}``.

    Raises
    ------
    ValueError
        For invalid parameters, when the planted function has one sign on the whole
        cube (change ``seed``), or when ``rho`` is so large that almost no point of the
        cube has ``|g| >= 2 rho`` (use a smaller ``rho``).

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted_rbf
    >>> ds = planted_rbf(60, 2, rho=0.05, gamma=2.0, seed=0)
    >>> ds.X.shape, bool(ds.info["planted_margin"] >= 0.05)
    ((60, 2), True)
    >>> G = ds.gram()  # kperc.gram_matrix(ds.X, ds.y, "rbf", gamma=2.0)
    >>> bool(kperc.margin(G) >= 0.05)  # the kernel margin is at least the gap
    True
    """
    from sklearn.metrics.pairwise import rbf_kernel

    n, d, seed = _check_n(n), _check_n(d, "d"), _check_seed(seed)
    n_centers = _check_n(n_centers, "n_centers")
    rho, near = check_finite(rho, "rho"), check_finite(near, "near")
    gamma = check_positive(gamma, "gamma")
    if n < 2 or n_centers < 2:
        raise ValueError(f"planted_rbf needs n >= 2 and n_centers >= 2; got {n}, {n_centers}.")
    if not 0 < rho < 1:
        raise ValueError(f"rho must be in (0, 1); got {rho}.")
    if not 0 <= near <= 1:
        raise ValueError(f"near must be a fraction in [0, 1]; got {near}.")
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-1.0, 1.0, (n_centers, d))
    coef = rng.choice([-1.0, 1.0], n_centers)
    fnorm = float(np.sqrt(float(coef @ rbf_kernel(centers, centers, gamma=gamma) @ coef)))

    def g(P: np.ndarray) -> np.ndarray:
        return (rbf_kernel(P, centers, gamma=gamma) @ coef) / fnorm

    n_near = int(round(near * n))
    n_far = n - n_near
    far: list[np.ndarray] = []
    got = 0
    for _ in range(_RBF_MAX_ROUNDS):  # uniform points outside the gap (rejection)
        if got >= max(n_far, 2):
            break
        P = rng.uniform(-1.0, 1.0, (max(2 * n_far, 1000), d))
        keep = P[np.abs(g(P)) >= 2 * rho]
        far.append(keep)
        got += keep.shape[0]
    else:
        raise ValueError(
            f"rho={rho:g} is too large for this planted function: hardly any point of the "
            f"cube has |g(x)| >= 2 rho (found {got} in {_RBF_MAX_ROUNDS} rounds). Use a "
            "smaller rho."
        )
    F = np.vstack(far)
    gf = g(F)
    pos, neg = F[gf > 0], F[gf < 0]
    if pos.shape[0] == 0 or neg.shape[0] == 0:
        raise ValueError(
            f"the planted function of seed={seed} has one sign on the cube; use another seed."
        )
    # near points: on a segment from a positive to a negative point, where g = +-t
    a = pos[rng.integers(0, pos.shape[0], n_near)]
    b = neg[rng.integers(0, neg.shape[0], n_near)]
    t = rng.uniform(rho * (1 + 1e-6), 2 * rho, n_near) * rng.choice([-1.0, 1.0], n_near)
    lo, hi = np.zeros(n_near), np.ones(n_near)  # g(a) - t > 0 at lo, g(b) - t < 0 at hi
    for _ in range(60 if n_near else 0):
        mid = 0.5 * (lo + hi)
        above = g(a + mid[:, None] * (b - a)) - t > 0
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    X = np.vstack([F[:n_far], a + lo[:, None] * (b - a)])
    X = X[rng.permutation(n)]
    gx = g(X)
    y = np.where(gx > 0, 1.0, -1.0)
    info = {
        "rho": float(rho),
        "planted_margin": float(np.min(np.abs(gx))),
        "gamma": float(gamma),
        "centers": centers,
        "coef": coef,
    }
    return Dataset(X, y, info, "rbf", {"gamma": float(gamma)})


def two_rays(r: float = 10.0, n_per_ray: int = 10) -> Dataset:
    """The example of Section 2.2 of the paper: two rays with norms spread over ``[1/r, r]``.

    ``+`` points on the ray through ``(0.6, 0.8)``, ``-`` points on the ray through
    ``(0.8, 0.6)``, with norms geometrically spaced from ``1/r`` to ``r``.
    Closed forms: ``rho_2 = sqrt(2)/10`` (independent of ``r``), ``rho = rho_2 / r``,
    ``R = r``, so the perceptron bound ``R^2/rho^2 = 50 r^4`` against ``1/rho_2^2 = 50``.

    Parameters
    ----------
    r : float
        Spread, ``r >= 1``.
    n_per_ray : int
        Points per ray (``>= 2``).

    Returns
    -------
    Dataset
        ``X`` of shape (2 n_per_ray, 2), ``y`` in {-1, +1}; ``info`` has ``rho2``,
        ``rho``, ``R`` and ``w_star = (-1, 1)/sqrt(2)``.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import two_rays
    >>> X, y = two_rays(r=10.0, n_per_ray=5)
    >>> X.shape, round(kperc.data_margin(X, y), 4)
    ((10, 2), 0.1414)
    """
    r, n_per_ray = check_finite(r, "r"), _check_n(n_per_ray, "n_per_ray")
    if r < 1 or n_per_ray < 2:
        raise ValueError(f"two_rays needs r >= 1 and n_per_ray >= 2; got {r}, {n_per_ray}.")
    norms = np.geomspace(1.0 / r, r, n_per_ray)
    pos = norms[:, None] * np.array([0.6, 0.8])
    neg = norms[:, None] * np.array([0.8, 0.6])
    X = np.vstack([pos, neg])
    y = np.concatenate([np.ones(n_per_ray), -np.ones(n_per_ray)])
    rho2 = np.sqrt(2.0) / 10.0
    return Dataset(
        X,
        y,
        {
            "rho2": rho2,
            "rho": rho2 / r,
            "R": float(r),
            "w_star": np.array([-1.0, 1.0]) / np.sqrt(2.0),
        },
    )


def crowded(
    n: int, rho: float, *, d: int = 5, jitter: float = 0.3, width: float = 0.2, seed: int = 0
) -> Dataset:
    """Separable points with normalised margin exactly ``rho``, crowded next to one support point.

    Two support points ``s_+- = rho e_1 +- sqrt(1 - rho^2) e_2`` have midpoint
    ``rho e_1``; the other ``n - 2`` signed points have first coordinate ``t_i`` uniform
    in ``[rho, rho (1 + width)]`` and the rest of their direction close to ``+e_2``
    (Gaussian jitter of size ``jitter`` in the remaining coordinates). Every signed point
    has ``a_i^T e_1 >= rho``, so the hull stays at distance ``rho`` from 0 and
    ``rho_2 = rho`` (Section 3 of the paper). The uniform average of the points is close
    to ``s_+``, which misclassifies ``s_-``: a method that starts from the uniform
    weights, as SNKP does, must move almost all of the mass, and the amount to move
    grows with ``n``. The two support points are stored first; in a random order the
    perceptrons need many updates (of the order of their ``1 / rho^2`` bound).

    Parameters
    ----------
    n : int
        Number of points, ``n >= 3``.
    rho : float
        Normalised margin, ``0 < rho < 1``.
    d : int
        Dimension, ``d >= 3``.
    jitter : float
        Size of the Gaussian jitter of the crowd in coordinates ``3, ..., d``
        (finite, ``>= 0``).
    width : float
        Relative width of the band of first coordinates, finite and ``> 0``.
    seed : int
        Seed: the generator is :func:`numpy.random.default_rng` of ``[4, seed, n]``.

    Returns
    -------
    Dataset
        ``X`` of shape (n, d) (signed points times labels, unit norm), ``y`` (alternating
        labels, ``+1`` first) and ``info["rho"]``.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import crowded
    >>> X, y = crowded(40, 0.05, seed=1)
    >>> X.shape, round(kperc.data_margin(X, y), 6)
    ((40, 5), 0.05)
    """
    n, d, seed = _check_n(n, low=3), _check_n(d, "d", low=3), _check_seed(seed)
    rho = check_finite(rho, "rho")
    if not 0 < rho < 1:
        raise ValueError(f"rho must be in (0, 1); got {rho}.")
    jitter = check_nonnegative(jitter, "jitter")
    width = check_positive(width, "width")
    rng = np.random.default_rng([4, seed, n])
    e = np.eye(d)
    c = np.sqrt(1.0 - rho * rho)
    m = n - 2
    t = rng.uniform(rho, rho * (1.0 + width), m)
    V = np.zeros((m, d))
    V[:, 1] = 1.0
    V[:, 2:] = jitter * rng.standard_normal((m, d - 2))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    A = np.vstack(
        [
            rho * e[0] + c * e[1],
            rho * e[0] - c * e[1],
            t[:, None] * e[0] + np.sqrt(1.0 - t * t)[:, None] * V,
        ]
    )
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    return Dataset(A * y[:, None], y, {"rho": float(rho)})


def infeasible(
    n: int = 50,
    d: int = 2,
    rho: float = -0.2,
    *,
    norm_range: tuple[float, float] = (1.0, 1.0),
    seed: int = 0,
) -> Dataset:
    """Inseparable data with a controlled negative (span-restricted) margin.

    The signed normalised points lie on the unit sphere in the cap
    ``{a : nu^T a <= |rho|}``, and ``d`` of them lie on the plane ``nu^T a = |rho|``
    around ``|rho| nu``, so that plane carries a facet of the hull at distance ``|rho|``
    from 0. In ``d = 2`` the points are placed on the circle so that this facet is the
    closest one and the margin is exactly ``rho``; in higher dimension other facets can
    be closer, and the exact margin (``info["rho"]``, via :func:`kperc.data_margin`) is
    then at most ``|rho|`` in magnitude.

    Parameters
    ----------
    n : int
        Number of points, ``n >= d + 1`` (``n >= 3`` in 2-D).
    d : int
        Dimension, ``2 <= d <= 6``.
    rho : float
        Target margin, ``-1 < rho < 0``.
    norm_range : (float, float)
        Norms ``||x_i||`` are log-uniform in this range (the normalised margin does not
        depend on them).
    seed : int
        Seed of :func:`numpy.random.default_rng`.

    Returns
    -------
    Dataset
        ``X`` of shape (n, d), ``y`` in {-1, +1}; ``info`` has ``rho`` (the margin of the
        returned data, computed by :func:`kperc.data_margin`), ``rho_bounds`` (a
        certified interval for it), ``rho_target`` and ``nu``.

    Raises
    ------
    ValueError
        For invalid parameters; when, for ``d >= 3`` and few points, the ``n - d``
        random points happen not to surround the origin (the data would be separable:
        use a larger ``n`` or another seed); and when the sign of the margin of the
        generated data cannot be certified in double precision (``|rho|`` near the
        rounding level, about ``1e-13``): the instance is refused rather than reported
        as separable or with a margin of 0.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import infeasible
    >>> X, y = infeasible(30, 2, rho=-0.2, seed=0)
    >>> X.shape, bool(kperc.margin_details(kperc.gram_matrix(X, y)).separable)
    ((30, 2), False)
    """
    from ._margins import _data_margin_details

    n, d, seed = _check_n(n), _check_n(d, "d"), _check_seed(seed)
    norm_range = _check_norm_range(norm_range)
    if not -1 < check_finite(rho, "rho") < 0:
        raise ValueError(f"rho must be in (-1, 0) for an inseparable instance; got {rho}.")
    if not 2 <= d <= 6 or n < d + 1:
        raise ValueError(f"infeasible needs 2 <= d <= 6 and n >= d + 1; got n={n}, d={d}.")
    rng = np.random.default_rng(seed)
    c = -rho
    if d == 2:
        # chord at distance c spans the arc of half-angle acos(c); fill the rest of the
        # circle with gaps smaller than that arc so that no other chord is closer.
        half = np.arccos(c)
        phi0 = rng.uniform(0, 2 * np.pi)
        rest_len = 2 * np.pi - 2 * half
        k = n - 1  # number of gaps on the rest of the circle
        k_min = int(np.ceil(rest_len / half)) + 1
        if k < k_min:
            raise ValueError(
                f"rho={rho} in 2-D needs n >= {k_min + 1} points so that the "
                "facet at distance |rho| is the closest one."
            )
        gaps = 1.0 + 0.3 * rng.uniform(-1.0, 1.0, k)  # every gap < 2 * half
        gaps *= rest_len / gaps.sum()
        inner = half + np.cumsum(gaps)[:-1]
        angles = phi0 + np.concatenate([[-half, half], inner])
        A = np.column_stack([np.cos(angles), np.sin(angles)])
        nu = np.array([np.cos(phi0), np.sin(phi0)])
    else:
        nu = _unit(rng.standard_normal(d))
        s = np.sqrt(1.0 - c * c)
        # d points on the plane nu^T a = c, around c nu (a regular simplex pattern)
        U = _orthogonal_directions(rng, nu, d)
        U -= U.mean(axis=0)
        U /= np.linalg.norm(U, axis=1, keepdims=True)
        face = c * nu + s * U
        m = n - d
        pts: list[np.ndarray] = []
        while sum(len(b) for b in pts) < m:
            g = rng.standard_normal((4 * m, d))
            g /= np.linalg.norm(g, axis=1, keepdims=True)
            pts.append(g[g @ nu <= c])
        rest = np.vstack(pts)[:m]
        A = np.vstack([face, rest])
    A = A[rng.permutation(A.shape[0])]
    X, y = _labels_and_norms(rng, A, norm_range)
    det, _ = _data_margin_details(X, y, normalize=True)
    if det.status == "separable":  # the n - d random points left the origin outside
        raise ValueError(
            f"infeasible(n={n}, d={d}, rho={rho:g}, seed={seed}): the {n - d} random "
            f"points did not surround the origin, so the data are separable (margin "
            f"{det.rho:.3g}). Use a larger n or another seed."
        )
    if det.status != "inseparable":
        raise ValueError(
            f"rho={rho:g} cannot be planted in double precision: the margin of the "
            f"generated points is only known to lie in [{det.rho_bounds[0]:.3g}, "
            f"{det.rho_bounds[1]:.3g}] (status {det.status!r}). Use a larger |rho|."
        )
    return Dataset(
        X,
        y,
        {
            "rho": float(det.rho),
            "rho_bounds": tuple(float(b) for b in det.rho_bounds),
            "rho_target": float(rho),
            "nu": nu,
        },
    )


def _pm(y: np.ndarray) -> np.ndarray:
    return np.where(np.asarray(y) > 0, 1.0, -1.0)


def circles(n: int = 200, *, noise: float = 0.05, factor: float = 0.5, seed: int = 0) -> Dataset:
    """Two concentric circles (:func:`sklearn.datasets.make_circles`); inner is ``+1``.

    Parameters
    ----------
    n : int, default=200
        Number of points, split evenly between the circles.
    noise : float, default=0.05
        Standard deviation of the Gaussian noise added to the points.
    factor : float, default=0.5
        Radius of the inner circle relative to the outer one (``0 < factor < 1``).
    seed : int, default=0
        Passed as ``random_state``; the same seed gives the same data.

    Returns
    -------
    Dataset
        ``X`` of shape (n, 2), ``y`` in {-1, +1}; ``info`` is empty.

    Examples
    --------
    >>> from kperc.datasets import circles
    >>> X, y = circles(100, seed=0)
    >>> X.shape, int((y == 1).sum())
    ((100, 2), 50)
    """
    from sklearn.datasets import make_circles

    n, seed, noise = _check_n(n, low=2), _check_seed(seed), check_nonnegative(noise, "noise")
    if not 0 < check_finite(factor, "factor") < 1:
        raise ValueError(f"factor must be in (0, 1); got {factor!r}.")
    X, y = make_circles(n_samples=n, noise=noise, factor=factor, random_state=seed)
    return Dataset(X, _pm(y), {})


def moons(n: int = 200, *, noise: float = 0.1, seed: int = 0) -> Dataset:
    """Two interleaving half-moons (:func:`sklearn.datasets.make_moons`).

    Parameters
    ----------
    n : int, default=200
        Number of points, split evenly between the moons.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise added to the points.
    seed : int, default=0
        Passed as ``random_state``; the same seed gives the same data.

    Returns
    -------
    Dataset
        ``X`` of shape (n, 2), ``y`` in {-1, +1} (``+1`` for scikit-learn's class 1);
        ``info`` is empty.

    Examples
    --------
    >>> from kperc.datasets import moons
    >>> X, y = moons(100, seed=0)
    >>> X.shape, int((y == 1).sum())
    ((100, 2), 50)
    """
    from sklearn.datasets import make_moons

    n, seed, noise = _check_n(n, low=2), _check_seed(seed), check_nonnegative(noise, "noise")
    X, y = make_moons(n_samples=n, noise=noise, random_state=seed)
    return Dataset(X, _pm(y), {})


def xor(n: int = 200, *, gap: float = 0.1, seed: int = 0) -> Dataset:
    """XOR: uniform points in ``[-1, 1]^2`` away from the axes, label ``sign(x1 x2)``.

    Parameters
    ----------
    n : int, default=200
        Number of points.
    gap : float, default=0.1
        Every coordinate has ``|x_j| >= gap``, which keeps the classes apart.
    seed : int, default=0
        Seed of :func:`numpy.random.default_rng`.

    Returns
    -------
    Dataset
        ``X`` of shape (n, 2), ``y = sign(x1 x2)``; ``info`` has ``gap``.

    Examples
    --------
    >>> import numpy as np
    >>> from kperc.datasets import xor
    >>> X, y = xor(100, seed=0)
    >>> X.shape, bool((y == np.sign(X[:, 0] * X[:, 1])).all())
    ((100, 2), True)
    """
    n, seed, gap = _check_n(n), _check_seed(seed), check_nonnegative(gap, "gap")
    if gap >= 1:
        raise ValueError(f"gap must be in [0, 1); got {gap!r}.")
    rng = np.random.default_rng(seed)
    X = rng.uniform(gap, 1.0, (n, 2)) * rng.choice([-1.0, 1.0], (n, 2))
    return Dataset(X, np.sign(X[:, 0] * X[:, 1]), {"gap": gap})


def _standardize(X: np.ndarray) -> np.ndarray:
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    return (X - X.mean(axis=0)) / sd


def breast_cancer() -> Dataset:
    """Wisconsin diagnostic breast cancer (bundled with scikit-learn), standardised.

    Each feature is centred and scaled to unit variance.

    Returns
    -------
    Dataset
        ``X`` of shape (569, 30), ``y`` in {-1, +1} (``+1`` = benign, ``-1`` =
        malignant); ``info`` names the source.

    Examples
    --------
    >>> from kperc.datasets import breast_cancer
    >>> X, y = breast_cancer()
    >>> X.shape, round(float(X.var()), 6)
    ((569, 30), 1.0)
    """
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer()
    return Dataset(_standardize(b.data), _pm(b.target), {"source": "sklearn.datasets"})


def digits(pair: tuple[int, int] = (3, 8)) -> Dataset:
    """Two classes of the 8x8 handwritten digits (bundled with scikit-learn).

    Parameters
    ----------
    pair : (int, int), default=(3, 8)
        The two digits to keep.

    Returns
    -------
    Dataset
        ``X`` of shape (n, 64), pixels scaled to ``[0, 1]``; ``y`` is ``+1`` for the
        first digit of ``pair`` and ``-1`` for the second; ``info`` has ``pair``.

    Examples
    --------
    >>> from kperc.datasets import digits
    >>> X, y = digits((3, 8))
    >>> X.shape, sorted(set(y.tolist()))
    ((357, 64), [-1.0, 1.0])
    """
    from sklearn.datasets import load_digits

    try:
        a, b = pair
    except (TypeError, ValueError):
        raise ValueError(f"pair must be two digits (a, b); got {pair!r}.") from None
    for v in (a, b):
        if (
            isinstance(v, (bool, np.bool_))
            or not isinstance(v, (int, np.integer))
            or not (0 <= v <= 9)
        ):
            raise ValueError(f"pair must hold two integers in 0..9; got {pair!r}.")
    if a == b:
        raise ValueError(f"pair must name two different digits; got {pair!r}.")
    pair = (int(a), int(b))
    dg = load_digits()
    mask = np.isin(dg.target, pair)
    X = dg.data[mask] / 16.0
    y = np.where(dg.target[mask] == pair[0], 1.0, -1.0)
    return Dataset(X, y, {"pair": list(pair), "source": "sklearn.datasets"})

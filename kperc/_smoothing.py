"""Prox-functions and smoothed minimisers over the simplex (paper Sections 4 and 6).

Two prox-functions appear in the paper:

* the entropy ``d(p) = sum_i p_i log p_i + log n``, 1-strongly convex in the l1 norm,
  whose smoothed minimiser is a softmax (eq. (12)); and
* the Euclidean ``d_q(p) = ||p - q||^2 / 2``, whose smoothed minimiser is a Euclidean
  projection onto the simplex.

Both are evaluated stably: the softmax and the log-mean-exp of the smoothed loss are
shifted by the largest exponent (log-sum-exp), so that ``mu -> 0`` never overflows, and
terms below ``exp(-EXP_FLOOR)`` (which cannot change a double sum of terms ``>= 1``) are
set to zero instead of being passed to ``exp``, so that not even an underflow is
signalled: the code runs under ``np.errstate(all="raise")``.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_positive, check_vector

__all__ = [
    "entropy",
    "entropy_prox",
    "euclidean_prox",
    "log_mean_exp",
    "project_simplex",
    "simplex_max_prox_q",
]

#: Tolerance on the simplex constraints (``p >= 0``, ``sum p = 1``) of a given point.
SIMPLEX_TOL = 1e-9

#: Shifted exponents below ``-EXP_FLOOR`` contribute exactly nothing next to ``exp(0)``.
EXP_FLOOR = 600.0


def _shifted_exp(z: np.ndarray) -> tuple[np.ndarray, float]:
    """``exp(z - max z)`` with tiny terms set to 0 (no underflow), and ``max z``."""
    zmax = float(np.max(z))
    t = z - zmax
    e = np.zeros_like(t)
    np.exp(t, out=e, where=t > -EXP_FLOOR)
    return e, zmax


def log_mean_exp(z) -> float:
    """``log(mean(exp(z)))`` evaluated stably (shifted; no overflow, no underflow).

    Parameters
    ----------
    z : array_like of shape (n,)
        Finite exponents.

    Returns
    -------
    float
    """
    z = np.asarray(z, dtype=np.float64)
    e, zmax = _shifted_exp(z)
    return float(zmax + np.log(e.sum()) - np.log(z.size))


def _check_simplex_point(p, name: str, n: int | None = None) -> np.ndarray:
    """A finite real 1-D point of the simplex (tolerance ``SIMPLEX_TOL``), not renormalised."""
    arr = check_vector(p, name, n)
    lo, total = float(arr.min()), float(arr.sum())
    if lo < -SIMPLEX_TOL or abs(total - 1.0) > SIMPLEX_TOL * max(1.0, arr.size**0.5):
        raise ValueError(
            f"{name} must lie in the simplex (entries >= 0 summing to 1); got min {lo:.3g} "
            f"and sum {total:.12g}."
        )
    return arr


def entropy(p: np.ndarray) -> float:
    """The entropy prox-function ``d(p) = sum p_i log p_i + log n`` (0 at ``1/n``).

    Parameters
    ----------
    p : ndarray of shape (n,)
        A point of the simplex: finite, entries ``>= 0`` summing to 1 (up to ``1e-9``;
        round-off negatives are treated as 0). Anything else is refused: the function is
        defined on the simplex only.

    Returns
    -------
    float
        A value in ``[0, log n]``.

    Raises
    ------
    ValueError
        If ``p`` is not a finite real 1-D point of the simplex.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> kperc.entropy(np.full(4, 0.25)), round(kperc.entropy(np.array([1.0, 0, 0, 0])), 4)
    (0.0, 1.3863)
    """
    p = _check_simplex_point(p, "p")
    pos = p[p > 0]
    return float(np.sum(pos * np.log(pos)) + np.log(p.size))


def entropy_prox(Galpha: np.ndarray, mu: float) -> np.ndarray:
    """Smoothed worst-point distribution ``p_mu(alpha)`` of eq. (12).

    ``argmin_{p in simplex} <G alpha, p> + mu d(p) = softmax(-G alpha / mu)``.

    Parameters
    ----------
    Galpha : ndarray of shape (n,)
        The vector ``G @ alpha`` (finite, real, non-empty).
    mu : float
        Smoothing parameter, finite and ``> 0``.

    Returns
    -------
    ndarray of shape (n,)
        A point of the simplex. Stable for any ``mu > 0`` (no overflow, no ``0/0``).

    Examples
    --------
    >>> import numpy as np, kperc
    >>> kperc.entropy_prox(np.array([0.0, 1.0, 2.0]), mu=1.0).round(4).tolist()
    [0.6652, 0.2447, 0.09]
    """
    Galpha = check_vector(Galpha, "Galpha")
    mu = check_positive(mu, "mu")
    with np.errstate(over="ignore"):  # -Galpha / mu = -inf or inf: handled below
        z = -Galpha / mu
    if not np.all(np.isfinite(z)):  # mu so small that the exponents overflow: the limit
        z = np.where(Galpha == Galpha.min(), 0.0, -np.inf)  # uniform on the minimisers
    e, _ = _shifted_exp(z)
    return e / e.sum()


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of ``v`` onto the probability simplex.

    Uses the sort-based rule: ``max(v - tau, 0)`` with ``tau`` chosen so that the result
    sums to one (paper Section 6). The projection does not change when a constant is
    added to every entry; when the largest entry exceeds 1 in magnitude, the rule is
    applied to ``v - max(v)``, whose largest entry is 0 (the entries within a factor 2 of
    the largest are shifted exactly), so that the rounding of ``v - tau`` stays relative
    to 1 rather than to ``|v|`` (unshifted, entries of 3e9 gave a sum off by 1e-6). The
    result is in the simplex to rounding: entries ``>= 0`` summing to ``1`` within
    ``n`` units of round-off.

    Parameters
    ----------
    v : ndarray of shape (n,)
        Finite, real, non-empty.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np, kperc
    >>> kperc.project_simplex(np.array([0.5, 1.0, -1.0])).tolist()
    [0.25, 0.75, 0.0]
    """
    v = check_vector(v, "v")
    top = float(v.max())
    out = _project_sorted(v - top) if abs(top) > 1.0 else _project_sorted(v)
    if out is None:  # pragma: no cover - the shifted rule always qualifies its top entry
        out = _project_sorted(v - top)
        assert out is not None  # its top entry is 0 > -1, so the rule qualifies it
    total = float(out.sum())
    if abs(total - 1.0) > 4 * v.size * np.finfo(np.float64).eps:
        out /= total
    return out


def _project_sorted(v: np.ndarray) -> np.ndarray | None:
    """The sort-based rule; ``None`` if no index qualifies (1 lost next to huge entries)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    idx = np.arange(1, v.size + 1)
    cond = u - css / idx > 0
    if not cond.any():
        return None
    r = idx[cond][-1]
    tau = css[r - 1] / r
    return np.maximum(v - tau, 0.0)


def euclidean_prox(Galpha: np.ndarray, mu: float, q: np.ndarray) -> np.ndarray:
    """Smoothed minimiser ``p^q_mu(alpha) = Proj_simplex(q - G alpha / mu)`` (Section 6).

    Parameters
    ----------
    Galpha : ndarray of shape (n,)
        The vector ``G @ alpha`` (finite, real).
    mu : float
        Smoothing parameter, finite and ``> 0``.
    q : ndarray of shape (n,)
        Prox centre, a point of the simplex.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np, kperc
    >>> q = np.full(3, 1 / 3)
    >>> kperc.euclidean_prox(np.array([0.0, 1.0, 2.0]), mu=2.0, q=q).round(4).tolist()
    [0.75, 0.25, 0.0]
    """
    Galpha = check_vector(Galpha, "Galpha")
    q = _check_simplex_point(q, "q", Galpha.size)
    mu = check_positive(mu, "mu")
    with np.errstate(over="ignore"):
        v = q - Galpha / mu
    if not np.all(np.isfinite(v)):
        # mu so small that Galpha / mu overflows. The limit as mu -> 0 is the projection
        # of q restricted to the minimisers T of Galpha (the other entries fall by
        # (Galpha_i - min) / mu -> inf, and -2 is already below any threshold tau >= -1).
        v = np.where(Galpha == Galpha.min(), q, -2.0)
    return project_simplex(v)


def simplex_max_prox_q(q: np.ndarray) -> float:
    """``max_{p in simplex} ||p - q||^2 / 2 = (1 + ||q||^2 - 2 min_i q_i) / 2 <= 1``."""
    q = np.asarray(q, dtype=np.float64)
    return 0.5 * (1.0 + float(q @ q) - 2.0 * float(q.min()))

"""RBF kernel values that stay accurate at any ``gamma``, with a bound on their error.

scikit-learn computes ``exp(-gamma ||x - z||^2)`` from ``||x||^2 + ||z||^2 - 2 x.z``. That
sum cancels when ``x`` and ``z`` are close compared with their norms: its error is about
``d u (||x||^2 + ||z||^2)`` (``u = 2^-53``), and ``gamma`` multiplies it in the exponent.
At ``gamma = 1e16`` the kernel of a point with itself comes out as ``2e-8`` instead of 1.
:func:`rbf_values` computes the same expansion (one matrix product, as fast as
scikit-learn, with the same result whenever it is accurate), bounds its error entry by
entry, and recomputes from the differences ``x - z`` the entries where that bound exceeds
:data:`REPAIR_TOL` and the value may not underflow to 0.

This module imports nothing from kperc, so every module that evaluates the RBF kernel
can use it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["REPAIR_TOL", "RbfBound", "rbf_values", "rbf_values_affine", "rbf_values_bounded"]

_U = np.finfo(np.float64).eps / 2  # unit round-off
_TINY = 2.0**-1074  # smallest subnormal

REPAIR_TOL = 2.0**-40
"""An entry is recomputed from differences when the expansion's error bound on its
exponent ``gamma ||x - z||^2`` exceeds this (a relative error of about 1e-12 in the
value). Ordinary data (``gamma ||x||^2`` up to about 100 in tens of dimensions) stay
below it and keep scikit-learn's values."""

#: ``exp(-t)`` rounds to 0 in float64 for every ``t`` at or beyond this.
_T_ZERO = 746.0

_PAIR_BLOCK = 1 << 16
"""Pairs recomputed from differences at a time (memory ``O(_PAIR_BLOCK * d)``)."""


def _pow2_exponent(amax: float) -> int:
    """``e`` with ``amax / 2^e`` in ``[0.5, 1)`` (0 for ``amax = 0``)."""
    return int(np.frexp(amax)[1]) if amax > 0 else 0


def rbf_values(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    """``K_ij = exp(-gamma ||a_i - b_j||^2)`` for finite float64 ``A`` and ``B`` (see
    :func:`rbf_values_bounded`)."""
    return _rbf(A, B, gamma, error=False)[0]


def rbf_values_bounded(A: np.ndarray, B: np.ndarray, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """``K_ij = exp(-gamma ||a_i - b_j||^2)`` for finite float64 ``A`` and ``B``, and a bound
    ``err`` with ``|K_ij - exp(-gamma ||a_i - b_j||^2)| <= err_ij``.

    Every entry has relative error at most about ``REPAIR_TOL`` (``2^-40``), or, when it
    was recomputed from differences, ``(d + 8) u gamma ||a_i - b_j||^2 + 4 u``: the
    conditioning of ``exp`` itself. Data of any scale is handled (the points are divided
    by a common power of two, exactly, before squaring).

    Parameters
    ----------
    A : ndarray of shape (p, d)
    B : ndarray of shape (m, d)
    gamma : float
        Positive and finite.

    Returns
    -------
    K : ndarray of shape (p, m)
    err : ndarray of shape (p, m)
    """
    K, err = _rbf(A, B, gamma, error=True)
    assert err is not None
    return K, err


class RbfBound(NamedTuple):
    """Kernel values ``K`` with ``|K_ij - exp(-gamma ||a_i - b_j||^2)| <= absolute +
    relative K_ij + (err_ij if err is not None else 0)`` (see :func:`rbf_values_affine`)."""

    K: np.ndarray
    absolute: float
    relative: float
    err: np.ndarray | None


def rbf_values_affine(
    A: np.ndarray, B: np.ndarray, gamma: float, repair_tol: float = REPAIR_TOL
) -> RbfBound:
    """The values of :func:`rbf_values_bounded` with a cheaper bound on their error:
    ``absolute + relative K_ij`` (two numbers) where the expansion is kept for every
    entry, the entrywise bound ``err`` (and ``absolute = relative = 0``) otherwise.

    Where the expansion is kept, the exponent ``t~`` of ``K~ = exp(-t~)`` (rounded) is off
    by ``dt <= 2 u t~ + gE`` with ``gE <= gE_max <= REPAIR_TOL`` (the largest entry of the
    expansion's bound), and :func:`rbf_values_bounded`'s bound is
    ``K~ (expm1(dt) (1 + 4u) + 4u) + 2^-1073``. For ``K~ > 0``, ``t~ <= 746``, so
    ``dt < 10^-12`` and ``expm1(dt) <= dt (1 + 10^-12)``; and ``K~ t~ <= (1 + 2u) / e``
    (``t e^-t <= 1 / e``). Hence the bound is at most
    ``0.75 u + 2^-1073 + (1.01 gE_max + 4.1 u) K~``, computed without an ``n x m`` pass.
    ``repair_tol`` replaces :data:`REPAIR_TOL` (a caller content with a larger bound
    keeps more of scikit-learn's values, and their speed).

    Examples
    --------
    >>> import numpy as np
    >>> b = rbf_values_affine(np.array([[0.0], [1.0]]), np.array([[0.0]]), 0.5)
    >>> b.K.ravel().round(6).tolist(), b.err is None, b.relative < 1e-12
    ([1.0, 0.606531], True, True)
    """
    K, ge_max = _rbf(A, B, gamma, error=False, want_ge=True, repair_tol=repair_tol)
    if ge_max is not None:
        return RbfBound(K, float(0.75 * _U + 2 * _TINY), float(1.01 * ge_max + 4.1 * _U), None)
    K, err = _rbf(A, B, gamma, error=True, repair_tol=repair_tol)
    assert err is not None
    return RbfBound(K, 0.0, 0.0, err)


def _rbf(
    A: np.ndarray,
    B: np.ndarray,
    gamma: float,
    *,
    error: bool,
    want_ge: bool = False,
    repair_tol: float = REPAIR_TOL,
) -> tuple[np.ndarray, np.ndarray | None]:
    p, d = A.shape
    m = B.shape[0]
    amax = max(float(np.max(np.abs(A), initial=0.0)), float(np.max(np.abs(B), initial=0.0)))
    if amax == 0.0:  # all points at the origin: every distance is exactly 0
        if want_ge:
            return np.ones((p, m)), np.array(0.0)
        return np.ones((p, m)), (np.zeros((p, m)) if error else None)
    e = _pow2_exponent(amax)
    if -100 <= e <= 100:  # no over- or underflow in the squares: no scaling (exact anyway)
        As, Bs, g = A, B, float(gamma)
    else:
        As, Bs = np.ldexp(A, -e), np.ldexp(B, -e)
        with np.errstate(over="ignore", under="ignore"):
            g = float(np.ldexp(float(gamma), 2 * e))  # gamma s^2: may be inf or 0
    sa = np.einsum("ij,ij->i", As, As)
    sb = np.einsum("ij,ij->i", Bs, Bs)
    # scikit-learn's expansion, operation for operation (so its values are kept)
    D2 = -2 * (As @ Bs.T)
    D2 += sa[:, None]
    D2 += sb[None, :]
    np.maximum(D2, 0.0, out=D2)
    # |D2~ - D2| <= (2d + 8) u (||a||^2 + ||b||^2), plus squares lost to underflow
    c = (2 * d + 8) * _U
    tiny = 4 * (d + 2) * _TINY
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        ge_max = g * (c * (float(sa.max()) + float(sb.max())) + tiny)
    if ge_max <= repair_tol:  # the usual case: scikit-learn's values, in place
        T = D2
        T *= -g  # in place, as scikit-learn: K = exp(-g D2)
        if not error:
            return np.exp(T, out=T), (np.array(ge_max) if want_ge else None)
        K = np.exp(T)
        np.negative(T, out=T)
        # exponent error: the expansion's (g E) and the product's rounding (u t)
        T *= 2 * _U
        T += g * (c * (sa[:, None] + sb[None, :]) + tiny)
        return K, _value_error(K, T)
    if want_ge:  # the caller asks again for the entrywise bound
        return D2, None
    E = c * (sa[:, None] + sb[None, :]) + tiny
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        gE = g * E
        t = np.where(D2 > 0, g * D2, 0.0)
        K = np.exp(-t)
        tlow = np.where(D2 > E, g * (D2 - E), 0.0)  # a lower bound on the true exponent
    coarse = gE > repair_tol
    dt = np.where(coarse, 0.0, gE + 2 * _U * t)  # exponent error where the expansion is kept
    K[coarse & (tlow >= _T_ZERO)] = 0.0  # the true value underflows to 0 too
    i, j = np.nonzero(coarse & (tlow < _T_ZERO))
    for k0 in range(0, i.size, _PAIR_BLOCK):
        ii, jj = i[k0 : k0 + _PAIR_BLOCK], j[k0 : k0 + _PAIR_BLOCK]
        tt = _exponent_from_differences(As[ii], Bs[jj], g)
        K[ii, jj] = np.exp(-tt)
        dt[ii, jj] = (d + 8) * _U * tt
    return K, (_value_error(K, dt) if error else None)


def _value_error(K: np.ndarray, dt: np.ndarray) -> np.ndarray:
    """A bound on ``|K~ - exp(-t)|`` when ``K~`` is ``exp(-t~)`` rounded and ``|t~ - t| <=
    dt``: ``exp(-t~)`` is within ``expm1(dt)`` of ``exp(-t)``, relatively, and ``exp``
    rounds within ``2u``; plus a subnormal for a value flushed to 0. At most 1."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        err = K * (np.expm1(dt) * (1 + 4 * _U) + 4 * _U) + 2 * _TINY
    err[~np.isfinite(err)] = 1.0
    return np.minimum(err, 1.0)


def _exponent_from_differences(A: np.ndarray, B: np.ndarray, g: float) -> np.ndarray:
    """``g ||a_k - b_k||^2`` row by row, from the differences scaled by their own power of
    two (no square over- or underflows); relative error at most ``(d + 6) u``."""
    diff = A - B  # exact sign, relative error u per entry
    dmax = np.max(np.abs(diff), axis=1)
    ed = np.frexp(np.where(dmax > 0, dmax, 1.0))[1]
    q = np.einsum("ij,ij->i", *(2 * (np.ldexp(diff, -ed[:, None]),)))
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        t = np.ldexp(g * q, 2 * ed)  # g (q 4^ed): inf is right (exp(-inf) = 0)
    return np.where(dmax > 0, t, 0.0)

"""Signs of dot products decided in floating point, with rigorous error bounds.

The margin certificates of :mod:`kperc._margins` need the sign of ``a_i^T w`` (or of
``(G p)_i``) when that value is far below the rounding error of an ordinary dot
product. Error-free transformations settle it: :func:`two_prod` (Dekker's splitting)
writes ``a b`` exactly as ``p + e`` and :func:`two_sum` (Knuth) writes ``a + b`` exactly
as ``s + e``, so a dot product is accumulated as in twice the working precision
(Ogita, Rump and Oishi, *Accurate sum and dot product*, SIAM J. Sci. Comput. 2005,
algorithm Dot2), with the bound

    ``|res - x^T y| <= u |x^T y| + gamma_n^2 |x|^T |y|``,  ``gamma_n = n u / (1 - n u)``,

``u = 2^-53``, valid without underflow; each underflowed partial product adds at most
``2^-1074`` per term, which :func:`dot2_rows` adds to the bound. Inputs are expected
below ``2^995`` in magnitude (Dekker's splitting overflows above); callers scale by
powers of two first, which is exact.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

U = 2.0**-53
ETA = 2.0**-1074  # smallest subnormal: the absolute error of an underflowed product
_SPLIT = 2.0**27 + 1.0
#: Largest magnitude at which Dekker's splitting cannot overflow.
SPLIT_MAX = 2.0**995


def two_sum(a, b):
    """``s + e == a + b`` exactly, ``s = fl(a + b)`` (no overflow assumed)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def _split(a):
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a, b):
    """``p + e == a b`` exactly, ``p = fl(a b)``, unless the product underflows."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = al * bl - (((p - ah * bh) - al * bh) - ah * bl)
    return p, e


def dot2_rows(M: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``M v`` as if in twice the working precision, and a bound on each entry's error.

    Parameters
    ----------
    M : ndarray of shape (m, k)
    v : ndarray of shape (k,)
        Entries below :data:`SPLIT_MAX` in magnitude (not checked: private helper).

    Returns
    -------
    res, err : ndarray of shape (m,)
        ``|res_i - (M v)_i| <= err_i`` for the exact product of the given floats.
    """
    m, k = M.shape
    p, s = two_prod(M[:, 0], v[0])
    for j in range(1, k):
        h, r = two_prod(M[:, j], v[j])
        p, q = two_sum(p, h)
        s = s + (q + r)
    res = p + s
    gamma = k * U / (1.0 - k * U)
    absdot = np.abs(M) @ np.abs(v)
    err = (U * np.abs(res) + gamma * gamma * absdot) * (1.0 + 4 * U) + 4.0 * (k + 1) * ETA
    # res's own error is u |exact|, and |exact| <= |res| + err: one more factor (1 + 2u)
    err = err * (1.0 + 2 * U) + 2 * U * err
    return res, err


def exactly_zero(M: np.ndarray, v: np.ndarray) -> bool:
    """Whether ``M v == 0`` in exact arithmetic.

    Each product is split exactly into two floats and each row summed with
    :func:`math.fsum` (correctly rounded: zero exactly when the exact sum is). A row in
    which some product of nonzero factors is below ``2^-960`` (where the splitting is no
    longer exact: ``0.5 * 5e-324`` rounds to 0) is summed in rational arithmetic instead.
    """
    v = np.asarray(v, dtype=np.float64)
    nonzero = v != 0
    av = np.abs(v)
    for row in np.asarray(M):
        with np.errstate(under="ignore"):
            tiny = (row != 0) & nonzero & (np.abs(row) * av < 2.0**-960)
        if tiny.any():
            if _fraction_dot(row, v) != 0:
                return False
            continue
        h, r = two_prod(row, v)
        if math.fsum(np.concatenate([h, r]).tolist()) != 0.0:
            return False
    return True


def _fraction_dot(a: np.ndarray, b: np.ndarray) -> Fraction:
    """``a^T b`` in rational arithmetic (exact), over the nonzero products."""
    idx = np.flatnonzero((a != 0) & (b != 0))
    return sum((Fraction(float(a[i])) * Fraction(float(b[i])) for i in idx), Fraction(0))


def lossless_row_shifts(A: np.ndarray) -> np.ndarray:
    """Exponents ``k_i`` with ``A_i * 2^-k_i`` exact, its largest entry in [0.5, 1) where
    that loses no bit.

    Scaling up is always exact (the largest entry lands in [0.5, 1): no overflow);
    scaling down drops the last bits of small entries once they fall below ``2^-1074``
    (``0.5 * 5e-324`` rounds to 0), so a row is scaled down only as far as its smallest
    nonzero entry allows: a value ``m 2^f`` (``m`` in [1/2, 1)) keeps its last bit
    ``2^(f - 53)`` under ``2^-k`` iff ``k <= f + 1021``. A row whose entries span more
    than the exponent range keeps a large entry (up to the largest double).
    """
    absA = np.abs(A)
    amax = np.max(absA, axis=1)
    e = np.frexp(np.where(amax > 0, amax, 1.0))[1].astype(np.int64)
    if not np.any(e > 0):
        return e
    nonzero = absA > 0
    f = np.frexp(np.where(nonzero, absA, 1.0))[1].astype(np.int64)
    fmin = np.min(np.where(nonzero, f, 10**6), axis=1)
    return np.where(e > 0, np.minimum(e, np.maximum(fmin + 1021, 0)), e)


def scale_rows_exactly(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``A_i * 2^-k_i`` with the ``k_i`` of :func:`lossless_row_shifts`, and the ``k_i``;
    the exactness is checked (scaling back gives every entry of ``A`` again)."""
    k = lossless_row_shifts(A)
    As = np.ldexp(A, -k[:, None])
    if not np.array_equal(np.ldexp(As, k[:, None]), A):  # pragma: no cover - by construction
        raise AssertionError("a power-of-two scaling of the rows was not exact")
    return As, k


def fraction_row_dots(A: np.ndarray, w: np.ndarray, rows) -> list[Fraction]:
    """``A_i . w`` in exact rational arithmetic, for each row index in ``rows``."""
    nz = np.flatnonzero(w)
    wf = [Fraction(float(w[j])) for j in nz]
    out = []
    for i in rows:
        row = A[i, nz]
        out.append(
            sum((Fraction(float(a)) * b for a, b in zip(row, wf, strict=True) if a), Fraction(0))
        )
    return out


#: :func:`exact_rank_at_most` gives up (answers False) above this many entries.
EXACT_RANK_MAX_ENTRIES = 200_000


def exact_rank_at_most(M: np.ndarray, k: int) -> bool:
    """Whether the rank of ``M`` (finite doubles, taken as exact rationals) is at most
    ``k``; False also when ``M`` has more than :data:`EXACT_RANK_MAX_ENTRIES` entries.

    Fraction-free Gaussian elimination (Bareiss) in Python integers, after one power of
    two makes every entry an integer; it stops at the ``(k + 1)``-th pivot, so data of
    full rank are answered after ``k + 1`` elimination steps.
    """
    M = np.asarray(M, dtype=np.float64)
    if M.size > EXACT_RANK_MAX_ENTRIES:
        return False
    f, e = np.frexp(M)
    m = np.ldexp(f, 53).astype(np.int64)  # exact: |f| < 1 has at most 53 bits
    nz = m != 0
    if not nz.any():
        return True
    t = np.where(nz, e.astype(np.int64) - 53, 0)
    t = t - int(t[nz].min())
    rows = [
        [int(a) << int(b) if a else 0 for a, b in zip(mr, tr, strict=True)]
        for mr, tr in zip(m.tolist(), t.tolist(), strict=True)
    ]
    d = M.shape[1]
    rank, prev = 0, 1
    for c in range(d):
        piv = next((r for r in range(rank, len(rows)) if rows[r][c] != 0), None)
        if piv is None:
            continue
        if rank == k:
            return False
        rows[rank], rows[piv] = rows[piv], rows[rank]
        top = rows[rank]
        for r in range(rank + 1, len(rows)):
            cur = rows[r]
            g = cur[c]
            rows[r] = [(top[c] * cur[j] - g * top[j]) // prev for j in range(d)]
        prev = top[c]
        rank += 1
    return rank <= k

"""The tie rule of every "most violated point" choice, stated once.

Several algorithms pick ``j = argmin_i m_i`` over maintained margins ``m`` (the
Perceptron family, NKP, Von Neumann, Winnow). When two margins are equal in exact
arithmetic, the computed values differ only by rounding, and which of them is smaller
depends on the BLAS kernel, the thread count and the order of the sums: a plain
``argmin`` would then give different runs on different machines.

The rule used instead: margins within ``TIE_RTOL * scale`` of the smallest one count as
tied, and the first index among them wins. ``scale`` bounds the size of the margins
(for example ``||u|| max_i ||z_i||``), so the width of a tie is relative to the numbers
compared. ``TIE_RTOL = 2**-26`` (the square root of the unit round-off) is far above the
rounding of any maintained margin in the runs this library makes (at most about
``k * n * 2**-53`` relative after ``k`` updates) and far below the gaps between margins
that are really different. A choice can still differ between machines only when two
exact margins differ by almost exactly ``TIE_RTOL * scale``.

Every bound of the paper's Perceptron-type methods holds for *any* violated point, so
the rule changes no guarantee; for the Von Neumann steps it perturbs the chosen margin
by at most ``TIE_RTOL * scale``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TIE_RTOL", "first_min_index"]

#: Relative width of a tie (the square root of the unit round-off of float64).
TIE_RTOL = 2.0**-26


def first_min_index(m: np.ndarray, scale: float, j: int | None = None) -> int:
    """Index of the smallest entry of ``m``, ties (within ``TIE_RTOL * scale``) to the first.

    Parameters
    ----------
    m : ndarray of shape (n,)
        Margins (finite).
    scale : float
        A bound on the size of the entries of ``m`` (``>= 0``); the width of a tie is
        ``TIE_RTOL * scale``.
    j : int, optional
        ``argmin(m)`` if the caller already has it (saves a pass over ``m``).

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from kperc._ties import first_min_index
    >>> first_min_index(np.array([0.5, -1.0 + 1e-17, -1.0]), scale=1.0)
    1
    >>> first_min_index(np.array([0.5, -1.0 + 1e-3, -1.0]), scale=1.0)
    2
    """
    if j is None:
        j = int(np.argmin(m))
    if j == 0:
        return 0
    head = m[:j] <= m[j] + TIE_RTOL * scale
    return int(np.argmax(head)) if head.any() else j

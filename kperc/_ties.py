"""The tie rule of every "most violated point" choice, with widths derived from rounding.

Several algorithms pick ``j = argmin_i m_i`` over maintained margins ``m`` (the
Perceptron family, NKP, Von Neumann, Winnow). The paper's algorithms compare the exact
margins. The computed ones carry rounding error, so when two exact margins are equal, or
nearly so, which computed value is smaller can depend on the order of the sums (the BLAS
kernel, the thread count): a plain ``argmin`` would then give different runs on
different machines, and runs that leave the exact algorithm's path.

**The rule.** Each loop keeps a bound ``E`` on ``|m_i - m*_i|`` for every ``i``, where
``m*`` are the exact margins of its current iterate on the exact data (see below). With
``j`` the computed argmin, an earlier index ``l < j`` with ``m_l <= m_j + 2 E`` cannot be
told from ``j`` by the computed values: the exact gap ``m*_l - m*_j`` lies somewhere in
``[-2E, 4E]``. Such margins count as tied and the first index wins, as the paper's
``argmin`` (first index on exact ties) does. Hence:

* an exact tie is always seen as a tie, so the first index is chosen on every machine;
* an exact gap above ``4 E`` is never taken for a tie, so the choice is the exact one;
* the run can leave the exact path, or differ between machines, only where two exact
  margins differ by at most ``4 E``, and ``E`` is a few units of round-off times the
  size of the sums (below).

**The bound.** ``u = 2^-53`` is the unit round-off and ``gamma_m = m u / (1 - m u)``
(Higham, *Accuracy and Stability of Numerical Algorithms*, Sec. 3.1): a sum or dot
product of ``m`` terms computed in any order is off by at most ``gamma_m`` times the sum
of the absolute values of its terms, and ``gamma_a + gamma_b + gamma_a gamma_b <=
gamma_{a+b}``. Each loop updates ``m`` by adding one term per point per update:

* *Added terms.* Update ``s`` adds ``t_i`` (a column of ``G``, ``z_i^T z_j``, ...)
  whose computed value is off from the exact one by at most ``gamma_r T``, where ``T``
  bounds ``|t_i|`` and ``r`` counts the roundings that produced it: ``d`` for a dot
  product of ``d`` features, ``3 d + 8`` when the points were also normalised (each
  normalised row is off by ``gamma_{d+4}``), and for a given ``G`` the number of terms
  of its products (the ``rounding_terms`` of the wrapped Gram matrix: ``n`` for a dense
  ``G``, ``n + d + 2`` for a factored one). The bound for a dense ``G`` thus takes its
  entries within ``gamma_n`` of the exact kernel values, which holds when they come
  from data with ``3 d + 8 <= n`` features (linear kernel) by any BLAS; ``|G*_ij| <= 1``
  since the exact ``G*`` is positive semidefinite with unit diagonal. For a ``G`` whose
  entries are less accurate, ties can be missed by at most their error.
* *The running sum.* The addition ``m_i + t_i`` rounds by at most ``u`` times the new
  value, and the new exact value is bounded by Cauchy-Schwarz, ``|a_i^T w| <= ||a_i||
  ||w||``: by ``||u_s||_G`` for NKP (``u_s`` the update counts), by ``c ||u_s||`` for the
  Perceptrons (``c`` the largest row norm), by ``||w_s||`` for Von Neumann. The loops
  know these norms (they compute them anyway), so they add them up as they go.

For ``k`` updates by plain sums (NKP and the Perceptrons), with ``S_k`` the sum of the
``k`` bounds on the running values,

    ``E_k <= (1 + gamma_k) (k gamma_r T + u S_k)``          (:func:`summed_error`),

the factor ``1 + gamma_k`` covering the error carried into each later rounding. Von
Neumann's step ``m <- (1 - theta) m + theta t`` multiplies, adds and rounds the product
``theta t``: it adds at most ``4 u (B + theta T) + theta gamma_r T`` to the bound, plus
``2 u`` for the rounding of the iterate ``p`` itself (its exact margins are the target),
on top of the bound of the first, fresh product (``gamma`` of its number of terms). Winnow
computes ``B v`` afresh each time: ``E = gamma_{2d+3}`` (``2 d`` terms, rows of
``l_inf`` norm 1 rounded once, ``||v||_1 = 1``).

Relative to the size of the margins (``||u_k||`` or ``||u_k||_G``), the bound is about
``k u`` plus ``gamma_r T`` over the normalised margin: after ``10^5`` updates about
``10^-11``, and a few units of round-off at the start of a run. That is far below the
fixed ``2^-26`` (``1.5e-8``) of the scale that kperc used before, which took real gaps of
``4e-6`` for ties (NKP on breast cancer).

Every bound of the paper's Perceptron-type methods holds for *any* violated point, so
the rule changes no guarantee; for Von Neumann it changes the chosen margin by at most
``4 E``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "U",
    "gamma",
    "summed_error",
    "first_min_index",
    "GramSumBound",
    "step_error",
]

#: Unit round-off of float64.
U = float(np.finfo(np.float64).eps) / 2


def gamma(m: float) -> float:
    """``gamma_m = m u / (1 - m u)``: relative error bound of ``m`` roundings.

    Examples
    --------
    >>> from kperc._ties import U, gamma
    >>> gamma(0) == 0.0 and U < gamma(1) < 1.0000001 * U
    True
    """
    mu = m * U
    return mu / (1.0 - mu) if mu < 0.5 else float("inf")


def summed_error(k: int, term_error: float, running: float) -> float:
    """Bound on the error of margins summed by ``k`` updates (module docstring).

    Parameters
    ----------
    k : int
        Number of updates summed so far.
    term_error : float
        Bound on the error of each added term (``gamma_r T``).
    running : float
        Sum over the ``k`` updates of a bound on the exact margins after each update.

    Returns
    -------
    float
        ``(1 + gamma_k) (k term_error + u running)``.

    Examples
    --------
    >>> from kperc._ties import U, summed_error
    >>> summed_error(0, 1.0, 0.0)
    0.0
    >>> round(summed_error(10, 0.0, 10.0) / U, 6)  # ten sums of values up to 1
    10.0
    """
    return (1.0 + gamma(k)) * (k * term_error + U * running)


def first_min_index(m: np.ndarray, err: float, j: int | None = None) -> int:
    """Index of the smallest entry of ``m``, ties within rounding going to the first.

    Parameters
    ----------
    m : ndarray of shape (n,)
        Computed margins (finite).
    err : float
        A bound on ``|m_i - m*_i|`` for every ``i``, ``m*`` the exact margins
        (``>= 0``). An earlier entry within ``2 err`` of the smallest counts as tied.
    j : int, optional
        ``argmin(m)`` if the caller already has it (saves a pass over ``m``).

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from kperc._ties import U, first_min_index
    >>> first_min_index(np.array([0.5, -1.0 + 2 * U, -1.0]), err=U)  # rounding cannot tell
    1
    >>> first_min_index(np.array([0.5, -1.0 + 1e-9, -1.0]), err=U)  # a real gap
    2
    """
    if j is None:
        j = int(np.argmin(m))
    if j == 0:
        return 0
    head = m[:j] <= m[j] + 2.0 * err
    return int(np.argmax(head)) if head.any() else j


class GramSumBound:
    """The bound ``E_k`` of NKP's margins ``g = G u`` (module docstring), kept as it runs.

    ``G`` is taken within ``gamma_r`` of a positive semidefinite ``G*`` with unit
    diagonal (``r`` the ``rounding_terms`` of the Gram matrix), so each added ``G_ij`` is
    within ``gamma_r`` of ``G*_ij`` and ``|G*_ij| <= 1``. The exact margins satisfy
    ``|(G* u)_i| <= ||u||_{G*}`` (Cauchy-Schwarz), bounded by the maintained
    ``sq = ||u||_G^2`` plus a bound ``dsq`` on its own error; and by ``k``.

    Examples
    --------
    >>> from kperc._ties import U, GramSumBound
    >>> b = GramSumBound(rounding_terms=4)
    >>> b.err(0, 0.0)
    0.0
    >>> b.update(0.0, 1.0, 1.0)  # the first update: sq = 1
    >>> 5 * U < b.err(1, 1.0) < 6 * U  # gamma_4 for the column, u for the sum
    True
    """

    __slots__ = ("gamma_r", "running", "dsq", "e")

    def __init__(self, rounding_terms: int):
        self.gamma_r = gamma(rounding_terms)
        self.running = 0.0  # sum over the updates of a bound on |(G* u)_i|
        self.dsq = 0.0  # bound on |sq - u^T G* u|
        self.e = 0.0  # the current E_k

    def err(self, k: int, sq: float) -> float:
        """``E_k`` after ``k`` updates, ``sq`` the maintained ``||u_k||_G^2``; once per ``k``."""
        if k:
            self.running += min(k, np.sqrt(max(sq, 0.0) + self.dsq))
            self.e = summed_error(k, self.gamma_r, self.running)
        return self.e

    def update(self, gj: float, gjj: float, sq: float) -> None:
        """Account for ``sq <- sq + 2 g_j + G_jj`` (``sq`` the new value).

        The exact value changes by ``2 (G* u)_j + 1``: the error of ``g_j``, that of
        ``G_jj`` and two roundings.
        """
        self.dsq += (
            2.0 * self.e
            + abs(gjj - 1.0)
            + self.gamma_r
            + 2.0 * U * (2.0 * abs(gj) + abs(gjj) + abs(sq))
        )


def step_error(acc: float, theta: float, s: float, floor: float, term_error: float) -> float:
    """``acc`` plus the rounding of one step ``m <- (1 - theta) m + theta t`` (Von Neumann).

    ``|exact m_i| <= ||w||``, bounded by ``sqrt(s) + floor`` (``floor`` covers the error
    of the computed ``s = ||w||^2``) and by 1; ``|t_i| <= 1``, computed within
    ``term_error``. Four roundings (``1 - theta``, two products, the sum), each within
    ``u`` of its value; and the step of the iterate ``p`` itself rounds, which moves the
    exact margins ``G* p`` by at most ``2 u ||p||_1 max |G*_ij| = 2 u``. The bound after
    ``k`` steps is ``(1 + gamma_{2k}) (E_0 + acc)``, with ``E_0`` that of the first, fresh
    product.

    Examples
    --------
    >>> from kperc._ties import U, step_error
    >>> step_error(0.0, 0.5, 0.25, 0.0, 0.0) / U  # ||w|| = 0.5, theta = 0.5
    6.0
    """
    b = min(1.0, float(np.sqrt(max(s, 0.0))) + floor)
    return acc + U * (4.0 * (b + theta) + 2.0) + theta * term_error

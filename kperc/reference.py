"""The kernel algorithms written for reading: NKP, SNKP, NVN and SNKPVN in plain numpy.

The functions of ``kperc`` (:func:`kperc.snkp` and the others) are written for speed:
their loops update preallocated arrays in place, keep scaled iterates and column caches,
and certify their exit tests against rounding. The functions here are the same
iterations as the paper states them (Algorithms 3, 4, 5 and 6), in its notation, one
line per line of the algorithm. They are the yardstick of the fast loops: the library's
tests check that :func:`kperc.nkp`, :func:`kperc.snkp` and :func:`kperc.snkpvn` compute
exactly these iterates, bit for bit, and :func:`kperc.nvn` the same steps up to
round-off (it keeps its iterate scaled).

Each function runs exactly ``n_iter`` iterations and returns the last iterates: the
exit tests (``G alpha_k > 0``, a small ``||p_k||_G``) are left to the reader, who can
apply them to what is returned. ``G`` is the normalised signed Gram matrix
(:func:`kperc.gram_matrix`); the functions use it only through ``G.shape``, the
products ``G @ v`` and the columns ``G[:, j]``, so any object that offers these works
as well.
"""

from __future__ import annotations

import numpy as np

from ._smoothing import entropy_prox, euclidean_prox
from ._ties import GramSumBound, first_min_index, gamma, step_error
from ._typing import ArrayLike
from ._validation import check_simplex

__all__ = ["nkp", "snkp", "nvn", "snkpvn"]


def _check_n_iter(n_iter: int) -> int:
    if isinstance(n_iter, bool) or not isinstance(n_iter, int | np.integer) or n_iter < 0:
        raise ValueError(f"n_iter must be a non-negative integer; got {n_iter!r}.")
    return int(n_iter)


def nkp(G: np.ndarray, n_iter: int) -> tuple[np.ndarray, list[int]]:
    """Algorithm 3, the Normalised Kernel Perceptron, run for ``n_iter`` updates.

    ::

        alpha_0 = 0
        for k = 0, 1, ...
            j           = argmin_i (G alpha_k)_i
            theta_k     = 1 / (k + 1)
            alpha_{k+1} = (1 - theta_k) alpha_k + theta_k e_j

    With ``theta_k = 1 / (k + 1)``, ``alpha_k`` is the average of ``e_j`` over the
    points chosen so far: ``alpha_k = u_k / k`` with ``u_k`` the number of times each
    point was chosen. The loop keeps ``u_k`` and ``G u_k`` (one column of ``G`` per
    update); ``G u_k`` and ``G alpha_k`` have the same smallest entry.

    Parameters
    ----------
    G : ndarray of shape (n, n)
        Normalised signed Gram matrix.
    n_iter : int
        Number of updates, ``>= 0``.

    Returns
    -------
    alpha : ndarray of shape (n,)
        The iterate ``alpha_K`` after ``K = n_iter`` updates (``0`` when ``K = 0``).
    chosen : list of int
        The point ``j`` of each update.

    Notes
    -----
    Ties go to the first index, as in :func:`numpy.argmin`, and so do entries of
    ``G u_k`` whose order rounding cannot decide: those within twice a bound on their
    rounding error (``ties.err``: about ``k u ||u_k||_G + k n u`` after ``k`` updates,
    ``u = 2^-53``, with ``G`` taken within ``n u`` of the exact kernel matrix) of the
    smallest. Where rounding can decide, this is the exact ``argmin`` of the paper.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(50, 3, rho=1e-4, seed=0)
    >>> G = kperc.gram_matrix(X, y)
    >>> alpha, chosen = kperc.reference.nkp(G, n_iter=40)
    >>> np.array_equal(alpha, np.bincount(chosen, minlength=50) / 40)  # update shares
    True
    >>> res = kperc.nkp(G, max_iter=40)
    >>> res.nit, np.array_equal(res.alpha, alpha)
    (40, True)
    """
    n_iter = _check_n_iter(n_iter)
    n = G.shape[0]
    u = np.zeros(n)  # u_k = k alpha_k: how often each point was chosen
    G_u = np.zeros(n)  # G u_k
    norm2_u = 0.0  # ||u_k||_G^2, for the bound on the rounding of G u_k
    ties = GramSumBound(rounding_terms=n)
    chosen = []
    for k in range(n_iter):
        j = first_min_index(G_u, ties.err(k, norm2_u))  # the most violated point
        chosen.append(j)
        G_j = G[:, j]
        norm2_u += 2.0 * float(G_u[j]) + float(G_j[j])
        ties.update(float(G_u[j]), float(G_j[j]), norm2_u)
        G_u += G_j
        u[j] += 1.0
    alpha = u / n_iter if n_iter else u
    return alpha, chosen


def snkp(G: np.ndarray, n_iter: int) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 4, the Smoothed Normalised Kernel Perceptron, run for ``n_iter`` iterations.

    ::

        alpha_0 = 1/n, mu_0 = 2, p_0 = p_{mu_0}(alpha_0)
        for k = 0, 1, ...
            theta_k     = 2 / (k + 3)
            alpha_{k+1} = (1 - theta_k)(alpha_k + theta_k p_k) + theta_k^2 p_{mu_k}(alpha_k)
            mu_{k+1}    = (1 - theta_k) mu_k
            p_{k+1}     = (1 - theta_k) p_k + theta_k p_{mu_{k+1}}(alpha_{k+1})

    ``p_mu(alpha) = softmax(-G alpha / mu)`` is the entropy-smoothed worst-point
    distribution (:func:`kperc.entropy_prox`). By linearity ``G alpha_k`` and ``G p_k``
    follow the same recurrences as ``alpha_k`` and ``p_k``, so one product with ``G``
    per iteration suffices: ``G p_{mu_{k+1}}(alpha_{k+1})``.

    Parameters
    ----------
    G : ndarray of shape (n, n)
        Normalised signed Gram matrix.
    n_iter : int
        Number of iterations, ``>= 0``.

    Returns
    -------
    alpha : ndarray of shape (n,)
        The iterate ``alpha_K`` after ``K = n_iter`` iterations, a point of the simplex.
    p : ndarray of shape (n,)
        The dual iterate ``p_K``, a point of the simplex.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(50, 3, rho=1e-4, seed=0)
    >>> G = kperc.gram_matrix(X, y)
    >>> alpha, p = kperc.reference.snkp(G, n_iter=30)
    >>> res = kperc.snkp(G, max_iter=30)
    >>> res.nit, np.array_equal(res.alpha, alpha), np.array_equal(res.p, p)
    (30, True, True)
    """
    n_iter = _check_n_iter(n_iter)
    n = G.shape[0]
    mu = 2.0
    alpha = np.full(n, 1.0 / n)
    G_alpha = G @ alpha
    p_mu = entropy_prox(G_alpha, mu)  # p_{mu_k}(alpha_k)
    G_p_mu = G @ p_mu
    p, G_p = p_mu.copy(), G_p_mu.copy()
    for k in range(n_iter):
        theta = 2.0 / (k + 3)
        alpha = (1.0 - theta) * (alpha + theta * p) + theta * theta * p_mu
        G_alpha = (1.0 - theta) * (G_alpha + theta * G_p) + theta * theta * G_p_mu
        mu = (1.0 - theta) * mu
        p_mu = entropy_prox(G_alpha, mu)
        G_p_mu = G @ p_mu
        p = (1.0 - theta) * p + theta * p_mu
        G_p = (1.0 - theta) * G_p + theta * G_p_mu
    return alpha, p


def nvn(G: np.ndarray, n_iter: int) -> tuple[np.ndarray, list[int]]:
    """Algorithm 5, the normalised Von Neumann algorithm in kernel form, for ``n_iter`` steps.

    ::

        p_0 = 1/n, w_0 = A p_0
        for k = 0, 1, ...
            j       = argmin_i a_i^T w_k
            theta_k = argmin_{t in [0, 1]} ||(1 - t) w_k + t a_j||
            p_{k+1} = (1 - theta_k) p_k + theta_k e_j,   w_{k+1} = A p_{k+1}

    In kernel form ``w_k = A p_k`` is never formed: ``A^T w_k = G p_k``,
    ``||w_k||^2 = p_k^T G p_k``, ``a_j^T w_k = (G p_k)_j`` and ``||a_j||^2 = G_jj``,
    and ``G p_k`` follows the recurrence of ``p_k`` with one column of ``G`` per step.

    Parameters
    ----------
    G : ndarray of shape (n, n)
        Normalised signed Gram matrix.
    n_iter : int
        Number of steps, ``>= 0``.

    Returns
    -------
    p : ndarray of shape (n,)
        The iterate ``p_K`` after ``K = n_iter`` steps, a point of the simplex.
    chosen : list of int
        The point ``j`` of each step.

    Notes
    -----
    Ties go to the first index, and so do entries of ``G p_k`` whose order rounding
    cannot decide (see :func:`kperc.reference.nkp`; the bound ``err`` on their rounding
    grows by a few ``u (||w_k|| + theta_k)`` and ``n u theta_k`` at each step).

    Examples
    --------
    >>> import numpy as np, kperc
    >>> from kperc.datasets import infeasible
    >>> X, y = infeasible(40, 2, rho=-0.2, seed=0)
    >>> G = kperc.gram_matrix(X, y)
    >>> p, chosen = kperc.reference.nvn(G, n_iter=100)
    >>> bool(p @ G @ p <= 1 / 101)  # ||w_K||^2 <= 1 / (K + 1) (Dantzig)
    True
    >>> res = kperc.nvn(G, eps=1e-6, max_iter=100, trace=True)
    >>> res.nit, res.trace["j"][:-1].tolist() == chosen
    (100, True)
    """
    n_iter = _check_n_iter(n_iter)
    n = G.shape[0]
    p = np.full(n, 1.0 / n)
    G_p = G @ p  # A^T w_k
    err0 = gamma(2 * n)  # rounding of G p_0 and of G itself (n terms each), |G_ij| <= 1
    acc = 0.0  # what the steps add to it
    chosen = []
    for k in range(n_iter):
        norm2_w = max(float(p @ G_p), 0.0)  # ||w_k||^2
        err = (1.0 + gamma(2 * k)) * (err0 + acc)  # bound on the rounding of G p_k
        j = first_min_index(G_p, err)  # the most violated point
        chosen.append(j)
        G_j = G[:, j]
        a_j_w, norm2_a_j = float(G_p[j]), float(G_j[j])  # a_j^T w_k and ||a_j||^2
        # ||(1 - t) w_k + t a_j||^2 is a quadratic in t, smallest at t* below
        # (its denominator is ||w_k - a_j||^2); theta_k is t* clipped to [0, 1]
        denom = norm2_w - 2.0 * a_j_w + norm2_a_j
        theta = 0.0 if denom <= 0.0 else min(max((norm2_w - a_j_w) / denom, 0.0), 1.0)
        acc = step_error(acc, theta, norm2_w, err0**0.5, gamma(n))
        p = (1.0 - theta) * p
        p[j] += theta
        G_p = (1.0 - theta) * G_p + theta * G_j
    return p, chosen


def snkpvn(G: np.ndarray, n_iter: int, q: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 6, SNKPVN(q, delta), run for ``n_iter`` iterations.

    The iteration of :func:`snkp` with the Euclidean prox-function ``||p - q||^2 / 2``
    centred at ``q``::

        alpha_0 = q, mu_0 = 2 n, p_0 = p^q_{mu_0}(alpha_0)
        for k = 0, 1, ...
            theta_k     = 2 / (k + 3)
            alpha_{k+1} = (1 - theta_k)(alpha_k + theta_k p_k) + theta_k^2 p^q_{mu_k}(alpha_k)
            mu_{k+1}    = (1 - theta_k) mu_k
            p_{k+1}     = (1 - theta_k) p_k + theta_k p^q_{mu_{k+1}}(alpha_{k+1})

    ``p^q_mu(alpha)``, the projection of ``q - G alpha / mu`` onto the simplex, is
    :func:`kperc.euclidean_prox`. ``delta`` only enters the exit test
    ``||p_k||_G < delta``, which is left out here.

    Parameters
    ----------
    G : ndarray of shape (n, n)
        Normalised signed Gram matrix.
    n_iter : int
        Number of iterations, ``>= 0``.
    q : array_like of shape (n,), optional
        Prox centre, a point of the simplex (default: the barycentre ``1/n``).

    Returns
    -------
    alpha : ndarray of shape (n,)
        The iterate ``alpha_K`` after ``K = n_iter`` iterations, a point of the simplex.
    p : ndarray of shape (n,)
        The dual iterate ``p_K``, a point of the simplex.

    Examples
    --------
    >>> import numpy as np, kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(50, 3, rho=1e-4, seed=0)
    >>> G = kperc.gram_matrix(X, y)
    >>> alpha, p = kperc.reference.snkpvn(G, n_iter=30)
    >>> res = kperc.snkpvn(G, delta=1e-6, max_iter=30)
    >>> res.nit, np.array_equal(res.alpha, alpha), np.array_equal(res.p, p)
    (30, True, True)
    """
    n_iter = _check_n_iter(n_iter)
    n = G.shape[0]
    q = np.full(n, 1.0 / n) if q is None else check_simplex(q, n)
    mu = 2.0 * n
    alpha = q.copy()
    G_alpha = G @ alpha
    p_mu = euclidean_prox(G_alpha, mu, q)  # p^q_{mu_k}(alpha_k)
    G_p_mu = G @ p_mu
    p, G_p = p_mu.copy(), G_p_mu.copy()
    for k in range(n_iter):
        theta = 2.0 / (k + 3)
        alpha = (1.0 - theta) * (alpha + theta * p) + theta * theta * p_mu
        G_alpha = (1.0 - theta) * (G_alpha + theta * G_p) + theta * theta * G_p_mu
        mu = (1.0 - theta) * mu
        p_mu = euclidean_prox(G_alpha, mu, q)
        G_p_mu = G @ p_mu
        p = (1.0 - theta) * p + theta * p_mu
        G_p = (1.0 - theta) * G_p + theta * G_p_mu
    return alpha, p

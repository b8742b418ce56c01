"""The normalised Von Neumann (Gilbert) algorithm (paper Section 5, Algorithm 5).

Von Neumann's method is Frank-Wolfe with exact line search on
``min_{p in simplex} ||A p||^2 / 2``: it moves ``w = A p`` towards the most violated
point ``a_j`` by the step that minimises ``||w||``. It returns an ``eps``-certificate of
infeasibility (``p`` in the simplex with ``||A p|| <= eps``) or, with the primal exit
that PAPER.md Section 9 adds, a separator.

* :func:`nvn`: kernel form, using only ``G`` (``O(n)`` per iteration).
* :func:`von_neumann_linear`: linear form on data, which also records ``w_k``.
"""

from __future__ import annotations

import numpy as np

from ._result import KpercResult, Tracer, make_result
from ._validation import check_positive, check_Xy
from .kernels import as_gram, certified_positive, signed_normalized_points

__all__ = ["nvn", "von_neumann_linear", "line_search_step"]

DEFAULT_MAX_ITER = 1_000_000


def line_search_step(s: float, gj: float, gjj: float) -> float:
    """Exact line-search step of Algorithm 5.

    Minimises ``||(1 - t) w + t a_j||^2`` over ``t in [0, 1]`` where ``s = ||w||^2``,
    ``gj = a_j^T w`` and ``gjj = ||a_j||^2``.
    """
    denom = s - 2.0 * gj + gjj
    if denom <= 0.0:  # w == a_j: nothing to gain
        return 0.0
    return float(min(max((s - gj) / denom, 0.0), 1.0))


def nvn(G, *, eps: float = 1e-3, primal_exit: bool = True,
        max_iter: int = DEFAULT_MAX_ITER, trace: bool = False, check_input: bool = True
        ) -> KpercResult:
    """Algorithm 5 in kernel form: normalised Von Neumann using only ``G``.

    Keeps ``p`` and ``g = G p`` (so ``A^T w = g`` and ``||w||^2 = p^T g``)::

        p = 1/n, g = G p
        loop: s = p^T g; if s <= eps^2: certificate p
              if primal_exit and min g > 0: separator alpha = p
              j = argmin g; theta = clip((s - g_j) / (s - 2 g_j + G_jj), 0, 1)
              p = (1 - theta) p + theta e_j; g = (1 - theta) g + theta G[:, j]

    Guarantees (PAPER.md Section 5): ``||w_k||^2 <= 1/(k+1)`` at every non-halting step
    (Dantzig), so without a primal exit it halts within ``ceil(1/eps^2) - 1``
    iterations; if ``rho_K > 0`` the primal exit fires within ``1/rho_K^2``
    (Epelman-Freund); if ``rho_K < 0`` then ``||w_{k+1}||^2 <= (1 - rho_K^2) ||w_k||^2``.

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator
    eps : float
        Target ``||p||_G`` of the certificate.
    primal_exit : bool
        Stop with a separator when ``G p > 0`` (PAPER.md Section 9, item 3: without
        it the method stalls on separable data).
    max_iter : int
    trace : bool
        Record ``norm_w`` (``||p_k||_G``), ``min_Galpha``, ``j`` and ``theta``.
    check_input : bool

    Returns
    -------
    KpercResult
        A certificate ``p`` (outcome ``"certificate"``) with ``||p||_G <= eps``,
        re-verified with a fresh product, or a separator ``alpha = p``.
    """
    gram = as_gram(G) if check_input else as_gram(G, validate=False)
    eps = check_positive(eps, "eps")
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    n = gram.n
    diag = gram.diagonal()
    # Performance (kperc.bench): p and g = G p are the rows of one (2, n) array, so that
    # ``p *= 1 - theta; g *= 1 - theta`` is one call; argmin gives the min; the column
    # of G is not copied. The arithmetic is unchanged (bit-identical iterates).
    P = np.empty((2, n))
    p, g = P
    p.fill(1.0 / n)
    g[:] = gram.matvec(p)
    diag_list = diag.tolist()
    column_into = gram.column_into
    col = np.empty(n)
    eps2 = eps * eps
    tr = Tracer(trace, ("k", "norm_w", "min_Galpha", "j", "theta"))
    k = 0
    while True:
        s = max(float(p @ g), 0.0)
        certificate = False
        if s <= eps2:  # cheap test on the maintained g; confirm with a fresh norm
            exact = gram.seminorm(p)
            certificate = exact <= eps
            if not certificate:  # drift of the rank-one updates: refresh and go on
                g[:] = gram.matvec(p)
                s = max(float(p @ g), 0.0)
        j = int(g.argmin())
        gmin = float(g[j])  # == g.min()
        separator = False
        if not certificate and primal_exit and gmin > 0:
            g[:] = gram.matvec(p)  # re-verify with a fresh product
            s = max(float(p @ g), 0.0)
            j = int(g.argmin())
            gmin = float(g[j])
            separator = certified_positive(gmin, n, float(p.sum()))
        if tr.enabled:
            tr.add(k=k, norm_w=np.sqrt(s), min_Galpha=gmin, j=-1, theta=0.0)
        if certificate:
            return make_result("certificate", k,
                               f"eps-certificate (||p||_G <= {eps:g}) after {k} "
                               "iterations", alpha=p.copy(), p=p.copy(), trace=tr.data)
        if separator:
            return make_result("separator", k, f"separator found after {k} iterations",
                               alpha=p.copy(), p=p.copy(), trace=tr.data)
        if k >= max_iter:
            return make_result("max_iter", k,
                               f"neither certificate nor separator within max_iter={max_iter}",
                               alpha=p.copy(), p=p.copy(), trace=tr.data)
        theta = line_search_step(s, gmin, diag_list[j])
        if tr.enabled:
            tr.data["j"][-1] = j
            tr.data["theta"][-1] = theta
        one = 1.0 - theta
        np.multiply(P, one, out=P)  # p *= one; g *= one
        p[j] += theta
        np.multiply(column_into(j, col), theta, out=col)
        g += col
        k += 1


def von_neumann_linear(X, y, *, eps: float = 1e-3, primal_exit: bool = True,
                       max_iter: int = DEFAULT_MAX_ITER, trace: bool = False
                       ) -> KpercResult:
    """Algorithm 5 in linear form on data ``(X, y)``.

    The same iteration as :func:`nvn` with ``w = A p`` kept explicitly
    (``a_i = y_i x_i / ||x_i||``); useful to draw the path of ``w_k`` in two dimensions.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
    eps : float
    primal_exit : bool
    max_iter : int
    trace : bool
        Record ``w`` (the iterate), ``norm_w``, ``min_margin`` (``min_i a_i^T w``), ``j``
        and ``theta``.

    Returns
    -------
    KpercResult
        ``w = A p``; ``p`` is the certificate or ``alpha = p`` the separator.
    """
    X, y = check_Xy(X, y)
    eps = check_positive(eps, "eps")
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    Z = signed_normalized_points(X, y)
    n = Z.shape[0]
    p = np.full(n, 1.0 / n)
    w = Z.T @ p
    m = Z @ w
    tr = Tracer(trace, ("k", "w", "norm_w", "min_margin", "j", "theta"))
    k = 0
    while True:
        s = float(w @ w)
        mmin = float(m.min())
        tr.add(k=k, w=w.copy(), norm_w=np.sqrt(s), min_margin=mmin, j=-1, theta=0.0)
        if s <= eps * eps:
            return make_result("certificate", k,
                               f"eps-certificate (||A p|| <= {eps:g}) after {k} iterations",
                               alpha=p.copy(), p=p, w=w, trace=tr.data)
        if primal_exit and mmin > 0:
            return make_result("separator", k, f"separator found after {k} iterations",
                               alpha=p.copy(), p=p, w=w, trace=tr.data)
        if k >= max_iter:
            return make_result("max_iter", k,
                               f"neither certificate nor separator within max_iter={max_iter}",
                               alpha=p.copy(), p=p, w=w, trace=tr.data)
        j = int(np.argmin(m))
        zj = Z[j]
        theta = line_search_step(s, float(m[j]), float(zj @ zj))
        if tr.enabled:
            tr.data["j"][-1] = j
            tr.data["theta"][-1] = theta
        one = 1.0 - theta
        p *= one
        p[j] += theta
        w = one * w + theta * zj
        m = one * m + theta * (Z @ zj)
        k += 1

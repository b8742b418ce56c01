"""The normalised Von Neumann (Gilbert) algorithm (paper Section 5, Algorithm 5).

Von Neumann's method is Frank-Wolfe with exact line search on
``min_{p in simplex} ||A p||^2 / 2``: it moves ``w = A p`` towards the most violated
point ``a_j`` by the step that minimises ``||w||``. It returns an ``eps``-certificate of
infeasibility (``p`` in the simplex with ``||A p|| <= eps``) or, with an added primal
exit (not part of the paper's Algorithm 5), a separator.

* :func:`nvn`: kernel form, using only ``G`` (``O(n)`` per iteration).
* :func:`von_neumann_linear`: linear form on data, which also records ``w_k``.
"""

from __future__ import annotations

import math

import numpy as np

from ._dispatch import as_any_gram, finish
from ._gram import (
    DEFAULT_CACHE_SIZE,
    certified_positive,
    certified_separates,
    check_attainable,
    data_certifiable,
    undecided_certificate,
)
from ._gram_matrix import factor_row_error, signed_normalized_points
from ._kernel_values import _U
from ._result import (
    CallbackType,
    KpercResult,
    Tracer,
    check_callback,
    exit_result,
    notify,
)
from ._ties import first_min_index, gamma, step_error
from ._typing import ArrayLike, GramLike
from ._validation import check_flags, check_nonnegative, check_positive, check_Xy

__all__ = ["nvn", "von_neumann_linear", "line_search_step"]

DEFAULT_MAX_ITER = 1_000_000
_MIN_SCALE = 1e-150  # fold the scale of NVN's iterate back below this


def _messages(bound: str, k: int, max_iter: int) -> dict[str, str]:
    """The messages of the Von Neumann exits that are not those of the perceptrons."""
    return {
        "certificate": f"eps-certificate ({bound}) after {k} iterations",
        "max_iter": f"neither certificate nor separator within max_iter={max_iter}",
    }


def line_search_step(s: float, gj: float, gjj: float) -> float:
    """Exact line-search step of Algorithm 5.

    Minimises ``||(1 - t) w + t a_j||^2`` over ``t in [0, 1]`` where ``s = ||w||^2``,
    ``gj = a_j^T w`` and ``gjj = ||a_j||^2``.
    """
    denom = s - 2.0 * gj + gjj
    if denom <= 0.0:  # w == a_j: nothing to gain
        return 0.0
    return float(min(max((s - gj) / denom, 0.0), 1.0))


def nvn(
    G: GramLike,
    *,
    eps: float = 1e-3,
    primal_exit: bool = True,
    max_iter: int = DEFAULT_MAX_ITER,
    trace: bool = False,
    check_input: bool = True,
    cache_size: float = DEFAULT_CACHE_SIZE,
    callback: CallbackType = None,
) -> KpercResult:
    """Algorithm 5 in kernel form: normalised Von Neumann using only ``G``.

    Keeps ``p``, ``g = G p`` and ``s = p^T g`` (so ``A^T w = g`` and ``||w||^2 = s``)::

        p = 1/n, g = G p
        loop: if s <= eps^2: certificate p
              if primal_exit and min g > 0: separator alpha = p
              j = argmin g; theta = clip((s - g_j) / (s - 2 g_j + G_jj), 0, 1)
              p = (1 - theta) p + theta e_j; g = (1 - theta) g + theta G[:, j]
              s = (1 - theta)^2 s + 2 theta (1 - theta) g_j + theta^2 G_jj

    Guarantees (Section 5 of the paper): ``||w_k||^2 <= 1/(k+1)`` at every non-halting step
    (Dantzig), so without a primal exit it halts within ``ceil(1/eps^2) - 1``
    iterations; if ``rho_K > 0`` the primal exit fires within ``1/rho_K^2``
    (Epelman-Freund); if ``rho_K < 0`` then ``||w_{k+1}||^2 <= (1 - rho_K^2) ||w_k||^2``.

    Each iteration costs ``O(n)``: one column of ``G`` (through a least-recently-used
    cache when ``G`` is a LinearOperator) and one pass over ``g``. Both halting tests
    are confirmed with a fresh product before the run stops.

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator
        A torch (CPU or CUDA), CuPy or other array-API array, or the operator that
        :func:`kperc.kernel_gram_operator` returns for such data, runs on its device,
        exits certified with float64 products; ``alpha`` and ``p`` come back there.
    eps : float
        Target ``||p||_G`` of the certificate, certified despite rounding; an ``eps``
        below twice the attainable accuracy (see :func:`kperc.isnkpvn`) is refused. For
        a ``G`` built from data, below twice the floor of the data's exact Gram matrix
        the run ends ``"undecided"`` (see :func:`kperc.isnkpvn`).
    primal_exit : bool
        Stop with a separator when ``G p > 0``, an exit that the paper's Algorithm 5
        does not have: without it the method stalls on separable data.
    max_iter : int, default=1_000_000
        Cap on the number of updates. Each update costs ``O(n)`` (one column of ``G``), and the
        bound grows as ``1 / eps^2`` for the certificate (``1 / rho^2`` for a separator), so this
        cap is ten times that of the ``O(n^2)``-per-iteration smoothed methods (:func:`kperc.snkp`),
        whose bounds grow only as ``1 / rho``: ``10^6`` iterations cover ``eps`` or ``rho`` down to
        ``10^-3``.
    trace : bool
        Record ``norm_w`` (``||p_k||_G``), ``min_Galpha``, ``j`` and ``theta``.
    check_input : bool, default=True
        Validate ``G`` (square, symmetric, unit diagonal, finite: an ``O(n^2)`` scan).
        False checks only the shape; use it for a ``G`` from :func:`kperc.gram_matrix`
        or for repeated calls on the same matrix.
    cache_size : float
        Megabytes of the column cache for a LinearOperator ``G`` (see :func:`kperc.nkp`).
    callback : callable, optional
        ``callback(intermediate_result)`` on every iteration (see the Notes of
        :class:`kperc.KpercResult`), with ``nit``, ``alpha`` and ``p`` (copies of the
        same iterate), ``norm_w`` (``||p||_G`` from the maintained ``s``) and
        ``min_Galpha`` (``min_i (G p)_i``). Raise :class:`StopIteration` to stop.
        Building the copies costs ``O(n)``, as much as an iteration with a cached
        column.

    Returns
    -------
    KpercResult
        A certificate ``p`` (outcome ``"certificate"``) with ``||p||_G <= eps``,
        re-verified with a fresh product (for a ``G`` built from data, for the data's
        exact Gram matrix), or a separator ``alpha = p``; also ``ncol``, the number of
        columns of ``G`` computed.

    See Also
    --------
    kperc.reference.nvn : the same iteration written for reading, whose steps this
        function takes up to round-off (it keeps its iterate scaled).

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import infeasible
    >>> X, y = infeasible(40, 2, rho=-0.2, seed=0)
    >>> G = kperc.gram_matrix(X, y)
    >>> res = kperc.nvn(G, eps=1e-3)
    >>> res.outcome, kperc.g_seminorm(G, res.p) <= 1e-3
    ('certificate', True)
    """
    eps = check_positive(eps, "eps")
    check_flags(primal_exit=primal_exit, trace=trace, check_input=check_input)
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    cache_size = check_nonnegative(cache_size, "cache_size")
    gram = as_any_gram(G, validate=check_input, cache_size=cache_size)
    eps = check_attainable(eps, "eps", gram)
    # for a G built from data the certificate must hold for the data's exact Gram matrix;
    # below the floor of that, it is tested on G as rounded and reported "undecided"
    on_data = data_certifiable(eps, gram)
    n = gram.n
    # Performance (bench/test_periter.py): the iterate is stored scaled, p = c * pt and
    # g = c * gt, so that the step p <- (1 - theta) p + theta e_j touches one entry of
    # pt and adds one scaled column to gt (c <- (1 - theta) c), instead of rescaling
    # two n-vectors; s = ||w||^2 follows its exact quadratic recurrence. The scale is
    # folded back into pt and gt before it can underflow, and whenever a halting test
    # needs the plain p.
    pt = np.full(n, 1.0 / n)
    gt = gram.matvec(pt)
    c = 1.0
    s = max(float(pt @ gt), 0.0)
    diag_list = gram.diagonal().tolist()
    column_into = gram.column_into
    col = np.empty(n)
    step = np.empty(n)
    mul, add = np.multiply, np.add
    eps2 = eps * eps
    tr = Tracer(trace, ("k", "norm_w", "min_Galpha", "j", "theta"))

    def refresh():
        """Fold the scale into pt and recompute gt = G pt and s with fresh products."""
        nonlocal c, s
        if c != 1.0:
            mul(pt, c, out=pt)
            c = 1.0
        gt[:] = gram.matvec(pt)
        s = max(float(pt @ gt), 0.0)

    callback = check_callback(callback)
    # The tie rule of kperc._ties: G is within gamma_r of a positive semidefinite G* with
    # unit diagonal (r = gram.rounding_terms); the first g = G p sums n terms, each step
    # adds the rounding of one update (step_error); a refresh only makes g more accurate.
    # In units of gt = g / c the bound is divided by c (c's own rounding is common to all
    # entries and cannot reorder them).
    gamma_r = gamma(gram.rounding_terms)
    err0 = gamma(n + gram.rounding_terms)
    floor = math.sqrt(err0)
    acc = 0.0
    stopped = False
    k = 0
    while True:
        certificate = separator = False
        if s <= eps2:  # cheap test on the maintained s; confirm with a fresh norm
            refresh()
            upper = gram.seminorm_bound(pt)[1]  # certified despite rounding
            certificate = (gram.data_bound(pt, upper) if on_data else upper) <= eps
        i = int(gt.argmin())
        gmin = c * float(gt[i])  # == min(g): argmin also gives the min
        if not certificate and primal_exit and gmin > 0:
            refresh()  # re-verify with a fresh product
            i = int(gt.argmin())
            gmin = float(gt[i])
            separator = certified_positive(gmin, gram.rounding_terms, float(pt.sum()))
        # the point of the step (kperc._ties)
        j = first_min_index(gt, (1.0 + gamma(2 * k)) * (err0 + acc) / c, i)
        gj = c * float(gt[j])
        if tr.enabled:
            tr.add(k=k, norm_w=np.sqrt(s), min_Galpha=gmin, j=-1, theta=0.0)
        if certificate or separator or k >= max_iter:
            break
        if callback is not None and notify(
            callback, nit=k, alpha=pt * c, p=pt * c, norm_w=np.sqrt(s), min_Galpha=gmin
        ):
            stopped = True
            break
        gjj = diag_list[j]
        theta = line_search_step(s, gj, gjj)
        tr.amend(j=j, theta=theta)
        one = 1.0 - theta
        acc = step_error(acc, theta, s, floor, gamma_r)
        s = max(one * one * s + 2.0 * theta * one * gj + theta * theta * gjj, 0.0)
        if one * c < _MIN_SCALE:  # theta = 1 (p = e_j) or a tiny scale: start unscaled
            mul(pt, one * c, out=pt)
            pt[j] += theta
            mul(gt, one * c, out=gt)
            mul(column_into(j, col), theta, out=step)
            add(gt, step, out=gt)
            c = 1.0
        else:
            c *= one
            t = theta / c
            pt[j] += t
            mul(column_into(j, col), t, out=step)
            add(gt, step, out=gt)
        k += 1
    p = pt * c
    messages = _messages(f"||p||_G <= {eps:g}", k, max_iter)
    if certificate:
        gram.check_certificate(p)
        how = "certificate" if on_data else "undecided"
        if not on_data:
            messages[how] = undecided_certificate("eps", eps, gram)
    else:
        how = "separator" if separator else "callback" if stopped else "max_iter"
    return finish(
        gram,
        exit_result(
            how,
            k,
            max_iter=max_iter,
            messages=messages,
            alpha=p,
            p=p.copy(),
            trace=tr.data,
            ncol=gram.column_evals,
        ),
    )


def von_neumann_linear(
    X: ArrayLike,
    y: ArrayLike,
    *,
    eps: float = 1e-3,
    primal_exit: bool = True,
    max_iter: int = DEFAULT_MAX_ITER,
    trace: bool = False,
    callback: CallbackType = None,
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
    max_iter : int, default=1_000_000
        Cap on the number of updates. Each update costs ``O(n d)``, and the bound grows as
        ``1 / eps^2`` for the certificate (``1 / rho^2`` for a separator), so this cap is ten times
        that of the ``O(n^2)``-per-iteration smoothed methods (:func:`kperc.snkp`), whose bounds
        grow only as ``1 / rho``: ``10^6`` iterations cover ``eps`` or ``rho`` down to ``10^-3``.
    trace : bool
        Record ``w`` (the iterate), ``norm_w``, ``min_margin`` (``min_i a_i^T w``), ``j``
        and ``theta``.
    callback : callable, optional
        ``callback(intermediate_result)`` on every iteration (see the Notes of
        :class:`kperc.KpercResult`), with ``nit``, ``alpha``, ``p`` and ``w`` (copies),
        ``norm_w`` (``||w||``) and ``min_margin``. Raise :class:`StopIteration` to stop.

    Returns
    -------
    KpercResult
        ``w = A p``; ``p`` is the certificate or ``alpha = p`` the separator.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import infeasible
    >>> X, y = infeasible(40, 2, rho=-0.2, seed=0)
    >>> res = kperc.von_neumann_linear(X, y, eps=1e-3)
    >>> res.outcome, kperc.g_seminorm(kperc.gram_matrix(X, y), res.p) <= 1e-3
    ('certificate', True)
    """
    X, y = check_Xy(X, y)
    eps = check_positive(eps, "eps")
    check_flags(primal_exit=primal_exit, trace=trace)
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    Z = signed_normalized_points(X, y)
    n = Z.shape[0]
    # ||A p|| has rounding error up to (n + 2) u sqrt(d) on the simplex, and each row of Z
    # is within r of the data's exact direction a*_i, so ||A* p - A p|| <= r on the simplex:
    # a certificate and a separator w (a*_i^T w > 0) hold for the data
    r = factor_row_error(Z.shape[1])
    floor = (n + 2) * _U * np.sqrt(Z.shape[1]) + r
    if eps <= 2.0 * floor:
        raise ValueError(
            f"eps={eps:g} is below the accuracy with which ||A p|| can be certified here "
            f"(about {floor:.2g}); use eps > {2.0 * floor:.2g}."
        )
    p = np.full(n, 1.0 / n)
    w = Z.T @ p
    m = Z @ w
    # The tie rule of kperc._ties: each normalised row is within gamma_{d+4} of a_i, so
    # a product z_i^T z_j is within gamma_{3d+8} of a_i^T a_j, and the first m within
    # gamma_{n+3d+8}; each step adds the rounding of one update (step_error)
    term_error = gamma(3 * Z.shape[1] + 8)
    err0 = gamma(n + 3 * Z.shape[1] + 8)
    acc = 0.0
    tr = Tracer(trace, ("k", "w", "norm_w", "min_margin", "j", "theta"))
    callback = check_callback(callback)
    k = 0
    while True:
        s = float(w @ w)
        mmin = float(m.min())
        tr.add(k=k, w=w.copy(), norm_w=np.sqrt(s), min_margin=mmin, j=-1, theta=0.0)
        if s <= eps * eps and np.sqrt(s) + floor <= eps:  # certified despite rounding
            how = "certificate"
            break
        if primal_exit and mmin > 0 and certified_separates(Z, w, r)[0]:
            how = "separator"
            break
        if k >= max_iter:
            how = "max_iter"
            break
        if callback is not None and notify(
            callback,
            nit=k,
            alpha=p.copy(),
            p=p.copy(),
            w=w.copy(),
            norm_w=np.sqrt(s),
            min_margin=mmin,
        ):
            how = "callback"
            break
        j = first_min_index(m, (1.0 + gamma(2 * k)) * (err0 + acc))  # kperc._ties
        zj = Z[j]
        theta = line_search_step(s, float(m[j]), float(zj @ zj))
        acc = step_error(acc, theta, s, math.sqrt(err0), term_error)
        tr.amend(j=j, theta=theta)
        one = 1.0 - theta
        p *= one
        p[j] += theta
        w = one * w + theta * zj
        m = one * m + theta * (Z @ zj)
        k += 1
    return exit_result(
        how,
        k,
        max_iter=max_iter,
        messages=_messages(f"||A p|| <= {eps:g}", k, max_iter),
        alpha=p.copy(),
        p=p,
        w=w,
        trace=tr.data,
    )

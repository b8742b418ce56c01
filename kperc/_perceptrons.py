"""Perceptron-type algorithms (paper Sections 2 and 4).

* :func:`perceptron`: Algorithm 1, the classical perceptron on raw data.
* :func:`normalized_perceptron`: Algorithm 2 on the normalised data ``A = X_2 Y``.
* :func:`nkp`: Algorithm 3, the Normalised Kernel Perceptron on ``G``.
* :func:`snkp`: Algorithm 4, the Smoothed Normalised Kernel Perceptron on ``G``.
* :func:`winnow`: a multiplicative-weights (Winnow-style) method for the
  l_inf-normalised margin of Section 2.2.

Every function returns a :class:`~kperc.KpercResult`. The O(n)-per-iteration methods
keep ``G alpha`` (or the margins ``A^T w``) up to date by rank-one updates; SNKP needs
exactly one product with ``G`` per iteration because it maintains both ``G alpha`` and
``G p`` by linearity.
"""

from __future__ import annotations

import numpy as np

from ._dispatch import as_any_gram, finish, undecided_messages
from ._gram import DEFAULT_CACHE_SIZE, certified_positive
from ._kernel_values import _check_diag
from ._result import (
    CallbackType,
    KpercResult,
    Tracer,
    check_callback,
    exit_result,
    notify,
)
from ._smoothing import EXP_FLOOR, entropy_prox, log_mean_exp
from ._ties import GramSumBound, first_min_index, gamma, summed_error
from ._typing import ArrayLike, GramLike
from ._validation import (
    check_flags,
    check_mu0,
    check_nonnegative,
    check_positive,
    check_Xy,
    pow2_scale,
    row_norms,
)

__all__ = ["perceptron", "normalized_perceptron", "nkp", "snkp", "winnow"]

DEFAULT_MAX_ITER_CHEAP = 1_000_000
DEFAULT_MAX_ITER_DENSE = 100_000

#: The smallest subnormal, ``2^-1074``: twice the absolute error (``2^-1075``, not itself
#: a double) of a product or an exact scaling that underflows.
_ETA = 2.0**-1074


def _signed_data_rows(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The rows ``y_i x_i`` of the data, each scaled by a power of two so that its largest
    entry is in ``[1/2, 1)``: the data's own directions, exactly (an entry that the
    scaling makes subnormal may lose bits; :func:`_data_separates` counts that), without
    the rounding of a normalisation."""
    amax = np.max(np.abs(X), axis=1)
    e = np.frexp(np.where(amax > 0, amax, 1.0))[1]
    with np.errstate(under="ignore"):
        return np.ldexp(X, -e[:, None]) * y[:, None]


def _data_separates(S: np.ndarray, w: np.ndarray) -> bool:
    """Whether ``y_i x_i^T w > 0`` holds for every point of the data, beyond rounding.

    ``S`` holds the rows of :func:`_signed_data_rows`, positive multiples of ``y_i x_i``:
    ``S = D Y X + E`` with ``D > 0`` diagonal and ``|E_ij| <= eta / 2`` (0 unless
    an entry underflowed). A computed ``(S w)_i``, a sum of ``d`` products, is within
    ``gamma_d (|S| |w|)_i + d eta / 2`` of the exact one (each product's rounding, and
    ``eta / 2`` for each that underflows; ``eta = 2^-1074``), and ``|(E w)_i| <= ||w||_1
    eta / 2``. The product ``|S| |w|`` is itself computed, within a relative
    ``gamma_d`` (and ``d eta / 2``): the bound below covers both. So the signs of
    ``y_i x_i^T w`` are decided for the data themselves, not for rounded normalised rows.
    """
    d = S.shape[1]
    aw = np.abs(w)
    with np.errstate(under="ignore"):
        m = S @ w
        mag = np.abs(S) @ aw
    g = gamma(d + 2)
    bound = g * (1.0 + g) * mag + _ETA * (d + 2 + float(aw.sum()) * (1.0 + g))
    return bool(np.all(m > bound))


def _fresh_certified(gram, counts: np.ndarray, k: int) -> bool:
    """``G counts > 0`` beyond rounding, from a fresh product (the running sum drifts).

    NKP's counts are supported on the columns it picked, which its column cache holds:
    when that support is small the product is summed from those columns, so an operator
    that evaluates kernel columns on demand never computes a full ``G v``.
    """
    support = np.flatnonzero(counts)
    if hasattr(gram, "column") and 4 * support.size < gram.n:
        cols = np.column_stack([gram.column(int(j)) for j in support])
        g = cols @ counts[support].astype(np.float64)
    else:
        g = gram.matvec(counts)
    return certified_positive(float(g.min()), gram.rounding_terms, float(k))


def _linear_counts_loop(
    Z: np.ndarray,
    term_roundings: int,
    max_iter: int,
    trace: bool,
    record_w: bool,
    average: bool,
    separates,
    callback: CallbackType = None,
    fields=None,
):
    """Shared loop of Algorithms 1 and 2: ``u = sum of chosen rows of Z``.

    ``separates(u, k)`` decides, when every running margin is positive, whether the
    iterate returned for ``u`` separates the data themselves (:func:`_data_separates`).

    ``m = Z u`` holds the (scaled) margins and is updated by one ``O(n d)`` product per
    iteration. The traced iterate is ``w_k = u`` (Algorithm 1) or the average
    ``w_k = u / k`` (Algorithm 2, ``average=True``). Returns counts, u, the halting
    index, the trace and how the loop ended (``"separator"``, ``"max_iter"`` or
    ``"callback"``). ``fields(counts, u, k, mmin, nu)`` gives the callback's fields.

    Ties of the most violated point follow :mod:`kperc._ties`: each added ``(Z z_j)_i``
    is within ``gamma_r c^2`` of its exact value (``r = term_roundings``, ``c`` the
    largest row norm), and the running value ``|z_i^T u|`` is at most ``c ||u||``.
    """
    n, d = Z.shape
    counts = np.zeros(n)
    u = np.zeros(d)
    m = np.zeros(n)
    tr = Tracer(trace, ("k", "min_margin", "norm_w", "j") + (("w",) if record_w else ()))
    # c >= max_i ||z_i|| despite the rounding of the norms (d products, a sqrt)
    c = float(np.sqrt(np.einsum("ij,ij->i", Z, Z).max())) * (1.0 + gamma(d + 2)) if n else 0.0
    term_error = gamma(term_roundings) * c * c  # of each added (Z z_j)_i
    grow = 1.0 + gamma(d + 1)  # ||u|| <= its computed value * grow
    running = 0.0  # sum over the updates of a bound on |exact (Z u)_i|
    k = 0
    while True:
        mmin = float(m.min())
        nu = float(np.sqrt(u @ u))
        if k:
            # the exact u is within k c gamma_{k + r} of the computed one (k rows added)
            running += c * min(k * c, nu * grow + k * c * gamma(k + term_roundings))
        if tr.enabled:
            extra = {}
            if record_w:
                extra["w"] = u / k if (average and k) else u.copy()
            tr.add(k=k, min_margin=mmin / nu if nu > 0 else 0.0, norm_w=nu, j=-1, **extra)
        if mmin > 0 and separates(u, k):  # positive beyond rounding, for the data
            return counts, u, k, tr, "separator"
        if k >= max_iter:
            return counts, u, k, tr, "max_iter"
        if callback is not None and notify(callback, nit=k, **fields(counts, u, k, mmin, nu)):
            return counts, u, k, tr, "callback"
        j = first_min_index(m, summed_error(k, term_error, running))
        tr.amend(j=j)
        zj = Z[j]
        u += zj
        m += Z @ zj
        counts[j] += 1.0
        k += 1


def perceptron(
    X: ArrayLike,
    y: ArrayLike,
    *,
    max_iter: int = DEFAULT_MAX_ITER_CHEAP,
    trace: bool = False,
    callback: CallbackType = None,
) -> KpercResult:
    """Algorithm 1: the classical perceptron on raw (unnormalised) data.

    Starts from ``w_0 = 0`` and adds ``y_i x_i`` for the most violated point (smallest
    ``y_i x_i^T w``, first index on ties) until ``y_i x_i^T w > 0`` for every ``i``
    (Section 2.1 of the paper). If a unit ``w*`` has margin ``rho`` and ``R = max ||x_i||``,
    at most ``R^2 / rho^2`` updates are made (Block-Novikoff).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.
    max_iter : int, default=1_000_000
        Cap on the number of updates. Each update costs ``O(n d)`` (the margins are updated), and
        the bound grows as ``R^2 / rho^2`` (Block-Novikoff), so this cap is ten times that of the
        ``O(n^2)``-per-iteration smoothed methods (:func:`kperc.snkp`), whose bounds grow only as
        ``1 / rho``: ``10^6`` updates cover ``R / rho`` up to ``10^3``.
    trace : bool
        Record ``min_margin`` (``min_i y_i x_i^T w / ||w||``), ``norm_w``, the chosen
        index ``j`` and the iterate ``w`` at every step.
    callback : callable, optional
        ``callback(intermediate_result)`` on every iteration (see the Notes of
        :class:`kperc.KpercResult`), with ``nit``, ``alpha`` and ``w`` (copies),
        ``min_margin`` (``min_i y_i x_i^T w / ||w||``) and ``norm_w`` (``||w||``). Raise
        :class:`StopIteration` to stop.

    Returns
    -------
    KpercResult
        ``w`` is the separator; ``alpha`` expresses it in the normalised coordinates
        (``alpha_i`` proportional to the number of updates on point ``i`` times
        ``||x_i||``), so that ``gram_matrix(X, y) @ alpha > 0`` on success.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(60, 3, rho=0.2, seed=0)
    >>> res = kperc.perceptron(X, y)
    >>> res.outcome, bool((y * (X @ res.w) > 0).all())
    ('separator', True)
    """
    X, y = check_Xy(X, y)
    check_flags(trace=trace)
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    norms = row_norms(X)
    _check_diag(norms)  # a zero point makes the strict problem infeasible
    # a power-of-two rescaling is exact and leaves every decision unchanged; it keeps the
    # sums of rows of size 1e+-300 from overflowing or underflowing
    scale = pow2_scale(norms.max())
    Z = X * (y / scale)[:, None]
    callback = check_callback(callback)

    def fields(counts, u, k, mmin, nu):
        a = counts * (norms / scale)
        with np.errstate(over="ignore"):
            w = u * scale  # inf when w itself overflows (reported at the end)
        return {
            "alpha": a / a.sum() if k else a,
            "w": w,
            "min_margin": mmin / nu * scale if nu > 0 else 0.0,
            "norm_w": nu * scale,
        }

    # Z = X y / 2^e is exact, so each (Z z_j)_i is a dot product of d terms; the
    # separator w = u 2^e is checked on the data's rows (exact, also where Z underflows)
    S = _signed_data_rows(X, y)
    counts, u, k, tr, how = _linear_counts_loop(
        Z,
        X.shape[1],
        max_iter,
        trace,
        record_w=True,
        average=False,
        separates=lambda u, k: _data_separates(S, u),
        callback=callback,
        fields=fields,
    )
    with np.errstate(over="ignore"):
        u = u * scale
    if not np.all(np.isfinite(u)):
        raise ValueError(
            f"X is too large: the perceptron's weight vector w (a sum of {k} rows y_i x_i, "
            f"of norm up to {float(norms.max()):.3g}) overflows float64. Its decisions do not "
            "depend on the scale of X: divide X by a power of two, e.g. X / 2**20."
        )
    if tr.enabled and scale != 1.0:  # report the trace in the units of X
        tr.data["w"] = [wk * scale for wk in tr.data["w"]]
        tr.data["norm_w"] = [v * scale for v in tr.data["norm_w"]]
        tr.data["min_margin"] = [v * scale for v in tr.data["min_margin"]]
    alpha = counts * (norms / scale)
    alpha = alpha / alpha.sum() if alpha.sum() > 0 else alpha
    return exit_result(how, k, max_iter=max_iter, unit="updates", alpha=alpha, w=u, trace=tr.data)


def normalized_perceptron(
    X: ArrayLike,
    y: ArrayLike,
    *,
    max_iter: int = DEFAULT_MAX_ITER_CHEAP,
    trace: bool = False,
    callback: CallbackType = None,
) -> KpercResult:
    """Algorithm 2: the Normalised Perceptron, run on ``a_i = y_i x_i / ||x_i||``.

    ``w_{k+1} = (1 - theta_k) w_k + theta_k a_j`` with ``theta_k = 1/(k+1)`` and ``j``
    the most violated point, so ``w_k`` is the average of the points chosen so far
    (Section 2.1 of the paper). If ``rho_2 > 0`` it halts within ``1 / rho_2^2`` updates.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
    max_iter : int, default=1_000_000
        Cap on the number of updates. Each update costs ``O(n d)``, and the bound grows as
        ``1 / rho_2^2``, so this cap is ten times that of the ``O(n^2)``-per-iteration smoothed
        methods (:func:`kperc.snkp`), whose bounds grow only as ``1 / rho``: ``10^6`` updates cover
        ``rho_2`` down to ``10^-3``.
    trace : bool
        Record ``min_margin``, ``norm_w``, ``j`` and ``w`` at every step.
    callback : callable, optional
        ``callback(intermediate_result)`` on every iteration (see the Notes of
        :class:`kperc.KpercResult`), with ``nit``, ``alpha`` and ``w`` (copies),
        ``min_margin`` (``min_i y_i x_i^T w / ||w||``) and ``norm_w`` (``||w||``). Raise
        :class:`StopIteration` to stop.

    Returns
    -------
    KpercResult
        ``w = A alpha`` with ``alpha`` in the simplex (the fraction of updates per point).

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(60, 3, rho=0.2, seed=0)
    >>> res = kperc.normalized_perceptron(X, y)
    >>> res.outcome, res.nit <= 1 / 0.2**2  # rho_2 = 0.2: at most 25 updates
    ('separator', True)
    """
    X, y = check_Xy(X, y)
    check_flags(trace=trace)
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    norms = row_norms(X)  # scaled first: no overflow or underflow at 1e+-300
    _check_diag(norms)
    Z = X / norms[:, None] * y[:, None]
    callback = check_callback(callback)

    def fields(counts, u, k, mmin, nu):
        return {
            "alpha": counts / k if k else counts.copy(),
            "w": u / k if k else u.copy(),
            "min_margin": mmin / nu if nu > 0 else 0.0,
            "norm_w": nu / k if k else nu,
        }

    # each normalised row is within gamma_{d+4} of a_i, so (Z z_j)_i is within
    # gamma_d + 2 gamma_{d+4} + ... <= gamma_{3d+8} of a_i^T a_j. The rows of Z only
    # guide the iteration: the separator returned, w = u / k as rounded, is checked
    # against the data's own rows y_i x_i (exact up to a power of two per row)
    S = _signed_data_rows(X, y)
    counts, u, k, tr, how = _linear_counts_loop(
        Z,
        3 * X.shape[1] + 8,
        max_iter,
        trace,
        record_w=True,
        average=True,
        separates=lambda u, k: k > 0 and _data_separates(S, u / k),
        callback=callback,
        fields=fields,
    )
    alpha = counts / k if k else counts
    w = u / k if k else u
    return exit_result(how, k, max_iter=max_iter, unit="updates", alpha=alpha, w=w, trace=tr.data)


def nkp(
    G: GramLike,
    *,
    max_iter: int = DEFAULT_MAX_ITER_CHEAP,
    trace: bool = False,
    halt: bool = True,
    check_input: bool = True,
    cache_size: float = DEFAULT_CACHE_SIZE,
    callback: CallbackType = None,
) -> KpercResult:
    """Algorithm 3: the Normalised Kernel Perceptron (NKP).

    ``alpha_0 = 0`` and ``alpha_{k+1} = (1 - theta_k) alpha_k + theta_k e_j`` with
    ``theta_k = 1/(k+1)`` and ``j = argmin_i (G alpha_k)_i`` (first index on ties), until
    ``G alpha_k > 0`` (Section 4 of the paper). It is a subgradient method for ``L`` in the
    ``G``-geometry; if ``rho_K > 0`` it halts within ``1 / rho_K^2`` updates.

    Each iteration costs ``O(n)``: ``G alpha`` is updated with one column of ``G``. For
    a LinearOperator the columns go through a least-recently-used cache (as in LIBSVM),
    so each distinct column is computed once while it stays cached.

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator
        Normalised signed Gram matrix (:func:`kperc.gram_matrix`,
        :func:`kperc.gram_operator`).
        A torch (CPU or CUDA), CuPy or other array-API array, or the operator that
        :func:`kperc.kernel_gram_operator` returns for such data, runs on its device,
        exits certified with float64 products; ``alpha`` and ``p`` come back there.
    max_iter : int, default=1_000_000
        Cap on the number of updates. Each update costs ``O(n)`` (one column of ``G``), and the
        bound grows as ``1 / rho^2``, so this cap is ten times that of the ``O(n^2)``-per-iteration
        smoothed methods (:func:`kperc.snkp`), whose bounds grow only as ``1 / rho``: ``10^6``
        updates cover ``rho`` down to ``10^-3``.
    trace : bool
        Record ``min_Galpha``, ``norm_alpha_G``, ``margin``
        (``min_i (G alpha)_i / ||alpha||_G``) and ``L`` at every step.
    halt : bool
        With ``False`` the run continues after the first separating iterate until
        ``max_iter`` (to watch the margin keep improving); ``first_separator_nit`` then
        records the halting index.
    check_input : bool, default=True
        Validate ``G`` (square, symmetric, unit diagonal, finite: an ``O(n^2)`` scan).
        False checks only the shape; use it for a ``G`` from :func:`kperc.gram_matrix`
        or for repeated calls on the same matrix.
    cache_size : float
        Megabytes of the column cache when ``G`` is a LinearOperator (scikit-learn's
        ``SVC`` default, 200); ``0`` computes every column afresh. Unused for a dense
        ``G``.
    callback : callable, optional
        ``callback(intermediate_result)`` on every iteration (see the Notes of
        :class:`kperc.KpercResult`), with ``nit``, ``alpha`` (a copy) and ``min_Galpha``
        (``min_i (G alpha)_i``, maintained by the iteration). Raise
        :class:`StopIteration` to stop. Building ``alpha`` costs ``O(n)``, as much as an
        iteration with a cached column: a callback roughly doubles the cost of a run.

    Returns
    -------
    KpercResult
        Also ``first_separator_nit`` (``None`` if no iterate separated) and ``ncol``,
        the number of columns of ``G`` computed (``0`` for a dense ``G``).

    See Also
    --------
    kperc.reference.nkp : the same iteration written for reading, which this
        function reproduces.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(60, 3, rho=0.2, seed=0)
    >>> res = kperc.nkp(kperc.gram_matrix(X, y))
    >>> res.outcome, res.nit <= 1 / 0.2**2
    ('separator', True)
    """
    check_flags(trace=trace, halt=halt, check_input=check_input)
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    cache_size = check_nonnegative(cache_size, "cache_size")
    gram = as_any_gram(G, validate=check_input, cache_size=cache_size)
    n = gram.n
    diag = gram.diagonal()
    counts = np.zeros(n)
    g = np.zeros(n)  # G u with u = k alpha_k
    sq = 0.0  # ||u||_G^2
    tr = Tracer(trace, ("k", "min_Galpha", "norm_alpha_G", "margin", "L"))
    first = None
    # Performance (bench/test_periter.py): one pass over g per iteration (argmin, whose
    # value is the min), Python-float diagonal, and no allocation for the column of G.
    diag_list = diag.tolist()
    column_into = gram.column_into
    col = np.empty(n)
    callback = check_callback(callback)
    ties = GramSumBound(gram.rounding_terms)  # the tie rule of kperc._ties
    stopped = False
    unconfirmed = False  # G u > 0 as computed, not beyond rounding (kperc._device)
    k = 0
    while True:
        i = int(g.argmin())
        gmin = float(g[i])  # == g.min(): one pass over g gives both
        j = first_min_index(g, ties.err(k, sq), i)  # the point of the update
        if tr.enabled:
            nu = np.sqrt(max(sq, 0.0))
            scale = 1.0 / k if k else 0.0
            tr.add(
                k=k,
                min_Galpha=gmin * scale,
                norm_alpha_G=nu * scale,
                margin=gmin / nu if nu > 0 else 0.0,
                L=-gmin * scale + 0.5 * sq * scale * scale,
            )
        if gmin > 0 and first is None:
            if _fresh_certified(gram, counts, k):
                first = k
                if halt:
                    break
            else:
                unconfirmed = True
        if k >= max_iter:
            break
        if callback is not None and notify(
            callback,
            nit=k,
            alpha=counts / k if k else counts.copy(),
            min_Galpha=gmin / k if k else 0.0,
        ):
            stopped = True
            break
        gj, gjj = float(g[j]), diag_list[j]
        sq += 2.0 * gj + gjj
        ties.update(gj, gjj, sq)
        np.add(g, column_into(j, col), out=g)
        counts[j] += 1.0
        k += 1
    alpha = counts / k if k else counts
    if (halt and first is not None) or (
        not halt and float(g.min()) > 0 and _fresh_certified(gram, counts, k)
    ):
        how = "separator"
    else:
        how = "callback" if stopped else "max_iter"
    messages = undecided_messages(gram, how, unconfirmed, k, "updates")
    return finish(
        gram,
        exit_result(
            "undecided" if messages else how,
            k,
            max_iter=max_iter,
            unit="updates",
            halt=halt,
            stopped=stopped,
            messages=messages,
            alpha=alpha,
            trace=tr.data,
            first_separator_nit=first,
            ncol=gram.column_evals,
        ),
    )


def snkp(
    G: GramLike,
    *,
    max_iter: int = DEFAULT_MAX_ITER_DENSE,
    mu0: float = 2.0,
    trace: bool = False,
    halt: bool = True,
    check_input: bool = True,
    callback: CallbackType = None,
) -> KpercResult:
    """Algorithm 4: the Smoothed Normalised Kernel Perceptron (SNKP).

    Nesterov-smoothed version of NKP with the entropy prox-function (Section 4
    of the paper)::

        alpha_0 = 1/n, mu_0 = 2, p_0 = p_{mu_0}(alpha_0)
        theta_k     = 2 / (k + 3)
        alpha_{k+1} = (1 - theta_k)(alpha_k + theta_k p_k) + theta_k^2 p_{mu_k}(alpha_k)
        mu_{k+1}    = (1 - theta_k) mu_k                   (= 4 / ((k+1)(k+2)))
        p_{k+1}     = (1 - theta_k) p_k + theta_k p_{mu_{k+1}}(alpha_{k+1})

    until ``G alpha_k > 0``. If ``rho_K > 0`` the halting index ``K`` satisfies
    ``K (K + 1) <= 8 log n / rho_K^2`` (Theorem 1), so ``K < 2 sqrt(2 log n) / rho_K``.

    One product with ``G`` per iteration: ``G alpha`` and ``G p`` are maintained by
    linearity, and ``p_{mu_{k+1}}(alpha_{k+1})`` is reused as the next step's
    ``p_{mu_k}(alpha_k)``. A separator is re-verified with a fresh product.

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator
        A torch (CPU or CUDA), CuPy or other array-API array, or the operator that
        :func:`kperc.kernel_gram_operator` returns for such data, runs on its device,
        exits certified with float64 products; ``alpha`` and ``p`` come back there.
    max_iter : int, default=100_000
        Cap on the number of iterations. Each iteration costs one product with ``G`` (``O(n^2)`` for
        a dense ``G``), and Theorem 1 bounds their number by ``2 sqrt(2 log n) / rho``, below
        ``10^5`` for ``rho`` down to about ``10^-4`` at ``n = 10^4``, so the cap is ten times below
        that of the ``O(n)``-per-update methods (:func:`kperc.nkp`), whose bounds grow as
        ``1 / rho^2``.
    mu0 : float
        Initial smoothing; the guarantee needs ``mu0 >= 2`` (Appendix). Exposed to
        demonstrate that smaller values break Lemma 5.
    trace : bool
        Record ``mu``, ``L``, ``L_mu``, ``norm_p_G``, ``norm_alpha_G``, ``min_Galpha`` and
        ``margin`` at every iterate.
    halt : bool
        With ``False`` keep iterating after the first separating iterate.
    check_input : bool, default=True
        Validate ``G`` (square, symmetric, unit diagonal, finite: an ``O(n^2)`` scan).
        False checks only the shape; use it for a ``G`` from :func:`kperc.gram_matrix`
        or for repeated calls on the same matrix.
    callback : callable, optional
        ``callback(intermediate_result)`` on every iteration (see the Notes of
        :class:`kperc.KpercResult`), with ``nit``, ``alpha`` and ``p`` (copies), ``mu``
        and ``min_Galpha`` (``min_i (G alpha)_i``, which the iteration computes anyway).
        Raise :class:`StopIteration` to stop.

    Returns
    -------
    KpercResult
        ``alpha`` and ``p`` lie in the simplex; also ``first_separator_nit``.

    See Also
    --------
    kperc.reference.snkp : the same iteration written for reading, which this
        function reproduces.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(60, 3, rho=0.2, seed=0)
    >>> import numpy as np
    >>> res = kperc.snkp(kperc.gram_matrix(X, y))
    >>> res.outcome, bool(res.nit < 2 * np.sqrt(2 * np.log(60)) / 0.2)  # Theorem 1
    ('separator', True)
    """
    check_flags(trace=trace, halt=halt, check_input=check_input)
    gram = as_any_gram(G, validate=check_input)
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    mu = check_mu0(mu0)
    n = gram.n

    # Performance (bench/test_periter.py): the pairs (alpha, G alpha), (p, G p) and
    # (p_mu(alpha), G p_mu(alpha)) are the rows of three (2, n) arrays, so each update
    # of the three-line step is a few in-place ufunc calls on both rows at once, and the
    # softmax and the product with G write into preallocated rows. Every entry is
    # computed by the same floating-point operations as the textbook form
    # (``one * (alpha + theta * p) + theta**2 * phat``, ``softmax(-G alpha / mu)``), so
    # the iterates are bit-for-bit those of the allocating version, kperc.reference.snkp
    # (tests/lib/test_reference.py).
    X = np.empty((2, n))  # rows alpha, G alpha
    Y = np.empty((2, n))  # rows p, G p
    Z = np.empty((2, n))  # rows p_mu(alpha), G p_mu(alpha)
    T = np.empty((2, n))  # scratch
    alpha, ga = X
    p, gp = Y
    phat, gphat = Z
    alpha.fill(1.0 / n)
    ga[:] = gram.matvec(alpha)
    phat[:] = entropy_prox(ga, mu)
    gram.matvec_into(phat, gphat)
    Y[:] = Z
    matvec_into = gram.matvec_into
    keep = np.empty(n, dtype=bool)
    z = T[0]  # scratch row for the exponents
    # local names: each saves a global and an attribute lookup per call
    mul, add, div, sub = np.multiply, np.add, np.divide, np.subtract
    greater, exp, vmin, vsum = np.greater, np.exp, np.minimum.reduce, np.add.reduce
    tr = Tracer(trace, ("k", "mu", "L", "L_mu", "norm_p_G", "norm_alpha_G", "min_Galpha", "margin"))
    first = None
    gmin = float(ga.min())
    callback = check_callback(callback)
    stopped = False
    unconfirmed = False  # G alpha > 0 as computed, not beyond rounding (kperc._device)
    k = 0
    while True:
        if tr.enabled:
            sqa = max(float(alpha @ ga), 0.0)
            tr.add(
                k=k,
                mu=mu,
                L=-gmin + 0.5 * sqa,
                L_mu=mu * log_mean_exp(-ga / mu) + 0.5 * sqa,
                norm_p_G=np.sqrt(max(float(p @ gp), 0.0)),
                norm_alpha_G=np.sqrt(sqa),
                min_Galpha=gmin,
                margin=gmin / np.sqrt(sqa) if sqa > 0 else 0.0,
            )
        if gmin > 0 and first is None:
            ga[:] = gram.matvec(alpha)  # guard against drift of the linear updates
            gmin = float(ga.min())
            if certified_positive(gmin, gram.rounding_terms, float(alpha.sum())):
                first = k
                if halt:
                    break
            elif gmin > 0:
                unconfirmed = True
        if k >= max_iter:
            break
        if callback is not None and notify(
            callback, nit=k, alpha=alpha.copy(), p=p.copy(), mu=mu, min_Galpha=gmin
        ):
            stopped = True
            break
        theta = 2.0 / (k + 3)
        one = 1.0 - theta
        # (alpha, G alpha) <- one * ((alpha, G alpha) + theta * (p, G p)) + theta^2 * (phat, .)
        mul(Y, theta, out=T)
        add(X, T, out=T)
        mul(T, one, out=T)
        mul(Z, theta * theta, out=X)
        add(T, X, out=X)
        mu = one * mu
        gmin = float(vmin(ga))
        # phat = entropy_prox(G alpha, mu), written into its row: the shift
        # max(-G alpha / mu) is -gmin / mu exactly (division by -mu is monotone), so the
        # min found above is reused; exponents <= -EXP_FLOOR give 0 without calling exp.
        div(ga, -mu, out=z)
        sub(z, gmin / -mu, out=z)
        greater(z, -EXP_FLOOR, out=keep)
        phat.fill(0.0)
        exp(z, out=phat, where=keep)
        div(phat, vsum(phat), out=phat)
        matvec_into(phat, gphat)
        # (p, G p) <- one * (p, G p) + theta * (phat, G phat)
        mul(Y, one, out=Y)
        mul(Z, theta, out=T)
        add(Y, T, out=Y)
        k += 1
    if first is not None and (halt or gmin > 0):
        how = "separator"
    else:
        how = "callback" if stopped else "max_iter"
    messages = undecided_messages(gram, how, unconfirmed, k, "iterations")
    return finish(
        gram,
        exit_result(
            "undecided" if messages else how,
            k,
            max_iter=max_iter,
            halt=halt,
            stopped=stopped,
            messages=messages,
            alpha=alpha.copy(),
            p=p.copy(),
            trace=tr.data,
            first_separator_nit=first,
            mu=mu,
        ),
    )


def winnow(
    X: ArrayLike,
    y: ArrayLike,
    *,
    eta: float = 0.1,
    max_iter: int = DEFAULT_MAX_ITER_CHEAP,
    trace: bool = False,
    callback: CallbackType = None,
) -> KpercResult:
    """A Winnow-style multiplicative-weights method for the l_inf-normalised margin.

    Features are duplicated (``x -> (x, -x)``) so that a nonnegative weight vector
    ``v`` on the simplex of dimension ``2 d`` can represent any sign. Points are
    normalised by their l_inf norm, ``b_i = y_i (x_i, -x_i) / ||x_i||_inf``. While some
    ``b_i^T v <= 0``, the most violated ``b_j`` multiplies the weights:
    ``v <- v * exp(eta * b_j) / Z`` (Section 2.2 of the paper). For margin ``rho_inf`` the
    number of updates is of order ``log d / rho_inf^2`` for a suitable ``eta`` (about
    ``rho_inf``); the constant is not pinned down here.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
    eta : float
        Learning rate, ``eta > 0``.
    max_iter : int, default=1_000_000
        Cap on the number of updates. Each update costs ``O(n d)``, and the bound grows as
        ``log d / rho_inf^2``, so this cap is ten times that of the ``O(n^2)``-per-iteration
        smoothed methods (:func:`kperc.snkp`), whose bounds grow only as ``1 / rho``: ``10^6``
        updates cover ``rho_inf`` down to about ``10^-3``.
    trace : bool
        Record ``min_margin`` (``min_i b_i^T v``) at every step.
    callback : callable, optional
        ``callback(intermediate_result)`` on every iteration (see the Notes of
        :class:`kperc.KpercResult`), with ``nit``, ``alpha=None`` (Winnow has no
        ``alpha``), ``w`` and ``p`` (the weights ``v``; copies) and ``min_margin``.
        Raise :class:`StopIteration` to stop.

    Returns
    -------
    KpercResult
        ``w = v[:d] - v[d:]`` is the separator (``||w||_1 <= 1``).

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(60, 3, rho=0.2, seed=0)
    >>> res = kperc.winnow(X, y)
    >>> res.outcome, bool((y * (X @ res.w) > 0).all())
    ('separator', True)
    """
    X, y = check_Xy(X, y)
    eta = check_positive(eta, "eta")
    check_flags(trace=trace)
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    ninf = np.max(np.abs(X), axis=1)
    _check_diag(ninf)
    Bh = X / ninf[:, None] * y[:, None]  # b_i restricted to the first copy: B v = Bh w
    S = _signed_data_rows(X, y)
    B = np.hstack([Bh, -Bh])
    D = B.shape[1]
    d = X.shape[1]
    logv = np.full(D, -np.log(D))
    # m = B v afresh each time: 2 d products, rows of B rounded once, |B| <= 1, ||v||_1 = 1
    m_error = gamma(2 * d + 3)
    tr = Tracer(trace, ("k", "min_margin"))
    callback = check_callback(callback)
    stopped = False
    k = 0
    while True:
        v = np.exp(logv - logv.max())
        v /= v.sum()
        m = B @ v
        mmin = float(m.min())
        tr.add(k=k, min_margin=mmin)
        # the separator returned is w = v[:d] - v[d:]: certify y_i x_i^T w > 0 beyond
        # rounding on the data's own rows, not the rounded b_i (a single point gives v
        # uniform, w = 0 exactly, and B v = +-1e-17)
        ok = mmin > 0 and _data_separates(S, v[:d] - v[d:])
        if ok or k >= max_iter:
            break
        if callback is not None and notify(
            callback, nit=k, alpha=None, w=v[:d] - v[d:], p=v.copy(), min_margin=mmin
        ):
            stopped = True
            break
        with np.errstate(over="ignore"):
            # kept at max 0: entries only go down, to -inf at worst (weight 0), never to
            # +inf - inf = NaN, whatever eta (1e308 included)
            logv = logv + eta * B[first_min_index(m, m_error)]
            logv -= logv.max()
        k += 1
    how = "separator" if ok else "callback" if stopped else "max_iter"
    return exit_result(
        how, k, max_iter=max_iter, unit="updates", w=v[:d] - v[d:], p=v, trace=tr.data
    )

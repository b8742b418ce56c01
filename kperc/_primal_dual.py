"""Kernelised primal-dual smoothed perceptrons (paper Section 6).

* :func:`snkpvn`: Algorithm 6, SNKPVN(q, delta). The smoothed perceptron with the
  Euclidean prox-function centred at ``q``; it returns a separator, or a point ``p``
  of the simplex with ``||p||_G < delta``.
* :func:`isnkpvn`: Algorithm 7, ISNKPVN(gamma, eps). Restarts SNKPVN with the last
  dual point as centre and ``delta_t = ||q_t||_G / gamma``, so that ``||q_t||_G`` falls
  geometrically: a separator, or an ``eps``-certificate of infeasibility.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array_api import is_foreign, to_numpy
from ._dispatch import as_any_gram, finish, undecided_messages
from ._gram import (
    certified_positive,
    check_attainable,
    data_certifiable,
    quick_seminorm_bound,
    seminorm_floor,
    undecided_certificate,
)
from ._result import (
    STATUS,
    CallbackType,
    KpercResult,
    Tracer,
    check_callback,
    exit_result,
    notify,
    stopped_message,
)
from ._smoothing import euclidean_prox
from ._typing import ArrayLike, GramLike
from ._validation import check_flags, check_mu0, check_positive, check_simplex

__all__ = ["snkpvn", "isnkpvn"]

DEFAULT_MAX_ITER = 100_000


class _ProxWorkspace:
    """Buffers for :func:`euclidean_prox` without allocations (SNKPVN's inner loop)."""

    def __init__(self, n: int):
        self.n = n
        self.v = np.empty(n)
        self.srt = np.empty(n)
        self.css = np.empty(n)
        self.tmp = np.empty(n)
        self.cond = np.empty(n, dtype=bool)
        self.idx = np.arange(1, n + 1, dtype=np.float64)

    def prox_into(self, ga: np.ndarray, mu: float, q: np.ndarray, out: np.ndarray) -> None:
        """``out[:] = euclidean_prox(ga, mu, q)``, bit-identical to it.

        The same operations as :func:`kperc._smoothing.project_simplex` applied to
        ``q - ga / mu``, written into preallocated buffers.
        """
        v, u, css, tmp, cond = self.v, self.srt, self.css, self.tmp, self.cond
        np.divide(ga, mu, out=v)
        np.subtract(q, v, out=v)
        u[:] = v
        u.sort()
        u = u[::-1]  # decreasing
        np.cumsum(u, out=css)
        css -= 1.0
        np.divide(css, self.idx, out=tmp)
        np.subtract(u, tmp, out=tmp)
        np.greater(tmp, 0.0, out=cond)
        r = self.n - int(cond[::-1].argmax())  # the last index where cond holds (1-based)
        if not cond[r - 1]:  # pragma: no cover - cond holds at r = 1 for finite input
            out[:] = euclidean_prox(ga, mu, q)
            return
        tau = css[r - 1] / r
        np.subtract(v, tau, out=out)
        np.maximum(out, 0.0, out=out)


def _snkpvn_core(
    gram, q, delta, max_iter, mu0, trace, callback=None, offset=0, outer=None, data=True
):
    """SNKPVN's loop. The callback sees ``nit = offset + k`` (and ``nouter = outer`` when
    given): ISNKPVN numbers the iterations of its successive calls consecutively. With
    ``data`` the certificate exit bounds ``||p||`` for the exact Gram matrix of the data
    (``gram.data_bound``); without, for ``G`` as rounded."""
    n = gram.n
    mu = 2.0 * n if mu0 is None else mu0
    # Performance (bench/test_periter.py): as in kperc.snkp, the pairs (alpha, G alpha),
    # (p, G p) and (phat, G phat) are the rows of (2, n) arrays updated in place, and the
    # prox map writes into preallocated buffers; the arithmetic is that of the textbook
    # form, kperc.reference.snkpvn (bit-identical iterates: tests/lib/test_reference.py).
    X = np.empty((2, n))  # rows alpha, G alpha
    Y = np.empty((2, n))  # rows p, G p
    Z = np.empty((2, n))  # rows phat, G phat
    T = np.empty((2, n))  # scratch
    alpha, ga = X
    p, gp = Y
    phat, gphat = Z
    alpha[:] = q
    ga[:] = gram.matvec(alpha)
    phat[:] = euclidean_prox(ga, mu, q)
    gram.matvec_into(phat, gphat)
    Y[:] = Z
    ws = _ProxWorkspace(n)
    matvec_into = gram.matvec_into
    tr = Tracer(trace, ("k", "mu", "L", "L_mu_q", "norm_p_G", "norm_alpha_G", "min_Galpha"))
    unconfirmed = False  # G alpha > 0 as computed, not beyond rounding (kperc._device)
    k = 0
    while True:
        gmin = float(ga.min())
        normp = np.sqrt(max(float(p @ gp), 0.0))
        if tr.enabled:
            sqa = max(float(alpha @ ga), 0.0)
            pbar = euclidean_prox(ga, mu, q)
            diff = pbar - q
            tr.add(
                k=k,
                mu=mu,
                L=-gmin + 0.5 * sqa,
                L_mu_q=-(ga @ pbar) - 0.5 * mu * (diff @ diff) + 0.5 * sqa,
                norm_p_G=normp,
                norm_alpha_G=np.sqrt(sqa),
                min_Galpha=gmin,
            )
        if gmin > 0:
            ga[:] = gram.matvec(alpha)  # guard against drift of the linear updates
            if certified_positive(float(ga.min()), gram.rounding_terms, float(alpha.sum())):
                how = "separator"
                break
            unconfirmed = unconfirmed or float(ga.min()) > 0
        if normp < delta:  # reached only when G alpha_k > 0 fails (after a refresh)
            exact, upper = gram.seminorm_bound(p)  # stable value and rounding-aware bound
            if (gram.data_bound(p, upper) if data else upper) < delta:
                gram.check_certificate(p)
                how = "certificate"
                break
            gp[:] = gram.matvec(p)
        if k >= max_iter:
            how = "max_iter"
            break
        if callback is not None:
            info = {} if outer is None else {"nouter": outer}
            if notify(
                callback,
                nit=offset + k,
                alpha=alpha.copy(),
                p=p.copy(),
                mu=mu,
                norm_p_G=normp,
                min_Galpha=gmin,
                **info,
            ):
                how = "callback"
                break
        theta = 2.0 / (k + 3)
        one = 1.0 - theta
        # (alpha, G alpha) <- one * ((alpha, G alpha) + theta * (p, G p)) + theta^2 * (phat, .)
        np.multiply(Y, theta, out=T)
        np.add(X, T, out=T)
        np.multiply(T, one, out=T)
        np.multiply(Z, theta * theta, out=X)
        np.add(T, X, out=X)
        mu = one * mu
        ws.prox_into(ga, mu, q, phat)
        matvec_into(phat, gphat)
        # (p, G p) <- one * (p, G p) + theta * (phat, G phat)
        np.multiply(Y, one, out=Y)
        np.multiply(Z, theta, out=T)
        np.add(Y, T, out=Y)
        k += 1
    messages = {"callback": stopped_message(offset + k)}  # counted over ISNKPVN's calls
    extra: dict[str, Any] = {"mu": mu}
    if how == "certificate":
        messages[how] = f"||p||_G = {exact:.3g} < delta = {delta:.3g} after {k} iterations"
        extra["norm_p_G"] = exact
    elif how == "max_iter":
        floor = seminorm_floor(gram, data=data)
        note = (
            f" (delta={delta:g} is below the certifiable floor {floor:.2g} of ||p||_G, "
            "so the certificate exit cannot fire)"
            if delta <= floor
            else ""
        )
        messages[how] = f"neither exit fired within max_iter={max_iter} iterations{note}"
        undecided = undecided_messages(gram, how, unconfirmed, offset + k, "iterations")
        if undecided:
            how = "undecided"
            messages.update(undecided)
    return exit_result(
        how,
        k,
        max_iter=max_iter,
        messages=messages,
        alpha=alpha.copy(),
        p=p.copy(),
        trace=tr.data,
        **extra,
    )


def snkpvn(
    G: GramLike,
    q: ArrayLike | None = None,
    delta: float = 1e-3,
    *,
    max_iter: int = DEFAULT_MAX_ITER,
    mu0: float | None = None,
    trace: bool = False,
    check_input: bool = True,
    callback: CallbackType = None,
) -> KpercResult:
    """Algorithm 6: SNKPVN(q, delta), the primal-dual smoothed kernel perceptron.

    The update is that of SNKP (:func:`kperc.snkp`) with the Euclidean prox-function
    ``||p - q||^2 / 2`` (smoothed minimiser: projection of ``q - G alpha / mu`` onto the
    simplex), ``alpha_0 = q`` and ``mu_0 = 2 n``, so ``mu_k = 4 n / ((k+1)(k+2))``. It
    stops when ``G alpha_k > 0`` (separator) or else when ``||p_k||_G < delta``.

    Guarantees (Section 6 of the paper): it always halts within ``2 sqrt(2 n) / delta``
    iterations; if ``rho_K > 0`` within ``2 sqrt(2n) / max(rho_K, delta)``, and with
    ``delta <= rho_K`` only through a separator; if the problem is infeasible,
    within ``2 sqrt(n) dist(q, W) / delta``.

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator
        A torch (CPU or CUDA), CuPy or other array-API array, or the operator that
        :func:`kperc.kernel_gram_operator` returns for such data, runs on its device,
        exits certified with float64 products; ``alpha`` and ``p`` come back there.
    q : array_like of shape (n,), optional
        Prox centre in the simplex (default: the barycentre ``1/n``).
    delta : float
        Dual tolerance, ``delta > 0``. The certificate exit fires only when
        ``||p||_G < delta`` is certified despite rounding; below that floor (about
        ``sqrt(2 n u)`` for a dense ``G``, ``u`` the round-off of ``np.longdouble``) the
        run ends at ``max_iter``, and the message says why. For a ``G`` built from data
        the certificate holds for the data's exact Gram matrix, and below twice the
        floor of that the run ends ``"undecided"`` (see :func:`kperc.isnkpvn`).
    max_iter : int, default=100_000
        Cap on the number of iterations. Each iteration costs one product with ``G`` (``O(n^2)`` for
        a dense ``G``), and Section 6 bounds their number by ``2 sqrt(2 n) / delta``, so the cap is
        ten times below that of the ``O(n)``-per-update methods (:func:`kperc.nkp`), whose bounds
        grow as ``1 / rho^2``.
    mu0 : float, optional
        Initial smoothing (default ``2 n``, the value the Appendix proof needs).
    trace : bool
        Record ``mu``, ``L``, ``L_mu_q``, ``norm_p_G``, ``norm_alpha_G`` and
        ``min_Galpha`` at every iterate.
    check_input : bool, default=True
        Validate ``G`` (square, symmetric, unit diagonal, finite: an ``O(n^2)`` scan).
        False checks only the shape; use it for a ``G`` from :func:`kperc.gram_matrix`
        or for repeated calls on the same matrix.
    callback : callable, optional
        ``callback(intermediate_result)`` on every iteration (see the Notes of
        :class:`kperc.KpercResult`), with ``nit``, ``alpha`` and ``p`` (copies), ``mu``,
        ``norm_p_G`` (``||p||_G`` from the maintained ``G p``) and ``min_Galpha``
        (``min_i (G alpha)_i``), all computed by the iteration anyway. Raise
        :class:`StopIteration` to stop.

    Returns
    -------
    KpercResult

    See Also
    --------
    kperc.reference.snkpvn : the same iteration written for reading, which this
        function reproduces.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import infeasible
    >>> X, y = infeasible(40, 2, rho=-0.2, seed=0)
    >>> res = kperc.snkpvn(kperc.gram_matrix(X, y), delta=1e-2)
    >>> res.outcome, res.norm_p_G < 1e-2
    ('certificate', True)
    """
    check_flags(trace=trace, check_input=check_input)
    gram = as_any_gram(G, validate=check_input)
    n = gram.n
    if q is not None and is_foreign(q):
        q = to_numpy(q)
    q = np.full(n, 1.0 / n) if q is None else check_simplex(q, n)
    # a delta below the certifiable floor is allowed (the certificate exit then never
    # fires and the run ends at max_iter, as when watching a trajectory); say so then
    delta = check_positive(delta, "delta")
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    if mu0 is not None:
        mu0 = check_mu0(mu0)
    on_data = data_certifiable(delta, gram)
    res = _snkpvn_core(gram, q, delta, max_iter, mu0, trace, check_callback(callback), data=on_data)
    if res.outcome == "certificate" and not on_data:  # holds for G as rounded only
        message = undecided_certificate("delta", delta, gram)
        res.update(outcome="undecided", success=False, status=STATUS["undecided"])
        res.message = message
    return finish(gram, res)


def isnkpvn(
    G: GramLike,
    *,
    gamma: float = 2.0,
    eps: float = 1e-3,
    max_iter: int = DEFAULT_MAX_ITER,
    trace: bool = False,
    check_input: bool = True,
    callback: CallbackType = None,
) -> KpercResult:
    """Algorithm 7: ISNKPVN(gamma, eps), iterated SNKPVN.

    ::

        q_0 = 1/n
        for t = 0, 1, ...
            if ||q_t||_G <= eps: certificate q_t                   (q_t may already be one)
            delta_t = ||q_t||_G / gamma
            r = SNKPVN(q_t, delta_t)
            if r is a separator: return it
            q_{t+1} = r.p                                          (||q_{t+1}||_G < delta_t)
            if delta_t < eps: certificate q_{t+1}

    ``||q_t||_G`` falls at least by the factor ``gamma`` per outer loop: the linear
    convergence in ``eps`` of the dual side.

    Parameters
    ----------
    G : ndarray of shape (n, n) or LinearOperator
        A torch (CPU or CUDA), CuPy or other array-API array, or the operator that
        :func:`kperc.kernel_gram_operator` returns for such data, runs on its device,
        exits certified with float64 products; ``alpha`` and ``p`` come back there.
    gamma : float
        Decrease factor, ``gamma > 1``.
    eps : float
        Certificate tolerance, ``eps > 0``. Certificates are certified despite rounding;
        an ``eps`` below twice the attainable accuracy of ``||q||_G`` (about
        ``sqrt(2 n u)`` for a dense ``G``, ``u`` the round-off of ``np.longdouble``) is
        refused with a ValueError. For a ``G`` built from data
        (:func:`kperc.gram_matrix`, :func:`kperc.gram_operator`) the certificate holds
        for the exact Gram matrix ``G*`` of the data: with ``|G_ij - G*_ij| <= delta``,
        ``||q||_{G*}^2 <= ||q||_G^2 + delta`` on the simplex, so its floor is about
        ``sqrt(delta)`` (``4e-8`` for the linear kernel in 2 features; a factor's is
        near ``n u``). Below twice that floor a certificate of ``G`` as rounded says
        nothing about the data: the run ends with outcome ``"undecided"`` (``success``
        False) and a RuntimeWarning naming ``eps`` and the floor; pass ``np.array(G)``
        to certify the matrix as given.
    max_iter : int, default=100_000
        Cap on the total number of inner (SNKPVN) iterations. Each iteration costs one product with
        ``G`` (``O(n^2)`` for a dense ``G``), and the default of :func:`snkpvn` is kept for their
        sum, so the cap is ten times below that of the ``O(n)``-per-update methods
        (:func:`kperc.nkp`), whose bounds grow as ``1 / rho^2``.
    trace : bool
        Record, per outer loop, ``norm_q_G``, ``delta``, ``inner_nit`` and the inner
        ``outcome``.
    check_input : bool, default=True
        Validate ``G`` (square, symmetric, unit diagonal, finite: an ``O(n^2)`` scan).
        False checks only the shape; use it for a ``G`` from :func:`kperc.gram_matrix`
        or for repeated calls on the same matrix.
    callback : callable, optional
        ``callback(intermediate_result)`` on every inner (SNKPVN) iteration, with the
        fields of :func:`kperc.snkpvn`'s callback, ``nit`` counted over all calls (it
        increases through the restarts) and ``nouter``, the index of the current call.
        Raise :class:`StopIteration` to stop.

    Returns
    -------
    KpercResult
        ``nit`` is the total number of inner iterations; ``nouter`` the number of
        SNKPVN calls.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import infeasible
    >>> X, y = infeasible(40, 2, rho=-0.2, seed=0)
    >>> G = kperc.gram_matrix(X, y)
    >>> res = kperc.isnkpvn(G, eps=1e-4)
    >>> res.outcome, res.norm_p_G <= 1e-4
    ('certificate', True)

    One point under both labels: ``||q_0||_G = 0``, but ``eps = 1e-8`` is below what
    can be certified for the data (their Gram matrix rounded, ``delta`` about
    ``1.6e-15``); a copy of ``G`` is a matrix taken as given.

    >>> import warnings, numpy as np
    >>> G = kperc.gram_matrix([[1.0, 2.0], [1.0, 2.0]], [1, -1])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = kperc.isnkpvn(G, eps=1e-8)
    >>> res.outcome, res.success, caught[0].category.__name__
    ('undecided', False, 'RuntimeWarning')
    >>> kperc.isnkpvn(np.array(G), eps=1e-8).outcome
    'certificate'
    """
    check_flags(trace=trace, check_input=check_input)
    gram = as_any_gram(G, validate=check_input)
    gamma = check_positive(gamma, "gamma")
    if gamma <= 1.0:
        raise ValueError(f"gamma must be > 1 (the factor by which ||q||_G falls); got {gamma}.")
    eps = check_attainable(check_positive(eps, "eps"), "eps", gram)
    max_iter = check_positive(max_iter, "max_iter", integer=True)
    n = gram.n
    # for a G built from data the certificate must hold for the data's exact Gram matrix;
    # below the floor of that, the run certifies G as rounded and reports "undecided"
    on_data = data_certifiable(eps, gram)
    floor = 2.0 * seminorm_floor(gram, data=on_data)
    q = np.full(n, 1.0 / n)
    tr = Tracer(trace, ("t", "norm_q_G", "delta", "inner_nit", "outcome"))
    callback = check_callback(callback)
    total = 0
    t = 0
    while True:
        # the first q is the centre of the simplex, far from cancellation on most data: one
        # product decides it (a call's fixed cost); later q go through the extended bound
        if t == 0:
            nq, upper = quick_seminorm_bound(gram, q, data=on_data)
        else:
            nq, upper = gram.seminorm_bound(q)
            upper = gram.data_bound(q, upper) if on_data else upper
        if upper <= eps:
            tr.add(t=t, norm_q_G=nq, delta=0.0, inner_nit=0, outcome="guard")
            how, alpha, below = "certificate", q.copy(), "<="  # q_t is already one
            break
        delta = max(nq / gamma, floor)  # an inner tolerance that can be certified
        r = _snkpvn_core(
            gram, q, delta, max_iter - total, None, False, callback, total, t, data=on_data
        )
        total += r.nit
        tr.add(t=t, norm_q_G=nq, delta=delta, inner_nit=r.nit, outcome=r.outcome)
        q = r.p
        t += 1
        if r.outcome != "certificate":  # a separator, the callback or max_iter ends it all
            how, alpha = r.outcome, r.alpha
            break
        if delta < eps:  # the inner run certified ||q||_G < delta
            nq = gram.seminorm(q)
            tr.add(t=t, norm_q_G=nq, delta=0.0, inner_nit=0, outcome="final")
            how, alpha, below = "certificate", r.alpha, "<"
            break
    messages = {
        "separator": f"separator found after {t} calls and {total} iterations",
        "max_iter": f"no exit within max_iter={max_iter} total iterations",
    }
    if how == "undecided":  # a separator that float32 could not confirm (kperc._device)
        messages[how] = r.message
    extra: dict[str, Any] = {}
    if how == "certificate":
        gram.check_certificate(q)
        messages[how] = (
            f"eps-certificate (||q||_G = {nq:.3g} {below} {eps:g}) after {t} calls and "
            f"{total} iterations"
        )
        extra["norm_p_G"] = nq
        if not on_data:  # certified for G as rounded only
            how = "undecided"
            messages[how] = undecided_certificate("eps", eps, gram)
    return finish(
        gram,
        exit_result(
            how,
            total,
            max_iter=max_iter,
            messages=messages,
            alpha=alpha,
            p=q,
            trace=tr.data,
            nouter=t,
            **extra,
        ),
    )

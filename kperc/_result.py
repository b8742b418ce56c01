"""One result type for every algorithm, in the style of ``scipy.optimize.OptimizeResult``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from scipy.optimize import OptimizeResult

#: ``status`` codes shared by every algorithm.
STATUS = {"separator": 0, "certificate": 1, "max_iter": 2, "callback": 3, "undecided": 4}


class KpercResult(OptimizeResult):
    """Outcome of a kperc algorithm.

    A dictionary with attribute access (a subclass of
    :class:`scipy.optimize.OptimizeResult`). Every algorithm fills at least the
    attributes below. Some algorithms add fields of their own, documented with them:
    ``first_separator_nit`` (NKP, SNKP), ``ncol`` (NKP, NVN: columns of ``G`` computed,
    in the manner of ``nfev``), ``mu`` (the smoothed methods) and ``nouter`` (ISNKPVN).

    Attributes
    ----------
    outcome : {"separator", "certificate", "max_iter", "callback", "undecided"}
        How the run ended; ``"callback"`` when the ``callback`` raised
        :class:`StopIteration` before an exit test passed; ``"undecided"`` (the
        certificate methods) when a certificate holds for ``G`` as rounded but its
        ``eps`` is below what can be certified for the data ``G`` was built from (a
        RuntimeWarning names ``eps`` and that floor).
    success : bool
        ``True`` when the run ended with a separator or a certificate.
    status : int
        0 for a separator, 1 for a certificate, 2 when ``max_iter`` was reached, 3 when
        the run was stopped by its callback, 4 when undecided.
    message : str
        A sentence that says what happened.
    nit : int
        The halting index: the number of updates made before the exit test passed.
        This is the quantity that the paper's iteration bounds count.
    alpha : ndarray of shape (n_samples,)
        Coefficients of the last iterate; ``G @ alpha > 0`` when ``outcome`` is
        ``"separator"``.
    p : ndarray of shape (n_samples,) or None
        A point of the simplex; the certificate when ``outcome`` is ``"certificate"``.
    w : ndarray of shape (n_features,) or None
        The weight vector (linear-form algorithms only).
    trace : dict of ndarray or None
        Per-iteration quantities, recorded when the algorithm was called with
        ``trace=True``.

    Notes
    -----
    *Callbacks.* Every iterative algorithm takes a keyword ``callback``, called once per
    iteration as ``callback(intermediate_result)`` in the convention of
    :func:`scipy.optimize.minimize`. ``intermediate_result`` is an
    :class:`~scipy.optimize.OptimizeResult` with ``nit`` (the number of updates made so
    far), ``alpha`` (the current iterate: a fresh copy that the callback may keep;
    ``None`` for :func:`kperc.winnow`, which has no ``alpha``) and the algorithm's
    progress quantities, documented with its ``callback`` parameter; they are values the
    iteration computes anyway, so a callback adds no product with ``G``. It is called on
    every iterate that has not passed the exit test, before the update, so ``nit`` takes
    the values ``0, 1, ..., K - 1`` in a run that halts at ``K``. Raising
    :class:`StopIteration` in the callback stops the run: the result then has outcome
    ``"callback"`` (status 3, ``success`` False) and the iterate the callback saw, which
    is not a separator (it has just failed the exit test). With ``callback=None`` (the
    default) the loop does no extra work.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(40, 3, rho=0.2, seed=0)
    >>> seen = []
    >>> res = kperc.snkp(kperc.gram_matrix(X, y), callback=lambda r: seen.append(r.nit))
    >>> seen == list(range(res.nit))
    True
    >>> def stop_at_one(r):
    ...     if r.nit == 1:
    ...         raise StopIteration
    >>> stopped = kperc.snkp(kperc.gram_matrix(X, y), callback=stop_at_one)
    >>> stopped.outcome, stopped.status, stopped.nit, stopped.success
    ('callback', 3, 1, False)
    >>> res = kperc.snkp(kperc.gram_matrix(X, y))
    >>> res.outcome, res.success, res.status
    ('separator', True, 0)
    >>> sorted(k for k in res if k != "trace")[:4]
    ['alpha', 'first_separator_nit', 'message', 'mu']
    """


def make_result(
    outcome: str,
    nit: int,
    message: str,
    *,
    alpha: np.ndarray | None = None,
    p: np.ndarray | None = None,
    w: np.ndarray | None = None,
    trace: dict[str, list] | None = None,
    **extra: Any,
) -> KpercResult:
    """Assemble a :class:`KpercResult`; lists in ``trace`` become arrays."""
    if outcome not in STATUS:  # pragma: no cover - internal misuse
        raise ValueError(f"unknown outcome {outcome!r}")
    tr = None
    if trace is not None:
        tr = {key: np.asarray(val) for key, val in trace.items()}
    return KpercResult(
        outcome=outcome,
        success=outcome in ("separator", "certificate"),
        status=STATUS[outcome],
        message=message,
        nit=int(nit),
        alpha=alpha,
        p=p,
        w=w,
        trace=tr,
        **extra,
    )


def exit_result(
    how: str,
    nit: int,
    *,
    max_iter: int,
    unit: str = "iterations",
    halt: bool = True,
    stopped: bool = False,
    messages: Mapping[str, str] | None = None,
    alpha: np.ndarray | None = None,
    p: np.ndarray | None = None,
    w: np.ndarray | None = None,
    trace: dict[str, list] | None = None,
    **extra: Any,
) -> KpercResult:
    """The one exit of every algorithm: the result of a run that ended by ``how``.

    ``how`` is the loop's stop reason (a key of :data:`STATUS`) and ``nit`` its halting
    index; the remaining fields go to the result as they are. The message is the
    algorithm's own for that exit (``messages[how]``) when it gives one, and otherwise:

    * ``"separator"``: ``"separator found after {nit} {unit}"``; for a run with
      ``halt=False``, which went on past its first separating iterate
      (``extra["first_separator_nit"]``), ``"ran {nit} {unit}; the first separating
      iterate was at {first}"``. With ``stopped`` (the callback ended a run whose last
      iterate separates) it starts with ``"stopped by callback; "``.
    * ``"max_iter"``: ``"no separator within max_iter={max_iter} {unit}"``.
    * ``"callback"``: :func:`stopped_message` of ``nit``.
    * ``"certificate"``, ``"undecided"``: none; an algorithm with that exit words it in
      ``messages``.
    """
    message = (messages or {}).get(how)
    if message is None:
        if how == "separator":
            message = (
                f"separator found after {nit} {unit}"
                if halt
                else f"ran {nit} {unit}; the first separating iterate was at "
                f"{extra['first_separator_nit']}"
            )
        elif how == "max_iter":
            message = f"no separator within max_iter={max_iter} {unit}"
        elif how == "callback":
            message = stopped_message(nit)
        else:  # pragma: no cover - internal misuse
            raise ValueError(f"no message for the exit {how!r}")
    if how == "separator" and stopped:
        message = f"stopped by callback; {message}"
    return make_result(how, nit, message, alpha=alpha, p=p, w=w, trace=trace, **extra)


class Tracer:
    """Collects per-iteration scalars when tracing is on; does nothing otherwise."""

    def __init__(self, enabled: bool, keys: tuple[str, ...]):
        self.enabled = bool(enabled)
        self.data: dict[str, list] | None = {k: [] for k in keys} if self.enabled else None

    def add(self, **values: Any) -> None:
        if self.data is not None:
            for key, val in values.items():
                self.data[key].append(val)

    def amend(self, **values: Any) -> None:
        """Overwrite the latest entry of each key (a value known only after ``add``)."""
        if self.data is not None:
            for key, val in values.items():
                self.data[key][-1] = val


CallbackType = Callable[[OptimizeResult], Any] | None
"""``callback(intermediate_result)``, as in :func:`scipy.optimize.minimize`."""


def check_callback(callback: Any) -> CallbackType:
    """``callback`` itself, or a TypeError that says what is expected."""
    if callback is not None and not callable(callback):
        raise TypeError(
            f"callback must be a callable taking one OptimizeResult (or None); got "
            f"{type(callback).__name__}."
        )
    return callback


def notify(callback: Callable[[OptimizeResult], Any], **fields: Any) -> bool:
    """Call ``callback`` with an :class:`OptimizeResult` of ``fields``.

    Returns ``True`` when the callback raised :class:`StopIteration` (the run must stop).
    """
    try:
        callback(OptimizeResult(**fields))
    except StopIteration:
        return True
    return False


def stopped_message(nit: int) -> str:
    """The message of a run that its callback stopped."""
    return f"stopped by callback after {nit} iterations (no exit test passed)"

"""A Gram matrix that was checked: the forms the algorithms iterate on.

:func:`as_gram` validates ``G`` (dense, or a LinearOperator) once and wraps it as a
:class:`_DenseGram` or an :class:`_OperatorGram` (with its column cache); the forms carry
what a certificate needs: the rounding terms of ``G alpha`` (:func:`certified_positive`)
and the bounds on ``||p||_G``, for ``G`` as rounded and, when it was built from data, for
the data's exact Gram matrix (:func:`quick_seminorm_bound`, :func:`seminorm_floor`).

One mechanism says that a ``G`` was checked: its provenance. A matrix of
:func:`kperc.gram_matrix` (valid by construction) or of a :class:`ValidatedGram` (checked
once: the Cholesky test alone costs a few hundred products ``G @ v`` at ``n = 2000``) is
registered read-only with what is known about it (``_validation.GramProvenance``), and
every operator kperc builds is a ``TrustedGramOperator``; :func:`as_gram` takes both
without checking them again. It was kept over a caller's ``check_input=False`` because it
travels with the matrix and cannot outlive a change to it (the buffer is read-only; a
factor's stored rows are re-checked). ``validate=False`` is what the algorithms'
``check_input=False`` asks for: a caller's promise, which a ``ValidatedGram`` makes
unnecessary.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse
from scipy.sparse.linalg import LinearOperator

from . import _validation
from ._gram_matrix import GramOperator, gram_matrix
from ._kernel_values import _U
from ._typing import ArrayLike, GramLike, KernelLike
from ._validation import (
    DIAG_TOL,
    GramProvenance,
    TrustedGramOperator,
    check_gram,
    check_operator,
    check_operator_output,
    gram_provenance,
    row_norms,
    trust_gram,
)

DEFAULT_CACHE_SIZE = 200.0
"""Megabytes of the column cache of NKP and NVN on a LinearOperator (scikit-learn's
``SVC(cache_size=200)`` default)."""


def _dense_seminorm_bound(G: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """``sqrt(p^T G p)`` accumulated in long double, and an upper bound (see _DenseGram).

    ``G`` is converted to long double ``block`` rows at a time; ``block = n / 32`` keeps that
    copy (16 bytes an entry) at 1/16 of ``G``'s own memory whatever ``n``.
    """
    pl = np.asarray(p, dtype=np.longdouble)
    q: Any = np.longdouble(0.0)  # a long-double scalar (numpy's stubs say ndarray)
    block = max(16, G.shape[0] // 32)
    for start in range(0, G.shape[0], block):
        stop = start + block
        q += pl[start:stop] @ (G[start:stop].astype(np.longdouble) @ pl)
    ul = np.finfo(np.longdouble).eps / 2
    l1 = float(np.abs(p).sum())
    err = float(2 * (G.shape[0] + 2) * ul) * l1 * l1  # |G_ij| <= 1 (+ validation slack)
    qf = max(float(q), 0.0)
    return float(np.sqrt(qf)), float(np.sqrt(qf + err))


def quick_seminorm_bound(gram, p: np.ndarray, *, data: bool = True) -> tuple[float, float]:
    """``gram.seminorm_bound(p)``, from one BLAS product when that is accurate enough;
    with ``data`` (the default) the bound holds for the exact Gram matrix of the data
    when ``G`` was built from data (:meth:`_DenseGram.data_bound`).

    On a dense ``G`` the bound accumulates ``p^T G p`` in extended precision without BLAS,
    which costs about 25 products at ``n = 2000``. In double precision ``p^T (G p)`` is
    off by at most ``2 (n + 2) u ||p||_1^2`` (each ``(G p)_i`` by ``(n + 2) u ||p||_1``,
    ``|G_ij| <= 1``). When that error is below ``1e-8`` of the computed value, the double
    value and its bound are returned (the value is then within ``1e-8`` relative of the
    extended one); otherwise, where the sum cancels, the extended computation decides.
    """
    if not isinstance(gram, _DenseGram):
        val, upper = gram.seminorm_bound(p)
    else:
        q = float(p @ (gram.G @ p))
        l1 = float(np.abs(p).sum())
        err = 2.0 * (gram.n + 2) * _U * l1 * l1
        if q > 0 and err <= 1e-8 * q:
            val, upper = float(np.sqrt(q)), float(np.sqrt(q + err))
        else:
            val, upper = gram.seminorm_bound(p)
    return val, (gram.data_bound(p, upper) if data else upper)


def seminorm_floor(gram, *, data: bool = True) -> float:
    """The smallest ``||p||_G`` bound attainable for ``p`` in the simplex (``p = 0`` ideal).

    An ``eps`` (or ``delta``) at or below this value cannot be certified in floating
    point; the algorithms refuse it. With ``data`` (the default), for a ``G`` built from
    data (:func:`gram_matrix`, :func:`gram_operator`) the floor is that of the exact
    Gram matrix ``G*`` of the data (:meth:`_DenseGram.data_bound`): about
    ``sqrt(entry_error)`` for a dense ``G``, ``row_error`` more for a factor.
    """
    if hasattr(gram, "seminorm_floor"):  # a G on a device (kperc._device.DeviceGram)
        return gram.seminorm_floor(data)
    if isinstance(gram, _DenseGram):
        ul = np.finfo(np.longdouble).eps / 2
        floor2 = 2 * (gram.n + 2) * ul + (gram.entry_error if data else 0.0)
        return float(np.sqrt(floor2))
    G = getattr(gram, "G", None)
    if isinstance(G, GramOperator):
        if G.sparse:  # see GramOperator.seminorm_bound
            floor = float((G.col_nnz + 2) * _U)
        else:
            floor = float((G.shape[0] + 2) * _U * np.sqrt(G.Z.shape[1]))
        return floor + (G.row_error if data else 0.0)
    return float(np.sqrt(2 * (gram.n + 2) * _U))


def check_attainable(value: float, name: str, gram) -> float:
    """Refuse a tolerance on ``||p||_G`` that floating point cannot certify for ``G`` as
    given (:func:`data_certifiable` tells whether it can be for the data)."""
    floor = seminorm_floor(gram, data=False)
    if value <= 2.0 * floor:
        raise ValueError(
            f"{name}={value:g} is below the accuracy with which ||p||_G can be certified "
            f"for this G (about {floor:.2g}: rounding in p^T G p, n = {gram.n}); use "
            f"{name} > {2.0 * floor:.2g}, or a kperc.GramOperator (factored G), whose "
            "floor is lower."
        )
    return value


def data_certifiable(value: float, gram) -> bool:
    """Whether a bound ``||p||_G <= value`` can be certified for what ``G`` stands for.

    True for a matrix or operator taken as given (its own floor is checked by
    :func:`check_attainable`). For one built from data, whether ``value`` is above twice
    the floor of the exact Gram matrix of the data (:func:`seminorm_floor`); when it is
    not, the algorithms test their certificate on ``G`` as rounded and report the
    outcome ``"undecided"`` (:func:`undecided_certificate`) instead of a certificate.
    """
    return not gram.from_data or value > 2.0 * seminorm_floor(gram)


def undecided_certificate(name: str, value: float, gram, stacklevel: int = 3) -> str:
    """Warn (RuntimeWarning) that a certificate at ``name=value`` holds for ``G`` as
    rounded but cannot be certified for the data; the sentence is returned for the
    result's message."""
    import warnings

    floor = 2.0 * seminorm_floor(gram)
    message = (
        f"undecided: a point p of the simplex has ||p||_G <= {name}={value:g} for G as "
        f"rounded, but G was built from data (its entries within {gram.entry_error:.2g} "
        f"of the data's exact Gram matrix), for which ||p|| can be certified only above "
        f"{floor:.2g}: {name}={value:g} is below that floor. Use {name} > {floor:.2g}, or "
        "pass np.array(G) to certify the matrix as given."
    )
    warnings.warn(message, RuntimeWarning, stacklevel=stacklevel)
    return message


def certified_separates(Z, w: np.ndarray, row_error: float = 0.0) -> tuple[bool, float]:
    """Whether ``Z w > 0`` holds beyond rounding; also the computed ``min_i (Z w)_i``.

    Each ``(Z w)_i`` is a sum of ``d`` products; its error is at most
    ``(d + 2) u (|Z| |w|)_i`` (``u`` the unit round-off), computed here entry-wise. For a
    scipy.sparse ``Z`` row ``i`` sums only its ``r_i`` stored entries, so ``d`` becomes
    ``r_i``: the bound depends on the nonzeros per row, not on the number of features.
    With ``row_error`` (each row within that of the point ``a*_i`` it stands for, as
    :func:`factor_row_error`), ``|(z_i - a*_i)^T w| <= row_error ||w||`` is added, so
    that ``a*_i^T w > 0`` holds for the data.
    """
    m = np.asarray(Z @ w).reshape(-1)
    if scipy.sparse.issparse(Z):
        terms = np.diff(scipy.sparse.csr_matrix(Z).indptr) + 2.0
        bound = terms * _U * np.asarray(abs(Z) @ np.abs(w)).reshape(-1)
    else:
        bound = (Z.shape[1] + 2) * _U * (np.abs(Z) @ np.abs(w))
    if row_error:
        bound = bound + row_error * float(np.linalg.norm(w)) * 1.01
    return bool(np.all(m > bound)), float(m.min())


def certified_positive(gmin: float, n: int, alpha_l1: float) -> bool:
    """Whether a computed ``min_i (G alpha)_i`` is positive beyond rounding error.

    Each ``(G alpha)_i`` is a sum of ``n`` products with ``|G_ij| <= 1``, so its
    floating-point error is at most about ``n u ||alpha||_1`` (``u = 2^-53``). The
    algorithms pass their ``gram.rounding_terms`` as ``n``: the size of ``G``, or for a
    factored :class:`GramOperator` that plus the most nonzeros in a row of its factor
    plus 2 (``n + d + 2`` for a dense factor with ``d`` columns). A smaller
    positive value does not prove separation: with a point repeated under the other
    label the exact value is 0, and BLAS can return ``+5e-17`` for it.
    """
    return bool(gmin > n * (np.finfo(np.float64).eps / 2) * alpha_l1)


def _refuse_false_certificate(G, j: int, value: float) -> None:
    raise ValueError(
        f"G (a {type(G).__name__}) has G[{j}, {j}] = {value:.6g}, not 1, at a point of the "
        "certificate p: on such a G a small ||p||_G proves nothing, and no certificate is "
        "returned. G must be a normalised signed Gram matrix (unit diagonal); check_input="
        "False skipped its validation."
    )


class _DenseGram:
    """Uniform access to a dense G for the algorithms."""

    column_evals = 0  # rows of a dense G are read, never computed

    def __init__(self, G: np.ndarray):
        self.G = G
        self.n = G.shape[0]
        #: ``c`` of :func:`certified_positive`: a computed ``(G v)_i`` sums ``n`` terms;
        #: for a matrix built by :func:`gram_matrix`, ``delta / u`` more, so that a
        #: separator holds for the exact Gram matrix of the data (``|G_ij - G*_ij| <=
        #: delta``, :class:`~kperc._validation.GramProvenance`)
        info = gram_provenance(G)
        delta = None if info is None else info.entry_error
        extra = 0 if delta is None else math.ceil(delta / _U) if delta < 1.0 else 2**53
        self.rounding_terms = self.n + extra
        #: built from data: certificates are bounded for ``G*`` (:meth:`data_bound`)
        self.from_data = delta is not None
        self.entry_error = 0.0 if delta is None else float(delta)

    def matvec(self, v):
        return self.G @ v

    def matvec_into(self, v, out):
        """``out[:] = G @ v`` without allocating (the same BLAS call as ``G @ v``)."""
        np.matmul(self.G, v, out=out)

    def column(self, j):
        return self.G[j]  # symmetric: row j is column j, and rows are contiguous

    def column_into(self, j, out):
        """Return column ``j``; dense rows are views, so ``out`` is not needed."""
        return self.G[j]

    def diagonal(self):
        return np.diag(self.G).copy()

    def check_certificate(self, p) -> None:
        """Refuse a certificate ``p`` unless ``G_jj = 1`` on its support (``O(|supp p|)``)."""
        idx = np.flatnonzero(p)
        d = self.G[idx, idx]
        bad = np.flatnonzero(~(np.abs(d - 1.0) <= DIAG_TOL))
        if bad.size:
            _refuse_false_certificate(self.G, int(idx[bad[0]]), float(d[bad[0]]))

    def seminorm(self, p):
        return self.seminorm_bound(p)[0]

    def seminorm_bound(self, p):
        """``||p||_G`` from ``p^T G p`` in extended precision, and an upper bound on it.

        ``p^T G p`` near 0 is a cancellation: in double precision its rounding error
        (up to ``(n + 1) u ||p||_1^2``) can hide a ``||p||_G`` of 1e-8. The quadratic form
        is accumulated in ``np.longdouble`` by row blocks, and the bound uses that type's
        round-off (the same as double on platforms without extended precision).
        """
        return _dense_seminorm_bound(self.G, p)

    def data_bound(self, p, upper: float) -> float:
        """An upper bound on ``||p||_{G*}`` from one (``upper``) on ``||p||_G``.

        ``G*`` is the exact Gram matrix of the data, ``|G_ij - G*_ij| <= delta``
        (``entry_error``), so ``|p^T (G - G*) p| <= delta ||p||_1^2`` and
        ``||p||_{G*}^2 <= upper^2 + delta ||p||_1^2`` (``delta ||p||_1^2 = delta`` on the
        simplex: the floor of a certificate is about ``sqrt(delta)``). ``upper`` itself
        for a matrix taken as given.
        """
        if not self.from_data:
            return upper
        l1 = float(np.abs(p).sum()) * (1.0 + 2 * self.n * _U)
        return float(np.sqrt(upper * upper + self.entry_error * l1 * l1)) * (1.0 + 4 * _U)


class _ColumnCache:
    """Least-recently-used cache of columns of ``G``, as in LIBSVM's kernel cache.

    NKP and NVN use one column ``G e_j`` per iteration, and the chosen ``j`` keep coming
    back (the points near the margin), so an operator whose column costs ``O(n d)``
    (:class:`GramOperator`) or a full product (any other LinearOperator) is asked for
    each distinct column once while it stays in the cache. At most
    ``m = min(n, cache_size MB / (8 n bytes))`` columns are kept. They live in blocks of
    about 2 MB allocated as the cache fills: with one large preallocated slab, the first
    write into each row was measured (``benchmarks.bench``, n = 4000) to cost several times
    more than computing the column. The returned rows are views into the blocks and
    must not be written to.
    """

    BLOCK_BYTES = 1 << 21

    def __init__(
        self, compute_into: Callable[[int, np.ndarray], np.ndarray], n: int, cache_size: float
    ):
        self._compute_into = compute_into
        self.n = n
        self.capacity = int(min(n, (cache_size * 2**20) // (8 * n)))
        self._block_rows = max(1, min(self.capacity, self.BLOCK_BYTES // (8 * n)))
        self._rows: list[np.ndarray] = []  # row views of the allocated blocks
        self._slots: OrderedDict[int, np.ndarray] = OrderedDict()  # j -> row, oldest first
        self.misses = 0

    def get(self, j: int, out: np.ndarray) -> np.ndarray:
        """Column ``j``: from the cache, else computed (into the cache, or ``out``)."""
        slots = self._slots
        row = slots.get(j)
        if row is not None:
            slots.move_to_end(j)
            return row
        self.misses += 1
        if not self.capacity:
            return self._compute_into(j, out)
        if len(slots) < self.capacity:
            if len(slots) == len(self._rows):  # every allocated row is in use: grow
                rows = min(self._block_rows, self.capacity - len(self._rows))
                self._rows.extend(np.empty((rows, self.n)))
            row = self._rows[len(slots)]
        else:
            row = slots.popitem(last=False)[1]  # evict the least recently used
        col = self._compute_into(j, row)
        if col is not row:
            row[:] = col
        slots[j] = row
        return row


class _OperatorGram:
    """Uniform access to a LinearOperator G for the algorithms."""

    def __init__(self, G: LinearOperator, cache_size: float = 0.0):
        self.G = G
        self.n = G.shape[0]
        self._has_column = hasattr(G, "column")
        # Factored linear kernel: call BLAS on Z directly (the same products as
        # GramOperator._matvec) and skip the LinearOperator dispatch, which costs as much
        # as the product itself for small n.
        factored = isinstance(G, GramOperator)
        self._Z = G.Z if factored and not G.sparse else None
        self._w = np.empty(0 if self._Z is None else self._Z.shape[1])  # Z^T v, reused
        # a sparse factor: CSR products, with Z^T in CSR too (a row-wise mat-vec)
        self._S = G.Z if factored and G.sparse else None
        self._ST = self._S.T.tocsr() if self._S is not None else None
        #: ``c`` of :func:`certified_positive` (see :class:`GramOperator`): a factored
        #: ``(Z (Z^T v))_i`` sums ``n`` products, then the most nonzeros in a row of
        #: ``Z`` (``d`` for a dense factor), so ``n + row_nnz + 2``; ``n`` otherwise
        self.rounding_terms = self.n + G.row_nnz + 2 if factored else self.n
        #: a factor built from data (:func:`gram_operator`): each row ``z_i`` within
        #: ``r = row_error`` of the exact direction ``a*_i`` (a unit vector), so
        #: ``|z_i^T z_j - a*_i^T a*_j| <= |(z_i - a*_i)^T z_j| + |a*_i^T (z_j - a*_j)|
        #: <= r (1 + r) + r = r (2 + r)``: each ``(G alpha)_i`` is within
        #: ``r (2 + r) ||alpha||_1`` of the data's, ``r (2 + r) / u`` terms more, so that
        #: a separator holds for the exact Gram matrix of the data
        self.row_error = float(G.row_error) if factored else 0.0
        self.from_data = self.row_error > 0
        self.entry_error = self.row_error * (2.0 + self.row_error)
        if self.from_data:
            self.rounding_terms += math.ceil(self.entry_error / _U)
        self._cache = _ColumnCache(self._compute_column_into, self.n, cache_size)
        self.column_into = self._cache.get

    @property
    def column_evals(self) -> int:
        """Columns of ``G`` computed so far by :meth:`column_into` (cache misses)."""
        return self._cache.misses

    def matvec(self, v):
        if self._Z is not None:
            return self._Z @ (self._Z.T @ v)
        if self._S is not None:
            return self._S @ (self._ST @ v)
        try:
            out = self.G.matvec(v)
        except ValueError as exc:  # scipy's reshape of a wrong-sized product
            raise ValueError(
                f"G (a {type(self.G).__name__}) returned a product of the wrong shape "
                f"(expected ({self.n},)): {exc}"
            ) from exc
        return check_operator_output(out, self.n, "product G @ v", self.G)

    def matvec_into(self, v, out):
        """``out[:] = G @ v``; allocation-free for a :class:`GramOperator`."""
        if self._Z is not None:
            np.matmul(self._Z.T, v, out=self._w)
            np.matmul(self._Z, self._w, out=out)
        else:
            out[:] = self.matvec(v)

    def column(self, j):
        if self._has_column:
            return check_operator_output(self.G.column(j), self.n, f"column {j}", self.G)
        e = np.zeros(self.n)
        e[j] = 1.0
        return self.matvec(e)

    def _compute_column_into(self, j, out):
        """Column ``j`` of ``G``, written into ``out`` when that saves an allocation."""
        if self._Z is not None:
            np.matmul(self._Z, self._Z[j], out=out)
            return out
        if self._S is not None:
            return self._S @ self._S[j].toarray().reshape(-1)
        return self.column(j)

    def check_certificate(self, p) -> None:
        """Refuse a certificate ``p`` unless ``G_jj = 1`` on its support.

        A :class:`GramOperator`'s rows on the support are checked (``O(|supp p| d)``); a
        ``KernelGramOperator``'s diagonal is 1 by construction; any other operator's
        diagonal entries on the support are read (from ``diagonal()``, else one column
        each).
        """
        idx = np.flatnonzero(p)
        if isinstance(self.G, TrustedGramOperator) and self.G.exact_unit_diagonal:
            return
        if self._Z is not None:
            r = row_norms(self._Z[idx])
            d = r * r
        elif hasattr(self.G, "diagonal"):
            d = self.diagonal()[idx]
        else:
            d = np.array([self.column(int(j))[j] for j in idx])
        bad = np.flatnonzero(~(np.abs(d - 1.0) <= DIAG_TOL))
        if bad.size:
            _refuse_false_certificate(self.G, int(idx[bad[0]]), float(d[bad[0]]))

    def diagonal(self):
        if hasattr(self.G, "diagonal"):
            return check_operator_output(self.G.diagonal(), self.n, "diagonal", self.G)
        return np.array([self.column(j)[j] for j in range(self.n)])

    def seminorm(self, p):
        if hasattr(self.G, "seminorm"):
            return float(self.G.seminorm(p))
        return float(np.sqrt(max(float(p @ self.matvec(p)), 0.0)))

    def seminorm_bound(self, p):
        """``||p||_G`` and an upper bound on its exact value despite rounding."""
        if hasattr(self.G, "seminorm_bound"):
            return self.G.seminorm_bound(p)
        q = float(p @ self.matvec(p))
        l1 = float(np.abs(p).sum())
        val = float(np.sqrt(max(q, 0.0)))
        return val, float(np.sqrt(max(q, 0.0) + 2 * (self.n + 2) * _U * l1 * l1))

    def data_bound(self, p, upper: float) -> float:
        """An upper bound on ``||p||_{G*}`` from one (``upper``) on ``||p||_G``.

        For a factor built from data, ``||A* p|| <= ||Z^T p|| + ||(A* - Z)^T p||`` and
        ``||(A* - Z)^T p|| <= sum_i |p_i| ||a*_i - z_i|| <= row_error ||p||_1`` (see
        ``rounding_terms``): ``upper + row_error ||p||_1``. ``upper`` itself otherwise.
        """
        if not self.from_data:
            return upper
        l1 = float(np.abs(p).sum()) * (1.0 + 2 * self.n * _U)
        return (upper + self.row_error * l1) * (1.0 + 2 * _U)


def as_gram(G, *, check_psd: bool | None = None, validate: bool = True, cache_size: float = 0.0):
    """Validate ``G`` and wrap it for the algorithms (dense array or LinearOperator).

    A ``G`` whose provenance is known (see the module's docstring) is not checked again.
    With ``validate=False`` (the algorithms' ``check_input=False``, a caller's promise)
    only the shape is checked: the ``O(n^2)`` symmetry, diagonal and finiteness scans are
    skipped.
    ``cache_size`` (megabytes) sizes the column cache of a LinearOperator
    (a least-recently-used cache); a dense ``G`` needs none, its rows are views.
    """
    if not validate:
        if isinstance(G, LinearOperator):
            check_operator(G, probe=False)  # shape and dtype: O(1), or O(n d) for a factor
            return _OperatorGram(G, cache_size)
        if scipy.sparse.issparse(G):
            G = G.toarray()
        arr = np.asarray(G)
        if arr.dtype.kind not in "biuf":  # complex or object: never cast silently
            raise TypeError(f"G must be a real numeric matrix; got dtype {arr.dtype}.")
        arr = np.ascontiguousarray(arr, dtype=np.float64)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
            raise ValueError(f"G must be a non-empty square (n, n) matrix; got {arr.shape}.")
        return _DenseGram(arr)
    G = check_gram(G, check_psd=check_psd)
    if isinstance(G, LinearOperator):
        return _OperatorGram(G, cache_size)
    return _DenseGram(G)


class ValidatedGram:
    """A normalised signed Gram matrix whose validity has been checked once.

    Every algorithm and margin function of ``kperc`` that takes ``G`` accepts a
    ``ValidatedGram`` and then skips its own checks (symmetry, unit diagonal,
    finiteness and the positive semidefiniteness test, a Cholesky factorisation up to
    ``n = 3000`` and a Lanczos estimate of the smallest eigenvalue above), so a call
    costs no more than its iterations. Build one when several algorithms or parameters
    run on the same ``G`` that you built yourself; a matrix returned by
    :func:`kperc.gram_matrix` is already known (read-only, valid by construction), and
    a ``ValidatedGram`` of it keeps what is known about it (the rounding bound of its
    construction, for :func:`kperc.margin_details`).

    The matrix is held in a private read-only buffer (a copy of ``G``; no copy with
    ``from_data``), so it cannot change after validation: writing to it raises,
    and a buffer made writeable again is validated anew at its next use.

    Parameters
    ----------
    G : array_like of shape (n, n)
        A dense normalised signed Gram matrix (for example from
        :func:`kperc.gram_matrix`). It is copied.
    check_psd : bool or None, default=None
        The positive semidefiniteness test, as in the algorithms: ``None`` runs the
        default test (Cholesky up to ``n = 3000``, a Lanczos estimate above), ``True``
        the exact test at any ``n``.

    Attributes
    ----------
    n : int
        Number of points.
    shape : tuple of int
        ``(n, n)``.
    psd_exact : bool
        Whether positive semidefiniteness was decided exactly (Cholesky or
        eigenvalues) rather than estimated (Lanczos, ``n > 3000`` without
        ``check_psd=True``). An algorithm called with ``check_input=True`` on a
        ``ValidatedGram`` whose test was an estimate does not run the exact test either:
        it relies on the same guarantee as on a plain matrix of that size.

    Raises
    ------
    ValueError
        When ``G`` is not square, symmetric, finite, of unit diagonal or positive
        semidefinite (the same messages as the algorithms).

    See Also
    --------
    kperc.gram_matrix : builds ``G`` from data.

    Examples
    --------
    >>> import kperc
    >>> from kperc.datasets import planted
    >>> X, y = planted(60, 3, rho=0.2, seed=0)
    >>> G = kperc.ValidatedGram.from_data(X, y, kernel="linear")
    >>> G.shape, G.psd_exact
    ((60, 60), True)
    >>> kperc.snkp(G).outcome, kperc.nkp(G).outcome  # G is validated only once
    ('separator', 'separator')
    >>> G.matrix[0, 0] = 2.0
    Traceback (most recent call last):
    ...
    ValueError: assignment destination is read-only
    """

    __slots__ = ("_buf", "_view", "psd_exact")

    def __init__(self, G: GramLike, *, check_psd: bool | None = None) -> None:
        if isinstance(G, ValidatedGram):
            G = G._view
        arr = check_gram(G, check_psd=check_psd)
        if not isinstance(arr, np.ndarray):
            raise TypeError(
                "ValidatedGram holds a dense matrix; a LinearOperator (such as a "
                "kperc.GramOperator) is already validated cheaply and needs no wrapper."
            )
        # a matrix that kperc built keeps what is known about it (the copy is equal)
        info = gram_provenance(arr)
        if info is None:
            n = arr.shape[0]
            exact = bool(check_psd) or n <= _validation.PSD_CHECK_MAX_N
            info = GramProvenance(psd_exact=exact)
        self._adopt(np.array(arr, dtype=np.float64, order="C", copy=True), info)

    @classmethod
    def from_data(
        cls,
        X: ArrayLike,
        y: ArrayLike,
        kernel: KernelLike = "linear",
        *,
        check_psd: bool | None = None,
        **kernel_params: Any,
    ) -> ValidatedGram:
        """Build ``G = kperc.gram_matrix(X, y, kernel, **kernel_params)`` and validate it.

        The freshly built matrix is adopted without a copy, so this needs no more
        memory than :func:`kperc.gram_matrix`.

        Parameters
        ----------
        X, y, kernel, **kernel_params
            As for :func:`kperc.gram_matrix`.
        check_psd : bool or None, default=None
            As for the constructor.

        Returns
        -------
        ValidatedGram
        """
        G = check_gram(gram_matrix(X, y, kernel, **kernel_params), check_psd=check_psd)
        self = cls.__new__(cls)
        self._buf = G.base  # read-only, owned by the matrix gram_matrix returned
        self._view = G
        info = gram_provenance(G)
        self.psd_exact = info is not None and info.psd_exact
        return self

    def _adopt(self, buf: np.ndarray, info: GramProvenance) -> None:
        self._buf = buf
        # users see a registered view: a view of a read-only buffer cannot be made
        # writeable, and every function of kperc knows it without validating it again
        self._view = trust_gram(buf, info)
        self.psd_exact = info.psd_exact

    def _intact(self) -> bool:
        """Whether the buffer is still read-only (so unchanged since validation)."""
        return not self._buf.flags.writeable

    @property
    def matrix(self) -> np.ndarray:
        """The matrix, as a read-only array."""
        return self._view

    @property
    def n(self) -> int:
        return self._buf.shape[0]

    @property
    def shape(self) -> tuple[int, int]:
        return self._buf.shape

    @property
    def dtype(self):
        return self._buf.dtype

    @property
    def ndim(self) -> int:
        return 2

    def __array__(self, dtype=None, copy=None):
        if copy:
            return np.array(self._view, dtype=dtype, copy=True)
        if dtype is not None and np.dtype(dtype) != self._buf.dtype:
            if copy is False:
                raise ValueError("a dtype conversion of a ValidatedGram needs a copy")
            return self._view.astype(dtype)
        return self._view

    def __matmul__(self, other):
        return self._view @ other

    def __rmatmul__(self, other):
        return other @ self._view

    def __getitem__(self, key):
        return self._view[key]

    def __len__(self) -> int:
        return self._buf.shape[0]

    def __repr__(self) -> str:
        how = "exact" if self.psd_exact else "Lanczos estimate"
        return f"ValidatedGram(n={self.n}, PSD test: {how})"

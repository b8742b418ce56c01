"""A Gram matrix validated once and reused by every algorithm without re-validation.

Validating a dense ``G`` (symmetry, unit diagonal, finiteness and above all positive
semidefiniteness) costs far more than one iteration: at ``n = 2000`` the Cholesky test
takes as long as a few hundred products ``G @ v``. A :class:`ValidatedGram` pays that
cost once, keeps a private read-only copy of the matrix and is accepted by every
function that takes ``G``, which then skips the checks. (A matrix returned by
:func:`kperc.gram_matrix` needs no wrapper: it is read-only and known to be valid by
construction; see :class:`kperc._validation.GramProvenance`.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _validation
from ._kernels import gram_matrix
from ._typing import ArrayLike, GramLike, KernelLike
from ._validation import GramProvenance, check_gram, gram_provenance, trust_gram

__all__ = ["ValidatedGram"]


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

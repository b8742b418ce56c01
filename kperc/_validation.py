"""Input validation at the package boundary.

Every public function funnels its inputs through these helpers once, so that bad input
fails early with a :class:`ValueError` that says what was wrong and how to fix it, then
hands the checked values to a private core that trusts them (as scikit-learn's
``check_input=False`` cores do); library code calls the cores, never the public
functions. Inputs are never modified in place: the helpers return fresh arrays.

This module imports no other module of kperc. What kperc knows about a Gram matrix it
built (:func:`kperc.gram_matrix`) or validated (:class:`kperc.ValidatedGram`) is
recorded here with the read-only matrix (:func:`trust_gram`, :class:`GramProvenance`),
and kperc's own operators derive from :class:`TrustedGramOperator`, so that
:func:`check_gram` and :func:`check_operator` recognise both without importing the
modules that define them.
"""

from __future__ import annotations

import math
import numbers
import weakref
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import scipy.linalg
import scipy.sparse
from scipy.sparse.linalg import LinearOperator

#: Tolerance on ``|G_ii - 1|`` and on asymmetry, relative to 1.
DIAG_TOL = 1e-8
#: Tolerance on the smallest eigenvalue of G, relative to ``n``.
PSD_TOL = 1e-8
#: Above this size the O(n^3) Cholesky PSD test is replaced by a Lanczos estimate of the
#: smallest eigenvalue (``scipy.sparse.linalg.eigsh``), whose cost grows as ``n^2``.
PSD_CHECK_MAX_N = 3000
#: Lanczos steps of the PSD test above ``PSD_CHECK_MAX_N`` points.
LANCZOS_STEPS = 30
#: Largest accepted integer parameter (``max_iter``, ``degree``, ...): a signed 64-bit int.
MAX_INT = int(np.iinfo(np.int64).max)


def as_real_array(value, name: str) -> np.ndarray:
    """``value`` as a fresh float64 ndarray, refusing what cannot be a real array.

    Accepted: anything :func:`numpy.asarray` turns into a bool, integer or floating
    array (lists, pandas objects, read-only or non-contiguous arrays), and scipy.sparse
    matrices, which are densified (the algorithms work on dense rows). Refused with a
    :class:`TypeError` that names the parameter: complex arrays (never cast silently:
    the imaginary part would be dropped), object arrays and non-numeric dtypes.
    """
    if scipy.sparse.issparse(value):
        value = value.toarray()
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array: {exc}") from exc
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(
            f"{name} must be real; got a complex array (dtype {arr.dtype}). Pass "
            f"np.real({name}) if the imaginary part is meant to be dropped."
        )
    if kind == "O":
        raise TypeError(
            f"{name} has dtype object; pass a numeric array, for example "
            f"np.asarray({name}, dtype=float)."
        )
    if kind not in "biuf":
        raise TypeError(f"{name} must be a numeric array; got dtype {arr.dtype}.")
    return np.array(arr, dtype=np.float64, copy=True)


#: Smallest accepted initial smoothing parameter ``mu0`` (about the square root of the
#: smallest normal double). SNKP and SNKPVN shrink ``mu`` every iteration (by a factor of
#: order ``k^2`` after ``k`` iterations) and divide ``G alpha`` by it: from a smaller
#: ``mu0`` it underflows to 0 (a division by zero), and the smoothing is already far
#: below the resolution of ``G alpha`` anyway.
MU0_MIN = 1e-150


def check_mu0(value) -> float:
    """Check the initial smoothing parameter: finite, ``>= MU0_MIN``."""
    mu0 = check_positive(value, "mu0")
    if mu0 < MU0_MIN:
        raise ValueError(
            f"mu0={mu0:g} is too small: mu shrinks every iteration and would underflow to 0; "
            f"the smallest accepted value is mu0={MU0_MIN:g} (a smoothing that small is "
            "already exact to working precision)."
        )
    return mu0


def check_vector(v, name: str, n: int | None = None) -> np.ndarray:
    """Return ``v`` as a finite, real, non-empty 1-D float64 copy (of length ``n`` if given)."""
    arr = as_real_array(v, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; it needs at least one entry.")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n},) to match G; got {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf.")
    return arr


def _max_asymmetry(arr: np.ndarray, block: int = 256) -> float:
    """``max |G - G^T|`` computed by row blocks (no ``n x n`` temporary)."""
    n = arr.shape[0]
    worst = 0.0
    for start in range(0, n, block):
        stop = min(n, start + block)
        worst = max(worst, float(np.max(np.abs(arr[start:stop] - arr[:, start:stop].T))))
    return worst


def row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean norms of the rows of ``X`` without overflow or underflow.

    Each row is divided by its largest absolute entry before squaring, so that entries
    of size 1e+-300 give the right norm (``np.linalg.norm`` of ``x`` squares the entries
    first: ``1e300**2`` overflows and ``1e-300**2`` underflows to 0).
    """
    amax = np.max(np.abs(X), axis=1)
    safe = np.where(amax > 0, amax, 1.0)
    return amax * np.sqrt(np.einsum("ij,ij->i", X / safe[:, None], X / safe[:, None]))


def pow2_scale(value: float) -> float:
    """A power of two near ``value`` (> 0): dividing by it is exact in floating point.

    The exponent is kept in ``[-1022, 1022]``, so that the power and its inverse are both
    normal numbers: ``value`` near the largest double (1.3e308 and above would round to
    ``2**1024 = inf``) or subnormal (1e-310, whose inverse would overflow) still gives a
    finite scale, and ``value / pow2_scale(value)`` is within a factor 2 of 1 whenever
    ``value`` is a normal number.
    """
    value = float(value)
    if not value > 0 or not math.isfinite(value):
        raise ValueError(f"pow2_scale needs a finite positive value; got {value!r}.")
    e = math.frexp(value)[1] - 1  # value in [2^e, 2^(e+1))
    return math.ldexp(1.0, min(max(e, -1022), 1022))


def check_Xy(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate a data set in scikit-learn orientation.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Points, one per row. Must be finite.
    y : array_like of shape (n_samples,)
        Labels in {-1, +1}.

    Returns
    -------
    X, y : ndarray
        Float64 copies.
    """
    X = check_X(X)
    return X, _check_lengths(X, check_labels(y))


def check_Xy_sparse(X, y) -> tuple[Any, np.ndarray]:
    """:func:`check_Xy` that keeps a scipy.sparse ``X`` sparse (a CSR copy, see
    :func:`check_sparse_X`) instead of densifying it."""
    X = check_sparse_X(X) if scipy.sparse.issparse(X) else check_X(X)
    return X, _check_lengths(X, check_labels(y))


def _check_lengths(X, y: np.ndarray) -> np.ndarray:
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} rows but y has {y.shape[0]} labels; "
            "they must describe the same points (X is (n_samples, n_features))."
        )
    return y


def check_X(X, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite 2-D float64 copy with at least one row and column.

    Bool, integer and float32 input is converted; scipy.sparse input is densified;
    complex and object input is refused (see :func:`as_real_array`).
    """
    arr = as_real_array(X, name)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D of shape (n_samples, n_features); got {arr.ndim}-D input "
            f"with shape {arr.shape}. Reshape a single feature with X.reshape(-1, 1)."
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); at least one point is needed.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; remove or impute those entries first.")
    return arr


def check_sparse_X(X, name: str = "X") -> scipy.sparse.csr_matrix:
    """Return a scipy.sparse ``X`` as a CSR float64 copy: real, finite, non-empty.

    Any sparse format is accepted (converted to CSR, duplicate entries summed, explicit
    zeros dropped); complex and non-numeric dtypes are refused with a :class:`TypeError`
    naming ``name``, NaN and inf entries with a :class:`ValueError`.
    """
    kind = np.dtype(X.dtype).kind
    if kind == "c":
        raise TypeError(
            f"{name} must be real; got a complex sparse matrix (dtype {X.dtype}). Pass "
            f"{name}.real if the imaginary part is meant to be dropped."
        )
    if kind not in "biuf":
        raise TypeError(f"{name} must be a numeric sparse matrix; got dtype {X.dtype}.")
    if len(X.shape) != 2:
        raise ValueError(f"{name} must be 2-D of shape (n_samples, n_features); got {X.shape}.")
    arr = scipy.sparse.csr_matrix(X, dtype=np.float64, copy=True)
    arr.sum_duplicates()
    arr.eliminate_zeros()
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); at least one point is needed.")
    if not np.all(np.isfinite(arr.data)):
        raise ValueError(f"{name} contains NaN or inf; remove or impute those entries first.")
    return arr


def sparse_row_norms(X: scipy.sparse.csr_matrix) -> np.ndarray:
    """:func:`row_norms` of a CSR matrix (each row divided by its largest entry first)."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    amax = np.zeros(X.shape[0])
    np.maximum.at(amax, rows, np.abs(X.data))
    safe = np.where(amax > 0, amax, 1.0)
    scaled = X.data / safe[rows]
    return amax * np.sqrt(np.bincount(rows, weights=scaled * scaled, minlength=X.shape[0]))


def check_labels(y) -> np.ndarray:
    """Return labels as a float64 copy after checking that they are -1/+1."""
    if scipy.sparse.issparse(y):
        y = y.toarray()
    arr = np.array(y, copy=True)
    if arr.dtype.kind == "c":
        raise TypeError("y must be real labels -1 and +1; got a complex array.")
    if arr.dtype.kind == "O":
        raise TypeError(
            "y has dtype object; pass the labels -1 and +1 as a numeric array, for example "
            "np.asarray(y, dtype=float)."
        )
    if arr.dtype.kind not in "biuf":
        # strings such as "1" and "-1", timedelta64 or datetime64 would convert to floats
        # silently; labels are numbers
        raise ValueError(
            f"y: labels must be the numbers -1 and +1; got dtype {arr.dtype}. Convert them "
            "explicitly (for example y = np.where(y == 'pos', 1, -1)); SNKPClassifier "
            "accepts any two classes."
        )
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D of shape (n_samples,); got shape {arr.shape}.")
    if arr.shape[0] == 0:
        raise ValueError("y is empty; at least one labelled point is needed.")
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must hold the labels -1 and +1: {exc}") from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError("y contains NaN or inf; labels must be -1 or +1.")
    bad = np.setdiff1d(np.unique(arr), [-1.0, 1.0])
    if bad.size:
        raise ValueError(
            f"labels must be -1 or +1, found {bad[:5].tolist()}; map a {{0, 1}} labelling "
            "with y = 2 * y - 1 (SNKPClassifier does this for any two classes)."
        )
    return arr


def _as_finite_float(value, name: str, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be {what}; got {value!r} of type {type(value).__name__}.")
    try:
        f = float(value)
    except OverflowError:
        f = math.inf if cast(Any, value) > 0 else -math.inf
    if not math.isfinite(f):
        raise ValueError(f"{name} must be {what} and finite; got {value!r}.")
    return f


def check_positive(value, name: str, *, integer: bool = False):
    """Check that a scalar parameter is finite and strictly positive.

    Real parameters accept any real number (Python, numpy, ``fractions``) except bools;
    integer parameters accept Python and numpy integers up to ``2**63 - 1``: a float
    such as ``1e3`` is refused (with a hint), as are bools, NaN, inf and huge ints such
    as ``10**30``. Every refusal is a :class:`ValueError` that names ``name``.
    """
    if integer:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            hint = ""
            if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
                try:
                    f = float(value)
                except (OverflowError, ValueError):
                    f = None
                if f is not None and math.isnan(f):
                    hint = " (NaN is not a number of iterations)"
                elif f is not None and math.isinf(f):
                    hint = (
                        f" (there is no unlimited {name}: pass a large integer such as "
                        f"{name}=10**9)"
                    )
                elif f is not None and f.is_integer():
                    hint = f" (pass {name}={int(f)})"
            elif isinstance(value, (bool, np.bool_)):
                hint = f" (a bool is not a count: pass {name}=1 if 1 is meant)"
            raise ValueError(f"{name} must be a positive integer; got {value!r}{hint}.")
        value = int(value)
        if value <= 0:
            raise ValueError(f"{name} must be positive (an integer >= 1); got {value!r}.")
        if value > MAX_INT:
            raise ValueError(
                f"{name} must be at most 2**63 - 1 = {MAX_INT}; got {value!r}. Use a smaller "
                f"{name} (no run can use that many)."
            )
        return value
    f = _as_finite_float(value, name, "a positive number")
    if f <= 0:
        raise ValueError(f"{name} must be positive and finite; got {value!r}.")
    return f


def check_bool(value, name: str) -> bool:
    """Check a boolean flag: ``True``/``False`` (or numpy bools), nothing taken by truthiness.

    ``None``, ``0``, ``"no"`` and other objects are refused with a :class:`ValueError`
    that names ``name``: a flag such as ``halt=None`` would otherwise silently act as
    ``False``.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False; got {value!r} of type {type(value).__name__}.")


def check_flags(**flags) -> None:
    """:func:`check_bool` on each keyword (``check_flags(trace=trace, halt=halt)``)."""
    for name, value in flags.items():
        check_bool(value, name)


def check_nonnegative(value, name: str) -> float:
    """Check that a scalar parameter is a finite number ``>= 0``."""
    f = _as_finite_float(value, name, "a non-negative number")
    if f < 0:
        raise ValueError(f"{name} must be non-negative and finite; got {value!r}.")
    return f


def check_finite(value, name: str) -> float:
    """Check that a scalar parameter is a finite real number (any sign)."""
    return _as_finite_float(value, name, "a real number")


def check_psd_matrix(arr: np.ndarray, name: str = "G", *, exact: bool = False) -> None:
    """Raise unless the symmetric matrix ``arr`` (unit diagonal) is PSD up to ``PSD_TOL * n``.

    Up to ``PSD_CHECK_MAX_N`` points a jittered Cholesky factorisation decides (exact
    eigenvalues when it fails), as it does for any ``n`` with ``exact=True``. Above, the
    smallest eigenvalue is estimated by ``LANCZOS_STEPS`` Lanczos steps, whose cost grows
    as ``n^2``: a Ritz value is never below the true smallest eigenvalue, so a Ritz value
    below ``-PSD_TOL * n`` proves that the matrix is not PSD. Such an estimate finds a
    clearly negative eigenvalue, but it can miss a slightly negative one among many
    eigenvalues near 0; ``check_gram(G, check_psd=True)`` runs the exact test.
    """
    n = arr.shape[0]
    if n <= 1:
        return
    tol = PSD_TOL * n
    if n <= PSD_CHECK_MAX_N or exact:
        work = arr.copy()  # the only n x n temporary of the validation
        work.flat[:: n + 1] += tol
        try:  # a jittered Cholesky factorisation is ~10x cheaper than eigenvalues
            scipy.linalg.cholesky(work, lower=True, overwrite_a=True, check_finite=False)
            return
        except np.linalg.LinAlgError:
            del work
            lam_min = float(np.linalg.eigvalsh(arr)[0])
    else:
        lam_min = _lanczos_min_eigenvalue(arr, tol)
    if lam_min < -tol:
        raise ValueError(
            f"{name} is not positive semidefinite (smallest eigenvalue {lam_min:.3g}); "
            "use a positive semidefinite kernel."
        )


def _smallest_ritz_value(diagonal: np.ndarray, off_diagonal: np.ndarray) -> float:
    """The smallest eigenvalue of a symmetric tridiagonal matrix (a Lanczos Ritz value)."""
    if diagonal.size == 1:  # 1 x 1; scipy < 1.12 refuses an empty off-diagonal
        return float(diagonal[0])
    return float(
        scipy.linalg.eigh_tridiagonal(
            diagonal, off_diagonal, eigvals_only=True, select="i", select_range=(0, 0)
        )[0]
    )


def _lanczos_min_eigenvalue(arr: np.ndarray, tol: float, steps: int = LANCZOS_STEPS) -> float:
    """An upper bound on the smallest eigenvalue of a symmetric ``arr``, in ``O(steps n^2)``.

    ``steps`` Lanczos iterations with full reorthogonalisation from a seeded start
    vector; the smallest eigenvalue of the tridiagonal matrix
    (:func:`scipy.linalg.eigh_tridiagonal`) is a Ritz value, never below the true
    smallest eigenvalue. The run stops early once a Ritz value is below ``-tol``. (ARPACK,
    through :func:`scipy.sparse.linalg.eigsh` with ``which="SA"``, must converge before it
    reports anything, which takes minutes for kernel matrices whose eigenvalues
    cluster at 0; a fixed number of steps keeps the cost bounded.)
    """
    n = arr.shape[0]
    m = min(steps, n)
    Q = np.empty((m, n))
    alpha = np.empty(m)
    beta = np.empty(m)
    q = np.random.default_rng(0).standard_normal((n,))
    q /= np.linalg.norm(q)
    lam = np.inf
    for j in range(m):
        Q[j] = q
        w = arr @ q
        alpha[j] = q @ w
        w -= Q[: j + 1].T @ (Q[: j + 1] @ w)  # full reorthogonalisation (twice is enough)
        w -= Q[: j + 1].T @ (Q[: j + 1] @ w)
        beta[j] = np.linalg.norm(w)
        if j % 5 == 4 or j == m - 1 or beta[j] <= 1e-12 * n:
            lam = _smallest_ritz_value(alpha[: j + 1], beta[:j])
            if lam < -tol or beta[j] <= 1e-12 * n:
                break
        q = w / beta[j]
    return lam


@dataclass(frozen=True)
class GramProvenance:
    """What kperc knows about a dense ``G`` that it built or validated.

    Attached to a read-only array by :func:`trust_gram`; :func:`check_gram` then skips
    every check, and :func:`kperc.margin_details` certifies against ``entry_error``.

    Attributes
    ----------
    psd_exact : bool
        Positive semidefiniteness is known exactly: by construction (a Gram matrix of
        data whose rounding ``(n - 1) entry_error`` is within the PSD test's tolerance
        ``PSD_TOL n``) or by an exact test (Cholesky or eigenvalues); False after the
        Lanczos estimate used above ``PSD_CHECK_MAX_N`` points.
    entry_error : float or None
        For a matrix built from data by :func:`kperc.gram_matrix` (built-in kernels): a
        bound on ``|G_ij - G*_ij|``, ``G*`` the exact normalised signed Gram matrix of
        the data (the diagonal is exact). None for a matrix taken as given.
    groups : ndarray of int or None
        For a matrix built from data: equal data points share a group number (points
        whose rows of ``G`` are equal up to sign by construction), else None.
    labels : ndarray or None
        The labels of the points (with ``groups``).
    max_rank : int or None
        For a matrix built from data by a built-in kernel: an upper bound on the rank of
        ``G*``, known exactly from the data and the kernel (the dimension of the kernel's
        feature space, and the number of distinct points); None when unknown (a kernel
        callable, a matrix taken as given). :func:`kperc.margin_details` certifies a
        negative margin, measured in the span of ``G``'s numerically dominant
        eigenvectors, only when that span reaches this bound.
    """

    psd_exact: bool
    entry_error: float | None = None
    groups: np.ndarray | None = None
    labels: np.ndarray | None = None
    max_rank: int | None = None


# id(view) -> (weak reference to the view, its read-only buffer, provenance)
_TRUSTED: dict[int, tuple[weakref.ref, np.ndarray, GramProvenance]] = {}


def trust_gram(buf: np.ndarray, info: GramProvenance) -> np.ndarray:
    """Make ``buf`` (a C-contiguous float64 array that owns its data) read-only and return
    a registered view of it, known to :func:`check_gram` by ``info``.

    A view of a read-only buffer cannot be made writeable again, so the registered view
    cannot change without a deliberate write to ``view.base``; if that buffer is made
    writeable, the view loses its registration at its next use and is validated anew.
    """
    buf.flags.writeable = False
    view = buf.view()
    key = id(view)

    def forget(_ref: weakref.ref, key: int = key) -> None:
        _TRUSTED.pop(key, None)

    _TRUSTED[key] = (weakref.ref(view, forget), buf, info)
    return view


def gram_provenance(G) -> GramProvenance | None:
    """The provenance of a registered read-only ``G`` (None for any other object, a copy,
    a slice, or a registered matrix whose buffer was made writeable)."""
    entry = _TRUSTED.get(id(G))
    if entry is None:
        return None
    ref, buf, info = entry
    if ref() is not G or buf.flags.writeable or not isinstance(G, np.ndarray):
        return None
    return info


def check_gram(G, *, check_psd: bool | None = None):
    """Validate a normalised signed Gram matrix or a linear operator standing for one.

    Parameters
    ----------
    G : array_like of shape (n, n), ValidatedGram or LinearOperator
        A matrix returned by :func:`kperc.gram_matrix` or held by a
        :class:`kperc.ValidatedGram` is read-only and known (:func:`gram_provenance`): it
        is returned at once (with ``check_psd=True``, after the exact PSD test when its
        own test was a Lanczos estimate). Dense matrices (or scipy.sparse matrices,
        densified) are checked for real dtype, finiteness, squareness, symmetry, unit
        diagonal and (when ``check_psd`` allows) positive semidefiniteness. Linear
        operators are checked for shape and real dtype here; their products are checked
        (shape, finiteness) when used.
    check_psd : bool or None
        ``None`` (default) runs the PSD test: a Cholesky factorisation up to
        ``n = 3000``, a Lanczos estimate of the smallest eigenvalue (cost ``O(n^2)``)
        above. ``True`` runs the exact test at any ``n`` (cost ``O(n^3)``); ``False``
        skips it.

    Returns
    -------
    G : ndarray or LinearOperator
        A float64 C-contiguous array for dense input (the input itself when it already
        is one; it is never written to), the operator itself otherwise.
    """
    if isinstance(G, LinearOperator):
        check_operator(G)
        return G
    if scipy.sparse.issparse(G) or (hasattr(G, "toarray") and not isinstance(G, np.ndarray)):
        G = G.toarray()
    try:
        arr = np.asarray(G)  # a ValidatedGram gives its registered read-only matrix
    except (TypeError, ValueError) as exc:
        raise ValueError(f"G must be a numeric matrix: {exc}") from exc
    info = gram_provenance(arr)
    if info is not None:  # built or validated once, read-only since: nothing to check
        if check_psd and not info.psd_exact:
            check_psd_matrix(arr, exact=True)
            _TRUSTED[id(arr)] = (*_TRUSTED[id(arr)][:2], replace(info, psd_exact=True))
        return arr
    if arr.dtype.kind == "c":
        raise TypeError("G must be real; got a complex matrix. A Gram matrix is real.")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"G must be a numeric matrix; got dtype {arr.dtype}.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)  # never written to
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(
            f"G must be a square (n, n) matrix; got shape {arr.shape}. Build it with "
            "kperc.gram_matrix(X, y, kernel=...)."
        )
    n = arr.shape[0]
    if n == 0:
        raise ValueError("G is empty; at least one point is needed.")
    if not np.isfinite(arr.sum()) and not np.all(np.isfinite(arr)):
        raise ValueError("G contains NaN or inf.")
    asym = _max_asymmetry(arr)
    if asym > DIAG_TOL:
        raise ValueError(f"G is not symmetric (max |G - G.T| = {asym:.3g}); a Gram matrix must be.")
    diag_err = np.max(np.abs(np.diag(arr) - 1.0))
    if diag_err > DIAG_TOL:
        raise ValueError(
            f"G must have a unit diagonal (max |G_ii - 1| = {diag_err:.3g}); normalise the "
            "kernel: G_ij = y_i y_j K_ij / sqrt(K_ii K_jj), as kperc.gram_matrix does."
        )
    if check_psd is None or check_psd:
        check_psd_matrix(arr, exact=bool(check_psd))
    return arr


class TrustedGramOperator(LinearOperator):
    """Base class of kperc's own Gram operators (``GramOperator``, ``KernelGramOperator``).

    They are valid by construction (their inputs are checked when they are built), so
    :func:`check_operator` does not probe them; it only calls :meth:`_check_stored`,
    which re-checks what a caller could have changed since (``O(n d)`` at most).
    """

    #: Whether ``G_jj = 1`` holds exactly by construction (no check of a certificate's
    #: support needed).
    exact_unit_diagonal = False

    def _check_stored(self, name: str) -> None:
        """Re-check the stored data (nothing by default)."""


#: Columns of a user-supplied LinearOperator read to check its diagonal when it has no
#: ``diagonal`` method (a seeded sample; all of them up to this many points).
OPERATOR_DIAG_SAMPLE = 32
#: Lanczos steps of the PSD probe of a user-supplied LinearOperator.
OPERATOR_LANCZOS_STEPS = 12
_PROBE_SEED = 20140621  # fixed: the probes are the same on every run and machine


def check_unit_rows(Z: np.ndarray, name: str = "Z") -> None:
    """Refuse a factor whose rows are not finite and of unit norm (within ``DIAG_TOL``).

    By blocks of about 64k entries: no temporary of the size of ``Z``.
    """
    block = max(1, 2**16 // max(1, Z.shape[1]))
    for start in range(0, Z.shape[0], block):
        part = Z[start : start + block]
        if not np.all(np.isfinite(part)):
            raise ValueError(f"{name} contains NaN or inf.")
        norms = row_norms(part)
        bad = np.flatnonzero(~(np.abs(norms * norms - 1.0) <= DIAG_TOL))
        if bad.size:
            raise ValueError(
                f"{name} must have rows of unit Euclidean norm (the signed normalised "
                f"points, so that G = {name} {name}^T has a unit diagonal); row "
                f"{start + bad[0]} has norm {norms[bad[0]]:.6g}. Build it with "
                "kperc.signed_normalized_points(X, y) or kperc.gram_operator(X, y)."
            )


def check_factor(Z, name: str = "Z") -> Any:
    """A factor ``Z`` of ``G = Z Z^T``: real, 2-D, non-empty, finite, unit rows.

    A C-contiguous float64 array is used as it is (never written to); a scipy.sparse
    factor is kept sparse (a CSR float64 copy, :func:`check_sparse_X`); anything else is
    converted (see :func:`as_real_array`).
    """
    if scipy.sparse.issparse(Z):
        sp = check_sparse_X(Z, name)
        norms = sparse_row_norms(sp)
        bad = np.flatnonzero(~(np.abs(norms * norms - 1.0) <= DIAG_TOL))
        if bad.size:
            raise ValueError(
                f"{name} must have rows of unit Euclidean norm (the signed normalised "
                f"points, so that G = {name} {name}^T has a unit diagonal); row {bad[0]} "
                f"has norm {norms[bad[0]]:.6g}. Build it with "
                "kperc.signed_normalized_points(X, y) or kperc.gram_operator(X, y)."
            )
        return sp
    if isinstance(Z, np.ndarray) and Z.dtype == np.float64 and Z.flags.c_contiguous:
        arr = Z
    else:
        arr = np.ascontiguousarray(as_real_array(Z, name))
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(
            f"{name} must be 2-D of shape (n_samples, n_features) with at least one row and "
            f"column; got shape {arr.shape}."
        )
    check_unit_rows(arr, name)
    return arr


def check_index(j, n: int, name: str = "j") -> int:
    """An index into ``n`` points: an integer (not a bool, float or string) in ``[-n, n)``.

    Negative indices count from the end, as in numpy; the result is in ``[0, n)``.
    """
    if isinstance(j, (bool, np.bool_)) or not isinstance(j, numbers.Integral):
        raise ValueError(f"{name} must be an integer index; got {j!r} of type {type(j).__name__}.")
    j = int(j)
    if not -n <= j < n:
        raise ValueError(f"{name}={j} is out of range for {n} points (valid: 0 to {n - 1}).")
    return j % n


def check_operator(G: LinearOperator, name: str = "G", *, probe: bool = True) -> None:
    """Check a LinearOperator that stands for a normalised signed Gram matrix.

    Always: square, non-empty, real dtype; for a :class:`~kperc.GramOperator`, a finite
    factor with unit rows (``O(n d)``). kperc's own operators (``GramOperator``,
    ``KernelGramOperator``: :class:`TrustedGramOperator`) are valid by construction and
    are not probed. Any other operator is probed
    (``probe=True``), at the cost of a few dozen products:

    * the diagonal: all of it from a ``diagonal()`` method (and two entries read back
      through products, which must agree), otherwise up to ``OPERATOR_DIAG_SAMPLE``
      seeded columns; every entry read must be 1 within ``DIAG_TOL``;
    * symmetry: ``v^T G u = u^T G v`` for two seeded Gaussian vectors;
    * positive semidefiniteness: ``OPERATOR_LANCZOS_STEPS`` Lanczos steps from a
      seeded vector; a Ritz value below ``-PSD_TOL n`` proves a negative eigenvalue.

    What probes cannot see is not checked: a diagonal entry outside the sample (for an
    operator without ``diagonal()``), an asymmetry or a negative eigenvalue that the
    seeded vectors miss, and products that change between calls. The probes are seeded,
    so a given operator gets the same verdict on every run; the sampled indices depend on
    the order of the points, the full diagonal does not.
    """
    shape = G.shape
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"{name} must be square; the operator has shape {shape}.")
    if shape[0] == 0:
        raise ValueError(f"{name} is empty; at least one point is needed.")
    dtype = getattr(G, "dtype", None)
    if dtype is not None and np.dtype(dtype).kind == "c":
        raise TypeError(f"{name} must be real; the operator has dtype {np.dtype(dtype)}.")
    if isinstance(G, TrustedGramOperator):  # kperc's own: valid by construction
        G._check_stored(name)
        return
    Z = getattr(G, "Z", None)  # a factor of another operator must be finite
    if isinstance(Z, np.ndarray) and not np.all(np.isfinite(Z)):
        raise ValueError(f"{name} (a {type(G).__name__}) has NaN or inf in its factor Z.")
    if probe:
        _probe_operator(G, name)


def _probe_operator(G: LinearOperator, name: str) -> None:
    """The seeded probes of :func:`check_operator` (diagonal, symmetry, PSD)."""
    n = G.shape[0]
    kind = type(G).__name__
    rng = np.random.default_rng(_PROBE_SEED)

    def product(v):
        try:
            out = G.matvec(v)
        except ValueError as exc:  # scipy's reshape of a wrong-sized product
            raise ValueError(
                f"{name} (a {kind}) returned a product of the wrong shape (expected ({n},)): {exc}"
            ) from exc
        return check_operator_output(out, n, "product G @ v", G)

    def column(j):
        if hasattr(G, "column"):
            return check_operator_output(G.column(j), n, f"column {j}", G)
        e = np.zeros(n)
        e[j] = 1.0
        return product(e)

    if hasattr(G, "diagonal"):
        diag = check_operator_output(G.diagonal(), n, "diagonal", G)
        idx = np.arange(n)
        for j in rng.choice(n, min(n, 2), replace=False):
            got = float(column(int(j))[j])
            if abs(got - diag[j]) > DIAG_TOL:
                raise ValueError(
                    f"{name} (a {kind}) is inconsistent: diagonal()[{j}] = {diag[j]:.6g} but "
                    f"the product G e_{j} has entry {got:.6g} there."
                )
    else:
        idx = np.sort(rng.choice(n, min(n, OPERATOR_DIAG_SAMPLE), replace=False))
        diag = np.array([column(int(j))[j] for j in idx])
    err = np.abs(diag - 1.0)
    if np.any(~(err <= DIAG_TOL)):
        k = int(np.argmax(np.where(np.isfinite(err), err, np.inf)))
        raise ValueError(
            f"{name} (a {kind}) must have a unit diagonal, as a normalised Gram matrix does "
            f"(G_ii = 1); G[{idx[k]}, {idx[k]}] = {diag[k]:.6g}. Normalise the kernel: "
            "G_ij = y_i y_j K_ij / sqrt(K_ii K_jj)."
        )
    if n == 1:
        return
    u, v = rng.standard_normal(n), rng.standard_normal(n)
    Gu, Gv = product(u), product(v)
    scale = float(np.linalg.norm(Gu) * np.linalg.norm(v) + np.linalg.norm(Gv) * np.linalg.norm(u))
    asym = abs(float(v @ Gu) - float(u @ Gv))
    if asym > DIAG_TOL * scale:
        raise ValueError(
            f"{name} (a {kind}) is not symmetric: v^T G u - u^T G v = {asym:.3g} for random "
            f"u, v (relative {asym / max(scale, 1e-300):.3g}); a Gram matrix is symmetric."
        )
    # Lanczos from u, full reorthogonalisation: a Ritz value is >= the smallest eigenvalue
    m = min(n, OPERATOR_LANCZOS_STEPS)
    Q = np.empty((m, n))
    alpha, beta = np.empty(m), np.empty(m)
    q = u / np.linalg.norm(u)
    w = Gu / np.linalg.norm(u)
    tol = PSD_TOL * n
    for j in range(m):
        Q[j] = q
        if j:
            w = product(q)
        alpha[j] = q @ w
        w = w - Q[: j + 1].T @ (Q[: j + 1] @ w)
        w = w - Q[: j + 1].T @ (Q[: j + 1] @ w)
        beta[j] = np.linalg.norm(w)
        lam = _smallest_ritz_value(alpha[: j + 1], beta[:j])
        if lam < -tol:
            raise ValueError(
                f"{name} (a {kind}) is not positive semidefinite (an eigenvalue at most "
                f"{lam:.3g} was found); use a positive semidefinite kernel."
            )
        if beta[j] <= 1e-12 * n:
            break
        q = w / beta[j]


def check_operator_output(out, n: int, what: str, G) -> np.ndarray:
    """A product or column returned by a LinearOperator: real, shape ``(n,)``, finite."""
    arr = np.asarray(out)
    if arr.dtype.kind == "c":
        raise TypeError(f"G (a {type(G).__name__}) returned a complex {what}; G must be real.")
    if arr.size != n:
        raise ValueError(
            f"G (a {type(G).__name__}) returned a {what} of shape {arr.shape}; expected ({n},)."
        )
    arr = np.asarray(arr, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"G (a {type(G).__name__}) returned a {what} with NaN or inf.")
    return arr


def check_simplex(q, n: int, name: str = "q", tol: float = 1e-9) -> np.ndarray:
    """Check that ``q`` is a probability vector of length ``n``; return a float64 copy."""
    arr = as_real_array(q, name)
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},) to match G; got {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf.")
    if arr.min() < -tol or abs(arr.sum() - 1.0) > tol * max(1.0, n**0.5):
        raise ValueError(
            f"{name} must lie in the simplex (entries >= 0 summing to 1); got min "
            f"{arr.min():.3g} and sum {arr.sum():.12g}."
        )
    arr = np.clip(arr, 0.0, None)
    return arr / arr.sum()

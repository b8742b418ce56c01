"""Input validation at the package boundary.

Every public function funnels its inputs through these helpers, so that bad input
fails early with a :class:`ValueError` that says what was wrong and how to fix it.
Inputs are never modified in place: the helpers return fresh arrays.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator

#: Tolerance on ``|G_ii - 1|`` and on asymmetry, relative to 1.
DIAG_TOL = 1e-8
#: Tolerance on the smallest eigenvalue of G, relative to ``n``.
PSD_TOL = 1e-8
#: Above this size the O(n^3) PSD test is skipped unless asked for.
PSD_CHECK_MAX_N = 3000


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
    """The power of two nearest ``value`` (> 0): dividing by it is exact in floating point."""
    return float(2.0 ** np.round(np.log2(value)))


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
    y = check_labels(y)
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} rows but y has {y.shape[0]} labels; "
            "they must describe the same points (X is (n_samples, n_features))."
        )
    return X, y


def check_X(X, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite 2-D float64 copy with at least one row and column."""
    try:
        arr = np.array(X, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array: {exc}") from exc
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


def check_labels(y) -> np.ndarray:
    """Return labels as a float64 copy after checking that they are -1/+1."""
    arr = np.array(y, copy=True)
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


def check_positive(value, name: str, *, integer: bool = False):
    """Check that a scalar parameter is finite and strictly positive."""
    if integer:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(f"{name} must be a positive integer; got {value!r}.")
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive number; got {value!r}.")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be positive and finite; got {value!r}.")
    return int(value) if integer else float(value)


def check_nonnegative(value, name: str) -> float:
    """Check that a scalar parameter is a finite number ``>= 0``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a non-negative number; got {value!r}.")
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be non-negative and finite; got {value!r}.")
    return float(value)


def check_gram(G, *, check_psd: bool | None = None):
    """Validate a normalised signed Gram matrix or a linear operator standing for one.

    Parameters
    ----------
    G : array_like of shape (n, n) or LinearOperator
        Dense matrices are checked for finiteness, squareness, symmetry, unit diagonal
        and (when ``check_psd`` allows) positive semidefiniteness. Linear operators are
        checked for shape only, and must provide ``column(j)`` and ``diagonal()``
        (as :class:`kperc.GramOperator` does) unless they are wrapped first.
    check_psd : bool or None
        ``None`` (default) runs the PSD test for ``n <= 3000``.

    Returns
    -------
    G : ndarray or LinearOperator
        A float64 C-contiguous array for dense input (the input itself when it already
        is one; it is never written to), the operator itself otherwise.
    """
    if isinstance(G, LinearOperator):
        shape = G.shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"G must be square; the operator has shape {shape}.")
        if shape[0] == 0:
            raise ValueError("G is empty; at least one point is needed.")
        return G
    if hasattr(G, "toarray") and not isinstance(G, np.ndarray):
        G = G.toarray()
    try:
        arr = np.ascontiguousarray(G, dtype=np.float64)  # never written to
    except (TypeError, ValueError) as exc:
        raise ValueError(f"G must be a numeric matrix: {exc}") from exc
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
    if check_psd is None:
        check_psd = n <= PSD_CHECK_MAX_N
    if check_psd and n > 1:
        work = arr.copy()  # the only n x n temporary of the validation
        work.flat[:: n + 1] += PSD_TOL * n
        try:  # a jittered Cholesky factorisation is ~10x cheaper than eigenvalues
            scipy.linalg.cholesky(work, lower=True, overwrite_a=True, check_finite=False)
            return arr
        except np.linalg.LinAlgError:
            del work
            lam_min = float(np.linalg.eigvalsh(arr)[0])
        if lam_min < -PSD_TOL * n:
            raise ValueError(
                f"G is not positive semidefinite (smallest eigenvalue {lam_min:.3g}); "
                "use a positive semidefinite kernel."
            )
    return arr


def check_simplex(q, n: int, name: str = "q", tol: float = 1e-9) -> np.ndarray:
    """Check that ``q`` is a probability vector of length ``n``; return a float64 copy."""
    arr = np.array(q, dtype=np.float64, copy=True)
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

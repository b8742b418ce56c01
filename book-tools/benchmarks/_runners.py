"""Peer solvers timed by the suites (scikit-learn) and the row of a kperc run."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from benchmarks._problems import (
    normalized_margin,
)
from benchmarks._timing import _now


def _signed_points(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    return X * (y / np.linalg.norm(X, axis=1))[:, None]


def sklearn_perceptron_chunks(X: np.ndarray, y: np.ndarray, seed: int = 0):
    """scikit-learn's online Perceptron in chunks of epochs: yields ``(epochs, w)``.

    ``fit_intercept=False``, ``shuffle=True``, a constant step and no early stopping
    (``tol=None``), continued with ``warm_start``; each chunk is at most a tenth of the
    epochs so far, so a caller that stops at the first separating ``w`` overshoots by at
    most 10%. The caller decides when to stop (separated, or its time cap).
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import Perceptron

    clf = Perceptron(
        fit_intercept=False,
        shuffle=True,
        random_state=seed,
        tol=None,
        max_iter=1,
        warm_start=True,
        eta0=1.0,
    )
    epochs = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        while True:
            chunk = max(1, epochs // 10)
            clf.set_params(max_iter=chunk)
            clf.fit(X, y)
            epochs += chunk
            yield epochs, clf.coef_.ravel()


def run_sklearn_perceptron(
    X: np.ndarray, y: np.ndarray, cap_s: float, seed: int = 0
) -> dict[str, Any]:
    """scikit-learn's online Perceptron until it separates, or for about ``cap_s`` s.

    It is fitted on the normalised points ``x_i / ||x_i||`` in chunks of epochs
    (:func:`sklearn_perceptron_chunks`). After each chunk the harness checks whether
    ``w`` separates (one product with the data, included in the time).
    """
    Xn = X / np.linalg.norm(X, axis=1)[:, None]
    A = Xn * y[:, None]
    t0 = _now()
    epochs = 0
    for epochs_done, w in sklearn_perceptron_chunks(Xn, y, seed):
        epochs = epochs_done
        m = A @ w
        separated = bool(m.min() > 0)
        elapsed = _now() - t0
        if separated or elapsed >= cap_s:
            break
    nw = float(np.linalg.norm(w))
    return {
        "time_s": elapsed,
        "nit": epochs,
        "capped": not separated,
        "cap_s": cap_s,
        "separated": separated,
        "margin": float(m.min() / nw) if nw > 0 else float("nan"),
    }


def run_svc(G: np.ndarray, y: np.ndarray, C: float = 1e8) -> dict[str, Any]:
    """scikit-learn's SVC (libsvm) with a precomputed normalised kernel and a large C.

    The kernel is ``K~_ij = y_i y_j G_ij`` (the normalised kernel without signs). libsvm
    always fits a bias ``b``: ``separated`` says whether its decision function (with
    ``b``) classifies every training point correctly, and ``margin`` is the normalised
    margin ``min (G alpha) / ||alpha||_G`` of its homogeneous part
    (``alpha_i = |dual coefficient|``), comparable with kperc's separators.
    """
    from sklearn.svm import SVC

    K = G * np.outer(y, y)
    clf = SVC(C=C, kernel="precomputed", tol=1e-3)
    t0 = _now()
    clf.fit(K, y)
    dt = _now() - t0
    dec = clf.decision_function(K)
    alpha = np.zeros(G.shape[0])
    alpha[clf.support_] = np.abs(clf.dual_coef_.ravel())
    bounded = int(np.sum(np.abs(clf.dual_coef_) >= C * (1 - 1e-9)))
    return {
        "time_s": dt,
        "nit": int(np.sum(clf.n_iter_)),
        "capped": False,
        "separated": bool(np.all(y * dec > 0)),
        "margin": normalized_margin(G, alpha),
        "n_support": int(clf.support_.size),
        "bounded_sv": bounded,
        "intercept": float(clf.intercept_[0]),
    }


def _kperc_row(solver: str, out: dict[str, Any], G) -> dict[str, Any]:
    res = out["result"]
    sep = res.outcome == "separator"
    return {
        "solver": solver,
        "time_s": out["time_s"],
        "nit": int(res.nit),
        "capped": bool(out["capped"]),
        "cap_s": out["cap_s"],
        "separated": bool(sep),
        "margin": normalized_margin(G, res.alpha) if sep else None,
    }

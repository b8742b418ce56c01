"""The affine margin: definition (5) against the span-restricted margin."""

from __future__ import annotations

from typing import Any

import numpy as np

import kperc
from kperc_book import data as kdata


def affine_margin_demo(name: str = "infeasible_2d", extra_dims: int = 1) -> dict[str, Any]:
    """Definition (5) against the span-restricted ("affine") margin (the paper's Section 5).

    The stored inseparable 2-D points are embedded in ``R^(2 + extra_dims)`` with zero
    extra coordinates. ``G`` does not change, so the span-restricted margin does not
    either; but definition (5), a supremum over every unit ``w`` of the larger space,
    is ``0``: ``w = e_3`` gives ``min_i a_i^T w = 0``, and no unit ``w`` does better
    because the Gordan certificate ``p`` (``sum_i p_i a_i = 0``) gives
    ``min_i a_i^T w <= sum_i p_i a_i^T w = 0``.

    Returns
    -------
    dict
        ``rho_span`` (:func:`kperc.margin` of the 2-D data), ``rho_span_embedded`` (of
        the embedded data), ``orth_value`` (``min_i a_i^T e_3``, exactly 0),
        ``certificate_norm`` (``||sum_i p_i a_i||`` of the certificate) and
        ``theorem3_radius`` (largest ball around 0 inside the hull, the inradius of
        Theorem 3; equals ``-rho_span``).
    """
    ds = kdata.load(name)
    X, y = ds.X, ds.y
    Xe = np.hstack([X, np.zeros((X.shape[0], extra_dims))])
    G = kperc.gram_matrix(X, y)
    Ge = kperc.gram_matrix(Xe, y)
    det = kperc.margin_details(G)
    A = kperc.signed_normalized_points(Xe, y)
    e3 = np.zeros(Xe.shape[1])
    e3[X.shape[1]] = 1.0
    cert = float(np.linalg.norm(A.T @ det.p))
    return {
        "name": name,
        "n": int(X.shape[0]),
        "rho_span": float(det.rho),
        "rho_span_embedded": float(kperc.margin(Ge)),
        "orth_value": float((A @ e3).min()),
        "certificate_norm": cert,
        "theorem3_radius": float(-det.rho),
    }

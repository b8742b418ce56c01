"""The Von Neumann bounds that Chapters 5 and 6 both use (infeasible problems).

Chapter 6 (the primal-dual methods) compares against Chapter 5's Von Neumann bounds;
both import them from here, so that no chapter module imports another. (The problems
both chapters run on are built by :mod:`kperc_book.experiments._problems`.)
"""

from __future__ import annotations

import math

__all__ = ["dantzig_bound", "ef_dual_bound"]


def dantzig_bound(eps: float) -> int:
    """Dantzig: without a primal exit, NVN halts within ``ceil(1/eps^2) - 1`` steps."""
    return int(math.ceil(1.0 / eps**2)) - 1


def ef_dual_bound(rho: float, eps: float, norm_w0: float) -> int:
    """Epelman-Freund, dual side: ``ceil(2 ln(||w_0|| / eps) / (-ln(1 - rho^2)))``."""
    if norm_w0 <= eps:
        return 0
    return int(math.ceil(2.0 * math.log(norm_w0 / eps) / (-math.log1p(-rho * rho))))

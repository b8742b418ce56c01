"""Type aliases for the public signatures, in terms of :mod:`numpy.typing`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.sparse.linalg import LinearOperator

__all__ = ["ArrayLike", "GramLike", "KernelLike", "RandomStateLike"]

#: A Gram matrix ``G = Y K Y`` as the algorithms take it: a dense array, a
#: :class:`scipy.sparse.linalg.LinearOperator` (``kperc.GramOperator`` and the kernel
#: operators are ones), or a ``kperc.ValidatedGram`` (an array-like: it has ``__array__``).
GramLike = ArrayLike | LinearOperator

#: A kernel: one of scikit-learn's kernel names, or a callable ``k(x, z) -> float``.
KernelLike = str | Callable[..., Any]

#: A seed, as scikit-learn takes it.
RandomStateLike = int | np.random.RandomState | np.random.Generator | None

"""What the benchmarks record besides time: products counted and peak memory."""

from __future__ import annotations

import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from kperc import _gram

#: kperc's access to a Gram matrix (private: the benchmark needs to see inside), and the
#: methods that cost one product ``G @ v`` or one quadratic form ``p^T G p`` each.
_GRAM_CLASSES = (_gram._DenseGram, _gram._OperatorGram)
_COUNTED = {
    "matvec": "products",
    "matvec_into": "products",
    "seminorm_bound": "quadratic_forms",
    "column": "columns",
    "column_into": "columns",
    "_compute_column_into": "columns",  # operator: a column computed (a cache miss)
}


@contextmanager
def count_products() -> Iterator[Counter]:
    """Count the products ``G @ v``, quadratic forms and columns an algorithm asks for.

    Every kperc algorithm reaches ``G`` through one access class (dense or operator);
    its methods are wrapped for the duration, so the counts are exact for the
    algorithm's own work. (A matrix taken as given is validated before that class is
    built: its validation is not counted here, only timed.)
    """
    counts: Counter = Counter()
    saved = []
    for cls in _GRAM_CLASSES:
        for meth, what in _COUNTED.items():
            if meth not in cls.__dict__:  # the operator class computes columns otherwise
                continue
            original = cls.__dict__[meth]

            def wrapped(self, *args, _f=original, _what=what, **kw):
                counts[_what] += 1
                return _f(self, *args, **kw)

            saved.append((cls, meth, original))
            setattr(cls, meth, wrapped)
    try:
        yield counts
    finally:
        for cls, meth, original in saved:
            setattr(cls, meth, original)


def peak_bytes(fn: Callable[[], Any]) -> int:
    """Peak of the memory allocated (numpy arrays included) during one call of ``fn``."""
    tracemalloc.start()
    try:
        fn()
        return int(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()

"""Where an algorithm's input goes: the numpy path (unchanged) or the device path
(:mod:`kperc._device`), and the device path's own exit ("undecided" in float32)."""

from __future__ import annotations

from . import _array_api as aa
from ._device import DeviceGram
from ._gram import as_gram

__all__ = ["as_any_gram", "finish", "undecided_messages"]


def as_any_gram(G, *, validate: bool = True, cache_size: float = 0.0):
    """The numpy path's ``as_gram`` for numpy inputs (unchanged), :class:`DeviceGram`
    for an array of another namespace or a :class:`DeviceKernelOperator`."""
    if aa.is_foreign(G):
        return DeviceGram(G, validate=validate)
    return as_gram(G, validate=validate, cache_size=cache_size)


def finish(gram, res):
    """Give a result's ``alpha`` and ``p`` the input's namespace and device (a no-op for
    the numpy path)."""
    if isinstance(gram, DeviceGram):
        for key in ("alpha", "p"):
            if res.get(key) is not None:
                res[key] = gram.to_result(res[key])
    return res


def undecided_messages(gram, how: str, unconfirmed: bool, k: int, unit: str) -> dict | None:
    """``{"undecided": message}`` for a run in a precision below float64 (a float32 ``G``
    on a device, :mod:`kperc._device`) that ended at ``max_iter`` after an iterate whose
    float64 check found ``min G alpha > 0`` but not beyond rounding; None otherwise (and
    always on the numpy path, whose runs are unchanged)."""
    if how != "max_iter" or not unconfirmed or not getattr(gram, "low_precision", False):
        return None
    return {
        "undecided": (
            f"undecided after {k} {unit}: an iterate had min G alpha > 0, but a float64 "
            f"check could not confirm it beyond rounding (G in {gram.dtype}, its entries "
            f"within {gram.entry_error:.2g} of the data's exact Gram matrix); float64 "
            "arrays may decide"
        )
    }

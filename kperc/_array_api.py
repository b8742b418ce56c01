"""Arrays of other array-API namespaces (torch, CuPy, array-api-strict, ...): detection,
transfers and memory budgets.

kperc's numpy code path is unchanged: an input that is a numpy array (or a
LinearOperator, list, DataFrame, ...) never reaches this module beyond one
``isinstance`` test. Any other array that follows the array API standard (an
``__array_namespace__``, or a torch tensor, recognised by `array-api-compat
<https://data-apis.org/array-api-compat/>`_) is handled by :mod:`kperc._device`.

array-api-compat is an optional dependency (the ``array-api`` extra), imported only
when such an array arrives: numpy users need nothing more, ``import kperc`` imports
neither it nor torch, and a machine without it (a GPU machine with no package
registry) still runs kperc on numpy. A foreign array without it gives an ImportError
that says what to install.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

__all__ = ["is_foreign", "namespace", "to_numpy", "to_namespace", "block_rows"]

#: Memory budget of one row block on a device whose free memory cannot be queried (the
#: CPU): 256 MB.
CPU_BLOCK_BYTES = 1 << 28

#: Fraction of a GPU's free memory that one row block may take.
GPU_FREE_FRACTION = 0.25


def _compat():
    try:
        import array_api_compat
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        raise ImportError(
            "kperc runs on arrays of other array-API libraries (torch, CuPy, ...) through "
            "array-api-compat: pip install array-api-compat (or kperc[array-api])."
        ) from exc
    return array_api_compat


def is_foreign(obj: Any) -> bool:
    """Whether ``obj`` is an array of a namespace other than numpy (or a device operator).

    Costs one ``isinstance`` test for a numpy array; never imports torch.
    """
    if isinstance(obj, np.ndarray) or obj is None:
        return False
    if getattr(obj, "_kperc_device_operator", False):
        return True
    if isinstance(obj, np.generic):
        return False
    if hasattr(obj, "__array_namespace__"):
        return True
    torch = sys.modules.get("torch")  # a tensor exists only if torch was imported
    return torch is not None and isinstance(obj, torch.Tensor)


def namespace(*arrays: Any):
    """The array-API namespace of ``arrays`` (array-api-compat's wrapper for torch)."""
    return _compat().array_namespace(*arrays)


def device_of(x: Any):
    return _compat().device(x)


def is_cuda(x: Any) -> bool:
    """Whether ``x`` lives on a CUDA device (torch or CuPy)."""
    c = _compat()
    if c.is_cupy_array(x):
        return True
    return bool(c.is_torch_array(x) and x.is_cuda)


def to_numpy(x: Any, dtype: Any = np.float64) -> np.ndarray:
    """A host numpy copy (or view) of ``x`` as ``dtype``: a device-to-host transfer."""
    c = _compat()
    if c.is_torch_array(x):
        arr = x.detach().cpu().numpy()
    elif c.is_cupy_array(x):
        arr = x.get()
    else:  # the standard's exchange protocol (array-api-strict: DLPack on the CPU)
        arr = np.from_dlpack(x)
    arr = np.asarray(arr, dtype=dtype)
    # a copy where the view is read-only (numpy < 2 imports DLPack read-only): the loops
    # write into what this returns
    return arr if arr.flags.writeable else arr.copy()


def host_view(x: Any) -> np.ndarray | None:
    """A numpy view of ``x``'s memory when ``x`` lives in host memory (DLPack, no copy);
    None on a GPU."""
    c = _compat()
    if c.is_torch_array(x):
        return x.detach().numpy() if x.device.type == "cpu" and not x.is_conj() else None
    if c.is_cupy_array(x):
        return None
    try:
        return np.from_dlpack(x)
    except (BufferError, RuntimeError, TypeError, ValueError):
        return None


def to_namespace(v: np.ndarray, xp, device, dtype=None):
    """``v`` (host numpy) as an array of ``xp`` on ``device``: a host-to-device transfer."""
    return xp.asarray(v, dtype=dtype, device=device)


def free_bytes(x: Any) -> int:
    """Memory that one row block next to ``x`` may take: a fraction of the device's free
    memory (``torch.cuda.mem_get_info``, CuPy's ``memGetInfo``), or
    :data:`CPU_BLOCK_BYTES` on the CPU."""
    c = _compat()
    if c.is_torch_array(x) and x.is_cuda:
        import torch

        free, _ = torch.cuda.mem_get_info(x.device)
        return int(free * GPU_FREE_FRACTION)
    if c.is_cupy_array(x):
        import cupy

        free, _ = cupy.cuda.runtime.memGetInfo()
        return int(free * GPU_FREE_FRACTION)
    return CPU_BLOCK_BYTES


def block_rows(n: int, row_bytes: int, budget: int) -> int:
    """Rows per block so that one block of rows of ``row_bytes`` each fits ``budget``."""
    return max(1, min(n, budget // max(1, row_bytes)))

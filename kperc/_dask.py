"""The row-block product ``G v`` of an on-the-fly kernel operator on a Dask cluster.

A product ``G v`` with ``G`` never formed is a sum of independent row blocks:
rows ``[i0, i1)`` need the data ``X`` (``n d`` numbers), the vector ``y * v`` and nothing
else. :class:`DaskKernelGramOperator` keeps a copy of the operator (its data) on every
worker, sent once when it is built, and per product sends one vector to the workers and
gathers one back (their row blocks of ``G v``): one vector exchanged per iteration of
SNKP. Columns (NKP, NVN) are computed locally, in ``O(n d)``. Each worker computes its
rows by the same sub-blocks, by the same code, as
:meth:`kperc.KernelGramOperator._matvec` in one process, so the algorithms take the same
decisions (``tests/lib/test_array_api_dask.py``).

**n = 10^7 on a multi-GPU cluster** (a worked estimate, not a measurement). With ``d = 8``
float32 data, ``X`` takes ``n d 4 = 320 MB`` per worker; ``W`` workers, one GPU each,
hold ``n / W`` rows each, and run the device operator of :mod:`kperc._device` on their
rows (``torch`` arrays in the worker, ``b x n`` kernel blocks of ``b = 1000`` rows: 40 GB).
Per iteration:

* network: the vector ``y * v`` to every worker and the result rows back, ``4 n = 40 MB``
  each way per worker: ``2 x 40 MB x W / 25 GB/s`` (a 200 Gb/s InfiniBand link per node)
  ``= 26 ms`` for ``W = 8``;
* flops: about ``2 d + 10 = 26`` per kernel entry (the block's matrix product, the
  squared norms, ``exp``, the product with ``v``): ``26 n^2 = 2.6e15``, ``0.33e15`` per
  GPU, 5.4 s at 60 TFLOP/s (float32, an H200);
* GPU memory traffic: the blocks as written here are stored, about 24 bytes per entry
  (written and read back by three passes: distances, ``exp``, the product), ``24 n^2 / W
  = 3e14`` bytes per GPU, 62 s at 4.8 TB/s. That, not the network, bounds an iteration:
  about a minute on 8 GPUs, so a few hundred SNKP iterations take hours; a fused kernel
  that never stores the block (KeOps-style) would be bound by the 5.4 s of flops.

The cluster run is then ``DaskKernelGramOperator`` with the per-worker product on the
worker's GPU, which this module does not yet do: here the workers compute in numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._kernel_columns import KernelGramOperator
from ._typing import ArrayLike, KernelLike

__all__ = ["DaskKernelGramOperator"]


def _rows(op: KernelGramOperator, i0: int, i1: int, w: np.ndarray) -> np.ndarray:
    """Rows ``[i0, i1)`` of ``G v`` (``w = s * v``), by ``op.block_size`` sub-blocks: the
    same operations as :meth:`KernelGramOperator._matvec` on those rows."""
    out = np.empty(i1 - i0)
    b = op.block_size
    for s in range(i0, i1, b):
        e = min(i1, s + b)
        out[s - i0 : e - i0] = op._s[s:e] * (op._kernel(op._Xk[s:e], op._Xk) @ w)
    return out


class DaskKernelGramOperator(KernelGramOperator):
    """:class:`kperc.KernelGramOperator` whose products run by row blocks on Dask workers.

    Parameters
    ----------
    X, y, kernel, kernel_params, block_size
        As :class:`kperc.KernelGramOperator`.
    client : distributed.Client
        The cluster. A copy of the operator goes to every worker once.
    n_parts : int, optional
        Row blocks per product (default: the number of workers), each a multiple of
        ``block_size`` rows.

    Examples
    --------
    >>> import kperc
    >>> from distributed import Client, LocalCluster
    >>> from kperc._dask import DaskKernelGramOperator
    >>> X, y = kperc.datasets.circles(100, seed=0)
    >>> with LocalCluster(n_workers=2, processes=False) as cluster, Client(cluster) as client:
    ...     G = DaskKernelGramOperator(X, y, "rbf", {"gamma": 2.0}, client=client)
    ...     res = kperc.snkp(G)
    >>> res.outcome == kperc.snkp(kperc.kernel_gram_operator(X, y, gamma=2.0)).outcome
    True
    """

    def __init__(
        self,
        X: ArrayLike,
        y: ArrayLike,
        kernel: KernelLike = "rbf",
        kernel_params: dict[str, Any] | None = None,
        block_size: int | None = None,
        *,
        client: Any,
        n_parts: int | None = None,
    ) -> None:
        super().__init__(X, y, kernel, kernel_params, block_size)
        n = self.shape[0]
        if n_parts is None:
            n_parts = max(1, len(client.scheduler_info()["workers"]))
        blocks = -(-n // self.block_size)
        edges = np.unique(np.linspace(0, blocks, min(n_parts, blocks) + 1).round().astype(int))
        self._parts = [
            (int(a) * self.block_size, min(n, int(b) * self.block_size))
            for a, b in zip(edges[:-1], edges[1:], strict=True)
        ]
        self.client = client
        local = KernelGramOperator(X, y, kernel, kernel_params, self.block_size)
        self._remote = client.scatter(local, broadcast=True)  # the data, sent once

    def _matvec(self, v):
        v = np.asarray(v, dtype=np.float64).reshape(-1)
        w = self.client.scatter(self._s * v, broadcast=True)  # the one vector sent
        futures = [
            self.client.submit(_rows, self._remote, i0, i1, w, pure=False) for i0, i1 in self._parts
        ]
        return np.concatenate(self.client.gather(futures))

    def __reduce__(self):  # pragma: no cover - the client cannot travel
        raise TypeError("a DaskKernelGramOperator holds a client and cannot be pickled")

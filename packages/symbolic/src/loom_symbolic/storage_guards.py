"""The storage-overlap guard of a graph that updates one of its tensor inputs in place.

A functionalizing backend (AOTAutograd: ``aot_eager``, ``triton``) compiles that update for the memory
sharing it sees among the inputs, so which inputs share memory is guarded (``StorageOverlap``), and where
each input that shares memory starts in its storage (its ``storage_offset()``). It
sees sharing only through one storage object (views of one tensor): two storages over the same bytes
(``torch.from_numpy(x.numpy())``, or an ndarray argument, which the graph receives as
``torch.from_numpy`` of it) look separate to it, and its functionalized graph would read the old
values. Such a frame runs as it is: eager's answer, never the wrong one.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import fx

from .errors import Unsupported
from .variables.tensor import storage_key


def storage_guards(inputs: list[Any], graph: fx.Graph) -> list[Any]:
    """``StorageOverlap`` over the tensor ``inputs`` (graph inputs; not parameters, not new memory at
    every call) when ``graph`` updates one of them in place; raises :class:`Unsupported` (the frame
    runs as it is) when two of them share memory through distinct storages."""
    import loom_guards

    candidates = [i for i in inputs if isinstance(i.example, torch.Tensor) and not i.fresh
                  and not isinstance(i.example, torch.nn.Parameter)]
    if len(candidates) < 2 or not _mutates_an_input(candidates, graph):
        return []
    pairs = loom_guards.overlapping_pairs(i.example for i in candidates)
    for i, j in sorted(pairs):
        if storage_key(candidates[i].example) != storage_key(candidates[j].example):
            error = Unsupported(
                f"an in-place update of a graph input while {candidates[i].source} and {candidates[j].source} "
                "share memory through two storages",
                "a functionalizing backend sees them as separate tensors and would read the old values",
                hint="the function runs as ordinary Python")
            error.reason.frame_as_is = True
            raise error
    # The update is compiled for where the sharing inputs sit in their storage (a functionalizing backend
    # rebuilds them as views of one base at the offsets it saw): two views at offsets 0 and 1 overlap as two
    # at 0 and 0 do, and StorageOverlap alone would serve one the other's entry.
    sharing = sorted({k for pair in pairs for k in pair})
    offsets = [loom_guards.ConstantMatch(loom_guards.TensorMeta(candidates[k].source, "storage_offset"),
                                         candidates[k].example.storage_offset()) for k in sharing]
    return [loom_guards.StorageOverlap([i.source for i in candidates], pairs), *offsets]


def _mutates_an_input(inputs: list[Any], graph: fx.Graph) -> bool:
    """Whether an in-place node writes the memory of one of ``inputs`` (the input or a view of it)."""
    storages = {storage_key(i.node.meta.get("val")) for i in inputs} - {None}
    for node in graph.nodes:
        if not node.meta.get("mutates"):
            continue
        # the argument an in-place op writes is its first; a higher-order op names those it writes
        written = node.meta.get("writes") or node.args[:1]
        if any(isinstance(arg, fx.Node) and storage_key(arg.meta.get("val")) in storages for arg in written):
            return True
    return False

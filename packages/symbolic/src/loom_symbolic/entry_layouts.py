"""A graph input's layout as the graph receives it, kept apart from the FakeTensor the trace goes on with.

The trace runs the program's ops on one FakeTensor per input, and an in-place op that changes metadata
(``x.unsqueeze_(0)``, ``t_``, ``resize_``, ``as_strided_``) changes that very object. A graph over
symbolic sizes is handed to its backend with those FakeTensors as example inputs, so without care the
backend compiled for the layout the input has at the end of the graph: AOTAutograd traced
``unsqueeze(x)`` of a ``(1, s0)`` input (a wrong ``x.shape`` under ``aot_eager``, an IndexError in the C
backend's host code). :func:`record` notes the layout when the placeholder is made; :func:`example_at_entry`
gives a FakeTensor with that layout, sharing the input's storage, when the trace changed it.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import fx

_KEY = "loom_entry_layout"
_STORAGE_KEY = "loom_entry_storage"


def record(node: fx.Node, fake: torch.Tensor) -> None:
    """Note ``fake``'s sizes, strides and storage offset as the layout placeholder ``node`` receives."""
    node.meta[_KEY] = (fake, fake.shape, fake.stride(), fake.storage_offset())


def example_at_entry(node: fx.Node) -> Any:
    """The placeholder's example value with the layout it had when the placeholder was made: its own
    FakeTensor when the trace left that layout alone, else an alias of the same storage with that layout
    (also stored as the placeholder's ``meta["val"]``)."""
    value = node.meta.get("val")
    entry = node.meta.get(_KEY)
    if entry is None or entry[0] is not value:
        return value
    _, size, stride, offset = entry
    if same_sizes(value.shape, size) and same_sizes(value.stride(), stride) and same_sizes((value.storage_offset(),), (offset,)):
        return value
    with torch.no_grad():  # a leaf sharing the storage, not a view autograd would follow
        alias = node.meta.get(_STORAGE_KEY, value).detach()
        alias.as_strided_(size, stride, offset)
    alias.requires_grad_(value.requires_grad)
    node.meta["val"] = alias
    node.meta[_KEY] = (alias, size, stride, offset)
    return alias


def keep_entry_storage(node: fx.Node) -> None:
    """Keep the storage placeholder ``node``'s FakeTensor has now, before a ``set_`` (``x.data = y``) gives it
    other storage: :func:`example_at_entry` lays the entry layout over this one (the new storage may be too
    small for it, ``x.data = torch.zeros(0)``). The first call wins: that is the storage the input arrives with."""
    if _STORAGE_KEY not in node.meta:
        with torch.no_grad():
            node.meta[_STORAGE_KEY] = node.meta["val"].detach()


def same_sizes(a: tuple, b: tuple) -> bool:
    """Structural equality of two size tuples: comparing SymInts with ``==`` would add guards."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, torch.SymInt) or isinstance(y, torch.SymInt):
            if not (isinstance(x, torch.SymInt) and isinstance(y, torch.SymInt) and x.node.expr == y.node.expr):
                return False
        elif x != y:
            return False
    return True

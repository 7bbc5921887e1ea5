"""Which in-place writes a higher-order op's function may make: those to tensors it made itself.

A body traced apart (``cond``'s branches, ``map``'s and ``while_loop``'s functions, ``wrap``, a checkpointed
function) becomes a sub-graph that receives the caller's tensors as inputs; writing one of them (or a view of
it, or a constant it reads) in place would be a write the sub-graph cannot make. A tensor first made inside
the body, though (``acc = 0 + t; acc += u``), is the sub-graph's own: torch.compile keeps such writes, and so
do we. Grad-mode and autocast switches inside the body are not writes either: the body's caller checks it
leaves them as it found them.
"""

from __future__ import annotations

import operator
from typing import Any

import torch
from torch import fx

from .. import subgraphs
from .tensor import storage_key

#: Calls a body may make that switch state rather than write a tensor (balanced by the body, which is checked).
_SWITCHES = (torch._C._set_grad_enabled, torch.amp.autocast_mode._enter_autocast,
             torch.amp.autocast_mode._exit_autocast)
_MADE = ("call_function", "call_method", "call_module")
_IN_PLACE_OPERATORS = (operator.iadd, operator.iand, operator.ifloordiv, operator.ilshift, operator.imatmul,
                       operator.imod, operator.imul, operator.ior, operator.ipow, operator.irshift, operator.isub,
                       operator.itruediv, operator.ixor, operator.setitem)


def _written(node: fx.Node) -> list[Any]:
    """The arguments ``node`` writes: those a higher-order op names, an ``out=`` tensor, else the first
    (an in-place method or operator, ``setitem``); for any other call found writing, all its arguments."""
    if node.meta.get("writes"):
        return list(node.meta["writes"])
    if "out" in node.kwargs:
        return list(torch.utils._pytree.tree_leaves(node.kwargs["out"]))
    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
    if (name.endswith("_") and not name.endswith("__")) or node.target in _IN_PLACE_OPERATORS \
            or node.kwargs.get("inplace") is True:
        return list(node.args[:1])
    return list(torch.utils._pytree.tree_leaves((node.args, dict(node.kwargs))))


def writes_outside(nodes: list[fx.Node], graph: fx.Graph) -> bool:
    """Whether one of ``nodes`` (a body's region of ``graph``) writes in place a tensor the body did not make:
    its inputs, the outer values it reads, constants, or views of any of them."""
    inside = set(nodes)
    outer = {storage_key(n.meta.get("val")) for n in graph.nodes
             if n not in inside or n.op not in _MADE or n.target is subgraphs.body_input} - {None}
    for node in nodes:
        if not node.meta.get("mutates") or node.target in _SWITCHES:
            continue
        for arg in _written(node):
            if not isinstance(arg, fx.Node) or not isinstance(arg.meta.get("val"), torch.Tensor):
                continue
            if storage_key(arg.meta["val"]) in outer or arg not in inside:
                return True
    return False

"""Which recorded graph nodes act beyond their result: what dead-code removal must keep, and which calls
write their arguments or switch the program's global state."""

from __future__ import annotations

import operator
from typing import Any

import torch
from torch import fx

from .variables import device_ctx as _device_ctx
from .variables import inference_mode as _inference_mode
from .variables import saved_hooks as _saved_hooks
from .variables import sdpa_kernel as _sdpa_kernel
from .variables import torch_function_state as _torch_function_state

#: Nodes that switch the program's global state inside the graph (grad mode, autocast regions).
STATE_SWITCHES = (torch._C._set_grad_enabled, torch.amp.autocast_mode._enter_autocast,
                  torch.amp.autocast_mode._exit_autocast, *_inference_mode.STATE_SWITCHES,
                  *_torch_function_state.STATE_SWITCHES, *_device_ctx.STATE_SWITCHES,
                  *_sdpa_kernel.STATE_SWITCHES, *_saved_hooks.STATE_SWITCHES)
#: Functions that act on state outside their arguments: never removed as dead code.
_IMPURE_FUNCTIONS = {
    *STATE_SWITCHES, operator.setitem, torch._assert,
    operator.iadd, operator.iand, operator.ifloordiv, operator.ilshift, operator.imatmul, operator.imod,
    operator.imul, operator.ior, operator.ipow, operator.irshift, operator.isub, operator.itruediv, operator.ixor,
}

#: Calls that check their input's values and raise on a bad one (a class index past ``num_classes``, an index
#: out of range): eager raises even when nothing reads the result, so an unused one is not dead code either.
_VALUE_CHECKED_FUNCTIONS = {torch._C._nn.one_hot, torch.gather, torch.index_select, torch.take,
                            torch.take_along_dim, torch.embedding, torch.nn.functional.embedding, torch.bincount}
_VALUE_CHECKED_METHODS = {"gather", "index_select", "take", "take_along_dim", "bincount"}


def has_side_effect(node: fx.Node) -> bool:
    """Whether removing ``node`` would change what the program does, even when no node uses its result.

    A call that writes a tensor or state outside its result (``meta["mutates"]``), that advances the
    RNG (``meta["draws"]``: it ran a ``nondeterministic_seeded`` op while traced, such as ``randn``
    or ``dropout``; a draw whose value is overwritten still moves the generator for the draws after
    it), that checks its input's values (``one_hot``, ``gather``: it raises in eager whether or not its
    result is read), or that torch.fx itself holds impure (asserts, profiler ranges) is never dead code.
    """
    if node.meta.get("mutates") or node.meta.get("draws") or checks_values(node):
        return True
    return node.op == "call_function" and node.is_impure()


def checks_values(node: fx.Node) -> bool:
    """Whether ``node`` checks its input's values and raises on a bad one (``one_hot``, ``gather``): kept when
    unused. Such a node is marked ``meta["checks_values"]``, so that a compiling backend, whose functional
    trace drops what nothing reads, keeps it as an extra output (``loom_backends.graphs``)."""
    return node.target in (_VALUE_CHECKED_METHODS if node.op == "call_method" else _VALUE_CHECKED_FUNCTIONS)


def is_mutating(kind: str, target: Any, kwargs: dict) -> bool:
    """Whether a call of ``target`` writes something beyond its result (``out=``, an in-place method, a state switch)."""
    if "out" in kwargs or kwargs.get("inplace") is True:
        return True
    if target in _IMPURE_FUNCTIONS:
        return True
    name = target if isinstance(target, str) else getattr(target, "__name__", "")
    return name.endswith("_") and not name.endswith("__")

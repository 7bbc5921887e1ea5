"""The hooks of a leaf a recorded backward reaches (:mod:`.tensor_backward`), traced where eager runs them.

Eager's ``AccumulateGrad`` node hands the leaf's gradient to each of its tensor hooks in registration order
(``leaf.register_hook(fn)``, kept in ``leaf._backward_hooks``): a hook that returns a tensor replaces the
gradient, one that returns None leaves it. It then adds the gradient into ``.grad`` and calls each
``register_post_accumulate_grad_hook`` hook with the leaf. All of it runs with grad mode off. The trace calls
the same hooks on the graph's gradient at the same point, so what they compute joins the graph and what they
change (a list they append to, a counter) is the trace's side effect, made after the graph.

The gradient hooks traced are those the frame registered: they reach the real leaf after the graph, as
:mod:`.tensor_hooks` stores them. One the leaf already held when the graph runs would also be run by the
real ``torch.autograd.grad`` under the eager backend (it runs a leaf's tensor hooks, though not its
accumulation), so a leaf handed in with gradient hooks keeps the break. Post-accumulate hooks never run
inside ``torch.autograd.grad``, so those the leaf held before are traced as well (the dict guarded by its
keys). Only one leaf with hooks per backward, and no
custom ``autograd.Function`` on the way, is modelled: the engine's order across several leaves, or between a
hook and a Python ``backward``, is its own. A hook that raises, or returns a gradient of another size,
dtype or device (eager raises there), is a break, and eager's backward then runs natively.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .base import is_none_constant
from .exception_values import SymbolicException
from .tensor import TensorVariable
from .tensor_hooks import hook_table

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

GRADIENT_HOOKS = "_backward_hooks"
POST_ACCUMULATE_HOOKS = "_post_accumulate_grad_hooks"


def leaf_hooks(tx: InstructionTranslator, leaf: TensorVariable, name: str, what: str) -> list[Variable]:
    """The hooks in the leaf's dict ``name`` as the trace sees it, in registration order ([] for none)."""
    held = getattr(leaf.real, name, None) if leaf.real is not None else None
    if name == GRADIENT_HOOKS and held:  # (the trace's table, wrapped from it below, guards its keys)
        raise Unsupported(what, "a leaf it reaches held gradient hooks before the call: autograd itself runs them")
    table = hook_table(name, tx, leaf)
    if table is None or is_none_constant(table):
        return []
    items = getattr(table, "items", None)
    if not isinstance(items, dict):
        raise Unsupported(what, f"a leaf it reaches has hooks ({name}) the translator cannot list")
    return list(items.values())


def check_hooked_leaves(hooked: int, loss: torch.Tensor, what: str) -> None:
    """Refuse hooks the trace could not run in eager's order: on several leaves, or beside a custom
    ``autograd.Function``'s Python backward (``hooked``: how many reached leaves have hooks)."""
    if hooked > 1:
        raise Unsupported(what, "several leaves it reaches have hooks: their order is the autograd engine's")
    if hooked and _has_python_backward(loss):
        raise Unsupported(what, "a leaf it reaches has hooks and a custom autograd.Function's backward runs too")


def autograd_nodes(loss: torch.Tensor) -> Iterator[Any]:
    """Each node of the autograd graph a backward of ``loss`` walks (its fake tensor's), once."""
    seen: set[int] = set()
    pending = [loss.grad_fn]
    while pending:
        node = pending.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        pending.extend(next_node for next_node, _ in node.next_functions)


def _has_python_backward(loss: torch.Tensor) -> bool:
    return any(isinstance(node, torch.autograd.function.BackwardCFunction) for node in autograd_nodes(loss))


def run_gradient_hooks(tx: InstructionTranslator, hooks: list[Variable], gradient: TensorVariable,
                       what: str) -> TensorVariable:
    """Each hook called on the gradient in turn; the gradient the last one left."""
    for hook in hooks:
        result = _call(tx, hook, gradient, what)
        if isinstance(result, TensorVariable):
            new, old = result.example, gradient.example
            if (new.shape, new.dtype, new.device) != (old.shape, old.dtype, old.device):
                raise Unsupported(what, "a hook returned a gradient of another size, dtype or device (eager raises)")
            gradient = result
        elif not is_none_constant(result):
            raise Unsupported(what, "a hook returned something other than a tensor or None (eager raises)")
    return gradient


def run_post_accumulate_hooks(tx: InstructionTranslator, hooks: list[Variable], leaf: TensorVariable,
                              what: str) -> None:
    """Each post-accumulate hook called with the leaf, its ``.grad`` already grown."""
    for hook in hooks:
        _call(tx, hook, leaf, what)


def _call(tx: InstructionTranslator, hook: Variable, argument: Variable, what: str) -> Variable:
    try:
        return hook.call(tx, [argument], {})
    except SymbolicException as raised:  # eager's backward raises it from inside the engine: left to eager
        raise Unsupported(what, "a hook it runs raises") from raised

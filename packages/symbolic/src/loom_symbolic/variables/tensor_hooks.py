"""``tensor.register_hook(hook)`` on a tensor from outside the frame (a graph input: a leaf the program
was handed, a parameter), without a graph break.

Eager's ``Tensor.register_hook`` keeps the tensor's hooks in an ``OrderedDict`` held by its ``_backward_hooks``
slot (made on the first registration, which also hands it to the tensor's ``grad_fn`` when it has one), and
returns a ``RemovableHandle`` keyed in that dict. Hooks only run in a backward pass, which the graph never
runs (``backward()`` is a graph break, and the rewritten code registers before it), so the registration is
state the frame leaves: in the trace it is a dict mutation, replayed on the real tensor after the graph. A
first registration makes the dict in the trace and stores it on the tensor (the real slot is guarded None);
a later one adds to the dict the trace holds or, from outside the frame, the real dict (guarded by its keys).
The handle is :mod:`.hook_handles`'s, so ``remove()`` (also as a ``with`` block) is traced like any other.

Tensors made in the graph (intermediates, outputs) and subclasses with ``__torch_function__`` still break:
the hook would belong to the graph's autograd history, which torch.compile records in the graph itself.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Attr

from ..errors import UserError
from .base import Variable
from .containers import DictVariable
from .hook_handles import make_removable_handle
from .registry import wrap
from .tensor import METHOD_HANDLERS, TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_NO_GRAD = "cannot register a hook on a tensor that doesn't require gradient"


def register_with_grad_fn(tensor: Any) -> None:
    """What eager's first registration does for a tensor with history: hand its hook dict to ``grad_fn``
    (called by the rewritten code after it stores the dict)."""
    tensor.grad_fn._register_hook_dict(tensor)


def _hook_table(tx: InstructionTranslator, tensor: TensorVariable) -> Variable:
    """The tensor's hook dict as the trace sees it, made (and stored on the tensor) if it has none yet."""
    real = tensor.real
    side_effects = tx.output.side_effects
    stored = side_effects.stored_attribute(real, "_backward_hooks")
    if stored is not None:
        return stored
    source = Attr(tensor.source, "_backward_hooks")
    existing = real._backward_hooks
    if existing is not None:
        return wrap(tx, existing, source)
    tx.output.guards.add("identity", source, None)
    table = DictVariable({}, cls=collections.OrderedDict)
    side_effects.store_attr(tensor, real, "_backward_hooks", table)
    if real.grad_fn is not None:
        side_effects.deferred_call(register_with_grad_fn, [tensor], {}, None)
    return table


def register_hook(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable],
                  kwargs: dict[str, Variable]) -> Variable | None:
    """``tensor.register_hook(hook)``: see the module docstring (None: not modelled, it breaks)."""
    if len(args) + len(kwargs) != 1 or set(kwargs) - {"hook"}:
        return None
    if tensor.real is None or tensor.source is None or tensor.frozen_from is not None or tensor.hands_calls:
        return None
    if type(tensor.real).register_hook is not torch.Tensor.register_hook:
        return None
    if not tensor.example.requires_grad:
        raise UserError("Tensor.register_hook()", _NO_GRAD, exc_type=RuntimeError, exc_args=(_NO_GRAD,))
    hook = args[0] if args else kwargs["hook"]
    table = _hook_table(tx, tensor)
    if not isinstance(table, DictVariable):
        return None
    handle = make_removable_handle(tx, [table], {})
    table.call_method(tx, "__setitem__", [handle.attrs["id"], hook], {})
    return handle


METHOD_HANDLERS["register_hook"] = register_hook

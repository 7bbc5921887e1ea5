"""``tensor.requires_grad_(flag)`` while tracing (``module.requires_grad_(False)`` to freeze a layer, then
``requires_grad_(True)`` to thaw it).

A call that changes nothing (the flag is already so) is just that. Turning gradients off on a leaf from
outside the graph (a parameter, a graph input) is modelled without a break: from there on the trace reads
the tensor through a detached alias (same storage, no autograd history, ``requires_grad`` False), so what
the program computes from it is what eager computes from the frozen tensor; the rewritten code sets
``requires_grad`` on the real tensor after the graph, and the object the program holds is still the input.
Turning them back on restores the input itself. Turning them on for a leaf made in the graph makes it a
leaf made before the graph (:mod:`.made_leaves`). Anything else (turning gradients on for an input that had
none, off for a non-leaf) stays a graph break, as in torch.compile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Variable
from .constant import ConstantVariable
from .made_leaves import make_leaf
from .tensor import METHOD_HANDLERS, TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def _flag(args: list[Variable], kwargs: dict[str, Variable]) -> bool | None:
    """The ``requires_grad`` argument as a constant bool (default True), or None when it is not one."""
    if len(args) + len(kwargs) > 1 or set(kwargs) - {"requires_grad"}:
        return None
    given = args[0] if args else kwargs.get("requires_grad")
    if given is None:
        return True
    value = given.as_python_constant() if given.is_python_constant() else None
    return value if isinstance(value, bool) else None


def requires_grad_(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable],
                   kwargs: dict[str, Variable]) -> Variable | None:
    """``tensor.requires_grad_(flag)``: see the module docstring (None: not modelled, it breaks)."""
    flag = _flag(args, kwargs)
    if flag is None:
        return None
    if tensor.example.requires_grad == flag:
        return tensor  # eager's call changes nothing either
    if tensor.frozen_from is not None and flag:  # thawed again: the input itself from here on
        tensor.node, tensor.example = tensor.frozen_from
        tensor.frozen_from = None
    elif not flag and tensor.source is not None and tensor.real is not None and tensor.real.is_leaf \
            and tensor.example.is_leaf:
        detached = tx.output.call_method(tx, "detach", [tensor], {})
        tensor.frozen_from = (tensor.node, tensor.example)
        tensor.node, tensor.example = detached.node, detached.example
    elif flag:
        return make_leaf(tx, tensor)  # a tensor made in the graph becomes a leaf (or None: not modelled)
    else:
        return None
    tx.output.side_effects.store_attr(tensor, tensor.real, "requires_grad", ConstantVariable(flag))
    return tensor


METHOD_HANDLERS["requires_grad_"] = requires_grad_

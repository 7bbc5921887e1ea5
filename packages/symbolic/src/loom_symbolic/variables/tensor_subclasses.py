"""Tensor subclasses whose ``__torch_function__`` runs Python (``class T(torch.Tensor)`` with its own
``__torch_function__``, or none: ``torch.Tensor.__torch_function__`` rewraps every result as ``T``).

The trace does not model them: every op on such a tensor goes through the class's ``__torch_function__``,
which can change the op, its result's class, or run any Python, and the graph's plain tensors would give
none of that. So such a tensor never enters the trace as a tensor (:func:`refuse_python_subclass`, called
where values from the frame are wrapped), and ``tensor.as_subclass(T)`` breaks the graph; both say so.
Subclasses that switch ``__torch_function__`` off (``nn.Parameter``, ``FakeTensor``, ``DTensor``) behave as
plain tensors there and are wrapped as they always were.

``tensor.as_subclass(torch.Tensor)`` is modelled: eager gives a new plain tensor aliasing the receiver,
with ``AliasBackward0`` as its ``grad_fn``; the graph records ``aten.alias``, which gives the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .base import Variable
from .tensor import METHOD_HANDLERS, TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_WHY = "the trace does not model a tensor subclass's __torch_function__"


def runs_python_torch_function(cls: type) -> bool:
    """Whether ops on instances of tensor class ``cls`` call a ``__torch_function__`` written in Python."""
    return cls is not torch.Tensor and getattr(cls, "__torch_function__", None) is not torch._C._disabled_torch_function_impl


def refuse_python_subclass(value: Any) -> None:
    """Raises :class:`Unsupported` for a tensor whose class runs a Python ``__torch_function__``."""
    cls = type(value)
    if runs_python_torch_function(cls):
        raise Unsupported(f"a tensor of subclass {cls.__qualname__}", _WHY,
                          hint="ops on it run outside the compiled graph")


def as_subclass(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable],
                kwargs: dict[str, Variable]) -> Variable | None:
    """``tensor.as_subclass(cls)``: an ``aten.alias`` node for ``torch.Tensor``, a break for a subclass
    running Python (None, the generic path, for anything else: a wrong call raises there as in eager)."""
    given = args[0] if len(args) == 1 and not kwargs else kwargs.get("cls") if set(kwargs) == {"cls"} and not args \
        else None
    if given is None or not given.is_python_constant():
        return None
    cls = given.as_python_constant()
    if cls is torch.Tensor:
        return tx.output.call_function(tx, torch.ops.aten.alias.default, [tensor], {})
    if isinstance(cls, type) and issubclass(cls, torch.Tensor):
        raise Unsupported(f"Tensor.as_subclass({cls.__qualname__})", _WHY if runs_python_torch_function(cls) else
                          "a tensor of another class is not modelled", hint="ops on the result run outside the compiled graph")
    return None


METHOD_HANDLERS["as_subclass"] = as_subclass

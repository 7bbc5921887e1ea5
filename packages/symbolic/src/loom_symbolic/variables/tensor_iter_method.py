"""``t.__iter__()`` called by name: what ``iter(t)`` does (``Tensor.__iter__``: the rows of ``unbind(0)``, a
TypeError for a 0-d tensor), instead of a graph op whose result (a tuple iterator) the graph cannot hold."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UserError
from .base import Variable
from .iterators import iterate
from .tensor import METHOD_HANDLERS, TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def tensor_iter(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable],
                kwargs: dict[str, Variable]) -> Variable | None:
    if args or kwargs or tensor.hands_calls:
        return None  # a subclass's own protocol, or a wrong call: as before
    if tensor.example.dim() == 0:
        raise UserError("iteration over a 0-d tensor", "iteration over a 0-d tensor", exc_type=TypeError)
    return iterate(tx, tensor)


METHOD_HANDLERS["__iter__"] = tensor_iter

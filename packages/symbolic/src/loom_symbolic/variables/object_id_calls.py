"""``id(obj)`` while tracing.

Of an object reached from the frame (a module, a class, a function, an object passed in): a constant, valid
while the object is the same one (an identity guard). Of an object the rewritten code holds itself (a
library function, a class, ``None``): a constant too, the same object on every run. Objects made while
tracing (and tensors) have no address yet: their ids are :class:`.object_ids.ObjectIdVariable`, compared by
the objects' identity (:mod:`.id_keys` makes them dict keys and set members, a tensor passed in by its real
id, guarded); their number never enters the graph.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

from loom_guards import Item, Local

from .builtins import builtin
from .constant import ConstantVariable
from .object_ids import ObjectIdVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

#: objects one per process: ``id(None)`` is the same number on every run
_SINGLETONS = (None, True, False, Ellipsis, NotImplemented)
#: kinds of real objects the rewritten code loads as constants, kept alive by it: one object on every run
_FIXED_KINDS = (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType, types.MethodDescriptorType,
                types.WrapperDescriptorType, types.BuiltinMethodType)


def _held_tensor(value: Variable) -> bool:
    """A tensor from outside the frame held by an object (a module's buffer) or a global: not an argument, nor an
    item of a container, which a new call passes anew (its id stays an :class:`ObjectIdVariable`, compared by
    identity with no guard; an identity guard would recompile on every call)."""
    if not isinstance(value, TensorVariable) or value.source is None or getattr(value, "real", None) is None:
        return False
    return not isinstance(value.source, Local) and not any(isinstance(s, Item) for s in value.source.chain())


@builtin(id)
def builtin_id(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``id(obj)``: a constant for an object that is the same one on each run, else an id known at run time."""
    if len(args) != 1 or kwargs:
        return None  # CPython's TypeError: the break (or fold) decides
    (value,) = args
    if isinstance(value, ConstantVariable) and any(value.value is s for s in _SINGLETONS):
        return ConstantVariable(id(value.value))
    if _held_tensor(value):  # a module's parameter or buffer, a global tensor: its id, the tensor guarded by identity
        tx.output.guards.add("identity", value.source, value.real)
        return ConstantVariable(id(value.real))
    if not getattr(value, "wraps_real_object", False):
        return ObjectIdVariable(value)  # compared by identity; its number is only known at run time
    source = getattr(value, "source", None)
    if source is not None:
        tx.output.guards.add("identity", source, value.value)
        return ConstantVariable(id(value.value))
    if isinstance(value.value, _FIXED_KINDS):
        return ConstantVariable(id(value.value))
    return ObjectIdVariable(value)

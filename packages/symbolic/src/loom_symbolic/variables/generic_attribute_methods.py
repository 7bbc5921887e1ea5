"""``object.__setattr__`` / ``object.__delattr__`` on an object made while tracing, bound or read off ``object``:
the store or deletion without the class's own hook (what ``super().__setattr__`` and a frozen dataclass call)."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

from ..errors import Unsupported
from .base import Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


class _ObjectSlotFunction(Variable):
    """One of ``object``'s attribute slots, bound to a receiver (a method-wrapper) or not (the descriptor)."""

    def __init__(self, receiver: Variable | None = None) -> None:
        self.receiver = receiver

    def python_type(self) -> type:
        return types.MethodWrapperType if self.receiver is not None else types.WrapperDescriptorType


class GenericSetattrVariable(_ObjectSlotFunction):
    """``object.__setattr__`` on an object made while tracing: bound (``super().__setattr__(k, v)``)
    or not (``object.__setattr__(self, k, v)``, what a frozen dataclass's ``__init__`` calls)."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        receiver, args = (self.receiver, args) if self.receiver is not None else (args[0], args[1:])
        if kwargs or len(args) != 2:
            raise Unsupported("object.__setattr__ with these arguments", "not modelled")
        setter = getattr(receiver, "generic_setattr", None)
        if setter is None:
            raise Unsupported(f"object.__setattr__ on {receiver.describe()}", "not modelled")
        setter(tx, args[0].as_python_constant(), args[1])
        return ConstantVariable(None)


class GenericDelattrVariable(_ObjectSlotFunction):
    """``object.__delattr__`` on an object made while tracing, bound (``super().__delattr__(k)``) or not
    (``object.__delattr__(self, k)``, what a class overriding ``__delattr__`` calls): ``del`` without the override."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        receiver, args = (self.receiver, args) if self.receiver is not None else (args[0], args[1:])
        deleter = getattr(receiver, "generic_delattr", None)
        if kwargs or len(args) != 1 or deleter is None or not args[0].is_python_constant():
            raise Unsupported(f"object.__delattr__ on {receiver.describe()}", "not modelled")
        deleter(tx, args[0].as_python_constant())
        return ConstantVariable(None)

"""``super()`` while tracing: attribute lookup that starts after a class in the MRO."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

from ..errors import Unsupported, missing_attribute
from .base import Variable

if TYPE_CHECKING:
    from ..translator import InstructionTranslator


class SuperVariable(Variable):
    """``super(cls, obj)``: methods found after ``cls`` in ``type(obj).__mro__``, bound to ``obj``."""

    def __init__(self, cls: type, receiver: Variable) -> None:
        self.cls = cls
        self.receiver = receiver

    def python_type(self) -> type:
        return super

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        from loom_guards import Attr, Item, TypeOf

        from .builder import wrap
        from .functions import BoundMethodVariable, UserFunctionVariable

        receiver_type = self.receiver.python_type()
        mro = receiver_type.__mro__
        start = mro.index(self.cls) + 1
        for index in range(start, len(mro)):
            klass = mro[index]
            if name not in klass.__dict__:
                continue
            found = klass.__dict__[name]
            src = self.receiver.source
            klass_source = Item(Attr(TypeOf(src), "__mro__"), index) if src is not None else None
            member_source = Item(Attr(klass_source, "__dict__"), name) if klass_source is not None else None
            if klass.__module__ == "builtins" and hasattr(self.receiver, "call_builtin_method"):
                return _BuiltinContainerMethod(self.receiver, name)
            if found is object.__getattribute__:
                return GenericGetattrVariable(self.receiver)
            if found is object.__init__:
                return _NoOpInit()
            if isinstance(found, types.FunctionType):
                return BoundMethodVariable(UserFunctionVariable(found, member_source), self.receiver)
            if isinstance(found, property) and found.fget is not None:
                return wrap(tx, found.fget, Attr(member_source, "fget") if member_source else None).call(
                    tx, [self.receiver], {}
                )
            if isinstance(found, staticmethod):
                return wrap(tx, found.__func__, Attr(member_source, "__func__") if member_source else None)
            if isinstance(found, classmethod):
                owner = wrap(tx, receiver_type, TypeOf(src) if src is not None else None)
                func = UserFunctionVariable(found.__func__, Attr(member_source, "__func__") if member_source else None)
                return BoundMethodVariable(func, owner)
            raise Unsupported(f"super().{name}", f"a {type(found).__name__} found through super() is not modelled")
        raise missing_attribute("'super' object", name)

    def describe(self) -> str:
        return f"super({self.cls.__name__})"


class _BuiltinContainerMethod(Variable):
    """``super().name`` on a subclass of dict/list/set: the builtin container's own method."""

    def __init__(self, receiver: Variable, name: str) -> None:
        self.receiver = receiver
        self.name = name

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.receiver.call_builtin_method(tx, self.name, args, kwargs)


class GenericGetattrVariable(Variable):
    """``object.__getattribute__`` bound to an object: the default attribute lookup."""

    def __init__(self, receiver: Variable) -> None:
        self.receiver = receiver

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        from .attributes import generic_getattr

        receiver = self.receiver
        name = args[0].as_python_constant()
        value = receiver.value
        return generic_getattr(tx, receiver, value, receiver.source, name, getattr(value, "__dict__", None))


class _NoOpInit(Variable):
    """``object.__init__`` reached through super(): it does nothing."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        from .constant import ConstantVariable

        return ConstantVariable(None)


def make_super(tx: InstructionTranslator, args: list[Variable]) -> Variable:
    """``super()`` (zero arguments, from the ``__class__`` cell) or ``super(cls, obj)``."""
    if args:
        if len(args) != 2:
            raise Unsupported("super() with one argument", "not modelled")
        cls, receiver = args[0].as_python_constant(), args[1]
    else:
        if "__class__" not in tx.cells or not tx.code.co_varnames:
            raise Unsupported("super()", "no __class__ cell or no first argument")
        cls = tx.cells["__class__"].load(tx).as_python_constant()
        first = tx.code.co_varnames[0]
        receiver = tx.cells[first].load(tx) if first in tx.cells else tx.read_local(first)
    if not getattr(receiver, "wraps_real_object", False) and not hasattr(receiver, "call_builtin_method"):
        raise Unsupported(f"super() on {receiver.describe()}", "only objects from outside the trace are modelled")
    return SuperVariable(cls, receiver)


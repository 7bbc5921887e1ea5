"""Methods: a function bound to an object (``obj.method``), and a method a variable models by name.

Low in the variables (they need only :mod:`.base`), since constants, containers, objects and attribute
lookup all hand out methods.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError
from .base import Variable
from .registry import wrap_constant_like

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


class BoundMethodVariable(Variable):
    """A Python function bound to an object (``obj.method``); calling passes the object first."""

    def __init__(self, function: Variable, receiver: Variable, source: Any = None) -> None:
        self.function = function
        self.receiver = receiver
        self.source = source

    def python_type(self) -> type:
        return types.MethodType

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.function.call(tx, [self.receiver, *args], kwargs)

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``obj.method.name = value``: a method takes no attribute (its names are read-only, it has no
        ``__dict__``): CPython's error, taken from the same store on a real method (which changes nothing)."""
        _refuse_method_change(name, value)

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        _refuse_method_change(name, None)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        fn = getattr(self.function, "value", None)
        if not isinstance(fn, types.FunctionType):
            raise Unsupported(f"rebuilding {self.describe()}", "not a method of a real function")
        original = getattr(fn, "__loom_polyfill_of__", None)
        if isinstance(getattr(original, "__func__", original), types.FunctionType):
            # A polyfilled method written in Python (``Tensor.__torch_function__``): the original function bound
            # to the receiver; looked up again, a subclass's override (reached past by ``super()``) would answer.
            fn = getattr(original, "__func__", original)
        elif original is not None or getattr(self.receiver, "stands_for", None) is not None:
            # A polyfilled C method (od.move_to_end, or a method of deque's stand-in): the real
            # object's own method, so that code resumed after a graph break runs the C one.
            codegen.reconstruct(self.receiver)
            codegen.emit("LOAD_ATTR", getattr(original, "__name__", fn.__name__))
            return
        # types.MethodType(fn, receiver), not receiver.<name>: the attribute lookup could find
        # another object, or run a Python __getattribute__ (this may be the code of that very method)
        def load_args() -> None:
            codegen.load_const(fn)
            codegen.reconstruct(self.receiver)

        codegen.call_const(types.MethodType, 2, load_args)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "__class__":
            return wrap_constant_like(types.MethodType)
        if name == "__self__":
            return self.receiver
        if name == "__func__":
            return self.function
        return self.function.var_getattr(tx, name)

    def describe(self) -> str:
        return f"method {self.function.describe()}"


class FunctionGetVariable(Variable):
    """``fn.__get__`` of a Python function (``functools.partialmethod`` calls it): ``fn.__get__(obj, cls)``
    is ``fn`` bound to ``obj``, or ``fn`` itself where ``obj`` is None, as the function type's descriptor does."""

    def __init__(self, function: Variable) -> None:
        self.function = function

    def python_type(self) -> type:
        return types.MethodWrapperType

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if kwargs or not 1 <= len(args) <= 2:
            raise Unsupported(f"{self.describe()} with these arguments", "not modelled")
        receiver = args[0]
        if receiver.is_python_constant() and receiver.as_python_constant() is None:
            if len(args) == 1:  # CPython's check: __get__(None, None) is invalid
                raise Unsupported(f"{self.describe()}(None)", "not modelled")
            return self.function
        return BoundMethodVariable(self.function, receiver)

    def describe(self) -> str:
        return f"__get__ of {self.function.describe()}"


#: The type of a C method bound to an instance, by the type of the class's descriptor.
_BOUND_TYPES = {types.MethodDescriptorType: types.BuiltinMethodType, types.WrapperDescriptorType: types.MethodWrapperType}


class MethodVariable(Variable):
    """``receiver.name`` for a method the receiver's variable models (``list.append``, ``str.join``).

    ``builtin=True`` means the builtin container's own method even if a subclass overrides it.
    """

    def __init__(self, receiver: Variable, name: str, builtin: bool = False) -> None:
        self.receiver = receiver
        self.name = name
        self.builtin = builtin

    def python_type(self) -> type:
        # A C method bound to its receiver: what Python makes of the class's descriptor.
        found = getattr(self.receiver.python_type(), self.name, None)
        bound = _BOUND_TYPES.get(type(found))
        if bound is None:
            return super().python_type()
        return bound

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        """``[].append.__name__``, ``__qualname__`` (the class's C method's), ``__self__`` (the receiver)."""
        found = getattr(self.receiver.python_type(), self.name, None)
        if type(found) in _BOUND_TYPES:
            if name in ("__name__", "__qualname__"):
                return wrap_constant_like(getattr(found, name))
            if name == "__self__":
                return self.receiver
        return super().var_getattr(tx, name)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if self.builtin:
            return self.receiver.call_builtin_method(tx, self.name, args, kwargs)
        return self.receiver.call_method(tx, self.name, args, kwargs)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.builtin:
            raise Unsupported(f"rebuilding {self.describe()}", "a base-class method reached through super()")
        codegen.reconstruct(self.receiver)
        codegen.emit("LOAD_ATTR", self.name)

    def describe(self) -> str:
        return f"method {self.name} of {self.receiver.describe()}"


def _probe() -> None:
    """What a real method made to learn CPython's errors is bound to."""


def _refuse_method_change(name: str, value: Variable | None) -> None:
    method = types.MethodType(_probe, object())
    try:
        if value is None:
            delattr(method, name)
        elif value.is_python_constant():
            setattr(method, name, value.as_python_constant())
        else:
            setattr(method, name, None)
    except (AttributeError, TypeError) as exc:
        raise UserError(f"changing {name!r} of a method", str(exc), exc_type=type(exc), exc_args=exc.args) from exc
    raise Unsupported(f"changing {name!r} of a method", "not modelled")

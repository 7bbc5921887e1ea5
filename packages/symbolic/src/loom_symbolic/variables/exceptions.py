"""Exceptions raised and caught inside traced code.

``raise`` inside the trace, or an operation the translator knows would raise a specific exception
(an index out of range, a missing key, StopIteration), becomes a :class:`SymbolicException` that
unwinds to the nearest handler in the exception table, through inlined calls, exactly as CPython
would. One that escapes the traced frame ends translation, and the frame runs as ordinary Python,
raising the real exception with its real traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._late import LateModule
from ..errors import Reason, Unsupported
from .base import Variable
from .constant import ConstantVariable
from .containers import TupleVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from ..translator import InstructionTranslator

# Read only while translating, and in an import cycle with this module: imported at first read (see _late.py).
_attributes = LateModule("loom_symbolic.variables.attributes", globals(), "_attributes")
_builder = LateModule("loom_symbolic.variables.builder", globals(), "_builder")


class ExceptionVariable(Variable):
    """An exception object. ``args`` is None when the translator knows the type but not the message."""

    mutable = True  # an object with an identity: rebuilt once however many names hold it

    def __init__(self, cls: type[BaseException], args: list[Variable] | None) -> None:
        self.cls = cls
        self.args = args
        self.cause: Variable | None = None

    def python_type(self) -> type:
        return self.cls

    def as_python_constant(self) -> Any:
        if self.args is None:
            return super().as_python_constant()
        return self.cls(*(a.as_python_constant() for a in self.args))

    def is_python_constant(self) -> bool:
        return self.args is not None and all(a.is_python_constant() for a in self.args)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "args" and self.args is not None:
            return TupleVariable(list(self.args))
        if name == "__class__":
            return _builder.wrap_constant_like(self.cls)
        if name == "__cause__":
            return self.cause or ConstantVariable(None)
        raise Unsupported(f"attribute {name!r} of a {self.cls.__name__} raised while tracing",
                          "only the type (and constant arguments) of traced exceptions are known")

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        if self.args is None:
            raise Unsupported(f"a {self.cls.__name__} escaping the compiled function", "its message is not known")
        codegen.load_callable(self.cls)
        for arg in self.args:
            codegen.reconstruct(arg)
        codegen.call(len(self.args))

    def describe(self) -> str:
        return f"{self.cls.__name__} raised while tracing"


class SymbolicException(Exception):
    """Carries a traced exception up through inlined calls to a handler (or out of the trace)."""

    def __init__(self, exc: ExceptionVariable, reason: Reason | None = None) -> None:
        super().__init__(exc.cls.__name__)
        self.exc = exc
        self.reason = reason

    def to_unsupported(self) -> Unsupported:
        """What the caller of the translator sees when the exception escapes the traced frame."""
        if self.reason is not None:
            error = Unsupported(self.reason.what, self.reason.why, self.reason.hint)
            error.reason = self.reason
            return error
        return Unsupported(f"an uncaught {self.exc.cls.__name__}", "the program raises here; it runs as ordinary Python")


def instantiate(tx: InstructionTranslator, value: Variable) -> ExceptionVariable:
    """What ``raise value`` raises: an exception instance (a class is called with no arguments)."""
    if isinstance(value, ExceptionVariable):
        return value
    if value.is_python_constant():
        cls = value.as_python_constant()
        if isinstance(cls, type) and issubclass(cls, BaseException):
            return ExceptionVariable(cls, [])
    raise Unsupported(f"raise {value.describe()}", "not an exception the translator models")


def make_exception(cls: type[BaseException], args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``cls(*args)`` for an exception class whose construction has no Python code of its own."""
    if kwargs:
        raise Unsupported(f"{cls.__name__}() with keyword arguments", "not modelled")
    if cls.__module__ != "builtins" and (
        _attributes.class_attribute(cls, "__init__") is not BaseException.__init__
        or _attributes.class_attribute(cls, "__new__") is not BaseException.__new__
    ):
        raise Unsupported(f"creating a {cls.__name__}", "its class customises construction")
    return ExceptionVariable(cls, list(args))

"""``torch._dynamo.disable(fn)`` / ``torch.compiler.disable(fn)`` called inside the traced code (as a decorator
on a function defined there, or called on a lambda): the wrapper they make is a value of its own.

Tracing into ``disable`` itself would read torch's compile machinery (its backend cache, keyed by run-time
ids). Instead the call gives a :class:`DisabledMadeFunctionVariable`: calling it is a graph break at the
call, where the wrapper is made for real (``disable(fn, ...)``, rebuilt like any value) and runs natively,
as torch.compile treats a call of a disabled function; ``disable(recursive=False)`` without a function
gives a decorator that remembers its arguments.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .base import RealValueVariable, Variable
from .compile_calls import BoundWrapperMaker, CompileDecoratorVariable, MadeWrapperVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: what ``disable`` only wraps (a class or module it would patch or reject; those run natively)
_DISABLED_KINDS = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)


class DisableDecoratorVariable(RealValueVariable):
    """``torch._dynamo.disable`` or ``torch.compiler.disable`` itself."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return disable_call(self, {}, args, kwargs)

    def describe(self) -> str:
        return f"{self.value.__module__}.{self.value.__name__}"


class BoundDisableVariable(BoundWrapperMaker):
    """``disable(recursive=False)``: the decorator a call without a function returns, with its options."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return disable_call(self.decorator, self.options, args, kwargs)


def disable_call(decorator: DisableDecoratorVariable, options: dict[str, Any], args: list[Variable],
                 kwargs: dict[str, Variable]) -> Variable:
    """What ``disable(*args, **kwargs)`` gives in the trace, after the ``options`` given before."""
    try:
        bound = inspect.signature(decorator.value).bind(*args, **kwargs)
    except TypeError:
        raise Unsupported(f"{decorator.describe()} with these arguments", "torch rejects them when it runs") from None
    fn = bound.arguments.pop("fn", None)
    options = dict(options)
    for name, item in bound.arguments.items():
        if not item.is_python_constant():
            raise Unsupported(f"{decorator.describe()}({name}=...)", "the option is known only at run time")
        options[name] = item.as_python_constant()
    if fn is None or (fn.is_python_constant() and fn.as_python_constant() is None):
        return BoundDisableVariable(decorator, options)
    if fn.python_type() not in _DISABLED_KINDS:
        raise Unsupported(f"{decorator.describe()} of {fn.describe()}", "only functions, methods and partials are modelled")
    return DisabledMadeFunctionVariable(decorator, fn, options)


class DisabledMadeFunctionVariable(MadeWrapperVariable):
    """The wrapper ``disable(fn)`` made in the trace: a call runs ``fn`` natively, after a graph break."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        raise Unsupported(f"call to {self.fn.describe()}",
                          f"wrapped by {self.decorator.describe()} in the frame: it runs natively, as one call",
                          hint="it runs as ordinary Python, between compiled graphs")

    def describe(self) -> str:
        return f"{self.fn.describe()} ({self.decorator.describe()})"


#: The decorators, for the wrap rules: value → the variable kind that stands for it (``torch.compile``:
#: :mod:`.compile_calls`). ``torch._dynamo.disable``
#: joins once ``torch._dynamo`` is imported (:func:`include_dynamo_disable`): naming it here would import
#: all of dynamo with loom (0.5-0.8 s), which a process whose frames are all served from loom's frame
#: cache never needs.
FUNCTIONS = {torch.compiler.disable: DisableDecoratorVariable, torch.compile: CompileDecoratorVariable}


def include_dynamo_disable() -> None:
    """Add ``torch._dynamo.disable`` to :data:`FUNCTIONS` once ``torch._dynamo`` is imported (a translation
    calls this after making its fake mode, which imports it; a program can reach the function only
    through an imported ``torch._dynamo``)."""
    dynamo = sys.modules.get("torch._dynamo")
    disable = getattr(dynamo, "disable", None)
    if disable is not None and disable not in FUNCTIONS:
        FUNCTIONS[disable] = DisableDecoratorVariable

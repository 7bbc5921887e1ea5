"""``torch.compile(fn, ...)`` called inside the traced code, and the wrapper it made before the frame ran.

torch.compile's wrapper is torch's own frame evaluator around ``fn``: running it natively inside loom's
compiled code would nest dynamo's PEP 523 hook over loom's (and put loom's callback under dynamo's). As
torch.compile does for a compiled function reached from a compiled frame, loom traces ``fn`` in place of
the wrapper: the call joins the caller's graph.

- :class:`CompileDecoratorVariable` is ``torch.compile`` itself: ``torch.compile(fn, **options)`` with a
  function or module and constant options gives a :class:`CompiledMadeFunctionVariable`, whose calls trace
  ``fn`` and which, where it outlives the trace (returned, stored), is made for real (``torch.compile(fn,
  **options)``); ``torch.compile(**options)`` gives the decorator (:class:`BoundCompileVariable`).
- A wrapper made before the frame (``_torchdynamo_inline`` names what it wraps) is traced by
  :func:`.torch.traced_original`.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import types
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .base import RealValueVariable, Variable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

#: the functions a made wrapper traces (or a module: its wrapper is an OptimizedModule)
_COMPILED_KINDS = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)


def is_compile_wrapper(fn: Any) -> bool:
    """Whether ``fn`` is the function ``torch.compile(f)`` made (not a ``disable`` wrapper, which has
    ``_torchdynamo_disable``): it names the function dynamo inlines in ``_torchdynamo_inline``."""
    return (isinstance(fn, types.FunctionType) and getattr(fn, "_torchdynamo_inline", None) is not None
            and not getattr(fn, "_torchdynamo_disable", False))


class CompileDecoratorVariable(RealValueVariable):
    """``torch.compile`` itself."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        try:
            bound = inspect.signature(self.value).bind(*args, **kwargs)
        except TypeError:
            raise Unsupported("torch.compile with these arguments", "torch rejects them when it runs") from None
        fn = bound.arguments.pop("model", None)
        if "kwargs" in bound.arguments:  # a torch.compile taking **kwargs: only its named options are modelled
            raise Unsupported("torch.compile(**options)", "only its named options are modelled")
        # The options do not change what the trace does (it traces fn); they are handed back where the
        # wrapper is made for real (a backend made in the frame, a CompileCounter from outside).
        options: dict[str, Variable] = dict(bound.arguments)
        if fn is None or (fn.is_python_constant() and fn.as_python_constant() is None):
            return BoundCompileVariable(self, options)  # @torch.compile(backend=...): the decorator
        return compiled_made(self, fn, options)

    def describe(self) -> str:
        return "torch.compile"


def compiled_made(decorator: CompileDecoratorVariable, fn: Variable, options: dict[str, Variable]) -> Variable:
    """What ``torch.compile(fn, **options)`` gives in the trace."""
    if fn.python_type() not in _COMPILED_KINDS and not issubclass(fn.python_type(), torch.nn.Module):
        raise Unsupported(f"torch.compile of {fn.describe()}", "only a function or module compiled in the frame is traced")
    return CompiledMadeFunctionVariable(decorator, fn, options)


class BoundWrapperMaker(Variable):
    """What ``torch.compile(**options)`` or ``disable(**options)`` returns without a function: a decorator that
    makes the wrapper of the function it is given, with these options; rebuilt by the same call."""

    def __init__(self, decorator: RealValueVariable, options: dict[str, Any]) -> None:
        self.decorator = decorator
        self.options = options
        self.source = None

    def python_type(self) -> type:
        return types.FunctionType

    def reconstruct(self, codegen: PyCodegen) -> None:
        push_wrapper_call(codegen, self.decorator.value, None, self.options)

    def describe(self) -> str:
        return f"{self.decorator.describe()}(...)"


class BoundCompileVariable(BoundWrapperMaker):
    """``torch.compile(backend=...)`` without a function: the decorator it returns, with its options."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if len(args) != 1 or kwargs:
            raise Unsupported("torch.compile(...)'s decorator with these arguments", "it takes the function alone")
        return compiled_made(self.decorator, args[0], self.options)


def push_wrapper_call(codegen: PyCodegen, maker: Any, fn: Variable | None, options: dict[str, Any]) -> None:
    """Push ``maker(fn, **options)`` (``maker(**options)`` without a function), made when the code runs: the
    wrapper ``torch.compile`` or ``disable`` made in the trace. An option is a variable of the trace (rebuilt)
    or a constant (loaded)."""
    codegen.load_callable(maker)
    if fn is not None:
        codegen.reconstruct(fn)
    for value in options.values():
        if isinstance(value, Variable):
            codegen.reconstruct(value)
        else:
            codegen.load_const(value)
    argc = (fn is not None) + len(options)
    if options:
        codegen.call_kw(argc, tuple(options))
    else:
        codegen.call(argc)


class MadeWrapperVariable(Variable):
    """A wrapper of ``fn`` that ``torch.compile`` or ``disable`` made in the trace, with its options: where it
    outlives the trace it is made for real, by the same call."""

    mutable = True  # a new object with an identity: rebuilt once however many names hold it

    def __init__(self, decorator: RealValueVariable, fn: Variable, options: dict[str, Any]) -> None:
        self.decorator = decorator
        self.fn = fn
        self.options = options
        self.source = None

    def python_type(self) -> type:
        return types.FunctionType

    def reconstruct(self, codegen: PyCodegen) -> None:
        push_wrapper_call(codegen, self.decorator.value, self.fn, self.options)


class CompiledMadeFunctionVariable(MadeWrapperVariable):
    """The wrapper ``torch.compile(fn)`` made in the trace: calls trace ``fn`` into the caller's graph."""

    def python_type(self) -> type:
        if issubclass(self.fn.python_type(), torch.nn.Module):
            from torch._dynamo.eval_frame import OptimizedModule  # imported by the fake mode already

            return OptimizedModule
        return types.FunctionType

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.fn.call(tx, args, kwargs)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        """What the wrapper holds (``_torchdynamo_orig_callable``, ``__wrapped__``, an OptimizedModule's
        ``_orig_mod``) is ``fn``; the names ``functools.wraps`` copied, and an OptimizedModule's attributes
        (delegated to its module), are read on ``fn``."""
        module = issubclass(self.fn.python_type(), torch.nn.Module)
        if name in (("_orig_mod",) if module else ("_torchdynamo_orig_callable", "_torchdynamo_inline", "__wrapped__")):
            return self.fn
        if module or name in ("__name__", "__qualname__", "__doc__", "__module__"):
            return self.fn.var_getattr(tx, name)
        return super().var_getattr(tx, name)

    def truth(self, tx: InstructionTranslator) -> bool:
        """A function wrapper is true; an OptimizedModule answers ``len`` of its module (a container's)."""
        kind = self.fn.python_type()
        if not issubclass(kind, torch.nn.Module):
            return True
        if not issubclass(kind, collections.abc.Sized):
            raise Unsupported(f"bool() of {self.describe()}", "OptimizedModule's __len__ raises for a module without one")
        return self.fn.truth(tx)

    def describe(self) -> str:
        return f"{self.fn.describe()} (torch.compile)"

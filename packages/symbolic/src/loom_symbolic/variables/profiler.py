"""``torch.profiler.record_function`` regions: entered and left without breaking the graph.

torch.compile, by default (``torch._dynamo.config.capture_profiler_record_function = False``), treats a
``record_function`` block inside compiled code as a ``contextlib.nullcontext``: the region is not
recorded by the profiler, the code inside is captured as if the ``with`` were not there. loom does the
same, so ``DistributedDataParallel.forward`` (wrapped in ``record_function("DistributedDataParallel.forward")``)
and optimizers' ``step`` (``record_function("Optimizer.step#...")``) trace through.

A graph break inside the block is the one place where the region becomes real again: the code that
runs the rest of the frame natively enters a fresh ``record_function`` with the same name (and
leaves it when the block ends), so a profile taken then still shows the part that ran eagerly.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from . import ctx
from .base import RealValueVariable, Variable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: The class both ``torch.profiler.record_function`` and ``torch.autograd.profiler.record_function`` name.
RECORD_FUNCTION = torch.autograd.profiler.record_function


class RecordFunctionVariable(Variable):
    """A ``record_function(name, args)`` object made inside the trace (not yet or already entered)."""

    def __init__(self, name: str, args: str | None) -> None:
        self.name = name
        self.args = args

    def python_type(self) -> type:
        return RECORD_FUNCTION

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        # Nothing is recorded in the graph: the region is a nullcontext, as under torch.compile.
        return RecordFunctionExitVariable(self), self

    def describe(self) -> str:
        return f"record_function({self.name!r})"

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """Used as a decorator (``@record_function(name)``, ``record_function(name)(fn)``): a function whose calls
        run ``fn`` inside the region, a nullcontext in the trace as the ``with`` form is."""
        if len(args) != 1 or kwargs:
            return super().call(tx, args, kwargs)
        return RecordFunctionDecoratedVariable(self, args[0])

    def reconstruct(self, codegen) -> None:
        """A fresh, not entered ``record_function`` with the same name (it escapes the graph)."""
        codegen.call_const(RECORD_FUNCTION, 2, lambda: (codegen.load_const(self.name), codegen.load_const(self.args)))


def decorated(name: str, args: str | None, fn: Any) -> Any:
    """``fn`` decorated with a fresh ``record_function(name, args)`` (what an escaping decorated function is)."""
    return RECORD_FUNCTION(name, args)(fn)


class RecordFunctionDecoratedVariable(Variable):
    """A function decorated with a ``record_function`` object: its calls are ``fn``'s, inlined (the region records
    nothing under compilation, as torch.compile's default treats it)."""

    def __init__(self, manager: RecordFunctionVariable, fn: Variable) -> None:
        self.manager = manager
        self.fn = fn

    def python_type(self) -> type:
        return type(decorated)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.fn.call(tx, args, kwargs)

    def reconstruct(self, codegen) -> None:
        codegen.call_const(decorated, 3, lambda: (codegen.load_const(self.manager.name),
                                                  codegen.load_const(self.manager.args), codegen.reconstruct(self.fn)))

    def describe(self) -> str:
        return f"{self.manager.describe()}({self.fn.describe()})"


class RecordFunctionExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` BEFORE_WITH leaves on the stack for a ``record_function`` block (the trace records
    no profiler event: leaving it records nothing)."""


class RecordFunctionClassVariable(RealValueVariable):
    """The class ``record_function``: calling it with a constant name makes a :class:`RecordFunctionVariable`."""

    def python_type(self) -> type:
        return type

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        bound = dict(zip(("name", "args"), args))
        if len(args) > 2 or set(kwargs) - {"name", "args"} or set(bound) & set(kwargs):
            raise Unsupported("record_function() with these arguments", "expected record_function(name, args=None)")
        bound.update(kwargs)
        if "name" not in bound:
            raise Unsupported("record_function() without a name", "expected record_function(name, args=None)")
        name, extra = bound["name"], bound.get("args")
        values: list[Any] = []
        for variable in (name, extra):
            if variable is None:
                values.append(None)
            elif variable.is_python_constant():
                values.append(variable.as_python_constant())
            else:
                raise Unsupported("record_function() with a name computed at run time", "its name must be a constant")
        if not isinstance(values[0], str) or not (values[1] is None or isinstance(values[1], str)):
            raise Unsupported("record_function() with a name that is not a str", "expected record_function(str, str | None)")
        return RecordFunctionVariable(values[0], values[1])

    def describe(self) -> str:
        return "record_function"


#: The profilers a program may start around compiled code: ``torch.profiler.profile`` and the autograd one.
PROFILE_CLASSES: tuple[type, ...] = (torch.profiler.profile, torch.autograd.profiler.profile)


class ProfileVariable(Variable):
    """A profiler made inside the trace. As under torch.compile, a ``with torch.profiler.profile():``
    block inside compiled code is a ``nullcontext``: the code in it is captured, nothing is profiled.
    The object itself is not modelled (reading it, e.g. its results after the block, breaks the graph)."""

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def python_type(self) -> type:
        return self.cls

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        return ProfileExitVariable(self), self

    def describe(self) -> str:
        return f"{self.cls.__module__}.{self.cls.__qualname__}()"


class ProfileExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` of a profiler block: the region a break inside it re-enters is a ``nullcontext``
    (it profiles nothing there either). The profiler object itself is never rebuilt."""

    def rebuild_manager(self, codegen) -> None:
        codegen.call_const(contextlib.nullcontext, 0, lambda: None)


class ProfileClassVariable(RealValueVariable):
    """``torch.profiler.profile`` or ``torch.autograd.profiler.profile``: calling it makes a :class:`ProfileVariable`
    (its arguments only configure what would be recorded)."""

    def python_type(self) -> type:
        return type

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return ProfileVariable(self.value)

    def describe(self) -> str:
        return f"{self.value.__module__}.{self.value.__qualname__}"


#: Classes the wrap rules (:mod:`.wrap_rules`) wrap with a dedicated variable class (looked up by identity).
CLASSES: dict[type, type[RealValueVariable]] = {RECORD_FUNCTION: RecordFunctionClassVariable,
                                                **{cls: ProfileClassVariable for cls in PROFILE_CLASSES}}

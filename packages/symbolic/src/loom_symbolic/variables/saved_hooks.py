"""``with torch.autograd.graph.disable_saved_tensors_hooks(message):`` inside a trace: a region of the graph.

The manager is a generator that switches autograd's saved-tensors-hooks flag (global state) and switches it
back in a ``finally``. Traced line by line, a break inside the block makes the generator and the rest of the
function ordinary Python's. With a constant message the graph records two nodes instead,
:func:`enter_hooks_disabled` and :func:`exit_hooks_disabled`, which enter and leave a real manager around the
ops between them (as torch.compile records ``_saved_tensors_hooks_disable``/``_enable``). A break inside works
as for ``sdpa_kernel`` regions: the rest of the block runs in a fresh :class:`HooksDisabledManager`, which the
resume function's trace reads back as the region (:mod:`.ctx_instances`). Used as a decorator, the manager
gives a function whose calls enter the region around the inlined body.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
import torch.autograd.graph as _autograd_graph

from ..errors import Unsupported
from . import ctx
from .base import RealValueVariable, Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

DISABLE_SAVED_TENSORS_HOOKS = _autograd_graph.disable_saved_tensors_hooks


def enter_hooks_disabled(message: str) -> Any:
    """Graph node: enter a real ``disable_saved_tensors_hooks(message)``; returns its manager."""
    manager = DISABLE_SAVED_TENSORS_HOOKS(message)
    manager.__enter__()
    return manager


def exit_hooks_disabled(manager: Any) -> None:
    """Graph node: leave the region :func:`enter_hooks_disabled` entered (the flag before it comes back)."""
    manager.__exit__(None, None, None)


#: The graph nodes that switch the flag (kept however unused, as every state switch is).
STATE_SWITCHES = (enter_hooks_disabled, exit_hooks_disabled)


def enter_region(tx: InstructionTranslator, message: str) -> None:
    """Open a hooks-disabled region in ``tx``'s graph."""
    output = tx.output
    node = output.graph.call_function(enter_hooks_disabled, (message,))
    node.meta["mutates"] = True
    node.meta["val"] = None
    node.meta["loom_location"] = tx.location()
    output.saved_hooks_regions.append((node, message))


def exit_region(output: Any) -> None:
    """Close the innermost hooks-disabled region."""
    enter_node, _ = output.saved_hooks_regions.pop()
    node = output.graph.call_function(exit_hooks_disabled, (enter_node,))
    node.meta["mutates"] = True
    node.meta["val"] = None


class HooksDisabledVariable(Variable):
    """A ``disable_saved_tensors_hooks(message)`` manager made in the trace (or read from the frame), not entered."""

    def __init__(self, message: str) -> None:
        self.message = message

    def python_type(self) -> type:
        return HooksDisabledManager

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        enter_region(tx, self.message)
        return HooksDisabledExitVariable(self), ConstantVariable(None)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """``disable_saved_tensors_hooks(message)(fn)``: a function whose calls run in the region."""
        if len(args) != 1 or kwargs:
            return super().call(tx, args, kwargs)
        return HooksDisabledFunctionVariable(self.message, args[0])

    def describe(self) -> str:
        return f"disable_saved_tensors_hooks({self.message!r})"

    def reconstruct(self, codegen) -> None:
        """A fresh, not entered manager with the same message."""
        codegen.call_const(HooksDisabledManager, 1, lambda: codegen.load_const(self.message))


class HooksDisabledManager:
    """The manager a break inside a hooks-disabled block re-enters natively and hands to the resume function:
    a real ``disable_saved_tensors_hooks`` when entered and, read from the frame, the region again."""

    def __init__(self, message: str) -> None:
        self.message = message
        self._entered: list[Any] = []

    def __enter__(self) -> None:
        self._entered.append(enter_hooks_disabled(self.message))

    def __exit__(self, *exc: Any) -> None:
        exit_hooks_disabled(self._entered.pop())


def decorated(message: str, fn: Any) -> Any:
    """``fn`` decorated with a fresh ``disable_saved_tensors_hooks(message)``."""
    return DISABLE_SAVED_TENSORS_HOOKS(message)(fn)


class HooksDisabledFunctionVariable(Variable):
    """A function decorated with ``disable_saved_tensors_hooks(message)``: a call enters the region around the
    inlined body and leaves it however the body ends."""

    def __init__(self, message: str, fn: Variable) -> None:
        self.message = message
        self.fn = fn

    def python_type(self) -> type:
        return type(decorated)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        enter_region(tx, self.message)
        depth = len(tx.output.saved_hooks_regions)
        try:
            return self.fn.call(tx, args, kwargs)
        finally:
            if len(tx.output.saved_hooks_regions) == depth:
                exit_region(tx.output)

    def reconstruct(self, codegen) -> None:
        codegen.call_const(decorated, 2, lambda: (codegen.load_const(self.message), codegen.reconstruct(self.fn)))

    def describe(self) -> str:
        return f"disable_saved_tensors_hooks({self.message!r})({self.fn.describe()})"


class HooksDisabledExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` BEFORE_WITH leaves on the stack for a hooks-disabled block."""

    def leave(self, tx: InstructionTranslator) -> None:
        exit_region(tx.output)


class DisableSavedTensorsHooksFunctionVariable(RealValueVariable):
    """``torch.autograd.graph.disable_saved_tensors_hooks``: called with a constant message it makes a
    :class:`HooksDisabledVariable`."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        given = args[0] if len(args) == 1 and not kwargs else kwargs.get("error_message") if not args else None
        if given is None or len(kwargs) > 1 or not given.is_python_constant() or not isinstance(given.as_python_constant(), str):
            raise Unsupported("disable_saved_tensors_hooks() with these arguments", "expected one constant message")
        return HooksDisabledVariable(given.as_python_constant())

    def describe(self) -> str:
        return "torch.autograd.graph.disable_saved_tensors_hooks"


_GET_MESSAGE = torch._C._autograd._saved_tensors_hooks_get_disabled_error_message


class DisabledMessageVariable(RealValueVariable):
    """``torch._C._autograd._saved_tensors_hooks_get_disabled_error_message()``: inside a region of the trace,
    the region's message (the program's state then), else the flag as it is while tracing."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if args or kwargs:
            return super().call(tx, args, kwargs)
        regions = tx.output.saved_hooks_regions
        return ConstantVariable(regions[-1][1] if regions else _GET_MESSAGE())

    def describe(self) -> str:
        return "torch._C._autograd._saved_tensors_hooks_get_disabled_error_message"


#: Functions the wrap rules (:mod:`.wrap_rules`) wrap with a dedicated variable class (looked up by identity).
FUNCTIONS: dict[Any, type[RealValueVariable]] = {DISABLE_SAVED_TENSORS_HOOKS: DisableSavedTensorsHooksFunctionVariable,
                                                  _GET_MESSAGE: DisabledMessageVariable}

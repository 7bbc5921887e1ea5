"""``torch._C.DisableTorchFunctionSubclass()`` regions inside a trace: entered and left in the graph.

Inside the block tensor subclasses' ``__torch_function__`` is not called: ops on a subclass give plain
tensors, and ``torch._C._is_torch_function_enabled()`` is False. The graph records the switch as two nodes,
:func:`enter_subclass_disabled` and :func:`exit_subclass_disabled` (run as Python by the ``eager`` backend,
around the ops between them, so a subclass input dispatches exactly as in eager); the trace answers
``_is_torch_function_enabled()`` from its own view (``OutputGraph.torch_function_enabled``).

A break inside the block works as for autocast regions (:class:`.ctx.RegionExitVariable`): the rest of the
block runs in a fresh manager that the resume function's trace enters as a region of its own graph
(:mod:`.ctx_instances` reads the manager it is handed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from . import ctx
from .base import RealValueVariable, Variable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

DISABLE_SUBCLASS = torch._C.DisableTorchFunctionSubclass


def enter_subclass_disabled() -> Any:
    """Graph node: enter a real ``DisableTorchFunctionSubclass`` region; returns its manager."""
    manager = DISABLE_SUBCLASS()
    manager.__enter__()
    return manager


def exit_subclass_disabled(manager: Any) -> None:
    """Graph node: leave the region :func:`enter_subclass_disabled` entered (the state before it comes back)."""
    manager.__exit__(None, None, None)


#: The graph nodes that switch torch-function dispatch (kept however unused, as every state switch is).
STATE_SWITCHES = (enter_subclass_disabled, exit_subclass_disabled)


def enter_region(tx: InstructionTranslator) -> None:
    """Open a subclass-disabled region in ``tx``'s graph."""
    output = tx.output
    node = output.graph.call_function(enter_subclass_disabled, ())
    node.meta["mutates"] = True
    node.meta["val"] = None
    node.meta["loom_location"] = tx.location()
    output.torch_function_regions.append((node, output.torch_function_enabled))
    output.torch_function_enabled = False


def exit_region(output: Any) -> None:
    """Close the innermost subclass-disabled region."""
    enter_node, before = output.torch_function_regions.pop()
    node = output.graph.call_function(exit_subclass_disabled, (enter_node,))
    node.meta["mutates"] = True
    node.meta["val"] = None
    output.torch_function_enabled = before


class DisableSubclassVariable(Variable):
    """A ``DisableTorchFunctionSubclass()`` object made in the trace (or read from the frame), not entered."""

    def python_type(self) -> type:
        return DISABLE_SUBCLASS

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        enter_region(tx)
        return DisableSubclassExitVariable(self), self

    def describe(self) -> str:
        return "torch._C.DisableTorchFunctionSubclass()"

    def reconstruct(self, codegen) -> None:
        """A fresh, not entered manager."""
        codegen.call_const(DISABLE_SUBCLASS, 0, lambda: None)


class DisableSubclassExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` BEFORE_WITH leaves on the stack for a subclass-disabled block."""

    def leave(self, tx: InstructionTranslator) -> None:
        exit_region(tx.output)


class DisableSubclassClassVariable(RealValueVariable):
    """The class ``torch._C.DisableTorchFunctionSubclass``: calling it makes a :class:`DisableSubclassVariable`."""

    def python_type(self) -> type:
        return type

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if args or kwargs:
            raise Unsupported("DisableTorchFunctionSubclass() with arguments", "it takes none")
        return DisableSubclassVariable()

    def describe(self) -> str:
        return "torch._C.DisableTorchFunctionSubclass"


#: Classes the wrap rules (:mod:`.wrap_rules`) wrap with a dedicated variable class (looked up by identity).
CLASSES: dict[type, type[RealValueVariable]] = {DISABLE_SUBCLASS: DisableSubclassClassVariable}

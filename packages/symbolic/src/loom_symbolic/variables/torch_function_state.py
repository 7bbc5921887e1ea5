"""``torch._C.DisableTorchFunctionSubclass()`` and ``torch._C.DisableTorchFunction()`` regions inside a trace:
entered and left in the graph.

Inside either block tensor subclasses' ``__torch_function__`` is not called: ops on a subclass give plain
tensors, and ``torch._C._is_torch_function_enabled()`` is False; inside ``DisableTorchFunction`` the modes are
off too (``_is_torch_function_all_disabled()`` is True, ``_is_torch_function_mode_enabled()`` False). The graph
records the switch as two nodes, :func:`enter_subclass_disabled` (or :func:`enter_all_disabled`) and
:func:`exit_subclass_disabled` (run as Python by the ``eager`` backend, around the ops between them, so a subclass
input dispatches exactly as in eager); the trace answers the queries from its own view
(``OutputGraph.torch_function_enabled``, ``torch_function_all_disabled``). The modes the trace pushed are
set aside for the ``DisableTorchFunction`` block (kept in its region, counted by ``_len_torch_function_stack()``),
so no call in it is handed to them; a mode entered inside it joins them (:func:`mode_stack`). A
``DisableTorchFunction`` block with any other mode on the stack (a ``torch.device`` block, a mode from outside),
or a ``torch.device`` block entered inside it, breaks.

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
DISABLE_ALL = torch._C.DisableTorchFunction


def enter_subclass_disabled() -> Any:
    """Graph node: enter a real ``DisableTorchFunctionSubclass`` region; returns its manager."""
    manager = DISABLE_SUBCLASS()
    manager.__enter__()
    return manager


def enter_all_disabled() -> Any:
    """Graph node: enter a real ``DisableTorchFunction`` region (modes off too); returns its manager."""
    manager = DISABLE_ALL()
    manager.__enter__()
    return manager


def exit_subclass_disabled(manager: Any) -> None:
    """Graph node: leave the region :func:`enter_subclass_disabled` or :func:`enter_all_disabled` entered (the
    state before it comes back)."""
    manager.__exit__(None, None, None)


#: The graph nodes that switch torch-function dispatch (kept however unused, as every state switch is).
STATE_SWITCHES = (enter_subclass_disabled, enter_all_disabled, exit_subclass_disabled)
_ENTERS = {DISABLE_SUBCLASS: enter_subclass_disabled, DISABLE_ALL: enter_all_disabled}


def enter_region(tx: InstructionTranslator, kind: type = DISABLE_SUBCLASS) -> None:
    """Open a region of ``kind`` (``DisableTorchFunctionSubclass`` or ``DisableTorchFunction``) in ``tx``'s graph."""
    output = tx.output
    if kind is DISABLE_ALL and (output.device_regions or torch._C._len_torch_function_stack()):
        raise Unsupported("a DisableTorchFunction block with a torch.device block or a mode from outside on the "
                          "stack", "modes switched off are not modelled")
    node = output.graph.call_function(_ENTERS[kind], ())
    node.meta["mutates"] = True
    node.meta["val"] = None
    node.meta["loom_location"] = tx.location()
    set_aside = output.function_modes if kind is DISABLE_ALL else []
    output.torch_function_regions.append(
        (node, output.torch_function_enabled, output.torch_function_all_disabled, set_aside))
    output.torch_function_enabled = False
    output.torch_function_all_disabled = output.torch_function_all_disabled or kind is DISABLE_ALL
    if kind is DISABLE_ALL:
        output.function_modes = []


def exit_region(output: Any) -> None:
    """Close the innermost torch-function region."""
    enter_node, before, all_before, set_aside = output.torch_function_regions.pop()
    node = output.graph.call_function(exit_subclass_disabled, (enter_node,))
    node.meta["mutates"] = True
    node.meta["val"] = None
    output.torch_function_enabled = before
    output.torch_function_all_disabled = all_before
    if enter_node.target is enter_all_disabled:
        output.function_modes = set_aside


def mode_stack(output: Any) -> list:
    """The list holding the top of the trace's mode stack: inside ``DisableTorchFunction`` blocks, the modes the
    outermost one set aside (a mode pushed there waits with them, handed nothing until the block is left)."""
    if output.torch_function_all_disabled:
        for region in output.torch_function_regions:
            if region[0].target is enter_all_disabled:
                return region[3]
    return output.function_modes


def modes_set_aside(output: Any) -> int:
    """How many modes the trace pushed are set aside by the open ``DisableTorchFunction`` regions."""
    return sum(len(region[3]) for region in output.torch_function_regions)


class DisableSubclassVariable(Variable):
    """A ``DisableTorchFunctionSubclass()`` (or, ``kind``, ``DisableTorchFunction()``) object made in the trace
    (or read from the frame), not entered."""

    def __init__(self, kind: type = DISABLE_SUBCLASS) -> None:
        self.kind = kind

    def python_type(self) -> type:
        return self.kind

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        enter_region(tx, self.kind)
        return DisableSubclassExitVariable(self), self

    def describe(self) -> str:
        return f"torch._C.{self.kind.__name__}()"

    def reconstruct(self, codegen) -> None:
        """A fresh, not entered manager."""
        codegen.call_const(self.kind, 0, lambda: None)


class DisableSubclassExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` BEFORE_WITH leaves on the stack for a subclass-disabled block."""

    def leave(self, tx: InstructionTranslator) -> None:
        exit_region(tx.output)


class DisableSubclassClassVariable(RealValueVariable):
    """The class ``torch._C.DisableTorchFunctionSubclass`` (or ``DisableTorchFunction``): calling it makes a
    :class:`DisableSubclassVariable`."""

    def python_type(self) -> type:
        return type

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if args or kwargs:
            raise Unsupported(f"{self.value.__name__}() with arguments", "it takes none")
        return DisableSubclassVariable(self.value)

    def describe(self) -> str:
        return f"torch._C.{self.value.__name__}"


#: Classes the wrap rules (:mod:`.wrap_rules`) wrap with a dedicated variable class (looked up by identity).
CLASSES: dict[type, type[RealValueVariable]] = {DISABLE_SUBCLASS: DisableSubclassClassVariable,
                                                 DISABLE_ALL: DisableSubclassClassVariable}

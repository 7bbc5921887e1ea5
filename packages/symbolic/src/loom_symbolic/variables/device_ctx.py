"""``with torch.device(d):`` inside a trace: a default-device region entered and left in the graph.

Entering a ``torch.device`` pushes torch's ``DeviceContext`` (a torch-function mode) that gives factory
calls without a ``device=`` argument that device. The graph records two nodes, :func:`enter_device` and
:func:`exit_device`, that enter and leave a real one around the ops between them; every fake run and every
query of the mode stacks (``program_state``) happens inside the trace's open regions
(``OutputGraph.device_regions``), so factories and queries see what eager's see.

A break inside the block works as for autocast regions (:class:`.ctx.RegionExitVariable`): the rest runs in
a fresh ``torch.device`` that the resume function's trace enters as a region of its own graph (a device
read from the frame is a constant; :data:`.ctx.ENTERED_BY_TYPE` says how a ``with`` enters it).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from . import ctx
from .base import RealValueVariable, Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def enter_device(device: torch.device) -> Any:
    """Graph node: enter a real default-device region; returns its manager."""
    manager = torch.device(device)
    manager.__enter__()
    return manager


def exit_device(manager: Any) -> None:
    """Graph node: leave the region :func:`enter_device` entered."""
    manager.__exit__(None, None, None)


#: The graph nodes that switch the default device (kept however unused, as every state switch is).
STATE_SWITCHES = (enter_device, exit_device)


def in_regions(output: Any) -> contextlib.AbstractContextManager:
    """The trace's open default-device regions, entered for real (innermost last)."""
    stack = contextlib.ExitStack()
    for _, device in output.device_regions:
        stack.enter_context(torch.device(device))
    return stack


def _enter(tx: InstructionTranslator, manager: Variable) -> tuple[Variable, Variable]:
    device = manager.as_python_constant()
    output = tx.output
    if output.torch_function_all_disabled:
        raise Unsupported("a torch.device block inside a DisableTorchFunction block",
                          "modes switched off are not modelled")
    if output.function_modes:
        refuse_beside_function_mode(tx)
    node = output.graph.call_function(enter_device, (device,))
    node.meta["mutates"] = True
    node.meta["val"] = None
    node.meta["loom_location"] = tx.location()
    output.device_regions.append((node, device))
    return DeviceExitVariable(manager), ConstantVariable(None)


def refuse_beside_function_mode(tx: InstructionTranslator) -> None:
    """A TorchFunctionMode and a ``torch.device`` block nested in one another: the whole frame runs as it is.

    Both live on torch's one mode stack, and a graph break leaves and re-enters the trace's device regions
    natively around the resumed code (``DeviceContext.__exit__`` pops whatever mode is on top).
    """
    error = Unsupported("a TorchFunctionMode and a torch.device block nested in one another",
                        "both live on torch's one mode stack, which a graph break would reorder",
                        hint="the function runs as ordinary Python")
    error.reason.frame_as_is = True
    raise error


def exit_region(output: Any) -> None:
    """Close the innermost default-device region."""
    enter_node, _ = output.device_regions.pop()
    node = output.graph.call_function(exit_device, (enter_node,))
    node.meta["mutates"] = True
    node.meta["val"] = None


class DeviceExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` BEFORE_WITH leaves on the stack for a ``with torch.device(d):`` block."""

    def leave(self, tx: InstructionTranslator) -> None:
        exit_region(tx.output)


#: How a call is handed to the trace's TorchFunctionModes (filled by :mod:`.function_modes`).
DISPATCH_UNDER_MODES: list[Any] = []


class DeviceClassVariable(RealValueVariable):
    """``torch.device``: called with constant arguments it makes the device (a constant)."""

    def python_type(self) -> type:
        return type

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if tx.output.function_modes:  # eager hands torch.device(...) to the innermost TorchFunctionMode
            handled = DISPATCH_UNDER_MODES[0](tx, tx.output, torch.device, args, kwargs)
            if handled is not None:
                return handled
        if not all(v.is_python_constant() for v in [*args, *kwargs.values()]):
            raise Unsupported("torch.device() with an argument computed at run time", "its arguments must be constants")
        try:
            device = torch.device(*(a.as_python_constant() for a in args),
                                  **{k: v.as_python_constant() for k, v in kwargs.items()})
        except Exception as exc:
            raise Unsupported("torch.device() with these arguments", f"{type(exc).__name__}: {exc}") from exc
        return ConstantVariable(device)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in ("__name__", "__qualname__", "__module__"):  # a TorchFunctionMode logging what it is handed
            return ConstantVariable(getattr(torch.device, name))
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return "torch.device"


ctx.ENTERED_BY_TYPE[torch.device] = _enter

#: Classes the wrap rules (:mod:`.wrap_rules`) wrap with a dedicated variable class (looked up by identity).
CLASSES: dict[type, type[RealValueVariable]] = {torch.device: DeviceClassVariable}

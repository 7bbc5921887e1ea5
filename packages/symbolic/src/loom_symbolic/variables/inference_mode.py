"""``torch.inference_mode`` regions inside a trace: entered and left in the graph, as torch.compile records them.

``with torch.inference_mode(mode):`` becomes two graph nodes, ``torch.autograd.grad_mode._enter_inference_mode(
mode)`` and ``_exit_inference_mode(<the enter node>)``, the calls Dynamo records. Entering sets both autograd
flags at once (inference mode to ``mode``, grad mode to ``not mode``) and leaving restores both, so the trace's
view of grad mode follows without a ``_set_grad_enabled`` node of its own. Every fake run between the two
happens inside the same mode (``OutputGraph.inference_regions``), so results are inference tensors exactly
where eager's are.

A graph break inside the block ends the graph's regions (their exits are added when it is finalized); the
rest of the block runs inside a fresh ``torch.inference_mode(mode)``, which the resume function's trace
enters as a region of its own graph (:mod:`.ctx_instances` reads the manager it is handed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from . import ctx
from .base import RealValueVariable, Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

INFERENCE_MODE = torch.inference_mode
_enter = torch.autograd.grad_mode._enter_inference_mode
_exit = torch.autograd.grad_mode._exit_inference_mode
#: The graph nodes that switch inference mode (kept however unused, as every state switch is).
STATE_SWITCHES = (_enter, _exit)


def enter_region(tx: InstructionTranslator, mode: bool) -> bool:
    """Open an inference-mode region in ``tx``'s graph; returns the grad mode it switched from."""
    output = tx.output
    node = output.graph.call_function(_enter, (mode,))
    node.meta["mutates"] = True
    node.meta["val"] = None
    node.meta["loom_location"] = tx.location()
    grad_before = output.grad_enabled
    output.inference_regions.append((node, mode, grad_before, output.inference_mode))
    output.inference_mode = mode
    output.grad_enabled = not mode  # what torch's InferenceMode guard sets with it
    return grad_before


def exit_region(output: Any) -> None:
    """Close the innermost inference-mode region: both autograd flags go back to what they were."""
    enter_node, _, grad_before, inference_before = output.inference_regions.pop()
    node = output.graph.call_function(_exit, (enter_node,))
    node.meta["mutates"] = True
    node.meta["val"] = None
    output.grad_enabled = grad_before
    output.inference_mode = inference_before


class InferenceModeVariable(Variable):
    """A ``torch.inference_mode(mode)`` object made in the trace (or read from the frame), not entered."""

    def __init__(self, mode: bool) -> None:
        self.mode = mode
        #: how many ``with`` blocks of the trace this very object is in (entered, not yet left)
        self.open_blocks = 0

    def python_type(self) -> type:
        return INFERENCE_MODE

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        if self.open_blocks:
            refuse_reentry()
        self.open_blocks += 1
        restore = enter_region(tx, self.mode)
        return InferenceModeExitVariable(self, restore), ConstantVariable(None)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """``inference_mode(mode)(fn)``: a function that runs ``fn`` in this mode."""
        if len(args) != 1 or kwargs:
            return super().call(tx, args, kwargs)
        if ctx.suspends(args[0]):
            return ctx.wrap_generator_function(tx, _CloneVariable(self), args[0])
        return InferenceModeFunctionVariable(self, args[0])

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "mode":
            return ConstantVariable(self.mode)
        if name == "__class__":
            return InferenceModeClassVariable(INFERENCE_MODE)
        if name == "clone":  # torch's decorators call it to get a fresh, equal manager
            return _CloneVariable(self)
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return f"torch.inference_mode({self.mode})"

    def reconstruct(self, codegen) -> None:
        """A fresh, not entered ``torch.inference_mode`` with the same mode."""
        codegen.call_const(INFERENCE_MODE, 1, lambda: codegen.load_const(self.mode))


class _CloneVariable(Variable):
    """``manager.clone``: calling it makes an equal manager."""

    def __init__(self, manager: InferenceModeVariable) -> None:
        self.manager = manager

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if args or kwargs:
            return super().call(tx, args, kwargs)
        return InferenceModeVariable(self.manager.mode)

    def reconstruct(self, codegen) -> None:
        """The manager's own ``clone``, bound: the factory torch's decorators call for each switch."""
        codegen.reconstruct(self.manager)
        codegen.emit("LOAD_ATTR", "clone")


class InferenceModeExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` BEFORE_WITH leaves on the stack for an inference-mode block. ``restore`` is the grad
    mode the block was entered from (a break inside it rebuilds the real mode from there)."""

    def __init__(self, manager: InferenceModeVariable, restore: bool) -> None:
        super().__init__(manager)
        self.restore = restore

    def leave(self, tx: InstructionTranslator) -> None:
        self.manager.open_blocks -= 1
        exit_region(tx.output)


def refuse_reentry() -> None:
    """One ``inference_mode`` object entered again inside its own block: the whole frame runs as it is.

    Eager keeps one ``_InferenceMode`` guard per object: entering again replaces it, and dropping the
    first one restores the mode from before the outer block for the inner block, while both exits
    restore what the inner one found (inference mode stays on after the outer block). No graph region
    gives that, and a break would re-enter fresh managers, not this object.
    """
    error = Unsupported("one torch.inference_mode object entered again inside its own with block",
                        "eager's object keeps one guard, which the second __enter__ replaces",
                        hint="the function runs as ordinary Python")
    error.reason.frame_as_is = True
    raise error


class InferenceModeFunctionVariable(Variable):
    """A function decorated with ``torch.inference_mode(mode)`` in the trace: a call enters the region,
    inlines the function and leaves the region, all recorded in the graph."""

    def __init__(self, manager: InferenceModeVariable, fn: Variable) -> None:
        self.manager = manager
        self.fn = fn

    def python_type(self) -> type:
        return type(lambda: None)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        depth = len(tx.output.inference_regions)
        enter_region(tx, self.manager.mode)
        try:
            result = self.fn.call(tx, args, kwargs)
            if len(tx.output.inference_regions) != depth + 1:
                raise Unsupported(f"{self.describe()}", "its function left inference mode changed")
        finally:
            if len(tx.output.inference_regions) == depth + 1:
                exit_region(tx.output)
        return result

    def reconstruct(self, codegen) -> None:
        """The function decorated for real."""
        codegen.call_const(_decorated, 2, lambda: (codegen.load_const(self.manager.mode), codegen.reconstruct(self.fn)))

    def describe(self) -> str:
        return f"{self.manager.describe()}({self.fn.describe()})"


def callable_type(variable: Variable) -> bool:
    """Whether ``variable`` stands for a function (what a bare ``@torch.inference_mode`` decorates)."""
    try:
        cls = variable.python_type()
    except Exception:  # a variable that does not know its type: not decorated
        return False
    return any("__call__" in vars(k) for k in cls.__mro__)  # instances of the class can be called


def _decorated(mode: bool, fn: Any) -> Any:
    """``fn`` decorated with a fresh ``torch.inference_mode(mode)``."""
    return torch.inference_mode(mode)(fn)


class InferenceModeClassVariable(RealValueVariable):
    """``torch.inference_mode``: called with a constant bool it makes an :class:`InferenceModeVariable`;
    called with a function (bare ``@torch.inference_mode``) it decorates it with ``mode=True``."""

    def python_type(self) -> type:
        return type

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if len(args) + len(kwargs) > 1 or set(kwargs) - {"mode"}:
            raise Unsupported("torch.inference_mode() with these arguments", "expected inference_mode(mode=True)")
        mode = args[0] if args else kwargs.get("mode")
        if mode is None:
            return InferenceModeVariable(True)
        if mode.is_python_constant() and isinstance(mode.as_python_constant(), bool):
            return InferenceModeVariable(mode.as_python_constant())
        if mode.is_python_constant() or not callable_type(mode):
            raise Unsupported("torch.inference_mode() with a mode that is not a constant bool or a function",
                              "the mode must be known while tracing")
        return InferenceModeVariable(True).call(tx, [mode], {})

    def describe(self) -> str:
        return "torch.inference_mode"


#: Classes the wrap rules (:mod:`.wrap_rules`) wrap with a dedicated variable class (looked up by identity).
CLASSES: dict[type, type[RealValueVariable]] = {INFERENCE_MODE: InferenceModeClassVariable}

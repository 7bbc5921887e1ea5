"""Context managers the translator models: grad mode (``torch.no_grad()`` and friends) and user classes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .base import RealValueVariable, Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator



class GradModeVariable(Variable):
    """``torch.no_grad()``, ``torch.enable_grad()`` or ``torch.set_grad_enabled(mode)``.

    The switch is recorded in the graph (``torch._C._set_grad_enabled``) so the compiled code
    computes exactly what eager would; ops traced inside see the same mode.
    """

    def __init__(self, cls: type, target: bool, applied_from: bool | None = None) -> None:
        self.cls = cls
        self.target = target
        #: set_grad_enabled(mode) switches immediately; this is the mode it switched from.
        self.applied_from = applied_from

    def python_type(self) -> type:
        return self.cls

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        previous = self.applied_from if self.applied_from is not None else tx.output.grad_enabled
        tx.output.set_grad_enabled(tx, self.target)
        return WithExitVariable(self, previous), ConstantVariable(None)

    def describe(self) -> str:
        return f"{self.cls.__name__}()"


class WithExitVariable(Variable):
    """The bound ``__exit__`` that BEFORE_WITH leaves on the stack, called on the normal exit path."""

    def __init__(self, manager: GradModeVariable, restore: bool) -> None:
        self.manager = manager
        self.restore = restore

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        tx.output.set_grad_enabled(tx, self.restore)
        if tx.block_stack:
            tx.block_stack.pop()
        return ConstantVariable(None)

    def reconstruct(self, codegen) -> None:
        """Re-enter the block for real: a new context manager, entered, its ``__exit__`` left pushed."""
        manager = self.manager
        if manager.cls is torch.set_grad_enabled:
            codegen.call_const(torch.set_grad_enabled, 1, lambda: codegen.load_const(manager.target))
        else:
            codegen.call_const(manager.cls, 0, lambda: None)
        enter_leaving_exit(codegen)


def enter_leaving_exit(codegen) -> None:
    """Over a context manager on the stack: call its ``__enter__`` (result dropped) and leave its bound
    ``__exit__`` in its place, as a ``with`` block entered natively would have it."""
    codegen.emit("COPY", 1)
    codegen.emit("LOAD_METHOD", "__enter__")
    codegen.call(0)
    codegen.emit("POP_TOP")
    codegen.emit("LOAD_ATTR", "__exit__")


class RegionExitVariable(Variable):
    """The ``__exit__`` BEFORE_WITH leaves on the stack for a region the trace enters itself (autocast,
    ``record_function``): called on the normal exit path, it leaves the region (:meth:`leave`) and its
    block; rebuilt after a break inside the block, it enters the region for real."""

    def __init__(self, manager: Variable) -> None:
        self.manager = manager

    def leave(self, tx: InstructionTranslator) -> None:
        """What leaving the region records in the trace (nothing by default)."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        self.leave(tx)
        if tx.block_stack:
            tx.block_stack.pop()
        return ConstantVariable(None)

    def reconstruct(self, codegen) -> None:
        """Enter the region for real (the rest of the block runs natively): push its bound ``__exit__``."""
        self.manager.reconstruct(codegen)
        enter_leaving_exit(codegen)


class GradModeClassVariable(RealValueVariable):
    """The classes ``torch.no_grad``, ``torch.enable_grad`` and ``torch.set_grad_enabled``."""

    def python_type(self) -> type:
        return type

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if self.value is torch.no_grad:
            return GradModeVariable(torch.no_grad, False)
        if self.value is torch.enable_grad:
            return GradModeVariable(torch.enable_grad, True)
        mode = (args[0] if args else kwargs["mode"]).as_python_constant()
        previous = tx.output.grad_enabled
        tx.output.set_grad_enabled(tx, bool(mode))
        return GradModeVariable(torch.set_grad_enabled, bool(mode), applied_from=previous)

    def describe(self) -> str:
        return self.value.__name__


GRAD_MODE_CLASSES = (torch.no_grad, torch.enable_grad, torch.set_grad_enabled)


class UserExitVariable(Variable):
    """The ``__exit__`` of a user-defined context manager, inlined on the normal exit path."""

    def __init__(self, exit_method: Variable) -> None:
        self.exit_method = exit_method

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        result = self.exit_method.call(tx, args, kwargs)
        if tx.block_stack:
            tx.block_stack.pop()
        return result

    def reconstruct(self, codegen) -> None:
        codegen.reconstruct(self.exit_method)  # the bound __exit__ of the (already entered) object

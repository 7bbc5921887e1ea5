"""Context managers the translator models: grad mode (``torch.no_grad()`` and friends) and user classes."""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import TYPE_CHECKING

import torch
import torch.utils._contextlib as _contextlib

from .base import RealValueVariable, Variable
from .constant import ConstantVariable
from .registry import wrap

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: How a ``with`` enters a value whose variable has no ``enter`` of its own (a ``torch.device`` is a
#: constant): python type → ``enter(tx, manager)``, filled by the modules that model them.
ENTERED_BY_TYPE: dict[type, Callable[..., tuple[Variable, Variable]]] = {}


#: ``prev`` of a grad-mode manager just made, for those whose ``__enter__`` sets it (``enable_grad()`` has none).
_INITIAL_PREV = {torch.no_grad: False}


class GradModeVariable(Variable):
    """``torch.no_grad()``, ``torch.enable_grad()`` or ``torch.set_grad_enabled(mode)``.

    The switch is recorded in the graph (``torch._C._set_grad_enabled``) so the compiled code
    computes exactly what eager would; ops traced inside see the same mode.
    """

    #: The object keeps state (``prev``, which every ``__enter__`` overwrites): rebuilt once after a break,
    #: so the blocks one manager entered and the names holding it share one object again.
    mutable = True

    def __init__(self, cls: type, target: bool, applied_from: bool | None = None) -> None:
        self.cls = cls
        self.target = target
        #: set_grad_enabled(mode) switches immediately; this is the mode it switched from.
        self.applied_from = applied_from
        #: ``no_grad``/``enable_grad``: the mode before ``__enter__``, which ``__exit__`` restores (eager's
        #: ``self.prev``; ``no_grad()`` starts with False, ``enable_grad()`` with none: None).
        self.entered_from: bool | None = _INITIAL_PREV.get(cls)

    def python_type(self) -> type:
        return self.cls

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        previous = self.applied_from if self.applied_from is not None else tx.output.grad_enabled
        if self.cls is not torch.set_grad_enabled:
            self.entered_from = previous  # what eager's __enter__ keeps in ``self.prev``
        tx.output.set_grad_enabled(tx, self.target)
        return WithExitVariable(self, previous), ConstantVariable(None)

    def describe(self) -> str:
        return f"{self.cls.__name__}()"

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """``no_grad()(fn)``: a function that runs ``fn`` in this mode. ``set_grad_enabled(mode)`` switched
        the mode when it was made; used as a decorator it switches back (as torch's ``__call__`` does)."""
        if len(args) != 1 or kwargs:
            return super().call(tx, args, kwargs)
        if self.applied_from is not None:
            tx.output.set_grad_enabled(tx, self.applied_from)
        if suspends(args[0]):
            return wrap_generator_function(tx, _CloneVariable(self), args[0])
        return GradModeFunctionVariable(self, args[0])

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "clone":  # torch's decorators call it to get a fresh, equal manager
            return _CloneVariable(self)
        if name in GradModeDunderVariable.NAMES:  # ``manager.__enter__()`` called by hand
            return _BoundDunder(GradModeDunderVariable(getattr(self.cls, name)), self)
        return super().var_getattr(tx, name)

    def reconstruct(self, codegen) -> None:
        """A manager equal to this one, not entered. ``set_grad_enabled(mode)`` is rebuilt without
        switching the mode again (the switch it made is already part of the state); one whose
        ``__enter__`` was called by hand keeps the mode its ``__exit__`` restores."""
        if self.entered_from != _INITIAL_PREV.get(self.cls):
            codegen.call_const(entered_grad_manager, 2,
                               lambda: (codegen.load_const(self.cls), codegen.load_const(self.entered_from)))
        elif self.cls is torch.set_grad_enabled:
            restore = self.applied_from if self.applied_from is not None else self.target
            codegen.call_const(unapplied_set_grad_enabled, 2,
                               lambda: (codegen.load_const(self.target), codegen.load_const(restore)))
        else:
            codegen.call_const(self.cls, 0, lambda: None)


def entered_grad_manager(cls: type, prev: bool) -> torch.no_grad | torch.enable_grad:
    """A ``cls()`` (``no_grad`` or ``enable_grad``) whose ``__enter__`` ran when the mode was ``prev``,
    built without touching the mode (the trace's switch already happened)."""
    manager = cls()
    manager.prev = prev
    return manager


class GradModeDunderVariable(RealValueVariable):
    """``no_grad.__enter__`` (or ``__exit__``, of ``enable_grad`` or ``set_grad_enabled``) read from the
    class, as ``ExitStack.enter_context`` reads it (``type(cm).__enter__``): called with a manager, it
    switches the mode in the graph as a ``with`` would (:meth:`GradModeVariable.enter`)."""

    NAMES = ("__enter__", "__exit__")

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        manager = args[0] if args else None
        if kwargs or not isinstance(manager, GradModeVariable) or getattr(manager.cls, self.value.__name__) is not self.value:
            return super().call(tx, args, kwargs)
        output = tx.output
        if self.value.__name__ == "__enter__":
            if len(args) != 1:
                return super().call(tx, args, kwargs)
            manager.enter(tx)  # as a ``with`` enters it; what it returns is for BEFORE_WITH only
            return ConstantVariable(None)
        restore = manager.applied_from if manager.cls is torch.set_grad_enabled else manager.entered_from
        if restore is None or len(args) != 4:
            return super().call(tx, args, kwargs)  # never entered: eager's AttributeError, natively
        output.set_grad_enabled(tx, restore)
        return ConstantVariable(None)

    def describe(self) -> str:
        return self.value.__qualname__


class _BoundDunder(Variable):
    """``manager.__enter__`` / ``manager.__exit__`` of a grad-mode manager, called by hand."""

    def __init__(self, function: GradModeDunderVariable, manager: GradModeVariable) -> None:
        self.function = function
        self.manager = manager

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.function.call(tx, [self.manager, *args], kwargs)

    def reconstruct(self, codegen) -> None:
        codegen.reconstruct(self.manager)
        codegen.emit("LOAD_ATTR", self.function.value.__name__)

    def describe(self) -> str:
        return f"{self.manager.describe()}.{self.function.value.__name__}"


def unapplied_set_grad_enabled(mode: bool, prev: bool) -> torch.set_grad_enabled:
    """A ``torch.set_grad_enabled(mode)`` made when the mode was ``prev``, built without touching the
    mode (the rewritten code rebuilds one the trace made, whose switch already happened)."""
    manager = object.__new__(torch.set_grad_enabled)
    manager.prev, manager.mode = prev, mode
    return manager


class _CloneVariable(Variable):
    """``manager.clone`` of a grad-mode manager: calling it makes an equal manager (``set_grad_enabled``'s
    clone switches the mode, as its constructor does)."""

    def __init__(self, manager: GradModeVariable) -> None:
        self.manager = manager

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if args or kwargs:
            return super().call(tx, args, kwargs)
        manager = self.manager
        if manager.cls is torch.set_grad_enabled:
            previous = tx.output.grad_enabled
            tx.output.set_grad_enabled(tx, manager.target)
            return GradModeVariable(manager.cls, manager.target, applied_from=previous)
        return GradModeVariable(manager.cls, manager.target)

    def reconstruct(self, codegen) -> None:
        """The manager's own ``clone``, bound: the factory torch's decorators call for each switch."""
        codegen.reconstruct(self.manager)
        codegen.emit("LOAD_ATTR", "clone")

    def describe(self) -> str:
        return f"{self.manager.describe()}.clone"


_SUSPENDING = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def wrap_generator_function(tx: InstructionTranslator, factory: Variable, fn: Variable) -> Variable:
    """``fn``, a generator function, decorated with a torch context manager (a grad mode, inference mode):
    torch wraps it so that each resume of the generator runs in the manager, not the call that only makes
    the generator. Its own wrapper is traced, with ``factory`` (the manager's ``clone``) for each switch."""
    return wrap(tx, _contextlib._wrap_generator, None).call(tx, [factory, fn], {})


def suspends(fn: Variable) -> bool:
    """Whether ``fn`` is a generator (or coroutine) function as ``inspect.isgeneratorfunction`` sees it: through
    a bound method's function and a partial's, to the code (one the trace cannot see is taken as a plain
    function, which a torch decorator also wraps as one)."""
    while True:
        inner = getattr(fn, "function", None) or getattr(fn, "func", None)  # a bound method, a partial
        if not isinstance(inner, Variable):
            break
        fn = inner
    code = getattr(fn, "code", None) or getattr(getattr(fn, "value", None), "__code__", None)
    return isinstance(code, types.CodeType) and bool(code.co_flags & _SUSPENDING)


def decorated_with_grad_mode(cls: type, mode: bool, fn):
    """``fn`` decorated with a fresh ``cls`` manager; ``set_grad_enabled(mode)`` switches the mode when made
    and its ``__call__`` switches it back, so the mode is left as it was."""
    return torch.set_grad_enabled(mode)(fn) if cls is torch.set_grad_enabled else cls()(fn)


class GradModeFunctionVariable(Variable):
    """A function decorated with a grad-mode manager (``@torch.no_grad()``, ``torch.enable_grad()(fn)``):
    a call switches the mode, inlines the function and switches back, all recorded in the graph."""

    def __init__(self, manager: GradModeVariable, fn: Variable) -> None:
        self.manager = manager
        self.fn = fn

    def python_type(self) -> type:
        return type(lambda: None)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        previous = tx.output.grad_enabled
        tx.output.set_grad_enabled(tx, self.manager.target)
        try:
            return self.fn.call(tx, args, kwargs)
        finally:
            tx.output.set_grad_enabled(tx, previous)

    def reconstruct(self, codegen) -> None:
        """The function decorated for real (see :func:`decorated_with_grad_mode`)."""
        manager = self.manager
        codegen.call_const(decorated_with_grad_mode, 3, lambda: (
            codegen.load_const(manager.cls), codegen.load_const(manager.target), codegen.reconstruct(self.fn)))

    def describe(self) -> str:
        return f"{self.manager.describe()}({self.fn.describe()})"


class WithExitVariable(Variable):
    """The bound ``__exit__`` that BEFORE_WITH leaves on the stack, called on the normal exit path."""

    def __init__(self, manager: GradModeVariable, restore: bool) -> None:
        self.manager = manager
        self.restore = restore

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        manager = self.manager
        # eager's no_grad/enable_grad ``__exit__`` restores the manager's ``prev``, which every ``__enter__``
        # overwrites: one manager entered twice, nested, leaves the mode its inner block found
        restore = manager.entered_from if manager.cls is not torch.set_grad_enabled else self.restore
        tx.output.set_grad_enabled(tx, self.restore if restore is None else restore)
        if tx.block_stack:
            tx.block_stack.pop()
        return ConstantVariable(None)

    def reconstruct(self, codegen) -> None:
        """Re-enter the block for real: a new context manager, entered, its ``__exit__`` left pushed."""
        manager = self.manager
        if manager.cls is torch.set_grad_enabled:
            codegen.call_const(torch.set_grad_enabled, 1, lambda: codegen.load_const(manager.target))
        else:
            # the trace's manager itself (built once): one entered by nested blocks is entered by each of
            # them again, so its ``prev`` ends as eager's, where the inner ``__enter__`` overwrote it
            codegen.reconstruct(manager)
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

    def rebuild_manager(self, codegen) -> None:
        """Push a fresh manager for the region, not entered."""
        codegen.reconstruct(self.manager)

    def reconstruct(self, codegen) -> None:
        """Enter the region for real (the rest of the block runs natively): push its bound ``__exit__``."""
        self.rebuild_manager(codegen)
        enter_leaving_exit(codegen)


class GradModeClassVariable(RealValueVariable):
    """The classes ``torch.no_grad``, ``torch.enable_grad`` and ``torch.set_grad_enabled``."""

    def python_type(self) -> type:
        return type

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if self.value is torch.no_grad or self.value is torch.enable_grad:
            manager = GradModeVariable(self.value, self.value is torch.enable_grad)
            if len(args) == 1 and not kwargs:  # bare ``@torch.no_grad`` on a function
                return manager.call(tx, args, kwargs)
            return manager
        mode = (args[0] if args else kwargs["mode"]).as_python_constant()
        previous = tx.output.grad_enabled
        tx.output.set_grad_enabled(tx, bool(mode))
        return GradModeVariable(torch.set_grad_enabled, bool(mode), applied_from=previous)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in GradModeDunderVariable.NAMES:
            return GradModeDunderVariable(getattr(self.value, name))
        if name in CLASS_NAMES:  # ``type(m).__name__``: the class's own strings
            return ConstantVariable(getattr(self.value, name))
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return self.value.__name__


GRAD_MODE_CLASSES = (torch.no_grad, torch.enable_grad, torch.set_grad_enabled)
#: A manager class's attributes read as the class's own constant strings.
CLASS_NAMES = ("__name__", "__qualname__", "__module__")


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

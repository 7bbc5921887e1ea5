"""``torch.autocast`` regions inside a trace: entered and left in the graph, as torch.compile records them.

``with torch.autocast("cpu", dtype=torch.bfloat16):`` becomes two graph nodes, ``torch.amp._enter_autocast(
device, dtype, enabled, cache_enabled)`` and ``torch.amp._exit_autocast(<the enter node>)``, the calls
Dynamo records. Run as Python (the ``eager`` backend) they enter and leave a real autocast region around the
ops between them; AOTAutograd runs them while it traces, so its ATen graphs hold the casts autocast makes.
While translating, every op's fake run happens inside the same regions (``OutputGraph.autocast_regions``),
so result dtypes are eager's.

A graph break inside the block ends the graph's regions (their exits are added when it is finalized) and the
rest of the block runs natively inside a fresh ``torch.autocast`` with the same settings.

Used as a decorator (``@torch.autocast(...)``, ``torch.autocast(...)(fn)``), the object gives a function whose
calls enter the region around the inlined body.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from . import ctx
from .base import RealValueVariable, Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: The autocast classes a program uses: ``torch.autocast`` and the per-device shorthands.
AUTOCAST_CLASSES: tuple[type, ...] = tuple(
    cls for cls in (torch.amp.autocast, getattr(getattr(torch.cpu, "amp", None), "autocast", None),
                    getattr(getattr(torch.cuda, "amp", None), "autocast", None))
    if isinstance(cls, type)
)


class AutocastVariable(Variable):
    """An autocast object made in the trace, with its settings resolved as torch resolves them:
    ``(device_type, dtype, enabled, cache_enabled)``, the arguments of ``_enter_autocast``."""

    def __init__(self, cls: type, settings: tuple[str, torch.dtype, bool, bool]) -> None:
        self.cls = cls
        self.settings = settings

    def python_type(self) -> type:
        return self.cls

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        tx.output.enter_autocast(tx, self.settings)
        return AutocastExitVariable(self), self

    def describe(self) -> str:
        device, dtype, enabled, _ = self.settings
        return f"torch.autocast({device!r}, dtype={dtype}, enabled={enabled})"

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """``torch.autocast(...)(fn)`` (also as ``@torch.autocast(...)``): a function whose calls run in the region."""
        if len(args) != 1 or kwargs:
            return super().call(tx, args, kwargs)
        return AutocastFunctionVariable(self, args[0])

    def reconstruct(self, codegen) -> None:
        """A fresh, not entered ``torch.autocast`` with the same settings (it escapes the graph)."""
        codegen.call_const(torch.amp.autocast, 4, lambda: [codegen.load_const(v) for v in self.settings])


def decorated(device: str, dtype: torch.dtype, enabled: bool, cache_enabled: bool, fn: Any) -> Any:
    """``fn`` decorated with a fresh ``torch.autocast`` of these settings (what an escaping decorated function is)."""
    return torch.amp.autocast(device, dtype, enabled, cache_enabled)(fn)


class AutocastFunctionVariable(Variable):
    """A function decorated with an autocast object: a call enters the region around the inlined body and
    leaves it however the body ends, as torch's decorator does (``with self: return fn(...)``)."""

    def __init__(self, manager: AutocastVariable, fn: Variable) -> None:
        self.manager = manager
        self.fn = fn

    def python_type(self) -> type:
        return type(decorated)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        tx.output.enter_autocast(tx, self.manager.settings)
        depth = len(tx.output.autocast_regions)
        try:
            return self.fn.call(tx, args, kwargs)
        finally:
            if len(tx.output.autocast_regions) == depth:  # a break inside already ended the graph's regions
                tx.output.exit_autocast(tx)

    def reconstruct(self, codegen) -> None:
        codegen.call_const(decorated, 5, lambda: (
            [codegen.load_const(v) for v in self.manager.settings], codegen.reconstruct(self.fn)))

    def describe(self) -> str:
        return f"{self.manager.describe()}({self.fn.describe()})"


class AutocastExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` BEFORE_WITH leaves on the stack for an autocast block."""

    def leave(self, tx: InstructionTranslator) -> None:
        tx.output.exit_autocast(tx)


class AutocastClassVariable(RealValueVariable):
    """``torch.autocast`` (or ``torch.cpu.amp.autocast``...): called with constant arguments, it makes
    an :class:`AutocastVariable`."""

    def python_type(self) -> type:
        return type

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        values: list[Any] = []
        for variable in [*args, *kwargs.values()]:
            if not variable.is_python_constant():
                raise Unsupported(f"{self.describe()}() with an argument computed at run time",
                                  "its settings must be constants")
            values.append(variable.as_python_constant())
        names = list(kwargs)
        try:
            # The real constructor resolves defaults and checks the device and dtype; it changes no
            # state (entering does). Its warnings are not repeated at trace time: a dtype it refuses
            # comes back as enabled=False, which is what the graph then records.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                real = self.value(*values[: len(args)], **dict(zip(names, values[len(args):])))
        except Exception as exc:
            raise Unsupported(f"{self.describe()}() with these arguments", f"{type(exc).__name__}: {exc}") from exc
        settings = (real.device, real.fast_dtype, bool(real._enabled), bool(real._cache_enabled))
        return AutocastVariable(self.value, settings)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in ctx.CLASS_NAMES:  # ``type(m).__name__``: the class's own strings
            return ConstantVariable(getattr(self.value, name))
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return f"{self.value.__module__}.{self.value.__qualname__}"


#: Classes the wrap rules (:mod:`.wrap_rules`) wrap with a dedicated variable class (looked up by identity).
CLASSES: dict[type, type[RealValueVariable]] = {cls: AutocastClassVariable for cls in AUTOCAST_CLASSES}

"""``with torch.nn.attention.sdpa_kernel(backends):`` inside a trace: a region entered and left in the graph.

``sdpa_kernel`` switches the flags that pick ``scaled_dot_product_attention``'s backend (global state its
generator sets and restores). Traced line by line it is a break; with constant backends the graph records
two nodes, :func:`enter_sdpa_kernel` and :func:`exit_sdpa_kernel`, that enter and leave a real one around
the ops between them, and every fake run happens inside the trace's open regions
(``OutputGraph.sdpa_regions``), as torch.compile records the same block. A break inside works as for
autocast regions (the rest of the block runs in a fresh :class:`SdpaKernelManager`, a region of the resume's graph).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import torch.nn.attention as _attention

from ..errors import Unsupported
from . import ctx
from .base import RealValueVariable, Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

SDPA_KERNEL = _attention.sdpa_kernel
_BACKEND = type(_attention.SDPBackend.MATH)


def _backends(numbers: tuple[int, ...]) -> list[Any]:
    # The graph's code names the backends by number (an SDPBackend's repr is no Python expression).
    return [_BACKEND(number) for number in numbers]


def enter_sdpa_kernel(backends: tuple[int, ...], set_priority: bool) -> Any:
    """Graph node: enter a real ``sdpa_kernel`` region over the backends numbered ``backends``; returns its manager."""
    manager = SDPA_KERNEL(_backends(backends), set_priority)
    manager.__enter__()
    return manager


def exit_sdpa_kernel(manager: Any) -> None:
    """Graph node: leave the region :func:`enter_sdpa_kernel` entered (the flags before it come back)."""
    manager.__exit__(None, None, None)


#: The graph nodes that switch the backend flags (kept however unused, as every state switch is).
STATE_SWITCHES = (enter_sdpa_kernel, exit_sdpa_kernel)


def in_regions(output: Any) -> contextlib.AbstractContextManager:
    """The trace's open ``sdpa_kernel`` regions, entered for real (innermost last)."""
    stack = contextlib.ExitStack()
    for _, settings in output.sdpa_regions:
        stack.enter_context(SDPA_KERNEL(_backends(settings[0]), settings[1]))
    return stack


def _backend(variable: Variable) -> Any:
    value = variable.as_python_constant() if variable.is_python_constant() else getattr(variable, "value", None)
    if not isinstance(value, _BACKEND):
        raise Unsupported("sdpa_kernel() with a backend known only at run time", "its backends must be constants")
    return value


class SdpaKernelVariable(Variable):
    """An ``sdpa_kernel(backends, set_priority)`` manager made in the trace, not entered."""

    def __init__(self, backends: tuple[int, ...], set_priority: bool) -> None:
        self.settings = (backends, set_priority)

    def python_type(self) -> type:
        return contextlib._GeneratorContextManager

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        output = tx.output
        node = output.graph.call_function(enter_sdpa_kernel, self.settings)
        node.meta["mutates"] = True
        node.meta["val"] = None
        node.meta["loom_location"] = tx.location()
        output.sdpa_regions.append((node, self.settings))
        return SdpaKernelExitVariable(self), ConstantVariable(None)

    def describe(self) -> str:
        return f"sdpa_kernel({_backends(self.settings[0])})"

    def reconstruct(self, codegen) -> None:
        """A fresh, not entered ``sdpa_kernel`` with the same settings."""
        codegen.call_const(_fresh, 2, lambda: [codegen.load_const(v) for v in self.settings])


class SdpaKernelManager:
    """The manager a break inside an ``sdpa_kernel`` block re-enters natively and hands to the resume function:
    a real ``sdpa_kernel`` when entered, and, read from the frame, the region again
    (:mod:`.ctx_instances`), not a generator to trace line by line."""

    def __init__(self, backends: tuple[int, ...], set_priority: bool) -> None:
        self.backends = backends
        self.set_priority = set_priority
        self._entered: list[Any] = []

    def __enter__(self) -> None:
        self._entered.append(enter_sdpa_kernel(self.backends, self.set_priority))

    def __exit__(self, *exc: Any) -> None:
        exit_sdpa_kernel(self._entered.pop())


def _fresh(backends: tuple[int, ...], set_priority: bool) -> SdpaKernelManager:
    """A manager for the backends numbered ``backends``, not entered."""
    return SdpaKernelManager(backends, set_priority)


def exit_region(output: Any) -> None:
    """Close the innermost ``sdpa_kernel`` region."""
    enter_node, _ = output.sdpa_regions.pop()
    node = output.graph.call_function(exit_sdpa_kernel, (enter_node,))
    node.meta["mutates"] = True
    node.meta["val"] = None


class SdpaKernelExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` BEFORE_WITH leaves on the stack for an ``sdpa_kernel`` block."""

    def leave(self, tx: InstructionTranslator) -> None:
        exit_region(tx.output)


class SdpaKernelFunctionVariable(RealValueVariable):
    """``torch.nn.attention.sdpa_kernel``: called with constant backends it makes a :class:`SdpaKernelVariable`."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        bound = dict(zip(("backends", "set_priority"), args))
        if len(args) > 2 or set(kwargs) - {"backends", "set_priority"} or set(bound) & set(kwargs):
            raise Unsupported("sdpa_kernel() with these arguments", "expected sdpa_kernel(backends, set_priority=False)")
        bound.update(kwargs)
        if "backends" not in bound:
            raise Unsupported("sdpa_kernel() without backends", "expected sdpa_kernel(backends, set_priority=False)")
        given = bound["backends"]
        items = given.items if isinstance(getattr(given, "items", None), list) else [given]
        priority = bound.get("set_priority")
        if priority is not None and not (priority.is_python_constant() and isinstance(priority.as_python_constant(), bool)):
            raise Unsupported("sdpa_kernel() with set_priority known only at run time", "it must be a constant bool")
        backends = tuple(dict.fromkeys(_backend(item).value for item in items))
        return SdpaKernelVariable(backends, bool(priority.as_python_constant()) if priority is not None else False)

    def describe(self) -> str:
        return "torch.nn.attention.sdpa_kernel"


#: Functions the wrap rules (:mod:`.wrap_rules`) wrap with a dedicated variable class (looked up by identity).
FUNCTIONS: dict[Any, type[RealValueVariable]] = {SDPA_KERNEL: SdpaKernelFunctionVariable}

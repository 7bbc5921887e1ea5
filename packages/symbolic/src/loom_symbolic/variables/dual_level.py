"""``with torch.autograd.forward_ad.dual_level():`` inside a trace: forward-mode AD captured in the graph.

As torch.compile records it, the block becomes graph nodes: ``_enter_dual_level()`` and
``_exit_dual_level(level=...)`` around the ops, with ``make_dual`` and ``unpack_dual`` as
``_make_dual(t, tangent, level=...)`` and ``_unpack_dual(t, level=...)`` (torch's ``predispatch`` entry
points). The fake runs need a real forward-AD level, kept open across them (a level that closes drops the
tangents of every tensor made at it): the trace enters one when the block starts and leaves it when the block
ends, and :func:`leave_real_levels` leaves any the trace left open (it stopped, or broke, inside the block).

A break inside the block is refused (the frame runs as it is, one break): the tangents made before it would
die with the level the first graph leaves. Only the level the trace itself opened is modelled: ``make_dual``
and ``unpack_dual`` outside such a block run as ordinary Python.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
import torch._functorch.predispatch as _predispatch
from torch.autograd import forward_ad

from ..errors import Unsupported
from . import ctx
from .base import RealValueVariable, Variable
from .constant import ConstantVariable
from .sequences import NamedTupleVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

DUAL_LEVEL = forward_ad.dual_level
_enter = _predispatch._enter_dual_level
_exit = _predispatch._exit_dual_level
#: The graph nodes that enter and leave the level (kept however unused, as every state switch is).
STATE_SWITCHES = (_enter, _exit)


def _regions(output: Any) -> list[int]:
    """The levels of the trace's open ``dual_level`` blocks (kept on the output graph, innermost last)."""
    return output.__dict__.setdefault("dual_regions", [])


def leave_real_levels(output: Any) -> None:
    """Leave the real levels a trace entered and did not leave (it stopped or broke inside a block)."""
    levels = output.__dict__.get("dual_regions")
    while levels:
        torch._C._exit_dual_level(level=levels.pop())


def _state_node(tx: InstructionTranslator, target: Any, kwargs: dict[str, Any]) -> None:
    node = tx.output.graph.call_function(target, (), kwargs)
    node.meta["mutates"] = True
    node.meta["val"] = None
    node.meta["loom_location"] = tx.location()


class DualLevelVariable(Variable):
    """A ``forward_ad.dual_level()`` manager made in the trace, not entered."""

    def python_type(self) -> type:
        return DUAL_LEVEL

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        if _regions(tx.output) or forward_ad._current_level != -1:
            raise Unsupported("forward_ad.dual_level() inside another dual level",
                              "nested forward-mode AD is not supported by torch", hint="it runs as ordinary Python")
        level = torch._C._enter_dual_level()  # for the fake runs; left when the block ends
        _regions(tx.output).append(level)
        _state_node(tx, _enter, {})
        return DualLevelExitVariable(self, level), ConstantVariable(level)  # __enter__ returns the level

    def describe(self) -> str:
        return "forward_ad.dual_level()"

    def reconstruct(self, codegen) -> None:
        codegen.call_const(DUAL_LEVEL, 0, lambda: None)


class DualLevelExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` BEFORE_WITH leaves on the stack for a ``dual_level`` block."""

    def __init__(self, manager: DualLevelVariable, level: int) -> None:
        super().__init__(manager)
        self.level = level

    def leave(self, tx: InstructionTranslator) -> None:
        levels = _regions(tx.output)
        if levels and levels[-1] == self.level:
            levels.pop()
            torch._C._exit_dual_level(level=self.level)
        _state_node(tx, _exit, {"level": self.level})

    def reconstruct(self, codegen) -> None:
        error = Unsupported("a graph break inside a forward_ad.dual_level() block",
                            "the tangents made before it would be dropped with the level the first graph leaves",
                            hint="the function runs as ordinary Python")
        error.reason.frame_as_is = True
        raise error


class DualLevelClassVariable(RealValueVariable):
    """``torch.autograd.forward_ad.dual_level``: called with no arguments it makes a :class:`DualLevelVariable`."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if args or kwargs:
            return super().call(tx, args, kwargs)
        return DualLevelVariable()

    def describe(self) -> str:
        return "torch.autograd.forward_ad.dual_level"


def _level(tx: InstructionTranslator, what: str, kwargs: dict[str, Variable]) -> int:
    """The level a ``make_dual``/``unpack_dual`` call uses: the trace's open block's (the default), or the
    same one given as a constant."""
    levels = _regions(tx.output)
    given = kwargs.get("level")
    if set(kwargs) - {"level"} or not levels:
        raise Unsupported(f"forward_ad.{what}() outside a dual_level() block the trace entered",
                          "only the level the trace opened is modelled", hint="it runs as ordinary Python")
    if given is None or (given.is_python_constant() and given.as_python_constant() is None):
        return levels[-1]
    if not (given.is_python_constant() and given.as_python_constant() == levels[-1]):
        raise Unsupported(f"forward_ad.{what}() at another level", "only the level the trace opened is modelled")
    return levels[-1]


def _floating(value: Variable) -> bool:
    if not isinstance(value, TensorVariable):
        return False
    return value.example.is_floating_point() or value.example.is_complex()


class MakeDualVariable(RealValueVariable):
    """``forward_ad.make_dual(tensor, tangent)`` in the trace's block: a ``_make_dual`` node."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        level = _level(tx, "make_dual", kwargs)
        if len(args) != 2 or not all(_floating(a) for a in args):
            # eager raises (a tangent or tensor that is not floating point): natively
            raise Unsupported("forward_ad.make_dual() with these arguments", "expected two floating-point tensors")
        forward_ad._maybe_load_decompositions()  # what eager's make_dual does first (imports, once)
        return tx.output.call_function(tx, _predispatch._make_dual, list(args), {"level": ConstantVariable(level)})


class UnpackDualVariable(RealValueVariable):
    """``forward_ad.unpack_dual(tensor)`` in the trace's block: an ``_unpack_dual`` node, as
    ``UnpackedDualTensor(primal, tangent)``."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        level = _level(tx, "unpack_dual", kwargs)
        if len(args) != 1 or not isinstance(args[0], TensorVariable):
            raise Unsupported("forward_ad.unpack_dual() with these arguments", "expected one tensor")
        pair = tx.output.call_function(tx, _predispatch._unpack_dual, list(args), {"level": ConstantVariable(level)})
        return NamedTupleVariable(list(pair.items), forward_ad.UnpackedDualTensor)


#: Classes and functions the wrap rules (:mod:`.wrap_rules`) wrap with a dedicated variable class.
CLASSES: dict[type, type[RealValueVariable]] = {DUAL_LEVEL: DualLevelClassVariable}
FUNCTIONS: dict[Any, type[RealValueVariable]] = {forward_ad.make_dual: MakeDualVariable,
                                                 forward_ad.unpack_dual: UnpackDualVariable}

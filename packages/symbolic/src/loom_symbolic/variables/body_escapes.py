"""Whether a tensor made inside a higher-order op's function is still reachable outside it.

A body's nodes move into a sub-graph (:func:`loom_symbolic.subgraphs.carve`): only its results come
back out. A tensor the function stored elsewhere (``kept.append(y)`` on a list of the caller, an
attribute, a dict, a cell, a global) would then stand for a node that is no longer in the graph. So
after a body is traced, everything the calling frames can reach is searched for such tensors: the
frames' locals, stacks and cells, and the values the trace stored on outside objects and globals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch import fx

from .base import Variable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def escaping_tensor(tx: InstructionTranslator, nodes: list[fx.Node]) -> bool:
    """Whether a tensor variable over one of ``nodes`` (the body's) is reachable from the calling frames
    or the trace's stored values (its results are not yet: they are handed back to the op)."""
    inside = set(nodes)
    if not inside:
        return False
    seen: set[int] = set()
    pending: list[Any] = list(_roots(tx))
    while pending:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, TensorVariable):
            if value.node in inside:
                return True
            continue
        if isinstance(value, (list, tuple, set, frozenset)):
            pending.extend(value)
        elif isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, Variable) or hasattr(value, "contents"):  # a variable, or a cell box
            pending.extend(v for v in vars(value).values() if _may_hold_variables(v))
    return False


def _may_hold_variables(value: Any) -> bool:
    return isinstance(value, (Variable, list, tuple, dict, set, frozenset)) or hasattr(value, "contents")


def _roots(tx: Any) -> list[Any]:
    roots: list[Any] = []
    frame = tx
    while frame is not None:
        roots += [frame.symbolic_locals, frame.stack, getattr(frame, "cells", {})]
        frame = getattr(frame, "parent", None)
    effects = tx.output.side_effects
    roots += [effects.attr_overlay, effects.global_overlay]
    return roots

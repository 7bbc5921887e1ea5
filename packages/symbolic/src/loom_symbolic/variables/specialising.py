"""Symbolic ints (and floats) made concrete where Python needs them as plain objects: formatted into a
string, or inside a tuple or ``torch.Size`` used as a dict key.

torch.compile specialises there (the exact value becomes a guard) rather than break, and so does
loom. Not in a resume function's frame, where a symbolic int may be a loop's counter (see
``resumed_loops``): specialising it would compile once per pass, so there it stays a break. A value
drawn from random cannot be guarded: ``as_python_constant`` breaks on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

#: What :func:`concrete` answers for a value it cannot make concrete.
NOT_CONCRETE = object()


def is_symbolic_int(value: Variable) -> bool:
    """Whether ``value`` is a symbolic int (its example a ``torch.SymInt``)."""
    return isinstance(getattr(value, "example", None), torch.SymInt)


def _is_symbolic_number(value: Variable) -> bool:
    """Whether ``value`` is a symbolic int or float (a float argument that changed between compiles)."""
    return isinstance(getattr(value, "example", None), (torch.SymInt, torch.SymFloat))


def concrete(tx: InstructionTranslator | None, value: Variable) -> Any:
    """The Python object ``value`` stands for: a constant's value, a symbolic int's or float's (specialised),
    or a plain tuple or ``torch.Size`` of those; :data:`NOT_CONCRETE` for anything else."""
    if value.is_python_constant():
        return value.as_python_constant()
    if tx is not None and getattr(tx, "resumes_a_frame", False):
        return NOT_CONCRETE
    if _is_symbolic_number(value):
        return value.as_python_constant()
    items = getattr(value, "items", None)
    if not isinstance(items, list):
        return NOT_CONCRETE
    kind = value.python_type()
    if kind in (tuple, torch.Size):
        parts = [concrete(tx, item) for item in items]
        if any(part is NOT_CONCRETE for part in parts):
            return NOT_CONCRETE
        return kind(parts)
    return NOT_CONCRETE


def has_symbolic_int(value: Variable) -> bool:
    """Whether ``value`` is a symbolic int or float, or a plain tuple or Size holding one (asking specialises
    nothing)."""
    if _is_symbolic_number(value):
        return True
    items = getattr(value, "items", None)
    return isinstance(items, list) and value.python_type() in (tuple, torch.Size) and any(map(has_symbolic_int, items))

"""Constants in a graph node's arguments that the graph's Python code cannot spell as they are.

FX writes an enum member as ``Class.name``. A combination of flags (``Flag.A | Flag.B``, named ``A|B``) or a
member with no name of its own is then written as an expression that fails when the graph runs (``NameError:
name 'B' is not defined``). An int or float member stands for its value in a torch op (torch reads its
``__index__`` or ``__float__``), so it is recorded as that plain number; any other such member is a graph break.

A Python number type given where a torch op takes a dtype (``t.to(float)``, ``torch.zeros(3, dtype=bool)``) is
written by FX as ``<class 'float'>`` (a syntax error): torch's argument parser reads it as the dtype it stands
for, so it is recorded as that dtype (``float`` is ``torch.float64``, as in eager).
"""

from __future__ import annotations

import enum
from typing import Any

import torch

from .errors import Unsupported


def spellable_constants(args: tuple, kwargs: dict[str, Any]) -> tuple[tuple, dict[str, Any]]:
    """``args`` and ``kwargs`` with every enum member FX cannot spell replaced by its number."""
    return tuple(_spellable(a) for a in args), {k: _spellable(v) for k, v in kwargs.items()}


#: the Python number types torch's argument parser takes for a dtype, and the dtypes it reads them as
_TYPE_DTYPES = {bool: torch.bool, int: torch.int64, float: torch.float64, complex: torch.complex128}


def _spellable(value: Any) -> Any:
    if type(value) is type and value in _TYPE_DTYPES:
        return _TYPE_DTYPES[value]
    if isinstance(value, enum.Enum):
        if _named(value):
            return value
        for number in (int, float):
            if isinstance(value, number):
                return number(value)
        raise Unsupported(f"the enum value {value!r} as a graph constant", "the graph's code cannot name it")
    if type(value) in (tuple, list):
        return type(value)(_spellable(v) for v in value)
    if type(value) is dict:
        return {k: _spellable(v) for k, v in value.items()}
    return value


def _named(member: enum.Enum) -> bool:
    """Whether ``Class.name`` reads this very member back."""
    name = member.name
    return isinstance(name, str) and name.isidentifier() and type(member).__dict__.get(name) is member

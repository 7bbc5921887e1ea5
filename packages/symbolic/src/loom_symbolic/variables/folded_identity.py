"""Folding a call on constant containers keeps their objects.

A list of lists is a Python constant to the translator, so ``min([[0], [1]], key=len)`` or ``max(rows)`` is
folded: run on copies of the arguments. The answer eager gives is one of the very inner lists, and the trace
holds that list as a variable that later changes (``append``) must reach; wrapped afresh from the copy, the
answer would be a new list and the change would miss the original. :func:`wrap_folded` maps each container
of the answer that is one of the copies back to the variable it was copied from.
"""

from __future__ import annotations

from typing import Any

from .base import Variable
from .mappings import DictVariable
from .registry import wrap_constant_like
from .sequences import ListVariable, SequenceVariable, TupleVariable

# what has an identity a program can see change: the containers as_python_constant copies
_CONTAINERS = (list, tuple, dict, set)


def copies_of(variables: list[Variable], values: list[Any]) -> dict[int, Variable]:
    """``id`` of each container among ``values`` (the copies folding runs on, which must stay alive while
    the map is used) and of the containers inside them, to the variable it was copied from."""
    found: dict[int, Variable] = {}
    for variable, value in zip(variables, values):
        _collect(variable, value, found)
    return found


def _collect(variable: Variable, value: Any, found: dict[int, Variable]) -> None:
    if not isinstance(value, _CONTAINERS) or id(value) in found:
        return
    found[id(value)] = variable
    if isinstance(variable, SequenceVariable) and isinstance(value, (list, tuple)) and len(value) == len(variable.items):
        for item, copied in zip(variable.items, value):
            _collect(item, copied, found)
    elif isinstance(variable, DictVariable) and isinstance(value, dict) and len(value) == len(variable.items):
        for item, copied in zip(variable.items.values(), value.values()):
            _collect(item, copied, found)


def wrap_folded(result: Any, copies: dict[int, Variable]) -> Variable:
    """The variable for a folded ``result``: a container copied from an argument is that argument's variable,
    and a new list or tuple holding such containers holds their variables."""
    if not copies:
        return wrap_constant_like(result)
    known = copies.get(id(result))
    if known is not None:
        return known
    if type(result) in (list, tuple) and _reaches(result, copies):
        items = [wrap_folded(item, copies) for item in result]
        return ListVariable(items) if type(result) is list else TupleVariable(items)
    return wrap_constant_like(result)


def _reaches(result: list | tuple, copies: dict[int, Variable]) -> bool:
    return any(id(item) in copies or (type(item) in (list, tuple) and _reaches(item, copies)) for item in result)

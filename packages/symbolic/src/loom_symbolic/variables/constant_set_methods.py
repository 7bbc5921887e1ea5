"""Queries of a constant set or frozenset called with a value that is not a constant:
``FROZEN_CHARS.issuperset(version_string)``, ``KNOWN.isdisjoint(gen)``, ``ALLOWED.union(names)``. The set's
own model (``SetVariable``) reads the argument item by item as CPython does, so the constant is handed to it
as a set of its members with the constant's very table (the layout decides the order of a result's
members). Methods that mutate the receiver are left out: a constant set is not written back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .constant import NON_CONSTANT_ARGUMENTS, ConstantVariable
from .sets import SetVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_QUERIES = frozenset({"issuperset", "issubset", "isdisjoint", "union", "intersection", "difference",
                      "symmetric_difference", "__contains__"})


def _set_query(tx: InstructionTranslator, constant: ConstantVariable, name: str, args: list[Variable],
               kwargs: dict[str, Variable]) -> Variable | None:
    if type(constant.value) not in (frozenset, set) or name not in _QUERIES:
        return None
    members = SetVariable([], frozen=type(constant.value) is frozenset, layout=set(constant.value))
    for key in members.layout:
        members.values[key] = ConstantVariable(key)
    return members.call_method(tx, name, args, kwargs)


NON_CONSTANT_ARGUMENTS.append(_set_query)

"""``hash(obj)`` of a frozenset or tuple subclass instance made while tracing: the hash of its members.

A plain frozenset or tuple of constants is a constant and ``hash`` folds; an instance of a subclass is not
one (its Python methods must run), but a subclass that does not define ``__hash__`` hashes exactly as the
frozenset (or tuple) of its members does, which the trace knows when every member is a constant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .builtins import builtin
from .constant import ConstantVariable
from .sequences import TupleSubclassVariable
from .sets import SetVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


@builtin(hash)
def _hash(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    if len(args) != 1 or kwargs:
        return None  # the constant fold, or the break, decides
    value = args[0]
    if isinstance(value, SetVariable) and value.frozen and value.cls is not None:
        base, members = frozenset, list(value.values.values())
    elif isinstance(value, TupleSubclassVariable):
        base, members = tuple, value.items
    else:
        return None
    if value.cls.__hash__ is not base.__hash__:
        return None  # a __hash__ of its own: it runs
    if not all(isinstance(member, ConstantVariable) for member in members):
        return None  # an object's (or a tensor's) hash is its address, which differs from run to run
    if base is frozenset:
        return ConstantVariable(hash(frozenset(value.layout)))
    return ConstantVariable(hash(tuple(member.value for member in members)))

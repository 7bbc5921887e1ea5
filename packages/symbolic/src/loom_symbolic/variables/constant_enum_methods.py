"""A method written in Python on an enum class, called on a member (``Op.ADD.apply(x, 2)``, a tensor among
the arguments, or ``Op.ADD.factor(3)``): the member is a constant of the trace, so the function is inlined
with it as ``self``, as a method of any Python class is; enum's own methods (``__format__``, ``_missing_``...)
and the C ones of a mixed-in type (``int.__add__``) are left to the other answers. With constant arguments
too: calling it now and keeping its result ran its effects once, at trace time, and kept what it read of
mutable state unguarded (a wrong answer once that state changed).

The function is found as Python's attribute lookup finds it: the member's own ``__dict__`` first (what
``__init__`` stored there shadows the class), then the class's MRO, read through the guarded class lookup, so
a method replaced on the class later recompiles.
"""

from __future__ import annotations

import enum
import types
from typing import TYPE_CHECKING

from . import attributes as _attributes
from .constant import NEVER_FOLDED, ConstantVariable
from .registry import wrap

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def _enum_python_method(tx: InstructionTranslator, constant: ConstantVariable, name: str, args: list[Variable],
                        kwargs: dict[str, Variable]) -> Variable | None:
    member = constant.value
    if not isinstance(member, enum.Enum) or name in getattr(member, "__dict__", {}):
        return None
    function = _attributes.class_attribute(type(member), name)
    if not isinstance(function, types.FunctionType) or function.__module__ == enum.__name__:
        return None
    return wrap(tx, function, None).call(tx, [constant, *args], kwargs)


NEVER_FOLDED.append(_enum_python_method)

"""A method written in Python on an enum class, called on a member with arguments that are not constants
(``Op.ADD.apply(x, 2)``, a tensor among them): the member is a constant of the trace, so the function is
inlined with it as ``self``, as a method of any Python class is; enum's own methods (``__format__``,
``_missing_``...) and the C ones of a mixed-in type (``int.__add__``) are left to the other answers.

The function is found as Python's attribute lookup finds it: the member's own ``__dict__`` first (what
``__init__`` stored there shadows the class), then the class's MRO, read through the guarded class lookup, so
a method replaced on the class later recompiles. Constant arguments keep folding on the real member.
"""

from __future__ import annotations

import enum
import types
from typing import TYPE_CHECKING

from . import attributes as _attributes
from .constant import NON_CONSTANT_ARGUMENTS, ConstantVariable
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


NON_CONSTANT_ARGUMENTS.append(_enum_python_method)

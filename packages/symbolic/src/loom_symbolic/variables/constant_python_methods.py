"""A method written in Python on the class of a constant of the trace: an enum member's (``Op.ADD.apply(x, 2)``,
``Op.ADD.factor(3)``, ``Colour.RED < Colour.BLUE`` through a Python ``__lt__``), or a named tuple subclass's,
and a property whose getter is written in Python (``Colour.RED.label``).
The function is inlined with the constant as ``self``, as a method of any Python class is, whatever the
arguments: calling it now and keeping its result ran its effects once, at trace time, and kept what it read of
mutable state unguarded (a wrong answer once that state changed). enum's and collections' own methods
(``__format__``, ``_missing_``, a named tuple's ``_replace``) and C methods (``int.__add__`` of an ``IntEnum``)
are left to the other answers: they read nothing but the constant.

The function is found as Python's attribute lookup finds it: the member's own ``__dict__`` first (what
``__init__`` stored there shadows the class), then the class's MRO, read through the guarded class lookup, so
a method replaced on the class later recompiles.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

from .attributes import class_attribute
from .constant import ATTRIBUTES_NEVER_FOLDED, NEVER_FOLDED, ConstantVariable, traced_format
from .operand_dispatch import constant_runs_python, python_method_of_constant, written_by_program
from .registry import wrap

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def _python_method(tx: InstructionTranslator, constant: ConstantVariable, name: str, args: list[Variable],
                   kwargs: dict[str, Variable]) -> Variable | None:
    function = python_method_of_constant(constant.value, name)
    if function is None:
        return None
    return wrap(tx, function, None).call(tx, [constant, *args], kwargs)


def _python_property(tx: InstructionTranslator, constant: ConstantVariable, name: str) -> Variable | None:
    """``member.label`` where the class's ``label`` is a property whose getter is written in Python: the
    getter is inlined (a property is a data descriptor: the member's own ``__dict__`` does not shadow it)."""
    cls = type(constant.value)
    if cls.__module__ == "builtins":
        return None
    prop = class_attribute(cls, name)
    if type(prop) is not property or not isinstance(prop.fget, types.FunctionType) \
            or not written_by_program(prop.fget):
        return None
    return wrap(tx, prop.fget, None).call(tx, [constant], {})


def _format_of_python_text(tx: InstructionTranslator, constant: ConstantVariable, name: str,
                           args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``"{}".format(member)`` where a field is a constant whose class writes ``__format__``/``__str__``/
    ``__repr__`` in Python: formatted field by field through the traced stand-in, as for a value known only
    at run time, not by calling ``str.format`` now."""
    if type(constant.value) is not str or name not in ("format", "format_map"):
        return None
    fields = [*args, *kwargs.values()]
    if not any(constant_runs_python(f, "__format__", "__str__", "__repr__") for f in fields):
        return None
    return traced_format(tx, constant.value, name, args, kwargs)


NEVER_FOLDED.append(_python_method)
NEVER_FOLDED.append(_format_of_python_text)
ATTRIBUTES_NEVER_FOLDED.append(_python_property)

"""``int()``, ``float()``, ``complex()``, ``round()`` and ``math.floor``/``ceil``/``trunc`` of an object whose
class writes the special method in Python (``fractions.Fraction``, a user's number class): the method is
inlined, as CPython calls it.

CPython's order is kept: ``int(obj)`` calls ``__int__``, else ``__index__``; ``float(obj)`` ``__float__``,
else ``__index__``; ``complex(obj)`` ``__complex__``, else ``__float__``, else ``__index__``. A result of
another type than the builtin's own (CPython raises, or warns and converts a subclass) breaks the graph
there, and eager says what it says. Constants are folded elsewhere (``PURE`` in :mod:`.builtins`); a
tensor argument breaks, as reading a tensor's value into Python must.
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING

from ..errors import Unsupported, UserError
from . import operator_semantics as ops
from .attributes import _MISSING, class_attribute
from .base import Variable
from .builtins import builtin
from .constant import ConstantVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: For each conversion, the special methods CPython tries in turn, and what the found one's result is
#: turned into (``float(obj)`` through ``__index__`` is ``float(obj.__index__())``).
_CONVERSIONS: dict[type, tuple[tuple[str, type], ...]] = {
    int: (("__int__", int), ("__index__", int)),
    float: (("__float__", float), ("__index__", int)),
    complex: (("__complex__", complex), ("__float__", float), ("__index__", int)),
}


def _python_special(value: Variable, name: str) -> bool:
    """Whether ``value`` is an object (not a constant, not a tensor) whose class writes ``name`` in Python (a
    container subclass instance whose members are constants counts: its class's method runs)."""
    return not isinstance(value, (ConstantVariable, TensorVariable)) and ops.has_python_special(value, name)


def _has_special(value: Variable, name: str) -> bool:
    """Whether ``value``'s class has ``name`` at all (a C slot counts: CPython would call it)."""
    try:
        return class_attribute(value.python_type(), name) is not _MISSING
    except Unsupported:
        return True  # unknown class: assume it has it, so the conversion is left to eager


def _answers(value: Variable, name: str) -> bool:
    """Whether ``value``'s special method ``name`` is traced: written in Python, or a builtin's own that an int or
    float subclass instance made in the trace answers on its value."""
    return _python_special(value, name) or (getattr(value, "answers_builtin_specials", False) and _has_special(value, name))


def _call_special(tx: InstructionTranslator, value: Variable, name: str, expected: type) -> object:
    """``value.name()``, inlined; its result must be a constant of exactly ``expected`` type."""
    result = value.call_method(tx, name, [], {})
    if result.is_python_constant() and not isinstance(result.as_python_constant(), expected):
        _wrong_type_returned(value.python_type(), name, result.as_python_constant(), expected)
    if not result.is_python_constant() or type(result.as_python_constant()) is not expected:
        raise Unsupported(f"{value.describe()}.{name}() giving {result.describe()}",
                          f"not a {expected.__name__} known while tracing")
    return result.as_python_constant()


def _wrong_type_returned(cls: type, name: str, answer: object, expected: type) -> None:
    """CPython's TypeError for ``name`` returning ``answer``, not an instance of ``expected``: its message taken
    from the same conversion of a stand-in class of the same name whose method returns it (which runs nothing
    else)."""
    target = {"__int__": int, "__index__": int, "__float__": float, "__complex__": complex}[name]
    if name == "__index__":
        target = operator.index
    stand_in = type(cls.__name__, (), {name: lambda self: answer})
    try:
        target(stand_in())
    except TypeError as exc:
        raise UserError(f"{cls.__name__}.{name}()", str(exc), exc_type=TypeError, exc_args=exc.args) from exc


def _conversion(target: type):
    def handler(tx, args, kwargs):
        if args and isinstance(args[0], TensorVariable):
            raise Unsupported("converting a tensor to a Python number", "reads a tensor's value into Python",
                              hint="keep the value as a 0-d tensor")
        if kwargs or len(args) != 1:
            return None
        value = args[0]
        for name, expected in _CONVERSIONS[target]:
            if _answers(value, name):
                return ConstantVariable(target(_call_special(tx, value, name, expected)))
            if _has_special(value, name):
                return None  # a C method comes first (a str subclass's, an int subclass's): not modelled here
        return None

    return handler


for _target in _CONVERSIONS:
    builtin(_target)(_conversion(_target))


@builtin(round)
def builtin_round(tx, args, kwargs):
    """``round(obj[, ndigits])``: ``type(obj).__round__(obj[, ndigits])``, inlined when written in Python (or
    answered on the value of an int or float subclass instance made in the trace)."""
    if args and isinstance(args[0], TensorVariable):
        raise Unsupported("round() of a tensor", "returns a Python number", hint="use torch.round")
    if kwargs or not 1 <= len(args) <= 2 or not _answers(args[0], "__round__"):
        return None
    return args[0].call_method(tx, "__round__", list(args[1:]), {})


def _rounding(name: str):
    """``math.floor``/``ceil``/``trunc`` of an object: its class's ``__floor__``/``__ceil__``/``__trunc__``."""

    def handler(tx, args, kwargs):
        if kwargs or len(args) != 1 or not _answers(args[0], name):
            return None
        return args[0].call_method(tx, name, [], {})

    return handler


for _fn, _name in ((math.floor, "__floor__"), (math.ceil, "__ceil__"), (math.trunc, "__trunc__")):
    builtin(_fn)(_rounding(_name))

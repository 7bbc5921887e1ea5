"""The special methods of the builtin containers called by name (``p.__add__(q)``, ``s.__ior__(t)``,
``set.__sub__(a, b)``, ``lst.__delitem__(i)``, ``lst.__iter__()``): each is its operator, which the
translator already models, for the operands CPython's own method answers. For others it returns
NotImplemented (comparisons, set algebra, ``dict.__or__``: given back as the value) or raises (a repeat count
without ``__index__``: its TypeError); what is left is a graph break. Without these entries reading the
method broke the graph.
"""

from __future__ import annotations

import operator
import types
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError
from . import iterators as _iterators
from . import operator_semantics as _operators
from .attributes import class_attribute
from .base import Variable
from .constant import ConstantVariable
from .containers import (
    DICT_METHODS,
    LIST_METHODS,
    SEQUENCE_METHODS,
    SET_METHODS,
    SET_MUTATORS,
    DictVariable,
    Method,
    key_variable,
)
from .reversed_lists import ReversedListIterator

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_COMPARISONS = {"__eq__": operator.eq, "__ne__": operator.ne, "__lt__": operator.lt, "__le__": operator.le,
                "__gt__": operator.gt, "__ge__": operator.ge}
_SET_ALGEBRA = {"__or__": operator.or_, "__and__": operator.and_, "__sub__": operator.sub, "__xor__": operator.xor}
_SET_IN_PLACE = {"__ior__": operator.ior, "__iand__": operator.iand, "__isub__": operator.isub,
                 "__ixor__": operator.ixor}
_SETS = (set, frozenset)


def _family(kinds: tuple[type, ...] | None) -> Any:
    """The operand check of a method whose C code answers only for ``kinds`` (None: any operand)."""
    return lambda tx, other: kinds is None or issubclass(other.python_type(), kinds)


def _int_operand(tx: InstructionTranslator, other: Variable) -> bool:
    return other.is_python_constant() and type(other.as_python_constant()) is int


#: The methods whose C code answers NotImplemented for an operand outside their family (the rich comparisons,
#: set algebra in place or not, ``dict.__or__``), rather than raising.
_DECLINING = {*_COMPARISONS, *_SET_ALGEBRA, *_SET_IN_PLACE}
#: The repeat methods: their C wrapper converts the count with ``__index__`` and raises TypeError without one.
_REPEATS = {"__mul__", "__rmul__", "__imul__"}


def _declined(tx: InstructionTranslator, name: str, receiver: Variable, other: Variable) -> Variable | None:
    """What CPython's method gives for an operand it does not take, where that is known: NotImplemented (the
    value itself, as a direct call returns it), or the TypeError of a repeat count with no ``__index__``."""
    if name in _DECLINING and not (name == "__ior__" and issubclass(receiver.python_type(), dict)):
        return ConstantVariable(NotImplemented)  # (dict.__ior__ takes any mapping or pairs: left to a break)
    if name in _REPEATS and other.is_python_constant() and not hasattr(type(other.as_python_constant()), "__index__"):
        message = f"'{type(other.as_python_constant()).__name__}' object cannot be interpreted as an integer"
        raise UserError(f"{receiver.python_type().__name__}.{name}", message, exc_type=TypeError, exc_args=(message,))
    return None


def _binary(name: str, op: Any, accepts: Any) -> Method:
    def method(tx, receiver, args, kwargs):
        kind = receiver.python_type()
        if name == "__add__" and issubclass(kind, (list, tuple)) and not accepts(tx, args[0]):
            base = list if issubclass(kind, list) else tuple  # list_concat raises, not NotImplemented
            message = f"can only concatenate {base.__name__} (not \"{args[0].python_type().__name__}\") to {base.__name__}"
            raise UserError(f"{base.__name__}.__add__", message, exc_type=TypeError, exc_args=(message,))
        if not accepts(tx, args[0]) and (declined := _declined(tx, name, receiver, args[0])) is not None:
            return declined
        if not accepts(tx, args[0]):
            raise Unsupported(f"{receiver.python_type().__name__}.{name} with {args[0].describe()}",
                              "CPython's method gives NotImplemented or raises for it: not modelled")
        return _operators.binary(tx, op, receiver, args[0])

    method.__name__ = name
    return method


def _delitem(tx, receiver, args, kwargs):
    _operators.delitem(tx, receiver, args[0])
    return ConstantVariable(None)


def _iter(tx, receiver, args, kwargs):
    if _iterators._overrides_iter(receiver.python_type()):  # list.__iter__(sub) bypasses a Python __iter__
        raise Unsupported(f"{receiver.python_type().__name__}.__iter__ of a class with its own", "not modelled")
    return _iterators.iterate(tx, receiver)


def _reversed(tx, receiver, args, kwargs):
    # list.__reversed__ and dict.__reversed__ read the held items by index or in key order: a subclass's
    # Python __iter__ or __reversed__ plays no part
    if isinstance(receiver, DictVariable):
        return _iterators.SnapshotIterator([key_variable(k) for k in reversed(receiver.items)])
    return ReversedListIterator(receiver)


def _set_len(tx, receiver, args, kwargs):
    return ConstantVariable(len(receiver.values))


def _dict_ior(tx, receiver, args, kwargs):
    # any mapping or iterable of pairs, as dict.update takes them; the class's own Python __ior__ is bypassed
    if isinstance(class_attribute(receiver.python_type(), "__ior__"), types.FunctionType):
        raise Unsupported(f"dict.__ior__ of {receiver.describe()}", "its class writes its own __ior__")
    return _operators.binary(tx, operator.ior, receiver, args[0])


def _fill(table: dict[str, Method], entries: dict[str, Method]) -> None:
    for name, method in entries.items():
        table.setdefault(name, method)  # a table's own model wins


_fill(SEQUENCE_METHODS, {"__add__": _binary("__add__", operator.add, _family((tuple,))),
                         "__mul__": _binary("__mul__", operator.mul, _int_operand),
                         "__rmul__": _binary("__rmul__", operator.mul, _int_operand), "__iter__": _iter,
                         **{n: _binary(n, op, _family((tuple,))) for n, op in _COMPARISONS.items()}})
_fill(LIST_METHODS, {"__add__": _binary("__add__", operator.add, _family((list,))),
                     "__iadd__": _binary("__iadd__", operator.iadd, _family(None)),
                     "__mul__": _binary("__mul__", operator.mul, _int_operand),
                     "__rmul__": _binary("__rmul__", operator.mul, _int_operand),
                     "__imul__": _binary("__imul__", operator.imul, _int_operand), "__delitem__": _delitem,
                     "__reversed__": _reversed,
                     "__iter__": _iter, **{n: _binary(n, op, _family((list,))) for n, op in _COMPARISONS.items()}})
_fill(SET_METHODS, {"__iter__": _iter, "__len__": _set_len, **{n: _binary(n, op, _family(_SETS)) for n, op in _COMPARISONS.items()},
                    **{n: _binary(n, op, _family(_SETS)) for n, op in _SET_ALGEBRA.items()},
                    **{n: _binary(n, op, _family(_SETS)) for n, op in _SET_IN_PLACE.items()}})
SET_MUTATORS.update(_SET_IN_PLACE)  # a frozenset has no __ior__
_fill(DICT_METHODS, {"__iter__": _iter, "__or__": _binary("__or__", operator.or_, _family((dict,))),
                     "__ior__": _dict_ior, "__reversed__": _reversed,
                     "__eq__": _binary("__eq__", operator.eq, _family((dict,))),
                     "__ne__": _binary("__ne__", operator.ne, _family((dict,)))})

"""The TypeError Python raises for an operator that no operand supports (``-obj``, ``obj + 1``, ``a < b``,
``iter(obj)``).

It is decided from the operands' classes alone: a class written in Python with no special method for the
operator (for ``<`` and friends: only ``object``'s, which answers NotImplemented), and numbers, whose C methods
answer NotImplemented for anything that is not a number. The message is CPython's own: the operator is applied
to stand-ins with the same class names, which run no user code.
"""

from __future__ import annotations

import operator
from typing import Any

from .errors import UserError, args_of

_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (or type())
_IMMUTABLETYPE = 1 << 8  # a C extension's heap type (3.12 made deque one): no class statement makes one
_ABSENT = object()
_NUMBERS = (bool, int, float, complex)
_UNARY = {operator.neg: "__neg__", operator.pos: "__pos__", operator.invert: "__invert__", operator.abs: "__abs__"}
_ORDERING = (operator.lt, operator.le, operator.gt, operator.ge)
#: Builtin containers whose operators take or refuse an operand by its class, never by the items it holds
#: (not str: ``"" % x`` depends on the format).
_CONTAINERS = (dict, list, tuple, set, frozenset)
_TEXT = (str, bytes)
#: Operators whose C code on a sequence or text reads the other operand (a repeat count's ``__index__``, a
#: format's arguments): a stand-in without those methods would not answer as the real operand does.
_READS_OPERAND = (operator.mul, operator.imul, operator.mod, operator.imod)


def unary_special(op: Any) -> str | None:
    """The special method ``op`` (``-x``, ``+x``, ``~x``, ``abs(x)``) calls, or None."""
    return _UNARY.get(op)


def _python_class(cls: Any) -> bool:
    return isinstance(cls, type) and bool(cls.__flags__ & _HEAPTYPE) and not cls.__flags__ & _IMMUTABLETYPE


def type_name(cls: type) -> str:
    """CPython's ``tp_name`` of ``cls``, as C messages show it: a builtin's or a class statement's name, and
    another C type's dotted with its module (``collections.deque``)."""
    if cls.__module__ == "builtins" or _python_class(cls):
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


def _answers(cls: type, name: str) -> bool:
    """Whether ``cls`` has special method ``name`` that may answer (``object``'s comparisons never do)."""
    found = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)  # no metaclass __getattr__
    return found is not None and found is not object.__dict__.get(name)


def not_iterable(cls: Any) -> bool:
    """Whether ``iter()`` of an instance of ``cls``, a class written in Python, raises TypeError: its
    ``__iter__`` is None, or neither ``__iter__`` nor ``__getitem__`` is on any class of its MRO."""
    if not _python_class(cls):
        return False
    found = {name: next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), _ABSENT)
             for name in ("__iter__", "__getitem__")}
    return found["__iter__"] is None or all(v is _ABSENT for v in found.values())


def _stand_in(cls: type) -> Any:
    return type(cls.__name__, (), {})()


def unary_type_error(op: Any, cls: Any) -> UserError | None:
    """The error of ``op`` on an instance of ``cls`` when ``cls`` (a Python class) has no method for it."""
    name = _UNARY.get(op)
    if name is None or not _python_class(cls) or _answers(cls, name):
        return None
    return raised_error(op, _stand_in(cls))


def binary_type_error(op: Any, names: tuple[str, ...], left: tuple[Any, Any], right: tuple[Any, Any],
                      declined: frozenset[str] = frozenset()) -> UserError | None:
    """The error of ``op`` when neither operand answers; ``names`` are the left's methods (``__iadd__``,
    ``__add__``) then the right's reflection, each operand is ``(class, constant or None)``, and ``declined``
    the methods, written in Python, that were called for this operation and answered NotImplemented.

    None where an operand might answer: a class not written in Python (but for the builtin containers and
    text, whose C methods decide by class), a number meeting a non-number's missing method (only numbers are
    known to answer NotImplemented for everything else), or ``==``/``!=``, which fall back to identity.
    """
    if op in (operator.eq, operator.ne):
        return None
    values = []
    for (cls, constant), own in ((left, names[:-1]), (right, names[-1:])):
        if type(constant) in _NUMBERS or (type(constant) in _TEXT and op not in _READS_OPERAND):
            values.append(constant)
        elif cls in _CONTAINERS and op not in _READS_OPERAND:
            # a builtin container's C methods accept or decline an operand by its class alone: an empty one
            # raises the TypeError any other would (and raises none where one would not)
            values.append(cls() if constant is None else constant)
        elif _python_class(cls) and not any(_answers(cls, name) and name not in declined for name in own):
            values.append(_stand_in(cls))
        else:
            return None
    if op not in _ORDERING and all(type(v) in _NUMBERS for v in values):
        return None
    return raised_error(op, *values)


def raised_error(op: Any, *values: Any) -> UserError | None:
    """The TypeError ``op(*values)`` raises, as a :class:`UserError` (None if it raises none)."""
    try:
        op(*values)
    except TypeError as exc:
        return UserError(f"operator {op.__name__} raised TypeError", str(exc), exc_type=TypeError,
                         exc_args=args_of(exc))
    return None


def length_of(result: Any) -> int:
    """What ``len()`` makes of a ``__len__`` that returned the constant ``result``: the int, or CPython's own
    error (ValueError for a negative length, TypeError for a non-integer, OverflowError past ``sys.maxsize``)."""
    try:
        return len(type("Sized", (), {"__len__": lambda self: result})())
    except (TypeError, ValueError, OverflowError) as exc:
        raise UserError(f"len() raised {type(exc).__name__}", str(exc), exc_type=type(exc),
                        exc_args=args_of(exc)) from exc


def truth_of(special: str, result: Any) -> bool:
    """What ``bool()`` makes of a ``__bool__`` (or ``__len__``) that returned the constant ``result``: the truth,
    or CPython's own error (a ``__bool__`` giving no bool, a ``__len__`` giving a negative or non-integer)."""
    try:
        return bool(type("Truthy", (), {special: lambda self: result})())
    except (TypeError, ValueError, OverflowError) as exc:
        raise UserError(f"bool() raised {type(exc).__name__}", str(exc), exc_type=type(exc),
                        exc_args=args_of(exc)) from exc


def refuse_unsized(cls: type) -> None:
    """``len()`` of an instance of ``cls``, a class with no ``__len__`` (a generator, an iterator): CPython's
    TypeError, in its words; nothing for a class that has one."""
    if not hasattr(cls, "__len__"):
        message = f"object of type '{cls.__name__}' has no len()"
        raise UserError("len()", message, exc_type=TypeError, exc_args=(message,))

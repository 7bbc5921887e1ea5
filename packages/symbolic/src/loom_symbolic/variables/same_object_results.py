"""Calls and operators whose answer CPython gives as the very object passed in, for immutable builtins:

- ``frozenset(f)`` and ``tuple(t)`` of an exact frozenset or tuple ``f``/``t`` (``frozenset_vectorcall`` and
  ``tuple_vectorcall_impl`` return it unchanged);
- ``t + ()``, ``() + t`` (``tupleconcat``), ``t * 1``, ``1 * t`` and ``() * n`` (``tuplerepeat``) of exact tuples.

The trace answered with a new object, so ``tuple(t) is t`` was False (or a graph break: "identity is not known
while tracing") where eager says True. A subclass instance, a set, a list or any other iterable still makes a
new one (the handlers of :mod:`.builtins` and :mod:`.operator_semantics`).
"""

from __future__ import annotations

import operator
from typing import Any

from . import operator_semantics as _semantics
from .base import Variable
from .builtins import HANDLERS
from .constant import ConstantVariable
from .sequences import TupleVariable
from .sets import SetVariable


def _exact(value: Variable, kind: type) -> bool:
    """Whether ``value`` is an instance of exactly ``kind`` (a tuple or a frozenset)."""
    if isinstance(value, ConstantVariable):
        return type(value.value) is kind
    if kind is tuple:
        return isinstance(value, TupleVariable) and value.python_type() is tuple
    return isinstance(value, SetVariable) and value.frozen and value.python_type() is frozenset


def _size(value: Variable) -> int:
    return len(value.value) if isinstance(value, ConstantVariable) else len(value.items)


def _returning_exact(kind: type) -> Any:
    make = HANDLERS[kind]

    def call(tx, args, kwargs):
        if len(args) == 1 and not kwargs and _exact(args[0], kind):
            return args[0]
        return make(tx, args, kwargs)

    return call


HANDLERS[frozenset] = _returning_exact(frozenset)
HANDLERS[tuple] = _returning_exact(tuple)


def _same_tuple(op: Any, left: Variable, right: Variable) -> Variable | None:
    """The operand ``left op right`` gives back itself in CPython, or None."""
    if op is operator.add and _exact(left, tuple) and _exact(right, tuple):
        if _size(right) == 0:
            return left
        return right if _size(left) == 0 else None
    if op is operator.mul:
        seq, count = (left, right) if _exact(left, tuple) else (right, left)
        if _exact(seq, tuple) and not _exact(count, tuple) and count.is_python_constant():
            n = count.as_python_constant()
            if isinstance(n, int) and (n == 1 or _size(seq) == 0):
                return seq
    return None


def _same_tuple_operator(tx: Any, op: Any, left: Variable, right: Variable) -> Variable | None:
    """A container operator (``t + ()``, ``t += ()``, ``t * 1``): the operand itself where CPython gives it back."""
    return _same_tuple(_semantics.INPLACE.get(op, op), left, right)


_semantics.CONTAINER_OPERATORS.append(_same_tuple_operator)

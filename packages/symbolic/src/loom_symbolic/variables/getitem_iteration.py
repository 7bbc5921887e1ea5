"""``iter(obj)`` and ``reversed(obj)`` for a class that writes ``__getitem__`` in Python but no ``__iter__`` (the old sequence
protocol): items ``obj[0]``, ``obj[1]``... until ``__getitem__`` raises IndexError or StopIteration, as
CPython's sequence iterator does. Loops, ``sum``, ``list`` and ``in`` over such objects broke the graph before.
``reversed`` asks ``obj[len - 1]`` down to ``obj[0]``, or calls a ``__reversed__`` written in Python.
"""

from __future__ import annotations

import collections
import types
from typing import TYPE_CHECKING

from .. import operand_errors as _operand_errors
from ..errors import Unsupported, UserError
from . import attributes as _attributes
from . import exception_values as _exceptions
from . import iterators as _iterators
from .base import Variable
from .constant import ConstantVariable
from .container_tables import key_variable
from .mappings import DictVariable
from .reversed_lists import ReversedListIterator
from .sequences import SequenceVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


class GetitemIterator(_iterators.IteratorVariable):
    """CPython's ``iterator`` object over ``obj.__getitem__``: the next index, until it is exhausted."""

    def __init__(self, obj: Variable) -> None:
        self.obj = obj
        #: the next index to ask for; None once ``__getitem__`` ended the iteration (it stays ended)
        self.index: int | None = 0

    def python_type(self) -> type:
        return _ITERATOR

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        if self.index is None:
            return None
        try:
            item = self.obj.call_method(tx, "__getitem__", [ConstantVariable(self.index)], {})
        except _exceptions.SymbolicException as raised:
            if issubclass(raised.exc.cls, (IndexError, StopIteration)):
                self.index = None
                return None
            raise
        self.index += 1
        return item

    def describe(self) -> str:
        return f"an iterator over {self.obj.python_type().__name__}.__getitem__"


class _Probe:
    def __getitem__(self, index):
        raise IndexError(index)


_ITERATOR = type(iter(_Probe()))  # CPython's sequence iterator type, named ``iterator``


def _sequence_protocol(tx: InstructionTranslator, obj: Variable, cls: type) -> GetitemIterator | None:
    if getattr(obj, "stands_for", None) is not None:
        return None  # a Python stand-in for a C class (a deque's): the C class's own iteration decides
    if _operand_errors.not_iterable(cls):  # CPython's own TypeError (a class statement's name is its tp_name)
        message = f"'{cls.__name__}' object is not iterable"
        raise UserError("iter()", message, exc_type=TypeError, exc_args=(message,))
    own_iter = _attributes.class_attribute(cls, "__iter__")
    getitem = _attributes.class_attribute(cls, "__getitem__")
    getter = getitem.fget if type(getitem) is property and not hasattr(obj, "real") else None
    if own_iter is not _attributes._MISSING or not isinstance(getter or getitem, types.FunctionType):
        return None  # (a property's getter: the slot reads it off an object made while tracing, then calls it)
    return GetitemIterator(obj)


_iterators.ITERATION_FALLBACKS.append(_sequence_protocol)


def reversed_protocol(tx: InstructionTranslator, obj: Variable, cls: type) -> Variable | None:
    """``reversed(obj)`` for a class that writes ``__reversed__`` in Python (called), or ``__len__`` and
    ``__getitem__`` but no ``__reversed__`` (items ``obj[len - 1]`` down to ``obj[0]``, ending early at an
    IndexError or StopIteration, as CPython's reversed object does); None for any other class."""
    if getattr(obj, "stands_for", None) is not None:  # a C class's stand-in: its own __reversed__, if any
        own = _attributes.class_attribute(obj.cls, "__reversed__")
        return obj.call_method(tx, "__reversed__", [], {}) if isinstance(own, types.FunctionType) else None
    own = _attributes.class_attribute(cls, "__reversed__")
    if isinstance(own, types.FunctionType):
        return obj.call_method(tx, "__reversed__", [], {})
    held = _held_reversed(obj, cls, own)
    if held is not None:
        return held
    protocol = (_attributes.class_attribute(cls, name) for name in ("__getitem__", "__len__"))
    if own is not _attributes._MISSING or not all(isinstance(fn, types.FunctionType) for fn in protocol):
        if isinstance(_attributes.class_attribute(cls, "__iter__"), types.FunctionType):
            # CPython reads it backwards by index, past the class's own __iter__, which alone reaches its items here
            raise Unsupported(f"reversed() of {obj.describe()}", "its class writes __iter__ in Python, which reversed() skips")
        return None
    length = obj.call_method(tx, "__len__", [], {})
    if not length.is_python_constant():
        return None
    items = []
    for index in range(_operand_errors.length_of(length.as_python_constant()) - 1, -1, -1):
        try:
            items.append(obj.call_method(tx, "__getitem__", [ConstantVariable(index)], {}))
        except _exceptions.SymbolicException as raised:
            if not issubclass(raised.exc.cls, (IndexError, StopIteration)):
                raise
            break
    return _iterators.SnapshotIterator(items)


def _held_reversed(obj: Variable, cls: type, own: object) -> Variable | None:
    """``reversed()`` of a list or dict (or a subclass's instance that leaves its C ``__reversed__``), or of a
    tuple whose class leaves ``__len__`` and ``__getitem__`` to C: the held items backwards, by index or in
    key order. A Python ``__iter__`` of the class plays no part, as in CPython."""
    if isinstance(obj, SequenceVariable) and obj.container_type is list and own is list.__reversed__:
        return ReversedListIterator(obj)
    if isinstance(obj, DictVariable) and own in (dict.__reversed__, collections.OrderedDict.__reversed__):
        return _iterators.SnapshotIterator([key_variable(k) for k in reversed(obj.items)])
    if isinstance(obj, SequenceVariable) and own is _attributes._MISSING and not any(
            isinstance(_attributes.class_attribute(cls, name), types.FunctionType) for name in ("__getitem__", "__len__")):
        return _iterators.SnapshotIterator(list(reversed(obj.items)))
    return None

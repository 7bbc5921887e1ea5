"""``hash(obj)`` of a frozenset or tuple subclass instance made while tracing: the hash of its members;
of an object made while tracing whose class writes ``__hash__`` in Python: that method; of a tensor: its
``id()`` (``Tensor.__hash__``), and in a tuple's hash a tensor passed in hashes as its address, guarded.

A plain frozenset or tuple of constants is a constant and ``hash`` folds; an instance of a subclass is not
one (its Python methods must run), but a subclass that does not define ``__hash__`` hashes exactly as the
frozenset (or tuple) of its members does, which the trace knows when every member is a constant.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

import torch

from ..errors import UserError
from ..operand_errors import type_name
from .attributes import class_attribute
from .builtins import builtin
from .constant import ConstantVariable
from .id_keys import given_tensor
from .methods import BoundMethodVariable
from .object_id_calls import builtin_id
from .object_ids import ObjectHashVariable
from .operand_dispatch import constant_runs_python
from .sequences import TupleSubclassVariable, TupleVariable
from .sets import SetVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_ABSENT = object()
_SSIZE = 2 ** 63  # Py_ssize_t's range on the 64-bit platforms loom runs on


@builtin(hash)
def _hash(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    if len(args) != 1 or kwargs:
        return None  # the constant fold, or the break, decides
    value = args[0]
    if constant_runs_python(value, "__hash__"):  # an enum's own __hash__: traced, never called now
        return value.call_method(tx, "__hash__", [], {})
    if _hashed_as_tensor(value):  # Tensor.__hash__ is id(): equal to the same tensor's id and hash, as in eager
        return builtin_id(tx, [value], {})
    if getattr(value, "stands_for", None) is not None and class_attribute(value.cls, "__hash__") is None:
        # a C class's stand-in (a deque's) whose class is unhashable: CPython's TypeError, naming the C class
        message = f"unhashable type: '{type_name(value.python_type())}'"
        raise UserError("hash()", message, exc_type=TypeError, exc_args=(message,))
    if getattr(value, "stands_for", _ABSENT) is None and value.source is None:
        return made_object_hash(tx, value)
    if isinstance(value, BoundMethodVariable) and _made_object(value.receiver) \
            and isinstance(getattr(value.function, "value", None), types.FunctionType):
        # a method of an object made while tracing: by its object's address (not its hash) and its function
        return ObjectHashVariable(value)
    if type(value) is TupleVariable and not value.is_python_constant():
        return _hash_tuple_of_made_objects(tx, value)
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


def _made_object(value: Variable) -> bool:
    """An object of a plain class made while tracing."""
    return getattr(value, "stands_for", _ABSENT) is None and value.source is None and value.mutable


def _hashed_as_tensor(value: Variable) -> bool:
    """Whether ``value`` is a tensor whose class hashes it as ``Tensor`` does, by its address."""
    if not isinstance(getattr(value, "example", None), torch.Tensor):
        return False
    try:
        return class_attribute(value.python_type(), "__hash__") is torch.Tensor.__hash__
    except Exception:  # a type the trace cannot name: the other answers decide
        return False


def made_object_hash(tx: InstructionTranslator, value: Variable) -> Variable | None:
    """``hash(obj)`` for an object of a plain class made while tracing (only it has ``stands_for``)
    whose class writes ``__hash__`` in Python (a frozen dataclass's): that method, inlined, and its int
    made what CPython's slot makes of it (an int outside Py_ssize_t hashed again, -1 turned into -2)."""
    own = class_attribute(value.python_type(), "__hash__")
    if own is None:  # __hash__ = None (what defining __eq__ alone leaves): CPython's own TypeError
        message = f"unhashable type: '{value.python_type().__name__}'"
        raise UserError("hash()", message, exc_type=TypeError, exc_args=(message,))
    if own is str.__hash__ and hasattr(value, "call_builtin_method"):  # a str subclass's: its text's hash
        return value.call_builtin_method(tx, "__hash__", [], {})
    if own is object.__hash__ and value.mutable:  # by its address, unknown yet: compared by identity
        return ObjectHashVariable(value)
    if not isinstance(own, types.FunctionType):
        return None
    result = value.call_method(tx, "__hash__", [], {})
    if not isinstance(result, ConstantVariable) or type(result.value) not in (int, bool):
        return None  # not an int known while tracing: the break says so
    number = int(result.value)
    if not -_SSIZE <= number < _SSIZE:
        number = hash(number)
    return ConstantVariable(-2 if number == -1 else number)


class _KnownHash:
    """Stands in a real tuple for a member whose hash the trace computed: CPython's tuple hash reads
    only its members' hashes, so the real tuple of these hashes as the modelled one does."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value

    def __hash__(self) -> int:
        return self.value


def _hash_tuple_of_made_objects(tx: InstructionTranslator, value: Variable) -> Variable | None:
    """``hash(t)`` for a tuple of constants and objects made while tracing with Python ``__hash__``
    (the tuple a dataclass's ``__hash__`` hashes when a field is another frozen dataclass)."""
    members = []
    for item in value.items:
        if isinstance(item, ConstantVariable):
            members.append(item.value)
            continue
        given = given_tensor(tx, item, item.example) if _hashed_as_tensor(item) else None
        if given is not None:  # a tensor passed in: its address is its hash, the tensor identity-guarded
            tx.output.guards.add("identity", given.source, given.real)
            members.append(_KnownHash(hash(id(given.real))))
            continue
        known = _hash(tx, [item], {})
        if not isinstance(known, ConstantVariable):
            return None
        members.append(_KnownHash(known.value))
    try:
        return ConstantVariable(hash(tuple(members)))
    except TypeError:
        return None  # an unhashable constant: the program's TypeError comes from the ordinary path

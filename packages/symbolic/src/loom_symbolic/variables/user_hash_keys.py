"""Dict keys and set members whose class writes ``__hash__`` in Python: an object made while tracing.

CPython hashes such a key by calling its ``__hash__`` once per operation, and compares it with a member of
equal hash by identity first, then by ``==`` (the stored key's ``__eq__`` first, as ``PyObject_RichCompare``
does). The translator's dicts and sets are real Python dicts and sets of keys, so a :class:`UserHashKey`
carries the hash the traced ``__hash__`` gave (an int known while tracing, made what CPython's slot makes of
it) and answers ``==`` by tracing the program's ``__eq__``: the real table then probes, collides and orders
as eager's does.

The translator may hash a key or compare two keys more often than CPython does (a set keeps its members in
two tables), so only a class whose ``__hash__`` and ``__eq__`` are plainly free of effects is keyed this way: no
store or delete of an attribute, global, cell or item, no method call, no call of a Python function of the
module (:func:`free_of_effects`). Any other stays a graph break, as it was.
"""

from __future__ import annotations

import builtins
import dis
import functools
import types
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from .attributes import class_attribute
from .constant import ConstantVariable
from .container_method_kit import values_equal
from .container_tables import IdentityKey
from .hashing import made_object_hash
from .mappings import KEY_MAKERS
from .registry import wrap_constant_like

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_ABSENT = object()
_EFFECTS = frozenset({"STORE_ATTR", "STORE_GLOBAL", "STORE_DEREF", "STORE_SUBSCR", "STORE_SLICE", "STORE_NAME",
                      "DELETE_ATTR", "DELETE_GLOBAL", "DELETE_DEREF", "DELETE_SUBSCR", "DELETE_NAME", "IMPORT_NAME",
                      "LOAD_METHOD", "YIELD_VALUE"})
#: builtins a hash or an equality may call without changing anything
_PURE_BUILTINS = frozenset({isinstance, issubclass, hash, len, type, id, getattr, hasattr, tuple, frozenset, abs, min,
                            max, int, str, float, bool, repr, sorted, all, any, round, divmod, ord, chr, sum})


class UserHashKey(IdentityKey):
    """The key of an object made while tracing whose class writes ``__hash__``: its traced hash, and
    ``==`` by its traced ``__eq__`` (identity first)."""

    __slots__ = ("hash_value", "tx")

    def __init__(self, variable: Variable, hash_value: int, tx: InstructionTranslator) -> None:
        super().__init__(variable, variable)
        self.hash_value = hash_value
        self.tx = tx

    def __hash__(self) -> int:
        return self.hash_value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IdentityKey):
            if other.identity is self.identity:
                return True  # the very object: CPython's identity check, no __eq__ runs
            right = other.variable
        else:
            right = wrap_constant_like(other)
        # the key being looked up is the newer one: its translator is running (a stored key's may have returned)
        tx = other.tx if isinstance(other, UserHashKey) else self.tx
        while getattr(tx, "return_value", None) is not None and getattr(tx, "parent", None) is not None:
            tx = tx.parent
        return values_equal(tx, self.variable, right)

    def __repr__(self) -> str:
        return f"<{self.variable.describe()} hashed {self.hash_value}>"


@functools.lru_cache(maxsize=256)
def _names_read(code: types.CodeType) -> tuple[tuple[str, str], ...] | None:
    """The globals and cells ``code`` (and code nested in it) reads, as ``(opname, name)``; None when it
    stores, deletes or calls a method."""
    read = []
    for ins in dis.get_instructions(code):
        if ins.opname in _EFFECTS or (ins.opname == "LOAD_ATTR" and str(ins.argrepr).startswith("NULL|self")):
            return None  # a store, or a method call (3.12 loads methods with LOAD_ATTR)
        if ins.opname in ("LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_NAME"):
            read.append((ins.opname, str(ins.argval)))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            nested = _names_read(const)
            if nested is None:
                return None
            read.extend(nested)
    return tuple(read)


def _harmless(value: Any) -> bool:
    """A class (``isinstance(other, Key)``) or a builtin that changes nothing."""
    if isinstance(value, type):
        return True
    try:
        return value in _PURE_BUILTINS
    except TypeError:  # unhashable
        return False


def free_of_effects(fn: Any) -> bool:
    """Whether Python function ``fn`` plainly changes nothing: see the module's docstring."""
    if not isinstance(fn, types.FunctionType):
        return False
    read = _names_read(fn.__code__)
    if read is None:
        return False
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    for opname, name in read:
        if opname == "LOAD_GLOBAL":
            value = fn.__globals__[name] if name in fn.__globals__ else getattr(builtins, name, None)
        elif name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:  # an empty cell
                return False
        else:
            return False  # a cell of code nested in it: not looked into
        if not _harmless(value):
            return False
    return True


def user_hash_key(key: Variable, tx: InstructionTranslator) -> UserHashKey | None:
    """The :class:`UserHashKey` of an object made while tracing whose class writes ``__hash__`` in Python;
    None for anything else. A hash not known while tracing is a break."""
    if getattr(key, "stands_for", _ABSENT) is not None or key.source is not None or not getattr(key, "mutable", False):
        return None
    cls = key.python_type()
    if not isinstance(class_attribute(cls, "__hash__"), types.FunctionType):
        return None
    equal = class_attribute(cls, "__eq__")
    if not free_of_effects(class_attribute(cls, "__hash__")) or not (equal is object.__eq__ or free_of_effects(equal)):
        return None  # hashed or compared more often than in eager, its effects would repeat
    hashed = made_object_hash(tx, key)
    if not isinstance(hashed, ConstantVariable):
        raise Unsupported(f"{key.describe()} as a dict key or set member", "its __hash__ gave no int known while tracing")
    return UserHashKey(key, hashed.value, tx)


def _maker(key: Variable, tx: Any) -> UserHashKey | None:
    return user_hash_key(key, tx)


KEY_MAKERS.append(_maker)

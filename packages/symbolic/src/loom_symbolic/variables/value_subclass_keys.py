"""An instance of an int, float or str subclass made while tracing as a dict key or set member
(``{Name("ab"): 1}``), where its class keeps the builtin's ``__hash__`` and ``__eq__``: CPython hashes and
compares it by its value, so it finds the entry of an equal plain value (``d["ab"]``) and the reverse, while
the dict keeps whichever object came first (the object itself is what the rebuilt dict holds). Likewise an
instance of a frozenset subclass made while tracing, whose members are constants: it finds the entry of an
equal plain frozenset (``_FS("ab") in {frozenset("ab")}``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .attributes import class_attribute
from .container_tables import IdentityKey
from .mappings import KEY_MAKERS
from .sets import SetVariable
from .value_subclasses import ValueSubclassVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class ValueEqualKey(IdentityKey):
    """The key of such an object: hashed as its value, equal to an equal plain value or another such key (and
    to itself, by identity first, as CPython compares keys: a NaN value finds its own object only)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self.identity)

    def __eq__(self, other: object) -> Any:
        if isinstance(other, ValueEqualKey):
            return other.variable is self.variable or other.identity == self.identity
        if isinstance(other, IdentityKey):
            return False
        return self.identity == other


def _frozenset_subclass_key(key: Variable) -> ValueEqualKey | None:
    cls = key.cls
    if (key.source is not None or not key.frozen or cls is None or any(isinstance(k, IdentityKey) for k in key.layout)
            or class_attribute(cls, "__hash__") is not frozenset.__hash__
            or class_attribute(cls, "__eq__") is not frozenset.__eq__):
        return None
    return ValueEqualKey(key, frozenset(key.layout))


def _value_subclass_key(key: Variable, tx: InstructionTranslator) -> ValueEqualKey | None:
    if isinstance(key, SetVariable):
        return _frozenset_subclass_key(key)
    if not isinstance(key, ValueSubclassVariable) or key.source is not None:
        return None
    base = key.base
    if class_attribute(key.cls, "__hash__") is not base.__hash__ or class_attribute(key.cls, "__eq__") is not base.__eq__:
        return None
    return ValueEqualKey(key, key.value)


KEY_MAKERS.append(_value_subclass_key)

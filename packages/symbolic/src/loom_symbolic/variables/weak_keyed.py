"""Dicts keyed by weak references (a ``weakref.WeakKeyDictionary``'s ``data``: ``ref(obj)`` → value), read while
tracing.

``ref(obj) in d`` and ``d[ref(obj)]`` find the entry of the very object ``obj`` (a weak reference hashes and
compares as its live referent), so for an object the trace reads from the frame (its identity pinned, as for
any key compared by identity) the answer is the real dict's: the item is reached through an
:class:`~.tensor_keyed.ItemOfKey` source holding ``ref(obj)``, and membership is guarded through
:class:`~.tensor_keyed.HasKey`, so the entry is reused only while the dict still maps that object the same way.
Anything else (iterating, a key made in the trace, a change to the dict) is a graph break.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from .mappings import DictVariable
from .methods import MethodVariable
from .tensor_keyed import TensorKeyedDictVariable
from .weakrefs import WeakRefVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def is_weak_keyed(value: Any) -> bool:
    """A plain dict with at least one key, every key a weak reference to a live object."""
    if type(value) is not dict or not value:
        return False
    return all(isinstance(k, weakref.ref) and k() is not None for k in value)


#: The dict methods a WeakKeyDictionary reads from its ``data`` to look one object up.
_READS = frozenset({"get", "__getitem__", "__contains__"})


class WeakKeyedDictVariable(TensorKeyedDictVariable):
    """A real dict keyed by weak references: read by ``ref(obj)`` of objects from the frame, never changed."""

    def _as_dict(self, tx: InstructionTranslator) -> DictVariable:
        raise Unsupported("iterating a dict keyed by weak references", "its keys cannot be guarded")

    def _key(self, tx: InstructionTranslator, key: Variable) -> Any:
        referent = key.referent if isinstance(key, WeakRefVariable) else None
        real = getattr(referent, "value", None) if getattr(referent, "wraps_real_object", False) else None
        if real is None or referent.source is None or DictVariable.key_of(referent, tx) is not real:
            # (key_of pins the object's identity: a module guarded by its type alone stands for this one only)
            raise Unsupported(
                f"a dict keyed by weak references, indexed by {key.describe()}",
                "only references to objects read from the frame are looked up",
            )
        return weakref.ref(real)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _READS:  # ``self.data.get`` in WeakKeyDictionary.get: the dict's own method, bound
            return MethodVariable(self, name)
        return super().var_getattr(tx, name)

    def call_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        if name == "__len__":
            raise Unsupported(
                "len() of a dict keyed by weak references", "entries vanish when their objects die"
            )
        return super().call_method(tx, name, args, kwargs)

    def describe(self) -> str:
        return "dict keyed by weak references"

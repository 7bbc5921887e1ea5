"""A dict read from the frame whose items are wrapped one at a time, when the trace reads them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import UserError
from .base import Variable
from .containers import DictVariable, key_variable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


class LazyDictVariable(DictVariable):
    """A real dict read from a source, its keys guarded (``DictKeys``) and its values wrapped, and so
    guarded, only when read. A ``transformers`` config's attribute reads all start with
    ``self.__dict__.get(...)``: wrapping every value up front guarded each of them, so changing one the
    model never reads recompiled. Any use other than a lookup, a membership test, truth or the keys
    wraps every value first, as a plain :class:`DictVariable` does at once."""

    def __init__(self, tx: InstructionTranslator, real: dict, source: Any, wrap_item: Any) -> None:
        super().__init__({}, source, cls=type(real), real=real if type(real) is not dict else None)
        self._tx = tx
        self._pending: dict | None = real  # the real dict until every value is wrapped
        self._wrap_item = wrap_item  # (tx, value, key) -> Variable

    @property
    def items(self) -> dict[Any, Variable]:  # type: ignore[override]
        pending = self._pending
        if pending is not None:
            self._pending = None
            read = self._items
            self._items = {k: read[k] if k in read else self._wrap_item(self._tx, v, k) for k, v in pending.items()}
        return self._items

    @items.setter
    def items(self, value: dict[Any, Variable]) -> None:
        self._items = value

    def _keys(self) -> dict:
        """A dict with this one's keys, in order: the real one until every value is wrapped."""
        return self._pending if self._pending is not None else self._items

    def lookup(self, key: Any) -> Variable | None:
        pending = self._pending
        if pending is None:
            return self._items.get(key)
        value = self._items.get(key)
        if value is None and key in pending:  # the keys are guarded: the same ones at run time
            value = self._items[key] = self._wrap_item(self._tx, pending[key], key)
        return value

    def has_key(self, key: Any) -> bool:
        return key in self._keys()

    def truth(self, tx: InstructionTranslator) -> bool:
        return bool(self._keys())

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return [key_variable(k) for k in self._keys()]

    # Descriptions (error messages, reports) must not wrap values: that would add guards and graph
    # inputs, possibly after the translation is over.
    def describe(self) -> str:
        return f"dict of {len(self._keys())}"

    def __repr__(self) -> str:
        if self._pending is not None:
            return f"LazyDictVariable({len(self._items)} of {len(self._pending)} values read)"
        return f"LazyDictVariable({self._items!r})"


class MappingProxyVariable(LazyDictVariable):
    """A ``mappingproxy`` read from the frame (a class's ``__dict__``, ``Signature.parameters``): a
    read-only lazy dict, its keys guarded through the proxy and each value read through it when used.
    ``keys()``, ``values()``, ``items()`` and iteration are the dict's; writes raise as the proxy does."""

    #: (its ``copy`` copies the underlying mapping, whose type the proxy hides: not modelled)
    only_methods = frozenset({"__getitem__", "__contains__", "__len__", "get", "keys", "values", "items"})
    read_only = True

    def setitem(self, tx: InstructionTranslator, key: Variable, value: Variable) -> None:
        message = "'mappingproxy' object does not support item assignment"
        raise UserError("item assignment", message, exc_type=TypeError, exc_args=(message,))

    def delitem(self, tx: InstructionTranslator, key: Variable) -> None:
        message = "'mappingproxy' object does not support item deletion"
        raise UserError("item deletion", message, exc_type=TypeError, exc_args=(message,))

    def describe(self) -> str:
        return f"mappingproxy of {len(self._keys())}"

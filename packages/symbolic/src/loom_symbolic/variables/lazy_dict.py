"""A dict read from the frame whose items are wrapped one at a time, when the trace reads them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loom_guards import guarded_by_identity

from ..errors import UserError
from ..object_dicts import proxied
from .base import Variable
from .constant import is_constant_value
from .containers import DictVariable, key_variable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def keys_modelled(value: dict) -> bool:
    """Keys a DictKeys guard can check: constants, and objects it compares by identity (those a dict
    finds by identity, and builtin functions of modules, which a dict finds by an equality of the C
    function and its owner's identity: ``guarded_by_identity``)."""
    return all(is_constant_value(k) or guarded_by_identity(k) for k in value)


class ReadOnlyMappingMixin:
    """A mappingproxy's refusals: item assignment and deletion raise Python's TypeError in the trace."""

    def setitem(self, tx: InstructionTranslator, key: Variable, value: Variable) -> None:
        message = "'mappingproxy' object does not support item assignment"
        raise UserError("item assignment", message, exc_type=TypeError, exc_args=(message,))

    def delitem(self, tx: InstructionTranslator, key: Variable) -> None:
        message = "'mappingproxy' object does not support item deletion"
        raise UserError("item deletion", message, exc_type=TypeError, exc_args=(message,))


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
        self._copied = False  # whether _pending is a copy the trace's attribute stores changed

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

    def show_attribute(self, name: str, value: Variable | None) -> bool:
        """As :meth:`DictVariable.show_attribute`, wrapping no other value: the keys are kept in a copy of
        the real dict's (which the replayed store changes only after the graph), the value among the read ones."""
        pending = self._pending
        if pending is None:
            return super().show_attribute(name, value)
        if not self._copied:
            pending = self._pending = dict(pending)
            self._copied = True
        if value is None:
            pending.pop(name, None)
            self._items.pop(name, None)
        else:
            pending[name] = None  # its value is the variable in _items, which reads find first
            self._items[name] = value
        return True

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


class MappingProxyVariable(ReadOnlyMappingMixin, LazyDictVariable):
    """A ``mappingproxy`` read from the frame (a class's ``__dict__``, ``Signature.parameters``): a
    read-only lazy dict, its keys guarded through the proxy and each value read through it when used.
    ``keys()``, ``values()``, ``items()`` and iteration are the dict's; writes raise as the proxy does."""

    #: (its ``copy`` copies the underlying mapping, whose type the proxy hides: not modelled)
    only_methods = frozenset({"__getitem__", "__contains__", "__len__", "get", "keys", "values", "items"})
    read_only = True

    def __init__(self, tx: InstructionTranslator, real: Any, source: Any, wrap_item: Any) -> None:
        super().__init__(tx, real, source, wrap_item)
        self._mapping = proxied(real)

    def _held(self) -> DictVariable | None:
        """The trace's own variable for the dict under the proxy, when the trace holds one (the dict
        was read from the frame too): reads go to it, so the trace's changes to the dict, replayed
        only after the graph, are seen through the proxy as in Python."""
        mapping = self._mapping
        entry = self._tx.output.known_objects.get(id(mapping)) if mapping is not None else None
        if entry is not None and entry[0] is mapping and isinstance(entry[1], DictVariable) and entry[1] is not self:
            return entry[1]
        return None

    def _lazy_items(self) -> dict[Any, Variable]:
        held = self._held()
        return held.items if held is not None else LazyDictVariable.items.fget(self)

    items = property(_lazy_items, LazyDictVariable.items.fset)

    def _keys(self) -> dict:
        held = self._held()
        return held.items if held is not None else super()._keys()

    def lookup(self, key: Any) -> Variable | None:
        held = self._held()
        return held.lookup(key) if held is not None else super().lookup(key)

    def has_key(self, key: Any) -> bool:
        held = self._held()
        return held.has_key(key) if held is not None else super().has_key(key)

    def show_attribute(self, name: str, value: Variable | None) -> bool:
        # a class's stores reach its dict, which the trace may hold as a variable of its own: not modelled
        return self._held() is None and super().show_attribute(name, value)

    def describe(self) -> str:
        return f"mappingproxy of {len(self._keys())}"

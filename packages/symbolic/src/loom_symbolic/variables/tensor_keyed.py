"""Dicts keyed by tensors (``optimizer.state``: parameter → its state dict), read while tracing.

A dict finds a tensor key by identity first (a tensor hashes by ``id``), so ``state[p]`` for a
parameter ``p`` that is a graph input is the real dict's item for that very tensor. The item is
reached through :class:`ItemOfKey`, a guard source holding the key object; its guard fails (and loom
recompiles) when the dict no longer maps that tensor to an equal value. A missing key of a
``defaultdict`` (an optimizer's first step: ``self.state[p]``) is inserted as ``__missing__`` does: the
factory is called in the trace, the new item is the trace's own object (the optimizer fills it with
tensors the graph makes), the frame is guarded on the key being absent, and the rewritten code stores
the item into the real dict after the graph. A missing key of a plain dict is a graph break.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Attr
from loom_guards.sources import _Chained, _set_chained

from ..errors import Unsupported
from .base import RealValueVariable, Variable
from .constant import ConstantVariable
from .mappings import DictVariable, identity_key
from .registry import wrap

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator



class _ObjectKeyed(_Chained):
    """A source over ``base`` and a key that is an object (a tensor), held by the source itself and
    compared by identity."""

    __slots__ = ("key",)
    fetch_cost = 2

    def __init__(self, base: Any, key: Any) -> None:
        _set_chained(self, base, "key", key)

    def _key(self) -> tuple:
        return (self._base, id(self.key))

    def _args(self) -> tuple:
        return (self._base, self.key)


class ItemOfKey(_ObjectKeyed):
    """``base[key]`` for an object key: read with ``dict.get`` semantics, so a missing key fails the
    guard and never runs ``__missing__``."""

    __slots__ = ()

    def read_from(self, base_value: Any) -> Any:
        if not isinstance(base_value, dict):
            raise TypeError(f"expected a dict, got {type(base_value).__name__}")
        found = dict.get(base_value, self.key, _MISSING)
        if found is _MISSING:
            raise KeyError("a tensor key")
        return found

    def __str__(self) -> str:
        return f"{self._base}[<{type(self.key).__name__} at {id(self.key):#x}>]"


_MISSING = object()


class KeyOf(_ObjectKeyed):
    """The key object ``key`` itself, found in ``base`` by identity (a key met iterating a tensor-keyed dict):
    reading it fails once ``base`` no longer holds it."""

    __slots__ = ()

    def read_from(self, base_value: Any) -> Any:
        if not isinstance(base_value, dict) or dict.get(base_value, self.key, _MISSING) is _MISSING:
            raise KeyError("a tensor key")
        return self.key

    def __str__(self) -> str:
        return f"<key {type(self.key).__name__} at {id(self.key):#x} of {self._base}>"


class KeysAre(_ObjectKeyed):
    """Whether ``base``'s keys are the objects of the tuple ``key``, in that order (compared by identity)."""

    __slots__ = ()

    def _key(self) -> tuple:
        return (self._base, tuple(map(id, self.key)))

    def read_from(self, base_value: Any) -> Any:
        return (isinstance(base_value, dict) and len(base_value) == len(self.key)
                and all(a is b for a, b in zip(dict.keys(base_value), self.key)))

    def __str__(self) -> str:
        return f"{self._base} keyed by the {len(self.key)} objects seen"


class HasKey(_ObjectKeyed):
    """``key in base`` for an object key: a guard on it being False recompiles the frame once the key is
    there (an optimizer's state appears after its first step)."""

    __slots__ = ()

    def read_from(self, base_value: Any) -> Any:
        return isinstance(base_value, dict) and dict.get(base_value, self.key, _MISSING) is not _MISSING

    def __str__(self) -> str:
        return f"<{type(self.key).__name__} at {id(self.key):#x}> in {self._base}"


def is_tensor_keyed(value: Any, source: Any) -> bool:
    """A dict (or ``defaultdict``) with at least one tensor key, every other key a tensor too; or an
    optimizer's ``state`` before its first step (an empty ``defaultdict(dict)`` read as ``.state``)."""
    if type(value).__getitem__ is not dict.__getitem__:
        return False
    if not value:
        return (type(value) is collections.defaultdict and value.default_factory is dict
                and isinstance(source, Attr) and source.name == "state")
    return all(isinstance(k, torch.Tensor) for k in dict.keys(value))


class TensorKeyedDictVariable(RealValueVariable):
    """A real dict keyed by tensors: items read by graph-input keys; the only change the trace makes is
    inserting a ``defaultdict``'s missing key (replayed into the real dict after the graph)."""

    mutable = True

    def __init__(self, value: Any, source: Any = None) -> None:
        super().__init__(value, source)
        #: keys the trace inserted: id of the real key -> (its variable, the new item's variable)
        self.added: dict[int, tuple[Variable, Variable]] = {}
        #: every item, as a dict the trace reads whole (iteration, views): made on first use
        self._whole: DictVariable | None = None

    def _as_dict(self, tx: InstructionTranslator) -> DictVariable:
        """The dict's items as a :class:`DictVariable` for iteration and ``keys``/``values``/``items``: each
        key is the real tensor (read through :class:`KeyOf`), and the keys are guarded to be those objects."""
        if self.added:
            raise Unsupported(f"iterating a {type(self.value).__name__} keyed by tensors the trace inserted into",
                              "not modelled")
        if self._whole is None:
            keys = tuple(dict.keys(self.value))
            tx.output.guards.add("constant", KeysAre(self.source, keys), True)
            items = {}
            for real in keys:
                key = wrap(tx, real, KeyOf(self.source, real))
                items[identity_key(key, tx)] = wrap(tx, dict.__getitem__(self.value, real), ItemOfKey(self.source, real))
            self._whole = DictVariable(items, self.source, cls=type(self.value), real=self.value)
        return self._whole

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _VIEWS:
            return self._as_dict(tx).var_getattr(tx, name)
        return super().var_getattr(tx, name)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return self._as_dict(tx).unpack(tx)

    def _key(self, tx: InstructionTranslator, key: Variable) -> Any:
        real = getattr(key, "real", None)
        if not isinstance(real, torch.Tensor) or getattr(key, "source", None) is None:
            raise Unsupported(f"a {type(self.value).__name__} keyed by tensors, indexed by {key.describe()}",
                              "only tensors read from the frame are looked up")
        return real

    def getitem(self, tx: InstructionTranslator, key: Variable) -> Variable:
        real = self._key(tx, key)
        added = self.added.get(id(real))
        if added is not None:
            return added[1]
        found = dict.get(self.value, real, _MISSING)
        if found is _MISSING and self._whole is None and type(self.value) is collections.defaultdict and self.value.default_factory is not None:
            return self._insert_missing(tx, key, real)
        if found is _MISSING:
            exc = Unsupported(f"a missing key of a {type(self.value).__name__} keyed by tensors",
                              "a defaultdict would insert a new item, a dict would raise")
            # the graph break runs this natively; once the key is there, the frame compiles again
            exc.reason.guards.append(("constant", HasKey(self.source, real), False))
            raise exc
        return wrap(tx, found, ItemOfKey(self.source, real))

    def _insert_missing(self, tx: InstructionTranslator, key: Variable, real: Any) -> Variable:
        """``defaultdict.__missing__``: the factory's result becomes the item, in the trace and (after the
        graph) in the real dict; the frame is only reused while the key is still absent."""
        factory = wrap(tx, self.value.default_factory, Attr(self.source, "default_factory"))
        item = factory.call(tx, [], {})
        tx.output.guards.add("constant", HasKey(self.source, real), False)
        self.added[id(real)] = (key, item)
        tx.output.side_effects.deferred_call(dict.__setitem__, [self, key, item], {}, None)
        return item

    def contains(self, tx: InstructionTranslator, key: Variable) -> Variable:
        """``key in d``: the answer is guarded through the item's source (it fails when it changes)."""
        real = self._key(tx, key)
        if id(real) in self.added:
            return ConstantVariable(True)
        present = dict.get(self.value, real, _MISSING) is not _MISSING
        tx.output.guards.add("constant", HasKey(self.source, real), present)
        return ConstantVariable(present)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        if name == "__getitem__" and len(args) == 1 and not kwargs:
            return self.getitem(tx, args[0])
        if name == "__contains__" and len(args) == 1 and not kwargs:
            return self.contains(tx, args[0])
        if name in _VIEWS:
            return self._as_dict(tx).call_method(tx, name, args, kwargs)
        if name == "get" and 1 <= len(args) <= 2 and not kwargs:
            if not self.contains(tx, args[0]).as_python_constant():
                return args[1] if len(args) == 2 else ConstantVariable(None)
            return self.getitem(tx, args[0])
        if name == "__len__" and not args and not kwargs:
            tx.output.guards.add("length", self.source, self.value)
            return ConstantVariable(len(self.value) + len(self.added))
        raise Unsupported(f"{type(self.value).__name__}.{name}() on a dict keyed by tensors", "not modelled")

    def describe(self) -> str:
        return f"{type(self.value).__name__} keyed by tensors"


#: The methods read from the whole dict (:meth:`TensorKeyedDictVariable._as_dict`).
_VIEWS = frozenset({"keys", "values", "items", "__iter__"})


def load_item_of_key(cg: Any, source: ItemOfKey) -> None:
    """Rebuilt bytecode reads the item as the guard does: ``source.read_from(<base>)`` (the code generator's
    loader for :class:`ItemOfKey` sources)."""
    cg.call_const(source.read_from, 1, lambda: cg.load_source(source.base))


"""Sources described as JSON-compatible data and rebuilt in another process.

A source is a dict ``{"s": class name, ...its fields}``, a chained source holding its base's dict under
``"base"``. Every source class of loom_guards has an entry in ``_ENCODERS`` / ``_DECODERS``; a source class
defined elsewhere (the translator's own) has none and is refused: how it reads its value is not ours to
describe. A ``Const`` holds an object, described by :mod:`loom_guards.portable_objects` (by name), or as
the namespace it is (the frame's globals ``G`` are a module's globals dict, ``B`` the builtins dict).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .generator_sources import GeneratorFunction
from .object_state import BuiltinContents, DictValueAt, IteratorState, WeakReferent
from .portable_objects import describe_namespace_or_global
from .portable_values import Memo, NotPortable, describe_value, rebuild_value
from .query_sources import Called, TensorMeta
from .sources import (
    Attr,
    Builtin,
    Closure,
    Const,
    DictAttr,
    Global,
    Item,
    Local,
    ModuleBuffer,
    ModuleParam,
    Source,
    Submodule,
    TensorSize,
    TypeOf,
)

__all__ = ["describe_source", "rebuild_source"]

#: source class -> its fields as JSON (its base is added by ``describe_source``)
_ENCODERS: dict[type, Callable[[Any, Memo], dict]] = {}
#: class name -> (the class, how it is made from (base or None, the record, memo))
_DECODERS: dict[str, tuple[type, Callable[[Source | None, dict, Memo], Source]]] = {}


def _str_field(record: dict, field: str) -> str:
    value = record.get(field)
    if type(value) is not str:
        raise NotPortable(f"malformed {record.get('s')} source: {field} is {value!r}")
    return value


def _list_field(record: dict, field: str) -> list:
    value = record.get(field)
    if type(value) is not list:
        raise NotPortable(f"malformed {record.get('s')} source: {field} is {value!r:.100}")
    return value


def _named(cls: type) -> None:
    """A root or chained source made from its base (if any) and a name."""
    chained = cls not in (Local, Global, Builtin, Closure)
    _ENCODERS[cls] = lambda src, memo: {"name": src.name}
    if chained:
        _DECODERS[cls.__name__] = (cls, lambda base, rec, memo: cls(base, _str_field(rec, "name")))
    else:
        _DECODERS[cls.__name__] = (cls, lambda base, rec, memo: cls(_str_field(rec, "name")))


def _bare(cls: type) -> None:
    """A chained source made from its base alone."""
    _ENCODERS[cls] = lambda src, memo: {}
    _DECODERS[cls.__name__] = (cls, lambda base, rec, memo: cls(base))


for _cls in (Local, Global, Builtin, Closure, Attr, DictAttr, Submodule, ModuleParam, ModuleBuffer):
    _named(_cls)
for _cls in (TypeOf, WeakReferent, BuiltinContents, GeneratorFunction):
    _bare(_cls)

_ENCODERS[Item] = lambda src, memo: {"key": describe_value(src.key, memo=memo)}
_DECODERS["Item"] = (Item, lambda base, rec, memo: Item(base, rebuild_value(rec.get("key"), memo)))
_ENCODERS[TensorSize] = lambda src, memo: {"dim": src.dim}
_DECODERS["TensorSize"] = (TensorSize, lambda base, rec, memo: TensorSize(base, rec.get("dim")))
_ENCODERS[DictValueAt] = lambda src, memo: {"index": src.index}
_DECODERS["DictValueAt"] = (DictValueAt, lambda base, rec, memo: DictValueAt(base, rec.get("index")))
_ENCODERS[TensorMeta] = lambda src, memo: {"field": src.field}
_DECODERS["TensorMeta"] = (TensorMeta, lambda base, rec, memo: TensorMeta(base, _str_field(rec, "field")))
_ENCODERS[Called] = lambda src, memo: {"args": [describe_value(a, memo=memo) for a in src.args],
                                        "kwargs": [[k, describe_value(v, memo=memo)] for k, v in src.kwargs]}


def _decode_called(base: Source | None, rec: dict, memo: Memo) -> Called:
    args = tuple(rebuild_value(a, memo) for a in _list_field(rec, "args"))
    pairs = _list_field(rec, "kwargs")
    if not all(type(p) is list and len(p) == 2 for p in pairs):
        raise NotPortable(f"malformed Called source: kwargs is {pairs!r:.100}")
    return Called(base, args, tuple((k, rebuild_value(v, memo)) for k, v in pairs))


_DECODERS["Called"] = (Called, _decode_called)
_ENCODERS[IteratorState] = lambda src, memo: {"part": src.part}
_DECODERS["IteratorState"] = (IteratorState, lambda base, rec, memo: IteratorState(base, _str_field(rec, "part")))


def _encode_const(src: Const, memo: Memo) -> dict:
    value = src.value
    try:
        desc = describe_value(value, identity=True, memo=memo)
    except NotPortable as exc:
        desc = describe_namespace_or_global(value, src.name)
        if desc is None:
            raise NotPortable(
                f"constant {src}: {exc}; nor is it the builtins dict, a module's globals dict or the global "
                f"its label names"
            ) from None
    return {"value": desc, "label": src.name}


def _decode_const(base: Source | None, rec: dict, memo: Memo) -> Const:
    label = rec.get("label")
    if label is not None and type(label) is not str:
        raise NotPortable(f"malformed Const source label {label!r}")
    return Const(rebuild_value(rec.get("value"), memo), label)


_ENCODERS[Const] = _encode_const
_DECODERS["Const"] = (Const, _decode_const)


_ROOTS = (Local, Global, Builtin, Closure, Const)


def describe_source(source: Source, memo: Memo) -> dict:
    """The record of ``source``; raises :class:`NotPortable` for a source class without one."""
    encode = _ENCODERS.get(type(source))
    if encode is None:
        raise NotPortable(
            f"source {source} is a {type(source).__module__}.{type(source).__qualname__}, which has no portable form"
        )
    record = {"s": type(source).__name__, **encode(source, memo)}
    base = source.base
    if base is not None:
        record["base"] = describe_source(base, memo)
    return record


def rebuild_source(record: Any, memo: Memo) -> Source:
    """The source a record stands for; raises :class:`NotPortable`."""
    if not isinstance(record, dict) or not isinstance(record.get("s"), str):
        raise NotPortable(f"malformed source record {record!r:.100}")
    entry = _DECODERS.get(record["s"])
    if entry is None:
        raise NotPortable(f"unknown source kind {record['s']!r}")
    cls, decode = entry
    if ("base" in record) == (cls in _ROOTS):
        raise NotPortable(f"malformed {cls.__name__} source record: a base where there is none, or none where there is")
    base = rebuild_source(record["base"], memo) if "base" in record else None
    try:
        return decode(base, record, memo)
    except NotPortable:
        raise
    except (TypeError, ValueError) as exc:  # the constructors' own checks of a malformed record
        raise NotPortable(f"cannot rebuild a {cls.__name__} source: {exc}") from None

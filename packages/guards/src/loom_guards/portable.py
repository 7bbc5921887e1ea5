"""Guards as JSON-compatible records, rebuilt exactly in another process (for a disk cache of whole
translations), or refused.

``to_records(guards)`` describes each guard as a dict ``{"format": FORMAT, "kind": guard kind, ...}``
with its sources (:mod:`loom_guards.portable_sources`) and the values it holds
(:mod:`loom_guards.portable_values`, :mod:`loom_guards.portable_objects`); ``from_records(records)``
makes the guards again. A guard rebuilt in another process checks exactly what the original checked
there, or the rebuild is refused: a refusal costs one translation, a wrong guard a wrong answer. So every
guard kind has an entry in ``_ENCODERS`` / ``_DECODERS`` or is refused (a kind defined elsewhere, a guard
whose compared object died), and every value is described exactly or refused.
"""

from __future__ import annotations

import re
import types
from collections.abc import Callable
from typing import Any

import torch

from .kinds import (
    ConstantMatch,
    DictContains,
    DictKeys,
    GlobalState,
    Guard,
    Identity,
    IsNone,
    Length,
    NoAliasing,
    NotNone,
    Relation,
    SameObject,
    SetMembers,
    StorageOverlap,
    TensorMatch,
    TypeMatch,
    holds_set,
    insertion_order,
)
from .portable_objects import code_digest, unnamed_function_facts
from .portable_sources import describe_source, rebuild_source
from .portable_values import Memo, NotPortable, describe_value, rebuild_value

__all__ = ["FORMAT", "from_records", "to_records"]

#: The record format; ``from_records`` refuses any other (a record written by another loom_guards).
FORMAT = 1

#: guard class -> its fields as JSON (the kind and format are added by ``to_records``)
_ENCODERS: dict[type, Callable[[Any, Memo], dict]] = {}
#: record kind -> how the guard is made from the record
_DECODERS: dict[str, Callable[[dict, Memo], Guard]] = {}


def _kind(cls: type, encode: Callable[[Any, Memo], dict], decode: Callable[[dict, Memo], Guard]) -> None:
    _ENCODERS[cls] = encode
    _DECODERS[cls.kind] = decode


def _src(record: dict, memo: Memo, field: str = "source") -> Any:
    return rebuild_source(record.get(field), memo)


def _sources(record: dict, memo: Memo) -> list:
    sources = record.get("sources")
    if not isinstance(sources, list):
        raise NotPortable(f"malformed {record.get('kind')} record: sources is {sources!r:.80}")
    return [rebuild_source(s, memo) for s in sources]


def _int(record: dict, field: str) -> int:
    value = record.get(field)
    if type(value) is not int:
        raise NotPortable(f"malformed {record.get('kind')} record: {field} is {value!r:.80}")
    return value


# -- one source and nothing else, or one value held by value or by name ----------------------------------

_kind(IsNone, lambda g, m: {"source": describe_source(g.source, m)}, lambda r, m: IsNone(_src(r, m)))
_kind(NotNone, lambda g, m: {"source": describe_source(g.source, m)}, lambda r, m: NotNone(_src(r, m)))
_kind(
    Length,
    lambda g, m: {"source": describe_source(g.source, m), "n": g.n},
    lambda r, m: Length(_src(r, m), _int(r, "n")),
)


def _alive(obj: Any) -> Any:
    if obj is None:
        raise NotPortable("the object it compares against died")
    return obj


_kind(
    TypeMatch,
    lambda g, m: {
        "source": describe_source(g.source, m),
        "type": describe_value(_alive(g.expected_type), identity=True, memo=m),
    },
    lambda r, m: _checked(TypeMatch(_src(r, m), rebuild_value(r.get("type"), m)), TypeMatch),
)
def _encode_identity(guard: Identity, memo: Memo) -> dict:
    obj = _alive(guard.obj)
    if isinstance(obj, types.CodeType):  # an inlined function's ``__code__``: no name reaches a code object
        return {"source": describe_source(guard.source, memo), "code": code_digest(obj)}
    try:
        return {"source": describe_source(guard.source, memo), "obj": describe_value(obj, identity=True, memo=memo)}
    except NotPortable:
        if type(obj) is not types.FunctionType:
            raise
    # A function no name reaches (what a decorator wraps, read from its closure): kept by what it is.
    return {"source": describe_source(guard.source, memo), "function": unnamed_function_facts(obj, memo)}


def _decode_identity(record: dict, memo: Memo) -> Identity:
    source = _src(record, memo)
    if "code" in record:
        return Identity(source, _from_frame(source, memo, types.CodeType, lambda code: code_digest(code) == record["code"]))
    if "function" in record:
        return Identity(source, _from_frame(
            source, memo, types.FunctionType, lambda fn: unnamed_function_facts(fn, memo) == record["function"]))
    return _checked(Identity(source, rebuild_value(record.get("obj"), memo)), Identity)


def _from_frame(source: Any, memo: Memo, kind: type, same: Callable[[Any], bool]) -> Any:
    """The object ``source`` reaches on the frame being served, when it is of ``kind`` and ``same`` as the
    recorded one: the identity guard then holds on this frame and, on later calls, fails when that object is
    replaced, as the original guard did."""
    if memo.frame is None:
        raise NotPortable(f"the {kind.__name__} at {source} is read from the frame, and none was given")
    try:
        found = source.fetch(memo.frame)
    except Exception as exc:
        raise NotPortable(f"{source} cannot be read on this frame ({type(exc).__name__})") from None
    if type(found) is not kind or not same(found):
        raise NotPortable(f"{source} is other {'code' if kind is types.CodeType else 'function'} here than when recorded")
    return found


_kind(Identity, _encode_identity, _decode_identity)
def _encode_constant(guard: ConstantMatch, memo: Memo) -> dict:
    record = {"source": describe_source(guard.source, memo), "value": describe_value(guard.value, memo=memo)}
    if holds_set(guard.value):  # a described set is sorted: the order the guard matches goes beside it
        record["order"] = describe_value(guard.in_order, memo=memo)
    return record


def _decode_constant(record: dict, memo: Memo) -> Guard:
    value = rebuild_value(record.get("value"), memo)
    if type(value) in (set, frozenset) and not any(isinstance(m, (tuple, set, frozenset)) for m in value):
        # a set of scalars is made again by adding its members in an order that gives the recorded iteration
        # order (a set with another history may still iterate otherwise: checked below)
        recorded = list(rebuild_value(record.get("order"), memo))
        if len(recorded) != len(value) or set(recorded) != value:
            raise NotPortable("malformed const record: its order holds other members than its value")
        value = type(value)(insertion_order(recorded) or recorded)
    guard = _checked(ConstantMatch(_src(record, memo), value), ConstantMatch)
    if holds_set(guard.value) and describe_value(guard.in_order) != record.get("order"):
        # a set rebuilt here iterates in another order than the one the translation relied on (string hashes
        # differ between processes; a set's order follows its history)
        raise NotPortable("a set in the constant iterates in another order in this process")
    return guard


_kind(ConstantMatch, _encode_constant, _decode_constant)
_kind(
    DictContains,
    lambda g, m: {"source": describe_source(g.source, m), "key": describe_value(g.key, memo=m), "present": g.present},
    lambda r, m: DictContains(_src(r, m), rebuild_value(r.get("key"), m), r.get("present")),
)


def _describe_key(key: Any, memo: Memo) -> dict:
    # A key compared by identity (a class, a function) is described by name, a constant by value.
    try:
        return describe_value(key, memo=memo)
    except NotPortable:
        return describe_value(key, identity=True, memo=memo)


def _decode_keys(record: dict, memo: Memo) -> DictKeys:
    keys = record.get("keys")
    if not isinstance(keys, list):
        raise NotPortable(f"malformed dict_keys record: keys is {keys!r:.80}")
    return DictKeys(_src(record, memo), [rebuild_value(k, memo) for k in keys])


_kind(
    DictKeys,
    lambda g, m: {"source": describe_source(g.source, m), "keys": [_describe_key(k, m) for k in g.keys]},
    _decode_keys,
)


def _decode_members(record: dict, memo: Memo) -> SetMembers:
    members = record.get("members")
    if not isinstance(members, list):
        raise NotPortable(f"malformed set_members record: members is {members!r:.80}")
    return SetMembers(_src(record, memo), [rebuild_value(k, memo) for k in members])


def _encode_members(guard: SetMembers, memo: Memo) -> dict:
    # Members as dict keys are: constants by value, objects compared by identity by name (an instance no
    # name reaches is refused, as for Identity).
    if not guard.alive:
        raise NotPortable("a member it compares by identity died")
    return {"source": describe_source(guard.source, memo), "members": [_describe_key(k, memo) for k in guard.members]}


_kind(SetMembers, _encode_members, _decode_members)


def _checked(guard: Guard, cls: type) -> Guard:
    # TypeMatch(s, NoneType) and ConstantMatch(s, None) are made as IsNone: a record of one of these kinds
    # never holds None, so another class means a malformed record.
    if type(guard) is not cls:
        raise NotPortable(f"malformed {cls.kind} record: it makes a {type(guard).__name__}")
    return guard


# -- several sources --------------------------------------------------------------------------------------

_kind(
    NoAliasing,
    lambda g, m: {"sources": [describe_source(s, m) for s in g.sources]},
    lambda r, m: NoAliasing(_sources(r, m)),
)


def _decode_same_object(record: dict, memo: Memo) -> SameObject:
    sources = _sources(record, memo)
    if len(sources) != 2:
        raise NotPortable(f"malformed same_object record: {len(sources)} sources")
    return SameObject(*sources)


_kind(SameObject, lambda g, m: {"sources": [describe_source(s, m) for s in g.sources]}, _decode_same_object)


def _decode_overlap(record: dict, memo: Memo) -> StorageOverlap:
    pairs = record.get("overlapping")
    if not isinstance(pairs, list) or any(
        not isinstance(p, list) or len(p) != 2 or any(type(i) is not int for i in p) for p in pairs
    ):
        raise NotPortable(f"malformed storage_overlap record: overlapping is {pairs!r:.80}")
    return StorageOverlap(_sources(record, memo), [tuple(p) for p in pairs])


_kind(
    StorageOverlap,
    lambda g, m: {"sources": [describe_source(s, m) for s in g.sources], "overlapping": sorted(map(list, g.overlapping))},
    _decode_overlap,
)


# An int relation over sources is exact: its text is parsed and checked again, its symbols are sources.
def _decode_relation(record: dict, memo: Memo) -> Relation:
    symbols = record.get("symbols")
    if not isinstance(symbols, dict) or type(record.get("expr")) is not str:
        raise NotPortable("malformed relation record")
    return Relation(record["expr"], {name: rebuild_source(s, memo) for name, s in symbols.items()})


_kind(
    Relation,
    lambda g, m: {"expr": g.expr, "symbols": {n: describe_source(g.symbols[n], m) for n in g.names}},
    _decode_relation,
)


# -- tensors and global state ---------------------------------------------------------------------------

_KEYSET_TEXT = re.compile(r"DispatchKeySet\((.*)\)\Z")


def _dispatch_key_names(guard: TensorMatch) -> list[str]:
    """The dispatch keys by name, the raw bits being torch's own layout (another torch may number them
    otherwise); checked to give back the very bits."""
    match = _KEYSET_TEXT.match(guard.dispatch_keys_text)
    if match is None:
        raise NotPortable(f"dispatch keys {guard.dispatch_keys_text!r} are not a DispatchKeySet text")
    names = [n.strip() for n in match.group(1).split(",") if n.strip()]
    if _raw_keys(names) != guard.dispatch_keys:
        raise NotPortable(f"dispatch keys {guard.dispatch_keys_text} do not round-trip by name")
    return names


def _raw_keys(names: list[str]) -> int:
    keys = torch._C.DispatchKeySet.from_raw_repr(0)
    for name in names:
        key = torch._C.DispatchKey.__members__.get(name) if isinstance(name, str) else None
        if key is None:
            raise NotPortable(f"dispatch key {name!r} does not exist in this torch")
        keys = keys | torch._C.DispatchKeySet(key)
    return int(keys.raw_repr())


def _dims(values: Any) -> list | None:
    return None if values is None else list(values)


def _encode_tensor(guard: TensorMatch, memo: Memo) -> dict:
    return {
        "source": describe_source(guard.source, memo),
        "type": describe_value(_alive(guard.tensor_type), identity=True, memo=memo),
        "dtype": describe_value(guard.dtype, memo=memo),
        "device": describe_value(guard.device, memo=memo),
        "requires_grad": guard.requires_grad,
        "sizes": _dims(guard.sizes),
        "strides": _dims(guard.strides),
        "dispatch_keys": _dispatch_key_names(guard),
    }


def _decode_tensor(record: dict, memo: Memo) -> TensorMatch:
    names = record.get("dispatch_keys")
    sizes, strides = record.get("sizes"), record.get("strides")
    if not isinstance(names, list) or not isinstance(sizes, list) or not (strides is None or isinstance(strides, list)):
        raise NotPortable("malformed tensor record: dispatch_keys, sizes or strides")
    dtype, device = rebuild_value(record.get("dtype"), memo), rebuild_value(record.get("device"), memo)
    return TensorMatch.from_fields(
        _src(record, memo),
        tensor_type=rebuild_value(record.get("type"), memo),
        dtype=dtype,
        device=device,
        requires_grad=record.get("requires_grad"),
        sizes=sizes,
        strides=strides,
        dispatch_keys=_raw_keys(names),
        dispatch_keys_text=f"DispatchKeySet({', '.join(names)})",
    )


_kind(TensorMatch, _encode_tensor, _decode_tensor)


def _decode_global_state(record: dict, memo: Memo) -> GlobalState:
    values = record.get("values")
    if not isinstance(values, dict) or not values:
        raise NotPortable("malformed global_state record: values")
    # GlobalState validates each field: one this torch does not have is refused (ValueError)
    return GlobalState({name: rebuild_value(desc, memo) for name, desc in values.items()})


_kind(
    GlobalState,
    lambda g, m: {"values": {name: describe_value(value, memo=m) for name, value in g.values.items()}},
    _decode_global_state,
)


# -- the API ----------------------------------------------------------------------------------------------


def to_records(guards: list[Guard]) -> tuple[list[dict] | None, str | None]:
    """JSON-compatible records of ``guards`` (json.dumps works on them), or (None, why) naming the first
    guard, source or value that cannot be described so that another process rebuilds it exactly."""
    memo = Memo()
    records = []
    for index, guard in enumerate(guards):
        encode = _ENCODERS.get(type(guard))
        if encode is None:
            cls = type(guard)
            return None, f"guard {index} ({_text(guard)}): kind {cls.__module__}.{cls.__qualname__} has no portable form"
        try:
            fields = encode(guard, memo)
        except NotPortable as exc:
            return None, f"guard {index} ({_text(guard)}): {exc}"
        except Exception as exc:  # an object whose __module__ or __qualname__ raises, say: refused, not guessed
            return None, f"guard {index} ({_text(guard)}): {type(exc).__name__}: {exc}"
        records.append({"format": FORMAT, "kind": type(guard).kind, **fields})
    return records, None


def from_records(records: list[dict], frame: Any = None) -> tuple[list[Guard] | None, str | None]:
    """The guards again, in this process; (None, why) when one cannot be rebuilt here (an object named by
    ``module:qualname`` that does not import, or is another object than when recorded, a record of an
    unknown kind or format).

    ``frame`` (a frame, or what ``Source.fetch`` reads: a mapping of locals) is the frame the guards are
    rebuilt for: an identity guard on a code object no name reaches (an inlined function's ``__code__``)
    takes the code object the frame reaches, when its digest is the recorded one; without a frame such a
    record is refused."""
    if not isinstance(records, list):
        return None, f"records must be a list, got {type(records).__name__}"
    memo = Memo(frame)
    guards = []
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            return None, f"record {index} is a {type(record).__name__}, not a dict"
        if record.get("format") != FORMAT:
            return None, f"record {index} has format {record.get('format')!r}; this loom_guards reads format {FORMAT}"
        decode = _DECODERS.get(record.get("kind"))  # type: ignore[arg-type]
        if decode is None:
            return None, f"record {index} is of unknown kind {record.get('kind')!r}"
        try:
            guards.append(decode(record, memo))
        except NotPortable as exc:
            return None, f"record {index} ({record['kind']}): {exc}"
        except Exception as exc:  # a guard constructor's own checks of a malformed record
            return None, f"record {index} ({record['kind']}): malformed: {type(exc).__name__}: {exc}"
    return guards, None


def _text(guard: Any) -> str:
    try:
        text = guard.describe()
    except Exception:
        text = f"a {type(guard).__name__}"
    return text if len(text) <= 100 else text[:97] + "..."

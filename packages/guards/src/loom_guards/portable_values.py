"""Values held by guards, described as JSON-compatible data and rebuilt in another process.

A description is a dict with a tag ``"t"``. Constants are described by value and exact type (``True`` is
not ``1``, ``-0.0`` is not ``0.0``, floats go through ``float.hex`` so that nan, inf and every bit of the
mantissa survive); torch's named singletons (dtypes, layouts, memory formats) and enum members by name.
Objects that only a name can carry to another process (modules, classes, functions) are described by
:mod:`loom_guards.portable_objects`, which registers its encoders in the tables here.

Two modes: ``identity=False`` is for values compared by equality (``ConstantMatch``, dict keys, a
function's defaults); ``identity=True`` is for objects compared with ``is`` (``Identity``): only what
is one object per process under its name (a singleton, a module, a class, a function) qualifies, as a
rebuilt ``1000`` or ``(1, 2)`` is another object than the one the guard compared against.

Anything without an encoder is refused with :class:`NotPortable`, never guessed.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from typing import Any

import torch

__all__ = ["NotPortable", "Registry", "describe_value", "rebuild_value", "register"]


class NotPortable(Exception):
    """A value, source or guard that cannot be described so that another process rebuilds it exactly
    (when recording), or that cannot be rebuilt here (when rebuilding). The message says which and why."""


class Memo:
    """Per-call caches: a real model's guards name the same few functions hundreds of times."""

    __slots__ = ("depth", "described", "frame", "functions", "resolved")

    def __init__(self, frame: Any = None) -> None:
        self.described: dict[int, tuple[Any, dict]] = {}  # id(obj) -> (obj kept alive, description)
        self.resolved: dict[str, Any] = {}  # description text -> rebuilt object
        self.depth = 0
        #: The functions whose facts are being described, outermost first: a closure cell holding one of
        #: them (a wrapper that calls itself through its enclosing scope) is described as a reference to it.
        self.functions: list[Any] = []
        #: The frame the rebuilt guards are for (``from_records(..., frame=)``): what objects no name reaches
        #: are read from.
        self.frame = frame


#: A description encoder: (value, identity mode, memo) -> description dict.
Encoder = Callable[[Any, bool, Memo], dict]
#: A description decoder: (description, memo) -> the value.
Decoder = Callable[[dict, Memo], Any]


class Registry:
    """The encoder for each exact type, the decoder for each tag, and which tags are one object per
    process (allowed where identity is compared). Filled by the modules that know each kind."""

    def __init__(self) -> None:
        self.by_type: dict[type, Encoder] = {}
        self.by_tag: dict[str, Decoder] = {}
        self.singleton_tags: set[str] = set()
        #: encoders tried in order for types that only ``isinstance`` recognises (classes with metaclasses,
        #: enum members): (base type, encoder)
        self.by_base: list[tuple[type, Encoder]] = []


REGISTRY = Registry()


def register(
    tag: str,
    decoder: Decoder,
    *,
    types: tuple[type, ...] = (),
    bases: tuple[type, ...] = (),
    encoder: Encoder | None = None,
    singleton: bool = False,
) -> None:
    """Register how values of exact ``types`` (or, after them, instances of ``bases``) are described, and
    how descriptions tagged ``tag`` are rebuilt. ``singleton``: a rebuilt value is the one object of its
    name in the process (so ``is`` means the same there)."""
    if encoder is not None:
        for tp in types:
            REGISTRY.by_type[tp] = encoder
        for base in bases:
            REGISTRY.by_base.append((base, encoder))
    REGISTRY.by_tag[tag] = decoder
    if singleton:
        REGISTRY.singleton_tags.add(tag)


_MAX_DEPTH = 50  # a tuple nested deeper, or a function whose defaults name functions this deep: refused


def describe_value(value: Any, *, identity: bool = False, memo: Memo | None = None) -> dict:
    """The description of ``value``; raises :class:`NotPortable` saying why there is none."""
    memo = memo if memo is not None else Memo()
    if memo.depth > _MAX_DEPTH:
        raise NotPortable(f"a value nested more than {_MAX_DEPTH} deep")
    encoder = REGISTRY.by_type.get(type(value))
    if encoder is None:
        encoder = next((enc for base, enc in REGISTRY.by_base if isinstance(value, base)), None)
    if encoder is None:
        raise NotPortable(f"{_what(value)} has no portable description (an instance of {_type_text(type(value))})")
    memo.depth += 1
    try:
        desc = encoder(value, identity, memo)
    finally:
        memo.depth -= 1
    if identity and desc["t"] not in REGISTRY.singleton_tags:
        raise NotPortable(
            f"{_what(value)} is compared by identity, and a value rebuilt in another process is another "
            f"object (only modules, classes, functions and named singletons keep their identity)"
        )
    return desc


def rebuild_value(desc: Any, memo: Memo | None = None) -> Any:
    """The value a description stands for, in this process; raises :class:`NotPortable`."""
    memo = memo if memo is not None else Memo()
    if not isinstance(desc, dict) or not isinstance(desc.get("t"), str):
        raise NotPortable(f"malformed value description {_short(desc)}")
    decoder = REGISTRY.by_tag.get(desc["t"])
    if decoder is None:
        raise NotPortable(f"unknown value tag {desc['t']!r}")
    try:
        return decoder(desc, memo)
    except NotPortable:
        raise
    except Exception as exc:  # a malformed field: a KeyError, a TypeError, a ValueError from a constructor
        raise NotPortable(f"cannot rebuild {_short(desc)}: {type(exc).__name__}: {exc}") from None


def _short(desc: Any) -> str:
    try:
        text = json.dumps(desc)
    except (TypeError, ValueError):
        text = repr(desc)
    return text if len(text) <= 120 else text[:117] + "..."


def _type_text(tp: type) -> str:
    module = getattr(tp, "__module__", None)
    qualname = getattr(tp, "__qualname__", tp.__name__)
    return qualname if module in (None, "builtins") else f"{module}.{qualname}"


def _what(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= 80 else text[:77] + "..."


# -- constants ------------------------------------------------------------------------------------------


def _plain(tag: str, tp: type) -> None:
    """A type whose values JSON carries as they are (str, int): by value and exact type."""
    register(tag, lambda d, memo: tp(d["v"]), types=(tp,), encoder=lambda v, ident, memo: {"t": tag, "v": v})


def _decode_bool(desc: dict, memo: Memo) -> bool:
    value = desc["v"]
    if type(value) is not bool:
        raise NotPortable(f"malformed bool {_short(desc)}")
    return value


def _decode_int(desc: dict, memo: Memo) -> int:
    value = desc["v"]
    if type(value) is not int:
        raise NotPortable(f"malformed int {_short(desc)}")
    return value


def _decode_str(desc: dict, memo: Memo) -> str:
    value = desc["v"]
    if type(value) is not str:
        raise NotPortable(f"malformed str {_short(desc)}")
    return value


register("none", lambda d, memo: None, types=(type(None),), encoder=lambda v, i, m: {"t": "none"}, singleton=True)
register("ellipsis", lambda d, memo: ..., types=(type(...),), encoder=lambda v, i, m: {"t": "ellipsis"}, singleton=True)
register("bool", _decode_bool, types=(bool,), encoder=lambda v, i, m: {"t": "bool", "v": v}, singleton=True)
register("int", _decode_int, types=(int,), encoder=lambda v, i, m: {"t": "int", "v": v})
register("str", _decode_str, types=(str,), encoder=lambda v, i, m: {"t": "str", "v": v})
# float.hex is exact (every bit of the mantissa, inf, -0.0); NaN payloads are not kept, and the guards
# compare every NaN equal to every other (``float_eq``).
register(
    "float",
    lambda d, memo: float.fromhex(d["v"]),
    types=(float,),
    encoder=lambda v, i, m: {"t": "float", "v": float.hex(v)},
)
register(
    "complex",
    lambda d, memo: complex(float.fromhex(d["re"]), float.fromhex(d["im"])),
    types=(complex,),
    encoder=lambda v, i, m: {"t": "complex", "re": float.hex(v.real), "im": float.hex(v.imag)},
)
register(
    "bytes",
    lambda d, memo: bytes.fromhex(d["v"]),
    types=(bytes,),
    encoder=lambda v, i, m: {"t": "bytes", "v": v.hex()},
)
register(
    "range",
    lambda d, memo: range(_decode_int({"v": d["start"]}, memo), _decode_int({"v": d["stop"]}, memo),
                          _decode_int({"v": d["step"]}, memo)),
    types=(range,),
    encoder=lambda v, i, m: {"t": "range", "start": v.start, "stop": v.stop, "step": v.step},
)


def _items(values: Any, memo: Memo) -> list[dict]:
    return [describe_value(item, memo=memo) for item in values]


def _canonical(items: list[dict]) -> list[dict]:
    # A frozenset's iteration order follows string hashes, which differ between processes: sorted, so that
    # one set has one description everywhere (function digests compare descriptions).
    return sorted(items, key=lambda d: json.dumps(d, sort_keys=True))


def _rebuilt_items(desc: dict, memo: Memo) -> list[Any]:
    items = desc["items"]
    if not isinstance(items, list):
        raise NotPortable(f"malformed {desc['t']} {_short(desc)}")
    return [rebuild_value(item, memo) for item in items]


register("tuple", lambda d, memo: tuple(_rebuilt_items(d, memo)), types=(tuple,),
         encoder=lambda v, i, m: {"t": "tuple", "items": _items(v, m)})
register("frozenset", lambda d, memo: frozenset(_rebuilt_items(d, memo)), types=(frozenset,),
         encoder=lambda v, i, m: {"t": "frozenset", "items": _canonical(_items(v, m))})
register("set", lambda d, memo: set(_rebuilt_items(d, memo)), types=(set,),
         encoder=lambda v, i, m: {"t": "set", "items": _canonical(_items(v, m))})


def _decode_size(desc: dict, memo: Memo) -> torch.Size:
    items = _rebuilt_items(desc, memo)
    if any(type(item) is not int for item in items):
        raise NotPortable(f"malformed torch.Size {_short(desc)}")
    return torch.Size(items)


register("size", _decode_size, types=(torch.Size,), encoder=lambda v, i, m: {"t": "size", "items": _items(v, m)})


# -- torch's named values -------------------------------------------------------------------------------

_TORCH_SINGLETON_TYPES = {"dtype": torch.dtype, "layout": torch.layout, "memory_format": torch.memory_format}


def _torch_singleton_encoder(tag: str) -> Encoder:
    def encode(value: Any, identity: bool, memo: Memo) -> dict:
        name = str(value).removeprefix("torch.")
        if getattr(torch, name, None) is not value:
            raise NotPortable(f"{tag} {value} is not torch.{name}")
        return {"t": tag, "v": name}

    return encode


def _torch_singleton_decoder(tag: str) -> Decoder:
    def decode(desc: dict, memo: Memo) -> Any:
        value = getattr(torch, _decode_str(desc, memo), None)
        if type(value) is not _TORCH_SINGLETON_TYPES[tag]:
            raise NotPortable(f"torch.{desc['v']} is not a {tag} in this torch")
        return value

    return decode


for _tag, _tp in _TORCH_SINGLETON_TYPES.items():
    register(_tag, _torch_singleton_decoder(_tag), types=(_tp,), encoder=_torch_singleton_encoder(_tag),
             singleton=True)


def _encode_device(value: torch.device, identity: bool, memo: Memo) -> dict:
    text = str(value)
    if torch.device(text) != value:
        raise NotPortable(f"device {value!r} does not round-trip through {text!r}")
    return {"t": "device", "v": text}


register("device", lambda d, memo: torch.device(_decode_str(d, memo)), types=(torch.device,),
         encoder=_encode_device)


# -- enum members and named tuples (their class by name: see portable_objects) ---------------------------


def _encode_enum(value: enum.Enum, identity: bool, memo: Memo) -> dict:
    cls = type(value)
    name = value._name_
    if not isinstance(name, str) or cls.__members__.get(name) is not value:
        raise NotPortable(f"enum member {_what(value)} is not {cls.__qualname__}.{name}")
    return {"t": "enum", "cls": describe_value(cls, identity=True, memo=memo), "name": name}


def _decode_enum(desc: dict, memo: Memo) -> enum.Enum:
    cls = rebuild_value(desc["cls"], memo)
    if not (isinstance(cls, type) and issubclass(cls, enum.Enum)):
        raise NotPortable(f"{_type_text(cls) if isinstance(cls, type) else _what(cls)} is not an enum here")
    member = cls.__members__.get(desc["name"])
    if member is None:
        raise NotPortable(f"enum {_type_text(cls)} has no member {desc['name']!r} here")
    return member


register("enum", _decode_enum, bases=(enum.Enum,), encoder=_encode_enum, singleton=True)


def _encode_named_tuple(value: tuple, identity: bool, memo: Memo) -> dict:
    cls = type(value)
    if not hasattr(cls, "_fields"):
        raise NotPortable(f"{_what(value)} is an instance of tuple subclass {_type_text(cls)}, not a named tuple")
    return {"t": "namedtuple", "cls": describe_value(cls, identity=True, memo=memo), "items": _items(value, memo)}


def _decode_named_tuple(desc: dict, memo: Memo) -> tuple:
    cls = rebuild_value(desc["cls"], memo)
    if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
        raise NotPortable(f"{_short(desc['cls'])} is not a named tuple class here")
    items = _rebuilt_items(desc, memo)
    if len(items) != len(cls._fields):
        raise NotPortable(f"named tuple {_type_text(cls)} has {len(cls._fields)} fields here, {len(items)} recorded")
    return tuple.__new__(cls, items)  # the fields as recorded, without a __new__ the class may override


# after the exact types: a plain tuple and torch.Size never reach it
register("namedtuple", _decode_named_tuple, bases=(tuple,), encoder=_encode_named_tuple)

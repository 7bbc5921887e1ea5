"""Classes the compiled code made on a call (a class made on each call, ``opcodes.class_per_call``), matched by
the class statement that made them rather than by identity.

``bytecode_helpers.class_of_this_call`` notes each class it makes here (class → the class body's code). A frame
that meets such a class (or an instance of it) after a graph break would otherwise guard that very class: the
next call makes another, the guard fails, and the code after the break compiles again on every call. The
guard collector (``GuardCollector.add``) turns a request on such a class ("type": an instance's class,
"identity": the class) into guards on what the trace can rely on of it: made by the same class body, with the
same metaclass, bases and namespace (its functions by code, its constants by value, a decorator's dunder entries
by type; anything else keeps the identity guard). The methods' cells are not pinned either: a function of such a
class is guarded by its code (``code_matched_functions``), and its cells by holding what the frame's cells hold.
"""

from __future__ import annotations

import types
import weakref
from typing import Any

from loom_guards import Attr, Called, Item, TypeOf

from .made_once import immutable

#: class made by the compiled code on a call → the code of the class body that made it
MADE: weakref.WeakKeyDictionary[type, types.CodeType | None] = weakref.WeakKeyDictionary()
#: code of a function a decorator generated for such a class (dataclass's ``__init__``): new on each call
GENERATED: weakref.WeakSet[types.CodeType] = weakref.WeakSet()
#: the functions of such classes' namespaces (a method, a static or class method's function); a set, not a map
#: to the class: the class holds the function, so a value holding the class would keep both alive
MADE_PARTS: weakref.WeakSet[types.FunctionType] = weakref.WeakSet()

_CONSTANT = (int, float, complex, str, bytes, bool, type(None))
_WRAPPED = {staticmethod: "__func__", classmethod: "__func__"}


def note_made(made: type, body: types.CodeType | None) -> type:
    """Note ``made``, a class the compiled code made from class body ``body`` (None: by ``type(...)``), and hand
    it back."""
    MADE[made] = body
    for value in made.__dict__.values():
        value = getattr(value, _WRAPPED[type(value)]) if type(value) in _WRAPPED else value
        if type(value) is types.FunctionType and str(value.__qualname__).startswith(f"{made.__qualname__}."):
            MADE_PARTS.add(value)  # (its own: not total_ordering's helpers, shared by every class)
            if body is None or value.__code__ not in body.co_consts:
                GENERATED.add(value.__code__)
    return made


def made_part(value: Any) -> bool:
    """Whether ``value`` is a function of a class the compiled code made on a call."""
    return type(value) is types.FunctionType and value in MADE_PARTS


def made_per_call(value: Any) -> bool:
    """Whether ``value`` is a class the compiled code made on a call."""
    if not isinstance(value, type) or type(value).__hash__ is not type.__hash__:
        return False  # (a metaclass hashing its classes its own way is not asked: no user code runs here)
    return value in MADE


def class_match(source: Any, made: type) -> list[tuple[str, Any, Any]] | None:
    """The guard requests ``(kind, source, value)`` that hold for any class made like ``made`` (read through
    ``source``); None where its namespace holds what cannot be matched so (then it is guarded by identity)."""
    requests: list[tuple[str, Any, Any]] = [("type", source, made)]
    namespace = Attr(source, "__dict__")
    requests.append(("dict_keys", namespace, made.__dict__))
    for name, value in made.__dict__.items():
        entry = Item(namespace, name)
        inner = _WRAPPED.get(type(value))
        if inner is not None:
            requests.append(("type", entry, value))
            entry, value = Attr(entry, inner), getattr(value, inner)
        if type(value) is types.FunctionType:
            requests.append(("type", entry, value))
            requests.extend(_same_code(Attr(entry, "__code__"), value.__code__))
            requests.append(("constant", Attr(entry, "__defaults__"), value.__defaults__))
            requests.append(("constant", Attr(entry, "__kwdefaults__"), None) if value.__kwdefaults__ is None
                            else ("identity", Attr(entry, "__kwdefaults__"), value.__kwdefaults__))
            requests.append(("dict_keys", Attr(entry, "__dict__"), value.__dict__))
        elif type(value) in _CONSTANT or immutable(value):
            requests.append(("constant", entry, value))
        elif name in ("__dict__", "__weakref__"):
            requests.append(("type", entry, value))  # the descriptors each class makes for its instances
        elif made_per_call(value):
            more = class_match(entry, value)
            if more is None:
                return None
            requests.extend(more)
        elif name.startswith("__") and name.endswith("__"):
            requests.append(("type", entry, value))  # a decorator's (``__dataclass_fields__``): made alike each call
        else:
            return None
    requests.append(("length", Attr(source, "__bases__"), made.__bases__))
    for i, base in enumerate(made.__bases__):
        entry = Item(Attr(source, "__bases__"), i)
        if made_per_call(base):
            more = class_match(entry, base)
            if more is None:
                return None
            requests.extend(more)
        else:
            requests.append(("identity", entry, base))
    return requests


def _same_code(source: Any, code: types.CodeType) -> list[tuple[str, Any, Any]]:
    """``source`` is ``code`` (a method's, a constant of the class body), or equal to it where a decorator
    generated it anew for each call's class (``code == other``: the same bytecode, constants and names)."""
    if code in GENERATED:
        return [("constant", Called(Attr(source, "__eq__"), (code,)), True)]
    return [("identity", source, code)]


def matched_instead(kind: str, source: Any, value: Any) -> list[tuple[str, Any, Any]] | None:
    """What to guard instead of ``kind`` on ``source``, where it would pin a class made on a call (or the code of
    a function a decorator generated for one)."""
    if kind == "identity" and type(value) is types.CodeType and value in GENERATED:
        return _same_code(source, value)
    if kind == "type" and made_per_call(type(value)):
        return class_match(TypeOf(source), type(value))
    if kind == "identity" and made_per_call(value):
        return class_match(source, value)
    return None

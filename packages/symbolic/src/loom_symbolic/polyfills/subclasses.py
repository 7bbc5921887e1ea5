"""Python subclasses of a C class that is replaced whole (``class Ring(collections.deque)``).

The trace models an instance of such a subclass as an instance of a *shadow* class: the subclass's own
classes (its Python part of the MRO) rebuilt on top of the C class's Python stand-in instead of the C
class. Attribute lookup on the shadow finds the subclass's overrides first and the stand-in's methods
where the C class's would be found, exactly as on the real class; ``type()`` and ``isinstance`` still see
the real subclass (the shadow is registered as standing for it), and an instance that outlives the trace
becomes a real one through the C class's rebuild function.

The shadow's namespaces are the subclass's own (same function objects, so ``super()``'s ``__class__``
cell is the real class and its lookup walks the real MRO, where the C class's methods are the stand-in's).
A class whose construction would run code (a metaclass, ``__init_subclass__``, ``__set_name__``) or whose
layout the stand-in cannot take (no ``__dict__``) gets no shadow: the caller breaks the graph.
"""

from __future__ import annotations

import types
from typing import Any

from .registry import _REBUILDERS, replacement_for

#: names a class statement puts in every class dict, and the layout entries the shadow gets anew
_LAYOUT = frozenset(("__dict__", "__weakref__", "__slots__", "__module__", "__qualname__", "__doc__"))
#: real subclass -> (the namespaces it was made from, its shadow); rebuilt when a namespace changed
_SHADOWS: dict[type, tuple[tuple[dict, ...], type]] = {}
_RETIRED: list[type] = []


def modelled_base(cls: type) -> type | None:
    """The C class replaced whole by a Python stand-in that ``cls`` derives from, if any."""
    return next((k for k in cls.__mro__[1:] if isinstance(replacement_for(k), type)), None)


def python_chain(cls: type, base: type) -> list[type]:
    """The classes of ``cls``'s MRO that derive from ``base`` (``base`` itself excluded), most derived first."""
    return [k for k in cls.__mro__ if k is not base and issubclass(k, base)]


def shadow_refusal(cls: type, base: type) -> str | None:
    """Why ``cls`` (a subclass of ``base``) gets no shadow, or None when it can have one."""
    if cls.__dictoffset__ == 0:
        return "its instances have no __dict__ (__slots__ without it)"
    if cls.__new__ is not base.__new__:
        return "it defines __new__"
    for klass in cls.__mro__:
        if klass is base or klass is object:
            continue
        if type(klass) is not type:
            return f"{klass.__qualname__} has the metaclass {type(klass).__qualname__}"
        if klass.__module__ == "builtins" or not klass.__flags__ & (1 << 9):
            return f"it also derives from the C class {klass.__qualname__}"
        if "__init_subclass__" in vars(klass):
            return f"{klass.__qualname__} defines __init_subclass__"
        if any(hasattr(type(v), "__set_name__") for v in vars(klass).values()):
            return f"{klass.__qualname__} holds a descriptor with __set_name__"
    stand_in = replacement_for(base)
    private = {name for name in set(vars(stand_in)).union(*(_names(v.__code__) for v in vars(stand_in).values()
                                                              if isinstance(v, types.FunctionType)))
               if name.startswith("_") and not name.startswith("__")}
    for klass in python_chain(cls, base):
        used = set(vars(klass)) | {n for v in vars(klass).values() if isinstance(v, types.FunctionType)
                                   for n in _names(v.__code__)}
        if used & private:
            return f"{klass.__qualname__} uses the name {sorted(used & private)[0]} the model keeps its state in"
    return None


def _names(code: types.CodeType) -> set[str]:
    """Every attribute or global name ``code`` (and the functions nested in it) reads or writes."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def shadow_class(cls: type, base: type) -> type:
    """The shadow of ``cls`` (a subclass of ``base`` that :func:`shadow_refusal` accepts): made once, and
    again whenever one of its classes' namespaces changed."""
    chain = python_chain(cls, base)
    spaces = tuple(dict(vars(klass)) for klass in chain)
    cached = _SHADOWS.get(cls)
    if cached is not None and len(cached[0]) == len(spaces) and all(
            a.keys() == b.keys() and all(a[k] is b[k] for k in a) for a, b in zip(cached[0], spaces)):
        return cached[1]
    made: dict[type, type] = {base: replacement_for(base)}
    for klass in reversed(chain):  # bases first
        bases = tuple(made.get(b, b) for b in klass.__bases__)
        namespace = {k: v for k, v in vars(klass).items()
                     if k not in _LAYOUT and not isinstance(v, types.MemberDescriptorType)}
        namespace["__module__"], namespace["__qualname__"] = klass.__module__, klass.__qualname__
        made[klass] = type(klass.__name__, bases, namespace)
    shadow = made[cls]
    _REBUILDERS[id(shadow)] = (cls, _REBUILDERS[id(replacement_for(base))][1])
    if cached is not None:  # code compiled with the old shadow keeps it: so does this list (its id stays its)
        _RETIRED.append(cached[1])
    _SHADOWS[cls] = (spaces, shadow)
    return shadow


def namespaces(cls: type, base: type) -> list[tuple[type, dict[str, Any]]]:
    """The classes of the shadow of ``cls`` and their namespaces (what the trace guards)."""
    return [(klass, dict(vars(klass))) for klass in python_chain(cls, base)]

"""Classes a trace made once for its compiled entry, and handed to the code after a graph break.

A class statement in the traced function is run once, while tracing (``opcodes.class_definitions``): every call
of the compiled entry shares that class. The code after a graph break is ordinary Python, and may change the
class (``type(self).count += 1``), which eager would have made afresh on the next call. So a made class handed on
at a break is watched: its namespace is guarded, keys and values (a constant by value, a function, descriptor or
class by identity), so a call after one that changed it does not run this entry but compiles again, making the
class afresh, as eager does. A namespace holding a mutable value of the user's (a list, which could change in
place unseen) cannot be watched: the code generator then moves the break to where the class was made.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import weakref
from typing import Any

from loom_guards import Attr, Const, Item

#: Immutable constants (tuples and frozensets of them too), compared by value.
IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis), range, enum.Enum)
#: Objects compared by identity whose own state the class's behaviour does not hang on.
_FIXED = (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType, property, staticmethod, classmethod,
          types.GetSetDescriptorType, types.MemberDescriptorType)


@dataclasses.dataclass(eq=False)
class PerCall:
    """How the compiled code makes again, on each call, a class the trace modelled by a template (see
    ``opcodes.class_per_call``): ``__build_class__`` on the body ``code`` with ``f_globals``, a closure of the
    real cells standing for the trace's ``boxes``, ``name`` and ``bases``, then each of ``decorators`` applied
    (``dataclasses.dataclass`` and the like, run natively on the template too), or ``type(name, bases,
    namespace)`` where a base is such a class; ``made_at``: the class
    statement's break point (where the translation breaks when the class cannot be made so)."""

    code: types.CodeType
    f_globals: dict[str, Any]
    boxes: list[Any]
    name: str
    bases: tuple[Any, ...]
    made_at: Any
    decorators: tuple[Any, ...] = ()
    #: ``type(name, bases, namespace)`` rather than a class statement (``code`` None): the namespace to copy
    namespace: dict[str, Any] | None = None


#: template class → how each call makes its own
PER_CALL: weakref.WeakKeyDictionary[type, PerCall] = weakref.WeakKeyDictionary()


#: a function of a template's namespace → (the template, its name there, the attribute of the namespace's value
#: it is: None for the value itself, ``__func__`` of a staticmethod, ``fget`` of a property...)
PER_CALL_PARTS: weakref.WeakKeyDictionary[Any, tuple[type, str, str | None]] = weakref.WeakKeyDictionary()

_WRAPPED = {staticmethod: ("__func__",), classmethod: ("__func__",), property: ("fget", "fset", "fdel")}


def register_per_call(template: type, recipe: PerCall) -> None:
    """Note ``template`` and the functions of its namespace (a bound method of an instance, rebuilt after the
    graph, must be the function of this call's class, whose closure is this call's cells)."""
    PER_CALL[template] = recipe
    for name, value in vars(template).items():
        if _own(template, value):
            PER_CALL_PARTS[value] = (template, name, None)
        for attribute in _WRAPPED.get(type(value), ()):
            inner = getattr(value, attribute, None)
            if _own(template, inner):
                PER_CALL_PARTS[inner] = (template, name, attribute)


def _own(template: type, value: Any) -> bool:
    """Whether ``value`` is a function made for ``template`` (its body's, or a decorator's, like dataclass's
    ``__init__``), not one it shares (total_ordering's helpers, a function named in the body)."""
    return isinstance(value, types.FunctionType) and isinstance(value.__qualname__, str) \
        and value.__qualname__.startswith(f"{template.__qualname__}.")


def per_call(value: Any) -> PerCall | None:
    """The recipe of ``value`` where it is the template of a class made on each call."""
    if not isinstance(value, type):
        return None
    try:
        return PER_CALL.get(value)
    except TypeError:
        return None


def per_call_part(value: Any) -> tuple[type, str, str | None] | None:
    """Where ``value`` sits in the template of a class made on each call, if it is a function of one."""
    return PER_CALL_PARTS.get(value) if isinstance(value, types.FunctionType) else None


def immutable(value: Any) -> bool:
    """Whether ``value`` is an immutable constant (a tuple or frozenset of immutable constants too)."""
    if type(value) in (tuple, frozenset):
        return all(immutable(item) for item in value)
    import torch  # dtypes, devices and layouts are interned constants

    return isinstance(value, (*IMMUTABLE, torch.dtype, torch.device, torch.layout, torch.memory_format))


def watch(guards: Any, made: Any) -> bool:
    """Guard that class ``made`` keeps its namespace as it is now; False where it cannot be watched so (a
    function, whose attributes are not guarded, or a namespace holding a mutable value of the user's)."""
    if not isinstance(made, type):
        return False
    namespace = Attr(Const(made), "__dict__")
    checks = []
    for name, value in made.__dict__.items():
        if immutable(value):
            checks.append(("constant", Item(namespace, name), value))
        elif isinstance(value, _FIXED) or (name.startswith("_") and name.endswith("_")):
            checks.append(("identity", Item(namespace, name), value))  # (``__dataclass_fields__``: a library's)
        else:
            return False
    guards.add("dict_keys", namespace, made.__dict__)
    for kind, source, value in checks:
        guards.add(kind, source, value)
    return True

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

import enum
import types
from typing import Any

from loom_guards import Attr, Const, Item

#: Immutable constants (tuples and frozensets of them too), compared by value.
IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), type(Ellipsis), range, enum.Enum)
#: Objects compared by identity whose own state the class's behaviour does not hang on.
_FIXED = (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType, property, staticmethod, classmethod,
          types.GetSetDescriptorType, types.MemberDescriptorType)


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

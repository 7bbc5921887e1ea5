"""Attribute stores and deletions on an instance of a user class that comes from outside the frame.

``obj.name = value`` and ``del obj.name`` follow Python's rules as they do for an object made in the trace
(:class:`~.attributes.InstanceAttributes`): a ``__setattr__``/``__delattr__`` the class writes in Python is
inlined, and what it reaches of ``object.__setattr__``/``object.__delattr__`` (``super().__setattr__``) is
recorded and replayed after the graph through ``object``'s own, not the override the trace already ran; a
data descriptor of the class (a property's setter or deleter) is inlined; anything else goes to the instance
``__dict__``, recorded by the side effects so later reads in the trace see it. A deletion checks the instance
has the name (the trace's stores first, then the real dict, guarded): ``del`` of a name only the class has
raises AttributeError, as in eager, not when the replay runs.
"""

from __future__ import annotations

import _thread
import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, TypeOf

from ..errors import Unsupported, missing_for_delete
from .attributes import (
    class_attribute,
    delete_through_descriptor,
    generic_setattr_on_real,
    no_attribute_to_set,
    store_through_descriptor,
)
from .constant import ConstantVariable
from .registry import wrap

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

#: ``__setattr__`` of classes that store attributes as ``object.__setattr__`` does: a C type setting its
#: setattr slot to the generic one explicitly (``SimpleNamespace``) shows its own wrapper of it. A
#: ``threading.local`` stores into the calling thread's own ``__dict__``, the one the trace reads (and its guards
#: read at each call, in the calling thread), and the replay's ``setattr`` runs in that thread too.
GENERIC_SETATTR = (object.__setattr__, types.SimpleNamespace.__setattr__, _thread._local.__setattr__)
_GENERIC_DELATTR = (object.__delattr__, types.SimpleNamespace.__delattr__, _thread._local.__delattr__)
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (its __slots__ members are writable)


def _reachable(receiver: Variable, doing: str, name: str) -> Any:
    if receiver.source is None:
        raise Unsupported(f"{doing} {name!r} on an object the translator cannot reach", "not modelled")
    return receiver.source


def _override(tx: InstructionTranslator, receiver: Variable, hook_name: str, generic: tuple, args: list) -> bool:
    """Inline the class's own ``hook_name`` (True), or False where it is ``object``'s; one in C breaks."""
    cls = type(receiver.value)
    hook = class_attribute(cls, hook_name)
    if hook in generic:
        return False
    if not isinstance(hook, types.FunctionType):
        raise Unsupported(f"{hook_name} of {cls.__name__}", "the class customises it in C")
    source = _reachable(receiver, "changing", args[0].as_python_constant())
    wrap(tx, hook, Attr(TypeOf(source), hook_name)).call(tx, [receiver, *args], {})  # guarded by identity
    return True


def store_attr(tx: InstructionTranslator, receiver: Variable, name: str, value: Variable) -> None:
    """``obj.name = value``: through the class's ``__setattr__`` if it writes one, else as ``object`` stores."""
    if not _override(tx, receiver, "__setattr__", GENERIC_SETATTR, [ConstantVariable(name), value]):
        plain_setattr(tx, receiver, name, value)


def plain_setattr(tx: InstructionTranslator, receiver: Variable, name: str, value: Variable) -> None:
    """``object.__setattr__(obj, name, value)`` reached from ``STORE_ATTR`` on a class without an override."""
    source = _reachable(receiver, "assigning", name)
    cls = type(receiver.value)
    if store_through_descriptor(tx, receiver, cls, TypeOf(source), name, value):
        return
    static = class_attribute(cls, name)
    if not cls.__dictoffset__ and cls is not _thread._local and not isinstance(static, types.MemberDescriptorType):
        raise no_attribute_to_set(cls, name)  # no __dict__ and no such slot: Python raises now, not at the replay
    if isinstance(static, types.MemberDescriptorType) and not static.__objclass__.__flags__ & _HEAPTYPE:
        # a C type's member (a property's fget): it may be read-only, which only the real store tells
        raise Unsupported(f"assigning {name!r} of a {cls.__name__}", "a member of a C type, maybe read-only")
    tx.output.side_effects.store_attr(receiver, receiver.value, name, value)


def generic_setattr(tx: InstructionTranslator, receiver: Variable, name: str, value: Variable) -> None:
    """``object.__setattr__(obj, name, value)`` called by the class's override: replayed through it."""
    generic_setattr_on_real(tx, receiver, receiver.value, _reachable(receiver, "assigning", name), name, value)


def delete_attr(tx: InstructionTranslator, receiver: Variable, name: str) -> None:
    """``del obj.name``: through the class's ``__delattr__`` if it writes one, else as ``object`` deletes."""
    if not _override(tx, receiver, "__delattr__", _GENERIC_DELATTR, [ConstantVariable(name)]):
        generic_delattr(tx, receiver, name, replayed_generic=False)


def generic_delattr(tx: InstructionTranslator, receiver: Variable, name: str, *, replayed_generic: bool = True) -> None:
    """``object.__delattr__(obj, name)``: a data descriptor's ``__delete__`` (a property's deleter), or the
    instance's own attribute (an AttributeError where it has none); ``replayed_generic``: called by the class's
    override, so the replay goes through ``object.__delattr__``."""
    source = _reachable(receiver, "deleting", name)
    real = receiver.value
    cls = type(real)
    static = class_attribute(cls, name)
    if isinstance(static, types.MemberDescriptorType):
        receiver.var_getattr(tx, name)  # a slot: set (or the read's own AttributeError/break)
    elif hasattr(type(static), "__delete__"):
        if delete_through_descriptor(tx, receiver, cls, TypeOf(source), name):
            return
        raise Unsupported(f"deleting {name!r} on a {cls.__name__}", "a descriptor of the class handles it")
    else:
        _require_instance_attribute(tx, receiver, source, name)
    tx.output.side_effects.delete_attr(receiver, real, name, generic=replayed_generic)


def _require_instance_attribute(tx: InstructionTranslator, receiver: Variable, source: Any, name: str) -> None:
    """The instance's ``__dict__`` holds ``name`` (stored by the trace, or there already: guarded), else the
    AttributeError ``object.__delattr__`` raises."""
    effects = tx.output.side_effects
    real = receiver.value
    changed = effects.dict_view(real)
    if changed is not None:  # the program wrote the object's __dict__ itself: it holds the attributes
        if changed.lookup(name) is None:
            raise missing_for_delete(f"{type(real).__name__!r} object", name)
        return
    if effects.attribute_deleted(real, name):
        raise missing_for_delete(f"{type(real).__name__!r} object", name)
    if effects.stored_attribute(real, name) is not None:
        return
    instance_dict = getattr(real, "__dict__", None)
    if not isinstance(instance_dict, dict):
        raise Unsupported(f"deleting {name!r} on a {type(real).__name__}", "its instance has no __dict__")
    present = name in instance_dict
    tx.output.guards.add("present_key" if present else "absent_key", Attr(source, "__dict__"), name)
    if not present:
        raise missing_for_delete(f"{type(real).__name__!r} object", name)

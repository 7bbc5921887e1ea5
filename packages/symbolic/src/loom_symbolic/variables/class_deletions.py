"""``del Cls.name`` inside the compiled function, on a user class from outside the frame (or made by the trace):
a side effect replayed after the graph, in program order, as ``Cls.name = value`` is.

Later reads in the trace see the deletion: the lookup of ``name`` on the class, its subclasses and their
instances goes on past the class (and any other the trace deleted it from) to the next class of the MRO that
holds it, the trace's own store or the real dict's entry (guarded there); where none does, Python's
AttributeError. Deleting a name the class does not hold is CPython's AttributeError too.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const, Item

from ..errors import Unsupported, missing_attribute, missing_for_delete
from ..object_dicts import DELETED
from . import class_lookups as _class_lookups
from .registry import wrap

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_MISSING = object()


def delete_class_attribute(tx: InstructionTranslator, target: Variable, name: str) -> None:
    """``del cls.name`` for ``target``, the variable of a user class (its changes otherwise allowed, as for a
    store: :meth:`.real_objects.ClassVariable.store_attr`)."""
    cls = target.value
    stored = tx.output.side_effects.attr_overlay.get(id(cls), {}).get(name)
    present = stored is not DELETED if stored is not None else _class_lookups.own(cls, name, _MISSING) is not _MISSING
    if not present:
        raise missing_for_delete(f"type object {cls.__name__!r}", name)
    tx.output.side_effects.delete_class_attr(target, cls, name)


def after_deletion(tx: InstructionTranslator, cls: type, name: str, obj: Variable, *, of_class: bool) -> Variable:
    """``name`` looked up on ``cls``'s MRO (for the class itself, ``of_class``, or an instance ``obj``) where the
    trace deleted it from a class the lookup reaches: the next stored or real entry, else the AttributeError."""
    overlay = tx.output.side_effects.attr_overlay
    for klass in cls.__mro__:
        stored = overlay.get(id(klass), {}).get(name)
        if stored is DELETED:
            continue
        if stored is not None:
            return stored
        found = _class_lookups.own(klass, name, _MISSING)
        if found is _MISSING:
            continue
        if hasattr(type(found), "__get__") and not isinstance(found, types.FunctionType):
            raise Unsupported(f"attribute {name!r} of {cls.__qualname__} after the trace deleted it from a class",
                              f"a {type(found).__name__} found on {klass.__qualname__} binds its own way")
        return wrap(tx, found, Item(Attr(Const(klass), "__dict__"), name))
    if of_class and any(_class_lookups.lookup(type(cls), n, _MISSING) is not _MISSING for n in (name, "__getattr__")):
        raise Unsupported(f"attribute {name!r} of {cls.__qualname__} after the trace deleted it from a class",
                          "its metaclass has one (or a __getattr__): not modelled")
    owner = f"type object {cls.__name__!r}" if of_class else f"{cls.__name__!r} object"
    raise missing_attribute(owner, name, obj=obj)


def lookup_class_attribute(tx: InstructionTranslator, cls: type, name: str, obj: Variable, *, of_class: bool) -> Any:
    """What the trace's own changes make of ``name`` on ``cls``: the value it stored, the lookup past a class it
    deleted the name from (:func:`after_deletion`), or None where they do not reach this lookup."""
    effects = tx.output.side_effects
    if name not in effects.class_attribute_names:
        return None
    stored = effects.stored_class_attribute(cls, name)
    return after_deletion(tx, cls, name, obj, of_class=of_class) if stored is DELETED else stored

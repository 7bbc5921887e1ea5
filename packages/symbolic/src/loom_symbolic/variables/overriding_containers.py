"""List and dict subclasses handed in from the frame whose class overrides the builtin's special
methods (``transformers.ModelOutput``/``diffusers.BaseOutput``: an ``OrderedDict`` dataclass whose
``__getitem__``, ``__setitem__`` and ``__setattr__`` call ``super()``; a list whose ``__getitem__``,
``__iter__`` and ``__len__`` do). They are modelled as the container they are: the overrides are
inlined with the container as ``self``, and what they reach through ``super()`` is the container's
own item access. The guards and any re-read after a graph break reach the items through
:class:`loom_guards.BuiltinContents` (the builtin base's own methods), never through the overrides.

Writes to such an object run the overrides as written (inlined: ``super().__setitem__`` changes the
model's items, ``super().__setattr__`` its attributes); the rewritten code then gives the real object
the items and attributes the trace ended with through the builtin base's own methods and
``object.__setattr__`` (:func:`refill_through_base`), so no override runs twice.
"""

from __future__ import annotations

import types
from typing import Any

from loom_guards import BuiltinContents, Item
from loom_guards.object_state import builtin_base

from . import registry
from .base import Variable
from .containers import DictVariable, ListVariable
from .list_protocol import plain_list_subclass
from .wrap_rules import _guards, _object_variable, _remember, _wrap_object

#: Between the list rule (50) and the dict rule (60) of :mod:`.wrap_rules`: they take the subclasses
#: that keep the builtin's protocol; these the ones that override it.
_LIST_PRIORITY = 55
_DICT_PRIORITY = 57


def _overrides_in_python(cls: type, kind: type) -> bool:
    """Every special method ``cls`` overrides (beside its builtin base's: ``OrderedDict``'s own) is written
    in Python, so it is inlined; one in C (a compiled extension's class) would be bypassed by the model,
    so such a class is left to the fallback."""
    base = builtin_base(cls)
    return all(getattr(cls, name) is getattr(base, name) or isinstance(getattr(cls, name), types.FunctionType)
               for name in _PROTOCOL[kind])


def _overriding_list(value: Any) -> bool:
    return (isinstance(value, list) and type(value) is not list and not plain_list_subclass(value)
            and _overrides_in_python(type(value), list))


def _overriding_dict(value: Any) -> bool:
    return (isinstance(value, dict) and type(value).__getitem__ is not dict.__getitem__
            and _overrides_in_python(type(value), dict))


#: The special methods a model of the container would otherwise answer itself.
_PROTOCOL = {base: tuple(name for name in vars(base) if name.startswith("__") and name not in (
    "__init__", "__new__", "__doc__", "__hash__", "__class_getitem__", "__getattribute__", "__init_subclass__",
    "__subclasshook__", "__reduce__", "__reduce_ex__", "__sizeof__", "__repr__", "__format__", "__dir__"))
    for base in (list, dict)}


def _contents_source(tx: Any, value: Any, source: Any) -> Any:
    """The guarded source of the builtin contents (None when the value is not guarded from the frame)."""
    guards = _guards(tx, source)
    if guards is None:
        return None
    guards.add("type", source, value)
    return BuiltinContents(source)


def _wrap_overriding_list(tx, value, source):
    if _guards(tx, source) is None:
        return _wrap_object(tx, value, source)

    def make() -> Variable:
        contents = _contents_source(tx, value, source)
        items = list.copy(value)
        tx.output.guards.add("length", contents, items)
        variable = ListVariable([registry.wrap(tx, item, Item(contents, i)) for i, item in enumerate(items)],
                                source, cls=type(value), real=value)
        variable.overrides_protocol = True
        return variable

    return _remember(tx, value, source, make)


def _wrap_overriding_dict(tx, value, source):
    if _guards(tx, source) is None:
        return _wrap_object(tx, value, source)
    contents = BuiltinContents(source)
    items = contents.read_from(value)
    if not all(isinstance(key, str) for key in items):  # keys a guard can name: strings (ModelOutput's)
        return _object_variable(tx, value, source)

    def make() -> Variable:
        _contents_source(tx, value, source)
        tx.output.guards.add("dict_keys", contents, items)
        variable = DictVariable({key: registry.wrap(tx, item, Item(contents, key)) for key, item in items.items()},
                                source, cls=type(value), real=value)
        variable.overrides_protocol = True
        return variable

    return _remember(tx, value, source, make)


def refill_through_base(target: dict, contents: dict) -> None:
    """Run by the rewritten code: give ``target`` (a dict subclass from outside the frame) the items
    ``contents`` through its builtin base's own ``clear`` and ``__setitem__`` (an ``OrderedDict``'s keep
    its order links), never through the class's overrides, which the trace already ran."""
    base = builtin_base(type(target))
    base.clear(target)
    for key, value in contents.items():
        base.__setitem__(target, key, value)


registry.add_rule(_LIST_PRIORITY, _overriding_list, _wrap_overriding_list)
registry.add_rule(_DICT_PRIORITY, _overriding_dict, _wrap_overriding_dict)

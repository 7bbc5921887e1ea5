"""Which list subclasses the translator models as lists: those keeping every special method of ``list``."""

from __future__ import annotations

from typing import Any

#: A list subclass's special methods the translator would bypass by modelling its items as a list's
#: (subscripts, iteration, ``len``, operators, writing the final items back with ``[:] =``).
_LIST_PROTOCOL = (*sorted(name for name in vars(list) if name.startswith("__") and name not in (
    "__init__", "__new__", "__doc__", "__hash__", "__class_getitem__")), "__getattribute__", "__setattr__")


def plain_list_subclass(value: Any) -> bool:
    """A list subclass that keeps every special method of ``list`` (methods it adds or overrides by
    name, as ``extend``, are inlined as written)."""
    cls = type(value)
    return isinstance(value, list) and all(getattr(cls, name) is getattr(list, name) for name in _LIST_PROTOCOL)

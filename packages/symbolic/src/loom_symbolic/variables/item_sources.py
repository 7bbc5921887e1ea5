"""How guards reach ``mapping[key]`` for a dict (or mappingproxy) read from the frame: ``Item`` for a key a
source can spell (a literal, an enum member, a dtype), else the value's position in the dict (``DictValueAt``),
which the dict's ``DictKeys`` guard, in order, ties to the key. Without a source for the value, a value under a
class or function key (``{int: handler}``) was never guarded, and replacing it went unseen by the compiled code."""

from __future__ import annotations

from typing import Any

from loom_guards import DictValueAt, Item

from .constant import is_constant_value


def item_source(source: Any, mapping: Any, key: Any) -> Any:
    """The source of ``mapping[key]`` for ``mapping`` read from ``source`` (None without one)."""
    if source is None:
        return None
    if is_constant_value(key):
        try:
            return Item(source, key)
        except TypeError:  # a constant guards cannot key an item by (a frozenset, a range, a complex)
            pass
    for index, present in enumerate(mapping):
        if present is key or (type(present) is type(key) and is_constant_value(key) and present == key):
            return DictValueAt(source, index)
    return None

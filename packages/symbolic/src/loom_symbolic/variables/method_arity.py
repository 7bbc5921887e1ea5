"""How many arguments the builtin container methods the translator models take, and the TypeError
CPython raises for any other count (``lst.count()``, ``s.issubset()``, ``t.index(1, 2, 3, 4)``).

The modelled methods read their arguments by position and assumed the program passed the right number:
a wrong count failed inside the translator (an internal error, the frame left uncompiled) instead of
raising the program's TypeError. The error's text is the real method's, asked of an empty container of
the same builtin class (argument counts are checked before anything else).
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import UserError

_ANY = math.inf

#: name → (fewest, most) positional arguments, after the receiver.
_COUNTS: dict[str, tuple[float, float]] = {
    "__contains__": (1, 1), "__getitem__": (1, 1), "__setitem__": (2, 2), "__delitem__": (1, 1),
    "__len__": (0, 0), "clear": (0, 0), "copy": (0, 0), "keys": (0, 0), "values": (0, 0), "items": (0, 0),
    "popitem": (0, 0), "reverse": (0, 0), "sort": (0, 0), "get": (1, 2), "setdefault": (1, 2),
    "append": (1, 1), "extend": (1, 1), "insert": (2, 2), "remove": (1, 1), "count": (1, 1), "index": (1, 3),
    "add": (1, 1), "discard": (1, 1), "isdisjoint": (1, 1), "issubset": (1, 1), "issuperset": (1, 1),
    "symmetric_difference": (1, 1), "symmetric_difference_update": (1, 1),
    "union": (0, _ANY), "difference": (0, _ANY), "intersection": (0, _ANY), "difference_update": (0, _ANY),
    "intersection_update": (0, _ANY), "update": (0, _ANY), "__iter__": (0, 0),
    **dict.fromkeys(("__add__", "__iadd__", "__mul__", "__rmul__", "__imul__", "__eq__", "__ne__", "__lt__", "__le__",
                     "__gt__", "__ge__", "__or__", "__and__", "__sub__", "__xor__", "__ior__", "__iand__", "__isub__",
                     "__ixor__"), (1, 1)),
}
#: (class, name) pairs whose count differs from the table's.
_OWN_COUNTS = {(list, "pop"): (0, 1), (set, "pop"): (0, 0), (dict, "pop"): (1, 2), (dict, "update"): (0, 1),
               (tuple, "index"): (1, 3), (set, "update"): (0, _ANY),
               (list, "__init__"): (0, 1)}
#: methods taking keyword arguments, and which (None: any); the others refuse every keyword.
_KEYWORDS = {(list, "sort"): frozenset({"key", "reverse"}), (dict, "update"): None}


def _keywords_taken(base: type, name: str, kwargs: dict[str, Any]) -> bool:
    if not kwargs:
        return True
    if (base, name) not in _KEYWORDS:
        return False
    names = _KEYWORDS[base, name]
    return names is None or set(kwargs) <= names


def check_arguments(base: type, name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
    """Raise the program's TypeError when ``base.name`` gets a count of arguments it refuses."""
    if base is frozenset:
        base = set
    counts = _OWN_COUNTS.get((base, name)) or _COUNTS.get(name)
    if counts is None or not isinstance(base, type) or base not in (dict, list, tuple, set):
        return
    fewest, most = counts
    if fewest <= len(args) <= most and _keywords_taken(base, name, kwargs):
        return
    try:
        getattr(base(), name)(*[None] * len(args), **dict.fromkeys(kwargs))
    except TypeError as exc:
        raise UserError(f"{base.__name__}.{name}", str(exc), exc_type=TypeError, exc_args=exc.args) from None
    except Exception:  # not an argument-count error after all: the method's model decides
        return

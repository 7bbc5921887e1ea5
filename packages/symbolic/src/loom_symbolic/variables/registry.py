"""How a real value becomes a variable: the tables :func:`wrap` reads, filled by the modules above.

``wrap(tx, value, source)`` is the single door through which values from the frame (arguments, globals,
attributes, closure cells) and values the translator makes (folded results) enter the trace. This module
owns the tables and the order they are read in; it imports no variable class. The rules themselves live
with the variables they build (:mod:`.wrap_rules` adds them all, once, when the catalogue loads):

1. the exact-type table: one dict lookup for the types most values have (functions, numbers, tensors);
2. the predicate rules, tried in order of their ``priority`` (lowest first): the order is behaviour, since
   a value may match more than one (a named tuple is a tuple; a ``torch.Size`` is a tuple too);
3. the fallback, for an object no rule models (its attributes are read one by one).

A rule is ``build(tx, value, source) -> Variable``; ``tx`` is None for a value that is not read from the
frame (no guard is recorded), and ``source`` None for a value with no path from the frame.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator

Build = Callable[[Any, Any, Any], "Variable"]
Predicate = Callable[[Any], bool]

#: type(value) → the rule for values of exactly that type (the rule the predicates would pick).
EXACT_TYPE_RULES: dict[type, Build] = {}
#: (predicate, build) in the order they are tried; kept sorted by the priorities in ``_PRIORITIES``.
PREDICATE_RULES: list[tuple[Predicate, Build]] = []
_PRIORITIES: list[float] = []
_fallback: list[Build] = []


def add_rule(priority: float, predicate: Predicate, build: Build) -> None:
    """Try ``build`` for values ``predicate`` accepts, after the rules of lower ``priority``."""
    if priority in _PRIORITIES:
        raise RuntimeError(f"two wrap rules with priority {priority}")
    at = bisect.bisect(_PRIORITIES, priority)
    _PRIORITIES.insert(at, priority)
    PREDICATE_RULES.insert(at, (predicate, build))


def add_exact_type(cls: type, build: Build) -> None:
    """Use ``build`` for values of exactly ``cls`` without trying the predicates (it must be the rule
    they would pick: ``test_builder_rules`` checks that)."""
    EXACT_TYPE_RULES[cls] = build


def set_fallback(build: Build) -> None:
    """The rule for a value no predicate accepts."""
    _fallback[:] = [build]


def wrap(tx: Translator | None, value: Any, source: Any) -> Variable:
    """The variable for real ``value`` reached through ``source`` (None: a value with no guard)."""
    build = EXACT_TYPE_RULES.get(type(value))
    if build is None:
        build = next((b for predicate, b in PREDICATE_RULES if predicate(value)), _fallback[0])
    if not isinstance(value, _CAN_HOLD_ITSELF):
        return build(tx, value, source)
    key = id(value)
    if key in _WRAPPING:  # the container's items are wrapped eagerly: one holding itself never ends...
        if _remembered(tx, value):  # ...unless it was remembered before its items (a list): that one
            return build(tx, value, source)
        raise Unsupported(f"a {type(value).__name__} from the frame that contains itself",
                          "a self-referencing container cannot be modelled item by item")
    _WRAPPING.add(key)
    try:
        return build(tx, value, source)
    finally:
        _WRAPPING.discard(key)


def _remembered(tx: Translator | None, value: Any) -> bool:
    """Whether the translator already holds the one variable for mutable ``value``."""
    entry = tx.output.known_objects.get(id(value)) if tx is not None else None
    return entry is not None and entry[0] is value


#: Containers whose items are wrapped with them, so one may reach itself; ids being wrapped now.
_CAN_HOLD_ITSELF = (list, dict)
_WRAPPING: set[int] = set()


def wrap_constant_like(value: Any) -> Variable:
    """The variable for a value that does not come from the frame (folded results, LOAD_CONST)."""
    return wrap(None, value, None)


def wrap_object(tx: Translator | None, value: Any, source: Any) -> Variable:
    """The variable for an object no specific rule models: its attributes are read one by one."""
    return _fallback[0](tx, value, source)

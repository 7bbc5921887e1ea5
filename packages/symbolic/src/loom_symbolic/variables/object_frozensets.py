"""A frozenset from the frame that holds objects compared by identity (instances of the user's classes,
functions, classes) besides constants: ``REGISTRY = frozenset([handler])``. The exact-type fast path
made every frozenset a constant, so its members came out of ``list(s)`` or ``for h in s`` as constants of
their own, not the one variable the trace keeps per object: a store through another name
(``handler.count += 1``) was not seen through the member, and ``member is handler`` was False (wrong
answers). Such a frozenset is now the set model :func:`.sets.wrap_identity_set` makes for a set (its members
the real objects, the set guarded to hold these very objects), each member that the trace reaches again being
the variable of that object (for a set too); a frozenset of constants compared by value stays a constant."""

from __future__ import annotations

from typing import Any

from loom_guards import constant_by_value, insertion_order

from . import registry
from .constant import is_constant_value
from .sets import identity_members_modelled, wrap_identity_set
from .wrap_rules import _remember, _wrap_constant, _wrap_object


def _holds_objects(value: Any) -> bool:
    return (type(value) is frozenset and not all(is_constant_value(k) and constant_by_value(k) for k in value)
            and identity_members_modelled(value))


def _wrap_object_frozenset(tx: Any, value: frozenset, source: Any) -> Any:
    if tx is None or source is None:  # not from the frame: nothing is guarded, the value is folded as before
        return _wrap_constant(tx, value, source)
    order = insertion_order(list(value))
    if order is None:  # the model would iterate it in another order than eager does
        return _wrap_object(tx, value, source)
    return _remember(tx, value, source, lambda: wrap_identity_set(tx, value, source, order))


def _frozenset_rule(tx: Any, value: frozenset, source: Any) -> Any:
    """The exact-type rule for ``frozenset``: the one the ordered rules pick (constants first)."""
    if _holds_objects(value):
        return _wrap_object_frozenset(tx, value, source)
    return _wrap_constant(tx, value, source)


# before the constants' rule (30): is_constant_value accepts any frozenset
registry.add_rule(25, _holds_objects, _wrap_object_frozenset)
registry.add_exact_type(frozenset, _frozenset_rule)

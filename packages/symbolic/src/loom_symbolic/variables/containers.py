"""Tuples, lists, torch.Size, named tuples, dicts, sets and slices while tracing: one import for them all.

Each kind lives in its own module (:mod:`.sequences`, :mod:`.mappings`, :mod:`.sets`; the method tables in
:mod:`.container_tables`); this module only re-exports them, so callers import from one place.
"""

from __future__ import annotations

from .container_tables import (
    DICT_METHODS,
    LIST_METHODS,
    SEQUENCE_METHODS,
    SET_METHODS,
    SET_MUTATORS,
    Method,
    constant_index,
    key_variable,
)
from .mappings import DictVariable, InstanceDictVariable, MethodTableMixin, lookup
from .sequences import (
    ListVariable,
    NamedTupleVariable,
    SequenceVariable,
    SizeVariable,
    SliceVariable,
    TupleVariable,
    plain_sequence,
)
from .sets import SetVariable

__all__ = [
    "DICT_METHODS",
    "LIST_METHODS",
    "SEQUENCE_METHODS",
    "SET_METHODS",
    "SET_MUTATORS",
    "DictVariable",
    "InstanceDictVariable",
    "ListVariable",
    "Method",
    "MethodTableMixin",
    "NamedTupleVariable",
    "SequenceVariable",
    "SetVariable",
    "SizeVariable",
    "SliceVariable",
    "TupleVariable",
    "constant_index",
    "key_variable",
    "lookup",
    "plain_sequence",
]

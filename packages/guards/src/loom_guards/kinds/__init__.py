"""Guard kinds, one module each: what a captured graph assumed about a value or about torch's state.

=================  ==========================  ====================================================
kind               module                      checks
=================  ==========================  ====================================================
``IsNone``         ``none``                    ``s is None``
``NotNone``        ``none``                    ``s is not None``
``TypeMatch``      ``type_match``              ``type(s) is T``
``Identity``       ``identity``                ``s is obj``
``ConstantMatch``  ``constant``                ``s == v``, type-strict
``Length``         ``length``                  ``len(s) == n``
``DictKeys``       ``dict_keys``               the same keys in the same order
``DictContains``   ``dict_contains``           ``key in s`` / ``key not in s``
``SetMembers``     ``set_members``             a set or frozenset with exactly these members
``TensorMatch``    ``tensor``                  tensor type, dispatch keys, dtype, device, shape...
``GlobalState``    ``global_state``            torch's global (thread-local) state
``NoAliasing``     ``aliasing``                sources hold pairwise distinct objects
``SameObject``     ``aliasing``                two sources hold the very same object
``Relation``       ``relation``                an int relation over sources
``StorageOverlap`` ``storage``                 which tensors share memory
=================  ==========================  ====================================================

``base`` holds what they share: ``Guard``, ``GuardFailure`` and the failure texts.
"""

from .aliasing import NoAliasing, SameObject
from .base import Guard, GuardFailure, _Ref, object_text, short_repr, type_name
from .constant import (
    ConstantMatch,
    const_eq,
    const_key,
    constant_by_value,
    float_eq,
    holds_set,
    is_nan_scalar,
    member_eq,
)
from .dict_contains import DictContains, is_mapping
from .dict_keys import DictKeys, compared_by_identity, dict_keys_of, guarded_by_identity, module_builtin
from .global_state import GlobalState
from .identity import Identity
from .length import Length
from .none import IsNone, NotNone
from .relation import Relation
from .set_members import SetMembers, has_nan, insertion_order
from .storage import StorageOverlap, overlapping_pairs
from .tensor import TensorMatch
from .type_match import TypeMatch

__all__ = [
    "ConstantMatch",
    "DictContains",
    "DictKeys",
    "GlobalState",
    "Guard",
    "GuardFailure",
    "Identity",
    "IsNone",
    "Length",
    "NoAliasing",
    "NotNone",
    "Relation",
    "SameObject",
    "SetMembers",
    "StorageOverlap",
    "TensorMatch",
    "TypeMatch",
    "_Ref",
    "compared_by_identity",
    "const_eq",
    "const_key",
    "constant_by_value",
    "dict_keys_of",
    "float_eq",
    "guarded_by_identity",
    "has_nan",
    "holds_set",
    "insertion_order",
    "is_mapping",
    "is_nan_scalar",
    "member_eq",
    "module_builtin",
    "object_text",
    "overlapping_pairs",
    "short_repr",
    "type_name",
]

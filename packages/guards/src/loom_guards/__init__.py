"""loom_guards: sources, guard kinds, and compiled guard checks for loom.

A captured graph is only valid under assumptions about its inputs (their types, tensor metadata, the
constants it specialised on, torch's global state). Guards state those assumptions; ``compile`` turns a
list of them into one fast callable that the frame hook runs on every call::

    import torch
    from loom_guards import Local, TensorMatch, GlobalState, compile

    x = torch.randn(8, 4)
    check = compile([TensorMatch(Local("x"), x), GlobalState()])
    check({"x": torch.randn(8, 4)})            # True
    check.why_failed({"x": torch.randn(16, 4)})  # "L['x'].shape[0] == 8, got 16"
"""

from ._loader import AcceleratorWarning
from .compiler import GuardFn, accelerator_available, accelerator_error, compile, simplify
from .generator_sources import GeneratorFunction
from .kinds import (
    ConstantMatch,
    DictContains,
    DictKeys,
    GlobalState,
    Guard,
    GuardFailure,
    Identity,
    IsNone,
    Length,
    NoAliasing,
    NotNone,
    Relation,
    SameObject,
    SetMembers,
    StorageOverlap,
    TensorMatch,
    TypeMatch,
    compared_by_identity,
    constant_by_value,
    guarded_by_identity,
    has_nan,
    insertion_order,
    is_nan_scalar,
    overlapping_pairs,
)
from .object_state import BuiltinContents, DictValueAt, IteratorState, WeakReferent
from .policy import RecompileLimitWarning, RecompilePolicy
from .portable import from_records, to_records
from .query_sources import Called, TensorMeta
from .sources import (
    Attr,
    Builtin,
    Closure,
    Const,
    DictAttr,
    Global,
    Item,
    Local,
    ModuleBuffer,
    ModuleParam,
    Source,
    Submodule,
    TensorSize,
    TypeOf,
)

__version__ = "0.1.0"

__all__ = [
    "AcceleratorWarning",
    "Attr",
    "Builtin",
    "BuiltinContents",
    "Called",
    "Closure",
    "Const",
    "ConstantMatch",
    "DictAttr",
    "DictContains",
    "DictKeys",
    "DictValueAt",
    "GeneratorFunction",
    "Global",
    "GlobalState",
    "Guard",
    "GuardFailure",
    "GuardFn",
    "Identity",
    "IsNone",
    "Item",
    "IteratorState",
    "Length",
    "Local",
    "ModuleBuffer",
    "ModuleParam",
    "NoAliasing",
    "NotNone",
    "RecompileLimitWarning",
    "RecompilePolicy",
    "Relation",
    "SameObject",
    "SetMembers",
    "Source",
    "StorageOverlap",
    "Submodule",
    "TensorMatch",
    "TensorMeta",
    "TensorSize",
    "TypeMatch",
    "TypeOf",
    "WeakReferent",
    "accelerator_available",
    "accelerator_error",
    "compared_by_identity",
    "compile",
    "constant_by_value",
    "from_records",
    "guarded_by_identity",
    "has_nan",
    "insertion_order",
    "is_nan_scalar",
    "overlapping_pairs",
    "simplify",
    "to_records",
]

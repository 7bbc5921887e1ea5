"""Guards for torch functions folded to a constant from constant arguments.

A torch builtin called on constants alone answers from process state the graph does not record
(``torch.is_anomaly_enabled()``, ``torch._C._get_cudnn_enabled()``, ``torch.is_warn_always_enabled()``, the
SDPA backend flags): the trace folds the answer into a constant, as it folds ``torch.promote_types(a, b)``.
Unless the global-state guard covers it (grad mode, the default dtype), the answer is guarded by asking again:
``ConstantMatch(Called(Const(fn), args, kwargs), answer)``, so the entry is reused only while the function
still answers the same. The answer guarded is the one on entry to the frame, asked when the guards are built
(the trace may have changed what the query reads, in an ``sdpa_kernel`` block, and folded the answer there:
the same entry state gives the same fold). A pure function costs one call per check; a changed setting
recompiles.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from loom_guards import Called, Const

from .constant import ConstantVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def guard_folded_query(tx: InstructionTranslator, fn: Any, args: list[Variable], kwargs: dict[str, Variable],
                       result: Variable) -> None:
    """Guard ``result``, what ``fn(*args, **kwargs)`` folded to, when every argument is a constant (an answer
    depending on a tensor argument is what the tensor guards keep)."""
    if not isinstance(result, ConstantVariable) or tx.output.function_modes:
        return  # a graph value, or an answer a TorchFunctionMode traced in the program gave (its own guards)
    if not isinstance(fn, types.BuiltinFunctionType):
        # a Python function of torch's recorded whole (F._canonical_mask(None, ...)): its answer is computed from
        # its arguments, and asking it again at every check would cost a Python call; the state queries are C
        return
    operands = [*args, *kwargs.values()]
    if not all(v.is_python_constant() for v in operands):
        return
    source = Called(Const(fn), tuple(a.as_python_constant() for a in args),
                    tuple((k, v.as_python_constant()) for k, v in kwargs.items()))
    try:
        hash(source)
    except TypeError:
        return  # an unhashable constant argument (a list): such shape arithmetic is pure
    tx.output.guards.add("asked", source, None)  # its answer on entry, asked when the guards are built

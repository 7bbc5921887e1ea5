"""``copy.deepcopy`` of a tensor made in the trace: a ``clone`` in the graph, where that is eager's copy.

``Tensor.__deepcopy__`` copies the tensor's whole storage and sets the copy over it at the same offset,
sizes and strides, with the same ``requires_grad`` (a new leaf) and a deep copy of its ``__dict__``.
For a tensor that is its storage exactly (offset 0, dense, no gap: what a computation in the graph
usually makes) without grad, python attributes or a torch-function mode to see the call, that is what
``clone(memory_format=torch.preserve_format)`` gives, so the copy is one graph node (torch.compile
captures it too). A graph input (a module's buffer, ``copy.deepcopy(nn.BatchNorm1d(3))``) is one too where
the real tensor is no view and owns its storage exactly (:func:`_owns_its_storage`). Anything else (a view,
a tensor requiring grad: a new leaf in eager, or an error for a non-leaf) is handed to the original
``deepcopy``, traced, which breaks the graph as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch._prims_common import is_non_overlapping_and_dense_or_false

from loom_guards import Attr

from ..polyfills.copy import _original_deepcopy, deepcopy_tensor
from .builtins import builtin
from .functions import UserFunctionVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def copies_as_clone(tx: InstructionTranslator, value: Variable) -> bool:
    """Whether eager's ``copy.deepcopy(value)`` is ``value.clone()`` (see the module's docstring)."""
    if type(value) is not TensorVariable or value.cls is not torch.Tensor:
        return False
    if value.made_leaf is not None or value.frozen_from is not None:
        return False
    if (value.source is None) != (value.real is None) or (value.real is not None and not _owns_its_storage(tx, value)):
        return False
    if tx.output.function_modes or tx.output.side_effects.attr_overlay.get(id(value.example)):
        return False
    t = value.example
    if t.requires_grad or t.layout is not torch.strided or t.is_conj() or t.is_neg() or t.is_quantized:
        return False
    if any(isinstance(n, torch.SymInt) for n in (*t.shape, *t.stride(), t.storage_offset())):
        return False
    return (t.storage_offset() == 0 and is_non_overlapping_and_dense_or_false(t)
            and t.untyped_storage().nbytes() == t.numel() * t.element_size())


def _owns_its_storage(tx: InstructionTranslator, value: TensorVariable) -> bool:
    """A graph input (a module's buffer) whose storage is its own, with no Python attributes to copy: the
    real tensor tells its offset and storage size, which the guards do not see. Its sizes and strides are
    guarded; that it is no view (``_base`` None) is guarded here: a view's copy takes its base's whole storage.
    A tensor that is no view yet spans less than its storage (a shrinking ``resize_``) is not told apart: its
    copy holds the same values, sizes and strides as eager's, in a storage of its own extent."""
    real = value.real
    if type(real) is not torch.Tensor or real._base is not None or getattr(real, "__dict__", None):
        return False
    if real.storage_offset() != 0 or real.untyped_storage().nbytes() != real.numel() * real.element_size():
        return False
    tx.output.guards.add("constant", Attr(value.source, "_base"), None)
    return True


@builtin(deepcopy_tensor)
def builtin_deepcopy_tensor(tx, args, kwargs):
    """``copy.deepcopy(tensor)``: a clone where it is eager's copy, else the original, traced."""
    if len(args) == 1 and not kwargs and copies_as_clone(tx, args[0]):
        return tx.output.call_function(tx, torch.clone, [args[0]], {})
    return UserFunctionVariable(_original_deepcopy).call(tx, args, kwargs)

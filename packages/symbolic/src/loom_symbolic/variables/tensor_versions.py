"""``tensor._version`` while tracing: how many times eager has changed the tensor in place, at that point.

A tensor's version counter is shared by its views (and ``detach()``), and every in-place op, ``out=`` op and
``set_`` bumps it. FakeTensors keep counters the same way: the trace's in-place ops bump the fake's counter as
eager bumps the real one, and a fake starts at 0. So a tensor made in the trace (its counter shared with no
graph input) has the fake's version, a constant. A tensor sharing its counter with a graph input has the
input's version when the graph is called plus what the trace added: the graph input's version is read by the
rewritten code when it calls the graph (``L['x']._version``, a SymInt input with no guard), and the graph adds
the fake's count. The answer never depends on what a backend does to the real counter (AOTAutograd's
functional graph bumps a mutated input once, whatever the number of in-place ops), and a decision on it
(``if x._version > v``) is a relation guard on the input's counter, read at the next call.

Breaks: a tensor sharing its counter with a tensor made before the graph call (a parameter or leaf the program
made, a converted NumPy array), with a graph input that shares its storage with another input (two fakes of
one real counter), inside the body of a higher-order operation, and an inference tensor (eager raises).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import torch

from loom_guards import Attr

from ..errors import Unsupported
from .constant import ConstantVariable
from .tensor import ATTRIBUTE_HANDLERS, TensorVariable, storage_key

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_WHAT = "tensor attribute '_version'"
#: The placeholder's meta key holding the SymInt input of its tensor's version at the graph call.
_KEY = "loom_version_input"


def shares_counter(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether (fake) tensors ``a`` and ``b`` share one version counter: ``b``'s is moved for a moment and
    ``a``'s read (no API names a counter)."""
    if a is b:
        return True
    before = b._version
    moved = max(before, a._version) + 1  # a value ``a`` does not have: it reads it only through ``b``
    torch._C._autograd._unsafe_set_version_counter((b,), (moved,))
    try:
        return a._version == moved
    finally:
        torch._C._autograd._unsafe_set_version_counter((b,), (before,))


def version(tx: InstructionTranslator, tensor: TensorVariable) -> Variable:
    """``tensor._version``: a constant for a tensor made in the trace, else the version its graph input
    arrives with plus the trace's in-place count (see the module docstring)."""
    output = tx.output
    fake = tensor.example
    if tensor.made_leaf is not None:
        raise Unsupported(_WHAT, "the tensor is a leaf the program made, which the graph fills in place")
    if fake.is_inference():
        raise Unsupported(_WHAT, "an inference tensor has no version counter (eager raises)")
    if output.body_depth:
        raise Unsupported(_WHAT, "read inside the body of a higher-order operation")
    count = fake._version
    owner = next((i for i in output.inputs
                  if isinstance(i.node.meta.get("val"), torch.Tensor) and shares_counter(fake, i.node.meta["val"])),
                 None)
    if owner is None:
        return ConstantVariable(count)  # made in the trace: counted from 0 there, as eager counts it
    if owner.convert is not None or owner.fresh or owner.source is None:
        raise Unsupported(_WHAT, "its counter is that of a tensor made before the graph call")
    entry = owner.node.meta.get(_KEY)
    if entry is None:
        real = owner.example
        key = storage_key(real)
        if any(i is not owner and isinstance(i.example, torch.Tensor) and i.example is not real
               and storage_key(i.example) == key for i in output.inputs):
            raise Unsupported(_WHAT, "another graph input shares its storage: the trace counts their in-place "
                                     "ops apart, eager on one counter")
        entry = owner.node.meta[_KEY] = output.add_symint_input(real._version, Attr(owner.source, "_version"),
                                                                read_again=False)
    if count == 0:
        return entry
    return output.call_function(tx, operator.add, [entry, ConstantVariable(count)], {})


ATTRIBUTE_HANDLERS["_version"] = version

"""``torch.autograd.grad(outputs, inputs, ...)`` recorded in the graph, not a graph break.

The call is a node of the graph and its gradients are the graph's tensors: the eager backend runs
autograd on the graph's own tensors, and AOTAutograd traces the call into explicit backward ops. Nothing
is accumulated into ``.grad``, so the checks are :mod:`.tensor_backward`'s without the accumulation: the
leaves the outputs reach are graph inputs that are real leaves with no hooks (guarded), no hook or
``retain_grad()`` was registered in the frame, and the call is not in a higher-order op's body, a
TorchFunctionMode or an autocast region. ``create_graph=True`` (a gradient differentiated again) and
``is_grads_batched`` keep the break. An error eager raises (an input the outputs do not reach without
``allow_unused``, a second walk of a freed graph) is raised by the fake run, and the call then runs natively.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .base import Variable, is_none_constant
from .constant import ConstantVariable
from .containers import ListVariable
from .tensor import TensorVariable
from .tensor_backward import (
    leaf_variable,
    reached_leaves,
    record_autograd_grad,
    refuse_regions,
    tensors_given,
)
from .torch import RECORDED_WHERE_MODELLED

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_WHAT = "torch.autograd.grad()"
_NAMES = ("outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "only_inputs", "allow_unused",
          "is_grads_batched", "materialize_grads")
#: Arguments passed on as they are when they are constants (``only_inputs`` is ignored by torch).
_CONSTANT_FLAGS = ("retain_graph", "only_inputs", "allow_unused", "materialize_grads")


def _flag(value: Variable | None) -> object:
    """A flag's constant value (None when not given); ``_NOT_CONSTANT`` when it is known only at run time."""
    if value is None:
        return None
    return value.as_python_constant() if value.is_python_constant() else _NOT_CONSTANT


_NOT_CONSTANT = object()


def autograd_grad(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``torch.autograd.grad(...)`` in the graph (module docstring); None where it is not modelled (a break)."""
    if len(args) > len(_NAMES) or set(kwargs) - set(_NAMES):
        return None
    bound = dict(zip(_NAMES, args)) | kwargs
    outputs, inputs = tensors_given(bound.get("outputs")), tensors_given(bound.get("inputs"))
    if outputs is None or inputs is None:
        return None
    flags = {name: _flag(bound.get(name)) for name in (*_CONSTANT_FLAGS, "create_graph", "is_grads_batched")}
    if _NOT_CONSTANT in flags.values() or flags["create_graph"] or flags["is_grads_batched"]:
        return None
    grad_outputs = bound.get("grad_outputs")
    if not is_none_constant(grad_outputs):
        given = getattr(grad_outputs, "items", None) if not isinstance(grad_outputs, TensorVariable) else [grad_outputs]
        if given is None or len(given) != len(outputs) or not all(
                isinstance(g, TensorVariable) or is_none_constant(g) for g in given):
            return None
        grad_outputs = ListVariable(list(given))
    if not all(out.example.requires_grad for out in outputs):
        return None  # eager raises: the break runs it natively, and eager's error comes from there
    refuse_regions(tx, _WHAT)
    for out in outputs:
        for leaf in reached_leaves(out.example):
            leaf_variable(tx, leaf, _WHAT)
    call_kwargs: dict[str, Variable] = {name: ConstantVariable(flags[name]) for name in _CONSTANT_FLAGS
                                        if flags[name] is not None}
    if not is_none_constant(grad_outputs):
        call_kwargs["grad_outputs"] = grad_outputs
    return record_autograd_grad(tx, [ListVariable(outputs), ListVariable(inputs)], call_kwargs)


RECORDED_WHERE_MODELLED[torch.autograd.grad] = autograd_grad

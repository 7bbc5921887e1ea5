"""``nn.Parameter(t)`` while tracing (``nn.Linear(3, 3)`` made in the compiled function, ``self.w =
nn.Parameter(torch.ones(n))`` in a lazily built layer).

Eager makes a new leaf tensor that shares ``t``'s storage; autograd accumulates into it. A graph cannot
return a leaf of its own that later ops in the same graph already used, so the parameter is made
outside the graph and handed in: the rewritten code makes an empty parameter of ``t``'s shape, dtype and
device just before the graph call (a graph input whose source is :class:`NewParameterValue`), and the
graph gives it ``t``'s storage with ``set_`` under ``no_grad`` (as ``param.data = t`` is recorded), before
any op that reads it. Ops on it after that are ops on a real leaf, so gradients reach it as in eager,
and the rewritten code hands the same object back wherever the program keeps it.

Data the graph takes as an input (``nn.Parameter(self.w)`` over a plain tensor attribute, as torch.compile
captures it) is shared the same way: the parameter made before the graph takes the input's storage.
What is not modelled breaks there, naming the construct: data read from outside the graph otherwise
(a constant), data of symbolic size, ``Parameter()`` with no data, a tensor subclass, ``requires_grad``
that is not a constant.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported, UserError
from .constant import ConstantVariable
from .new_objects import CONSTRUCTORS
from .tensor import TensorVariable, keep_version, storage_key

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


@dataclass(frozen=True)
class NewParameterValue:
    """The source of a graph input that is a parameter the program creates: the ``index``-th one the
    rewritten code makes before the graph call (:class:`NewParameters`)."""

    index: int

    def __str__(self) -> str:
        return f"new_parameter#{self.index}"


class NewParameters:
    """The parameters a graph's frame creates, in program order: calling the object makes them empty
    (shape, dtype, device, requires_grad as the trace saw) and returns them (the rewritten code keeps
    them in a local); the graph fills each with its data. Leaves made by ``requires_grad_()``
    (:mod:`.made_leaves`) are made here too: plain tensors, the spec's last item False."""

    def __init__(self) -> None:
        self.specs: list[Any] = []  # (shape, dtype, device, requires_grad, is a Parameter), or a call
        self.variables: list[TensorVariable] = []  # the graph input standing for each, in the same order

    def __call__(self) -> list[torch.Tensor]:
        # A spec is a shape-and-dtype tuple, or a call that makes the whole leaf (made_leaves.factory_leaf).
        return [spec() if callable(spec) else _empty(*spec) for spec in self.specs]

    def __len__(self) -> int:
        return len(self.specs)

    def __repr__(self) -> str:
        return f"<new parameters: {', '.join(_describe(spec) for spec in self.specs)}>"


def _describe(spec: Any) -> str:
    if callable(spec):
        return f"{getattr(spec.func, '__name__', spec.func)}(...)"
    return f"{tuple(spec[0])}:{spec[1]}"


def _empty(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device, requires_grad: bool,
           parameter: bool) -> torch.Tensor:
    empty = torch.empty(shape, dtype=dtype, device=device)
    return torch.nn.Parameter(empty, requires_grad) if parameter else empty.requires_grad_(requires_grad)


class NewParameterVariable(TensorVariable):
    """A parameter created while tracing: in the graph, the placeholder its data was moved into; to the
    rewritten code, the object made before the graph call (never re-read through guards: no source)."""

    def __init__(self, node: Any, example: torch.Tensor, made: NewParameterValue) -> None:
        super().__init__(node, example, source=None, cls=torch.nn.Parameter)
        self.made = made

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "grad" and (stored := tx.output.side_effects.stored_attribute(self.example, "grad")) is not None:
            return stored  # assigned in the trace, or accumulated by a backward recorded in the graph
        if name in ("grad_fn", "grad"):  # a new leaf: no history, no gradient yet
            return ConstantVariable(None)
        if name == "is_leaf":
            return ConstantVariable(True)
        return super().var_getattr(tx, name)

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_source(self.made)

    def describe(self) -> str:
        return "a Parameter made while tracing"


def make_parameter(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``nn.Parameter(data, requires_grad=True)``: see the module docstring."""
    what = "creating an nn.Parameter"
    bound = dict(zip(("data", "requires_grad"), args))
    for key, value in kwargs.items():
        if key not in ("data", "requires_grad") or key in bound or len(args) > 2:
            raise UserError("Parameter()", f"unexpected or repeated argument {key!r}", exc_type=TypeError)
        bound[key] = value
    data, requires_grad = bound.get("data"), bound.get("requires_grad")
    if data is None:
        raise Unsupported(what, "with no data (an empty parameter) it is not modelled")
    if not isinstance(data, TensorVariable):
        raise Unsupported(what, f"its data is {data.describe()}, not a tensor computed in the graph")
    if (data.source is not None or data.real is not None) and data.node.op != "placeholder":
        raise Unsupported(what, "its data is read from outside the compiled code (only graph inputs and data the graph "
                                "computes are modelled)")
    if isinstance(data, NewParameterVariable) or data.cls not in (torch.Tensor, torch.nn.Parameter):
        raise Unsupported(what, f"its data is a {data.cls.__name__} (only a plain tensor is modelled)")
    if requires_grad is None:
        grad = True
    elif requires_grad.is_python_constant() and isinstance(requires_grad.as_python_constant(), bool):
        grad = requires_grad.as_python_constant()
    else:
        raise Unsupported(what, f"requires_grad is {requires_grad.describe()}, not a constant bool")
    example = data.example
    if any(not isinstance(d, int) for d in example.shape):
        raise Unsupported(what, "its data has a symbolic size (the empty parameter is made before the graph)")
    spec = (tuple(int(d) for d in example.shape), example.dtype, example.device, grad, True)
    copy = sole_holder(data)
    param = made_before_the_graph(tx, data, spec, NewParameterVariable, copy=copy)
    if copy:  # eager's data and parameter share one storage: the data is the parameter's detached alias now
        alias = tx.output.call_function(tx, torch.Tensor.detach, [param], {})
        data.node, data.example = alias.node, alias.example
    return param


def sole_holder(tensor: TensorVariable) -> bool:
    """Whether a tensor made before the graph may take ``tensor``'s values instead of its storage:
    ``tensor`` was computed by an op of the graph into memory of its own (no argument of the op shares its
    storage: not a view, not a ``detach()``), is contiguous as the empty tensor made before the graph is,
    and no op used it yet (no view of it exists, which the storage's new owner would not reach)."""
    example, node = tensor.example, tensor.node
    if node.op not in ("call_function", "call_method") or node.users or example._base is not None:
        return False
    key = storage_key(example)
    return example.is_contiguous() and all(storage_key(n.meta.get("val")) != key for n in node.all_input_nodes)


def made_by_a_call_before_the_graph(tx: InstructionTranslator, call: functools.partial, wrap_as: Any) -> TensorVariable:
    """A tensor the rewritten code makes whole before the graph call by ``call()`` (a factory of constant
    arguments, :mod:`.made_leaves`), handed in as a graph input (``wrap_as(node, fake, made)``)."""
    return _handed_in(tx, call, call(), wrap_as)


def made_before_the_graph(tx: InstructionTranslator, data: TensorVariable, spec: tuple, wrap_as: Any,
                          copy: bool = False) -> TensorVariable:
    """A tensor the rewritten code makes empty before the graph call (``spec``: shape, dtype, device,
    requires_grad, whether a Parameter), handed in as a graph input (``wrap_as(node, fake, made)``),
    that the graph gives ``data``'s storage before any op reads it; or, with ``copy``, ``data``'s values
    (``copy_``), where nothing else holds ``data``'s storage: ``set_`` drops the autograd accumulator of a
    tensor requiring grad, and AOTAutograd makes its input's ``set_`` after the graph's autograd node took
    that accumulator, so ``torch.autograd.grad`` with respect to the leaf would not find it in the graph."""
    output = tx.output
    param = _handed_in(tx, spec, _empty(*spec), wrap_as)
    grad_enabled = output.grad_enabled
    output.set_grad_enabled(tx, False)
    moved = output.call_function(tx, torch.Tensor.copy_ if copy else torch.Tensor.set_, [param, data], {})
    output.set_grad_enabled(tx, grad_enabled)
    # a fresh parameter's version counter starts at 0, as eager's does (AOTAutograd reads it)
    kept = output.call_function(tx, keep_version, [moved], {})
    kept.node.meta["mutates"] = True
    return param


def _handed_in(tx: InstructionTranslator, spec: Any, real: torch.Tensor, wrap_as: Any) -> TensorVariable:
    """A graph input for the tensor the rewritten code makes from ``spec`` before the graph call (``real``,
    made from it now, is the example the backend compiles for), wrapped as ``wrap_as(node, fake, made)``."""
    output = tx.output
    made = NewParameterValue(len(output.new_parameters))
    output.new_parameters.specs.append(spec)
    node = output.add_made_input(real, made)
    variable = wrap_as(node, output.fake_mode.fake_input(real), made)
    output.new_parameters.variables.append(variable)
    return variable


def made_input_of_example(tx: InstructionTranslator, example: torch.Tensor) -> TensorVariable | None:
    """The graph input standing for a tensor the rewritten code makes before the graph (a new parameter or
    leaf) whose fake tensor is ``example``, if any."""
    return next((v for v in tx.output.new_parameters.variables if v.example is example), None)


CONSTRUCTORS[torch.nn.Parameter] = make_parameter

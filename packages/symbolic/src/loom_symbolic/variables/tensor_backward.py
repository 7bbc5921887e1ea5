"""``loss.backward()`` (and ``torch.autograd.backward(loss)``) recorded in the graph, not a graph break.

Eager's backward walks the autograd graph from ``loss`` and adds each leaf's gradient into its ``.grad``.
The fake tensors the trace runs on keep that graph too, so the leaves ``loss`` reaches are known while
tracing: the graph records ``torch.autograd.grad(loss, leaves, allow_unused=True)`` and then, with grad
mode off, what eager's ``AccumulateGrad`` does with each gradient (the gradient layout contract):

- the leaf has no ``.grad`` yet: a new tensor laid out like the leaf (``empty_like`` then ``copy_``) becomes
  its ``.grad``, stored on the real leaf after the graph;
- it has one (handed in, or stored earlier in the trace): that tensor grows in place (``add_``), so the
  object the program holds is eager's.

A compiling backend's functional trace (AOTAutograd) records the backward ops themselves. Later reads of
``.grad`` in the frame see the new values; a second ``backward`` through the freed graph fails on the
fake tensors as it fails in eager (a break, eager's error raised natively).

Only what this models exactly is recorded; anything else keeps the break, with its reason:
``create_graph``, ``inputs=``, a tensor that does not require grad or a non-scalar without ``gradient``
(eager raises), a leaf the graph cannot hand its gradient to (a leaf computed outside the graph's inputs,
a graph input that is not a leaf: its history outside the graph would get the gradient), hooks on
several leaves (their order is the engine's; one leaf's hooks are traced where eager runs them,
:mod:`.backward_leaf_hooks`), a sparse ``.grad``, a hook or ``retain_grad()`` the frame registered on a
tensor the graph made (its gradient is inside the one ``autograd.grad`` call), a backward inside a
higher-order op's body, a ``TorchFunctionMode`` the frame pushed or an autocast region, and any backward while
a ``torch.distributed`` process group of more than one rank exists: DDP and FSDP hook each leaf's gradient
accumulator in C++, where Python cannot see the hooks, and ``torch.autograd.grad`` never runs the
accumulator (a DDP or FSDP wrapper is a new module, and its parameters new tensors, so an entry traced
before the group existed does not serve it). Their forward breaks in the frame anyway (the loss then comes
from outside the graph); this check keeps that so for a wrapper whose forward a later release traces. A
one-rank group (a test's, a notebook's) leaves the backward in the graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .backward_leaf_hooks import (
    GRADIENT_HOOKS,
    POST_ACCUMULATE_HOOKS,
    autograd_nodes,
    check_hooked_leaves,
    leaf_hooks,
    run_gradient_hooks,
    run_post_accumulate_hooks,
)
from .base import Variable, is_none_constant
from .constant import ConstantVariable
from .containers import ListVariable
from .new_parameters import made_input_of_example
from .tensor import HOOKED, METHOD_HANDLERS, RETAINED, TensorVariable, guard_unmatched_metadata
from .tensor_hooks import hook_table
from .torch import RECORDED_WHERE_MODELLED

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_WHAT = "Tensor.backward()"
_HOOK_TABLES = (GRADIENT_HOOKS, POST_ACCUMULATE_HOOKS)


def _constant(value: Variable | None, default: Any) -> Any:
    """A keyword's constant value (``default`` when not given); raises Unsupported if it is not a constant."""
    if value is None:
        return default
    if not value.is_python_constant():
        raise Unsupported(_WHAT, "an argument known only at run time")
    return value.as_python_constant()


def reached_leaves(loss: torch.Tensor) -> list[torch.Tensor]:
    """The leaves (fake tensors) whose ``AccumulateGrad`` node the backward of ``loss`` reaches, in the
    order they are first found (``loss`` itself where it is a leaf: its gradient is ``gradient``, or 1)."""
    if loss.grad_fn is None:
        return [loss]
    leaves: dict[int, torch.Tensor] = {}
    for node in autograd_nodes(loss):
        variable = getattr(node, "variable", None)
        if isinstance(variable, torch.Tensor):  # an AccumulateGrad node
            leaves.setdefault(id(variable), variable)
    return list(leaves.values())


def refuse_regions(tx: InstructionTranslator, what: str) -> None:
    """Raise Unsupported where a backward cannot be recorded at this point of the trace: inside a
    higher-order op's body (it holds no effects), a TorchFunctionMode the frame pushed (eager hands it the
    call), an autocast region (it would retype the traced backward ops), or after the frame registered a
    tensor hook or ``retain_grad()`` (installed after the graph, too late for a backward inside it)."""
    output = tx.output
    if output.body_depth or output.function_modes or output.autocast_regions:
        raise Unsupported(what, "inside a higher-order op's body, a TorchFunctionMode or an autocast region")
    if hooks_registered_in_frame(tx):
        raise Unsupported(what, "the frame registered a tensor hook or retain_grad(), installed after the graph")


def _several_ranks() -> bool:
    """Whether a ``torch.distributed`` default process group of more than one rank exists."""
    distributed = torch.distributed
    return distributed.is_available() and distributed.is_initialized() and distributed.get_world_size() > 1


def hooks_registered_in_frame(tx: InstructionTranslator) -> bool:
    """Whether the trace registered a hook or ``retain_grad()`` on a tensor the graph made: they are
    installed on the real tensor after the graph, and its gradient is inside ``torch.autograd.grad``'s
    walk, where no traced call can reach it. (A leaf's hooks are traced: :mod:`.backward_leaf_hooks`.)"""
    return any(HOOKED in node.meta or RETAINED in node.meta for node in tx.output.graph.nodes)


def leaf_variable(tx: InstructionTranslator, leaf: torch.Tensor, what: str = _WHAT,
                  hooks_allowed: bool = False) -> TensorVariable:
    """The graph input that is ``leaf``, checked to be a real leaf (guarded) and, unless ``hooks_allowed``,
    to have no hooks (guarded); ``what`` names the call in the break raised otherwise."""
    variable = tx.output.input_of_example(leaf) or made_input_of_example(tx, leaf)
    if variable is None:
        raise Unsupported(what, "it reaches autograd history from outside the graph (a graph input that is "
                                 "not a leaf, or a leaf the graph does not receive)")
    if variable.real is not None and variable.source is not None:
        guard_unmatched_metadata(tx, variable, "is_leaf")
        if not variable.real.is_leaf:
            raise Unsupported(what, "it reaches a graph input that is not a leaf: its history outside the "
                                     "graph would get the gradient")
    for name in () if hooks_allowed else _HOOK_TABLES:
        table = hook_table(name, tx, variable)
        # (None: a parameter made in the frame, whose hooks only the trace could have registered)
        if table is not None and not is_none_constant(table):
            raise Unsupported(what, f"a leaf it reaches has hooks ({name}): they run inside eager's backward")
    return variable


def _current_grad(tx: InstructionTranslator, leaf: TensorVariable) -> TensorVariable | None:
    """The leaf's ``.grad`` as the trace sees it: a dense tensor, or None."""
    current = leaf.var_getattr(tx, "grad")
    if isinstance(current, TensorVariable):
        if current.example.layout != torch.strided:
            raise Unsupported(_WHAT, "a leaf it reaches has a sparse .grad")
        return current
    if not is_none_constant(current):
        raise Unsupported(_WHAT, "a leaf it reaches holds something other than a tensor in .grad")
    return None


def _accumulate(tx: InstructionTranslator, leaf: TensorVariable, current: TensorVariable | None,
                gradient: TensorVariable) -> None:
    """Eager's ``AccumulateGrad`` for one leaf (its ``.grad`` is ``current``), recorded with grad mode off."""
    if current is not None:
        current.call_method(tx, "add_", [gradient], {})
        return
    laid_out = tx.output.call_function(tx, torch.empty_like, [leaf], {})
    laid_out.call_method(tx, "copy_", [gradient], {})
    leaf.store_attr(tx, "grad", laid_out)


def record_backward(tx: InstructionTranslator, loss: TensorVariable, gradient: Variable | None,
                    retain_graph: Variable | None, create_graph: Variable | None,
                    inputs: Variable | None) -> Variable | None:
    """``loss.backward(gradient, retain_graph, create_graph, inputs)`` in the graph (see the module
    docstring); None where the call is not one this models (the caller breaks with its reason)."""
    if not is_none_constant(inputs):
        return None
    if _constant(create_graph, False):
        return None
    keep = _constant(retain_graph, None)
    example = loss.example
    if not example.requires_grad or (gradient is None and example.numel() != 1):
        return None  # eager raises: the break runs it natively, and eager's error comes from there
    if is_none_constant(gradient):
        gradient = None
    elif not isinstance(gradient, TensorVariable):
        return None
    output = tx.output
    refuse_regions(tx, _WHAT)
    if _several_ranks():
        raise Unsupported(_WHAT, "a torch.distributed process group of several ranks exists: DDP and FSDP hook "
                                 "gradient accumulation where the graph cannot see it")
    leaves = [leaf_variable(tx, leaf, hooks_allowed=True) for leaf in reached_leaves(example)]
    if not leaves:
        return ConstantVariable(None)  # eager's backward finds nothing to accumulate into either
    currents = [_current_grad(tx, leaf) for leaf in leaves]  # (checked before anything is recorded)
    hooks = [(leaf_hooks(tx, leaf, GRADIENT_HOOKS, _WHAT), leaf_hooks(tx, leaf, POST_ACCUMULATE_HOOKS, _WHAT))
             for leaf in leaves]
    check_hooked_leaves(sum(1 for pair in hooks if pair != ([], [])), example, _WHAT)
    kwargs: dict[str, Variable] = {"allow_unused": ConstantVariable(True)}
    if keep is not None:
        kwargs["retain_graph"] = ConstantVariable(bool(keep))
    if gradient is not None:
        kwargs["grad_outputs"] = ListVariable([gradient])
    gradients = record_autograd_grad(tx, [loss, ListVariable(leaves)], kwargs)
    grad_enabled = output.grad_enabled
    output.set_grad_enabled(tx, False)
    try:
        for leaf, current, leaf_gradient, (gradient_hooks, post_hooks) in zip(leaves, currents, gradients.items, hooks):
            if isinstance(leaf_gradient, TensorVariable):  # None: the path to it carries no gradient
                leaf_gradient = run_gradient_hooks(tx, gradient_hooks, leaf_gradient, _WHAT)
                _accumulate(tx, leaf, current, leaf_gradient)
                run_post_accumulate_hooks(tx, post_hooks, leaf, _WHAT)
    finally:
        output.set_grad_enabled(tx, grad_enabled)
    return ConstantVariable(None)


def record_autograd_grad(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """Record ``torch.autograd.grad(*args, **kwargs)``, marked as never dead code: it frees the autograd
    graph it walks, so it stays in order with the rest even where nothing reads a gradient."""
    gradients = tx.output.call_function(tx, torch.autograd.grad, args, kwargs)
    next(node for node in reversed(tx.output.graph.nodes) if node.target is torch.autograd.grad).meta["mutates"] = True
    return gradients


def tensors_given(value: Variable | None) -> list[TensorVariable] | None:
    """A tensor, or a non-empty list or tuple of tensors, as a list; None for anything else."""
    if isinstance(value, TensorVariable):
        return [value]
    items = getattr(value, "items", None)
    if isinstance(items, list) and items and all(isinstance(item, TensorVariable) for item in items):
        return list(items)
    return None


def tensor_backward(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable | None:
    """``tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)``."""
    names = ("gradient", "retain_graph", "create_graph", "inputs")
    if len(args) > len(names) or set(kwargs) - set(names):
        return None
    bound = dict(zip(names, args)) | kwargs
    return record_backward(tx, tensor, *(bound.get(name) for name in names))


def autograd_backward(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``torch.autograd.backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
    grad_variables=None, inputs=None)`` of one tensor (alone or in a one-item list or tuple): as
    ``tensor.backward``."""
    names = ("tensors", "grad_tensors", "retain_graph", "create_graph", "grad_variables", "inputs")
    if len(args) > len(names) or set(kwargs) - set(names) or "grad_variables" in kwargs:
        return None
    bound = dict(zip(names, args)) | kwargs
    loss, gradient = _single(bound.get("tensors")), bound.get("grad_tensors")
    if not is_none_constant(gradient):
        gradient = _single(gradient)
        if gradient is None:
            return None
    if loss is None:
        return None
    return record_backward(tx, loss, gradient, bound.get("retain_graph"), bound.get("create_graph"), bound.get("inputs"))


def _single(value: Variable | None) -> TensorVariable | None:
    """A tensor given alone or as the one item of a list or tuple; None for anything else."""
    given = tensors_given(value)
    return given[0] if given is not None and len(given) == 1 else None


METHOD_HANDLERS["backward"] = tensor_backward
RECORDED_WHERE_MODELLED[torch.autograd.backward] = autograd_backward

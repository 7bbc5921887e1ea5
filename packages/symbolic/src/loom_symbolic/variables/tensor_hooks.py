"""``tensor.register_hook(hook)`` on a tensor that exists outside the graph (a graph input: a leaf the
program was handed, a parameter; or a leaf the program made, which :mod:`.made_leaves` makes before the
graph), without a graph break.

Eager's ``Tensor.register_hook`` keeps the tensor's hooks in an ``OrderedDict`` held by its ``_backward_hooks``
slot (made on the first registration, which also hands it to the tensor's ``grad_fn`` when it has one), and
returns a ``RemovableHandle`` keyed in that dict. Hooks only run in a backward pass, which the graph never
runs (a ``backward()`` after a registration in the frame stays a graph break, :mod:`.tensor_backward`, and the
rewritten code registers before it), so the registration is
state the frame leaves: in the trace it is a dict mutation, replayed on the real tensor after the graph. A
first registration makes the dict in the trace and stores it on the tensor (the real slot is guarded None);
a later one adds to the dict the trace holds or, from outside the frame, the real dict (guarded by its keys).
The handle is :mod:`.hook_handles`'s, so ``remove()`` (also as a ``with`` block) is traced like any other.
``register_post_accumulate_grad_hook`` is the same, with the leaf's ``_post_accumulate_grad_hooks``.

A tensor made in the graph (an intermediate, an output) that no op of it used yet is handled the same way
(``register_hook`` and ``retain_grad()``, :func:`_made_here`): the tensor is a graph output and the calls are
made on it after the graph. Its node is marked (``HOOKED``) and an op using it later breaks
(``TensorVariable.as_graph_arg``): under an AOTAutograd backend the graph is one autograd node, and that op's
gradient would otherwise stay inside it, unseen by the hook. One that other ops of the graph already used runs
the whole frame as it is (``frame_as_is``) for the same reason. Its hooks are installed as
:class:`DefinedGradOnly`. Subclasses with ``__torch_function__`` and bodies traced apart still break. So does reading
``grad_fn`` of a tensor made in the graph: a compiled graph keeps no autograd node per op.

Also here: reads of ``_backward_hooks`` and ``_post_accumulate_grad_hooks`` (the dicts above, or None) and
``retains_grad`` (False on a leaf and on a tensor made in the graph), and ``retain_grad()`` where eager's
does nothing (a leaf) or raises (no grad).
"""

from __future__ import annotations

import collections
import functools
import operator
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Attr

from ..errors import Unsupported, UserError
from .base import Variable
from .constant import ConstantVariable
from .containers import DictVariable
from .hook_handles import make_removable_handle
from .registry import wrap
from .tensor import (
    ATTRIBUTE_HANDLERS,
    HOOKED,
    METHOD_HANDLERS,
    RETAINED,
    TensorVariable,
    guard_unmatched_metadata,
)

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_NO_GRAD = "cannot register a hook on a tensor that doesn't require gradient"
_NOT_LEAF = "post accumulate grad hooks cannot be registered on non-leaf tensors"
_NO_RETAIN = "can't retain_grad on Tensor that has requires_grad=False"


def register_with_grad_fn(tensor: Any) -> None:
    """What eager's first registration does for a tensor with history: hand its hook dict to ``grad_fn``
    (called by the rewritten code after it stores the dict)."""
    tensor.grad_fn._register_hook_dict(tensor)


class DefinedGradOnly:
    """A hook the trace registered on a tensor the graph made, as the rewritten code installs it: called only
    with a gradient. Eager's node for such a tensor has one output, so it never hands its hooks None; a
    compiled graph's outputs share one node (an AOTAutograd backend's), which hands the hooks of an output
    that got no gradient None while another output got one."""

    def __init__(self, hook: Any) -> None:
        self.__wrapped__ = hook

    def __call__(self, grad: Any) -> Any:
        return None if grad is None else self.__wrapped__(grad)

    def __repr__(self) -> str:
        return f"DefinedGradOnly({self.__wrapped__!r})"


def register_made_in_graph(tensor: Any) -> None:
    """:func:`register_with_grad_fn` for a tensor the graph made by a one-output op, its hooks (those the
    frame registered: the dict holds them all when this runs) made :class:`DefinedGradOnly`."""
    hooks = tensor._backward_hooks
    for key, hook in list(hooks.items()):
        hooks[key] = DefinedGradOnly(hook)
    register_with_grad_fn(tensor)


def retain_on(tensor: Any) -> None:
    """``tensor.retain_grad()``, made by the rewritten code after the graph on a tensor the graph made."""
    tensor.retain_grad()


def _hook_table(tx: InstructionTranslator, tensor: TensorVariable, make: bool,
                name: str = "_backward_hooks") -> Variable | None:
    """The tensor's hook dict ``name`` (or None) as the trace sees it; ``make``: made and stored on the
    tensor if it has none yet."""
    real, identity = tensor.real, tensor._identity()
    side_effects = tx.output.side_effects
    stored = side_effects.stored_attribute(identity, name)
    if stored is not None:
        return stored
    if real is not None:  # a leaf made in the trace (made_leaves) has none yet
        source = Attr(tensor.source, name)
        existing = getattr(real, name)
        if existing is not None:
            return wrap(tx, existing, source)
        tx.output.guards.add("identity", source, None)
    if not make:
        return ConstantVariable(None)
    table = DictVariable({}, cls=collections.OrderedDict)
    side_effects.store_attr(tensor, identity, name, table)
    has_history = real.grad_fn is not None if real is not None else not tensor.example.is_leaf
    if name == "_backward_hooks" and has_history:
        one_output = _made_in_graph(tensor) and tensor.node.target is not operator.getitem
        side_effects.deferred_call(register_made_in_graph if one_output else register_with_grad_fn, [tensor], {}, None)
    return table


def _from_outside(tensor: TensorVariable) -> bool:
    """Whether ``tensor`` exists outside the graph: one the program was handed (its real object is known,
    and the variable stands for it), or a leaf the rewritten code makes before the graph (made_leaves)."""
    if tensor.hands_calls or tensor.frozen_from is not None:
        return False
    return (tensor.real is not None and tensor.source is not None) or tensor.made_leaf is not None


def _made_in_graph(tensor: TensorVariable) -> bool:
    return tensor.real is None and tensor.source is None and tensor.made_leaf is None


def _made_here(tx: InstructionTranslator, tensor: TensorVariable, method: str) -> bool:
    """Whether ``tensor.<method>()`` on a tensor the graph made is made after the graph, on the real tensor
    (a graph output): not inside a body traced apart (a ``torch.func`` transform, a checkpoint...), nor on a
    subclass handed its ops; refused (the whole frame as it is) where ops of the graph already used it. Ops
    using it later break (``TensorVariable.as_graph_arg``), so that their gradient reaches the hook through
    the real tensor."""
    if not _made_in_graph(tensor) or tensor.hands_calls:
        return False
    if tensor.example._is_view():
        # an in-place op on its base later in the graph would give the real view a new grad_fn before the
        # registration (in torch 2.x registering then can crash, and the hook would not be eager's)
        return False
    _refuse_after_use(tensor, method)
    return tx.output.body_depth == 0 and tensor.node.graph is tx.output.graph


def _frame_as_is(what: str, why: str, hint: str) -> Unsupported:
    error = Unsupported(what, why, hint)
    error.reason.frame_as_is = True
    return error


def _refuse_after_use(tensor: TensorVariable, method: str) -> None:
    """Refuse the whole frame when ``tensor``, made in the graph, already feeds other ops of it: split there,
    the graph would keep the gradient those ops send back to ``tensor`` inside its own backward (an AOTAutograd
    backend's one node), out of reach of the hook the rest of the frame registers on the real output. Eager's
    hook sees that gradient too. Used only after its registration, a break there is right."""
    if tensor.node.users:
        raise _frame_as_is(f"Tensor.{method}() on a tensor the graph already used",
                           "the gradient of the earlier uses would stay inside the compiled graph, out of the "
                           "hook's reach", "register the hook before the tensor's first use")


def grad_fn(tx: InstructionTranslator, tensor: TensorVariable) -> Variable | None:
    """``tensor.grad_fn`` of a tensor the graph made with autograd history: eager's node for the op that made
    it, which a compiled graph does not keep (an AOTAutograd backend makes one node for the whole graph), so
    the frame runs as it is. A leaf input (a parameter, as ``register_parameter`` checks) has none, its
    leafness guarded. Anything else is the real tensor's (a break)."""
    if _made_in_graph(tensor) and tensor.example.requires_grad and not tensor.example.is_leaf:
        raise _frame_as_is("tensor.grad_fn of a tensor made in the graph",
                           "a compiled graph keeps no autograd node per op", "read grad_fn outside the compiled code")
    if tensor.source is not None and tensor.real is not None and tensor.real.is_leaf and tensor.example.is_leaf:
        guard_unmatched_metadata(tx, tensor, "is_leaf")
        return ConstantVariable(None)
    return None


def _register(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable], kwargs: dict[str, Variable],
              method: str, table_name: str) -> Variable | None:
    """``tensor.<method>(hook)``, which keys ``hook`` in the tensor's dict ``table_name`` under a new handle."""
    if len(args) + len(kwargs) != 1 or set(kwargs) - {"hook"}:
        return None
    if tensor.hands_calls or getattr(tensor.cls, method, None) is not getattr(torch.Tensor, method):
        return None
    if not tensor.example.requires_grad:  # wherever the tensor comes from
        raise UserError(f"Tensor.{method}()", _NO_GRAD, exc_type=RuntimeError, exc_args=(_NO_GRAD,))
    if table_name == "_post_accumulate_grad_hooks" and not tensor.example.is_leaf:
        raise UserError(f"Tensor.{method}()", _NOT_LEAF, exc_type=RuntimeError, exc_args=(_NOT_LEAF,))
    if not _from_outside(tensor) and not _made_here(tx, tensor, method):
        return None
    hook = args[0] if args else kwargs["hook"]
    table = _hook_table(tx, tensor, True, table_name)
    if not isinstance(table, DictVariable):
        return None
    if _made_in_graph(tensor):
        tensor.node.meta.setdefault(HOOKED, f"{method}()")
    handle = make_removable_handle(tx, [table], {})
    table.call_method(tx, "__setitem__", [handle.attrs["id"], hook], {})
    return handle


def hook_table(name: str, tx: InstructionTranslator, tensor: TensorVariable) -> Variable | None:
    """``tensor._backward_hooks`` (``name``, or ``_post_accumulate_grad_hooks``): None for a tensor made in
    the graph (registering on one breaks), else the dict the trace holds or the real one."""
    if _made_in_graph(tensor):  # the dict a registration in the trace made, else None
        return _hook_table(tx, tensor, False, name)
    return _hook_table(tx, tensor, False, name) if _from_outside(tensor) else None


def retain_grad(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable],
                kwargs: dict[str, Variable]) -> Variable | None:
    """``tensor.retain_grad()``: eager's error without grad, nothing on a leaf; on a tensor the graph made,
    made after the graph on the real tensor (a graph output), as a hook is (:func:`_made_here`); on any
    other tensor with history, a break."""
    if args or kwargs:
        return None
    if not tensor.example.requires_grad:
        raise UserError("Tensor.retain_grad()", _NO_RETAIN, exc_type=RuntimeError, exc_args=(_NO_RETAIN,))
    if tensor.example.is_leaf:
        return ConstantVariable(None)
    if _made_in_graph(tensor) and RETAINED in tensor.node.meta:
        return ConstantVariable(None)  # eager's second call does nothing
    if not _made_here(tx, tensor, "retain_grad"):
        return None
    tx.output.side_effects.deferred_call(retain_on, [tensor], {}, None)
    tensor.node.meta[RETAINED] = True
    tensor.node.meta.setdefault(HOOKED, "retain_grad()")
    return ConstantVariable(None)


def retains_grad(tx: InstructionTranslator, tensor: TensorVariable) -> Variable | None:
    """``tensor.retains_grad``: False on a leaf; on a tensor made in the graph, whether the trace called
    ``retain_grad()`` on it; the real tensor's flag otherwise (a break)."""
    if _made_in_graph(tensor):
        return ConstantVariable(RETAINED in tensor.node.meta)
    if tensor.example.is_leaf:
        return ConstantVariable(False)
    return None


def register_hook(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable],
                  kwargs: dict[str, Variable]) -> Variable | None:
    """``tensor.register_hook(hook)``: see the module docstring (None: not modelled, it breaks)."""
    return _register(tx, tensor, args, kwargs, "register_hook", "_backward_hooks")


def register_post_accumulate_grad_hook(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable],
                                       kwargs: dict[str, Variable]) -> Variable | None:
    """``leaf.register_post_accumulate_grad_hook(hook)``: as ``register_hook``, in the leaf's
    ``_post_accumulate_grad_hooks`` (eager refuses a tensor with history)."""
    return _register(tx, tensor, args, kwargs, "register_post_accumulate_grad_hook", "_post_accumulate_grad_hooks")


METHOD_HANDLERS.update(register_hook=register_hook, retain_grad=retain_grad,
                       register_post_accumulate_grad_hook=register_post_accumulate_grad_hook)
ATTRIBUTE_HANDLERS.update({name: functools.partial(hook_table, name)
                           for name in ("_backward_hooks", "_post_accumulate_grad_hooks")})
ATTRIBUTE_HANDLERS.update(retains_grad=retains_grad, grad_fn=grad_fn)

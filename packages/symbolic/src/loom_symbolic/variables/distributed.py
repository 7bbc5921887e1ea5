"""``torch.distributed`` collectives called in traced code, captured as functional collectives.

``dist.all_reduce(t)`` mutates ``t`` through a process group: no FX graph can hold that call as it is.
PyTorch's functional collectives (``torch.ops._c10d_functional``) are its graph form: a collective
returns a new tensor, ``wait_tensor`` waits for it, and the in-place write becomes ``t.copy_(result)``.
AOTAutograd and Inductor-style backends trace them like any op; run eagerly they call the same process
group. The group is resolved while tracing (``None``: the default group) and enters the graph as its
name; its size, for ``all_gather_into_tensor`` and ``reduce_scatter_tensor``, as a constant.

Modelled: ``all_reduce``, ``all_gather_into_tensor``, ``reduce_scatter_tensor`` and ``broadcast`` with
``async_op=False``. Anything else (``async_op=True``, reduce ops without a functional form, a group the
trace cannot resolve) is a graph break, so the call runs natively, as it would without loom.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
import torch.distributed as dist

from ..errors import Unsupported
from . import tensor as _tensor_vars
from .base import RealValueVariable, Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator



def _reduce_op_name(op: Any) -> str:
    names = {dist.ReduceOp.SUM: "sum", dist.ReduceOp.AVG: "avg", dist.ReduceOp.PRODUCT: "product",
             dist.ReduceOp.MIN: "min", dist.ReduceOp.MAX: "max"}
    for known, name in names.items():
        if op == known:
            return name
    raise Unsupported(f"a collective with reduce op {op!r}", "it has no functional-collective form")


def _real(variable: Variable | None, what: str) -> Any:
    """The Python value a non-tensor argument stands for (a constant, a group, a reduce op)."""
    if variable is None:
        return None
    if variable.is_python_constant():
        return variable.as_python_constant()
    value = getattr(variable, "value", None)
    if isinstance(variable, RealValueVariable) or (value is not None and getattr(variable, "source", None) is not None):
        return value
    raise Unsupported(f"a collective whose {what} is computed at run time", f"its {what} must be known while tracing")


def _group(variable: Variable | None) -> tuple[str, int]:
    """The process group's name and size (None: the default group)."""
    group = _real(variable, "group")
    if not dist.is_initialized():
        raise Unsupported("a collective before init_process_group()", "there is no process group to capture")
    if group is None:
        group = dist.group.WORLD
    if not isinstance(group, dist.ProcessGroup):
        raise Unsupported(f"a collective over {type(group).__name__}", "expected a ProcessGroup or None")
    return group.group_name, dist.get_world_size(group)


def _tensor(variable: Variable | None, what: str) -> Variable:
    if not isinstance(variable, _tensor_vars.TensorVariable):
        raise Unsupported(f"a collective whose {what} is not a traced tensor", "expected a tensor")
    return variable


def _functional(tx: InstructionTranslator, op: Any, args: list[Variable]) -> Variable:
    """``wait_tensor(op(*args))`` recorded in the graph."""
    issued = tx.output.call_function(tx, op, args, {})
    return tx.output.call_function(tx, torch.ops._c10d_functional.wait_tensor.default, [issued], {})


def _write_back(tx: InstructionTranslator, target: Variable, result: Variable) -> Variable:
    """The collective's in-place write, as ``target.copy_(result)``; the call itself returns None."""
    target.call_method(tx, "copy_", [result], {})
    return ConstantVariable(None)


def _op_name(op):
    """The functional collectives' name of a ``dist.ReduceOp`` argument (``sum`` when not given)."""
    return "sum" if op is None else _reduce_op_name(_real(op, "reduce op"))


def _all_reduce(tx, a):
    tensor = _tensor(a["tensor"], "tensor")
    name, _ = _group(a.get("group"))
    op = _op_name(a.get("op"))
    result = _functional(tx, torch.ops._c10d_functional.all_reduce.default,
                         [tensor, ConstantVariable(op), ConstantVariable(name)])
    return _write_back(tx, tensor, result)


def _all_gather_into_tensor(tx, a):
    output, source = _tensor(a["output_tensor"], "output tensor"), _tensor(a["input_tensor"], "input tensor")
    name, size = _group(a.get("group"))
    result = _functional(tx, torch.ops._c10d_functional.all_gather_into_tensor.default,
                         [source, ConstantVariable(size), ConstantVariable(name)])
    return _write_back(tx, output, result)


def _reduce_scatter_tensor(tx, a):
    output, source = _tensor(a["output"], "output tensor"), _tensor(a["input"], "input tensor")
    name, size = _group(a.get("group"))
    op = _op_name(a.get("op"))
    result = _functional(tx, torch.ops._c10d_functional.reduce_scatter_tensor.default,
                         [source, ConstantVariable(op), ConstantVariable(size), ConstantVariable(name)])
    return _write_back(tx, output, result)


def _broadcast(tx, a):
    tensor = _tensor(a["tensor"], "tensor")
    group = a.get("group")
    name, _ = _group(group)
    src, group_src = _real(a.get("src"), "source rank"), _real(a.get("group_src"), "source rank")
    real_group = _real(group, "group")
    if group_src is None:
        if src is None:
            raise Unsupported("broadcast() without a source rank", "expected src= or group_src=")
        # The functional op takes the source's rank in the group; broadcast's src is a global rank.
        group_src = src if real_group is None else dist.get_group_rank(real_group, src)
    result = _functional(tx, torch.ops._c10d_functional.broadcast.default,
                         [tensor, ConstantVariable(int(group_src)), ConstantVariable(name)])
    return _write_back(tx, tensor, result)


_MODELS: dict[str, Callable[..., Variable]] = {
    "all_reduce": _all_reduce,
    "all_gather_into_tensor": _all_gather_into_tensor,
    "reduce_scatter_tensor": _reduce_scatter_tensor,
    "broadcast": _broadcast,
}


class CollectiveVariable(RealValueVariable):
    """One of the ``torch.distributed`` collectives above: a call records its functional form."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        name = self.value.__name__
        try:
            bound = inspect.signature(self.value).bind(*args, **kwargs)
        except TypeError as exc:
            raise Unsupported(f"torch.distributed.{name}() with these arguments", str(exc)) from None
        arguments = dict(bound.arguments)
        if _real(arguments.get("async_op"), "async_op"):
            raise Unsupported(f"torch.distributed.{name}(async_op=True)",
                              "the work handle it returns cannot be captured; it runs natively")
        return _MODELS[name](tx, arguments)

    def describe(self) -> str:
        return f"torch.distributed.{self.value.__name__}"


def collective_functions() -> dict[Any, type[RealValueVariable]]:
    """The collectives modelled here, for the wrap rules (empty without torch.distributed)."""
    if not dist.is_available():
        return {}
    return {getattr(dist, name): CollectiveVariable for name in _MODELS}


#: Looked up by the wrap rules for every Python function it wraps (by identity).
FUNCTIONS: dict[Any, type[RealValueVariable]] = collective_functions()

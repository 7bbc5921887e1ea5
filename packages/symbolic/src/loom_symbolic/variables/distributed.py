"""``torch.distributed`` collectives called in traced code, captured as functional collectives.

``dist.all_reduce(t)`` mutates ``t`` through a process group: no FX graph can hold that call as it is.
PyTorch's functional collectives (``torch.ops._c10d_functional``) are its graph form: a collective
returns a new tensor, ``wait_tensor`` waits for it, and the in-place write becomes ``t.copy_(result)``.
AOTAutograd and Inductor-style backends trace them like any op; run eagerly they call the same process
group. The group is resolved while tracing (``None``: the default group) and enters the graph as its
name; its size, for ``all_gather_into_tensor`` and ``reduce_scatter_tensor``, as a constant.

Modelled (``async_op=False``): ``all_reduce``, ``all_gather_into_tensor`` (and its aliases
``all_gather_single``, ``_all_gather_base``), ``reduce_scatter_tensor`` (``reduce_scatter_single``,
``_reduce_scatter_base``) and ``broadcast``, each one functional collective; the list forms ``all_gather``
(one ``all_gather_into_tensor``, each list element copied its rank's piece) and ``reduce_scatter`` (the list
flattened into one ``reduce_scatter_tensor``); ``all_to_all_single`` (even dim-0 splits or Python-int split
sizes) and ``all_to_all`` (the lists flattened into one ``all_to_all_single``). ``get_rank`` and
``get_world_size`` of a resolved group are constants. Anything else (``async_op=True``, reduce ops without a
functional form, a group the trace cannot resolve, uneven or symbolic-size list forms, ``all_to_all_single``
splitting by element count) is a graph break, so the call runs natively, as it would without loom.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
import torch.distributed as dist

from ..errors import Unsupported
from . import tensor as _tensor_vars
from .base import RealValueVariable, Variable
from .constant import ConstantVariable
from .sequences import ListVariable

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


def _static_shape(variable: Variable, what: str) -> tuple[int, ...]:
    """A tensor's sizes, when every one is a plain int (the list forms split and check by them)."""
    shape = tuple(variable.example.shape)
    if not all(type(size) is int for size in shape):
        raise Unsupported(f"a collective whose {what} has symbolic sizes", "its split is decided by its sizes")
    return shape


def _tensors(variable: Variable | None, what: str) -> list[Variable]:
    """The tensors of a list argument, each a traced tensor (eager refuses a tuple: so does this, natively)."""
    if not isinstance(variable, ListVariable):
        raise Unsupported(f"a collective whose {what} is not a list of tensors", "expected a list")
    return [_tensor(item, what) for item in variable.items]


def _same_dtype(tensors: list[Variable], what: str) -> None:
    """One real dtype for all (eager refuses mixed dtypes, and sends complex tensors as real views)."""
    dtypes = {t.example.dtype for t in tensors}
    if len(dtypes) > 1 or any(d.is_complex for d in dtypes):
        raise Unsupported(f"a collective over {what} of dtypes {sorted(map(str, dtypes))}",
                          "its functional form takes one real dtype")


def _method(tx: InstructionTranslator, tensor: Variable, name: str, *args: Any) -> Variable:
    """``tensor.name(*args)`` recorded in the graph (constant arguments)."""
    return tensor.call_method(tx, name, [ConstantVariable(a) for a in args], {})


def _flat_cat(tx: InstructionTranslator, tensors: list[Variable]) -> Variable:
    """``torch.cat([t.reshape(-1) for t in tensors])``: one flat tensor, the list's elements in order."""
    flat = ListVariable([_method(tx, t, "reshape", -1) for t in tensors])
    return tx.output.call_function(tx, torch.cat, [flat], {})


def _write_back_flat(tx: InstructionTranslator, targets: list[Variable], flat: Variable) -> Variable:
    """Each target gets its own numel of the flat result, in order, in its own shape."""
    offset = 0
    for target in targets:
        shape = _static_shape(target, "output")
        count = math.prod(shape)
        piece = _method(tx, _method(tx, flat, "narrow", 0, offset, count), "view", shape)
        target.call_method(tx, "copy_", [piece], {})
        offset += count
    return ConstantVariable(None)


def _one_per_rank(single: Variable, listed: list[Variable], size: int, call: str) -> None:
    """Check a list form's even case: one tensor per rank, each of ``single``'s shape, all of one real dtype."""
    shape = _static_shape(single, "tensor")
    if len(listed) != size or any(_static_shape(t, "list's tensor") != shape for t in listed):
        raise Unsupported(f"{call} with a list whose tensors differ from its other tensor in size or number",
                          f"an uneven {call} has no functional form")
    _same_dtype([single, *listed], "tensors")


def _all_gather(tx, a):
    """``all_gather(tensor_list, tensor)``: one ``all_gather_into_tensor``, each rank's piece copied to its slot."""
    source, targets = _tensor(a["tensor"], "input tensor"), _tensors(a["tensor_list"], "output list")
    name, size = _group(a.get("group"))
    _one_per_rank(source, targets, size, "all_gather()")
    gathered = _functional(tx, torch.ops._c10d_functional.all_gather_into_tensor.default,
                           [_method(tx, source, "reshape", -1), ConstantVariable(size), ConstantVariable(name)])
    return _write_back_flat(tx, targets, gathered)


def _reduce_scatter(tx, a):
    """``reduce_scatter(output, input_list)``: the list flattened into one ``reduce_scatter_tensor``."""
    output, sources = _tensor(a["output"], "output tensor"), _tensors(a["input_list"], "input list")
    name, size = _group(a.get("group"))
    op = _op_name(a.get("op"))
    _one_per_rank(output, sources, size, "reduce_scatter()")
    result = _functional(tx, torch.ops._c10d_functional.reduce_scatter_tensor.default,
                         [_flat_cat(tx, sources), ConstantVariable(op), ConstantVariable(size), ConstantVariable(name)])
    return _write_back_flat(tx, [output], result)


def _split_sizes(variable: Variable | None, size: int, what: str) -> list[int] | None:
    sizes = _real(variable, what)
    if sizes is None:
        return None
    if not isinstance(sizes, (list, tuple)) or len(sizes) != size or not all(type(s) is int for s in sizes):
        raise Unsupported(f"all_to_all_single() with {what} {sizes!r}", f"expected {size} ints known while tracing")
    return list(sizes)


def _all_to_all_single(tx, a):
    """``all_to_all_single(output, input, output_split_sizes, input_split_sizes)`` along dim 0."""
    output, source = _tensor(a["output"], "output tensor"), _tensor(a["input"], "input tensor")
    name, size = _group(a.get("group"))
    shape = _static_shape(source, "input tensor")
    outs = _split_sizes(a.get("output_split_sizes"), size, "output split sizes")
    ins = _split_sizes(a.get("input_split_sizes"), size, "input split sizes")
    if not shape or (outs is None) != (ins is None) or (ins is None and shape[0] % size):
        raise Unsupported("all_to_all_single() without even splits along dim 0",
                          "its split would be by element count, which the functional form has not")
    if ins is None:
        ins = outs = [shape[0] // size] * size
    if sum(ins) != shape[0] or _static_shape(output, "output") != (sum(outs), *shape[1:]):
        raise Unsupported("all_to_all_single() whose tensors do not match its split sizes", "eager raises")
    _same_dtype([output, source], "tensors")
    result = _functional(tx, torch.ops._c10d_functional.all_to_all_single.default,
                         [source, _int_list(outs), _int_list(ins), ConstantVariable(name)])
    return _write_back(tx, output, result)


def _all_to_all(tx, a):
    """``all_to_all(output_list, input_list)``: the lists flattened into one ``all_to_all_single``."""
    targets = _tensors(a["output_tensor_list"], "output list")
    sources = _tensors(a["input_tensor_list"], "input list")
    name, size = _group(a.get("group"))
    if len(targets) != size or len(sources) != size:
        raise Unsupported("all_to_all() of lists not one tensor per rank", "eager raises")
    _same_dtype([*targets, *sources], "tensors")
    outs = [math.prod(_static_shape(t, "output")) for t in targets]
    ins = [math.prod(_static_shape(t, "input")) for t in sources]
    result = _functional(tx, torch.ops._c10d_functional.all_to_all_single.default,
                         [_flat_cat(tx, sources), _int_list(outs), _int_list(ins), ConstantVariable(name)])
    return _write_back_flat(tx, targets, result)


def _get_world_size(tx, a):
    """``get_world_size(group)``: fixed for the process group's life, a constant (as in torch.compile)."""
    return ConstantVariable(_group(a.get("group"))[1])


def _get_rank(tx, a):
    """``get_rank(group)``: this process's rank in the group, a constant like the group's size."""
    _group(a.get("group"))
    return ConstantVariable(dist.get_rank(_real(a.get("group"), "group")))


def _int_list(values: list[int]) -> Variable:
    return ListVariable([ConstantVariable(v) for v in values])


#: Collective name -> handler. Aliases share one: ``all_gather_single``, ``_all_gather_base`` and
#: ``all_gather_into_tensor`` take the same arguments (as do the reduce-scatter ones).
_MODELS: dict[str, Callable[..., Variable]] = {
    "all_reduce": _all_reduce,
    "all_gather_into_tensor": _all_gather_into_tensor,
    "all_gather_single": _all_gather_into_tensor,
    "_all_gather_base": _all_gather_into_tensor,
    "reduce_scatter_tensor": _reduce_scatter_tensor,
    "reduce_scatter_single": _reduce_scatter_tensor,
    "_reduce_scatter_base": _reduce_scatter_tensor,
    "broadcast": _broadcast,
    "all_gather": _all_gather,
    "reduce_scatter": _reduce_scatter,
    "all_to_all_single": _all_to_all_single,
    "all_to_all": _all_to_all,
    "get_world_size": _get_world_size,
    "get_rank": _get_rank,
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
    return {getattr(dist, name): CollectiveVariable for name in _MODELS if hasattr(dist, name)}


#: Looked up by the wrap rules for every Python function it wraps (by identity).
FUNCTIONS: dict[Any, type[RealValueVariable]] = collective_functions()

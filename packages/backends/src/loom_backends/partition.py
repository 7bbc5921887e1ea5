"""The partitioner the kernel backends give AOTAutograd: min-cut rematerialisation after loom's own
common-subexpression elimination (CSE) of the joint forward-backward graph.

torch's min-cut partitioner eliminates common subexpressions first (functorch's ``cse`` option) with a
pass that imports ``torch._inductor.pattern_matcher``, and with it most of inductor: 0.75 s of CPU time
here, the largest single cost of a training step's first call once AOTAutograd's own modules are
loaded. :func:`min_cut_partition` runs :func:`eliminate_common_subexpressions` instead and calls the
partitioner with ``cse`` off (restored on return); with functorch's ``cse`` option off, neither runs.

The pass merges a node into an earlier one only when both are certainly the same value: the same ATen
op overload with equal arguments (floats compared by their exact text, so ``0.0`` and ``-0.0`` differ),
a functional op (no mutable argument), not a random or uninitialised-memory op, computing a tensor whose
storage is not returned by the graph (two outputs with equal contents stay two tensors), with no
symbolic value among its arguments, and no mutation or opaque call between the two (each starts a new
region, as torch's pass counts mutation regions). Anything else is left as it is: the pass can miss a
duplicate, never merge two different values.
"""

from __future__ import annotations

import operator
from typing import Any

import torch
from torch.multiprocessing.reductions import StorageWeakRef

_PLAIN = (int, bool, str, type(None), torch.dtype, torch.device, torch.layout, torch.memory_format)


class _Unhashable(Exception):
    pass


def min_cut_partition(joint_module: torch.fx.GraphModule, joint_inputs: Any, **kwargs: Any) -> Any:
    """torch's ``min_cut_rematerialization_partition`` over ``joint_module`` after
    :func:`eliminate_common_subexpressions` (see the module docstring)."""
    import torch._functorch.config as functorch_config
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    if functorch_config.cse:
        if eliminate_common_subexpressions(joint_module.graph):
            joint_module.recompile()
    with functorch_config.patch(cse=False):
        return min_cut_rematerialization_partition(joint_module, joint_inputs, **kwargs)


def eliminate_common_subexpressions(graph: torch.fx.Graph) -> int:
    """Merge each duplicate node of ``graph`` into its first occurrence (in place); how many were merged."""
    returned = _returned_storages(graph)
    seen: dict[Any, torch.fx.Node] = {}
    region = 0
    merged = 0
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        if _starts_region(node):
            region += 1
            continue
        if not _mergeable(node, returned):
            continue
        try:
            key = (node.target, _frozen(node.args), _frozen(node.kwargs), region)
        except _Unhashable:
            continue
        first = seen.setdefault(key, node)
        if first is not node:
            node.replace_all_uses_with(first)
            graph.erase_node(node)
            merged += 1
    return merged


def _starts_region(node: torch.fx.Node) -> bool:
    """A node after which an equal-looking call may see other values: a mutation, or a call this pass
    does not know (a higher-order op, a Python function)."""
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return target._schema.is_mutable
    return target not in _PURE_PYTHON


# Python calls in a joint graph that neither mutate nor depend on anything but their arguments (size
# arithmetic, taking an element of a multi-output op's result).
_PURE_PYTHON = frozenset({
    operator.getitem, operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
    operator.mod, operator.pow, operator.neg, operator.eq, operator.ne, operator.lt, operator.le, operator.gt,
    operator.ge,
})  # fmt: skip


def _mergeable(node: torch.fx.Node, returned: set[Any]) -> bool:
    target = node.target
    if target is not operator.getitem:  # an element of a multi-output op's result: as pure as the op
        if not isinstance(target, torch._ops.OpOverload):
            return False
        if torch.Tag.nondeterministic_seeded in target.tags or "empty" in target._schema.name:
            return False  # random draws, and memory whose contents are not defined
    storages = _storages(node)
    return storages is not None and not storages & returned


def _storages(node: torch.fx.Node) -> set[Any] | None:
    """The storages of the tensor (or tuple of tensors) a node computes; None for anything else."""
    value = node.meta.get("val")
    values = value if isinstance(value, (list, tuple)) else [value]
    if not values or not all(isinstance(v, torch.Tensor) for v in values):
        return None
    try:
        return {StorageWeakRef(v.untyped_storage()) for v in values}
    except (NotImplementedError, RuntimeError):
        return None


def _returned_storages(graph: torch.fx.Graph) -> set[Any]:
    outputs = [n for n in graph.nodes if n.op == "output"]
    return {s for out in outputs for n in out.all_input_nodes for s in (_storages(n) or ())}


def _frozen(value: Any) -> Any:
    """A hashable image of an argument in which values compare equal only if they are the same."""
    if isinstance(value, torch.fx.Node):
        return ("node", value)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_frozen(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _frozen(v)) for k, v in value.items()))
    if type(value) is float:
        return ("float", repr(value))
    if type(value) in _PLAIN:
        return (type(value).__name__, value)
    raise _Unhashable(type(value).__name__)

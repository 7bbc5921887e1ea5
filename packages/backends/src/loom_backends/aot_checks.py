"""What the AOTAutograd cache checks in the forward and backward graphs AOTAutograd compiled, before it
stores them: that :func:`loom_backends.aot_replay.replayed_function` runs them exactly as AOTAutograd's
own runtime would (see :mod:`loom_backends.aot_cache` for the cases it serves).

AOTAutograd's forward graph returns the mutated inputs' new values, the user's outputs, intermediate
bases, then what the backward needs; its backward graph takes the saved values, then one gradient per
output that needs one, and returns one gradient per input. These checks read that layout off the graphs
(node names, the fake values AOTAutograd recorded in ``meta["val"]``) and the forward-output count it
asked the partitioner for, and refuse anything but the plain case.
"""

from __future__ import annotations

from typing import Any

import torch

from .aot_replay import Plan


def forward_problem(
    gm: torch.fx.GraphModule, inputs: list[Any], num_outputs: int, num_fwd_outputs: int | None
) -> str | None:
    """Why the forward graph ``gm`` is not one the cache replays exactly; None when it is."""
    import torch._functorch.config as functorch_config
    from torch._prims_common import is_non_overlapping_and_dense_or_false
    from torch.multiprocessing.reductions import StorageWeakRef

    if num_outputs < 1:
        return "a graph without outputs"
    if num_fwd_outputs != num_outputs:
        return "input mutations, intermediate bases or effect tokens (extra forward outputs)"
    if functorch_config.functionalize_rng_ops or not functorch_config.guess_tangent_strides_as_outputs:
        return "functorch's config asks for RNG functionalisation or memory-format tangents"
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs):
        return "the forward graph takes more than the graph's inputs"
    (outs,) = next(n for n in reversed(gm.graph.nodes) if n.op == "output").args
    if len(outs) < num_outputs or len(set(outs[:num_outputs])) != num_outputs:
        return "an output returned twice"
    storages: set[Any] = set()
    for node in placeholders:
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            return "an input without a recorded tensor"
        storages.add(StorageWeakRef(val.untyped_storage()))
    for node in outs[:num_outputs]:
        val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
        if not isinstance(val, torch.Tensor) or node.op == "placeholder":
            return "an output that is not a computed tensor"
        if isinstance(node.target, torch._ops.OpOverload) and node.target.is_view:
            return "an output that is a view"
        if val._is_view() or not is_non_overlapping_and_dense_or_false(val):
            return "an output that is a view or not dense"
        storage = StorageWeakRef(val.untyped_storage())
        if storage in storages:
            return "an output aliases an input or another output"
        storages.add(storage)
    for node in outs[num_outputs:]:
        if not isinstance(node, torch.fx.Node) or not isinstance(node.meta.get("val"), torch.Tensor):
            return "a value saved for backward that is not a tensor"
        if node.meta.get("saved_tensor_with_no_vc_check", False):
            return "a tensor saved without a version check"
    return None


def backward_plan(
    forward: torch.fx.GraphModule,
    gm: torch.fx.GraphModule,
    inputs: list[Any],
    num_outputs: int,
    input_flags: list[tuple[bool, bool]],
) -> Plan | str:
    """The :class:`Plan` of replaying ``forward`` and the backward graph ``gm`` (whose example inputs are
    ``inputs``); a string saying why not when the pair is not the plain case."""
    (fw_outs,) = next(n for n in reversed(forward.graph.nodes) if n.op == "output").args
    saved = fw_outs[num_outputs:]
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs) or len(placeholders) != len(saved) + num_outputs:
        return "not every output gets a gradient (or the backward takes more)"
    if [n.name for n in placeholders[: len(saved)]] != [n.name for n in saved]:
        return "the backward's saved inputs are not the forward's saved outputs"
    tangents = []
    for node, x, out in zip(placeholders[len(saved) :], inputs[len(saved) :], fw_outs[:num_outputs]):
        if not node.name.startswith("tangents") or not isinstance(x, torch.Tensor):
            return "an unexpected backward input"
        if tuple(x.shape) != tuple(out.meta["val"].shape) or not all(type(s) is int for s in x.stride()):
            return "a gradient input that does not match its output"
        tangents.append((tuple(int(s) for s in x.shape), tuple(int(s) for s in x.stride())))
    (bw_outs,) = next(n for n in reversed(gm.graph.nodes) if n.op == "output").args
    if len(bw_outs) != len(input_flags):
        return "the backward does not return one gradient per input"
    detach = [
        i
        for i, (out, (requires_grad, is_leaf)) in enumerate(zip(bw_outs, input_flags))
        if out is None and requires_grad and not is_leaf
    ]  # AOTAutograd detaches these first (its "inputs that never need gradients")
    return Plan(num_outputs, len(saved), tangents, detach)

"""What the AOTAutograd cache checks in the forward and backward graphs AOTAutograd compiled, before it
stores them: that :func:`loom_backends.aot_replay.replayed_function` runs them exactly as AOTAutograd's
own runtime would (see :mod:`loom_backends.aot_cache` for the cases it serves).

AOTAutograd's forward graph returns the mutated inputs' new values, the user's outputs, intermediate
bases, then what the backward needs; its backward graph takes the saved values, then one gradient per
output that needs one, and returns one gradient per input. These checks take which inputs are mutated
and what the outputs alias from AOTAutograd's own metadata (:mod:`loom_backends.aot_meta`), read the
rest of that layout off the graphs (node names, the fake values AOTAutograd recorded in
``meta["val"]``) and the forward-output count it asked the partitioner for, and refuse anything else.
"""

from __future__ import annotations

from typing import Any

import torch

from . import aot_meta
from .aot_replay import Plan


def forward_problem(
    gm: torch.fx.GraphModule, inputs: list[Any], num_outputs: int, num_fwd_outputs: int | None, meta: Any
) -> str | aot_meta.Replayable:
    """What the replay needs of AOTAutograd's metadata ``meta`` (see
    :func:`loom_backends.aot_meta.replay_problem`) when the forward graph ``gm`` is one the cache
    replays exactly; why not otherwise."""
    import torch._functorch.config as functorch_config

    if num_outputs < 1:
        return "a graph without outputs"
    if meta is None:
        return "AOTAutograd's mutation and aliasing metadata was not found"
    replayable = aot_meta.replay_problem(meta, len(inputs), num_outputs)
    if isinstance(replayable, str):
        return replayable
    returned = len(replayable.mutated) + num_outputs
    if num_fwd_outputs != returned:
        return "intermediate bases or effect tokens (extra forward outputs)"
    if functorch_config.functionalize_rng_ops or not functorch_config.guess_tangent_strides_as_outputs:
        return "functorch's config asks for RNG functionalisation or memory-format tangents"
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs):
        return "the forward graph takes more than the graph's inputs"
    if not all(isinstance(node.meta.get("val"), torch.Tensor) for node in placeholders):
        return "an input without a recorded tensor"
    (outs,) = next(n for n in reversed(gm.graph.nodes) if n.op == "output").args
    if len(outs) < returned:
        return "the forward graph returns fewer values than AOTAutograd's metadata says"
    if len(set(outs[:returned])) != returned:
        return "a value returned twice"
    for node in outs[:returned]:
        val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
        if not isinstance(val, torch.Tensor) or node.op == "placeholder":
            return "an output or mutated input's new value that is not a computed tensor"
    for node in outs[returned:]:
        if not isinstance(node, torch.fx.Node) or not isinstance(node.meta.get("val"), torch.Tensor):
            return "a value saved for backward that is not a tensor"
        if node.meta.get("saved_tensor_with_no_vc_check", False):
            return "a tensor saved without a version check"
    return replayable


def backward_plan(
    forward: torch.fx.GraphModule,
    gm: torch.fx.GraphModule,
    inputs: list[Any],
    num_outputs: int,
    input_flags: list[tuple[bool, bool]],
    replayable: aot_meta.Replayable,
) -> Plan | str:
    """The :class:`Plan` of replaying ``forward`` (which returns the new values of the inputs
    ``replayable.mutated`` first) and the backward graph ``gm`` (whose example inputs are ``inputs``); a
    string saying why not when the pair is not a case the replay reproduces."""
    mutated = replayable.mutated
    (all_outs,) = next(n for n in reversed(forward.graph.nodes) if n.op == "output").args
    fw_outs = all_outs[len(mutated) :]  # the mutated inputs need no gradient: they get no tangent
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
    return Plan(num_outputs, len(saved), tangents, detach, list(mutated), list(replayable.unsafe_views))

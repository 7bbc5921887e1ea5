"""AOTAutograd's mutation and aliasing metadata for the AOTAutograd cache: which graph inputs the forward
mutates and what each output aliases, as AOTAutograd computed it, reduced to what
:func:`loom_backends.aot_replay.replayed_function` replays exactly.

AOTAutograd describes a training graph with a ``ViewAndMutationMeta`` (``torch._functorch._aot_autograd
.schemas``): per input an ``InputAliasInfo`` (does the graph mutate its data, its metadata — size,
stride, ``set_``, a storage resize —, inside the graph or after it), per output an ``OutputAliasInfo``
(a fresh tensor, an input, a view of an input or of an intermediate, and whether it needs a gradient).
Its runtime wrappers read that to copy the forward's new values back into the mutated inputs and to
regenerate aliased outputs from their bases. It hands the metadata to no compiler, so
:func:`compiling_metadata` reads it off the frame of AOTAutograd's forward compile that called the
graph compiler (only when it is the exact type; anything else: not cached).

:func:`replay_problem` accepts only what the replay reproduces exactly: mutations of data alone (no
metadata, storage or resize mutation), applied after the forward (not kept in the graph), of inputs that
need no gradient (batch norm's running statistics and its counter); outputs that need a gradient and
are fresh tensors, views AOTAutograd itself returns as they are, or the only view of an intermediate
(which its runtime makes a fresh tensor with ``aten._unsafe_view``); no intermediate bases, effect tokens,
functionalised RNG, grad-mode change, subclass, symbolic size or tensor saved without a version check.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

#: How AOTAutograd's output types the replay does not regenerate read in a bypass reason.
_ALIASES = {
    "alias_of_input": "a view of an input",
    "is_input": "an input itself",
    "alias_of_intermediate": "a view of an intermediate that is returned too",
    "alias_of_intermediate_save_as_output": "a view of an intermediate",
    "alias_of_intermediate_base_is_user_output": "a view of another output",
    "custom_function_view": "a view made by a custom autograd function",
}

#: How many frames above the graph compiler AOTAutograd's forward compile may be.
_MAX_DEPTH = 40


def compiling_metadata() -> Any | None:
    """The ``ViewAndMutationMeta`` of the forward graph AOTAutograd is compiling now (called from inside
    its graph compiler); None when no caller frame holds one."""
    from torch._functorch._aot_autograd.schemas import ViewAndMutationMeta

    frame = sys._getframe(1)
    for _ in range(_MAX_DEPTH):
        if frame is None:
            return None
        meta = frame.f_locals.get("fw_metadata") if frame.f_code.co_name.startswith("_aot_stage2") else None
        if type(meta) is ViewAndMutationMeta:
            return meta
        frame = frame.f_back
    return None


@dataclass(frozen=True)
class Replayable:
    """What the replay needs of AOTAutograd's metadata: the inputs whose data the forward mutates (in
    the order the forward graph returns their new values), and the outputs that are the only view of an
    intermediate (AOTAutograd's ``unsafe_view_alias``), which its runtime turns into a fresh tensor with
    ``aten._unsafe_view`` inside the autograd function."""

    mutated: list[int]
    unsafe_views: list[int]


def replay_problem(meta: Any, num_inputs: int, num_outputs: int) -> str | Replayable:
    """What the replay needs when ``meta`` describes a graph it reproduces exactly; why not otherwise."""
    import torch
    from torch._functorch._aot_autograd.schemas import MutationType, OutputType, PlainTensorMeta

    if len(meta.input_info) != num_inputs or len(meta.output_info) != num_outputs:
        return "AOTAutograd's metadata does not match the graph's inputs and outputs"
    if meta.num_intermediate_bases or meta.tokens or meta.is_rng_op_functionalized:
        return "intermediate bases, effect tokens or functionalised RNG"
    if any(not isinstance(m, (int, PlainTensorMeta)) for m in meta.subclass_inp_meta):
        return "a tensor subclass input"
    if (
        meta.grad_enabled_mutation is not None
        or meta.indices_of_inputs_that_requires_grad_with_mutations_in_bw
    ):
        return "a grad-mode change or a mutation in the backward"
    if getattr(meta, "dynamic_outputs", False) or meta.num_tensors_saved_with_no_vc_check:
        return "a symbolic output size or a tensor saved without a version check"
    for i, info in enumerate(meta.input_info):
        if info.mutation_type is MutationType.NOT_MUTATED:
            continue
        if info.mutates_metadata or info.mutates_storage_metadata or info.mutation_inductor_storage_resize:
            return f"input {i}'s metadata or storage is mutated"
        if info.mutation_type is not MutationType.MUTATED_OUT_GRAPH or not info.mutates_data:
            return f"input {i} is mutated inside the graph"
        if info.requires_grad:
            return f"input {i}, which needs a gradient, is mutated"
    for i, out in enumerate(meta.output_info):
        if out.output_type not in (OutputType.non_alias, OutputType.unsafe_view_alias):
            return f"output {i} is {_ALIASES.get(out.output_type.name, out.output_type.name)}"
        if not issubclass(out.raw_type, torch.Tensor) or not out.requires_grad:
            return f"output {i} is not a tensor that needs a gradient"
    mutated = [int(i) for i in meta.mutated_inp_runtime_indices]
    if mutated != [i for i, info in enumerate(meta.input_info) if info.mutates_data]:
        return "the mutated inputs are not returned in input order"
    unsafe_views = [
        i for i, out in enumerate(meta.output_info) if out.output_type is OutputType.unsafe_view_alias
    ]
    return Replayable(mutated, unsafe_views)

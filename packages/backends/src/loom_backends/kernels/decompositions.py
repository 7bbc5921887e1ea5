"""The decomposition table AOTAutograd traces with before loom lowers the graph.

Core ATen decompositions, plus the composite ops whose parts loom fuses better than it could lower the
whole (softmax, layer and group norm, batch norm in training, their backward ops, gelu's backward,
``addmm`` as ``mm`` + a fusible bias add). Ops loom lowers directly (``var_mean``, ``var``, the core
pointwise ops) are left alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch

aten = torch.ops.aten

EXTRA = [
    aten._softmax,
    aten._log_softmax,
    aten._softmax_backward_data,
    aten._log_softmax_backward_data,
    aten.native_layer_norm,
    aten.native_layer_norm_backward,
    aten.native_group_norm,
    aten.native_group_norm_backward,
    aten._native_batch_norm_legit,
    aten._native_batch_norm_legit_functional,
    aten._native_batch_norm_legit_no_training,
    aten.native_batch_norm_backward,
    aten._batch_norm_with_update,
    aten._batch_norm_with_update_functional,
    aten._batch_norm_no_update,
    aten.batch_norm_backward,
    aten.gelu_backward,
    aten.linalg_vector_norm,
    aten.addmm,
    aten.addmv,
]

# Lowered directly: keep them whole even if a table above would split them.
KEEP = {aten.var_mean.correction, aten.var.correction, aten.gelu.default}


def _is_fused_attention(op: Any) -> bool:
    # The core table decomposes the fused attention *forward* into math (meant for export) while its
    # backward stays the fused kernel, which then reads the decomposition's outputs wrongly: wrong
    # gradients (pytorch#108180 says as much). Attention stays an extern call, forward and backward.
    return "scaled_dot_product" in str(op)


@functools.cache
def decomposition_table() -> dict[Any, Callable[..., Any]]:
    from torch._decomp import core_aten_decompositions, get_decompositions

    table = dict(core_aten_decompositions())
    table.update(get_decompositions(EXTRA))
    for op in KEEP:
        table.pop(op, None)
    return {op: fn for op, fn in table.items() if not _is_fused_attention(op)}

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
    aten.gelu_backward,
    aten.addmm,
]

# Lowered directly: keep them whole even if a table above would split them.
KEEP = {aten.var_mean.correction, aten.var.correction, aten.gelu.default}


@functools.cache
def decomposition_table() -> dict[Any, Callable[..., Any]]:
    from torch._decomp import core_aten_decompositions, get_decompositions

    table = dict(core_aten_decompositions())
    table.update(get_decompositions(EXTRA))
    for op in KEEP:
        table.pop(op, None)
    return table

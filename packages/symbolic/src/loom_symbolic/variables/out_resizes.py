"""``torch.cosh(x, out=y)`` where the op resizes ``y``, a graph input: the resize is recorded as its own ``resize_``.

An ``out=`` op resizes an out tensor of another size (with a warning when it had elements). AOTAutograd then sees
an input whose size the graph changed inside an op, and replays the input's new values onto it after the graph
without resizing it first (a size mismatch at run time, PyTorch's test_misc
``test_out_variants_with_resizing_on_graph_inputs``). A ``y.resize_(size)`` recorded just before the op says it:
a graph that resizes an input keeps its input mutations in the graph (``loom_backends``), where the op then finds
``y`` of the right size, as eager's own resize leaves it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..entry_layouts import same_sizes
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def out_inputs(tx: InstructionTranslator, out: Variable | None) -> list[tuple[TensorVariable, tuple]]:
    """The graph inputs among the ``out=`` tensors, with their sizes before the call."""
    items = getattr(out, "items", None) or ([out] if out is not None else [])
    return [(v, tuple(v.example.shape)) for v in items
            if isinstance(v, TensorVariable) and tx.output.input_of_example(v.example) is not None]


def record_resizes(tx: InstructionTranslator, before: list[tuple[TensorVariable, tuple]]) -> None:
    """Insert ``out.resize_(size)`` before the ``out=`` op just recorded, for each input it resized."""
    resized = [(v, tuple(v.example.shape)) for v, size in before if not same_sizes(tuple(v.example.shape), size)]
    if not resized:
        return
    graph = tx.output.graph
    op = next((n for n in reversed(graph.nodes) if n.op == "call_function" and n.kwargs.get("out") is not None), None)
    if op is None:
        return
    for variable, size in resized:
        with graph.inserting_before(op):
            node = graph.call_function(torch.Tensor.resize_, (variable.node, size))
        node.meta.update(val=variable.example, example_value=variable.example, mutates=True)

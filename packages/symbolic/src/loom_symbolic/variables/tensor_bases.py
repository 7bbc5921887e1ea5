"""``tensor._base``: the tensor a view was made from, or None.

FakeTensors keep views as eager does (a view of a view has the first base as its own), so the fake's ``_base`` is
the base's fake, and the answer is the variable holding that fake: a graph input (found among the inputs, where
the trace keeps one variable per tensor object) or a tensor made in the graph (the node with that fake, whose
identity is the fake's, as ``is`` tells tensors apart). A graph input itself answers its real tensor's ``_base``,
read through ``L['x']._base`` like any attribute (None guarded as None, a base as a graph input of its own). A
base that is neither (the outside base of a view handed in, reached from another view of it) breaks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loom_guards import Attr

from ..errors import Unsupported
from .constant import ConstantVariable
from .registry import wrap
from .tensor import ATTRIBUTE_HANDLERS, TensorVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def base(tx: InstructionTranslator, tensor: TensorVariable) -> Variable:
    """``tensor._base`` (see the module docstring)."""
    output = tx.output
    if tensor.real is not None and tensor.source is not None and output.input_of_example(tensor.example) is not None:
        return wrap(tx, tensor.real._base, Attr(tensor.source, "_base"))
    fake_base = tensor.example._base
    if fake_base is None:
        return ConstantVariable(None)
    for graph_input in output.inputs:
        if graph_input.node.meta.get("val") is fake_base and graph_input.source is not None and graph_input.convert is None:
            return wrap(tx, graph_input.example, graph_input.source)  # the input's own variable
    node = next((n for n in reversed(output.graph.nodes) if n.meta.get("val") is fake_base), None)
    if node is None or node.op == "placeholder":
        raise Unsupported("tensor attribute '_base'", "the view's base is a tensor no graph value stands for "
                          "(the outside base of a view handed in)", hint="it runs as ordinary Python between graphs")
    return TensorVariable(node, fake_base)


ATTRIBUTE_HANDLERS["_base"] = base

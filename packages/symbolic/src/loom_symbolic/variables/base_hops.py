"""Calls of a ``torch._higher_order_ops.BaseHOP`` instance (``invoke_quant``-style operators: a subclass names
itself and is called as ``op(subgraph, *operands, **options)``): one node of that operator in the graph, as
torch.compile records it.

BaseHOP's semantics are ``subgraph(*operands)``; the options (``scheme="nf4"``) are the operator's own and never
reach the subgraph. The subgraph (a function or a ``GraphModule``) is traced as a sub-graph (:func:`.trace_body`:
it must not change Python state, grad mode or tensors in place); the node is ``op(<sub-graph>, *what it reads,
**options)``, the options constants. The operator's eager implementation then calls the sub-graph; under
autograd, its ``BaseHOPFunction`` does. A subclass's own Python ``__call__`` (it only passes its arguments on,
``super().__call__(subgraph, *operands, scheme=scheme)``) is not traced, as dynamo does not trace it either: eager's
refuses a plain function, which torch.compile takes.

A body that does not trace into one sub-graph is a graph break at the call; eager then runs it as it does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch._higher_order_ops.base_hop import BaseHOP

from ..errors import Unsupported
from . import registry
from .base import RealValueVariable
from .higher_order import record, refuse_under_function_mode, require_constants, trace_body
from .wrap_rules import _identity

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class BaseHopVariable(RealValueVariable):
    """A ``BaseHOP`` subclass's instance: a call records one node of it around the subgraph's sub-graph."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        what = self.describe()
        refuse_under_function_mode(tx, what)
        if not args:
            raise Unsupported(f"{what}() without a subgraph", f"expected {what}(subgraph, *operands)")
        options = require_constants(kwargs, what)
        body = trace_body(tx, args[0], list(args[1:]), {}, what)
        attr = tx.output.add_submodule(body.module, "subgraph")
        return record(tx, self.value, (attr, *body.lifted), [leaf.example for leaf in body.leaves], body.rebuild,
                      kwargs=options)

    def describe(self) -> str:
        return f"the higher-order op {self.value.name()} ({type(self.value).__name__})"


def _is_base_hop(value: Any) -> bool:
    return isinstance(value, BaseHOP)


# before the builtin callables' rule (210) and the Python-object fallback, which would trace BaseHOP.__call__
registry.add_rule(206, _is_base_hop, _identity(BaseHopVariable))

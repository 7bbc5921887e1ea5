"""The ``eager`` backend: run the FX graph as it is, with no compilation at all.

One rewrite: an ``invoke_subgraph`` node (a ``nested_compile_region`` call) runs as the plain call of its
sub-graph that eager makes. The op's own autograd implementation only works while a compiler traces it
(its backward asserts a fake mode), so a graph run as it is would raise in the backward where eager does not.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .graphs import check_backend_args


def eager(gm: Any, example_inputs: list[Any]) -> Callable[..., Any]:
    """Return the graph's own ``forward``: the cheapest callable that runs it (no module-call hooks)."""
    check_backend_args(gm, example_inputs)
    return _with_plain_subgraph_calls(gm).forward


def call_subgraph(subgraph: Any, identifier: Any, *operands: Any) -> Any:
    """``invoke_subgraph(subgraph, identifier, *operands)`` as eager runs a ``nested_compile_region``: a plain call."""
    return subgraph(*operands)


def _with_plain_subgraph_calls(gm: Any) -> Any:
    """``gm``, or a copy of it whose ``invoke_subgraph`` nodes (in it or its sub-graphs) call :func:`call_subgraph`."""
    import torch

    op = torch._higher_order_ops.invoke_subgraph

    def calls(module: Any) -> list[Any]:
        return [n for sub in module.modules() if isinstance(sub, torch.fx.GraphModule)
                for n in sub.graph.nodes if n.op == "call_function" and n.target is op]

    if not calls(gm):
        return gm
    gm = copy.deepcopy(gm)  # the caller's graph (shown by loom.explain) keeps the op
    for node in calls(gm):
        node.target = call_subgraph
    for sub in gm.modules():
        if isinstance(sub, torch.fx.GraphModule):
            sub.recompile()
    return gm

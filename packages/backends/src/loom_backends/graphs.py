"""Small helpers on the FX graphs backends receive: argument checks and output normalisation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def check_backend_args(gm: Any, example_inputs: Any) -> None:
    """Raise :class:`TypeError` unless ``gm`` is a GraphModule and ``example_inputs`` a list or tuple."""
    import torch.fx

    if not isinstance(gm, torch.fx.GraphModule):
        raise TypeError(f"a backend takes a torch.fx.GraphModule, got {type(gm).__name__}")
    if not isinstance(example_inputs, (list, tuple)):
        raise TypeError(f"example_inputs must be a list, got {type(example_inputs).__name__}")
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs):
        raise TypeError(f"the graph has {len(placeholders)} inputs but {len(example_inputs)} example inputs were given")


def with_flat_tuple_output(gm: Any) -> tuple[Any, Callable[[Any], Any] | None]:
    """``(gm', unflatten)``: ``gm'`` returns a flat tuple of leaves; ``unflatten`` rebuilds ``gm``'s output.

    AOTAutograd only takes graphs that return a tuple. When ``gm`` already does, it is returned unchanged
    with ``unflatten=None``; otherwise a copy returns the pytree leaves and ``unflatten`` puts them back.
    """
    import torch.fx
    from torch.utils import _pytree as pytree

    output = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
    (result,) = output.args
    if isinstance(result, tuple) and all(not isinstance(r, (list, tuple, dict)) for r in result):
        return gm, None
    leaves, spec = pytree.tree_flatten(result)
    graph = torch.fx.Graph()
    env: dict[Any, Any] = {}
    for node in gm.graph.nodes:
        if node.op == "output":
            graph.output(tuple(env[leaf] if isinstance(leaf, torch.fx.Node) else leaf for leaf in leaves))
        else:
            env[node] = graph.node_copy(node, lambda n: env[n])
    new_gm = torch.fx.GraphModule(gm, graph)

    def unflatten(flat: Any) -> Any:
        return pytree.tree_unflatten(list(flat), spec)

    return new_gm, unflatten

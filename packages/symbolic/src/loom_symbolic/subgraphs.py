"""Carving a traced region out of the graph into a sub-graph (the body of a higher-order operation).

A higher-order operation's function (``checkpoint``'s ``fn``, ``cond``'s branches) is traced in place,
its ops landing in the one graph like any inlined call. :func:`carve` then moves the nodes recorded
since a mark into a ``GraphModule`` of their own: every value they read from before the mark becomes
one of its placeholders (a *lifted* input, in order of first use), the values the function returned
are its outputs. The region's nodes leave the outer graph; the caller records the higher-order op
over ``(body, *lifted)`` in their place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import fx


@dataclass
class Region:
    """The nodes recorded since a mark (placeholders made meanwhile are outside it: they are inputs)."""

    graph: fx.Graph
    after: fx.Node | None

    def nodes(self) -> list[fx.Node]:
        start = self.after.next if self.after is not None else next(iter(self.graph.nodes), None)
        found: list[fx.Node] = []
        node = start
        while node is not None and node.op != "root":
            if node.op != "placeholder":
                found.append(node)
            node = node.next
        return found


def mark(graph: fx.Graph) -> Region:
    """Where a region starts: after the graph's last node now."""
    return Region(graph, next(reversed(graph.nodes), None))


def body_input(like: Any) -> Any:
    """Marks a sub-graph's own input (a loop's carried value, a map's slice) while its body is traced:
    :func:`carve` turns each such node into a placeholder. Never run: its value is made by the tracer."""
    raise RuntimeError("body_input only marks a sub-graph input while tracing")


@dataclass
class Carved:
    """A region as a sub-graph: the module; its placeholders are its own inputs, then ``lifted``
    (the outer values it reads, in order of first use)."""

    body: fx.GraphModule
    lifted: list[fx.Node]


def carve(region: Region, outputs: list[fx.Node], inputs: list[fx.Node] = (), single: bool = False,
          attributes: dict[str, torch.nn.Module] | None = None) -> Carved:
    """Copy the region's nodes into a new graph returning ``outputs`` (a tuple; an output that is not a node
    is a constant returned as it is), and erase them from the
    outer graph. ``inputs`` (:func:`body_input` nodes of the region) become the first placeholders.
    ``outputs`` must be region nodes or outer values; no node after the region may use the region.
    ``single``: return the one output itself, not a tuple (a loop's test). ``attributes``: the modules
    the region's ``get_attr`` nodes read (a nested op's sub-graph), which the new module holds."""
    nodes = [n for n in region.nodes() if n not in set(inputs)]
    inside = set(nodes) | set(inputs)
    sub = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    lifted: list[fx.Node] = []

    def placeholder(value: fx.Node, name: str) -> None:
        node = sub.placeholder(name)
        node.meta.update({k: v for k, v in value.meta.items() if k in ("val", "example_value")})
        env[value] = node

    for i, value in enumerate(inputs):
        placeholder(value, f"input{i}")
    for used in [u for n in nodes for u in n.all_input_nodes] + [o for o in outputs if isinstance(o, fx.Node)]:
        if used not in inside and used not in env:
            placeholder(used, f"lifted{len(lifted)}_{used.name}")
            lifted.append(used)
    for node in nodes:
        env[node] = sub.node_copy(node, lambda n: env[n])
    results = [env[o] if isinstance(o, fx.Node) else o for o in outputs]  # a constant (a loop's int) as itself
    sub.output(results[0] if single else tuple(results))
    for node in [*reversed(nodes), *inputs]:  # users before what they use
        if node.users:
            raise ValueError(f"{next(iter(node.users))} uses {node} from a carved region")
        region.graph.erase_node(node)
    sub.lint()
    root = torch.nn.Module()
    for node in nodes:
        if node.op == "get_attr" and attributes is not None and node.target in attributes:
            root.add_module(node.target, attributes[node.target])
    return Carved(fx.GraphModule(root, sub), lifted)


def with_lifted(carved: Carved, own: int, lifted: list[fx.Node]) -> fx.GraphModule:
    """``carved.body`` taking its ``own`` inputs then ``lifted`` (a superset of ``carved.lifted``, in this
    order): unused placeholders added, so branches of one op share one argument list."""
    old = [n for n in carved.body.graph.nodes if n.op == "placeholder"]
    sub = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    for node in old[:own]:
        env[node] = sub.node_copy(node)
    by_value = dict(zip(carved.lifted, old[own:]))
    for i, value in enumerate(lifted):
        node = sub.placeholder(f"lifted{i}_{value.name}")
        node.meta.update({k: v for k, v in value.meta.items() if k in ("val", "example_value")})
        if value in by_value:
            env[by_value[value]] = node
    for node in carved.body.graph.nodes:
        if node.op != "placeholder":
            env[node] = sub.node_copy(node, lambda n: env[n])
    sub.lint()
    return fx.GraphModule(carved.body, sub)  # with the attributes the body holds


def erased_sizes(graph: fx.Graph, erased: set[Any]) -> None:
    """Forget symbolic sizes cached on outer tensors (``loom_sizes``) whose node was carved away."""
    for node in graph.nodes:
        sizes = node.meta.get("loom_sizes")
        if sizes:
            for dim in [d for d, size in sizes.items() if size.node in erased]:
                del sizes[dim]

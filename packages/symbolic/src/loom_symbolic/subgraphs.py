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


@dataclass
class Carved:
    """A region as a sub-graph: the module, the outer values it reads (in its placeholders' order)."""

    body: fx.GraphModule
    lifted: list[fx.Node]


def carve(region: Region, outputs: list[fx.Node]) -> Carved:
    """Copy the region's nodes into a new graph returning ``outputs`` (a tuple), and erase them from the
    outer graph. ``outputs`` must be region nodes or outer values; no node after the region may use it."""
    nodes = region.nodes()
    inside = set(nodes)
    sub = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    lifted: list[fx.Node] = []

    def lift(value: fx.Node) -> fx.Node:
        if value not in env:
            placeholder = sub.placeholder(f"arg{len(lifted)}_{value.name}")
            placeholder.meta.update({k: v for k, v in value.meta.items() if k in ("val", "example_value")})
            env[value] = placeholder
            lifted.append(value)
        return env[value]

    for node in nodes:
        for used in node.all_input_nodes:
            if used not in inside:
                lift(used)
        env[node] = sub.node_copy(node, lambda n: env[n])
    sub.output(tuple(env[o] if o in env else lift(o) for o in outputs))
    for node in reversed(nodes):
        if node.users:
            for user in list(node.users):
                if user not in inside:
                    raise ValueError(f"{user} uses {node} from a carved region")
        region.graph.erase_node(node)
    sub.lint()
    return Carved(fx.GraphModule(torch.nn.Module(), sub), lifted)


def erased_sizes(graph: fx.Graph, erased: set[Any]) -> None:
    """Forget symbolic sizes cached on outer tensors (``loom_sizes``) whose node was carved away."""
    for node in graph.nodes:
        sizes = node.meta.get("loom_sizes")
        if sizes:
            for dim in [d for d, size in sizes.items() if size.node in erased]:
                del sizes[dim]

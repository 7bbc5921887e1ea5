"""Grad-mode switches that do nothing, dropped from a finished graph.

A ``with torch.no_grad():`` (or ``set_grad_enabled``) block whose body breaks at once leaves a graph holding
only the switch into the block and the switch back that closing the graph adds: no work, yet a graph to
compile and call. Between two ops only the last of consecutive ``_set_grad_enabled`` nodes matters, and
one that sets the mode already in force does nothing; dropping those leaves such a graph empty, so no graph
is made for it (torch.compile makes none either).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import torch
from torch import fx

_SWITCH = torch._C._set_grad_enabled


def drop_idle_switches(graph: fx.Graph, initial: bool, other_switches: Collection[Any]) -> None:
    """Erase the ``_set_grad_enabled`` nodes of ``graph`` that change nothing. ``initial`` is the mode the
    graph starts in; a node whose target is in ``other_switches`` (an inference-mode region's enter or exit)
    may change grad mode too, so the mode after it is taken as unknown."""
    mode: bool | None = initial
    run: list[fx.Node] = []

    def close_run() -> None:
        nonlocal mode
        if not run:
            return
        last = bool(run[-1].args[0])
        for node in run[:-1] if last != mode else run:
            graph.erase_node(node)
        run.clear()
        mode = last

    for node in list(graph.nodes):
        if node.op == "placeholder":
            continue
        if node.op == "call_function" and node.target is _SWITCH and not node.users:
            run.append(node)
            continue
        close_run()
        if node.op == "call_function" and node.target in other_switches:
            mode = None
    close_run()

"""Channels-last layout for graphs with 2-D convolutions (the ``c`` backend), chosen before AOTAutograd.

oneDNN runs a convolution of NCHW tensors by reordering its input, weight and (in the backward) its output
gradient to a blocked or channels-last layout on every call; given channels-last tensors it skips the
reorders. So when a graph convolves, loom converts each convolution's input and weight to channels-last in
the graph itself (``x.contiguous(memory_format=torch.channels_last)``) before AOTAutograd traces it: the
convolution's output is channels-last, eager's stride rules carry that layout through the batch norms and
activations after it (their kernels walk it contiguously: column reductions over the channels, pointwise
loops in memory order), the backward graph AOTAutograd derives agrees with the forward on the layout of
every saved tensor, and an input already channels-last costs nothing (``contiguous`` returns it).

What the caller sees keeps eager's layout: a graph output whose strides the conversion changed gets a
``contiguous`` in eager's memory format (row-major or channels-last) at the end; a graph whose outputs had
another layout, or that the fake tensors cannot run, is left as it is. Parameters' gradients come back
channels-last from the convolution's backward and autograd's ``AccumulateGrad`` gives ``.grad`` the
parameter's own strides (its layout contract), as in eager. Measured in docs/backends-c.md.
"""

from __future__ import annotations

import logging
from typing import Any

import torch
import torch.fx

from ..kernels.config import config

log = logging.getLogger("loom.c")

#: the graph-level spellings of a 2-D convolution (input and weight are the first two arguments)
_CONV2D = (torch.conv2d, torch.nn.functional.conv2d)


def channels_last(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> torch.fx.GraphModule:
    """``gm`` with its 2-D convolutions in channels-last layout, its outputs in eager's; ``gm`` itself when
    it has none, when the rule does not apply (``config.c_channels_last``, dtypes, devices, symbolic sizes)
    or when anything about the rewrite cannot be checked."""
    convs = [n for n in gm.graph.nodes if n.op == "call_function" and n.target in _CONV2D]
    if not config.c_channels_last or not convs or not _plain(example_inputs):
        return gm
    try:
        before = _run_fake(gm, example_inputs)
        if not all(_convertible(n, before) for n in convs):
            return gm
        graph = torch.fx.Graph()
        mapping: dict[torch.fx.Node, torch.fx.Node] = {}
        out = graph.graph_copy(gm.graph, mapping)
        for conv in convs:
            new = mapping[conv]
            for position in (0, 1):
                with graph.inserting_before(new):
                    cl = graph.call_method("contiguous", (new.args[position],), {"memory_format": torch.channels_last})
                new.update_arg(position, cl)
        graph.output(out)
        rewritten = torch.fx.GraphModule(gm, graph)
        after = _run_fake(rewritten, example_inputs)
        if not _restore_outputs(gm, rewritten, before, after):
            return gm
    except Exception as err:  # fake tensors could not run it (data-dependent code, a view of a permuted tensor)
        log.debug("channels-last layout not applied: %s: %s", type(err).__name__, err)
        return gm
    return rewritten


def _plain(example_inputs: list[Any]) -> bool:
    """Real tensors and Python scalars only: symbolic sizes keep eager's layout (as inductor decides)."""
    for x in example_inputs:
        if isinstance(x, torch._subclasses.FakeTensor) or isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            return False
    return True


def _convertible(conv: torch.fx.Node, values: dict[torch.fx.Node, Any]) -> bool:
    """A convolution of 4-D floating-point CPU tensors (oneDNN's channels-last path)."""
    x, w = (values.get(a) if isinstance(a, torch.fx.Node) else a for a in conv.args[:2])
    return all(
        isinstance(t, torch.Tensor) and t.dim() == 4 and t.device.type == "cpu" and t.dtype in (torch.float32, torch.bfloat16)
        for t in (x, w)
    )


def _run_fake(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> dict[torch.fx.Node, Any]:
    """Every node's value with fake copies of the inputs (nothing real runs, nothing is mutated)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    mode = FakeTensorMode()
    fakes = [mode.from_tensor(x, static_shapes=True) if isinstance(x, torch.Tensor) else x for x in example_inputs]
    values: dict[torch.fx.Node, Any] = {}

    class Recorder(torch.fx.Interpreter):
        def fetch_attr(self, target: str) -> Any:  # a module's parameter or buffer (symbolic_trace's graphs)
            value = super().fetch_attr(target)
            return mode.from_tensor(value, static_shapes=True) if isinstance(value, torch.Tensor) else value

        def run_node(self, n: torch.fx.Node) -> Any:
            values[n] = result = super().run_node(n)
            return result

    with mode:
        Recorder(gm).run(*fakes)
    return values


def _outputs(gm: torch.fx.GraphModule) -> tuple[torch.fx.Node, list[Any]]:
    node = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
    return node, torch.utils._pytree.tree_leaves(node.args[0])


def _restore_outputs(original: torch.fx.GraphModule, gm: torch.fx.GraphModule, before: dict[torch.fx.Node, Any],
                     after: dict[torch.fx.Node, Any]) -> bool:  # fmt: skip
    """Give each output of ``gm`` whose strides the rewrite changed eager's memory format back (as
    ``original`` gives it); False when one had a layout ``contiguous`` cannot give (the rewrite is dropped)."""
    old, (node, new) = _outputs(original)[1], _outputs(gm)
    done: set[torch.fx.Node] = set()
    for was, now in zip(old, new):
        if not isinstance(now, torch.fx.Node) or now in done:
            continue
        done.add(now)
        want, got = before.get(was), after.get(now)
        if not isinstance(want, torch.Tensor) or not isinstance(got, torch.Tensor) or want.stride() == got.stride():
            continue
        if want.is_contiguous():
            fmt = torch.contiguous_format
        elif want.dim() == 4 and want.is_contiguous(memory_format=torch.channels_last):
            fmt = torch.channels_last
        else:
            return False
        with gm.graph.inserting_before(node):
            fixed = gm.graph.call_method("contiguous", (now,), {"memory_format": fmt})
        node.replace_input_with(now, fixed)
    gm.recompile()
    return True

"""Split a graph at DistributedDataParallel's gradient-bucket boundaries, one compiled piece per bucket.

Why: an AOTAutograd backend turns a whole graph into *one* autograd node, so every parameter's gradient
becomes ready at the very end of its backward and DDP can only start all-reducing then. Compiled in
pieces, one per bucket of parameters, the backward of the last piece finishes first, its parameters'
gradient hooks fire, and DDP's reducer all-reduces that bucket while the earlier pieces' backward is still
running: communication overlaps computation, as in eager DDP. (torch.compile's "DDPOptimizer" does the
same; this module is loom's own take on it.)

DDP fills buckets with parameters in *reverse* order of use (the order their gradients become ready),
the first bucket capped at ``first_bucket_bytes`` and the rest at ``bucket_bytes``. The split walks the
graph from its output back to its inputs, counts the bytes of the parameters each node reads, and starts
a new piece once the current one holds a full bucket. Graphs it cannot split safely (no parameters, a
single bucket, graph inputs that are not parameters it can size) are compiled whole: the split is an
optimisation, never a change of results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

__all__ = ["Bucket", "BucketedGraph", "plan_buckets", "split_and_compile"]


@dataclass
class Bucket:
    """One piece of a split graph: the parameters (placeholder names) it reads and their size."""

    index: int
    params: list[str] = field(default_factory=list)
    nbytes: int = 0
    ops: int = 0


@dataclass
class BucketedGraph:
    """The callable a split compile returns: the outer graph calling one compiled piece per bucket.

    ``buckets`` are in execution order (the first piece runs first in forward, its backward last);
    ``pieces`` are what the wrapped backend returned for each; ``reason`` says why a graph was not split
    (then ``whole`` is the backend's result for the whole graph).
    """

    backend: str
    buckets: list[Bucket]
    pieces: list[Any]
    outer: Any = None
    whole: Any = None
    reason: str = ""
    bucket_bytes: int = 0

    def __call__(self, *args: Any) -> Any:
        if self.outer is None:
            return self.whole(*args)
        return self.outer(*args)

    def explain_lines(self) -> list[str]:
        """What ``loom.explain`` prints under the graph: how it was split for DDP."""
        if self.outer is None:
            return [f"DDP: compiled whole ({self.reason})"]
        lines = [f"DDP: split into {len(self.buckets)} graphs at gradient-bucket boundaries "
                 f"(bucket cap {self.bucket_bytes} bytes; all-reduce of each overlaps the backward of the rest):"]
        for bucket in self.buckets:
            names = ", ".join(bucket.params) or "(no parameters)"
            lines.append(f"  piece {bucket.index}: {bucket.ops} ops, {len(bucket.params)} parameters, "
                         f"{bucket.nbytes} bytes: {names}")
        return lines


def _nbytes(value: Any) -> int:
    return int(value.numel()) * value.element_size()


def plan_buckets(
    gm: torch.fx.GraphModule, param_bytes: dict[str, int], limits: Sequence[int]
) -> tuple[dict[torch.fx.Node, int], list[Bucket]]:
    """Assign every non-placeholder node of ``gm`` to a piece; pieces numbered in execution order.

    ``param_bytes`` maps the placeholders that are DDP-managed parameters to their size in bytes;
    ``limits`` are DDP's bucket caps (first bucket first, the last one repeating).
    """
    placeholders = {n for n in gm.graph.nodes if n.op == "placeholder"}
    by_name = {n: n.name for n in placeholders if n.name in param_bytes}
    reverse_buckets: list[Bucket] = [Bucket(0)]
    seen: set[str] = set()
    assignment: dict[torch.fx.Node, int] = {}
    for node in reversed(list(gm.graph.nodes)):
        if node.op in ("placeholder", "output"):
            continue
        current = reverse_buckets[-1]
        cap = limits[min(len(reverse_buckets) - 1, len(limits) - 1)]
        if current.nbytes >= cap:
            current = Bucket(len(reverse_buckets))
            reverse_buckets.append(current)
        for used in node.all_input_nodes:
            name = by_name.get(used)
            if name is not None and name not in seen:
                seen.add(name)
                current.params.append(name)
                current.nbytes += param_bytes[name]
        current.ops += node.op in ("call_function", "call_method", "call_module")
        assignment[node] = current.index
    last = len(reverse_buckets) - 1
    buckets = []
    for position, bucket in enumerate(reversed(reverse_buckets)):
        bucket.index = position
        bucket.params.reverse()
        buckets.append(bucket)
    return {node: last - index for node, index in assignment.items()}, buckets


class _Piece(torch.nn.Module):
    """A compiled piece standing where the split graph calls its submodule."""

    def __init__(self, compiled: Callable[..., Any]) -> None:
        super().__init__()
        self.compiled = compiled

    def forward(self, *args: Any) -> Any:
        return self.compiled(*args)


def _state_switches() -> set[Any]:
    """Graph ops that switch global state for the ops after them: a piece boundary between them would
    need the state carried over, so graphs holding one are compiled whole."""
    switches = {torch._C._set_grad_enabled}
    for name in ("_enter_autocast", "_exit_autocast"):
        found = getattr(torch.amp, name, None)
        if found is not None:
            switches.add(found)
    return switches


def split_and_compile(
    gm: torch.fx.GraphModule,
    example_inputs: list[Any],
    backend: Callable[[torch.fx.GraphModule, list[Any]], Callable[..., Any]],
    *,
    backend_name: str,
    managed: set[int],
    limits: Sequence[int],
) -> BucketedGraph:
    """Compile ``gm`` with ``backend`` in one piece per DDP bucket (see the module docstring).

    ``managed`` holds the ``id`` of every parameter DDP all-reduces; ``limits`` its bucket caps.
    """
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    result = BucketedGraph(backend_name, [], [], bucket_bytes=int(limits[-1]) if limits else 0)
    reason = _cannot_split(gm, placeholders, example_inputs, limits)
    param_bytes = {}
    if not reason:
        param_bytes = {node.name: _nbytes(value) for node, value in zip(placeholders, example_inputs)
                       if isinstance(value, torch.nn.Parameter) and id(value) in managed}
        if not param_bytes:
            reason = "the graph reads no parameter DDP all-reduces"
    if not reason:
        assignment, buckets = plan_buckets(gm, param_bytes, limits)
        if len(buckets) < 2:
            reason = f"its parameters fit one bucket ({buckets[0].nbytes} bytes)"
    if reason:
        result.reason = reason
        result.whole = backend(gm, example_inputs)
        return result
    from torch.fx.passes.split_module import split_module

    outer = split_module(gm, None, lambda node: assignment[node], keep_original_order=True, tuple_return=True)
    # Each piece is compiled on the FakeTensors the translator recorded for its inputs (real graph
    # inputs where the piece reads them directly): nothing runs at compile time.
    real = {node.name: value for node, value in zip(placeholders, example_inputs)}
    needs_grad = _needs_grad(gm, example_inputs)
    pieces: list[tuple[str, Any, list[Any]]] = []
    for index in range(len(buckets)):
        name = f"submod_{index}"
        piece = getattr(outer, name, None)
        if piece is None:
            continue  # an empty piece (split_module drops it)
        inputs = []
        for node in piece.graph.nodes:
            if node.op != "placeholder":
                continue
            value = real.get(node.name, node.meta.get("val"))
            if value is None:
                result.reason = f"the value {node.name} passed between pieces has no recorded example"
                result.whole = backend(gm, example_inputs)
                return result
            if node.name not in real:
                value = _with_grad_flag(value, needs_grad.get(node.name, False))
            inputs.append(value)
        pieces.append((name, piece, inputs))
    for name, piece, inputs in pieces:
        compiled = backend(piece, inputs)
        result.pieces.append(compiled)
        setattr(outer, name, _Piece(compiled))
    result.outer = outer
    result.buckets = buckets
    return result


def _cannot_split(gm: torch.fx.GraphModule, placeholders: list[Any], example_inputs: list[Any],
                  limits: Sequence[int]) -> str:
    if not limits or min(limits) <= 0:
        return "no bucket cap"
    if len(placeholders) != len(example_inputs):
        return "its inputs do not match its placeholders"
    if any(isinstance(value, torch._subclasses.FakeTensor) for value in example_inputs):
        return "it is compiled for symbolic sizes (dynamic shapes), whose parameters it cannot size"
    switches = _state_switches()
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target in switches:
            return f"it switches global state ({getattr(node.target, '__name__', node.target)}) inside"
    return ""


def _needs_grad(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> dict[str, bool]:
    """Which nodes may produce a tensor that requires grad: those reached from an input that does."""
    flags: dict[str, bool] = {}
    inputs = iter(example_inputs)
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            value = next(inputs, None)
            flags[node.name] = bool(getattr(value, "requires_grad", False))
        else:
            flags[node.name] = any(flags.get(n.name, False) for n in node.all_input_nodes)
    return flags


def _with_grad_flag(value: Any, may_need_grad: bool) -> Any:
    """A piece's example input that requires grad wherever the value may at run time.

    A piece compiled for an input that does not require grad computes no gradient for it: were the
    recorded example wrong about that, the pieces before would get none. Erring the other way is
    harmless (a gradient computed and dropped), so a floating value reached from an input that requires
    grad is compiled as requiring it.
    """
    if (not may_need_grad or not isinstance(value, torch.Tensor) or value.requires_grad
            or not (value.is_floating_point() or value.is_complex())):
        return value
    return value.detach().requires_grad_(True)

"""Running a cached forward and backward graph as AOTAutograd's runtime runs them, for the cases the
AOTAutograd cache serves (:mod:`loom_backends.aot_cache`).

What AOTAutograd's runtime does there, and :func:`replayed_function` does alike: detach the inputs whose
gradient the backward graph never computes when they are non-leaf tensors requiring grad; run the
forward with grad mode on and view replay on, inside a ``torch.autograd.Function`` (whose ``forward``
autograd runs with grad mode off); the forward graph returns the new values of the inputs it mutates
(data only, inputs that need no gradient: batch norm's running statistics), then the user's outputs,
then what the backward needs; the function returns the first two groups, the new values marked
non-differentiable and each output AOTAutograd calls an ``unsafe_view_alias`` (the only view of an
intermediate) made a fresh tensor with ``aten._unsafe_view``, and saves the rest for backward (a view
detached first). After it, outside its grad
mode and view replay, each mutated input gets its new value with ``copy_`` (the caller's tensor, not a
detached one), and the user's outputs are returned. In backward, the gradients of the new values are
dropped (none survives: their inputs need none), each output's gradient is given the size and stride the
backward graph was traced with (copied when it has others), the backward graph runs on the saved tensors
and the gradients and returns one gradient per input. A second backward through the result raises, as
AOTAutograd's does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch


@dataclass
class Plan:
    """How to run a cached pair: outputs returned to the caller, tensors saved for backward, each
    gradient's (size, stride), inputs detached before the forward, inputs whose data the forward
    mutates (in the order the forward returns their new values), outputs made fresh tensors with
    ``aten._unsafe_view`` (AOTAutograd's ``unsafe_view_alias``)."""

    num_outputs: int
    num_saved: int
    tangents: list[tuple[tuple[int, ...], tuple[int, ...]]]
    detach: list[int]
    mutated: list[int]
    unsafe_views: list[int]

    def to_json(self) -> dict[str, Any]:
        """The plan as a JSON object."""
        return {"num_outputs": self.num_outputs, "num_saved": self.num_saved,
                "tangents": [[list(size), list(stride)] for size, stride in self.tangents],
                "detach": list(self.detach), "mutated": list(self.mutated),
                "unsafe_views": list(self.unsafe_views)}  # fmt: skip

    @staticmethod
    def from_json(data: dict[str, Any]) -> Plan:
        """The plan :meth:`to_json` wrote; ValueError when it is not one."""
        plan = Plan(int(data["num_outputs"]), int(data["num_saved"]),
                    [(tuple(map(int, size)), tuple(map(int, stride))) for size, stride in data["tangents"]],
                    [int(i) for i in data["detach"]], [int(i) for i in data["mutated"]],
                    [int(i) for i in data["unsafe_views"]])  # fmt: skip
        if len(plan.tangents) != plan.num_outputs or plan.num_outputs < 1 or plan.num_saved < 0:
            raise ValueError("an inconsistent plan")
        if plan.mutated != sorted(set(plan.mutated)) or set(plan.mutated) & set(plan.detach):
            raise ValueError("an inconsistent plan")
        if not all(0 <= i < plan.num_outputs for i in plan.unsafe_views):
            raise ValueError("an inconsistent plan")
        return plan


def replayed_function(
    forward: Callable[[list[Any]], Any], backward: Callable[[list[Any]], Any], plan: Plan
) -> Callable[..., Any]:
    """The graph's compiled function from its boxed forward and backward graphs (see the module
    docstring)."""
    num_mutated = len(plan.mutated)
    num_returned = num_mutated + plan.num_outputs
    tangents = plan.tangents
    detach = plan.detach
    mutated = plan.mutated
    unsafe_views = [num_mutated + i for i in plan.unsafe_views]

    class LoomCachedAotFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, *args: Any) -> Any:
            outs = list(forward(list(args)))
            ctx.save_for_backward(*(t.detach() if t._is_view() else t for t in outs[num_returned:]))
            for i in unsafe_views:  # the only view of an intermediate: a fresh tensor, as AOTAutograd
                outs[i] = torch.ops.aten._unsafe_view(outs[i], outs[i].shape)
            if num_mutated:
                ctx.mark_non_differentiable(*outs[:num_mutated])
                ctx._materialize_non_diff_grads = False  # as AOTAutograd: their gradients stay None
            return tuple(outs[:num_returned])

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            args = [*ctx.saved_tensors]
            args += [_as_traced(g, size, stride) for g, (size, stride) in zip(grads[num_mutated:], tangents)]
            if torch.is_grad_enabled():  # create_graph=True: the gradients must carry a graph, as AOTAutograd's
                return _GradientsOnce.apply(backward, *args)
            return tuple(backward(args))

    apply = LoomCachedAotFunction.apply

    def run(*args: Any) -> Any:
        originals = args
        if detach:
            args = tuple(a.detach() if i in detach else a for i, a in enumerate(args))
        replay = torch._C._is_view_replay_enabled()
        try:
            if not replay:
                torch._C._set_view_replay_enabled(True)
            with torch.enable_grad():
                outs = apply(*args)
        finally:
            if not replay:
                torch._C._set_view_replay_enabled(False)
        for i, new in zip(mutated, outs):  # after the forward, in the caller's grad mode, as AOTAutograd
            originals[i].copy_(new)
        return list(outs[num_mutated:])  # a list, as AOTAutograd's runtime returns

    return run


class _GradientsOnce(torch.autograd.Function):
    """A compiled backward run with ``create_graph=True`` (AOTAutograd's double-backward guard): the gradients
    it gives require grad, as eager's do, and differentiating them again raises instead of giving a silent
    zero. ``torch.autograd.Function``'s own ``once_differentiable`` marks them only when the incoming
    gradients require grad, so ``torch.autograd.grad(y.sum(), x, create_graph=True)`` came back without a
    graph."""

    @staticmethod
    def forward(ctx: Any, backward: Callable[[list[Any]], Any], anchor: Any, *args: Any) -> Any:
        return tuple(backward(list(args)))

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError("torch.compile with aot_autograd does not currently support double backward "
                           "(a loom-compiled graph's backward cannot be differentiated again)")

    @classmethod
    def apply(cls, backward: Callable[[list[Any]], Any], *args: Any) -> Any:  # type: ignore[override]
        # a tensor that requires grad, so the gradients get this function as their grad_fn even when no
        # saved tensor or incoming gradient requires grad (the saved ones are detached)
        return super().apply(backward, torch.empty(0, requires_grad=True), *args)


def _as_traced(grad: Any, size: tuple[int, ...], stride: tuple[int, ...]) -> Any:
    """``grad`` with the size and stride the backward graph was traced with (AOTAutograd's coercion)."""
    if not isinstance(grad, torch.Tensor) or (tuple(grad.shape) == size and grad.stride() == stride):
        return grad
    restrided = torch.empty_strided(size, stride, dtype=grad.dtype, device=grad.device,
                                    requires_grad=grad.requires_grad)  # fmt: skip
    restrided.copy_(grad)
    return restrided

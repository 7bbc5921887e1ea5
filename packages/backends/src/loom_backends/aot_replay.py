"""Running a cached forward and backward graph as AOTAutograd's runtime runs them, for the plain case the
AOTAutograd cache serves (:mod:`loom_backends.aot_cache`).

What AOTAutograd's runtime does there, and :func:`replayed_function` does alike: detach the inputs whose
gradient the backward graph never computes when they are non-leaf tensors requiring grad; run the
forward with grad mode on and view replay on, inside a ``torch.autograd.Function`` (whose ``forward``
autograd runs with grad mode off); return the forward graph's first outputs and save the rest for
backward (a view detached first); in backward, give each incoming gradient the size and stride the
backward graph was traced with (copying it when it has others), run the backward graph on the saved
tensors and the gradients, and return one gradient per input. A second backward through the result
raises, as AOTAutograd's does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch.autograd.function import once_differentiable


@dataclass
class Plan:
    """How to run a cached pair: outputs returned to the caller, tensors saved for backward, each
    gradient's (size, stride), inputs detached before the forward."""

    num_outputs: int
    num_saved: int
    tangents: list[tuple[tuple[int, ...], tuple[int, ...]]]
    detach: list[int]

    def to_json(self) -> dict[str, Any]:
        """The plan as a JSON object."""
        return {"num_outputs": self.num_outputs, "num_saved": self.num_saved,
                "tangents": [[list(size), list(stride)] for size, stride in self.tangents],
                "detach": list(self.detach)}  # fmt: skip

    @staticmethod
    def from_json(data: dict[str, Any]) -> Plan:
        """The plan :meth:`to_json` wrote; ValueError when it is not one."""
        plan = Plan(int(data["num_outputs"]), int(data["num_saved"]),
                    [(tuple(map(int, size)), tuple(map(int, stride))) for size, stride in data["tangents"]],
                    [int(i) for i in data["detach"]])  # fmt: skip
        if len(plan.tangents) != plan.num_outputs or plan.num_outputs < 1 or plan.num_saved < 0:
            raise ValueError("an inconsistent plan")
        return plan


def replayed_function(
    forward: Callable[[list[Any]], Any], backward: Callable[[list[Any]], Any], plan: Plan
) -> Callable[..., Any]:
    """The graph's compiled function from its boxed forward and backward graphs (see the module
    docstring)."""
    num_outputs = plan.num_outputs
    tangents = plan.tangents
    detach = plan.detach

    class LoomCachedAotFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, *args: Any) -> Any:
            outs = list(forward(list(args)))
            ctx.save_for_backward(*(t.detach() if t._is_view() else t for t in outs[num_outputs:]))
            return tuple(outs[:num_outputs])

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, *grads: Any) -> Any:
            args = [*ctx.saved_tensors]
            args += [_as_traced(g, size, stride) for g, (size, stride) in zip(grads, tangents)]
            return tuple(backward(args))

    apply = LoomCachedAotFunction.apply

    def run(*args: Any) -> Any:
        if detach:
            args = tuple(a.detach() if i in detach else a for i, a in enumerate(args))
        replay = torch._C._is_view_replay_enabled()
        try:
            if not replay:
                torch._C._set_view_replay_enabled(True)
            with torch.enable_grad():
                return list(apply(*args))  # a list, as AOTAutograd's runtime returns
        finally:
            if not replay:
                torch._C._set_view_replay_enabled(False)

    return run


def _as_traced(grad: Any, size: tuple[int, ...], stride: tuple[int, ...]) -> Any:
    """``grad`` with the size and stride the backward graph was traced with (AOTAutograd's coercion)."""
    if not isinstance(grad, torch.Tensor) or (tuple(grad.shape) == size and grad.stride() == stride):
        return grad
    restrided = torch.empty_strided(size, stride, dtype=grad.dtype, device=grad.device,
                                    requires_grad=grad.requires_grad)  # fmt: skip
    restrided.copy_(grad)
    return restrided

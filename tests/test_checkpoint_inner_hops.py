"""A checkpointed function calling ``cond``, ``map``, ``while_loop`` or ``hints_wrapper``: the recorded
``tag_activation_checkpoint`` op runs its region under selective checkpointing's dispatch mode, which has no rule
for those ops (it raised NotImplementedError where eager runs). The call is one break and runs as eager runs it,
with eager's values and gradients; ``wrap`` and a nested checkpoint inside stay one graph."""

from __future__ import annotations

import pytest
import torch
from torch._higher_order_ops.hints_wrap import hints_wrapper
from torch._higher_order_ops.map import map as hop_map
from torch._higher_order_ops.while_loop import while_loop
from torch._higher_order_ops.wrap import wrap
from torch.utils.checkpoint import checkpoint

import loom


def with_cond(t):
    return torch.cond(t.sum() > 1, lambda u: u * u, lambda u: u - 1, (t,))


def with_map(t):
    return hop_map(lambda r: r.sin() * 2, t.reshape(3, 1)).reshape(3)


def with_while_loop(t):
    return while_loop(lambda i, u: i < 3, lambda i, u: (i + 1, u * 2), (torch.tensor(0), t))[1]


def with_hints(t):
    return hints_wrapper(lambda u: u.cos() * 3, (t,), {}, hints={"k": 1})


def with_wrap(t):
    return wrap(lambda u: u.sin() * u, t)


def with_inner_checkpoint(t):
    return checkpoint(lambda u: u.exp(), t, use_reentrant=False) * t


def run(body, backend, requires_grad):
    requires_grad = requires_grad and body is not with_hints  # hints_wrapper has no autograd rule, even in eager
    def fn(x):
        return checkpoint(body, x * 1, use_reentrant=False) + 1

    x_want = torch.tensor([0.5, 1.0, 2.0], requires_grad=requires_grad)
    x_got = x_want.detach().clone().requires_grad_(requires_grad)
    loom.reset()
    report = loom.explain(fn, backend=backend)(x_got.detach().clone())
    loom.reset()
    want, got = fn(x_want), loom.compile(fn, backend=backend)(x_got)
    torch.testing.assert_close(got, want)
    if requires_grad:
        want.sum().backward()
        got.sum().backward()
        torch.testing.assert_close(x_got.grad, x_want.grad)
    return report


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("body", [with_cond, with_map, with_while_loop, with_hints])
def test_checkpoint_over_an_op_its_mode_cannot_run_is_one_break_with_eagers_values(body, backend, requires_grad):
    report = run(body, backend, requires_grad)
    assert report.graph_break_count == 1
    assert "checkpoint" in report.breaks[0].what and "dispatch mode" in report.breaks[0].why


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("body", [with_wrap, with_inner_checkpoint])
def test_checkpoint_over_wrap_or_checkpoint_stays_one_graph(body, requires_grad):
    report = run(body, "eager", requires_grad)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks

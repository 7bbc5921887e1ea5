"""Automatic dynamic for numbers that are not arguments: an int or float the trace read from an attribute,
a dict item or a global, whose constant guard failed on a later call, is a symbol from the recompile on
(``DynamicPolicy.learn_from_failure``), as an argument that changed is. A scheduler that changes an
optimizer's ``lr`` every step then costs one recompile, not one per value until the recompile limit."""

from __future__ import annotations

import torch

import loom


def _training_step(w, opt, x):
    loss = ((w * x).sin() + w * w).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss.detach()


def _run_steps(step, lrs):
    w = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))
    opt = torch.optim.SGD([w], lr=lrs[0])
    losses = []
    for lr in lrs:
        opt.param_groups[0]["lr"] = lr
        losses.append(step(w, opt, torch.arange(3.0)))
    return w.detach().clone(), losses


def test_learning_rate_changed_every_step_recompiles_once():
    lrs = [0.1, 0.05, 0.02, 0.01, 0.005, 0.002]
    expected = _run_steps(_training_step, lrs)
    loom.reset()
    compiled = loom.compile(_training_step, backend="eager", options={"strict": True})
    actual = _run_steps(compiled, lrs)
    torch.testing.assert_close(actual, expected)
    assert loom.stats()["recompiles"] == 1  # the resume code after backward(): lr a SymFloat from then on


class _Scaled(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.k = 2

    def forward(self, x):
        return x * self.k + self.k  # read twice: one graph input


def test_module_int_attribute_read_twice_is_one_input():
    model = _Scaled()
    loom.reset()
    compiled = loom.compile(model, backend="eager", options={"strict": True})
    x = torch.ones(3)
    for k in (2, 3, 4, 5):
        model.k = k
        torch.testing.assert_close(compiled(x), x * k + k)
    stats = loom.stats()
    assert stats["recompiles"] == 1 and stats["graphs"] == 2


SCALE = 1


def _times_global(x):
    return x * SCALE


def test_global_int_rebound_between_calls_recompiles_once():
    global SCALE
    loom.reset()
    compiled = loom.compile(_times_global, backend="eager", options={"strict": True})
    x = torch.ones(2)
    try:
        for value in (1, 2, 3, 7):
            SCALE = value
            torch.testing.assert_close(compiled(x), x * value)
    finally:
        SCALE = 1
    assert loom.stats()["recompiles"] == 1


def test_static_mode_keeps_guarding_the_value():
    global SCALE
    loom.reset()
    compiled = loom.compile(_times_global, backend="eager", dynamic=False)
    x = torch.ones(2)
    try:
        for value in (1, 2, 3):
            SCALE = value
            torch.testing.assert_close(compiled(x), x * value)
    finally:
        SCALE = 1
    assert loom.stats()["recompiles"] == 2

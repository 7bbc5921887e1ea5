"""``requires_grad_(False)`` / ``requires_grad_(True)`` on parameters inside the compiled function (issue 29):
no break; what is computed while a parameter is frozen carries no gradient to it, what is computed before
or after does, and the parameter ends with eager's flag, as the same object."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import loom


def _compiled(fn, backend="eager"):
    loom.reset()
    return loom.compile(fn, backend=backend)


def _frozen_between(x, p):
    a = x * p
    p.requires_grad_(False)
    frozen = (x * p + 1, p.requires_grad)
    p.requires_grad_(True)
    return a + frozen[0], frozen[0], frozen[1], p.requires_grad


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_a_parameter_frozen_in_between_gets_only_the_gradient_of_its_unfrozen_uses(backend):
    compiled = _compiled(_frozen_between, backend)
    for _ in range(2):
        results = []
        for fn in (_frozen_between, compiled):
            p = nn.Parameter(torch.ones(3))
            total, frozen, flag, final = fn(torch.arange(3.0), p)
            total.sum().backward()
            results.append((total, frozen.requires_grad, flag, final, p.grad, p.requires_grad))
        want, got = results
        torch.testing.assert_close(got[0], want[0])
        assert got[1:4] == want[1:4] == (False, False, True) and got[5] is want[5] is True
        torch.testing.assert_close(got[4], want[4])
    assert loom.stats()["graph_breaks"] == 0


def _freeze_module(x, m):
    m.requires_grad_(False)
    return m(x), m.weight


def test_a_module_frozen_in_the_frame_stays_frozen_and_its_output_has_no_grad():
    compiled = _compiled(_freeze_module)
    for _ in range(2):
        torch.manual_seed(0)
        want_m = nn.Linear(3, 2)
        torch.manual_seed(0)
        m = nn.Linear(3, 2)
        want, _ = _freeze_module(torch.arange(3.0), want_m)
        got, weight = compiled(torch.arange(3.0), m)
        torch.testing.assert_close(got, want)
        assert got.requires_grad is want.requires_grad is False
        assert weight is m.weight and not m.weight.requires_grad and not m.bias.requires_grad
    assert loom.stats()["graph_breaks"] == 0


def _non_leaf(x):
    y = x * 2
    y.requires_grad_(False)
    return y


def test_requires_grad_off_on_a_non_leaf_raises_as_in_eager():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as want:
        _non_leaf(x)
    with pytest.raises(RuntimeError) as got:
        _compiled(_non_leaf)(x)
    assert str(got.value) == str(want.value)

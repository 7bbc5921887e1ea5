"""Objects from the frame (a module, a dataclass instance) passed to a custom autograd Function's ``apply``:
bound into the graph's node, guarded by identity (they broke the graph: only tensors and constants were
passed)."""

from __future__ import annotations

import dataclasses

import pytest
import torch

import loom
import loom_backends

BACKENDS = [name for name in ("eager", "aot_eager") if name in loom_backends.names()]


@dataclasses.dataclass
class _Data:
    count: int
    values: torch.Tensor


class _Holder(torch.nn.Module):
    def __init__(self, a: int) -> None:
        super().__init__()
        self.a = a
        self.b = torch.linspace(0.5, 1.5, 3)


class _MixIn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, module, data, t):
        base = module.a + module.b * data.count * data.values
        return base + t, data.values * t

    @staticmethod
    def backward(ctx, g, g2):
        return None, None, g * 4 + g2


class _ThroughModule(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, module):
        return module(t)

    @staticmethod
    def backward(ctx, g):
        return g * 3, None


_LIN = torch.nn.Linear(3, 3)
_HOLDER, _OTHER = _Holder(4), _Holder(7)
_DATA = _Data(2, torch.tensor([1.0, 2.0, 3.0]))


def _grads(fn, *args):
    leaf = torch.arange(3.0).requires_grad_()
    out = fn(leaf, *args)
    out.sum().backward()
    return out.detach(), leaf.grad


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_module_and_a_dataclass_from_the_frame_are_passed_in_one_graph(backend):
    def fn(x, holder):
        y, z = _MixIn.apply(holder, _DATA, x)
        return x + y + z

    compiled = loom.compile(fn, backend=backend, options={"strict": True})
    for holder in (_HOLDER, _OTHER):  # another module: the identity guard recompiles
        for g, w in zip(_grads(compiled, holder), _grads(fn, holder)):
            torch.testing.assert_close(g, w)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (2, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_global_module_passed_to_apply_is_one_graph(backend):
    def fn(x):
        return _ThroughModule.apply(x, _LIN) * 2

    for g, w in zip(_grads(loom.compile(fn, backend=backend, options={"strict": True})), _grads(fn)):
        torch.testing.assert_close(g, w)
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


def test_a_module_made_while_tracing_still_breaks_and_runs_as_eager():
    def fn(x):
        torch.manual_seed(0)
        return _ThroughModule.apply(x, torch.nn.Linear(3, 3))

    torch.testing.assert_close(loom.compile(fn, backend="eager")(torch.arange(3.0)), fn(torch.arange(3.0)))
    assert loom.stats()["graph_breaks"] >= 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tensor_attribute_set_anew_is_read_as_a_graph_input_and_the_object_is_left_as_it_was(backend):
    holder = _Holder(1)

    def fn(x):
        y, z = _MixIn.apply(holder, _DATA, x)
        return y + z

    compiled = loom.compile(fn, backend=backend, options={"strict": True})
    x = torch.arange(3.0)
    torch.testing.assert_close(compiled(x), fn(x))
    holder.b = torch.full((3,), 9.0)  # same shape: no recompile; the new tensor must be the one read
    new_b = holder.b
    torch.testing.assert_close(compiled(x), fn(x))
    assert holder.b is new_b and _DATA.values.tolist() == [1.0, 2.0, 3.0]
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0

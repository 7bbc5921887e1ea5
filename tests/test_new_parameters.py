"""``nn.Parameter(t)`` and modules with parameters made inside the compiled function (issue 29): one
graph, no break, and the parameters are real leaves that gradients reach as in eager, on each call
and with the AOTAutograd backend too."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import loom


def _compiled(fn, backend="eager"):
    loom.reset()
    return loom.compile(fn, backend=backend)


def _linear_inside(x):
    lin = nn.Linear(3, 2)
    return lin(x).sum(), lin


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_a_linear_made_inside_gets_the_gradients_eager_gives(backend):
    torch.manual_seed(0)
    expected, lin = _linear_inside(torch.arange(3.0))
    expected.backward()
    compiled = _compiled(_linear_inside, backend)
    for _ in range(2):  # a second call makes new parameters again
        torch.manual_seed(0)  # (the initial values are drawn in the graph, from torch's RNG)
        actual, got = compiled(torch.arange(3.0))
        actual.backward()
        torch.testing.assert_close(actual, expected)
        assert type(got.weight) is nn.Parameter and got.weight.is_leaf and got.weight.requires_grad
        assert got.weight is not lin.weight
        torch.testing.assert_close(got.weight, lin.weight)
        torch.testing.assert_close(got.weight.grad, lin.weight.grad)
        torch.testing.assert_close(got.bias.grad, lin.bias.grad)
        assert dict(got.named_parameters()).keys() == {"weight", "bias"}
    assert loom.stats()["graph_breaks"] == 0
    assert loom.stats()["graphs"] == 1


def _parameter_used(x):
    w = nn.Parameter(torch.ones(3) * 2)
    return (x * w).sum(), w, w.requires_grad, w.grad is None, w.is_leaf


def test_a_parameter_made_and_used_in_one_graph_is_a_leaf_with_its_gradient():
    compiled = _compiled(_parameter_used)
    total, w, requires_grad, no_grad, leaf = compiled(torch.arange(3.0))
    assert (requires_grad, no_grad, leaf) == (True, True, True)
    assert type(w) is nn.Parameter and w.is_leaf and w.grad_fn is None
    total.backward()
    torch.testing.assert_close(w.grad, torch.arange(3.0))
    torch.testing.assert_close(w.detach(), torch.full((3,), 2.0))
    assert loom.stats()["graph_breaks"] == 0


def _shares_storage(x):
    t = torch.zeros(3) + x
    p = nn.Parameter(t, requires_grad=False)
    t.add_(1)  # eager's parameter shares t's storage: it sees the write
    return p, t


def test_a_parameter_shares_its_datas_storage_and_honours_requires_grad():
    p, t = _compiled(_shares_storage)(torch.arange(3.0))
    assert loom.stats()["graph_breaks"] == 0
    assert type(p) is nn.Parameter and not p.requires_grad
    torch.testing.assert_close(p.detach(), torch.arange(3.0) + 1)
    assert p.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()


class _LazyScale(nn.Module):
    def forward(self, x):
        if "scale" not in self._parameters:
            self.scale = nn.Parameter(torch.ones(x.shape[-1]))
        return x * self.scale


def test_a_parameter_registered_on_a_module_in_forward_is_kept_and_trained():
    m = _LazyScale()
    loom.reset()
    out = loom.compile(m, backend="eager")(torch.arange(3.0))
    assert loom.stats()["graph_breaks"] == 0
    assert type(m.scale) is nn.Parameter and list(dict(m.named_parameters())) == ["scale"]
    out.sum().backward()
    torch.testing.assert_close(m.scale.grad, torch.arange(3.0))


def _from_an_input(x):
    p = nn.Parameter(x)
    return p * 2, p


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_a_parameter_over_an_input_tensor_shares_its_storage(backend):
    x = torch.arange(3.0)
    out, p = _compiled(_from_an_input, backend)(x)
    assert loom.stats()["graph_breaks"] == 0, loom.stats()  # as torch.compile: no break over a graph input
    assert type(p) is nn.Parameter and p.is_leaf and p.requires_grad
    assert p.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    torch.testing.assert_close(out.detach(), x * 2)
    out.sum().backward()
    torch.testing.assert_close(p.grad, torch.full((3,), 2.0))


def _class_read(x, handle_cls):
    p = nn.Parameter(x * 2)
    lin = nn.Linear(3, 3)
    handle = lin.register_forward_hook(lambda m, args, out: out)
    return type(p).__name__, isinstance(p, nn.Parameter), isinstance(handle, handle_cls), nn.Parameter.__name__


def test_the_parameter_and_handle_classes_stay_classes_to_the_program():
    # registering nn.Parameter among the builtin handlers made the class a "builtin" (type(p).__name__ broke)
    from torch.utils.hooks import RemovableHandle

    got = _compiled(_class_read)(torch.arange(3.0), RemovableHandle)
    assert got == ("Parameter", True, True, "Parameter")
    assert loom.stats()["graph_breaks"] == 0


def _grad_with_respect_to_a_new_parameter(x):
    p = nn.Parameter(x.clone())
    loss = (p * p).sum()
    (g,) = torch.autograd.grad(loss, p)
    return g


def _new_parameter_data_written_after(x):
    t = x * 2
    p = nn.Parameter(t)
    t.add_(1)  # the parameter took t's values, and t is its detached alias: the write reaches it
    return (p * 3).sum(), t, p.detach()


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
def test_autograd_grad_with_respect_to_a_parameter_made_in_the_graph(backend):
    """``torch.autograd.grad(loss, nn.Parameter(x.clone()))``: the parameter takes the clone's values
    (``copy_``, which keeps its autograd accumulator under AOTAutograd; a ``set_`` drops it, and AOTAutograd
    raised "appears to not have been used in the graph"), and the clone becomes its detached alias."""
    x = torch.arange(3.0)
    torch.testing.assert_close(_compiled(_grad_with_respect_to_a_new_parameter, backend)(x), 2 * x)
    loss, t, p = _compiled(_new_parameter_data_written_after, backend)(x)
    e_loss, e_t, e_p = _new_parameter_data_written_after(x)
    torch.testing.assert_close((loss, t, p), (e_loss, e_t, e_p))
    assert not t.requires_grad and t.is_leaf


class _RebuiltInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 1)
        self.w = torch.ones(1, 3) * 3

    def forward(self, x):
        self.lin.weight = nn.Parameter(self.w)
        self.lin.bias = nn.Parameter(torch.zeros(1) + 1, requires_grad=False)
        return self.lin(x)


def test_parameters_rebuilt_in_forward_from_a_tensor_attribute():
    m = _RebuiltInForward()
    loom.reset()
    out = loom.compile(m, backend="eager")(torch.arange(3.0))
    assert loom.stats()["graph_breaks"] == 0, loom.stats()
    torch.testing.assert_close(out.detach(), torch.tensor([10.0]))  # 3 * (0 + 1 + 2) + 1
    assert type(m.lin.weight) is nn.Parameter and m.lin.weight.untyped_storage().data_ptr() == m.w.untyped_storage().data_ptr()
    out.sum().backward()
    torch.testing.assert_close(m.lin.weight.grad, torch.arange(3.0).reshape(1, 3))

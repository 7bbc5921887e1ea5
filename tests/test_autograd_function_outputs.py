"""What a custom autograd Function's ``forward`` hands back beyond its tensors, and the arguments ``apply`` is
given beyond tensors and frame objects: an object or a list returned, lists ``forward`` fills, modules in a
list or a tuple, keyword arguments. Each broke the graph (or failed to compile); each now is one graph whose
values, identities and gradients (run backward through the compiled result) are eager's.
"""

from __future__ import annotations

import pytest
import torch

import loom
import loom_backends

BACKENDS = [name for name in ("eager", "aot_eager", "default") if name in loom_backends.names()]


def _counts(fn, *args):
    report = loom.explain(fn)(*args)
    return report.graph_count, report.graph_break_count


def _backward(fn, x, *params):
    """The result and the gradients of its tensors' sum, for the leaf ``x`` and ``params``."""
    leaf = x.detach().clone().requires_grad_()
    for p in params:
        p.grad = None
    out = fn(leaf)
    tensors = [t for t in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(t, torch.Tensor)]
    sum(t.sum() for t in tensors if t.requires_grad).backward()
    return [t.detach() for t in tensors], leaf.grad, [p.grad.clone() for p in params]


class _Box:
    def __init__(self, a, b):
        self.a, self.b = a, b


class _ReturnsBox(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, u):
        a, b = torch.sin(t), torch.cos(u)
        ctx.save_for_backward(a)
        return _Box(a, b), t * u

    @staticmethod
    def backward(ctx, g_box, g):
        (a,) = ctx.saved_tensors
        return g * 2 + a, None


def _box_program(t):
    box, prod = _ReturnsBox.apply(t, t + 1)
    return box.a + box.b + prod, prod, box.a


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_object_returned_by_forward_is_one_graph_and_its_tensors_carry_no_grad(backend):
    x = torch.linspace(-1.0, 1.0, 3)
    expected = _backward(_box_program, x)
    compiled = loom.compile(_box_program, backend=backend)
    for _ in range(2):
        torch.testing.assert_close(_backward(compiled, x), expected)
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0
    leaf = x.clone().requires_grad_()
    assert [t.requires_grad for t in compiled(leaf)] == [t.requires_grad for t in _box_program(leaf)] == [True, True, False]


class _FillsList(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, z):
        out = t * 3
        z.append(t.sin())
        z.append(out)
        return out, t.cos()

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 5 + g2, None


def _fills_program(t):
    z = [t]
    out, other = _FillsList.apply(t, z)
    return out + other, z[1], out is z[2], z[0] is t, len(z)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_forward_fills_comes_back_from_the_node(backend):
    """``z.append`` in forward broke the compile: the node read the trace's list after the speculation had
    filled it with values it then erased. The node now passes a copy and hands back what forward put there."""
    x = torch.linspace(0.5, 1.5, 3)
    leaf = x.clone().requires_grad_()
    compiled = loom.compile(_fills_program, backend=backend)
    got, expected = compiled(leaf), _fills_program(leaf)
    assert got[2:] == expected[2:] == (True, True, 3)
    torch.testing.assert_close(got[:2], expected[:2])
    assert got[1].requires_grad is expected[1].requires_grad is False
    (grad,) = torch.autograd.grad(got[0].sum(), leaf)
    (want,) = torch.autograd.grad(expected[0].sum(), leaf)
    torch.testing.assert_close(grad, want)
    compiled(leaf)
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0 and loom.stats()["cache_hits"] == 1


class _Reversible(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden, layers, kept, keep):
        hidden, attn = torch.chunk(hidden, 2, dim=-1)
        for layer in layers:
            if keep:
                kept.append(hidden)
            attn = layer(attn)
        ctx.save_for_backward(attn.detach(), hidden.detach())
        return torch.cat([attn, hidden], dim=-1)

    @staticmethod
    def backward(ctx, grad):
        _, grad_hidden = torch.chunk(grad, 2, dim=-1)
        return torch.cat([grad_hidden * 2, grad_hidden], dim=-1), None, None, None


class _Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(6)
        self.layers = [torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)]

    def forward(self, x):
        kept = []
        hidden = _Reversible.apply(torch.cat([x, x], dim=-1), self.layers, kept, True)
        as_tuple = _Reversible.apply(torch.cat([x, x], dim=-1), tuple(self.layers), [], False)
        return self.norm(hidden) + as_tuple, kept[0], kept[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_modules_in_a_list_or_a_tuple_are_bound_and_the_kept_hiddens_come_back(backend):
    """The reformer of test_repros.py: modules in a list attribute (bound by identity, their parameters
    put in place for each call) and in a tuple made in the trace (rebuilt around them)."""
    encoder = _Encoder()
    x = torch.randn(2, 3)
    params = [encoder.norm.weight, encoder.norm.bias]  # the layers run in forward, under no_grad
    expected = _backward(encoder, x, *params)
    compiled = loom.compile(encoder, backend=backend)
    torch.testing.assert_close(_backward(compiled, x, *params), expected)
    assert _counts(encoder, x) == (1, 0)
    out, first, second = compiled(x)
    assert first is second


class _KwargSin(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, factor=1):
        ctx.save_for_backward(t)
        ctx.factor = factor
        return factor * torch.sin(t)

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * ctx.factor * torch.cos(t) * 2, None


class _ScaleDefault(torch.autograd.Function):
    @staticmethod
    def forward(t, scale=2, bias=1):
        return t * scale + bias

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.count = len(inputs)
        ctx.scale = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return (g * ctx.scale * ctx.count,) + (None,) * (ctx.count - 1)


def _keywords_program(t):
    return _KwargSin.apply(t, factor=6) + _ScaleDefault.apply(t, bias=4) + _ScaleDefault.apply(scale=3, t=t)


@pytest.mark.parametrize("backend", BACKENDS)
def test_keyword_arguments_are_bound_as_apply_binds_them(backend):
    x = torch.linspace(-1.0, 1.0, 3)
    expected = _backward(_keywords_program, x)
    torch.testing.assert_close(_backward(loom.compile(_keywords_program, backend=backend), x), expected)
    assert _counts(_keywords_program, x) == (1, 0)


def test_a_keyword_apply_refuses_is_a_break_that_raises_as_eager():
    def fn(t):
        try:
            return _KwargSin.apply(t, scale=2)
        except TypeError:
            return t - 1

    x = torch.arange(3.0)
    torch.testing.assert_close(loom.compile(fn)(x), fn(x))
    assert _counts(fn, x)[1] >= 1


class _SameTwice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        s = t.sin()
        return s, s, [1, 2]

    @staticmethod
    def backward(ctx, g1, g2, _unused):
        return g1 * 3


def test_a_tensor_returned_twice_is_one_object_as_in_eager():
    def fn(t):
        a, b, items = _SameTwice.apply(t)
        return a is b, items, a

    leaf = torch.arange(3.0).requires_grad_()
    got, expected = loom.compile(fn)(leaf), fn(leaf)
    assert got[:2] == expected[:2] == (True, [1, 2])
    torch.testing.assert_close(got[2], expected[2])
    assert _counts(fn, leaf) == (1, 0)


class _KeyedByTensor(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, table):
        table[t.sin()] = 1  # a tensor made in forward as a key: the node has no path to it
        return t * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2, None


def test_a_made_tensor_the_node_cannot_hand_back_is_a_break():
    def fn(t):
        table = {}
        out = _KeyedByTensor.apply(t, table)
        return out, [k.sum() for k in table]

    x = torch.arange(3.0)
    torch.testing.assert_close(loom.compile(fn)(x), fn(x))
    assert _counts(fn, x)[1] >= 1

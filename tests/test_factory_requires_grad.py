"""A torch factory called with ``requires_grad=True`` inside the compiled function (``w = torch.ones(3,
requires_grad=True)``, issue 29): recorded instead of a graph break. The tensor leaves the graph as
eager's does, a leaf that requires grad whose ``.grad`` a backward fills, and what the frame computes
from it requires grad too."""

from __future__ import annotations

import pytest
import torch

import loom


def _compiled(fn, backend="eager"):
    loom.reset()
    return loom.compile(fn, backend=backend)


def _leaf_facts(t):
    return t.is_leaf, t.requires_grad, t.grad_fn is None, type(t)


def _ones(x):
    w = torch.ones(3, requires_grad=True)
    y = (x * w).sum()
    return w, y, y.detach() + 1, y.requires_grad


def _full_dtype(x):
    w = torch.full((3,), 2.0, dtype=torch.float64, requires_grad=True)
    y = (x.double() * w).sum()
    return w, y, y.detach() + 1, y.requires_grad


def _tensor_data(x):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * w * w).sum()
    return w, y, y.detach() + 1, y.requires_grad


def _zeros_under_no_grad(x):
    with torch.no_grad():
        w = torch.zeros(3, requires_grad=True)  # the flag holds under no_grad too
        z = (w + x).sum()
    y = (x * w).sum() + z
    return w, y, y.detach() + 1, y.requires_grad


def _under_a_default_dtype(x):
    torch.set_default_dtype(torch.float64)
    try:
        w = torch.ones(3, requires_grad=True)  # the default dtype the trace tracks: float64
    finally:
        torch.set_default_dtype(torch.float32)
    y = (x * w).sum()
    return w, y, y.detach() + 1, y.requires_grad


MADE = [_ones, _full_dtype, _tensor_data, _zeros_under_no_grad, _under_a_default_dtype]


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "default"])
@pytest.mark.parametrize("fn", MADE)
def test_a_factory_leaf_is_eager_s(fn, backend):
    torch.manual_seed(0)
    w_eager, y_eager, *rest_eager = fn(torch.arange(3.0))
    y_eager.backward()
    compiled = _compiled(fn, backend)
    for _ in range(2):  # a second call makes a new leaf again, from the same compiled entry
        torch.manual_seed(0)
        w, y, *rest = compiled(torch.arange(3.0))
        assert _leaf_facts(w) == _leaf_facts(w_eager) == (True, True, True, torch.Tensor)
        assert w.dtype == w_eager.dtype and w.grad is None
        torch.testing.assert_close(y, y_eager)
        torch.testing.assert_close(rest[0], rest_eager[0])
        assert rest[1] is rest_eager[1] is True
        y.backward()
        torch.testing.assert_close(w.detach(), w_eager.detach())
        torch.testing.assert_close(w.grad, w_eager.grad)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def _grad_in_the_frame(x):
    w = torch.ones(3, requires_grad=True)
    (x * w).sum().backward()
    return w.grad * 2


def test_backward_in_the_frame_reaches_the_factory_leaf():
    expected = _grad_in_the_frame(torch.arange(3.0))
    torch.testing.assert_close(_compiled(_grad_in_the_frame)(torch.arange(3.0)), expected)
    assert loom.stats()["graph_breaks"] == 0  # the backward is in the graph too


def _zeros_like(x):
    w = torch.zeros_like(x, requires_grad=True)  # a tensor argument: it breaks
    return w, (x * w + 1).sum()


@pytest.mark.parametrize("fn", [_zeros_like])
def test_a_factory_not_moved_before_the_graph_breaks_with_eager_s_leaf(fn):
    torch.manual_seed(0)
    w_eager, y_eager = fn(torch.arange(3.0))
    y_eager.backward()
    torch.manual_seed(0)
    w, y = _compiled(fn)(torch.arange(3.0))
    assert _leaf_facts(w) == _leaf_facts(w_eager)
    torch.testing.assert_close(y, y_eager)
    y.backward()
    torch.testing.assert_close(w.grad, w_eager.grad)
    assert loom.stats()["graph_breaks"] == 1


def _integer(x):
    return torch.zeros(3, dtype=torch.long, requires_grad=True) + x


def test_what_eager_refuses_raises_eager_s_error():
    x = torch.ones(3)
    with pytest.raises(RuntimeError) as eager:
        _integer(x)
    with pytest.raises(RuntimeError) as compiled:
        _compiled(_integer)(x)
    assert str(compiled.value) == str(eager.value)


def _flag_from_argument(x, flag):
    return torch.ones(3, requires_grad=flag) * x


@pytest.mark.parametrize("flag", [True, False])
def test_a_flag_known_from_an_argument(flag):
    out = _compiled(_flag_from_argument)(torch.ones(3), flag)
    assert out.requires_grad is flag and not out.is_leaf if flag else out.is_leaf
    torch.testing.assert_close(out.detach(), torch.ones(3))


def _in_a_transform(x):
    return torch.func.grad(lambda t: (t * torch.ones(3, requires_grad=True)).sum())(x)


def _in_a_checkpoint(x):
    def body(t):
        return (t * torch.ones(3, requires_grad=True)).sin()

    return torch.utils.checkpoint.checkpoint(body, x, use_reentrant=False).sum()


@pytest.mark.parametrize("fn", [_in_a_transform, _in_a_checkpoint])
def test_a_factory_in_a_sub_graph_body_is_made_where_eager_makes_it(fn):
    # Inside a transform's function eager makes the leaf at the transform's level (the grad it returns does
    # not require grad): it is not moved before the graph there.
    x = torch.arange(3.0, requires_grad=True)
    expected = fn(x)
    got = _compiled(fn, "aot_eager")(x)
    torch.testing.assert_close(got, expected)
    assert got.requires_grad is expected.requires_grad

"""``t.requires_grad_()`` on a tensor made inside the compiled function (issue 29): recorded instead of a
graph break, and the tensor leaves the graph as eager's does, a leaf that requires grad (``is_leaf``,
``grad_fn is None``), its ``.grad`` filled by a backward, whether the program returns it or calls
``backward`` later in the frame (that call is the only break)."""

from __future__ import annotations

import pytest
import torch

import loom


def _compiled(fn, backend="eager"):
    loom.reset()
    # strict: a backend that refused the graph would raise, not run the frame uncompiled
    return loom.compile(fn, backend=backend, options={"strict": True})


def _leaf_facts(t):
    return t.is_leaf, t.requires_grad, t.grad_fn is None, type(t)


def _detached(x):
    y = x.detach()
    y.requires_grad_()
    return y, (y * y).sum()


def _zeros(x):
    w = torch.zeros(3).requires_grad_()
    return w, (w * x + 1).pow(2).sum()


def _ones_keyword(x):
    w = torch.ones(3).requires_grad_(requires_grad=True)
    return w, (w * x).sum()


def _randn(x):
    w = torch.randn(3).requires_grad_()
    return w, (w.sin() * x).sum()


def _clone_detach(x):
    w = (x * 2).clone().detach()
    w.requires_grad_(True)
    return w, (w * x).sum()


def _detach_clone(x):
    w = x.detach().clone().requires_grad_(True)
    return w, (w * w).sum()


def _made_under_no_grad(x):
    with torch.no_grad():
        w = (x + 1).requires_grad_()
    return w, (w * 3).sum()


MADE = [_detached, _zeros, _ones_keyword, _randn, _clone_detach, _detach_clone, _made_under_no_grad]


# "c" (the default on CPU) compiles the leaf's set_ with AOTAutograd keeping input mutations in the graph
@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
@pytest.mark.parametrize("fn", MADE)
def test_a_returned_leaf_gets_eager_s_gradient(fn, backend):
    torch.manual_seed(0)
    w_eager, loss_eager = fn(torch.arange(3.0))
    loss_eager.backward()
    compiled = _compiled(fn, backend)
    for _ in range(2):  # a second call makes a new leaf again, from the same compiled entry
        torch.manual_seed(0)
        w, loss = compiled(torch.arange(3.0))
        assert _leaf_facts(w) == _leaf_facts(w_eager) == (True, True, True, torch.Tensor)
        assert w.grad is None
        torch.testing.assert_close(loss, loss_eager)
        loss.backward()
        torch.testing.assert_close(w.detach(), w_eager.detach())
        torch.testing.assert_close(w.grad, w_eager.grad)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def _backward_in_the_frame(x):
    y = x.detach()
    y.requires_grad_()
    z = (y * 2).sum()
    z.backward()
    return y.grad * 1, y.is_leaf


def test_backward_later_in_the_frame_reaches_the_leaf():
    expected = _backward_in_the_frame(torch.arange(3.0))
    actual = _compiled(_backward_in_the_frame)(torch.arange(3.0))
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] is expected[1] is True
    assert loom.stats()["graph_breaks"] == 0  # the backward is in the graph too


def _read_in_the_frame(x):
    w = torch.zeros(3).requires_grad_()
    return w, w.is_leaf, w.requires_grad, w.grad is None, w.grad_fn is None, (w + x).requires_grad


def test_the_leaf_s_attributes_read_in_the_frame_are_eager_s():
    compiled = _compiled(_read_in_the_frame)
    assert compiled(torch.ones(3))[1:] == _read_in_the_frame(torch.ones(3))[1:] == (True, True, True, True, True)
    assert loom.stats()["graph_breaks"] == 0


def _every_name_sees_it(x):
    w = torch.zeros(3)
    kept = [w]
    w.requires_grad_()
    return kept, w, (w * x).sum()


def test_every_name_holding_the_tensor_holds_the_leaf():
    kept, w, loss = _compiled(_every_name_sees_it)(torch.ones(3))
    assert kept[0] is w and w.is_leaf and w.requires_grad
    loss.backward()
    torch.testing.assert_close(w.grad, torch.ones(3))
    assert loom.stats()["graph_breaks"] == 0


def _turned_off(x):
    w = (x * 2).detach().requires_grad_(False)  # already off: nothing to do
    return w + 1, w.requires_grad


def test_requires_grad_false_on_a_made_tensor_changes_nothing():
    out, flag = _compiled(_turned_off)(torch.ones(3, requires_grad=True))
    assert flag is False and not out.requires_grad
    torch.testing.assert_close(out, torch.full((3,), 3.0))
    assert loom.stats()["graph_breaks"] == 0


def _shares_the_input_s_memory(x):
    y = x.detach()
    y.requires_grad_()
    return y


def test_a_leaf_of_a_detached_input_shares_its_memory():
    x = torch.arange(3.0)
    y = _compiled(_shares_the_input_s_memory)(x)
    assert y.is_leaf and y.requires_grad
    with torch.no_grad():
        y.add_(1)  # eager's y is x's memory: x sees the write
    torch.testing.assert_close(x, torch.arange(3.0) + 1)
    assert loom.stats()["graph_breaks"] == 0


def _integer(x):
    return torch.zeros(3, dtype=torch.long).requires_grad_() + x


def _non_leaf_off(x):
    return (x * 2).requires_grad_(False)


@pytest.mark.parametrize("fn", [_integer, _non_leaf_off])
def test_what_eager_refuses_raises_eager_s_error(fn):
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as eager:
        fn(x)
    with pytest.raises(RuntimeError) as compiled:
        _compiled(fn)(x)
    assert str(compiled.value) == str(eager.value)


def _grad_of_fresh_leaf(x):
    leaf = (x * 2).clone().requires_grad_()
    loss = (leaf * leaf).sin().sum()
    (g,) = torch.autograd.grad(loss, leaf)
    return g, leaf.is_leaf


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
def test_autograd_grad_with_respect_to_a_leaf_made_in_the_graph(backend):
    """PINN-style ``x = x.clone().requires_grad_(); torch.autograd.grad(f(x), x)``: the leaf takes the clone's
    values (``copy_``), so AOTAutograd's node keeps the leaf's own autograd accumulator, which a ``set_`` of its
    storage would have dropped (``grad`` then raised that the leaf was not used in the graph)."""
    x = torch.arange(3.0)
    expected = _grad_of_fresh_leaf(x)
    actual = _compiled(_grad_of_fresh_leaf, backend)(x)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] is True


def _view_then_leaf(x):
    c = x.clone()
    v = c[:2]
    c.requires_grad_()
    with torch.no_grad():
        c.mul_(10)
    return v * 1, c.sum()


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
def test_a_view_taken_before_requires_grad_follows_its_base_as_in_eager(backend):
    """``v`` was taken before ``c`` became a leaf: eager's ``v`` then requires grad through ``c``; the made
    leaf's storage takeover could not give a graph's view that, so the call breaks and runs natively. The
    graph before the break returns ``v`` as a view made with grad mode on (an inference graph runs under
    ``no_grad``, and autograd refuses a view made there once its base was changed in place)."""
    x = torch.arange(3.0)
    want = _view_then_leaf(x)
    loom.reset()  # not strict: AOTAutograd refuses the resumed graph (two aliased inputs, one written), run as is
    got = loom.compile(_view_then_leaf, backend=backend)(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[0].requires_grad and want[0].requires_grad
    torch.testing.assert_close(got[1], want[1])

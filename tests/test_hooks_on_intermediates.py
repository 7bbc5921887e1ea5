"""``register_hook`` and ``retain_grad()`` on a tensor the compiled frame makes (an intermediate, an output).

The trace records the call and the rewritten code makes it after the graph, on the real tensor (a graph
output), in program order with the frame's other effects: no graph break. A backward pass run after the
compiled call runs the hook as eager's does. An op of the graph that uses the tensor after the registration
breaks there, so that its gradient reaches the hook through the real tensor (under an AOTAutograd backend
the graph is one autograd node). Each program runs under ``eager`` and ``aot_eager``, with the backward
pass outside the compiled call; the leaf's gradient is eager's."""

import functools

import pytest
import torch

import loom

BACKENDS = ["eager", "aot_eager"]


def _leaf():
    return torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


def _counts(fn, *args):
    report = loom.explain(fn)(*args)
    return report.graph_count, report.break_count


def _compiled(fn, backend):
    loom.reset()
    return loom.compile(fn, backend=backend, options={"strict": True})


def _run_then_backward(fn, backend, x):
    """(what the frame returned, leaf.grad after a backward through its first result) for eager, then loom."""
    answers = []
    for run in (fn, _compiled(fn, backend)):
        leaf = _leaf()
        out = run(x, leaf)
        first = out[0] if isinstance(out, tuple) else out
        first.sum().backward()
        answers.append((out, leaf.grad))
    return answers


def _add_k(grad, *, k=0):
    return grad + k


def hook_adds_one(x, leaf):
    y = leaf * x
    y.register_hook(lambda grad: grad + 1)
    return y


def hook_returns_none(x, leaf):
    y = leaf.exp()
    y.register_hook(lambda grad: None)
    return y


def two_partial_hooks(x, leaf):
    y = leaf.mul(2)
    y.register_hook(functools.partial(_add_k, k=3))
    y.register_hook(functools.partial(_add_k, k=4))
    return y


def closure_over_a_local(x, leaf):
    scale = x + 1
    y = leaf * 2
    y.register_hook(lambda grad: grad * scale)
    return y


def hook_on_each_of_two_outputs(x, leaf):
    a = leaf * 2
    b = leaf.sin()
    a.register_hook(lambda grad: grad * 10)
    b.register_hook(lambda grad: grad * 100)
    return a, b


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [hook_adds_one, hook_returns_none, two_partial_hooks, closure_over_a_local,
                                hook_on_each_of_two_outputs])
def test_a_hook_on_a_tensor_made_in_the_frame_is_captured_and_runs_in_a_later_backward(fn, backend):
    x = torch.arange(3.0)
    (expected, expected_grad), (actual, actual_grad) = _run_then_backward(fn, backend, x)
    torch.testing.assert_close(actual, expected)
    torch.testing.assert_close(actual_grad, expected_grad)
    assert _counts(fn, x, _leaf()) == (1, 0)


def removes_one_of_two(x, leaf):
    y = leaf * 2
    first = y.register_hook(lambda grad: grad * 100)
    y.register_hook(lambda grad: grad + 1)
    first.remove()
    first.remove()
    return y, len(y._backward_hooks)


def removes_in_a_with_block(x, leaf):
    y = leaf * 2
    with y.register_hook(lambda grad: grad * 100):
        pass
    return y, y._backward_hooks is None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [removes_one_of_two, removes_in_a_with_block])
def test_a_hook_removed_through_its_handle_in_the_frame_never_runs(fn, backend):
    x = torch.arange(3.0)
    (expected, expected_grad), (actual, actual_grad) = _run_then_backward(fn, backend, x)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1]
    torch.testing.assert_close(actual_grad, expected_grad)
    assert _counts(fn, x, _leaf()) == (1, 0)


def returns_the_handle(x, leaf):
    y = leaf * 2
    kept = {"handle": y.register_hook(lambda grad: grad * 100)}
    return y, kept


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_handle_returned_by_the_frame_removes_the_hook_on_the_real_tensor(backend):
    x = torch.arange(3.0)
    leaf = _leaf()
    y, kept = _compiled(returns_the_handle, backend)(x, leaf)
    assert type(kept["handle"]).__name__ == "RemovableHandle"
    assert len(y._backward_hooks) == 1
    kept["handle"].remove()
    assert len(y._backward_hooks) == 0
    y.sum().backward()
    torch.testing.assert_close(leaf.grad, torch.full((3,), 2.0))
    assert _counts(returns_the_handle, x, _leaf()) == (1, 0)


def retains(x, leaf):
    y = leaf * x
    before = y.retains_grad
    y.retain_grad()
    y.retain_grad()
    return y, before, y.retains_grad, y.grad


def retains_then_hook(x, leaf):
    y = leaf * 3
    y.retain_grad()
    y.register_hook(lambda grad: grad * 2)
    return y, y.retains_grad


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [retains, retains_then_hook])
def test_retain_grad_on_a_tensor_made_in_the_frame_keeps_its_gradient(fn, backend):
    x = torch.arange(3.0) + 1
    (expected, expected_grad), (actual, actual_grad) = _run_then_backward(fn, backend, x)
    assert actual[1:] == expected[1:]
    assert actual[0].retains_grad
    torch.testing.assert_close(actual[0].grad, expected[0].grad)
    torch.testing.assert_close(actual_grad, expected_grad)
    assert _counts(fn, x, _leaf()) == (1, 0)


def hook_then_use(x, leaf):
    y = leaf * 2
    y.register_hook(lambda grad: grad * 10)
    return y * x


def retain_then_use(x, leaf):
    y = leaf * 2
    y.retain_grad()
    z = y * x
    return z, y


@pytest.mark.parametrize("fn", [hook_then_use, retain_then_use])
def test_an_op_using_the_tensor_after_the_registration_breaks_and_the_hook_sees_its_gradient(fn):
    x = torch.arange(3.0) + 1
    (expected, expected_grad), (actual, actual_grad) = _run_then_backward(fn, "aot_eager", x)
    torch.testing.assert_close(actual, expected)
    torch.testing.assert_close(actual_grad, expected_grad)
    if fn is retain_then_use:
        torch.testing.assert_close(actual[1].grad, expected[1].grad)
    assert _counts(fn, x, _leaf()) == (1, 1)


def autograd_grad_over_the_hooked_tensor(x, leaf):
    y = leaf * 2
    y.register_hook(lambda grad: grad * 100)
    (grad,) = torch.autograd.grad(y, leaf, x)
    return grad


def test_autograd_grad_in_the_frame_after_the_registration_sees_the_hook():
    x = torch.arange(3.0) + 1
    expected = autograd_grad_over_the_hooked_tensor(x, _leaf())
    actual = _compiled(autograd_grad_over_the_hooked_tensor, "aot_eager")(x, _leaf())
    torch.testing.assert_close(actual, expected)


def hook_in_a_checkpointed_body(x, leaf):
    def body(t):
        u = t * 2
        u.register_hook(lambda grad: grad * 7)
        return u * 3

    return torch.utils.checkpoint.checkpoint(body, leaf, use_reentrant=False) + x


def hook_on_a_view_whose_base_changes_in_place(x, leaf):
    base = leaf * 2
    view = base[:2]
    view.register_hook(lambda grad: grad * 10)
    base.mul_(3)
    return view + 0, base


@pytest.mark.parametrize("fn", [hook_in_a_checkpointed_body, hook_on_a_view_whose_base_changes_in_place])
def test_a_hook_inside_a_body_traced_apart_or_on_a_view_still_breaks(fn):
    x = torch.arange(3.0)
    (expected, expected_grad), (actual, actual_grad) = _run_then_backward(fn, "aot_eager", x)
    torch.testing.assert_close(actual, expected)
    torch.testing.assert_close(actual_grad, expected_grad)
    assert _counts(fn, x, _leaf())[1] >= 1

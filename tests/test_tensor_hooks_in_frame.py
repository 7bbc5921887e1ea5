"""Hooks a compiled frame registers (or removes) itself: module backward hooks, and tensor hooks on inputs.

A module's backward hook registered in the frame lives only in the trace's copy of the hook table until the
graph runs: calling the module must see it there (and run the module natively, as with a backward hook
registered before the frame), or the backward pass would miss the hook.

``tensor.register_hook(hook)`` on a tensor from outside the frame is captured: the hook dict is filled on the
real tensor after the graph, so a later backward runs it as eager's would."""

import torch
from torch import nn

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


def _linear():
    torch.manual_seed(0)
    return nn.Linear(3, 3)


def backward_hook_scales_grad_input(x, lin):
    lin.register_full_backward_hook(lambda m, gin, gout: (gin[0] * 3,))
    inp = (x + 1).reshape(1, 3).requires_grad_()
    lin(inp).sum().backward()
    return inp.grad * 1


def backward_pre_hook_scales_grad_output(x, lin):
    lin.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 2,))
    lin(x.reshape(1, 3)).sum().backward()
    return lin.weight.grad + 0


def backward_hook_registered_then_removed(x, lin):
    handle = lin.register_full_backward_hook(lambda m, gin, gout: (gin[0] * 3,))
    handle.remove()
    return lin(x + 1) * 2


def test_a_backward_hook_registered_in_the_frame_runs_in_the_backward_pass():
    x = torch.arange(3.0)
    expected = backward_hook_scales_grad_input(x, _linear())
    actual = _compiled(backward_hook_scales_grad_input)(x, _linear())
    torch.testing.assert_close(actual, expected)


def test_a_backward_pre_hook_registered_in_the_frame_runs_in_the_backward_pass():
    x = torch.arange(3.0)
    expected = backward_pre_hook_scales_grad_output(x, _linear())
    actual = _compiled(backward_pre_hook_scales_grad_output)(x, _linear())
    torch.testing.assert_close(actual, expected)


def test_a_backward_hook_removed_in_the_frame_leaves_the_call_in_the_graph():
    x = torch.arange(3.0)
    expected = backward_hook_registered_then_removed(x, _linear())
    actual = _compiled(backward_hook_registered_then_removed)(x, _linear())
    torch.testing.assert_close(actual, expected)
    assert _counts() == (1, 0)


# -- tensor hooks on tensors from outside the frame --------------------------------------------------------
def _leaf():
    return torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


def registers_doubling_hook(x, leaf):
    leaf.register_hook(lambda grad: grad * 2)
    return x * 2, leaf.detach() + 1


def registers_then_removes(x, leaf):
    handle = leaf.register_hook(lambda grad: grad * 2)
    z = x * x
    handle.remove()
    leaf.register_hook(lambda grad: grad * 3)
    return z + 1


def registers_and_returns_handle(x, leaf):
    handle = leaf.register_hook(lambda grad: grad * 5)
    return x.cos(), handle


def _grad_after_backward(leaf):
    (leaf * leaf).sum().backward()
    return leaf.grad


def test_a_hook_registered_on_an_input_is_captured_and_runs_in_a_later_backward():
    x = torch.arange(3.0)
    eager_leaf, leaf = _leaf(), _leaf()
    expected = registers_doubling_hook(x, eager_leaf)
    actual = _compiled(registers_doubling_hook)(x, leaf)
    assert _counts() == (1, 0)
    torch.testing.assert_close(actual, expected)
    torch.testing.assert_close(_grad_after_backward(leaf), _grad_after_backward(eager_leaf))
    assert leaf._backward_hooks is not None and len(leaf._backward_hooks) == 1


def test_a_hook_removed_through_its_handle_in_the_frame_never_runs():
    x = torch.arange(3.0)
    eager_leaf, leaf = _leaf(), _leaf()
    expected = registers_then_removes(x, eager_leaf)
    actual = _compiled(registers_then_removes)(x, leaf)
    assert _counts() == (1, 0)
    torch.testing.assert_close(actual, expected)
    torch.testing.assert_close(_grad_after_backward(leaf), _grad_after_backward(eager_leaf))
    assert list(leaf._backward_hooks) != [] and len(leaf._backward_hooks) == 1


def test_hooks_accumulate_over_calls_and_on_a_tensor_that_already_has_hooks():
    x = torch.arange(3.0)
    eager_leaf, leaf = _leaf(), _leaf()
    eager_leaf.register_hook(lambda grad: grad + 1)
    leaf.register_hook(lambda grad: grad + 1)
    compiled = _compiled(registers_doubling_hook)
    for _ in range(2):
        expected = registers_doubling_hook(x, eager_leaf)
        torch.testing.assert_close(compiled(x, leaf), expected)
    assert len(leaf._backward_hooks) == 3
    torch.testing.assert_close(_grad_after_backward(leaf), _grad_after_backward(eager_leaf))


def test_a_hook_on_an_input_with_history_runs_where_eager_runs_it():
    x = torch.arange(3.0)
    eager_leaf, leaf = _leaf(), _leaf()
    eager_mid, mid = eager_leaf * 3, leaf * 3
    registers_doubling_hook(x, eager_mid)
    _compiled(registers_doubling_hook)(x, mid)
    assert _counts() == (1, 0)
    (eager_mid * eager_mid).sum().backward()
    (mid * mid).sum().backward()
    torch.testing.assert_close(leaf.grad, eager_leaf.grad)


def test_the_returned_handle_removes_the_hook_outside_the_frame():
    x = torch.arange(3.0)
    leaf = _leaf()
    _, handle = _compiled(registers_and_returns_handle)(x, leaf)
    assert isinstance(handle, torch.utils.hooks.RemovableHandle)
    assert list(leaf._backward_hooks) == [handle.id]
    handle.remove()
    torch.testing.assert_close(_grad_after_backward(leaf), 2 * leaf.detach())


def test_a_hook_on_a_tensor_without_grad_raises_eagers_error():
    def registers(x):
        y = x + 1
        try:
            x.register_hook(lambda g: g)
        except RuntimeError as e:
            return y, str(e)
        return y, ""

    x = torch.arange(3.0)
    actual = _compiled(registers)(x)
    expected = registers(x)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1]
    assert _counts() == (1, 0)


def reads_hook_dict_and_retains_grad(x, leaf):
    before = leaf._backward_hooks is None
    leaf.register_hook(lambda grad: grad / 2)
    leaf.register_hook(lambda grad: grad * 3)
    leaf.retain_grad()
    y = leaf * x
    return y.detach() + 1, before, len(leaf._backward_hooks), leaf.retains_grad, y.retains_grad, (x + 1)._backward_hooks


def test_the_hook_dict_retain_grad_on_a_leaf_and_retains_grad_are_read_in_the_trace():
    x = torch.arange(3.0)
    expected = reads_hook_dict_and_retains_grad(x, _leaf())
    actual = _compiled(reads_hook_dict_and_retains_grad)(x, _leaf())
    assert _counts() == (1, 0)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:] == (True, 2, False, False, None)


def test_retain_grad_without_grad_raises_eagers_error():
    def retains(x):
        y = x * 2
        try:
            y.retain_grad()
        except RuntimeError as e:
            return y + 1, str(e)
        return y, ""

    x = torch.arange(3.0)
    actual = _compiled(retains)(x)
    assert _counts() == (1, 0)
    torch.testing.assert_close(actual[0], retains(x)[0])
    assert actual[1] == retains(x)[1]


def test_a_hook_on_a_tensor_made_without_grad_in_the_graph_raises_eagers_error():
    def registers(x, leaf):
        with torch.no_grad():
            y = leaf * 2
        try:
            y.register_hook(lambda g: g)
        except RuntimeError as e:
            return y + x, str(e)
        return y, ""

    x = torch.arange(3.0)
    actual = _compiled(registers)(x, _leaf())
    expected = registers(x, _leaf())
    assert _counts() == (1, 0)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1]


def hook_on_a_leaf_made_in_the_frame(x):
    leaf = x.clone().requires_grad_()
    handle = leaf.register_hook(lambda g: g * 2)
    return (leaf * x).sum(), leaf, len(leaf._backward_hooks), list(leaf._backward_hooks) == [handle.id]


def test_a_hook_on_a_leaf_made_in_the_frame_is_captured():
    x = torch.arange(3.0)
    expected = hook_on_a_leaf_made_in_the_frame(x)
    actual = _compiled(hook_on_a_leaf_made_in_the_frame)(x)
    assert _counts() == (1, 0)
    assert actual[2:] == expected[2:] == (1, True)
    actual[0].backward()
    expected[0].backward()
    torch.testing.assert_close(actual[1].grad, expected[1].grad)


def _scale_grad(t):
    t.grad.mul_(5)


def post_accumulate_hook(x, leaf):
    leaf.register_post_accumulate_grad_hook(_scale_grad)
    y = leaf * 2
    try:
        y.register_post_accumulate_grad_hook(lambda t: None)
    except RuntimeError as e:
        refused = str(e)
    return leaf * x, len(leaf._post_accumulate_grad_hooks), refused


def test_a_post_accumulate_grad_hook_on_an_input_is_captured_and_runs_after_accumulation():
    x = torch.arange(3.0)
    eager_leaf, leaf = _leaf(), _leaf()
    expected = post_accumulate_hook(x, eager_leaf)
    actual = _compiled(post_accumulate_hook)(x, leaf)
    assert _counts() == (1, 0)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:]
    torch.testing.assert_close(_grad_after_backward(leaf), _grad_after_backward(eager_leaf))


# -- tensors made in the graph: under AOTAutograd a split graph keeps its ops' gradient (and nodes) to itself ----
def _compiled_aot(fn):
    loom.reset()
    return loom.compile(fn, backend="aot_eager", options={"strict": True})


def hook_after_an_earlier_use(x, leaf):
    y = leaf * 2
    z = y + 1
    y.register_hook(lambda g: g * 2)
    w = y * 3
    (z + w).sum().backward()
    return leaf.grad * x


def retain_grad_after_an_earlier_use(x, leaf):
    y = leaf * 2
    z = y * y
    y.retain_grad()
    (z + y).sum().backward()
    return y.grad + x


def grad_fn_of_a_tensor_made_in_the_graph(x, leaf):
    y = leaf * x
    seen = []
    y.grad_fn.register_hook(lambda gin, gout: seen.append(len(gin)))
    y.sum().backward()
    return leaf.grad + 1, seen, type(y.grad_fn).__name__


def test_a_hook_on_a_tensor_the_graph_already_used_sees_every_uses_gradient_under_aot():
    x = torch.arange(3.0)
    expected = hook_after_an_earlier_use(x, _leaf())
    torch.testing.assert_close(_compiled_aot(hook_after_an_earlier_use)(x, _leaf()), expected)


def test_retain_grad_on_a_tensor_the_graph_already_used_keeps_every_uses_gradient_under_aot():
    x = torch.arange(3.0)
    expected = retain_grad_after_an_earlier_use(x, _leaf())
    torch.testing.assert_close(_compiled_aot(retain_grad_after_an_earlier_use)(x, _leaf()), expected)


def test_grad_fn_of_a_tensor_made_in_the_graph_is_eagers_node_under_aot():
    x = torch.arange(3.0)
    expected = grad_fn_of_a_tensor_made_in_the_graph(x, _leaf())
    actual = _compiled_aot(grad_fn_of_a_tensor_made_in_the_graph)(x, _leaf())
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:]


def test_a_hook_registered_before_the_tensors_first_use_breaks_at_that_use():
    def hook_before_use(x, leaf):
        y = leaf * 2
        y.register_hook(lambda g: g * 2)
        return y * 3

    x = torch.arange(3.0)
    compiled = _compiled(hook_before_use)
    leaf = _leaf()
    out = compiled(x, leaf)
    assert _counts() == (1, 1)  # the registration is made after the graph, the use after it (tests/test_hooks_on_intermediates.py)
    expected_leaf = _leaf()
    torch.testing.assert_close(out, hook_before_use(x, expected_leaf))
    out.sum().backward()
    hook_before_use(x, expected_leaf).sum().backward()
    torch.testing.assert_close(leaf.grad, expected_leaf.grad)

"""A function made in the frame that outlives it while closing over the frame's own variables.

A forward hook that appends to a local list (``seen = []; m.register_forward_hook(lambda *a: seen.append(1))``)
stays in the module's hook dict after the frame: the rewritten code must make it with the frame's real
cells, filled with what the trace left in them. That was a graph break ("it closes over a variable of an
inlined function"); the compiled frame now keeps its cells when such a function leaves it."""

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


def hook_records_into_local_list(x, lin):
    seen = []
    lin.register_forward_hook(lambda m, args, out: seen.append(out.shape))
    return lin(x + 1) * 2, seen


def test_a_hook_closing_over_a_local_list_is_captured_and_keeps_the_list():
    x = torch.arange(3.0)
    expected, expected_seen = hook_records_into_local_list(x, _linear())
    lin = _linear()
    actual, seen = _compiled(hook_records_into_local_list)(x, lin)
    torch.testing.assert_close(actual, expected)
    assert seen == expected_seen == [torch.Size([3])]
    assert _counts() == (1, 0)
    lin(x)  # the hook left on the module appends to the very list the frame returned
    assert seen == [torch.Size([3])] * 2


def hook_counts_through_nonlocal(x, lin):
    calls = 0

    def hook(m, args, out):
        nonlocal calls
        calls += 1
        return out + calls

    lin.register_forward_hook(hook)
    y = lin(x) + lin(x)
    return y, calls, hook


def test_a_hook_rebinding_a_frame_variable_sees_the_traced_value_afterwards():
    x = torch.arange(3.0)
    expected, expected_calls, _ = hook_counts_through_nonlocal(x, _linear())
    lin = _linear()
    actual, calls, hook = _compiled(hook_counts_through_nonlocal)(x, lin)
    torch.testing.assert_close(actual, expected)
    assert calls == expected_calls == 2
    assert _counts() == (1, 0)
    assert hook.__closure__[0].cell_contents == 2
    lin(x)
    assert hook.__closure__[0].cell_contents == 3


def closure_over_an_argument_cell(x, scale):
    return x * scale, lambda: scale


def test_a_closure_over_an_argument_still_leaves_eagers_answer():
    x = torch.arange(3.0)
    out, get = _compiled(closure_over_an_argument_cell)(x, 2.0)
    torch.testing.assert_close(out, x * 2)
    assert get() == 2.0

"""Module hooks registered inside the compiled function (issue 29): ``register_forward_hook`` /
``register_forward_pre_hook`` and their handles, captured without a break; the hooks run as in eager,
the handles get the ids eager gives them (the process-wide counter advances alike) and stay usable."""

from __future__ import annotations

import torch
from torch import nn
from torch.utils.hooks import RemovableHandle

import loom


def _linear() -> nn.Linear:
    lin = nn.Linear(3, 3)
    with torch.no_grad():
        lin.weight.copy_(torch.arange(9.0).reshape(3, 3) / 10)
        lin.bias.fill_(0.5)
    return lin


def _run(fn, compiled, *args):
    """``fn`` in eager and compiled on fresh modules: both results, and how far each moved the id counter."""
    outcomes = []
    for call in (fn, compiled):
        lin = _linear()
        start = RemovableHandle.next_id
        result = call(torch.arange(3.0), lin, *args)
        outcomes.append((result, lin, RemovableHandle.next_id - start))
    return outcomes


def _register_call_remove(x, lin):
    handle = lin.register_forward_hook(lambda m, args, out: out * 2)
    y = lin(x)
    handle.remove()
    return y + lin(x), handle.id


def test_a_hook_registered_called_and_removed_in_the_frame():
    loom.reset()
    compiled = loom.compile(_register_call_remove, backend="eager")
    for _ in range(2):
        (want, _, moved), (got, lin, got_moved) = _run(_register_call_remove, compiled)
        torch.testing.assert_close(got[0], want[0])
        assert got_moved == moved == 1 and got[1] == RemovableHandle.next_id - 1
        assert dict(lin._forward_hooks) == {}
    assert loom.stats()["graph_breaks"] == 0


def _pre_hook_kept(x, lin, prepend):
    def pre(m, args, kwargs):
        return (args[0] + 1,), kwargs

    lin.register_forward_pre_hook(lambda m, args: (args[0] * 10,))
    handle = lin.register_forward_pre_hook(pre, with_kwargs=True, prepend=prepend)
    return lin(x), handle


def test_pre_hooks_registered_in_the_frame_run_in_order_and_stay():
    for prepend in (False, True):
        loom.reset()
        compiled = loom.compile(_pre_hook_kept, backend="eager")
        (want, want_lin, moved), (got, lin, got_moved) = _run(_pre_hook_kept, compiled, prepend)
        torch.testing.assert_close(got[0], want[0])
        assert got_moved == moved == 2
        handle = got[1]
        assert type(handle) is RemovableHandle and handle.id == RemovableHandle.next_id - 1
        assert list(lin._forward_pre_hooks) == [k + (handle.id - want[1].id) for k in want_lin._forward_pre_hooks]
        assert list(lin._forward_pre_hooks_with_kwargs) == [handle.id]
        torch.testing.assert_close(lin(torch.arange(3.0)), want_lin(torch.arange(3.0)))  # the hooks stay
        handle.remove()
        assert handle.id not in lin._forward_pre_hooks and not lin._forward_pre_hooks_with_kwargs
        assert loom.stats()["graph_breaks"] == 0


def _hook_each_call(x, lin):
    lin.register_forward_hook(lambda m, args, out: out + 1)
    return lin(x)


def test_a_hook_registered_on_every_call_accumulates_as_in_eager():
    eager_lin, lin = _linear(), _linear()
    loom.reset()
    compiled = loom.compile(_hook_each_call, backend="eager")
    for _ in range(3):
        torch.testing.assert_close(compiled(torch.arange(3.0), lin), _hook_each_call(torch.arange(3.0), eager_lin))
    assert len(lin._forward_hooks) == len(eager_lin._forward_hooks) == 3


def _hook_in_with(x, lin, seen):
    with lin.register_forward_hook(lambda m, args, out: seen.append(out.sum()) or out - 1):
        y = lin(x)
    return y + lin(x)


def test_a_handle_used_as_a_with_block_removes_its_hook():
    seen_eager, seen = [], []
    want = _hook_in_with(torch.arange(3.0), _linear(), seen_eager)
    loom.reset()
    lin = _linear()
    got = loom.compile(_hook_in_with, backend="eager")(torch.arange(3.0), lin, seen)
    torch.testing.assert_close(got, want)
    assert len(seen) == len(seen_eager) == 1 and not lin._forward_hooks
    assert loom.stats()["graph_breaks"] == 0

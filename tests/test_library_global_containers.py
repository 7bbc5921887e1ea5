"""Containers that torch keeps as module globals, changed by torch code the trace inlines.

``nn.modules.module.register_module_forward_hook`` stores the hook in the module global
``_global_forward_hooks``. torch's globals are taken as fixed, so that dict was wrapped without a source and
the trace dropped the store: a module called afterwards in the frame ran without the hook, and a hook left
registered never reached the real dict (wrong answers both)."""

import torch
import torch.nn.modules.module as torch_module
from torch import nn

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _linear():
    torch.manual_seed(0)
    return nn.Linear(3, 3)


def hook_registered_and_removed(x, lin):
    handle = nn.modules.module.register_module_forward_hook(lambda m, args, out: out * 3)
    try:
        y = lin(x)
    finally:
        handle.remove()
    return y + lin(x)


def hook_left_registered(x, lin):
    handle = nn.modules.module.register_module_forward_hook(lambda m, args, out: out + 100)
    return lin(x), handle


def test_a_global_hook_registered_in_the_frame_runs_on_a_later_module_call():
    x, lin = torch.arange(3.0), _linear()
    expected = hook_registered_and_removed(x, lin)
    compiled = _compiled(hook_registered_and_removed)
    torch.testing.assert_close(compiled(x, lin), expected)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)
    assert not torch_module._global_forward_hooks


def test_a_global_hook_left_registered_reaches_the_real_dict():
    x, lin = torch.arange(3.0), _linear()
    expected, handle = hook_left_registered(x, lin)
    handle.remove()
    compiled = _compiled(hook_left_registered)
    actual, handle = compiled(x, lin)
    try:
        assert list(torch_module._global_forward_hooks) == [handle.id]
        torch.testing.assert_close(actual, expected)
        torch.testing.assert_close(lin(x), expected)  # eager calls see the hook the frame left
    finally:
        handle.remove()
    assert loom.stats()["graph_breaks"] == 0

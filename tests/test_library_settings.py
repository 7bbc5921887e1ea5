"""Settings a trusted library keeps at module level and changes at run time (``torch.backends.cudnn.enabled``,
``torch.backends.mha``'s fast-path flag read by ``get_fastpath_enabled()``): read by a trace, each is guarded,
so a program that changes one between calls sees the new value, as in eager. Library functions and classes
are still taken as fixed (no guard)."""

from __future__ import annotations

import pytest
import torch

import loom


def _attribute(owner, name):
    return (lambda: getattr(owner, name)), (lambda value: setattr(owner, name, value))


SETTINGS = {
    # a ContextProp of the module's class: getattr calls torch's getter
    "cudnn.enabled": (*_attribute(torch.backends.cudnn, "enabled"), [True, False, True]),
    "cudnn.benchmark": (*_attribute(torch.backends.cudnn, "benchmark"), [False, True, False]),
    "opt_einsum.enabled": (*_attribute(torch.backends.opt_einsum, "enabled"), [True, False, True]),
    "mkldnn.enabled": (*_attribute(torch.backends.mkldnn, "enabled"), [True, False, True]),
    # a plain module global
    "deterministic.fill_uninitialized_memory": (
        *_attribute(torch.utils.deterministic, "fill_uninitialized_memory"), [True, False, True]),
    # a global read by the library's own function, inlined
    "mha fast path": (torch.backends.mha.get_fastpath_enabled, torch.backends.mha.set_fastpath_enabled,
                      [True, False, True]),
}


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("name", list(SETTINGS))
def test_a_library_setting_changed_between_calls_is_seen(name, backend):
    read, write, values = SETTINGS[name]

    def program(x):
        return (x * 2 if read() else x * 3), read()

    loom.reset()
    compiled = loom.compile(program, backend=backend)
    before = read()
    x = torch.ones(2)
    try:
        for value in values:
            write(value)
            got, expected = compiled(x), program(x)
            assert torch.equal(got[0], expected[0]) and got[1] == expected[1] == value
    finally:
        write(before)


def test_a_setting_read_by_a_library_function_inlined_from_a_module():
    """``F.multi_head_attention_forward`` and ``nn.MultiheadAttention`` read the fast-path flag through
    ``torch.backends.mha``; the entry must follow it."""

    def program(x):
        return x + 1 if torch.backends.mha.get_fastpath_enabled() else x - 1

    loom.reset()
    compiled = loom.compile(program, backend="eager")
    x = torch.zeros(2)
    try:
        assert torch.equal(compiled(x), x + 1)
        torch.backends.mha.set_fastpath_enabled(False)
        assert torch.equal(compiled(x), x - 1)
    finally:
        torch.backends.mha.set_fastpath_enabled(True)

"""torch functions called on constants alone fold to a constant while tracing; when the answer comes from
process state the global-state guard does not cover (anomaly mode, cuDNN's switch, warn-always, the SDPA
backend flags), a change between calls must recompile, as eager would answer anew. A pure function folded the
same way (``torch.promote_types``) is asked again at each check and keeps its entry."""

from __future__ import annotations

import pytest
import torch

import loom

QUERIES = {
    "anomaly mode": (torch.is_anomaly_enabled, torch.set_anomaly_enabled),
    "cudnn switch": (torch._C._get_cudnn_enabled, torch._C._set_cudnn_enabled),
    "warn always": (torch.is_warn_always_enabled, torch.set_warn_always),
    # a Python function of torch, inlined, that asks a builtin
    "flash sdp flag": (torch.backends.cuda.flash_sdp_enabled, torch.backends.cuda.enable_flash_sdp),
}


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("name", list(QUERIES))
def test_a_state_query_folded_in_the_trace_follows_the_state(name, backend):
    read, write = QUERIES[name]

    def program(x):
        return (x + 1 if read() else x - 1), read()

    loom.reset()
    compiled = loom.compile(program, backend=backend)
    before = read()
    x = torch.zeros(2)
    try:
        for value in [before, not before, before]:
            write(value)
            got, expected = compiled(x), program(x)
            assert torch.equal(got[0], expected[0]) and got[1] == expected[1] == value
    finally:
        write(before)


def test_a_pure_function_folded_from_constants_keeps_its_entry():
    def program(x):
        return x.to(torch.promote_types(torch.int64, torch.float32)) * 2

    loom.reset()
    compiled = loom.compile(program, backend="eager")
    x = torch.ones(2, dtype=torch.int64)
    for _ in range(3):
        assert torch.equal(compiled(x), program(x))
    assert loom.stats()["frames_compiled"] == 1 and loom.stats()["cache_hits"] == 2

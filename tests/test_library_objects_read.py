"""An object a trusted library keeps at module level (``torch._tensor_str.PRINT_OPTS``, what
``torch.set_printoptions`` changes) is reached by the trace without a source, as the library's functions are;
its attributes are still the program's to change between calls, so what the trace reads of them is guarded."""

from __future__ import annotations

import pytest
import torch

import loom


def precision(x):
    return x + 1, torch._tensor_str.PRINT_OPTS.precision


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_print_options_changed_between_calls_are_seen(backend):
    loom.reset()
    compiled = loom.compile(precision, backend=backend)
    x = torch.zeros(2)
    try:
        for value in [4, 2, 4]:
            torch.set_printoptions(precision=value)
            got, expected = compiled(x), precision(x)
            assert torch.equal(got[0], expected[0]) and got[1] == expected[1] == value
    finally:
        torch.set_printoptions(profile="default")

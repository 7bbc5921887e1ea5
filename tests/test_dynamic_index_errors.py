"""An index out of a tensor's bounds under symbolic sizes: eager's IndexError names the real size
("... with size 3"), which the trace does not know (its fake run says "size s0"), so there the indexing runs
as the program runs instead of the trace raising the fake run's error with a symbol in its message."""

from __future__ import annotations

import pytest
import torch

import loom


def caught_by_handler(x):
    y = x + 1
    try:
        y[5]
    except IndexError as e:
        return y * 2, str(e)


@pytest.mark.parametrize("dynamic", [True, False, None], ids=["dynamic", "static", "automatic"])
def test_the_index_error_message_names_the_real_size(dynamic):
    loom.reset()
    compiled = loom.compile(caught_by_handler, backend="eager", dynamic=dynamic, options={"strict": True})
    for n in (3, 4):
        x = torch.arange(float(n))
        got, want = compiled(x), caught_by_handler(x)
        assert torch.equal(got[0], want[0]) and got[1] == want[1]

"""``isinstance(t, nn.Buffer)`` and ``isinstance(t, nn.Parameter)`` answer as eager for tensors that carry the
class's flag (``nn.Buffer(t)`` returns a plain tensor with ``_is_buffer`` set): the metaclasses'
``__instancecheck__`` reads the flag, which the class of the tensor alone does not show."""

from __future__ import annotations

import pytest
import torch

import loom


def checks(x, t):
    return x + 1, isinstance(t, torch.nn.Buffer), isinstance(t, (torch.nn.Parameter, int)), isinstance(x, torch.nn.Buffer)


@pytest.mark.parametrize("kind", ["buffer", "plain", "parameter"])
def test_isinstance_of_flagged_tensor_classes_matches_eager(kind):
    t = {"buffer": lambda: torch.nn.Buffer(torch.ones(2)), "plain": lambda: torch.ones(2),
         "parameter": lambda: torch.nn.Parameter(torch.ones(2))}[kind]()
    x = torch.ones(2)
    loom.reset()
    report = loom.explain(checks)(x, t)
    assert report.result[1:] == checks(x, t)[1:]
    assert report.graph_count == 1
    # a flagged tensor from the frame: its flag is a tag in its __dict__, read and guarded (was a break)
    assert report.graph_break_count == 0


def test_a_plain_tensor_then_a_flagged_one_is_not_served_the_plain_answer():
    loom.reset()
    compiled = loom.compile(checks, backend="eager")
    x = torch.ones(2)
    assert compiled(x, torch.ones(2))[1] is False
    assert compiled(x, torch.nn.Buffer(torch.ones(2)))[1] is True

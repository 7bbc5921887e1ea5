"""A lazy module whose class the frame read before its first call.

The first call turns the module into its ``cls_to_become``; a trace that had read ``type(m).helper`` before
relied on the lazy class, so the guards it built could not hold on the very frame they came from (loom's
internal error, and the frame ran uncompiled). The first call now breaks there, naming the lazy module,
with eager's answer; a first call before any such read is captured as before."""

import torch
from torch import nn
from torch.nn.modules.lazy import LazyModuleMixin

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


class Materialized(nn.Module):
    def helper(self):
        return 2

    def forward(self, x):
        return x * self.weight


class Lazy(LazyModuleMixin, nn.Module):
    cls_to_become = Materialized

    def helper(self):
        return 1

    def initialize_parameters(self, x):
        self.weight = nn.Parameter(torch.full(x.shape, 3.0))

    def forward(self, x):
        return x * self.weight


def helper_read_first(x, m):
    before = m.helper()
    y = m(x)
    return y + before + m.helper(), type(m).__name__


def call_first(x, m):
    y = m(x)
    return y + m.helper(), type(m).__name__


def test_a_class_read_before_the_first_call_breaks_with_eagers_answer():
    x = torch.ones(3)
    expected = helper_read_first(x, Lazy())
    actual = _compiled(helper_read_first)(x, Lazy())
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1] == "Materialized"
    assert loom.stats()["graph_breaks"] == 1


def test_a_first_call_before_any_class_read_is_captured():
    x = torch.ones(3)
    expected = call_first(x, Lazy())
    actual = _compiled(call_first)(x, Lazy())
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1]
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)

"""``type(m).__name__`` (``__qualname__``, ``__module__``) of a grad-mode or autocast manager made in compiled code
reads the class's own strings: one graph, eager's values, where before reading the attribute was a break."""

from __future__ import annotations

import torch

import loom


def names(x):
    managers = [torch.no_grad(), torch.enable_grad(), torch.set_grad_enabled(True), torch.autocast("cpu")]
    return x * 2, [type(m).__name__ for m in managers], [type(m).__qualname__ for m in managers], \
        type(managers[0]).__module__


def test_manager_class_names_are_constants():
    x = torch.arange(3.0)
    loom.reset()
    report = loom.explain(names, backend="eager")(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    got, want = loom.compile(names, backend="eager")(x), names(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:]

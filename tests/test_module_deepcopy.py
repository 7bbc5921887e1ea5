"""``copy.deepcopy(module)`` inside compiled code (issue 29): a module whose class copies as ``nn.Module``
does is rebuilt in the trace (``cls.__new__`` and ``__setstate__`` with a deep copy of its state), its
parameters new leaves made from clones of the originals' data (``Parameter.__deepcopy__``), so the copy
is eager's (values, leaves, gradients to the copy only) and the graph does not break. Whatever the copy
reads is read where the program copies it: an attribute or parameter the trace changed first is copied
changed (an attribute stored first: the trace breaks at the copy). A tensor that is not a parameter (a buffer) is copied by the original ``deepcopy`` (a break)."""

import copy

import torch

import loom

torch.manual_seed(0)


class Scaled(torch.nn.Sequential):
    def forward(self, x):
        for i, layer in enumerate(self):
            x = layer(x) * (i + 1)
        return x


MODEL = Scaled(torch.nn.Linear(3, 4), torch.nn.GELU(), torch.nn.Linear(4, 3))
NORMED = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.BatchNorm1d(3))


def copies_and_runs(x):
    m = copy.deepcopy(MODEL)
    return m(x) + MODEL(x), m


def copies_after_changes(x):
    with torch.no_grad():
        MODEL[0].bias.add_(1)
    m = copy.deepcopy(MODEL)
    with torch.no_grad():
        MODEL[0].bias.sub_(1)
    return m(x), m[0].bias


def copies_after_tagging(x):
    MODEL.tag = 5
    m = copy.deepcopy(MODEL)
    del MODEL.tag
    return m(x), m.tag


def copies_buffers(x):
    return copy.deepcopy(NORMED).eval()(x)


def _run(fn, x):
    loom.reset()
    return loom.compile(fn, backend="eager")(x), loom.stats()


def test_a_module_copy_is_one_graph_with_new_leaves():
    x = torch.randn(2, 3)
    (expected, _), ((actual, copied), stats) = copies_and_runs(x), _run(copies_and_runs, x)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
    torch.testing.assert_close(actual, expected)
    originals, copies = list(MODEL.parameters()), list(copied.parameters())
    assert len(copies) == len(originals) == 4
    for mine, theirs in zip(copies, originals):
        assert type(mine) is torch.nn.Parameter and mine.is_leaf and mine.requires_grad and mine is not theirs
        torch.testing.assert_close(mine, theirs)
    copied(x).sum().backward()
    assert all(p.grad is not None for p in copies) and all(p.grad is None for p in originals)


def test_the_copy_sees_what_the_trace_changed_before_it():
    x = torch.randn(2, 3)
    expected = copies_after_changes(x)
    actual, stats = _run(copies_after_changes, x)
    assert stats["graph_breaks"] == 0, stats
    torch.testing.assert_close(actual, expected)
    expected = copies_after_tagging(x)
    actual, stats = _run(copies_after_tagging, x)  # (the trace cannot read __dict__ after a store: a break)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1] == 5 and not hasattr(MODEL, "tag")


def test_buffers_are_copied_by_the_original():
    x = torch.randn(2, 3)
    expected = copies_buffers(x)
    actual, stats = _run(copies_buffers, x)
    torch.testing.assert_close(actual, expected)
    assert stats["graph_breaks"] >= 1

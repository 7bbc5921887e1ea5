"""``copy.deepcopy(module)`` inside compiled code (issue 29): a module whose class copies as ``nn.Module``
does is rebuilt in the trace (``cls.__new__`` and ``__setstate__`` with a deep copy of its state), its
parameters new leaves made from clones of the originals' data (``Parameter.__deepcopy__``), so the copy
is eager's (values, leaves, gradients to the copy only) and the graph does not break. Whatever the copy
reads is read where the program copies it: an attribute or parameter the trace changed first is copied
changed (an attribute stored first: the trace breaks at the copy). A buffer that owns its storage is copied
as a ``clone`` in the graph (new tensors, eager's values, aliasing nothing of the original's); a view
buffer is copied by the original ``deepcopy`` (a break)."""

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


def _buffers_of(module):
    return dict(module.named_buffers())


def _trains_then_copies(x):
    y = NORMED(x)  # updates the running statistics first: the copy holds the updated ones
    m = copy.deepcopy(NORMED)
    return y, m(x), m


def _check_buffers(copied, original):  # the values are eager's copy's, checked beside
    mine, theirs = _buffers_of(copied), _buffers_of(original)
    assert list(mine) == list(theirs) == ["1.running_mean", "1.running_var", "1.num_batches_tracked"]
    for name, buffer in mine.items():
        assert type(buffer) is torch.Tensor and buffer is not theirs[name]
        assert buffer.untyped_storage().data_ptr() != theirs[name].untyped_storage().data_ptr()
        assert buffer.stride() == theirs[name].stride() and not buffer.requires_grad


def test_buffers_are_new_tensors_in_one_graph():
    x = torch.randn(2, 3)
    expected = copies_buffers(x)
    actual, stats = _run(copies_buffers, x)
    torch.testing.assert_close(actual, expected)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_buffers_copied_after_the_trace_changed_them_are_eager_s():
    x = torch.randn(4, 3)
    saved = copy.deepcopy(NORMED.state_dict())
    NORMED.train()
    try:
        e_y, e_out, e_copy = _trains_then_copies(x)
        eager_stats = _buffers_of(e_copy)
        NORMED.load_state_dict(saved)
        (y, out, copied), stats = _run(_trains_then_copies, x)
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
        torch.testing.assert_close((y, out), (e_y, e_out))
        for name, buffer in _buffers_of(copied).items():
            torch.testing.assert_close(buffer, eager_stats[name])
        _check_buffers(copied, NORMED)
        before = NORMED[1].running_mean.clone()
        copied(x)  # training the copy leaves the original's statistics alone
        torch.testing.assert_close(NORMED[1].running_mean, before)
    finally:
        NORMED.load_state_dict(saved)


class _ViewBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("whole", torch.arange(6.0))
        self.register_buffer("tail", self.whole[3:])  # a view: its copy takes the whole storage

    def forward(self, x):
        return x + self.tail


VIEWED = _ViewBuffer()


def copies_a_view_buffer(x):
    m = copy.deepcopy(VIEWED)
    return m(x), m


def test_a_view_buffer_is_copied_by_the_original():
    x = torch.randn(3)
    e_out, e_copy = copies_a_view_buffer(x)
    (out, copied), stats = _run(copies_a_view_buffer, x)
    torch.testing.assert_close(out, e_out)
    assert stats["graph_breaks"] >= 1
    assert copied.tail.storage_offset() == e_copy.tail.storage_offset() == 3
    assert copied.tail.untyped_storage().data_ptr() == copied.whole.untyped_storage().data_ptr()

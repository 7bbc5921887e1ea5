"""``torch.overrides.redispatch_function`` (``torch._C._skip_one_hop_torch_function``) inside a trace (misc9 item
2): the next torch-function check is skipped once, as torch's per-thread flag does; ``has_torch_function`` then
answers False and ``torch._C._peek_should_skip_torch_function()`` reads what eager reads. Before, the whole
frame ran as it is."""

import pytest
import torch
from breaks_harness import compare

import loom

_C = torch._C


class _Redispatching(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return torch.overrides.redispatch_function(func, types, args, kwargs or {})


def _plus(a, b):
    if torch.overrides.has_torch_function((a, b)):
        return torch.overrides.handle_torch_function(_plus, (a, b), a, b)
    return a + b


def _peeking(a):
    before = _C._peek_should_skip_torch_function()
    if torch.overrides.has_torch_function((a,)):
        return torch.overrides.handle_torch_function(_peeking, (a,), a)
    return a * 2, before, _C._peek_should_skip_torch_function()


def redispatched(x):
    a = x.as_subclass(_Redispatching)
    r = _plus(a, a * 2)
    return r, type(r), _plus(a, x), _C._peek_should_skip_torch_function()


def peeked(x):
    return _peeking(x.as_subclass(_Redispatching))


def unused_skip_raises(x):
    try:
        _C._skip_one_hop_torch_function(lambda: 3, (), (), {})
    except RuntimeError as e:
        return x + 1, str(e), _C._peek_should_skip_torch_function()
    return x


def skipping_twice_raises(x):
    def inner(t):
        return _C._skip_one_hop_torch_function(lambda: 3, (), (), {})

    try:
        _C._skip_one_hop_torch_function(inner, (), (x,), {})
    except RuntimeError as e:
        return x - 1, str(e), _C._peek_should_skip_torch_function()
    return x


def _plus_break_after(a, b):
    if torch.overrides.has_torch_function((a, b)):
        return torch.overrides.handle_torch_function(_plus_break_after, (a, b), a, b)
    print("", end="")
    return a + b, _C._peek_should_skip_torch_function()


def break_inside(x):
    a = x.as_subclass(_Redispatching)
    r = _plus_break_after(a, a)
    return r, _C._peek_should_skip_torch_function()


@pytest.mark.parametrize("fn", [redispatched, peeked, unused_skip_raises, skipping_twice_raises])
def test_the_skip_is_modelled_in_one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_a_break_inside_the_redispatched_function_splits_the_frame():
    stats = compare(break_inside, torch.arange(3.0))
    assert stats["graphs"] >= 1, stats  # the frame is compiled around the print
    compiled = loom.compile(break_inside, backend="eager")
    for _ in range(3):
        (got, skip_inside), skip_after = compiled(torch.arange(3.0))
        assert (skip_inside, skip_after) == (False, False)
        torch.testing.assert_close(got, torch.arange(3.0) * 2)


def test_an_entry_compiled_without_the_skip_is_not_reused_with_it():
    loom.reset()
    compiled = loom.compile(_peeking, backend="eager")
    a = torch.arange(3.0).as_subclass(_Redispatching)
    first = compiled(a)
    assert first[1:] == (True, False)
    # entered with the flag set (by torch itself): has_torch_function answers False in eager
    expected = _C._skip_one_hop_torch_function(_peeking, (), (a,), {})
    got = _C._skip_one_hop_torch_function(compiled, (), (a,), {})
    assert got[1:] == expected[1:] == (True, False)
    assert type(got[0]) is type(expected[0])
    assert not _C._peek_should_skip_torch_function()

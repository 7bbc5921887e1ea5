"""One construct, one graph break: a frame that stops at a construct whose break its caller already counted
(reached through the call) adds none to ``loom.stats()["graph_breaks"]``, whether the rest of the frame
runs as it is, is resumed and captures nothing (a helper that only hands a value back), or captures a
graph before or after the construct (the helper is split by it: its graphs count as graphs, the
construct as one break). Compiling the caller again (another shape) counts its break again."""

from __future__ import annotations

import io

import torch

import loom

_SINK = io.StringIO()


def _yields_then_prints(t):
    yield t.sin()
    print("inside", file=_SINK)
    yield t.cos()


def _two_from(t):
    gen = _yields_then_prints(t)
    return next(gen), next(gen)


def generator_breaking_in_a_helper(x):
    a, b = _two_from(x)
    return a + b


def _prints_then_computes(t):
    print("helper", file=_SINK)
    return t * 2


def helper_split_by_a_print(x):
    return _prints_then_computes(x) + 1


def _hands_back(ctx):
    print("break", file=_SINK)
    return ctx


def grad_ctx_through_a_breaking_helper(x):
    x = x + 1
    ctx = _hands_back(torch.set_grad_enabled(False))
    with ctx:
        y = x * 2
    return y


def _stats(fn, x):
    loom.reset()
    out = loom.compile(fn, backend="eager")(x)
    torch.testing.assert_close(out, fn(x))
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


def test_generator_break_in_a_helper_counts_once():
    assert _stats(generator_breaking_in_a_helper, torch.ones(3)) == (1, 1)


def test_helper_split_by_the_construct_counts_once():
    # torch.compile: 2 graphs, explain's graph_break_count 1 (its two frames each log the print)
    assert _stats(helper_split_by_a_print, torch.ones(3)) == (2, 1)


def test_helper_repeating_its_callers_break_counts_once():
    assert _stats(grad_ctx_through_a_breaking_helper, torch.ones(3)) == (2, 1)
    assert torch.is_grad_enabled()


def sort_by_a_key_reading_a_value(x):
    ts = [x + 3, x + 1, x + 2]
    ts.sort(key=lambda t: t.sum().item())  # the caller breaks at sort; each key call breaks at item()
    return ts[0]


def sort_an_argument_by_int(x, lst):
    lst.append(x * 2)
    lst[0] = lst[0] + 1
    lst.sort(key=lambda t: int(t.sum()))
    return len(lst), lst


def _key_then_computes(t, log):
    value = t.sum().item()
    log["last"] = t * value  # a graph after the construct: it splits the helper
    return value


def sort_by_a_key_split_by_the_construct(x):
    log = {"last": x}
    ts = [x + 1, x.flip(0) + 1]  # equal keys: each frame compiles once
    ts.sort(key=lambda t: _key_then_computes(t, log))
    return ts[0], log["last"]


def test_a_key_function_repeating_its_callers_break_counts_once():
    # The key function captures a graph (t.sum()) before the construct and none after it: its break is
    # the one its caller counted at sort(), as torch.compile counts it (2 graphs, 1 break).
    assert _stats(sort_by_a_key_reading_a_value, torch.arange(3.0)) == (2, 1)


def test_a_key_function_on_an_argument_list_counts_once():
    loom.reset()
    lst, expected_lst = [torch.ones(3) * 5, torch.zeros(3)], [torch.ones(3) * 5, torch.zeros(3)]
    out = loom.compile(sort_an_argument_by_int, backend="eager")(torch.arange(3.0), lst)
    expected = sort_an_argument_by_int(torch.arange(3.0), expected_lst)
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(lst, expected_lst)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (2, 1)


def test_a_key_function_split_by_the_construct_counts_once():
    # one construct (item() in the key), met by the caller at sort() and by the key function it calls, which
    # it splits: 3 graphs, 1 break (torch.compile: 3 graphs, explain's graph_break_count 2)
    assert _stats(sort_by_a_key_split_by_the_construct, torch.arange(3.0)) == (3, 1)


def test_a_caller_compiled_again_counts_its_break_again():
    loom.reset()
    compiled = loom.compile(sort_by_a_key_reading_a_value, backend="eager", dynamic=False)
    counts = []
    for n in (3, 4):  # another shape: every frame is compiled once more
        x = torch.arange(float(n))
        torch.testing.assert_close(compiled(x), sort_by_a_key_reading_a_value(x))
        counts.append((loom.stats()["graphs"], loom.stats()["graph_breaks"]))
    assert counts == [(2, 1), (4, 2)]

"""An optimizer's first step inside the compiled frame: ``self.state[p]`` of a parameter with no state yet.

``optimizer.state`` is a ``defaultdict(dict)`` keyed by parameters. Reading a missing key was a graph break
("a missing key of a defaultdict keyed by tensors"), so every first step (SGD with momentum, Adam, AdamW...)
ran natively; the key is now inserted as ``__missing__`` does, the new state dict filled by the graph and
stored into the real ``state`` after it, and the frame guarded on the key being absent (the next call, with
state present, compiles again). ``len(optimizer.state)`` is read too (guarded on the dict's length)."""

import collections

import pytest
import torch

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


def _param_with_grad():
    w = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))
    w.grad = torch.tensor([0.3, -0.6, 0.9])
    return w


def step_and_read_state(x, w, opt, name):
    y = x * 2
    before = len(opt.state)
    opt.step()
    return w.detach() + y, opt.state[w][name] * 1, before, len(opt.state)


@pytest.mark.parametrize("make, name", [
    (lambda w: torch.optim.SGD([w], lr=0.1, momentum=0.9), "momentum_buffer"),
    (lambda w: torch.optim.Adam([w], lr=0.01, foreach=False), "exp_avg"),
    (lambda w: torch.optim.Adam([w], lr=0.01, foreach=True), "exp_avg_sq"),
    (lambda w: torch.optim.AdamW([w], lr=0.01, amsgrad=True), "max_exp_avg_sq"),
])
def test_first_step_makes_state_in_one_graph(make, name):
    x = torch.arange(3.0)
    w_eager = _param_with_grad()
    eager_opt = make(w_eager)
    expected = step_and_read_state(x, w_eager, eager_opt, name)
    w = _param_with_grad()
    opt = make(w)
    actual = _compiled(step_and_read_state)(x, w, opt, name)
    assert _counts() == (1, 0)
    for a, e in zip(actual, expected):
        torch.testing.assert_close(a, e)
    assert sorted(opt.state[w]) == sorted(eager_opt.state[w_eager])
    for key, value in eager_opt.state[w_eager].items():
        torch.testing.assert_close(opt.state[w][key], value)
    # the second step finds the state there: the guard on the key being absent fails, loom compiles again
    expected = step_and_read_state(x, w_eager, eager_opt, name)
    actual = _compiled(step_and_read_state)(x, w, opt, name)
    for a, e in zip(actual, expected):
        torch.testing.assert_close(a, e)


def append_to_missing(x, seen, a, b):
    seen[b].append(x.sum())
    got = seen[b]
    return x + 1, got, len(seen)


def test_missing_key_of_tensor_keyed_defaultdict_is_inserted_once():
    a, b = torch.ones(2), torch.zeros(2)
    x = torch.arange(3.0)
    seen = collections.defaultdict(list, {a: [1]})
    out, got, size = _compiled(append_to_missing)(x, seen, a, b)
    assert _counts() == (1, 0)
    torch.testing.assert_close(out, x + 1)
    assert size == 2 and list(seen) == [a, b]
    assert got is seen[b] and len(got) == 1  # the list the frame returns is the one stored
    torch.testing.assert_close(got[0], x.sum())


def read_missing(x, table, key):
    return x + 1, table[key]


def test_missing_key_of_plain_tensor_keyed_dict_still_raises():
    a, b = torch.ones(2), torch.zeros(2)
    with pytest.raises(KeyError):
        _compiled(read_missing)(torch.arange(3.0), {a: 1}, b)

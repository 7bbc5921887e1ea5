"""Dicts and sets keyed by tensors and by objects made while tracing (Dynamo's test_dicts/test_sets use
both): one graph, eager's values; a tensor found again after an in-place method is the same key; two
tensor arguments used as distinct keys are guarded distinct, so a call passing one tensor twice
recompiles instead of reusing a trace with two keys."""

from __future__ import annotations

import torch
from breaks_harness import compare

import loom

X = torch.arange(3.0)
W = torch.ones(3)


def tensor_keys(x, w):
    d = {x: 1, w: 2}
    d[w] = d[w] + 1
    y = x.add_(1)  # the very tensor x: the same key
    d[y] += 10
    return x * d[x] + w * d[w], x in d, (x + 1) in d, len(d), d.get(x * 2, "none")


def objects_made_in_trace_as_keys(x):
    relu, tanh = torch.nn.ReLU(), torch.nn.Tanh()
    d = {relu: 2, tanh: 3}
    seen = {relu}
    seen.add(relu)
    fn = lambda t: t * 5
    d[fn] = 4
    return relu(x) * d[relu] + tanh(x) * d[tanh] + fn(x) * d[fn], len(seen), tanh in seen, relu in d


def set_of_tensors(x, w):
    s = {x, w}
    s.add(x)
    s.discard(x * 1)
    total = sum(t.sum() for t in s if t is w)
    return len(s), x in s, total, w in s.copy()


def unhashable_member(x):
    try:
        {[x]}
    except TypeError as e:
        return x + 1, str(e)
    return x


def test_tensor_keys_one_graph():
    stats = compare(tensor_keys, X, W)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)


def test_objects_made_in_trace_as_keys():
    stats = compare(objects_made_in_trace_as_keys, X)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)


def test_set_of_tensors():
    stats = compare(set_of_tensors, X, W)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)


def test_unhashable_member_raises_pythons_error():
    stats = compare(unhashable_member, X)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)


def count_keys(x, w):
    return x + 1, len({x: 1, w: 2}), len({x, w})


def test_one_tensor_passed_twice_is_one_key():
    loom.reset()
    compiled = loom.compile(count_keys, backend="eager")
    assert compiled(X, W)[1:] == (2, 2)
    assert compiled(X, X)[1:] == (1, 1) == count_keys(X, X)[1:]
    assert loom.stats()["graphs"] == 2  # the second call recompiled: the trace relied on two distinct keys

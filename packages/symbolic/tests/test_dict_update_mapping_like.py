"""``dict(obj)`` and ``d.update(obj)`` for an object of a Python class with ``keys`` (a method, or a
function stored on the instance): CPython reads ``obj[k]`` for each ``k`` in ``obj.keys()``; the
translator iterated the object for pairs instead (a graph break: it has no ``__iter__``). An object
without ``keys`` is still iterated for pairs; an item that is not a pair raises ValueError with CPython's
text (the message was unknown to the trace, a graph break when the program read it)."""

import torch
from harness import check


class _Table:
    def __init__(self, t):
        self.d = {"a": t, "b": t + 1}

    def keys(self):
        return self.d.keys()

    def __getitem__(self, key):
        return self.d[key] * 2


class _KeysOnInstance:
    def __init__(self, t):
        self.t = t
        self.keys = lambda: ["p", "q"]

    def __getitem__(self, key):
        return self.t + len(key)


class _Pairs:
    def __iter__(self):
        return iter([("z", 1), ("y", 2)])


def update_from_mapping_likes(x):
    d = {"a": x - 1}
    result = d.update(_Table(x))
    made = dict(_KeysOnInstance(x), c=x + 1)
    d.update(_Pairs())
    return d, result is None, made, dict(_Pairs())


def test_update_reads_keys_then_items():
    check(update_from_mapping_likes, torch.ones(2))


def bad_pair_message(x):
    try:
        {}.update([(1, 2, 3)])
    except ValueError as e:
        return x + 1, str(e)
    return x, ""


def test_bad_pair_raises_with_its_message():
    check(bad_pair_message, torch.ones(2))

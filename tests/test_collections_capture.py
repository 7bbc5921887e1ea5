"""collections captured through loom_symbolic.polyfills.collections: one graph, no break, eager's
answers, and objects made in the trace are their real types once they leave it."""

from __future__ import annotations

from collections import Counter, OrderedDict, defaultdict, deque

import pytest
import torch
from breaks_harness import compare

import loom


def defaultdict_lists(x):
    d = defaultdict(list)
    d["a"].append(1)
    d["b"] = [2]
    d.setdefault("c", []).append(3)
    return x + len(d) + sum(d["a"]), d, type(d) is defaultdict, d.default_factory is list


def defaultdict_counts(x):
    d = defaultdict(int)
    for k in "abca":
        d[k] += 1
    return x * d["a"], dict(d), "z" in d


def defaultdict_fromkeys_and_copy(x):
    d = defaultdict.fromkeys("ab", 1)
    e = defaultdict(list, {"k": [x]}).copy()
    e["n"].append(2)
    return x + d["a"], d, d.default_factory, e


def defaultdict_without_factory_raises(x):
    d = defaultdict(None, a=1)
    return x + d["b"]


def defaultdict_bad_factory_raises(x):
    return defaultdict(3)


def defaultdict_argument(x, d):
    d["new"] += 2
    return x + d["old"] + d["new"]


def deque_bounded(x):
    q = deque(maxlen=3)
    for i in range(5):
        q.append(i)
    q.appendleft(-1)
    q.rotate(1)
    q.extend([7, 8])
    last, first = q.pop(), q.popleft()
    return x + sum(q) + last + first, len(q), q, q.maxlen, isinstance(q, deque), type(q) is deque, q.__class__


def deque_of_tensors(x):
    q = deque([x, x + 1])
    q.extendleft([x * 2])
    out = x
    for t in q:
        out = out + t
    return out, q[0], q[-1], len(q), list(reversed(q))


def deque_pop_empty_raises(x):
    q = deque()
    q.append(x)
    q.pop()
    return q.popleft()


def deque_mutated_while_iterating_raises(x):
    q = deque([1, 2])
    for v in q:
        q.append(v)
    return x


def ordereddict_move_to_end(x):
    d = OrderedDict(a=1, b=2, c=3)
    d.move_to_end("a")
    d.move_to_end("c", last=False)
    k, v = d.popitem(last=False)
    return x + next(iter(d.values())), d, k, v, type(d.copy()) is OrderedDict


def ordereddict_argument(x, d):
    d.move_to_end("a")
    return x + next(iter(d.values())), list(d)


def ordereddict_missing_key_raises(x):
    OrderedDict(a=1).move_to_end("z")
    return x


def counter_counts(x):
    c = Counter("abracadabra")
    c.update("aab")
    c["z"] += 1
    return x + c.most_common(1)[0][1], c.most_common(2), c, c["missing"], type(c) is Counter


CASES = [defaultdict_lists, defaultdict_counts, defaultdict_fromkeys_and_copy, deque_bounded, deque_of_tensors,
         ordereddict_move_to_end, counter_counts]


@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_captured_in_one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats


def test_defaultdict_argument_is_mutated_as_in_eager():
    stats = compare(defaultdict_argument, torch.arange(3.0), defaultdict(int, old=5))
    assert stats["graph_breaks"] == 0, stats


def test_ordereddict_argument_is_reordered_as_in_eager():
    stats = compare(ordereddict_argument, torch.arange(3.0), OrderedDict(a=1, b=2))
    assert stats["graph_breaks"] == 0, stats


@pytest.mark.parametrize("fn", [defaultdict_without_factory_raises, defaultdict_bad_factory_raises,
                                deque_pop_empty_raises, deque_mutated_while_iterating_raises,
                                ordereddict_missing_key_raises])
def test_errors_are_eagers(fn):
    compare(fn, torch.ones(2))


class History(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = deque(maxlen=2)

    def forward(self, x):
        self.seen.append(x.sum())
        return x * len(self.seen) + sum(self.seen)


def test_deque_held_by_a_module_is_mutated_as_in_eager():
    x = torch.arange(3.0)
    eager = History()
    expected = [eager(x), eager(x + 1), eager(x + 2)]
    loom.reset()
    model = History()
    compiled = loom.compile(model, backend="eager")
    for want, arg in zip(expected, (x, x + 1, x + 2)):
        torch.testing.assert_close(compiled(arg), want)
    assert type(model.seen) is deque and model.seen.maxlen == 2
    assert [float(t) for t in model.seen] == [float(t) for t in eager.seen]
    assert loom.stats()["graph_breaks"] == 0


def deque_argument_read_and_rotated(x, q):
    total = x + q[0] + len(q)
    q.rotate(1)
    q.appendleft(9)
    return total, q, list(q)


def deque_argument_read_only(x, q):
    return x + sum(q) + q[-1]


@pytest.mark.parametrize("fn", [deque_argument_read_and_rotated, deque_argument_read_only])
def test_deque_arguments(fn):
    stats = compare(fn, torch.arange(3.0), deque([1, 2, 3], maxlen=4))
    assert stats["graph_breaks"] == 0, stats


def reprs_and_comparisons(x):
    q = deque([1, 2], maxlen=3)
    d = defaultdict(int)
    d["a"] += 1
    a, b = OrderedDict(a=1, b=2), OrderedDict(b=2, a=1)
    return (x + len(q), repr(q), str(deque([3])), q == deque([1, 2]), q == [1, 2], q < deque([1, 3]), repr(d),
            a == b, a == dict(b), repr(a))


def operators_keep_the_type(x):
    d = defaultdict(list, a=[1]) | {"b": [2]}
    c = Counter(a=3, b=1) + Counter(a=1, c=2)
    c.subtract({"a": 1})
    return x + c.total(), d, type(d), d.default_factory, c, sorted(c.elements()), c & Counter(a=2)


@pytest.mark.parametrize("fn", [reprs_and_comparisons, operators_keep_the_type])
def test_reprs_comparisons_and_operators_are_eagers(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graph_breaks"] == 0, stats


class ListsByDefault(defaultdict):
    def __init__(self):
        super().__init__(list)


class PlainSubclass(defaultdict):
    pass


def defaultdict_subclasses(x):
    d = ListsByDefault()
    d["a"].append(1)
    e = PlainSubclass(int)
    e["b"] += 2
    return x + len(d["a"]) + e["b"], d, e, type(d), e.default_factory, type(deque()).__name__


def test_defaultdict_subclasses_captured():
    stats = compare(defaultdict_subclasses, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats

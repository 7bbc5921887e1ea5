"""A value the program read before it stored into the same place is the old value, compiled as eagerly.

The rewritten code replays the side effects (``o.a = x``, a dict's or list's new contents, globals) and,
at a graph break, stores the locals; the values it hands back afterwards (the return value, the
resume function's arguments) must not be read from the places those writes just changed. Each case
runs a sequence of calls, eagerly and through one compiled function, on separate copies of the arguments.
"""

from __future__ import annotations

import copy

import pytest
import torch
from breaks_harness import assert_same, run, show

import loom


class Box:
    def __init__(self, **items):
        vars(self).update(items)


def swap_state(x, box):
    previous = box.state  # a recurrent module's "return the old state, keep the new one"
    box.state = x
    return previous


def swap_child(x, box):
    child = box.child
    box.child = None
    return x + 1, child


def replace_item(x, d):
    old = d["t"]
    d["t"] = x
    return old


def pop_last(x, items):
    return items.pop()


def keep_first(x, items):
    first = items[0]
    items.clear()
    return first


STATE = torch.zeros(2)


def swap_global(x):
    global STATE
    previous = STATE
    STATE = x
    return previous, STATE


def swap_locals_then_break(x, y):
    a = y
    y = x
    show("break")
    return a, y


def read_int_then_store(x, d):
    d["b"] = 0  # d["a"] changes between calls: it becomes a dynamic int, read back from d after the store
    return x + d["a"]


def move_int_between_dicts(x, d1, d2):
    v = d1["a"]
    d1["a"] = 0
    d2["x"] = v
    return x + 1


def swap_dict_items(x, d):
    d["a"], d["b"] = d["b"], d["a"]
    return x + 1


def store_while_iterating_with_break(x, d):
    keys = []
    for k in d:
        show(k)
        d[k] = 5
        keys.append(k)
    return x + len(keys), keys


def read_int_store_then_break(x, items):
    v = items[0]
    items[0] = 5
    show("break")
    return x + v


X = torch.ones(2)

CASES = [
    (swap_state, [(X, Box(state=torch.zeros(2))), (X + 1, Box(state=torch.full((2,), 3.0)))]),
    (swap_child, [(X, Box(child=Box(v=1)))]),
    (replace_item, [(X, {"t": torch.zeros(2)})]),
    (pop_last, [(X, [torch.zeros(2), torch.ones(2)])]),
    (keep_first, [(X, [1, 2]), (X, [3, 4]), (X, [5])]),
    (swap_global, [(X,), (X + 1,)]),
    (swap_locals_then_break, [(torch.zeros(1), torch.ones(1))]),
    (read_int_then_store, [(X, {"a": v, "b": 5}) for v in (1, 2, 3)]),
    (move_int_between_dicts, [(X, {"a": v}, {}) for v in (1, 2, 3)]),
    (swap_dict_items, [(X, {"a": v, "b": 10 * v}) for v in (1, 2, 3)]),
    (store_while_iterating_with_break, [(X, {"a": 1, "b": 2, "c": 3})]),
    (read_int_store_then_break, [(X, [v]) for v in (1, 2, 3)]),
]


@pytest.mark.parametrize(("fn", "calls"), CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_values_read_before_a_store_are_the_old_values(fn, calls):
    global STATE
    compiled = loom.compile(fn, backend="eager")
    for args in calls:
        STATE = torch.zeros(2)
        eager = run(fn, copy.deepcopy(args), {})
        eager_state = STATE
        STATE = torch.zeros(2)
        actual = run(compiled, copy.deepcopy(args), {})
        assert actual.error is None, f"loom raised {actual.error!r}"
        assert eager.error is None
        assert actual.printed == eager.printed
        assert_same(actual.result, eager.result)
        assert_same(actual.args, eager.args)
        assert_same(STATE, eager_state)


def store_then_read_instance_dict(x, box):
    box.count = box.__dict__.get("count", 0) + 1
    box.count = box.__dict__.get("count", 0) + 1  # sees the first store, as Python does
    return x + box.count, sorted(vars(box))


def test_instance_dict_read_after_a_store_sees_it():
    compiled = loom.compile(store_then_read_instance_dict, backend="eager")
    for _ in range(2):
        eager = run(store_then_read_instance_dict, (X, Box()), {})
        actual = run(compiled, (X, Box()), {})
        assert actual.error is None and eager.error is None
        assert_same(actual.result, eager.result)
        assert_same(actual.args, eager.args)


def store_into_instance_dict_then_read_the_attribute(x, box):
    box.__dict__["count"] = 5
    return x + box.count


def read_instance_dict_then_store_an_attribute(x, box):
    table = box.__dict__
    box.count = 1
    return x + table.get("count", 0), sorted(table)


@pytest.mark.parametrize("fn", [store_into_instance_dict_then_read_the_attribute,
                                read_instance_dict_then_store_an_attribute])
def test_instance_dict_and_attributes_stay_one(fn):
    compiled = loom.compile(fn, backend="eager")
    for _ in range(2):
        eager_box, loom_box = Box(), Box()
        eager_box.count = loom_box.count = 2
        eager = run(fn, (X, eager_box), {})
        actual = run(compiled, (X, loom_box), {})
        assert actual.error is None and eager.error is None
        assert_same(actual.result, eager.result)
        assert vars(loom_box) == vars(eager_box)

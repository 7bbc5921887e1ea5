"""An exhausted list, dict or set iterator stays exhausted when its container grows afterwards: CPython's
iterator lets go of the container at the end (test_iter's ``test_sinkstate_*``). The trace's iterator did
not: a list iterator took the new items (a wrong answer), a dict's raised RuntimeError (a break)."""

import torch
from harness import check

X = torch.arange(3.0)


def list_iterator_after_append(x):
    items = [x]
    it = iter(items)
    first = list(it)
    items.append(x + 1)
    return first[0] * 2, list(it), next(it, "end")


def for_loop_then_append(x):
    items = [1]
    it = iter(items)
    for _ in it:
        pass
    items.extend([2, 3])
    return x + len(list(it))


def dict_iterators_after_insert(x):
    d = {"a": 1}
    keys, values = iter(d), iter(d.values())
    taken = list(keys) + list(values)
    d["b"] = 2
    return x + len(taken), list(keys), next(values, "end")


def set_iterator_after_add(x):
    s = {1}
    it = iter(s)
    list(it)
    s.add(2)
    return x + 1, list(it)


def test_an_exhausted_list_iterator_ignores_later_appends():
    check(list_iterator_after_append, X)


def test_a_for_loop_leaves_the_list_iterator_exhausted():
    check(for_loop_then_append, X)


def test_exhausted_dict_iterators_ignore_later_inserts_in_one_graph():
    check(dict_iterators_after_insert, X)


def test_an_exhausted_set_iterator_ignores_later_adds_in_one_graph():
    check(set_iterator_after_add, X)

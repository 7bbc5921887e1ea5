"""A builtin container method called with a count of arguments it refuses (``lst.count()``,
``s.issubset()``, ``t.index(1, 2, 3, 4)``, ``lst.append(1, 2)``) raises the program's TypeError, with
CPython's text, where the translator failed inside its own model before (an internal error: the frame ran
uncompiled)."""

import torch
from harness import check


def _message(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except TypeError as e:
        return str(e)
    return ""


def wrong_counts(x):
    lst, t, s, d = list("abc"), ("a", "b"), set("ab"), {"a": 1}
    texts = [_message(lst.count), _message(t.count, 2, 3), _message(lst.index), _message(lst.append),
             _message(lst.insert, 1), _message(lst.pop, 1, 2), _message(lst.copy, 1), _message(s.issubset),
             _message(s.add, 1, 2), _message(d.get), _message(d.pop), _message(lst.sort, 1),
             _message(lst.sort, cmp=None), _message(t.index, 1, 2, 3, 4), _message(d.keys, 1)]
    return x + sum(1 for text in texts if text), texts, lst, sorted(s), d


def right_counts_still_work(x):
    lst = [3, 1, 2]
    lst.sort(key=None, reverse=True)
    d = {"a": 1}
    d.update({"b": 2}, c=3)
    return x + lst.index(2, 0, 3) + d.pop("z", 0), lst, d, set("ab").union(), set("a").union("b", "c")


def test_wrong_argument_counts_raise_the_programs_type_error():
    check(wrong_counts, torch.ones(2))


def test_right_argument_counts_unchanged():
    check(right_counts_still_work, torch.ones(2))

"""A list, tuple, dict or set subclass of the user's whose own Python methods answer where the builtin's
would: ``in`` asks its ``__contains__`` even when its members are constants (folded with list's before),
``==`` and ``+`` ask its ``__eq__``/``__add__``/``__radd__`` (list's answered before), and ``[*l]``,
``a, b = l``, ``{*l}`` and ``f(*l)`` iterate through its ``__iter__`` (its members were taken before). All
were wrong answers."""

import torch
from harness import check

from loom_symbolic import translate_function


class Shadowed(list):
    def __contains__(self, item):
        return 0

    def __eq__(self, other):
        return "own eq"

    def __add__(self, other):
        return "own add"

    def __radd__(self, other):
        return "own radd"

    def __iter__(self):
        return iter([9, 8])


class KeysShadowed(dict):
    def __iter__(self):
        return iter(["q"])


def list_subclass_answers_itself(x):
    s = Shadowed([1, 2])
    return x + 1, 1 in s, 1 not in s, s == [1, 2], [1] == s, s + [3], [0] + s


def test_list_subclass_operators_ask_its_methods():
    check(list_subclass_answers_itself, torch.arange(3.0))


def star_forms_iterate(x):
    s = Shadowed([1, 2])
    a, b = s

    def gather(*args):
        return args

    (k,) = KeysShadowed(z=1)
    return x * a + b, [*s], {*s}, gather(*s), gather(0, *s), k, [*KeysShadowed(y=2)]


def test_star_forms_use_the_subclass_iter():
    check(star_forms_iterate, torch.arange(3.0))


def passed_in_list_subclass(x, s):
    return x + 1, 2 in s, s == [], [*s]


def test_passed_in_list_subclass():
    check(passed_in_list_subclass, torch.arange(3.0), Shadowed([2]))


class Declining(list):
    def __init__(self, items, log):
        super().__init__(items)
        self.log = log

    def __add__(self, other):
        self.log.append("add")
        return NotImplemented

    def __eq__(self, other):
        self.log.append("eq")
        return NotImplemented


def declined_then_builtin(x):
    log = []
    s = Declining([1], log)
    return x + 1, s == [1], [1] == s, s != [2], log


def declined_concatenation(x):
    s = Declining([1], [])
    try:
        added = s + [3]  # list's own concatenation is the declining __add__ too: TypeError
    except TypeError as e:
        added = str(e)
    return x + 1, added


def test_declined_subclass_comparison_asked_once_then_builtin():
    check(declined_then_builtin, torch.arange(3.0))


def test_declined_subclass_concatenation_breaks():
    translation = translate_function(declined_concatenation, torch.arange(3.0))
    assert translation.breaks and "NotImplemented" in translation.dump(), translation.dump()

"""A list, tuple, dict or set subclass of the user's whose own Python methods answer where the builtin's
would: ``in`` asks its ``__contains__`` even when its members are constants (folded with list's before),
``==`` and ``+`` ask its ``__eq__``/``__add__``/``__radd__`` (list's answered before), and ``[*l]``,
``a, b = l``, ``{*l}`` and ``f(*l)`` iterate through its ``__iter__`` (its members were taken before). All
were wrong answers."""

import torch
from harness import check


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

"""A builtin container's method read from its class (``list.__add__``, ``dict.get``, ``set.add``) is a fixed C
object: usable as a dict key, compared with ``==`` and ``is``, its ``__name__`` read, and still callable on a
container, all in one graph (as a key it was a break that could not split the function)."""

import torch
from harness import check

X = torch.arange(3.0)


def unbound_methods_as_keys(x):
    d = {list.__add__: x * 2, list.__mul__: x * 3, dict.get: 1}
    append = list.append
    items = []
    append(items, 4)
    return (
        d[list.__add__] + d[list.__mul__] + d[dict.get],
        list.__add__ == list.__mul__,
        dict.pop is dict.pop,
        set.add.__name__,
        list.append.__qualname__,
        items,
        list.__add__ in d,
    )


def test_unbound_methods_as_keys():
    check(unbound_methods_as_keys, X)

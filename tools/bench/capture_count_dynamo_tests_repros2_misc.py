"""Small programs in the manner of PyTorch's test/dynamo/test_functions.py and test_misc.py, for
``capture_count.py --only dynamo_tests_repros2``: ``torch.Size`` arithmetic, a loss module built with
keywords inside the frame, ``math`` on sizes, a namedtuple subclass with methods and properties, string
building from shapes, nested closures that mutate a counter, dicts rebuilt from sorted items, and a user
container with ``__getattr__`` and ``__contains__``.
"""

from __future__ import annotations

import collections
import math

import torch
from torch import nn


def c_r2m_size_arithmetic(x):
    t = torch.zeros(2, 3, 4)
    s = t.size()
    tail = s[1:]
    longer = s + (5,)  # noqa: RUF005 (Size + tuple is the point)
    return x + s.numel() + len(longer), type(tail).__name__, tail, s[-1] * s[0], type(longer).__name__


def c_r2m_loss_module_made_with_keywords(x):
    loss = nn.CrossEntropyLoss(reduction="sum", label_smoothing=0.1)
    logits = torch.outer(x + 1, torch.arange(1.0, 5.0))
    return loss(logits, torch.tensor([0, 3, 1]))


def c_r2m_math_on_sizes(x):
    n = x.shape[0]
    return (x * math.radians(180) + math.copysign(n, -1) + round(n / 2) + math.ceil(n / 2),
            math.degrees(math.pi), math.isclose(n / 3, 1.0))


class _Pair(collections.namedtuple("_Pair", "a b")):
    __slots__ = ()

    @property
    def total(self):
        return self.a + self.b

    def scaled(self, k):
        return _Pair(self.a * k, self.b * k)


def c_r2m_namedtuple_subclass_methods(x):
    p = _Pair(x, 2).scaled(3)
    return p.total, p.b, isinstance(p, tuple), p._fields


def c_r2m_strings_from_shapes(x):
    t = x.reshape(1, 3)
    label = "x".join(str(d) for d in t.shape)
    return x + len(label), label, "%d-%s" % (t.dim(), label)  # noqa: UP031, f"{t.shape[1]:03d}"


def c_r2m_nested_closure_counter(x):
    count = 0

    def outer():
        def inner(t):
            nonlocal count
            count += 1
            return t * count

        return inner

    f = outer()
    return f(x) + f(x), count


def c_r2m_dict_from_sorted_items(x):
    d = dict(zip("abc", (3, 1, 2)))
    ranked = dict(sorted(d.items(), key=lambda kv: -kv[1]))
    out = x
    for i, (_k, v) in enumerate(ranked.items()):
        out = out + v * i
    return out, list(ranked), max(d, key=d.get)


class _Bag:
    def __init__(self, **items):
        self._items = items

    def __getattr__(self, name):
        try:
            return self._items[name]
        except KeyError:
            raise AttributeError(name) from None

    def __contains__(self, name):
        return name in self._items


def c_r2m_user_container_getattr_contains(x):
    bag = _Bag(scale=2, shift=x + 1)
    out = x * bag.scale + bag.shift if "scale" in bag else x
    return out, "nope" in bag, getattr(bag, "nope", None), hasattr(bag, "shift")


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

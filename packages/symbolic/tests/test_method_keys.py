"""Bound methods of objects made in the trace as dict keys and set members: hashed and compared as CPython does,
by function and the identity of the object, so ``obj.method`` read twice finds one entry and another object's
method another (a dict of them broke: "a dict key known only at run time")."""

import pytest
import torch
from harness import check


class Scaler:
    def __init__(self, k):
        self.k = k

    def scale(self, t):
        return t * self.k

    def shift(self, t):
        return t + self.k


def methods_as_keys(x):
    a, b = Scaler(2), Scaler(2)
    table = {a.scale: "a.scale", b.scale: "b.scale", a.shift: "a.shift"}
    table[a.scale] = "again"
    seen = {a.scale, a.scale, b.scale}
    total = x
    for method, name in table.items():
        total = method(total) + len(name)
    return total, len(table), table[a.scale], a.shift in table, b.shift in table, len(seen)


def methods_table_returned(x):
    a = Scaler(3)
    hooks = {a.scale: 1}
    hooks[a.shift] = 2
    return x + sum(hooks.values()), [m(x) for m in hooks]


@pytest.mark.parametrize("fn", [methods_as_keys, methods_table_returned])
def test_method_keys_match_eager(fn):
    check(fn, torch.arange(3.0))

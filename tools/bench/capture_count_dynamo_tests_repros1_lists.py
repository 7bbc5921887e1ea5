"""Repros from the first half of PyTorch's test/dynamo/test_repros.py (``--only dynamo_tests_repros1``):
list subclasses that are called and extended (HuggingFace's processor lists), lists handed in and appended
to, and asserts on tensor values.
"""

from __future__ import annotations

import itertools

import torch
from torch import nn


class _CallableList1(list):
    def __call__(self, x):
        for p in self:
            x = p(x)
        return x

    def clear(self):
        pass


class _CallableList2(list):
    def __call__(self, x):
        for p in self:
            x = p(x)
        return x

    def length_times_10(self):
        return len(self) * 10

    def append_twice(self, x):
        self.extend([x, x])


def _merge(defaults, custom):
    if len(custom) == 0:
        return defaults
    for d in defaults:
        for c in custom:
            if type(c) is type(d):
                raise ValueError
    defaults.extend(custom)
    return defaults


def c_r1_merge_callable_lists_empty(x, left):
    return _merge(left, _CallableList1([]))(x), len(left)


c_r1_merge_callable_lists_empty.extra_args = lambda: (_CallableList1([nn.ReLU(), nn.Sigmoid()]),)


def c_r1_merge_callable_lists_extend(x, left, right):
    return _merge(left, right)(x), len(left)


c_r1_merge_callable_lists_extend.extra_args = lambda: (
    _CallableList2([nn.ReLU(), nn.Sigmoid()]), _CallableList2([nn.SiLU()]))


def c_r1_list_subclass_made_and_summed(x):
    lst = _CallableList2()
    lst.extend([True])
    lst.append(x)
    lst.extend([x + 1])
    lst.pop(0)
    lst.append(lst.length_times_10())
    return sum(lst)


def c_r1_list_subclass_returned(x):
    a = _CallableList2([x + 1])
    a.extend(_CallableList2([x + 2]))
    return a, type(a).__name__, a.length_times_10()


def c_r1_list_subclass_argument_aliased(x, lst):
    lst.extend(lst)
    lst.append_twice(lst[2] + 1)
    lst.append(lst[3] + 2)
    return lst, len(lst), lst[5] is lst[4]


c_r1_list_subclass_argument_aliased.extra_args = lambda: (_CallableList2([torch.ones(3), torch.ones(3) * 2]),)


def c_r1_list_argument_appended(x, lst):
    lst.append(torch.sin(lst[0]) + x)
    return lst


c_r1_list_argument_appended.extra_args = lambda: ([torch.ones(3)],)


def c_r1_assert_on_tensor_element(x):
    b = x.sin()
    assert x[0] == 0, "first element must be 0"
    return x.cos() + b


def c_r1_assert_fstring_in_no_grad(x):
    with torch.no_grad():
        assert x.max() < 5, f"invalid max {x.max()}"
        x = torch.sin(x)
    return x


def c_r1_zip_count_shapes(x, d):
    def shapes(pairs):
        return [p[1].shape for p in pairs]

    return x + len(shapes(zip(itertools.count(), d["args"])))


c_r1_zip_count_shapes.extra_args = lambda: ({"args": [torch.ones(2, 2), torch.ones(2, 3)]},)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

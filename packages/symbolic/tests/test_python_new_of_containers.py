"""Classes whose ``__new__`` is written in Python (``self = super().__new__(cls); self.extra = ...``),
subclasses of list, dict, OrderedDict, set or plain classes: ``__new__`` is inlined (``super().__new__``
is the builtin's, an empty instance), then ``__init__`` runs with the same arguments when ``__new__``
returned a ``cls`` object. ``list.__init__`` (``super().__init__(items)``) refills the list. Creating such
an object was a graph break before."""

from collections import OrderedDict

import torch
from harness import check


class _Row(list):
    def __new__(cls, items, extra=None):
        self = super().__new__(cls)
        self.extra = extra
        return self

    def __init__(self, items, extra=None):
        super().__init__(items)


class _GrandRow(_Row):
    pass


class _Made(OrderedDict):
    def __new__(cls, *args, **kwargs):
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


class _Counted:
    made = 0

    def __new__(cls, value):
        self = super().__new__(cls)
        self.value = value * 2
        return self


class _Other:
    def __new__(cls, value):
        return value + 1  # not a _Other: no __init__ runs

    def __init__(self, value):
        raise AssertionError("not called")


def python_new_methods(x):
    row = _Row([1, 2, 3], extra=7)
    grand = _GrandRow([4])
    d = _Made(a=1)
    d["key"] = x
    c = _Counted(3)
    return (x + row.extra + sum(row) + c.value, list(row), type(row) is _Row, list(grand), grand.extra,
            d["key"] + d["a"], list(d), _Other(4))


def list_init_of_itself(x):
    row = _Row([1, 2])
    list.__init__(row, row)
    return x + len(row), list(row)


def test_python_new_then_init():
    check(python_new_methods, torch.ones(2))


def test_list_init_clears_first():
    check(list_init_of_itself, torch.ones(2))

"""Constructs from the second half of PyTorch's test/dynamo/test_misc.py that loom answered wrongly or
broke on where torch.compile does not (``tools/bench/capture_count_dynamo_tests_misc2*.py``): each
compiled with the ``eager`` backend, checked against eager, and pinned at its graph and break counts.
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import torch

import loom


def explained(fn, *args):
    """``loom.explain`` of one call with the eager backend."""
    return loom.explain(fn, backend="eager")(*args)


def compiled(fn, *args):
    loom.reset()
    return loom.compile(fn, backend="eager")(*args)


def counts(report):
    return report.graph_count, report.break_count


X = torch.arange(3.0)


# -- super() reaching a plain class attribute ---------------------------------------------------------------
class Base:
    a = 4

    def add(self, x):
        return x + 10


class Child(Base):
    def add(self, x):
        return super().add(x) + super().a * x


def test_super_class_attribute_in_a_child_method_is_one_graph():
    fn = Child().add
    assert torch.equal(compiled(fn, X), fn(X))
    assert counts(explained(fn, X)) == (1, 0)


# -- yield from a user iterator evaluates to its StopIteration's value -----------------------------------------
class Counting:
    def __init__(self, seq):
        self.seq, self.index = seq, 0

    def __iter__(self):
        return self

    def __next__(self):
        self.index += 1
        if self.index <= len(self.seq):
            return self.seq[self.index - 1]
        raise StopIteration(self.index)


def delegate_to_user_iterator(x):
    def gen(seq):
        result = yield from Counting(seq)
        yield result

    return list(gen([x, x + 1]))


def test_yield_from_user_iterator_gives_the_stop_value():
    actual, expected = compiled(delegate_to_user_iterator, X), delegate_to_user_iterator(X)
    assert actual[2] == expected[2] == 3
    assert counts(explained(delegate_to_user_iterator, X)) == (1, 0)


# -- frozen dataclasses as dict keys, hashed -----------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Inner:
    x: float
    y: float


@dataclasses.dataclass(frozen=True)
class Outer:
    inner: Inner
    n: int


def frozen_keys(x):
    dc = Outer(Inner(2.4, 4.4), 5)
    d = {dc: 3}
    return dc.inner.x + d[Outer(Inner(2.4, 4.4), 5)] + x, hash(dc) == hash(Outer(Inner(2.4, 4.4), 5))


def test_frozen_dataclass_keys_and_hash_are_one_graph():
    actual, expected = compiled(frozen_keys, X), frozen_keys(X)
    assert torch.equal(actual[0], expected[0]) and actual[1] is expected[1] is True
    assert counts(explained(frozen_keys, X)) == (1, 0)


# -- np.int64 as a size; Signature.bind's BoundArguments edited ------------------------------------------------
def reshape_numpy_int(x):
    return x.repeat(4).reshape(np.int_(12))


def _target(a, b, *rest, c=10, d=11, **extra):
    return a


def bind_and_edit(x):
    bound = inspect.signature(_target).bind(1, 2, 3, d=12, e=15)
    bound.arguments["d"] = 13
    bound.apply_defaults()
    return x + len(bound.args), dict(bound.arguments), bound.kwargs


def test_numpy_int_size_is_one_graph():
    assert torch.equal(compiled(reshape_numpy_int, X), reshape_numpy_int(X))
    assert counts(explained(reshape_numpy_int, X)) == (1, 0)


def test_bound_arguments_keep_their_edits():
    actual, expected = compiled(bind_and_edit, X), bind_and_edit(X)
    assert torch.equal(actual[0], expected[0]) and actual[1:] == expected[1:]
    assert counts(explained(bind_and_edit, X)) == (1, 0)

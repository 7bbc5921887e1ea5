"""``bool.__new__(bool, 1)``, ``int.__new__(int, "12", 8)``, ``float.__new__``, ``complex.__new__`` and
``bool.from_bytes`` (an alternative constructor bound to the subclass) on constants fold while tracing, as
``int.from_bytes`` did. They broke the graph: ``bool.__new__`` and ``bool.from_bytes`` could not be read off
the class, and ``int.__new__(int, ...)`` was not modelled for the exact type."""

import pytest
import torch

import loom


def _explain(fn, *args):
    loom.reset()
    return loom.explain(fn)(*args)


def _constructors(x):
    made = (bool.__new__(bool, 1), bool.__new__(bool), bool.from_bytes(b"\x00\x01", "big"), int.__new__(int, 42),
            int.__new__(int, "12", 8), float.__new__(float, "1.5"), complex.__new__(complex, 1, 2))
    return x + made[3], made


def _wrong_class(x):
    try:
        return x, bool.__new__(int, 3)
    except TypeError as e:
        return x + 1, str(e)


def test_number_constructors_fold_in_one_graph():
    x = torch.arange(3.0)
    report = _explain(_constructors, x)
    expected = _constructors(x)
    assert torch.equal(report.result[0], expected[0])
    assert report.result[1] == expected[1]
    assert [type(v) for v in report.result[1]] == [bool, bool, bool, int, int, float, complex]
    assert report.graph_count == 1 and report.break_count == 0


def test_new_of_a_class_that_is_not_a_subtype_raises_as_eager():
    x = torch.arange(3.0)
    report = _explain(_wrong_class, x)
    assert report.result[1] == _wrong_class(x)[1]
    assert report.break_count == 0


@pytest.mark.parametrize("value", [0, 7])
def test_folded_constructor_follows_its_argument(value):
    def fn(x, n):
        return x + int.__new__(int, n), bool.__new__(bool, n)

    x = torch.arange(3.0)
    report = _explain(fn, x, value)
    assert torch.equal(report.result[0], x + value) and report.result[1] is bool(value)

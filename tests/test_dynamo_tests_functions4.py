"""Constructs from the second half of PyTorch's test/dynamo/test_functions.py that loom got wrong, raised on,
or broke on where torch.compile does not (``tools/bench/capture_count_dynamo_tests_functions4*.py``): each
compiled with the ``eager`` backend in strict mode (an internal error raises), checked against eager.
"""

from __future__ import annotations

import functools
import io

import torch

import loom


def explained(fn, *args):
    """``loom.explain`` of one call with the eager backend, strict: an internal error raises."""
    loom.reset()
    return loom.explain(fn, backend="eager", options={"strict": True})(*args)


def counts(report):
    return report.graph_count, report.break_count


# -- a dict keyed by a frozenset, read after a break: the guards cannot key an item by it ---------------------------
_SINK = io.StringIO()
_BY_FROZENSET = {frozenset(): torch.ones(3) * 2, frozenset({1, 2}): torch.ones(3) * 5}


def frozenset_keys_across_print(x):
    k = frozenset()
    print("break", file=_SINK)
    return _BY_FROZENSET[k] * x + _BY_FROZENSET[frozenset((2, 1))]


def test_a_global_dict_keyed_by_frozensets_is_read_after_a_break_as_eager_reads_it():
    x = torch.arange(3.0)
    report = explained(frozenset_keys_across_print, x)
    assert torch.equal(report.result, frozenset_keys_across_print(x))
    assert report.graph_count == 1
    compiled = loom.compile(frozenset_keys_across_print, backend="eager", options={"strict": True})
    compiled(x)
    saved = dict(_BY_FROZENSET)
    try:
        _BY_FROZENSET[frozenset({1, 2})] = torch.ones(3) * -1  # a new value under the key: read anew
        assert torch.equal(compiled(x), frozenset_keys_across_print(x))
    finally:
        _BY_FROZENSET.clear()
        _BY_FROZENSET.update(saved)


_BY_RANGE = {range(2): torch.ones(3) * 3, 1j: torch.ones(3)}


def range_key_across_print(x):
    print("break", file=_SINK)
    return _BY_RANGE[range(2)] * x + _BY_RANGE[1j]


def test_a_dict_keyed_by_a_range_or_complex_number_is_read_not_raised_on():
    x = torch.arange(3.0)
    report = explained(range_key_across_print, x)  # strict: the guards' refusal of the key used to raise
    assert torch.equal(report.result, range_key_across_print(x))


# -- set(...) and frozenset(...) of tensors handed in: members keyed by identity, as in a set display ---------------
def set_of_argument_and_alias(x):
    y = x.add_(1)
    s = set({x})
    s.add(y)
    return len(s), len(frozenset(s)), x * 2


def in_set_of_other(x, other):
    x.add_(1)
    y = torch.Tensor.add_(x, 1)
    members = set([other])
    return x in members, y in members, len(frozenset([x, other]))


def test_set_and_frozenset_calls_take_tensors_from_outside_in_one_graph():
    report = explained(set_of_argument_and_alias, torch.arange(3.0))
    assert report.result[:2] == (1, 1) and torch.equal(report.result[2], (torch.arange(3.0) + 1) * 2)
    assert counts(report) == (1, 0)


def test_membership_in_a_set_of_a_tensor_handed_in_follows_aliasing():
    x, other = torch.zeros(3), torch.zeros(3, 2)
    report = explained(in_set_of_other, x, other)
    assert report.result == (False, False, 2)
    assert counts(report) == (1, 0)
    compiled = loom.compile(in_set_of_other, backend="eager", options={"strict": True})
    same = torch.zeros(3)
    assert compiled(same, same) == (True, True, 1)  # the same tensor twice: a new guard, eager's answer
    assert compiled(torch.zeros(3), torch.zeros(3, 2)) == (False, False, 2)


# -- hasattr on a partial made in the trace: its class's names (__repr__, __dict__...) without reading them ---------
_NAMES = ("__subclasshook__", "__lt__", "__hash__", "__dict__", "__getattribute__", "__setattr__", "__doc__",
          "__repr__", "__init__", "__new__", "__class__", "__eq__", "__reduce__", "__module__", "__call__",
          "args", "keywords", "func", "__code__", "__defaults__", "__name__", "__get__", "__qualname__",
          "__closure__", "__globals__", "missing")


def partial_hasattr(x):
    p = functools.partial(lambda a, b: torch.sin(a) + torch.cos(b), b=x)
    found = tuple(hasattr(p, name) for name in _NAMES)
    return p(x) if found[0] else x, found


def test_hasattr_on_a_partial_made_in_the_trace_answers_as_eager_in_one_graph():
    x = torch.arange(3.0)
    report = explained(partial_hasattr, x)
    expected = partial_hasattr(x)
    assert report.result[1] == expected[1] and torch.equal(report.result[0], expected[0])
    assert counts(report) == (1, 0)


# -- a NumPy call whose torch._numpy twin returns another container kind: NumPy's kind, traced ----------------------
def numpy_meshgrid(x):
    import numpy as np

    grids = np.meshgrid(x.numpy(), (x + 1).numpy())
    return type(grids).__name__, torch.from_numpy(grids[0]), torch.from_numpy(grids[1])


def test_numpy_meshgrid_gives_numpys_container_in_one_graph():
    x = torch.arange(3.0)
    report = explained(numpy_meshgrid, x)
    expected = numpy_meshgrid(x)
    assert report.result[0] == expected[0]
    assert all(torch.equal(a, b) for a, b in zip(report.result[1:], expected[1:]))
    assert counts(report) == (1, 0)


def numpy_like_makers(x):
    import numpy as np

    return (np.ones_like(x, dtype=np.float64), np.zeros_like(x * 2), np.full_like(x, 2.4, dtype=np.dtype("float")),
            np.full_like(x, 7))


def test_numpy_like_makers_of_a_tensor_give_ndarrays_in_one_graph():
    for x in (torch.arange(3.0), torch.arange(3)):
        report = explained(numpy_like_makers, x)
        for got, want in zip(report.result, numpy_like_makers(x)):
            assert type(got) is type(want) and got.dtype == want.dtype and (got == want).all()
        assert counts(report) == (1, 0)


# -- ndarray.strides of an array that is a tensor's memory: the tensor's strides in bytes ---------------------------
def numpy_strides(x, arr):
    import numpy as np

    a = x.reshape(1, 3).numpy()
    t = x.reshape(3, 1).t().numpy()
    w = (x.to(torch.int64).expand(2, 3)).numpy()
    return a.strides, t.strides, w.strides, arr.strides, torch.from_numpy(np.ascontiguousarray(a.T))


def test_ndarray_strides_of_a_tensors_memory_are_read_in_one_graph():
    import numpy as np

    x, arr = torch.arange(3.0), np.ones((4, 2), dtype=np.float64)[:, ::2]
    report = explained(numpy_strides, x, arr)
    expected = numpy_strides(x, arr)
    assert report.result[:4] == expected[:4]
    assert torch.equal(report.result[4], expected[4])
    assert counts(report) == (1, 0)


# -- a pybind11 object's property (its getter is C++ in an instancemethod): read and guarded --------------------------
def pybind_property(x, info):
    return torch.cos(x) if info.result else torch.sin(x)


def test_a_pybind_property_is_read_and_guarded_in_one_graph():
    debug_info = torch._C._dynamo.guards.GuardDebugInfo
    x = torch.arange(3.0)
    report = explained(pybind_property, x, debug_info(True, ["a==1"], 0))
    assert torch.equal(report.result, torch.cos(x)) and counts(report) == (1, 0)
    compiled = loom.compile(pybind_property, backend="eager", options={"strict": True})
    assert torch.equal(compiled(x, debug_info(True, ["a==1"], 0)), torch.cos(x))
    assert torch.equal(compiled(x, debug_info(False, ["a==1"], 1)), torch.sin(x))  # the guard sees the change

"""Constructs from the first half of PyTorch's test/dynamo/test_repros.py that loom broke on where
torch.compile does not (``tools/bench/capture_count_dynamo_tests_repros1*.py``): each compiled, checked
against eager, and pinned at its graph and break counts.

PYTEST_DONT_REWRITE: the traced functions' own ``assert`` statements must keep Python's bytecode.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

import loom


def explained(fn, *args):
    """``loom.explain`` of one call with the eager backend."""
    return loom.explain(fn, backend="eager")(*args)


def counts(report):
    return report.graph_count, report.break_count


def outcome(fn, *args):
    """The result, or the type and arguments of the exception raised."""
    try:
        return fn(*args)
    except Exception as exc:
        return type(exc), exc.args


# -- list subclasses whose class defines __call__ (HuggingFace's LogitsProcessorList) --------------------------
class Processors(list):
    def __call__(self, x):
        for p in self:
            x = p(x)
        return x

    def doubled(self):
        return len(self) * 2


class PlainList(list):
    pass


def apply_processors(x, procs):
    return procs(x) + procs.doubled()


def test_list_subclass_argument_called_is_one_graph():
    procs = Processors([nn.ReLU(), nn.Sigmoid()])
    x = torch.arange(-2.0, 2.0)
    assert counts(explained(apply_processors, x, procs)) == (1, 0)
    compiled = loom.compile(apply_processors, backend="eager", options={"strict": True})
    torch.testing.assert_close(compiled(x, procs), apply_processors(x, procs))
    more = Processors([nn.Tanh()])  # another length: the guards fail, the frame compiles again
    torch.testing.assert_close(compiled(x, more), apply_processors(x, more))


def test_list_subclass_made_in_frame_called_and_extended():
    def fn(x):
        procs = Processors([nn.ReLU()])
        procs.extend(Processors([nn.Sigmoid()]))
        return procs(x), procs

    x = torch.arange(-2.0, 2.0)
    assert counts(explained(fn, x)) == (1, 0)
    got, procs = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got, fn(x)[0])
    assert type(procs) is Processors and len(procs) == 2


def test_list_subclass_without_call_raises_as_eager():
    def fn(x, lst):
        return lst(x)

    lst = PlainList([1])
    compiled = loom.compile(fn, backend="eager")
    assert outcome(compiled, torch.ones(2), lst)[0] is TypeError
    assert outcome(fn, torch.ones(2), lst)[0] is TypeError


# -- assert on a tensor's value with a constant message --------------------------------------------------------
def first_is_zero(x):
    b = x.sin()
    assert x[0] == 0, "first element must be 0"
    return x.cos() + b


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_assert_on_tensor_with_message_stays_in_graph(backend):
    report = loom.explain(first_is_zero, backend=backend)(torch.arange(3.0))
    assert counts(report) == (1, 0), report
    compiled = loom.compile(first_is_zero, backend=backend, options={"strict": True})
    torch.testing.assert_close(compiled(torch.arange(3.0)), first_is_zero(torch.arange(3.0)))
    # the failing check raises eager's AssertionError, with eager's message, from the graph
    assert outcome(compiled, torch.ones(3)) == outcome(first_is_zero, torch.ones(3)) == (
        AssertionError, ("first element must be 0",))


def test_assert_caught_in_frame_is_not_moved_into_graph():
    def fn(x):
        try:
            assert x[0] == 0, "first element must be 0"
        except AssertionError:
            return x + 1
        return x

    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    for x in (torch.arange(3.0), torch.ones(3)):
        torch.testing.assert_close(compiled(x), fn(x))


def test_assert_in_callee_under_with_block_keeps_eager_behaviour():
    def inner(x):
        assert x[0] == 0, "m"
        return x * 2

    def fn(x):
        with torch.no_grad():
            return inner(x)

    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    assert outcome(compiled, torch.ones(3)) == (AssertionError, ("m",))
    assert torch.is_grad_enabled()
    torch.testing.assert_close(compiled(torch.arange(3.0)), fn(torch.arange(3.0)))


def test_assert_without_message_or_with_empty_one_stays_in_graph():
    def bare(x):
        assert x[0] == 0
        return x + 1

    def empty(x):
        assert x[0] == 0, ""
        return x + 1

    for fn, raised in ((bare, ()), (empty, ("",))):
        assert counts(explained(fn, torch.arange(3.0))) == (1, 0)
        compiled = loom.compile(fn, backend="eager", options={"strict": True})
        torch.testing.assert_close(compiled(torch.arange(3.0)), fn(torch.arange(3.0)))
        assert outcome(compiled, torch.ones(3)) == outcome(fn, torch.ones(3)) == (AssertionError, raised)


def test_assert_with_computed_message_still_breaks():
    def fn(x):
        assert x[0] == 0, f"got {x[0]}"
        return x + 1

    assert counts(explained(fn, torch.arange(3.0))) == (2, 1)
    compiled = loom.compile(fn, backend="eager")
    assert outcome(compiled, torch.ones(3)) == outcome(fn, torch.ones(3))


def test_assert_failing_in_graph_raises_from_the_users_line():
    import traceback

    compiled = loom.compile(first_is_zero, backend="eager", options={"strict": True})
    with pytest.raises(AssertionError) as info:
        compiled(torch.ones(3))
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (last.filename, last.name) == (__file__, "first_is_zero")
    assert last.lineno == first_is_zero.__code__.co_firstlineno + 2


class CallableTable(dict):
    def __call__(self, key, x):
        return self[key](x)


def test_dict_subclass_argument_called_is_one_graph():
    def fn(x, table):
        return table("act", x) + len(table)

    table = CallableTable(act=torch.tanh)
    x = torch.arange(-2.0, 2.0)
    assert counts(explained(fn, x, table)) == (1, 0)
    torch.testing.assert_close(loom.compile(fn, backend="eager", options={"strict": True})(x, table), fn(x, table))


# -- torch.LongTensor on a list (test_longtensor_list) ---------------------------------------------------------
def long_tensors(x):
    vals = [torch.tensor(v) for v in (5, 7, 9)]
    mixed = (torch.tensor(True), torch.tensor(3, dtype=torch.int32))
    return x * torch.LongTensor(vals), torch.LongTensor([1, 2, 3]), torch.LongTensor(mixed)


def test_long_tensor_of_index_tensors_and_ints_is_one_graph():
    x = torch.ones(3)
    assert counts(explained(long_tensors, x)) == (1, 0)
    got = loom.compile(long_tensors, backend="eager", options={"strict": True})(x)
    for g, w in zip(got, long_tensors(x)):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w)


def test_long_tensor_of_other_items_is_left_to_eager():
    def floats(x):
        return torch.LongTensor([torch.tensor(5.7)]) + x

    def sized(x):
        return torch.LongTensor(3).shape, torch.LongTensor([1.5]) + x

    for fn in (floats, sized):
        compiled = loom.compile(fn, backend="eager", options={"strict": True})
        got, want = outcome(compiled, torch.ones(1)), outcome(fn, torch.ones(1))
        assert type(got) is type(want)
        if isinstance(want, tuple) and isinstance(want[0], type):
            assert got == want  # the same exception
        else:
            assert got[0] == want[0]
            torch.testing.assert_close(got[1], want[1])

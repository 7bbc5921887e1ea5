"""Constructs from the second half of PyTorch's test/dynamo/test_repros.py that loom failed on or broke on
where torch.compile does not (``tools/bench/capture_count_dynamo_tests_repros2*.py``): each compiled with
the ``eager`` backend, checked against eager, and pinned at its graph and break counts.
"""

from __future__ import annotations

import enum
import typing

import torch
from breaks_harness import show

import loom


def explained(fn, *args):
    """``loom.explain`` of one call with the eager backend."""
    return loom.explain(fn, backend="eager")(*args)


def counts(report):
    return report.graph_count, report.break_count


# -- dicts keyed by enum members, dtypes and devices, read from the frame ----------------------------------------
class Key(enum.Enum):
    A = "a"
    B = "b"


def read_named_keys(x, d):
    return x + d[Key.A] + d[torch.float32] + d[torch.device("cpu")]


def test_dict_argument_keyed_by_enum_dtype_and_device_is_one_graph():
    def make(a, f):
        return {Key.A: torch.ones(2) * a, torch.float32: f, torch.device("cpu"): 1}

    report = explained(read_named_keys, torch.ones(2), make(1, 2))
    assert counts(report) == (1, 0), report
    compiled = loom.compile(read_named_keys, backend="eager", options={"strict": True})
    for a, f in ((1, 2), (5, 2), (5, 3)):  # a new tensor value is read afresh; a new int recompiles
        d = make(a, f)
        torch.testing.assert_close(compiled(torch.ones(2), d), read_named_keys(torch.ones(2), d))
    d = {Key.B: 0, **make(2, 2)}  # another key: the keys guard fails, the frame compiles again
    torch.testing.assert_close(compiled(torch.ones(2), d), read_named_keys(torch.ones(2), d))


def test_enum_keyed_dict_argument_iterated():
    def total(x, d):
        for k, v in d.items():
            x = x + v * (2 if k is Key.B else 1)
        return x

    d = {Key.A: torch.ones(2), Key.B: torch.ones(2) * 3}
    assert counts(explained(total, torch.zeros(2), d)) == (1, 0)
    torch.testing.assert_close(loom.compile(total, backend="eager")(torch.zeros(2), d), total(torch.zeros(2), d))


# -- keywords a graph's code cannot spell ------------------------------------------------------------------------
def draws_with_keyword_from(x):
    t = torch.zeros(2, 3)
    t.random_(**{"from": -10, "to": 10})
    u = torch.zeros(3).uniform_(**{"from": -10, "to": 10})
    return t + x.sum(), u


def test_method_call_with_keyword_named_from_is_one_graph():
    report = explained(draws_with_keyword_from, torch.ones(2))
    assert counts(report) == (1, 0), report
    torch.manual_seed(0)
    want = draws_with_keyword_from(torch.ones(2))
    torch.manual_seed(0)
    got = loom.compile(draws_with_keyword_from, backend="eager", options={"strict": True})(torch.ones(2))
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)


def test_function_call_with_keyword_named_from():
    def f(x):
        return torch.add(x, **{"other": x, "alpha": 2}), torch.zeros(3).random_(**{"from": 1, "to": 2})

    got = loom.compile(f, backend="eager", options={"strict": True})(torch.ones(3))
    for g, w in zip(got, f(torch.ones(3))):
        torch.testing.assert_close(g, w)


# -- a class's bases and MRO ---------------------------------------------------------------------------------------
class Base:
    def __init__(self):
        super().__init__()
        self.a = 5


class Mixin:
    pass


class Diamond(Mixin, Base):
    def __init__(self):
        super().__init__()
        self.b = 10


def walk_hierarchy(x):
    d = Diamond()
    return x * d.a * d.b, [c.__name__ for c in Diamond.__mro__], Diamond.__bases__, Diamond.__base__ is Mixin


def test_class_mro_and_bases_are_read_in_the_graph():
    report = explained(walk_hierarchy, torch.ones(2))
    assert counts(report) == (1, 0), report
    got, want = loom.compile(walk_hierarchy, backend="eager")(torch.ones(2)), walk_hierarchy(torch.ones(2))
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:]


# -- parametrised typing forms -----------------------------------------------------------------------------------
def typing_reads(x):
    import typing

    a = list[str]
    return (x + 1, a.__origin__, a.__args__, typing.get_origin(typing.List[int]),  # noqa: UP006
            typing.get_args(dict[str, int]), typing.get_args(int | None))


def jit_isinstance_branch(x):
    if torch.jit.isinstance(x, list[str]):
        return x * 2
    return x + 1


def test_typing_forms_are_read_in_the_graph():
    for fn in (typing_reads, jit_isinstance_branch):
        report = explained(fn, torch.ones(2))
        assert counts(report) == (1, 0), (fn.__name__, report)
    got, want = loom.compile(typing_reads, backend="eager")(torch.ones(2)), typing_reads(torch.ones(2))
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:]
    torch.testing.assert_close(loom.compile(jit_isinstance_branch, backend="eager")(torch.ones(2)), torch.ones(2) + 1)


# -- an enum whose class answers unknown values (_missing_) ------------------------------------------------------
class Padding(str, enum.Enum):  # noqa: UP042 (transformers spells it so)
    LONGEST = "longest"
    MAX_LENGTH = "max_length"

    @classmethod
    def _missing_(cls, value):
        if value == "long":
            return cls.LONGEST
        if value == "bad":
            return 5
        if value == "none":
            return None
        raise ValueError(f"{value} is not a valid {cls.__name__}")


def pick_padding(x, value):
    return x + len(Padding(value).value)


def outcome(fn, *args):
    try:
        return "value", fn(*args)
    except Exception as exc:
        return "raised", type(exc), exc.args, type(exc.__context__)


def test_enum_with_missing_looks_up_values_in_the_graph():
    for value in ("longest", "long"):
        assert counts(explained(pick_padding, torch.ones(2), value)) == (1, 0), value
    for value in ("longest", "long", "max_length", "bad", "none", "nope", ["unhashable"]):
        loom.reset()
        got = outcome(loom.compile(pick_padding, backend="eager"), torch.ones(2), value)
        want = outcome(pick_padding, torch.ones(2), value)
        if want[0] == "value":
            torch.testing.assert_close(got[1], want[1])
        else:
            assert got == want, value


# -- TypedDicts: made in the frame, and called (their metaclass's ``__call__`` is ``dict``) -----------------------
class PixelInputs(typing.TypedDict):
    type: str
    data: torch.Tensor


def fill_typed_dict(x):
    obj = PixelInputs(type="pixel", data=x + 1)
    out = x * obj["data"]
    obj["data"] = 3
    return out * obj["data"], obj, type(obj) is dict, PixelInputs({"a": 1}, b=2)


def typed_dict_made_in_frame(x):
    class Inputs(typing.TypedDict):
        data: torch.Tensor

    class Row(typing.NamedTuple):
        a: int
        b: int = 2

    class Ints(list[int]):
        pass

    return x * Inputs(data=x)["data"] + Row(1).b + len(Ints([1, 2]))


def test_typed_dicts_are_one_graph():
    for fn in (fill_typed_dict, typed_dict_made_in_frame):
        report = explained(fn, torch.ones(2))
        assert counts(report) == (1, 0), (fn.__name__, report)
    got, want = loom.compile(fill_typed_dict, backend="eager")(torch.ones(2)), fill_typed_dict(torch.ones(2))
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:]
    got = loom.compile(typed_dict_made_in_frame, backend="eager")(torch.ones(2))
    torch.testing.assert_close(got, typed_dict_made_in_frame(torch.ones(2)))


# -- a descriptor whose class-level read answers another object (torch.distributions' lazy_property) ----------
def probs_after_a_break(x, d):
    y = x.sin()
    show("break")
    return y + d.probs + d.logits


def test_lazy_property_read_after_a_break_is_guarded_where_it_sits():
    compiled = loom.compile(probs_after_a_break, backend="eager", options={"strict": True})
    for _ in range(2):  # the guards of the resumed frame must hold on the frame they were built from
        d = torch.distributions.Categorical(logits=torch.arange(3.0))
        want = probs_after_a_break(torch.ones(3), torch.distributions.Categorical(logits=torch.arange(3.0)))
        torch.testing.assert_close(compiled(torch.ones(3), d), want)
    assert counts(explained(probs_after_a_break, torch.ones(3), d)) == (2, 1)


# -- slice() with a part known only at run time -------------------------------------------------------------------
def trims_with_slice_builtin(x):
    n = x.shape[0]
    return x[slice(1, n - 1)] * 2, x[slice(n // 2)]


def sets_through_tensor_slice(x):
    lengths = torch.tensor([1, 2, 3, 2])
    m = torch.ones(4, 5)
    m[(3, slice(lengths[3], None, None))] = 0
    return m + x.sum()


def test_slice_builtin_with_symbolic_parts_is_one_graph():
    loom.reset()
    compiled = loom.compile(trims_with_slice_builtin, backend="eager", dynamic=True)
    for n in (6, 9):
        for g, w in zip(compiled(torch.arange(float(n))), trims_with_slice_builtin(torch.arange(float(n)))):
            torch.testing.assert_close(g, w)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_slice_builtin_with_a_tensor_part_breaks_once_at_the_subscript():
    report = explained(sets_through_tensor_slice, torch.ones(2))
    assert report.break_count == 1 and "a tensor as a slice bound" in str(report.breaks[0]), report
    got = loom.compile(sets_through_tensor_slice, backend="eager")(torch.ones(2))
    torch.testing.assert_close(got, sets_through_tensor_slice(torch.ones(2)))

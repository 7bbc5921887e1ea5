"""Python-level gaps found by ``tools/bench/capture_count_dynamo_tests_repros3.py`` (after PyTorch's
test/dynamo/test_repros.py and test_misc.py).

Before: ``functools.total_ordering``, ``typing.runtime_checkable`` and ``enum.unique`` on a class made in the
frame broke the graph (``object.__lt__`` could not be read, then functools' stores were refused); ``Flag(3)``
broke; ``shuffle``/``sample``/``choices`` of a ``random.Random(seed)`` made in the frame broke; ``ParameterList[5]`` (out of range) returned the item at 5 % len
and ``ParameterList[::-1]`` raised AttributeError (both wrong answers); ``param.grad_fn`` of a leaf input broke.
"""

import collections
import contextlib
import enum
import functools
import io
import random
import typing
from typing import Protocol, runtime_checkable

import torch
from torch import nn

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _explain(fn, *args):
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        return loom.explain(fn)(*args)


def _same(got, want):
    if isinstance(want, torch.Tensor):
        assert isinstance(got, torch.Tensor)
        torch.testing.assert_close(got, want)
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        assert got == want, (got, want)


def _check(fn, *args, graphs=1, breaks=0, calls=2):
    """Eager's answers on ``calls`` calls against the compiled ones (no recompile), and one explain run's counts."""
    expected = [fn(*args) for _ in range(calls)]
    compiled = _compiled(fn)
    results = [compiled(*args) for _ in range(calls)]
    stats = loom.stats()
    for got, want in zip(results, expected):
        _same(got, want)
    assert stats["recompiles"] == 0, stats
    report = _explain(fn, *args)
    assert (report.graph_count, report.graph_break_count) == (graphs, breaks), report.breaks
    return report


# -- class decorators on a class made in the frame ----------------------------------------------------------
def total_ordering_in_frame(x):
    @functools.total_ordering
    class Rank:
        def __init__(self, v):
            self.v = v

        def __eq__(self, other):
            return self.v == other.v

        def __lt__(self, other):
            return self.v < other.v

    ranks = sorted([Rank(3), Rank(1), Rank(2)])
    return x + ranks[0].v, Rank(2) >= Rank(1), Rank(1) > Rank(2), Rank(1) <= Rank(1), Rank.__ge__.__name__


def test_total_ordering_on_a_class_made_in_the_frame():
    _check(total_ordering_in_frame, torch.arange(3.0))


class _OnlyLess:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return self.v < other.v


def total_ordering_outside_class(x):
    functools.total_ordering(_OnlyLess)
    return x + 1


def test_total_ordering_on_an_outside_class_still_breaks():
    report = _explain(total_ordering_outside_class, torch.arange(3.0))  # its code traced: it changes an outside class
    assert report.graph_break_count == 1


def slot_wrappers_compared(x):
    class A:
        def __lt__(self, other):
            return True

    return (x + 1, A.__lt__ is not object.__lt__,
            getattr(A, "__gt__", None) is getattr(object, "__gt__", None), object.__lt__ is object.__lt__)


def test_slot_wrappers_of_builtin_types_compare_by_identity():
    _check(slot_wrappers_compared, torch.arange(3.0))


def runtime_checkable_in_frame(x):
    @runtime_checkable
    class Scales(Protocol):
        def scale(self, t): ...

    class Doubler:
        def scale(self, t):
            return t * 2

    objs = [Doubler(), object()]
    out = x
    for o in objs:
        if isinstance(o, Scales):
            out = o.scale(out)
    return out, [isinstance(o, Scales) for o in objs]


def test_runtime_checkable_protocol_made_in_the_frame():
    _check(runtime_checkable_in_frame, torch.arange(3.0))


def unique_enum_in_frame(x):
    @enum.unique
    class C(enum.Enum):
        A = 1
        B = 2

    return x + C.B.value


def duplicate_enum_in_frame(x):
    class C(enum.Enum):
        A = 1
        B = 1

    try:
        enum.unique(C)
    except ValueError as e:
        return x + 1, str(e)
    return x


def test_enum_unique_made_in_the_frame():
    _check(unique_enum_in_frame, torch.arange(3.0))
    # eager's ValueError, raised in the trace (enum.unique run on the class the trace made)
    _check(duplicate_enum_in_frame, torch.arange(3.0))


def flag_combination(x):
    class Mode(enum.Flag):
        READ = 1
        WRITE = 2
        EXEC = 4

    m = Mode.READ | Mode.WRITE
    return x * (Mode(3) == m), Mode(3).value, [f.name for f in Mode if f in Mode(5)]


def test_flag_value_lookup_makes_the_combination():
    _check(flag_combination, torch.arange(3.0))


# -- function metadata assigned ----------------------------------------------------------------------------
def _helper(t):
    return t


def rename_helper(x):
    _helper.__qualname__ = "renamed"
    return x + 1, repr(_helper).split(" at ")[0]


def test_real_function_metadata_assigned_still_breaks():
    # the trace folds repr() and other reads on the real function: a store it replayed later would be unseen there
    _helper.__qualname__ = "_helper"
    expected = rename_helper(torch.arange(3.0))
    _helper.__qualname__ = "_helper"
    _same(_compiled(rename_helper)(torch.arange(3.0)), expected)
    _helper.__qualname__ = "_helper"
    report = _explain(rename_helper, torch.arange(3.0))
    assert report.graph_break_count == 1
    _helper.__qualname__ = "_helper"


# -- random.Random(seed) shuffle / sample / choices -------------------------------------------------------
def seeded_shuffle(x):
    rng = random.Random(7)
    order = [0, 1, 2]
    rng.shuffle(order)
    return x[order] + rng.random(), order


def seeded_positions_of_tensors(x):
    rng = random.Random(3)
    ts = [x, x + 1, x * 2, x - 5]
    rng.shuffle(ts)
    two = rng.sample(ts, 2)
    picks = rng.choices(ts, k=3)
    weighted = rng.choices((x, -x), weights=[1, 3], k=4)
    counted = rng.sample((x, x + 1, x + 2), 2, counts=[1, 2, 3])
    return ts, two, picks, weighted, counted, rng.random(), rng.sample(range(10), 3), rng.choices("abc", k=2)


def seeded_sample_too_large(x):
    rng = random.Random(3)
    try:
        return rng.sample([x, x + 1], 5)
    except ValueError as e:
        return x, str(e), rng.random()


def seeded_choices_of_empty(x):
    rng = random.Random(3)
    try:
        return rng.choices([], k=1)
    except IndexError as e:
        return x, str(e)


def test_seeded_random_moves_and_picks_items():
    _check(seeded_choices_of_empty, torch.arange(3.0), graphs=0)  # eager's message: "list index out of range"
    _check(seeded_shuffle, torch.arange(3.0))
    _check(seeded_positions_of_tensors, torch.arange(3.0))
    _check(seeded_sample_too_large, torch.arange(3.0), graphs=0)  # no tensor op: the frame needs no graph


def shuffle_argument_list(x, items):
    random.Random(5).shuffle(items)
    return x + 1


def test_seeded_shuffle_of_an_argument_list_is_replayed():
    want = [torch.ones(1), torch.zeros(1), 5]
    got = list(want)
    shuffle_argument_list(torch.arange(3.0), want)
    _compiled(shuffle_argument_list)(torch.arange(3.0), got)
    assert [id(v) for v in got] == [id(v) for v in want]


# -- ParameterList indexing --------------------------------------------------------------------------------
_PLIST = nn.ParameterList([nn.Parameter(torch.ones(3)), nn.Parameter(torch.full((3,), 2.0))])


def plist_out_of_range(x):
    try:
        return x * _PLIST[5]
    except IndexError as e:
        return x - 100, str(e)


def plist_reversed_slice(x):
    try:
        s = _PLIST[::-1]
        return x * s[0], len(s), type(s).__name__
    except AttributeError:
        return x - 100


def plist_negative_index(x):
    return x * _PLIST[-1] + _PLIST[0]


def test_parameter_list_index_out_of_range_raises():
    _check(plist_out_of_range, torch.arange(3.0))


def test_parameter_list_slice_is_a_parameter_list():
    _check(plist_reversed_slice, torch.arange(3.0))
    _check(plist_negative_index, torch.arange(3.0))


def leaf_grad_fn(x, w):
    return x + 1, w.grad_fn is None


def test_grad_fn_of_a_leaf_input_is_none_and_guarded():
    leaf = torch.ones(3, requires_grad=True)
    _check(leaf_grad_fn, torch.arange(3.0), leaf)
    compiled = _compiled(leaf_grad_fn)
    assert compiled(torch.arange(3.0), leaf)[1] is True
    assert compiled(torch.arange(3.0), leaf * 2)[1] is False  # not a leaf: the guard recompiles
    assert loom.stats()["recompiles"] == 1


# -- grad-mode decorators in a class body ------------------------------------------------------------------
def no_grad_method_in_frame_class(x):
    class Tracker(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("ema", torch.zeros(3))
            self.w = nn.Parameter(torch.ones(3))

        @torch.no_grad()
        def update(self, t):
            self.ema.mul_(0.5).add_(t * self.w)
            return (t * self.w).requires_grad

        def forward(self, t):
            flag = self.update(t)
            return t * self.w + self.ema, flag

    m = Tracker()
    out, flag = m(x)
    return out, flag, out.requires_grad, m.ema


def grad_mode_set_in_class_body(x):
    class Odd:
        mode = torch.set_grad_enabled(True)

    return x + 1, type(Odd.mode).__name__


def test_no_grad_decorator_in_a_class_body_made_in_the_frame():
    _check(no_grad_method_in_frame_class, torch.arange(3.0))
    report = _explain(grad_mode_set_in_class_body, torch.arange(3.0))  # making it sets the mode: still a break
    assert "class Odd" in report.breaks[0].what and "set_grad_enabled" in report.breaks[0].why


# -- NumPy scalars computed from constants -----------------------------------------------------------------
def numpy_scalars_of_constants(x):
    import numpy as np

    n = np.prod(x.shape)
    m = np.sum([1, 2, 3])
    return x * int(n) + float(m), type(n).__name__, int(np.max([4, 9, 2])), np.prod([2, 3]).item()


def numpy_scalar_argument_item(x, s):
    return x * (s * 2).item(), (s - 1).tolist()


def test_numpy_scalar_of_constants_is_read_as_its_value():
    _check(numpy_scalars_of_constants, torch.arange(3.0))


def test_numpy_scalar_argument_item_is_specialised():
    import numpy as np

    _check(numpy_scalar_argument_item, torch.arange(3.0), np.float32(2.0))
    compiled = _compiled(numpy_scalar_argument_item)
    compiled(torch.arange(3.0), np.float32(2.0))
    got = compiled(torch.arange(3.0), np.float32(3.0))  # another value: the guard recompiles
    _same(got, numpy_scalar_argument_item(torch.arange(3.0), np.float32(3.0)))
    assert loom.stats()["recompiles"] == 1


def device_kind_flags(x):
    y = x * 2
    return y + x.is_cpu, y.is_cpu, y.is_mps, x.is_sparse_csr, y.is_xla


def test_device_kind_flags_are_metadata():
    _check(device_kind_flags, torch.arange(3.0))


# -- named tuple subclasses with their own construction or attributes ----------------------------------------
class _Range(collections.namedtuple("_Range", "lo hi")):
    __slots__ = ()

    def __new__(cls, lo, hi=None):
        return super().__new__(cls, lo, lo + 1 if hi is None else hi)


class _Tagged(collections.namedtuple("_Tagged", "a b")):
    def __init__(self, *args):
        self.tag = "made"


class _Open(collections.namedtuple("_Open", "a b")):
    pass


def namedtuple_own_new(x):
    try:
        r = _Range(1)
    except TypeError:  # the fields' own constructor would raise: a missing argument
        return x - 100
    return x * r.hi, tuple(r)


def namedtuple_own_init(x):
    t = _Tagged(1, 2)
    return x + t.a, t.tag


def namedtuple_instance_attribute(x, t):
    return x + t.a + t[1], getattr(t, "tag", None), hasattr(t, "tag"), tuple(t)


def test_namedtuple_subclass_own_new_and_init_run():
    # before: the fields were filled directly (TypeError caught: a wrong answer; no __init__: an AttributeError)
    _check(namedtuple_own_new, torch.arange(3.0))  # its __new__ inlined: super().__new__, then tuple.__new__
    _same(_compiled(namedtuple_own_init)(torch.arange(3.0)), namedtuple_own_init(torch.arange(3.0)))
    assert "__new__" in _explain(namedtuple_own_init, torch.arange(3.0)).breaks[0].why  # an __init__: not modelled


class _Checked(collections.namedtuple("_Checked", "lo hi")):
    __slots__ = ()

    def __new__(cls, lo, hi=None):
        if lo < 0:
            raise ValueError("negative")
        return super().__new__(cls, lo, lo + 1 if hi is None else hi)


def namedtuple_own_new_paths(x):
    r = _Checked(1)
    try:
        _Checked(-1)
    except ValueError as e:
        msg = str(e)
    return x * r.hi, tuple(r._replace(hi=9)), tuple(_Checked._make([3, 4])), r == (1, 2), type(r) is _Checked, msg


def test_namedtuple_subclass_own_new_paths():
    _check(namedtuple_own_new_paths, torch.arange(3.0))


def test_namedtuple_subclass_instance_attributes_are_read():
    tagged = _Open(1, 2)
    tagged.tag = "made"
    _same(_compiled(namedtuple_instance_attribute)(torch.arange(3.0), tagged),
          namedtuple_instance_attribute(torch.arange(3.0), tagged))
    plain = _Open(1, 2)
    compiled = _compiled(namedtuple_instance_attribute)
    _same(compiled(torch.arange(3.0), plain), namedtuple_instance_attribute(torch.arange(3.0), plain))
    plain.tag = "late"  # the attribute read missing is guarded absent: recompiles
    _same(compiled(torch.arange(3.0), plain), namedtuple_instance_attribute(torch.arange(3.0), plain))
    assert loom.stats()["recompiles"] == 1


# -- __set_name__ of a value bound in a class body made in the frame ---------------------------------------
_NAMED = []


class _Registering:
    def __set_name__(self, owner, name):
        _NAMED.append(name)


_REGISTERING = _Registering()


def class_body_binds_registering_descriptor(x):
    class A:
        g = _REGISTERING

    return x + len(_NAMED), A.g is _REGISTERING


def class_body_binds_cached_property(x):
    class B:
        def __init__(self, t):
            self.t = t

        @functools.cached_property
        def doubled(self):
            return self.t * 2

    return B(x).doubled


def test_class_body_binding_an_object_with_set_name_breaks():
    # before: type() ran the user's __set_name__ once, while tracing; eager runs it on every call (wrong answer)
    _NAMED.clear()
    expected = [class_body_binds_registering_descriptor(torch.arange(3.0)) for _ in range(3)]
    _NAMED.clear()
    compiled = _compiled(class_body_binds_registering_descriptor)
    _same([compiled(torch.arange(3.0)) for _ in range(3)], expected)
    report = _explain(class_body_binds_registering_descriptor, torch.arange(3.0))
    assert "__set_name__" in report.breaks[0].why
    _check(class_body_binds_cached_property, torch.arange(3.0))  # the standard library's own: made once, as before


def plist_appended_then_indexed(x, plist):
    plist.append(nn.Parameter(torch.full((3,), 5.0)))
    try:
        extra = plist[2]
    except IndexError as e:
        extra = str(e)
    return x * plist[-1] * plist[1], len(plist), extra


def test_parameter_list_indexed_after_an_append_in_the_frame():
    # before: plist[-1] read the real list's last parameter, the one before the append (a wrong answer)
    def fresh():
        return nn.ParameterList([nn.Parameter(torch.ones(3))])

    want = plist_appended_then_indexed(torch.arange(3.0), fresh())
    _same(_compiled(plist_appended_then_indexed)(torch.arange(3.0), fresh()), want)
    report = _explain(plist_appended_then_indexed, torch.arange(3.0), fresh())
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks


# -- a user's Generic class called through its alias ---------------------------------------------------------
_T = typing.TypeVar("_T")


class _Box(typing.Generic[_T]):
    def __init__(self, item):
        self.item = item


class _SlottedBox(typing.Generic[_T]):
    __slots__ = ("item",)

    def __init__(self, item):
        self.item = item


def generic_alias_called(x):
    b = _Box[int](4)
    s = _SlottedBox[int](2)  # typing's __orig_class__ store fails on it, silently
    return x * b.item + s.item, b.__orig_class__ is _Box[int], hasattr(s, "__orig_class__")


def test_generic_alias_call_makes_the_instance_and_tags_it():
    _check(generic_alias_called, torch.arange(3.0))  # before: a break, the alias could not be called

"""Each guard kind: passes on the value it was built from, fails each way it should, with the right
``why_failed`` text, on both back ends."""

from __future__ import annotations

import enum
import math
import types
from collections import OrderedDict, defaultdict, namedtuple
from collections.abc import Mapping
from decimal import Decimal

import pytest
import torch

from loom_guards import (
    Attr,
    ConstantMatch,
    DictContains,
    DictKeys,
    Guard,
    GuardFailure,
    Identity,
    IsNone,
    Item,
    Length,
    Local,
    NoAliasing,
    NotNone,
    Relation,
    SameObject,
    StorageOverlap,
    TensorSize,
    TypeMatch,
)

X = Local("x")


def verdict(check, value, **more):
    """(passes, why_failed) for locals {'x': value}; asserts the two agree."""
    frame = {"x": value, **more}
    ok = check(frame)
    why = check.why_failed(frame)
    assert type(ok) is bool
    assert ok == (why is None), (ok, why)
    return ok, why


# -- None / not None ---------------------------------------------------------------------------------


def test_is_none(build):
    check = build([IsNone(X)])
    assert verdict(check, None) == (True, None)
    assert verdict(check, 0) == (False, "L['x'] is None, got 0")
    assert verdict(check, []) == (False, "L['x'] is None, got []")


def test_not_none(build):
    check = build([NotNone(X)])
    assert verdict(check, 0) == (True, None)
    assert verdict(check, None) == (False, "L['x'] is not None, got None")


def test_none_normal_forms():
    assert ConstantMatch(X, None) == IsNone(X)
    assert Identity(X, None) == IsNone(X)
    assert TypeMatch(X, type(None)) == IsNone(X)


# -- type and identity -------------------------------------------------------------------------------


def test_type_match(build):
    check = build([TypeMatch(X, int)])
    assert verdict(check, 3) == (True, None)
    assert verdict(check, True) == (False, "type(L['x']) is int, got bool")  # exact: no subclasses
    assert verdict(check, 3.0) == (False, "type(L['x']) is int, got float")
    assert verdict(check, None) == (False, "type(L['x']) is int, got NoneType")


def test_type_match_user_class(build):
    class Point:
        pass

    check = build([TypeMatch(X, Point)])
    assert verdict(check, Point())[0]
    ok, why = verdict(check, object())
    assert not ok and why.endswith("Point, got object")


def test_identity(build):
    def f():
        pass

    def g():
        pass

    check = build([Identity(X, f)])
    assert verdict(check, f) == (True, None)
    ok, why = verdict(check, g)
    assert not ok
    assert why.startswith("L['x'] is <function") and "got <function" in why
    assert isinstance(why, GuardFailure) and why.guard == Identity(X, f)
    assert verdict(check, None)[0] is False


def test_identity_of_unweakrefable_object(build):
    check = build([Identity(X, len)])  # builtins cannot be weakly referenced: held strongly
    assert verdict(check, len)[0]
    assert not verdict(check, abs)[0]


def test_identity_and_type_do_not_keep_objects_alive(build):
    import gc
    import weakref

    class Temp:
        pass

    obj = Temp()
    guards = [Identity(X, obj), TypeMatch(Local("y"), Temp)]
    check = build(guards)
    assert check({"x": obj, "y": obj})
    probe = weakref.ref(obj)
    del obj
    gc.collect()
    assert probe() is None  # the guard did not keep it alive
    assert not check.alive
    # nothing can pass an identity guard whose object died, not even None
    assert not check({"x": None, "y": None})
    assert check.why_failed({"x": None, "y": None}) is not None
    assert not guards[0].alive


# -- constants ----------------------------------------------------------------------------------------


class Color(enum.Enum):
    RED = 1
    GREEN = 2


P = namedtuple("P", "a b")


@pytest.mark.parametrize(
    ("expected", "good", "bad", "why"),
    [
        (3, 3, 4, "L['x'] == 3, got 4"),
        (3, 3, 3.0, "L['x'] == 3, got 3.0 (float)"),
        (1, 1, True, "L['x'] == 1, got True (bool)"),
        (True, True, 1, "L['x'] == True, got 1 (int)"),
        (2**70, 2**70, 2**70 + 1, f"L['x'] == {2**70}, got {2**70 + 1}"),
        (2.5, 2.5, 2.25, "L['x'] == 2.5, got 2.25"),
        (0.0, 0.0, -0.0, "L['x'] == 0.0, got -0.0"),
        (math.nan, float("nan"), 1.0, "L['x'] == nan, got 1.0"),
        (1 + 2j, 1 + 2j, 1 + 3j, "L['x'] == (1+2j), got (1+3j)"),
        ("abc", "abc", "abd", "L['x'] == 'abc', got 'abd'"),
        (b"ab", b"ab", "ab", "L['x'] == b'ab', got 'ab' (str)"),
        ((1, (2, "a")), (1, (2, "a")), (1, (2.0, "a")), "L['x'] == (1, (2, 'a')), got (1, (2.0, 'a'))"),
        ((1, 2), (1, 2), [1, 2], "L['x'] == (1, 2), got [1, 2] (list)"),
        (P(1, 2), P(1, 2), (1, 2), "L['x'] == P(a=1, b=2), got (1, 2) (tuple)"),
        (torch.Size([2, 3]), torch.Size([2, 3]), (2, 3), "L['x'] == torch.Size([2, 3]), got (2, 3) (tuple)"),
        (torch.float32, torch.float32, torch.float64, "L['x'] == torch.float32, got torch.float64"),
        (torch.device("cpu"), torch.device("cpu"), torch.device("meta"), "L['x'] == device(type='cpu'), got device(type='meta')"),
        (Color.RED, Color.RED, Color.GREEN, "L['x'] == <Color.RED: 1>, got <Color.GREEN: 2>"),
        (frozenset({1, 2}), frozenset({2, 1}), frozenset({1}), "L['x'] == frozenset({1, 2}), got frozenset({1})"),
        (range(3), range(3), range(4), "L['x'] == range(0, 3), got range(0, 4)"),
        ({1, 2}, {2, 1}, {1, 2, 3}, "L['x'] == {1, 2}, got {1, 2, 3}"),
        ({1, 2}, {1, 2}, frozenset({1, 2}), "L['x'] == {1, 2}, got frozenset({1, 2}) (frozenset)"),
        # members compare type-strictly, as scalars do (set == set would say {1} == {True} == {1.0})
        ({1}, {1}, {True}, "L['x'] == {1}, got {True}"),
        ({True, 2}, {2, True}, {1, 2}, "L['x'] == {True, 2}, got {1, 2}"),
        (frozenset({0.0}), frozenset({0.0}), frozenset({-0.0}), "L['x'] == frozenset({0.0}), got frozenset({-0.0})"),
        (frozenset({math.nan}), frozenset({math.nan}), frozenset({1.0}), "L['x'] == frozenset({nan}), got frozenset({1.0})"),
        ((1, frozenset({2})), (1, frozenset({2})), (1, frozenset({2.0})), "L['x'] == (1, frozenset({2})), got (1, frozenset({2.0}))"),
        (Ellipsis, Ellipsis, None, "L['x'] == Ellipsis, got None (NoneType)"),
    ],
)
def test_constant_match(build, expected, good, bad, why):
    check = build([ConstantMatch(X, expected)])
    assert verdict(check, good) == (True, None)
    assert verdict(check, bad) == (False, why)


def test_constant_subclass_of_int_fails_without_calling_it(build):
    class Evil(int):
        def __eq__(self, other):
            raise AssertionError("must not be called")

        __hash__ = int.__hash__

    check = build([ConstantMatch(X, 3)])
    ok, why = verdict(check, Evil(3))
    assert not ok and why.startswith("L['x'] == 3, got 3 (tests.test_guards.") and why.endswith(".Evil)")


def test_constant_match_of_a_set_checks_the_contents_it_had(build):
    members = {1, 2}
    guard = ConstantMatch(X, members)
    members.add(3)  # the guard holds a snapshot: the set changing is what it detects
    check = build([guard])
    assert verdict(check, members)[0] is False
    members.discard(3)
    assert verdict(check, members) == (True, None)


@pytest.mark.parametrize("value", [[1], {1: 2}, {(1, 2), object()}, object(), (1, [2]),
                                   slice(1, 2), torch.tensor(1)])
def test_constant_match_rejects_non_constants(value):
    with pytest.raises(TypeError, match="ConstantMatch needs a constant"):
        ConstantMatch(X, value)


# -- lengths and dict keys ----------------------------------------------------------------------------


def test_length(build):
    check = build([Length(X, 2)])
    assert verdict(check, [1, 2]) == (True, None)
    assert verdict(check, (1, 2)) == (True, None)
    assert verdict(check, {1: 1, 2: 2}) == (True, None)
    assert verdict(check, "ab") == (True, None)
    assert verdict(check, [1, 2, 3]) == (False, "len(L['x']) == 2, got 3")
    assert verdict(check, ()) == (False, "len(L['x']) == 2, got 0")
    ok, why = verdict(check, 5)  # no len(): fails, does not raise
    assert not ok and why.startswith("len(L['x']) == 2, got 5 (checking raised TypeError")


def test_dict_keys_in_order(build):
    check = build([DictKeys(X, ["a", "b"])])
    assert verdict(check, {"a": 1, "b": 2}) == (True, None)
    assert verdict(check, {"b": 2, "a": 1}) == (False, "list(L['x'].keys()) == ['a', 'b'], got ['b', 'a']")
    assert verdict(check, {"a": 1}) == (False, "list(L['x'].keys()) == ['a', 'b'], got ['a']")
    assert verdict(check, {"a": 1, "b": 2, "c": 3})[0] is False
    assert verdict(check, OrderedDict(a=1, b=2)) == (True, None)
    od = OrderedDict(a=1, b=2)
    od.move_to_end("a")  # the OrderedDict's order, not the underlying dict's
    assert verdict(check, od) == (False, "list(L['x'].keys()) == ['a', 'b'], got ['b', 'a']")
    assert verdict(check, ["a", "b"])[0] is False  # not a mapping


def test_dict_keys_are_type_strict(build):
    check = build([DictKeys(X, [1, 2])])
    assert verdict(check, {1: "x", 2: "y"})[0]
    assert verdict(check, {1.0: "x", 2: "y"}) == (False, "list(L['x'].keys()) == [1, 2], got [1.0, 2]")


def test_dict_keys_may_be_objects_compared_by_identity(build):
    import typing

    class Marker:
        pass

    check = build([DictKeys(X, [int, typing.Union, Marker])])
    assert verdict(check, {int: 1, typing.Union: 2, Marker: 3}) == (True, None)
    assert verdict(check, {int: 1, typing.Optional: 2, Marker: 3})[0] is False
    assert verdict(check, {int: 1, typing.Union: 2, type("Marker", (), {}): 3})[0] is False
    with pytest.raises(TypeError, match="constants or objects compared by identity"):
        DictKeys(X, [Decimal(1)])  # hashable, compared by value, but not a constant


def test_dict_keys_implies_length():
    assert Length(X, 2) in DictKeys(X, ["a", "b"]).implies()


# -- dict membership ----------------------------------------------------------------------------------


class WithForward:
    def forward(self):
        return 1


class Slotted:
    __slots__ = ("w",)


class ReadOnlyMapping(Mapping):
    """A user mapping: ``in`` goes through Mapping.__contains__ (its __getitem__)."""

    def __init__(self, **items):
        self._items = items

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


def test_dict_contains_instance_attribute_absent(build):
    src = Attr(Local("m"), "__dict__")
    guard = DictContains(src, "forward", present=False)
    assert guard.describe() == "'forward' not in L['m'].__dict__"
    assert guard.sources == (src,) and guard.key == "forward" and guard.present is False
    check = build([guard])
    m = WithForward()
    m.w = 1
    assert check({"m": m})  # forward is found on the class, not in the instance dict
    m.forward = print  # an instance attribute now shadows the method
    assert check({"m": m}) is False
    assert check.why_failed({"m": m}) == "'forward' not in L['m'].__dict__, got the key (value: <function print>)"
    del m.forward
    assert check({"m": m})
    assert check({"m": WithForward()})  # an instance whose dict was never made
    assert check.why_failed({"m": 3}) == (  # no __dict__: the source cannot be read, the guard fails
        "'forward' not in L['m'].__dict__, got nothing: L['m'].__dict__ raised AttributeError: "
        "'int' object has no attribute '__dict__'"
    )
    assert check({"m": 3}) is False
    assert check({"m": Slotted()}) is False
    assert check({}) is False


def test_dict_contains_on_a_module(build):
    lin = torch.nn.Linear(2, 2)
    check = build([DictContains(Attr(Local("m"), "__dict__"), "forward", present=False)])
    assert check({"m": lin})
    lin.forward = lambda x: x  # nn.Module keeps plain attributes in the instance dict
    assert check({"m": lin}) is False
    del lin.forward
    assert check({"m": lin})


def test_dict_contains_present(build):
    guard = DictContains(X, "w")
    assert guard.describe() == "'w' in L['x']" and guard.present is True
    check = build([guard])
    assert verdict(check, {"w": 1}) == (True, None)
    assert verdict(check, {"a": 0, "w": None}) == (True, None)  # present with a None value
    assert verdict(check, {"a": 1, "b": 2}) == (False, "'w' in L['x'], got no such key (keys: ['a', 'b'])")
    assert verdict(check, {}) == (False, "'w' in L['x'], got no such key (keys: [])")


@pytest.mark.parametrize(
    "value",
    [{"a": 1}, OrderedDict(a=1), defaultdict(int, a=1), types.MappingProxyType({"a": 1}), ReadOnlyMapping(a=1)],
)
def test_dict_contains_looks_into_any_mapping(build, value):
    present, absent = build([DictContains(X, "a")]), build([DictContains(X, "a", present=False)])
    assert verdict(present, value) == (True, None)
    ok, why = verdict(absent, value)
    assert not ok and why.startswith("'a' not in L['x'], got the key")
    assert verdict(build([DictContains(X, "b")]), value)[0] is False
    assert verdict(build([DictContains(X, "b", present=False)]), value) == (True, None)


def test_dict_contains_texts_of_other_mappings(build):
    check = build([DictContains(X, "a", present=False)])
    assert verdict(check, ReadOnlyMapping(a=1)) == (False, "'a' not in L['x'], got the key")
    assert verdict(check, {"a": [1, 2]}) == (False, "'a' not in L['x'], got the key (value: [1, 2])")
    check = build([DictContains(X, "b")])
    assert verdict(check, ReadOnlyMapping(a=1)) == (False, "'b' in L['x'], got no such key")
    assert verdict(check, OrderedDict(a=1)) == (False, "'b' in L['x'], got no such key (keys: ['a'])")


def test_dict_contains_never_inserts_into_a_defaultdict(build):
    d = defaultdict(list)
    assert verdict(build([DictContains(X, "k")]), d)[0] is False
    assert verdict(build([DictContains(X, "k", present=False)]), d) == (True, None)
    assert dict(d) == {}


def test_dict_contains_uses_a_dict_subclass_contains(build):
    class Prefixed(dict):
        def __contains__(self, key):
            return dict.__contains__(self, "_" + key)

    assert verdict(build([DictContains(X, "a")]), Prefixed(_a=1)) == (True, None)
    assert verdict(build([DictContains(X, "_a", present=False)]), Prefixed(_a=1)) == (True, None)  # '__a'


@pytest.mark.parametrize(
    ("value", "seen"),
    [
        (None, "None (NoneType)"),
        (["a"], "['a'] (list)"),
        ("abc", "'abc' (str)"),  # 'a' in 'abc' holds, but a str is no mapping
        ({"a"}, "{'a'} (set)"),
        (("a",), "('a',) (tuple)"),
        (3, "3 (int)"),
    ],
)
def test_dict_contains_fails_on_non_mappings(build, value, seen):
    for present in (True, False):
        guard = DictContains(X, "a", present=present)
        assert verdict(build([guard]), value) == (False, f"{guard.describe()}, got {seen}, not a mapping")


@pytest.mark.parametrize(
    ("key", "value", "found"),
    [
        (1, {1: "x"}, True),
        (1, {1.0: "x"}, True),  # Python's `in`: hash and ==, as a dict lookup sees keys
        (1, {True: "x"}, True),
        (1, {"1": "x"}, False),
        (None, {None: 0}, True),
        (None, {}, False),
        (("a", 1), {("a", 1): 0}, True),
        (("a", 1), {("a", 2): 0}, False),
        (b"k", {b"k": 0}, True),
        (b"k", {"k": 0}, False),
        (Color.RED, {Color.RED: 0}, True),
        (Color.RED, {1: 0}, False),
        (frozenset({1}), {frozenset({1}): 0}, True),
        (torch.float32, {torch.float32: 0}, True),
    ],
)
def test_dict_contains_keys(build, key, value, found):
    assert verdict(build([DictContains(X, key)]), value)[0] is found
    assert verdict(build([DictContains(X, key, present=False)]), value)[0] is not found


def test_dict_contains_values_are_comparable_and_hashable():
    a = DictContains(X, "a")
    assert a == DictContains(X, "a", True) and hash(a) == hash(DictContains(X, "a", present=True))
    assert a != DictContains(X, "a", present=False)
    assert a != DictContains(X, "b") and a != DictContains(Local("y"), "a")
    assert DictContains(X, 1) != DictContains(X, 1.0)  # type-strict, like every constant
    assert len({a, DictContains(X, "a"), DictContains(X, "a", False)}) == 2
    assert a.implies() == (NotNone(X),) and DictContains(X, "a", False).implies() == (NotNone(X),)
    assert a.kind == "dict_contains" and a.cost == 3
    with pytest.raises(AttributeError):
        a.present = False


@pytest.mark.parametrize(
    "make",
    [
        lambda: DictContains("L['x']", "a"),
        lambda: DictContains(None, "a"),
        lambda: DictContains(X, ["a"]),  # unhashable
        lambda: DictContains(X, {"a": 1}),
        lambda: DictContains(X, object()),  # not a constant
        lambda: DictContains(X, ("a", [1])),
        lambda: DictContains(X, "a", present=1),
        lambda: DictContains(X, "a", present=None),
        lambda: DictContains(X, "a", "yes"),
        lambda: DictContains(X),
    ],
)
def test_dict_contains_bad_input(make):
    with pytest.raises(TypeError):
        make()


# -- aliasing and relations ---------------------------------------------------------------------------


def test_no_aliasing(build):
    a, b = torch.randn(2), torch.randn(2)
    check = build([NoAliasing([Local("a"), Local("b"), Local("c")])])
    assert check({"a": a, "b": b, "c": 3})
    assert not check({"a": a, "b": a, "c": 3})
    assert check.why_failed({"a": a, "b": b, "c": a}) == "L['a'] is not L['c'], got the same object"


def test_storage_overlap(build):
    a, b, c = Local("a"), Local("b"), Local("c")
    guard = StorageOverlap([a, b, c], [(0, 1)])
    assert guard.describe() == "storage overlap of L['a'], L['b'], L['c']: memory shared by L['a'] and L['b']"
    check = build([guard])
    base = torch.arange(6.0)
    assert check({"a": base[1:], "b": base[:-1], "c": torch.ones(2)})  # views of one buffer
    assert check({"a": base[:3], "b": base.view(2, 3), "c": torch.ones(2)})
    assert check.why_failed({"a": base[1:], "b": base[:-1].clone(), "c": torch.ones(2)}) == (
        f"{guard.describe()}, got none share memory")
    assert not check({"a": base[1:], "b": base[:-1], "c": base})  # a third overlap is a difference too
    assert not check({"a": base, "b": base, "c": 3})  # not a tensor: fails, does not raise
    empty = build([StorageOverlap([a, b])])
    assert empty({"a": torch.ones(2), "b": torch.ones(2)})
    assert empty({"a": torch.empty(0), "b": torch.empty(0)})  # no memory, nothing shared


def test_storage_overlap_bad_input():
    with pytest.raises(ValueError, match="at least two distinct sources"):
        StorageOverlap([X])
    with pytest.raises(ValueError, match="at least two distinct sources"):
        StorageOverlap([X, Local("x")])
    with pytest.raises(ValueError, match="two source indices"):
        StorageOverlap([X, Local("y")], [(1, 0)])
    with pytest.raises(TypeError):
        StorageOverlap([X, "L['y']"])


def test_same_object(build):
    t = torch.randn(2)
    a, b = Local("a"), Attr(Local("m"), "w")
    guard = SameObject(a, b)
    assert guard.describe() == "L['a'] is L['m'].w"
    assert guard.sources == (a, b)
    assert guard == SameObject(b, a) and hash(guard) == hash(SameObject(b, a))  # unordered
    check = build([guard])

    class M:
        pass

    m = M()
    m.w = t
    assert check({"a": t, "m": m})
    other = t.clone()
    m.w = other
    assert not check({"a": t, "m": m})
    assert check.why_failed({"a": t, "m": m}) == (
        f"L['a'] is L['m'].w, got different objects: torch.Tensor (id {id(t):#x}) and "
        f"torch.Tensor (id {id(other):#x})"
    )
    m.w = 3  # any object, not only tensors; equal values are not the same object
    assert not check({"a": 3.0, "m": m})
    assert check({"a": 3, "m": m})
    del m.w
    assert not check({"a": t, "m": m})  # a source that cannot be read fails


def test_same_object_bad_input():
    with pytest.raises(ValueError, match="two distinct sources"):
        SameObject(X, Local("x"))
    with pytest.raises(TypeError):
        SameObject(X, "L['y']")
    with pytest.raises(TypeError):
        SameObject(X)


def test_relation(build):
    s0, s1 = TensorSize(Local("x"), 0), TensorSize(Local("y"), 0)
    rel = Relation("s0 > 1 and s0 == s1", {"s0": s0, "s1": s1})
    assert rel.describe() == "s0 > 1 and s0 == s1 (where s0 = L['x'].size()[0], s1 = L['y'].size()[0])"
    check = build([rel])
    assert check({"x": torch.randn(4), "y": torch.randn(4, 2)})
    assert check.why_failed({"x": torch.randn(1), "y": torch.randn(1)}) == "s0 > 1 and s0 == s1, got s0=1, s1=1"
    assert not check({"x": torch.randn(3), "y": torch.randn(4)})
    assert not check({"x": [1, 2], "y": torch.randn(2)})  # not a tensor: the size cannot be read


def test_relation_over_ints_and_builtins(build):
    rel = Relation("min(a, b) * 2 + abs(c) <= 10", {"a": Local("a"), "b": Local("b"), "c": Local("c")})
    check = build([rel])
    assert check({"a": 2, "b": 3, "c": -6})
    assert not check({"a": 3, "b": 3, "c": -6})
    assert not check({"a": 2.0, "b": 3, "c": -6})  # symbols must be ints


@pytest.mark.parametrize(
    "expr",
    ["s0 >", "s0.real > 1", "s0 > x", "__import__('os')", "s0 in (1, 2)", "s0 > 1.5", "[s0]", "max(s0, key=1)"],
)
def test_relation_rejects_bad_expressions(expr):
    with pytest.raises(ValueError):
        Relation(expr, {"s0": Local("x")})


def test_relation_bad_symbols():
    with pytest.raises(TypeError):
        Relation("s0 > 1", {"s0": "L['x']"})
    with pytest.raises(ValueError):
        Relation("1 > 0", {"s0": Local("x")})  # uses no symbol
    with pytest.raises(TypeError):
        Relation(3, {"s0": Local("x")})


# -- chained sources in guards ------------------------------------------------------------------------


def test_guards_on_chained_sources(build):
    def f(a, b=2, *, c=3):
        return a

    check = build(
        [
            ConstantMatch(Item(Attr(Local("f"), "__defaults__"), 0), 2),
            ConstantMatch(Item(Attr(Local("f"), "__kwdefaults__"), "c"), 3),
        ]
    )
    assert check({"f": f})
    f.__defaults__ = (5,)
    assert check.why_failed({"f": f}) == "L['f'].__defaults__[0] == 2, got 5"
    assert not check({"f": f})


def test_guard_values_are_comparable_and_hashable():
    assert TypeMatch(X, int) == TypeMatch(X, int)
    assert len({TypeMatch(X, int), TypeMatch(X, int), TypeMatch(X, float)}) == 2
    assert ConstantMatch(X, 1) != ConstantMatch(X, True)
    assert ConstantMatch(X, 0.0) != ConstantMatch(X, -0.0)
    assert ConstantMatch(X, math.nan) == ConstantMatch(X, float("nan"))
    assert Length(X, 1) != Length(Local("y"), 1)
    with pytest.raises(AttributeError):
        Length(X, 1).n = 2
    assert Guard.__subclasses__()  # every kind is a Guard

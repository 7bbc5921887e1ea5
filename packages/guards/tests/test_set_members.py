"""``SetMembers``: a set or frozenset with exactly these members (constants type-strict, other objects by
identity), on both back ends; builtin functions of modules compared by identity (here and as ``DictKeys``
keys); its portable records."""

from __future__ import annotations

import builtins
import ctypes
import gc
import math
import operator

import pytest
import torch

from loom_guards import (
    DictKeys,
    Length,
    Local,
    SetMembers,
    TypeMatch,
    from_records,
    guarded_by_identity,
    simplify,
    to_records,
)
from loom_guards.kinds import module_builtin

from .portable_helpers import round_trip, same_verdicts

X = Local("x")


class Plain:
    """An instance that keeps object's hash and equality: compared by identity."""


MARK = Plain()


def twin_of(fn):
    """A second builtin function object for the C function of ``fn`` with the same ``__self__``: equal to
    ``fn`` (and of the same hash) without being it. CPython makes one per attribute read for a method;
    for a module's function only a C extension could, so ctypes does it here."""
    ml = ctypes.c_void_p.from_address(id(fn) + 2 * ctypes.sizeof(ctypes.c_void_p)).value  # PyCFunctionObject.m_ml
    new = ctypes.pythonapi.PyCFunction_NewEx
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]
    twin = new(ml, fn.__self__, fn.__module__)
    assert twin == fn and twin is not fn and hash(twin) == hash(fn)
    return twin


def verdict(check, value):
    frame = {"x": value}
    ok = check(frame)
    why = check.why_failed(frame)
    assert ok == (why is None), (ok, why)
    return ok, why


def test_passes_on_the_same_members_in_the_same_order_in_a_set_or_frozenset(build):
    members = {torch.sin, "hello", int, MARK, 1}
    check = build([SetMembers(X, members)])
    assert verdict(check, members) == (True, None)
    # small ints hash to themselves: 1, 2, 3 take slots 1, 2, 3 of any table, whatever the set's history
    check = build([SetMembers(X, (1, 2, 3))])
    assert verdict(check, {3, 2, 1}) == (True, None)
    assert verdict(check, frozenset({2, 3, 1})) == (True, None)
    grown = {1, 2, 3, *range(100, 200)}
    for i in range(100, 200):
        grown.discard(i)  # a set with another history (a larger table): the same members, the same order
    assert verdict(check, grown) == (True, None)


def test_fails_on_the_same_members_in_another_order(build):
    # 1 and 9 both start at slot 1 of an 8-slot table: the one added first takes it and comes first
    check = build([SetMembers(X, (1, 9, MARK))])
    in_order, reordered = {1, 9, MARK}, {9, 1, MARK}
    assert [m for m in in_order if m != MARK] == [1, 9] and [m for m in reordered if m != MARK] == [9, 1]
    ok, why = verdict(check, reordered)
    assert not ok and why.endswith("(the same members in another order)")
    assert verdict(build([SetMembers(X, in_order)]), in_order) == (True, None)
    # only 2 and 17 are left of a set that grew to 32 slots: 2 comes first; a fresh set puts 17 in slot 1
    grown = set(range(20))
    for i in range(20):
        if i not in (2, 17):
            grown.discard(i)
    assert list(grown) == [2, 17] and list({2, 17}) == [17, 2]
    check = build([SetMembers(X, grown)])
    assert verdict(check, grown) == (True, None)
    assert verdict(check, {2, 17})[0] is False


def test_fails_on_another_member_count_or_type(build):
    check = build([SetMembers(X, {torch.sin, "a"})])
    text = "L['x'] has exactly the members {'a', <function _VariableFunctionsClass.sin>}"
    assert verdict(check, {"a"}) == (False, f"{text}, got {{'a'}} (1 member)")
    assert verdict(check, {"a", torch.sin, 3})[0] is False
    assert verdict(check, ["a", torch.sin]) == (False, f"{text}, got ['a', <built-in method sin of type object at "
                                                       f"{id(torch._C._VariableFunctionsClass):#x}>] (list), not a "
                                                       "set or frozenset")
    assert verdict(check, None)[0] is False
    assert verdict(check, {"a": 1, torch.sin: 2})[0] is False  # a dict with those keys is no set


def test_objects_are_compared_by_identity(build):
    check = build([SetMembers(X, {MARK, int, len})])
    assert verdict(check, {MARK, int, len})[0] is True
    other = Plain()
    ok, why = verdict(check, {other, int, len})
    assert not ok and why.endswith(f"(<{__name__}.Plain object at {id(other):#x}> (id {id(other):#x}) is not a member)")
    assert verdict(check, {MARK, float, len})[0] is False
    twin = twin_of(len)  # equal to len (a set would take either for the other), but another object
    ok, why = verdict(check, {MARK, int, twin})
    assert not ok and why.endswith(f"(<function len> (id {id(twin):#x}) is not a member)")


def test_constants_are_type_strict(build):
    check = build([SetMembers(X, {1, 2.5, "s", (1, "t"), torch.float32, len})])
    assert verdict(check, {1, 2.5, "s", (1, "t"), torch.float32, len})[0] is True
    ok, why = verdict(check, {True, 2.5, "s", (1, "t"), torch.float32, len})
    assert not ok and why.endswith("(True (bool) is not a member)")
    assert verdict(check, {1.0, 2.5, "s", (1, "t"), torch.float32, len})[0] is False
    assert verdict(check, {1, 2.5, "s", (True, "t"), torch.float32, len})[0] is False
    assert verdict(check, {1, 2.5, "s", (1, "t"), torch.float64, len})[0] is False


def test_hostile_members_fail_without_raising(build):
    class Liar:
        def __eq__(self, other):
            return True

        def __hash__(self):
            return hash("a")

    check = build([SetMembers(X, {"a", MARK})])
    assert verdict(check, {Liar(), MARK})[0] is False  # equal to "a" by its own account: not a member


def test_members_it_refuses():
    with pytest.raises(TypeError, match="constants or objects compared by identity"):
        SetMembers(X, {torch.tensor(1.0)})
    with pytest.raises(TypeError, match="NaN"):
        SetMembers(X, {math.nan, len})
    with pytest.raises(TypeError, match="NaN"):
        SetMembers(X, {(1, math.nan)})
    with pytest.raises(TypeError, match="iterable"):
        SetMembers(X, "ab")
    with pytest.raises(ValueError, match="repeat"):
        SetMembers(X, [len, len])
    with pytest.raises(TypeError, match="constants or objects compared by identity"):
        SetMembers(X, {[].append})  # a builtin bound to an instance: a new object per attribute read


def test_module_builtins_are_guarded_by_identity_bound_methods_are_not():
    assert module_builtin(len) and module_builtin(torch.sin) and module_builtin(operator.add)
    assert guarded_by_identity(len) and guarded_by_identity(int) and guarded_by_identity(MARK)
    assert not module_builtin([].append)  # bound to an instance: a new object per attribute read
    assert not module_builtin(dict.fromkeys)  # bound to a class: likewise
    assert not module_builtin(lambda: 0) and not guarded_by_identity(1.5) and not guarded_by_identity(torch.ones(1))


def test_a_member_that_died_fails_for_ever(build):
    class Gone:
        pass

    obj = Gone()
    guard = SetMembers(X, {obj, 1})
    check = build([guard])
    assert verdict(check, {obj, 1})[0] is True
    assert guard.alive
    del obj
    gc.collect()
    assert not guard.alive
    assert verdict(check, {Gone(), 1})[0] is False
    assert to_records([guard])[0] is None


def test_simplify_keeps_it_over_its_length_and_rejects_two_member_sets():
    guard = SetMembers(X, {len, 1})
    assert simplify([Length(X, 2), guard]) == [guard]
    assert Length(X, 2) in guard.implies()
    assert SetMembers(X, {len, 1}) == SetMembers(X, [1, len])
    assert SetMembers(X, {len, 1}) != SetMembers(X, {len, True})
    with pytest.raises(ValueError, match="contradictory"):
        simplify([guard, SetMembers(X, {len, 2})])


def test_with_a_type_guard(build):
    check = build([TypeMatch(X, frozenset), SetMembers(X, {len, "a"})])
    assert verdict(check, frozenset({len, "a"}))[0] is True
    assert verdict(check, {len, "a"}) == (False, "type(L['x']) is frozenset, got set")


# -- builtin functions as dict keys ---------------------------------------------------------------------


def test_dict_keys_compare_builtin_functions_by_identity(build):
    check = build([DictKeys(X, [torch.sin, len, "a"])])
    assert verdict(check, {torch.sin: 1, len: 2, "a": 3})[0] is True
    assert verdict(check, {torch.cos: 1, len: 2, "a": 3})[0] is False
    assert verdict(check, {torch.sin: 1, twin_of(len): 2, "a": 3})[0] is False
    with pytest.raises(TypeError, match="constants or objects compared by identity"):
        DictKeys(X, [[].append])


# -- portable records -----------------------------------------------------------------------------------


def test_round_trip(build):
    guards = [SetMembers(X, {torch.sin, len, int, "hello", 1, (2, "t"), torch.float16}),
              SetMembers(Local("y"), frozenset({operator.add, builtins.abs}))]
    rebuilt = round_trip(guards)
    assert rebuilt == guards
    good = {"x": {torch.sin, len, int, "hello", 1, (2, "t"), torch.float16}, "y": frozenset({operator.add, abs})}
    frames = [good, {**good, "x": {torch.sin, len, int, "hello", True, (2, "t"), torch.float16}},
              {**good, "y": {operator.add, twin_of(abs)}}, {**good, "x": {torch.cos, len, int, "hello", 1, (2, "t")}}]
    assert same_verdicts(build, guards, rebuilt, frames) == [True, False, False, False]


def test_an_instance_member_is_refused():
    records, why = to_records([SetMembers(X, {MARK, 1})])
    assert records is None and "Plain" in why and why.startswith("guard 0 (L['x'] has exactly the members")


def test_a_malformed_record_is_refused():
    records, _ = to_records([SetMembers(X, {len})])
    records[0]["members"] = "len"
    guards, why = from_records(records)
    assert guards is None and "malformed set_members record" in why



def test_insertion_order_gives_a_fresh_set_iterating_as_the_given_one():
    from loom_guards import insertion_order

    reordered = {9, 1}  # 9 added first: it holds slot 1, and 1 comes after it
    order = insertion_order(list(reordered))
    assert order == [9, 1] and list(set(order)) == [9, 1]
    grown = set(range(20))
    for i in range(20):
        if i not in (2, 17):
            grown.discard(i)
    # 2 before 17 only in a table of 32 slots: no order of additions to a fresh set gives it
    assert list(grown) == [2, 17] and insertion_order(list(grown)) is None

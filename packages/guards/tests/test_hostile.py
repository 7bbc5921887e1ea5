"""Hostile inputs never crash a check and never make it wrongly true.

A read or comparison that raises an ``Exception`` makes the guard fail (the check returns False and
``why_failed`` says what raised); a ``BaseException`` that is not an ``Exception`` (KeyboardInterrupt,
SystemExit) propagates; a broken *argument* (not a frame view nor a mapping, or a frame view whose
``f_locals`` raises) propagates too, since that is a bug of the caller, not a property of the frame.
"""

from __future__ import annotations

import types

import pytest
import torch

from loom_guards import (
    Attr,
    ConstantMatch,
    DictContains,
    DictKeys,
    Global,
    Identity,
    Item,
    Length,
    Local,
    SameObject,
    TensorMatch,
    TypeMatch,
)

X = Local("x")


class RaisingEq:
    def __init__(self, h: int) -> None:
        self.h = h

    def __hash__(self) -> int:
        return self.h

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__ raised")


class RaisingLen:
    def __len__(self) -> int:
        raise RuntimeError("__len__ raised")


class RaisingAttr:
    def __getattr__(self, name: str):
        raise RuntimeError(f"__getattr__({name}) raised")


class RaisingProperty:
    @property
    def value(self):
        raise ValueError("property raised")


class Interrupting:
    @property
    def value(self):
        raise KeyboardInterrupt


class RaisingItem:
    def __getitem__(self, key):
        raise RuntimeError("__getitem__ raised")


class LyingClass:
    @property
    def __class__(self):
        return int


class RaisingRepr:
    def __repr__(self) -> str:
        raise RuntimeError("__repr__ raised")


def fails_quietly(check, frame):
    assert check(frame) is False
    why = check.why_failed(frame)
    assert why is not None
    return why


def test_set_member_whose_eq_raises_is_never_compared(build):
    check = build([ConstantMatch(X, frozenset({1}))])
    why = fails_quietly(check, {"x": frozenset({RaisingEq(hash(1))})})  # compared by type first
    assert why.startswith("L['x'] == frozenset({1}), got frozenset({<") and "raised" not in why


def test_eq_that_raises_inside_a_dict_lookup(build):
    d = {RaisingEq(hash("k")): 1}
    check = build([ConstantMatch(Item(X, "k"), 1)])
    why = fails_quietly(check, {"x": d})
    assert why.startswith("L['x']['k'] == 1, got nothing: L['x']['k'] raised RuntimeError")


def test_dict_keys_with_hostile_keys(build):
    check = build([DictKeys(X, ["a"])])
    fails_quietly(check, {"x": {RaisingEq(1): 1}})  # compared by type first: __eq__ never runs


def test_len_that_raises(build):
    why = fails_quietly(build([Length(X, 1)]), {"x": RaisingLen()})
    assert "checking raised RuntimeError: __len__ raised" in why


def test_getattr_that_raises(build):
    why = fails_quietly(build([ConstantMatch(Attr(X, "value"), 1)]), {"x": RaisingAttr()})
    assert why == (
        "L['x'].value == 1, got nothing: L['x'].value raised RuntimeError: __getattr__(value) raised"
    )


def test_property_that_raises(build):
    fails_quietly(build([ConstantMatch(Attr(X, "value"), 1)]), {"x": RaisingProperty()})


def test_getitem_that_raises(build):
    fails_quietly(build([ConstantMatch(Item(X, 0), 1)]), {"x": RaisingItem()})


def test_missing_items_and_attributes(build):
    fails_quietly(build([ConstantMatch(Item(X, 5), 1)]), {"x": (1, 2)})
    fails_quietly(build([ConstantMatch(Item(X, -3), 1)]), {"x": [1, 2]})
    fails_quietly(build([ConstantMatch(Item(X, "k"), 1)]), {"x": {}})
    fails_quietly(build([ConstantMatch(Attr(X, "nope"), 1)]), {"x": object()})
    fails_quietly(build([ConstantMatch(X, 1)]), {})
    assert build([ConstantMatch(Item(X, -1), 2)])({"x": [1, 2]})


def test_base_exceptions_propagate(build):
    check = build([ConstantMatch(Attr(X, "value"), 1)])
    with pytest.raises(KeyboardInterrupt):
        check({"x": Interrupting()})


def test_type_is_the_real_type(build):
    check = build([TypeMatch(X, int)])
    assert LyingClass().__class__ is int
    why = fails_quietly(check, {"x": LyingClass()})
    assert why.endswith("LyingClass")


def test_unprintable_values_are_explained(build):
    why = fails_quietly(build([ConstantMatch(X, 1)]), {"x": RaisingRepr()})
    assert why.startswith("L['x'] == 1, got <RaisingRepr object (repr raised RuntimeError)>")


def test_reads_that_mutate_the_frame(build):
    g = {"a": 1, "b": 2}

    class Mutator:
        @property
        def value(self):
            g.clear()  # drop everything the check may still need
            return 1

    check = build([ConstantMatch(Attr(Global("a"), "real"), 1), ConstantMatch(Attr(X, "value"), 1),
                   ConstantMatch(Global("b"), 2)], f_globals=g)
    assert check({"x": Mutator()}) is False
    g.update(a=1, b=2)
    assert check({"x": 1 + 0j}) is False


def test_locals_mapping_that_raises(build):
    class BadMapping(dict):
        def __getitem__(self, key):
            raise RuntimeError("no")

    check = build([ConstantMatch(X, 1)])
    assert check(BadMapping(x=1)) is False


def test_broken_frame_view_propagates(build):
    class BrokenView:
        @property
        def f_locals(self):
            raise RuntimeError("broken view")

    check = build([ConstantMatch(X, 1)])
    with pytest.raises(RuntimeError, match="broken view"):
        check(BrokenView())


def test_identity_after_object_replaced_by_equal_one(build):
    a = [1, 2]
    check = build([Identity(X, a)])
    assert check({"x": a})
    assert not check({"x": [1, 2]})  # equal is not identical


def test_tensor_guard_on_non_tensors(build):
    check = build([TensorMatch(X, torch.randn(2))])
    for value in (None, 1, "t", [torch.randn(2)], RaisingAttr(), torch.randn(2).numpy()):
        fails_quietly(check, {"x": value})


def test_a_check_never_inserts_into_a_defaultdict(build):
    from collections import defaultdict

    d = defaultdict(int, a=1)
    assert build([ConstantMatch(Item(X, "a"), 1)])({"x": d})
    check = build([ConstantMatch(Item(X, "b"), 0)])
    assert check({"x": d}) is False
    assert check.why_failed({"x": d}).startswith("L['x']['b'] == 0, got nothing: L['x']['b'] raised KeyError")
    assert dict(d) == {"a": 1}


def test_dict_subclass_with_its_own_getitem_is_used(build):
    class Upper(dict):
        def __getitem__(self, key):
            return dict.__getitem__(self, key.upper())

    check = build([ConstantMatch(Item(X, "a"), 1)])
    assert check({"x": Upper(A=1)})


class RaisingContains(dict):
    def __contains__(self, key):
        raise RuntimeError("__contains__ raised")


class InterruptingContains(dict):
    def __contains__(self, key):
        raise KeyboardInterrupt


class FalsyUnreadable:
    def __bool__(self):
        raise RuntimeError("__bool__ raised")


class ContainsUnreadable(dict):
    def __contains__(self, key):
        return FalsyUnreadable()


class PretendsToBeADict:
    """isinstance(x, Mapping) believes its __class__; it is still no dict (and has no __contains__)."""

    @property
    def __class__(self):
        return dict


class RaisingDictAttr:
    @property
    def __dict__(self):
        raise RuntimeError("__dict__ raised")


@pytest.mark.parametrize("present", [True, False])
def test_dict_contains_with_hostile_mappings(build, present):
    check = build([DictContains(X, "k", present=present)])
    why = fails_quietly(check, {"x": RaisingContains(k=1)})
    assert "checking raised RuntimeError: __contains__ raised" in why
    fails_quietly(check, {"x": ContainsUnreadable()})
    why = fails_quietly(check, {"x": {RaisingEq(hash("k")): 1}})  # the lookup compares colliding keys
    assert "checking raised RuntimeError: __eq__ raised" in why
    assert PretendsToBeADict().__class__ is dict
    fails_quietly(check, {"x": PretendsToBeADict()})
    with pytest.raises(KeyboardInterrupt):
        check({"x": InterruptingContains()})


def test_dict_contains_when_the_dict_cannot_be_read(build):
    check = build([DictContains(Attr(X, "__dict__"), "forward", present=False)])
    why = fails_quietly(check, {"x": RaisingDictAttr()})
    assert why == "'forward' not in L['x'].__dict__, got nothing: L['x'].__dict__ raised RuntimeError: __dict__ raised"
    assert check({"x": RaisingAttr()})  # __dict__ is found: __getattr__ is never asked for it


# -- an object's __dict__ is what getattr returns (the accelerator reads the generic one directly) --------

FAKE_DICT = {"forward": 1}


class OwnGetattribute:
    def __getattribute__(self, name):
        if name == "__dict__":
            return FAKE_DICT
        return object.__getattribute__(self, name)


class DictProperty:
    @property
    def __dict__(self):
        return FAKE_DICT


class GetattrOnly:
    """Like nn.Module: a __getattr__ (asked only when the ordinary lookup finds nothing)."""

    asked: list = []

    def __getattr__(self, name):
        GetattrOnly.asked.append(name)
        raise AttributeError(name)


class OwnGetattributeAndGetattr(GetattrOnly):
    def __getattribute__(self, name):
        if name == "__dict__":
            return FAKE_DICT
        return object.__getattribute__(self, name)


class SlotDict:
    __slots__ = ("__dict__", "a")


class Namespace(types.SimpleNamespace):
    pass


class Plain:
    pass


def test_an_objects_dict_is_what_getattr_returns(build):
    d = Attr(X, "__dict__")
    absent = build([SameObject(d, Local("d")), DictContains(d, "forward", present=False)])
    present = build([SameObject(d, Local("d")), DictContains(d, "forward")])
    ordinary = [Plain(), GetattrOnly(), SlotDict(), Namespace(a=1), torch.nn.Linear(1, 1), types.ModuleType("m")]
    for obj in ordinary:
        frame = {"x": obj, "d": obj.__dict__}
        assert absent(frame) and absent(frame), type(obj)
        assert present(frame) is False
    assert GetattrOnly.asked == []
    for obj in [OwnGetattribute(), DictProperty(), OwnGetattributeAndGetattr()]:
        frame = {"x": obj, "d": FAKE_DICT}
        assert present(frame) and present(frame), type(obj)
        assert absent(frame) is False
        assert absent.why_failed(frame) == "'forward' not in L['x'].__dict__, got the key (value: 1)"


def test_a_class_that_changes_how_its_dict_is_read(build):
    class C:
        pass

    obj = C()
    check = build([DictContains(Attr(X, "__dict__"), "forward", present=False)])
    assert check({"x": obj}) and check({"x": obj})
    C.__getattribute__ = OwnGetattribute.__getattribute__  # the class changes after checks ran
    assert check({"x": obj}) is False
    del C.__getattribute__
    assert check({"x": obj})
    C.__getattr__ = GetattrOnly.__getattr__  # a __getattr__ is not asked for __dict__
    assert check({"x": obj})
    obj.__class__ = OwnGetattribute
    assert check({"x": obj}) is False
    obj.__class__ = C
    assert check({"x": obj})


def test_constant_set_with_a_foreign_member_fails_without_calling_it(build):
    class Evil:
        def __eq__(self, other):
            raise AssertionError("must not be called")

        def __hash__(self):
            return hash(1)

    check = build([ConstantMatch(X, {1})])
    fails_quietly(check, {"x": {Evil()}})

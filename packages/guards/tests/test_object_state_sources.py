"""Sources reached through an object's answer about itself: a weak reference's referent, a list or
tuple iterator's sequence and position, a dict's value by position; fetched, printed, compared and checked
by compiled guards."""

from __future__ import annotations

import pickle
import types
import weakref

import pytest

from loom_guards import (
    ConstantMatch,
    DictKeys,
    DictValueAt,
    Identity,
    IsNone,
    IteratorState,
    Local,
    WeakReferent,
    compile,
)


class Obj:
    pass


def test_weak_referent_reads_the_referent_or_none():
    obj = Obj()
    ref = weakref.ref(obj)
    source = WeakReferent(Local("r"))
    assert str(source) == "L['r']()" and source == WeakReferent(Local("r"))
    assert pickle.loads(pickle.dumps(source)) == source
    assert source.fetch({"r": ref}) is obj
    dead = weakref.ref(Obj())
    assert source.fetch({"r": dead}) is None
    with pytest.raises(TypeError):
        source.fetch({"r": obj})  # not a weak reference: the guard fails, it does not call the object


def test_guards_on_a_referent_fail_when_it_changes():
    obj = Obj()
    guard = compile([Identity(WeakReferent(Local("r")), obj)])
    assert guard({"r": weakref.ref(obj)})
    assert not guard({"r": weakref.ref(Obj())})
    assert not guard({"r": obj})
    gone = compile([IsNone(WeakReferent(Local("r")))])
    assert gone({"r": weakref.ref(Obj())}) and not gone({"r": weakref.ref(obj)})


@pytest.mark.parametrize("make", [list, tuple])
def test_iterator_state_reads_sequence_and_index_without_advancing(make):
    items = make([1, 2, 3])
    it = iter(items)
    next(it)
    sequence, index = IteratorState(Local("it"), "sequence"), IteratorState(Local("it"), "index")
    assert sequence.fetch({"it": it}) is items and index.fetch({"it": it}) == 1
    assert next(it) == 2  # reading the state did not move it
    assert str(index) == "L['it'].__reduce__()[2]" and sequence != index
    for _ in it:
        pass
    assert len(sequence.fetch({"it": it})) == 0 and index.fetch({"it": it}) == 0  # exhausted
    guard = compile([ConstantMatch(IteratorState(Local("it"), "index"), 1)])
    fresh = iter(items)
    assert not guard({"it": fresh})
    next(fresh)
    assert guard({"it": fresh}) and not guard({"it": [1, 2]})
    with pytest.raises(ValueError):
        IteratorState(Local("it"), "position")


def test_iterator_state_reads_the_range_a_range_iterator_has_left():
    # up to 3.11 __reduce__ gives the whole range and an index, from 3.12 the range left and None: one answer
    it = iter(range(2, 20, 3))
    next(it)
    left = IteratorState(Local("it"), "range")
    assert left.fetch({"it": it}) == range(5, 20, 3) and str(left) == "<the range L['it'] has left>"
    assert next(it) == 5  # reading did not move it
    guard = compile([ConstantMatch(left, range(8, 20, 3))])
    assert guard({"it": it}) and not guard({"it": iter(range(2, 20, 3))}) and not guard({"it": iter([8])})
    for _ in it:
        pass
    assert len(left.fetch({"it": it})) == 0


class Table(dict):
    def values(self):
        raise AssertionError("a guard runs no method of a dict subclass")


def test_dict_value_at_reads_by_position():
    source = DictValueAt(Local("d"), 1)
    assert str(source) == "list(L['d'].values())[1]" and source == DictValueAt(Local("d"), 1)
    assert source != DictValueAt(Local("d"), 0) and pickle.loads(pickle.dumps(source)) == source
    assert source.fetch({"d": {int: "a", str: "b"}}) == "b"
    assert source.fetch({"d": Table({int: "a", str: "c"})}) == "c"
    assert source.fetch({"d": types.MappingProxyType({int: 1, str: 2})}) == 2
    with pytest.raises(IndexError):
        source.fetch({"d": {int: "a"}})
    with pytest.raises(TypeError):
        source.fetch({"d": ["a", "b"]})
    with pytest.raises(TypeError):
        DictValueAt(Local("d"), -1)


def test_a_value_under_an_object_key_is_guarded_by_position():
    def first():
        return 1

    guard = compile([DictKeys(Local("d"), {int: None, str: None}), Identity(DictValueAt(Local("d"), 0), first)])
    assert guard({"d": {int: first, str: first}})
    assert not guard({"d": {int: lambda: 1, str: first}})  # the value replaced under the same key
    assert not guard({"d": {str: first, int: first}})  # the keys reordered

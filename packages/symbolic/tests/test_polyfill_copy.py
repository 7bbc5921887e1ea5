"""``polyfills.copy.deepcopy`` and ``copy`` against the standard library's, natively, on the same inputs, and traced."""

from __future__ import annotations

import collections
import copy

import torch
from harness import check

from loom_symbolic import polyfills


class Plain:
    def __init__(self):
        self.numbers = [1, 2, (3, [4])]
        self.table = {1: "a", "b": {"c": None}}
        self.dtype = torch.float32
        self.child = None


class WithDeepcopy(Plain):
    def __deepcopy__(self, memo):
        return "custom"


def _same_structure(a, b):
    if isinstance(a, Plain):
        return type(a) is type(b) and _same_structure(vars(a), vars(b))
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(_same_structure(a[k], b[k]) for k in a)
    return a == b


def test_deepcopy_copies_like_the_standard_library():
    deepcopy = polyfills.replacement_for(copy.deepcopy)
    assert deepcopy is not None
    original = Plain()
    original.child = Plain()
    made, expected = deepcopy(original), copy.deepcopy(original)
    assert _same_structure(made, expected) and _same_structure(made, original)
    assert made is not original and made.child is not original.child
    assert made.numbers is not original.numbers and made.numbers[2][1] is not original.numbers[2][1]
    assert made.dtype is torch.float32


def test_deepcopy_keeps_aliases_and_cycles():
    deepcopy = polyfills.replacement_for(copy.deepcopy)
    shared = [1]
    original = Plain()
    original.numbers = [shared, shared]
    original.child = original
    made = deepcopy(original)
    assert made.numbers[0] is made.numbers[1] and made.numbers[0] is not shared
    assert made.child is made


def test_deepcopy_hands_other_objects_to_the_original():
    deepcopy = polyfills.replacement_for(copy.deepcopy)
    assert deepcopy(WithDeepcopy()) == "custom"
    assert deepcopy({1, 2}) == {1, 2}
    tensor = torch.ones(2)
    assert torch.equal(deepcopy(tensor), tensor) and deepcopy(tensor) is not tensor
    assert deepcopy((1, "a")) == (1, "a")
    memo = {}
    assert deepcopy([1], memo) == [1] and memo


class WithCopy(Plain):
    def __copy__(self):
        return "custom"


class Slotted:
    __slots__ = ("a",)

    def __init__(self):
        self.a = [1]


def test_copy_of_a_plain_object_shares_its_values():
    shallow = polyfills.replacement_for(copy.copy)
    original = Plain()
    made, expected = shallow(original), copy.copy(original)
    assert _same_structure(made, expected) and made is not original
    assert made.numbers is original.numbers and made.table is original.table
    assert vars(shallow(Holder())) == {}  # an empty __dict__: no state, as object.__reduce_ex__ gives


def test_copy_hands_other_objects_to_the_original():
    shallow = polyfills.replacement_for(copy.copy)
    assert shallow(WithCopy()) == "custom"
    slotted = Slotted()
    assert shallow(slotted).a is slotted.a


class Holder:
    pass


def _copy_object_made_in_frame(x):
    h = Holder()
    h.items = [1, [2, 3]]
    h.t = x
    c = copy.copy(h)
    c.items.append(4)
    c.t = x * 2
    return h.t + c.t, h.items, type(c) is Holder, c is not h


def test_copy_of_an_object_made_in_the_frame_is_traced():
    check(_copy_object_made_in_frame, torch.arange(3.0))


class _Doubling(dict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value * 2)


class _Bumping(list):
    def append(self, value):
        super().append(value + 100)


class _Tagged(set):
    pass


def _container_copies(copier):
    d = _Doubling()
    dict.__setitem__(d, "a", [1])
    d.tag = [5]
    row = _Bumping([1, 2])
    row.tag = 3
    s = _Tagged([1, 2])
    s.tag = [3]
    od = collections.OrderedDict(b=1, a=[2])
    od.move_to_end("b")
    counter = collections.Counter(a=1)
    counter.tag = 1
    factory = collections.defaultdict(list, a=[1])
    made = [copier(v) for v in (d, row, s, od, counter, factory, frozenset([(1, 2)]))]
    return [(type(m).__name__, m if not isinstance(m, dict) else list(m.items()), vars(m) if hasattr(m, "__dict__") else None)
            for m in made]


def test_copies_of_container_subclasses_rebuild_them_as_their_reductions_do():
    # the class's own __setitem__/append refill the copy, and the __dict__ comes along, as copy._reconstruct does
    for original in (copy.copy, copy.deepcopy):
        polyfill = polyfills.replacement_for(original)
        assert _container_copies(polyfill) == _container_copies(original)


def test_deep_copies_of_containers_copy_their_items():
    deepcopy = polyfills.replacement_for(copy.deepcopy)
    inner = [1]
    d = _Doubling()
    dict.__setitem__(d, "a", inner)
    made = deepcopy(d)
    assert made["a"] == [1, 1] and made["a"] is not inner
    frozen = frozenset([(1, 2)])
    assert deepcopy(frozen) == frozen and deepcopy(frozen) is not frozen


class _Slotted:
    __slots__ = ("__hidden", "empty", "value")

    def __init__(self, value):
        self.value = value
        self.__hidden = [value]


class _SlottedChild(_Slotted):
    __slots__ = "extra"  # one slot, named by a string

    def __setattr__(self, name, value):  # copy stores slots with setattr, so this runs on the copy too
        object.__setattr__(self, name, value * 2 if name == "extra" else value)


class _SlotsAndDict(_Slotted):
    pass  # no __slots__: its instances also have a __dict__


def _slot_values(obj):
    return {name: getattr(obj, name) for name in ("value", "_Slotted__hidden", "empty", "extra") if hasattr(obj, name)}


def test_copies_of_slotted_objects_match_the_standard_library():
    stand_ins = polyfills.replacement_for(copy.copy), polyfills.replacement_for(copy.deepcopy)
    child = _SlottedChild(3)
    child.extra = 5
    mixed = _SlotsAndDict(4)
    mixed.note = [1]
    for original in (_Slotted(2), child, mixed):
        for stand_in, real in zip(stand_ins, (copy.copy, copy.deepcopy)):
            made, expected = stand_in(original), real(original)
            assert type(made) is type(expected) and _slot_values(made) == _slot_values(expected)
            assert getattr(made, "__dict__", None) == getattr(expected, "__dict__", None)
            # shallow copies share the slot values, deep ones copy them
            assert (made._Slotted__hidden is original._Slotted__hidden) == (real is copy.copy)


def _copy_slotted_made_in_frame(x):
    a = _SlottedChild(x)
    a.extra = x + 1
    b, c = copy.copy(a), copy.deepcopy(a)
    b.value = x * 3
    return a.value, a.extra, b.value, b.extra, c.extra, c._Slotted__hidden[0] is a._Slotted__hidden[0], hasattr(c, "empty")


def test_copy_of_a_slotted_object_made_in_the_frame_is_traced():
    check(_copy_slotted_made_in_frame, torch.arange(3.0))

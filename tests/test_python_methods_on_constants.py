"""A method written in Python and reached through a constant of the trace (a method of an enum member,
a metaclass's ``__subclasscheck__`` asked by ``issubclass`` of two classes) is traced, never called while
tracing and its result kept: what it reads of mutable state is guarded, and its effects run on every call."""

from __future__ import annotations

import enum

import pytest
import torch

import loom

X = torch.ones(2)
SCALE = {"v": 2}
LOG: list = []


class Op(enum.Enum):
    A = 1

    def factor(self, k):
        LOG.append(k)
        return SCALE["v"] * k


def scaled(x):
    return x * Op.A.factor(3)


def test_an_enum_method_with_constant_arguments_reads_state_and_logs_on_every_call():
    loom.reset()
    SCALE["v"] = 2
    LOG.clear()
    compiled = loom.compile(scaled, backend="eager")
    assert torch.equal(compiled(X), X * 6)
    assert torch.equal(compiled(X), X * 6)
    assert LOG == [3, 3]  # one append per call, as in eager
    SCALE["v"] = 5
    assert torch.equal(compiled(X), X * 15)
    assert LOG == [3, 3, 3]
    assert loom.stats()["graph_breaks"] == 0


ALLOWED = {"ok": True}


class Gate(type):
    def __subclasscheck__(cls, sub):
        if ALLOWED["ok"] is None:
            raise LookupError("no verdict")
        return ALLOWED["ok"]


class Gated(metaclass=Gate):
    pass


class Plain:
    pass


def gated(x):
    return x + 1 if issubclass(Plain, Gated) else x - 1


def gated_in_tuple(x):
    return x + 1 if issubclass(Plain, (int, Gated)) else x - 1


def gated_in_union(x):
    return x + 1 if issubclass(Plain, int | Gated) else x - 1


def gated_self(x):
    return x + 1 if issubclass(Gated, Gated) else x - 1  # no fast path: the metaclass is asked


@pytest.mark.parametrize("fn", [gated, gated_in_tuple, gated_in_union, gated_self])
def test_a_metaclass_subclasscheck_is_asked_on_every_call(fn):
    loom.reset()
    ALLOWED["ok"] = True
    compiled = loom.compile(fn, backend="eager")
    assert torch.equal(compiled(X), X + 1)
    ALLOWED["ok"] = False
    assert torch.equal(compiled(X), fn(X)) and torch.equal(fn(X), X - 1)
    assert loom.stats()["graph_breaks"] == 0


def test_what_a_subclasscheck_raises_is_the_programs():
    def caught(x):
        try:
            return x + int(issubclass(Plain, Gated))
        except LookupError as exc:
            return x - len(str(exc))

    loom.reset()
    ALLOWED["ok"] = None
    try:
        compiled = loom.compile(caught, backend="eager")
        assert torch.equal(compiled(X), caught(X)) and torch.equal(caught(X), X - len("no verdict"))
    finally:
        ALLOWED["ok"] = True


class Level(enum.Enum):
    LOW = 1
    HIGH = 2

    def __lt__(self, other):
        return (self.value < other.value) == (SCALE["v"] > 1)

    def __eq__(self, other):
        return SCALE["v"] > 3 or self is other

    def __len__(self):
        return SCALE["v"]

    def __hash__(self):
        return SCALE["v"]

    @property
    def label(self):
        return SCALE["v"] * self.value


def assert_eagers_answer_as_scale_changes(fn, breaks: int) -> None:
    """``fn`` compiled gives eager's answer while ``SCALE`` changes between calls, with ``breaks`` breaks."""
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    try:
        for value in (1, 4, 1):
            SCALE["v"] = value
            assert torch.equal(compiled(X), fn(X)), value
        assert loom.stats()["graph_breaks"] == breaks
    finally:
        SCALE["v"] = 2


ENUM_SPECIALS = {
    "lt": lambda x: x + 1 if Level.LOW < Level.HIGH else x - 1,
    "eq": lambda x: x + 1 if Level.LOW == Level.HIGH else x - 1,
    "in": lambda x: x + 1 if Level.LOW in (Level.HIGH,) else x - 1,
    "len": lambda x: x + len(Level.LOW),
    "hash": lambda x: x + hash(Level.LOW),
    "sorted": lambda x: x + 1 if sorted([Level.HIGH, Level.LOW])[0] is Level.LOW else x - 1,
    "max": lambda x: x + 1 if max(Level.HIGH, Level.LOW) is Level.LOW else x - 1,
    "min": lambda x: x + 1 if min([Level.HIGH, Level.LOW]) is Level.LOW else x - 1,
    "property": lambda x: x + Level.HIGH.label,
    "getattr": lambda x: x + getattr(Level.HIGH, "label"),  # noqa: B009 (the builtin is what is tested)
}


@pytest.mark.parametrize("name", sorted(ENUM_SPECIALS))
def test_an_enums_own_special_methods_and_properties_are_traced_not_folded(name):
    assert_eagers_answer_as_scale_changes(ENUM_SPECIALS[name], breaks=0)


class Pair(__import__("collections").namedtuple("Pair", "a b")):
    def __lt__(self, other):
        return SCALE["v"] > 1

    def weight(self):
        LOG.append("weight")
        return self.a * SCALE["v"]


ONE_TWO, THREE_FOUR = Pair(1, 2), Pair(3, 4)


def test_a_named_tuple_subclasss_python_methods_are_traced():
    def fn(x):
        return (x + ONE_TWO.weight()) if ONE_TWO < THREE_FOUR else x

    loom.reset()
    LOG.clear()
    compiled = loom.compile(fn, backend="eager")
    try:
        for value in (1, 4):
            SCALE["v"] = value
            assert torch.equal(compiled(X), fn(X)), value
        assert LOG == ["weight", "weight"]  # once per compiled call, once per eager call, not at trace time
    finally:
        SCALE["v"] = 2


class Dial(enum.Enum):
    ONE = 1

    def __neg__(self):
        return SCALE["v"]

    def __invert__(self):
        return SCALE["v"]

    def __abs__(self):
        return SCALE["v"]

    def __index__(self):
        return SCALE["v"]

    def __int__(self):
        return SCALE["v"]

    def __getitem__(self, i):
        return SCALE["v"] + i

    def __iter__(self):
        return iter([SCALE["v"]])


DIAL_PROGRAMS = {
    "neg": (lambda x: x + (-Dial.ONE), 0),
    "invert": (lambda x: x + (~Dial.ONE), 0),
    "abs": (lambda x: x + abs(Dial.ONE), 0),
    "list_index": (lambda x: x + [0, 1, 2, 3, 4, 5][Dial.ONE], 0),
    "getitem": (lambda x: x + Dial.ONE[1], 0),
    "iterated": (lambda x: x + list(Dial.ONE)[0], 0),  # noqa: RUF015 (list() is what is tested)
    # no model of int()'s protocol: a break, never a folded answer
    "int": (lambda x: x + int(Dial.ONE), 1),
    "operator_index": (lambda x: x + __import__("operator").index(Dial.ONE), 1),
}


@pytest.mark.parametrize("name", sorted(DIAL_PROGRAMS))
def test_an_enums_own_protocol_methods_are_traced_or_break(name):
    assert_eagers_answer_as_scale_changes(*DIAL_PROGRAMS[name])


class Tag(enum.Enum):
    T = 1

    def __str__(self):
        return "s" * SCALE["v"]

    def __repr__(self):
        return "r" * SCALE["v"]

    def __format__(self, spec):
        return "f" * SCALE["v"]


TEXT_PROGRAMS = {
    "percent": (lambda x: x + len("%s" % Tag.T), 1),
    "str_format": (lambda x: x + len("{}".format(Tag.T)), 0),
    "str_format_repr": (lambda x: x + len("{!r}".format(Tag.T)), 0),
    "fstring": (lambda x: x + len(f"{Tag.T}{Tag.T!r}"), 0),
    "repr_of_a_tuple": (lambda x: x + len(repr((Tag.T,))), 1),
    "str_of_a_list": (lambda x: x + len(str([Tag.T])), 1),
}


@pytest.mark.parametrize("name", sorted(TEXT_PROGRAMS))
def test_an_enums_own_text_methods_are_asked_on_every_call(name):
    assert_eagers_answer_as_scale_changes(*TEXT_PROGRAMS[name])


class Coord(bytes, enum.Enum):
    def __new__(cls, value, label):
        member = bytes.__new__(cls, [value])
        member._value_ = value
        member.label = label
        return member

    ORIGIN = (0, "origin")


def test_a_class_that_writes_only_new_still_folds():
    # enum keeps the class's own __new__ as __new_member__, which no fold calls; the member's repr raises
    # (bytes.__repr__ of its int value), so nothing may describe it by repr either
    def fn(x):
        return x + len(bytes(Coord.ORIGIN)), Coord.ORIGIN.label

    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    got, want = compiled(X), fn(X)
    assert torch.equal(got[0], want[0]) and got[1] == want[1] == "origin"
    assert loom.stats()["graph_breaks"] == 0


class Registry(type):
    def __bool__(cls):
        return SCALE["v"] > 2

    def __len__(cls):
        return SCALE["v"]


class Plugins(metaclass=Registry):
    pass


class Sized(type):
    def __len__(cls):
        return SCALE["v"] - 1


class Rows(metaclass=Sized):
    pass


@pytest.mark.parametrize("fn", [lambda x: x + 1 if Plugins else x - 1, lambda x: x + 1 if Rows else x - 1,
                                lambda x: x + (1 if not Plugins else 2)], ids=["bool", "len", "not"])
def test_a_metaclass_bool_or_len_decides_a_class_truth_on_every_call(fn):
    assert_eagers_answer_as_scale_changes(fn, breaks=0)

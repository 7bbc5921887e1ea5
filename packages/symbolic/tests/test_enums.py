"""Enum classes in compiled code (issue 29): ``Mode(value)`` looks a member up and ``for m in Mode``
iterates the members; both are read from the real class while tracing (members are fixed when the class
is made), so the function stays one graph. A lookup that misses, or an enum with its own ``_missing_``,
inlines enum's own ``Enum.__new__``, which asks ``_missing_`` and raises or answers as in eager."""

import enum

import torch
from harness import check, run_rewritten

from loom_symbolic import translate_function

X = torch.arange(3.0)


class Mode(enum.Enum):
    TRAIN = 1
    EVAL = 2


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 5


class Lenient(enum.Enum):
    ONE = 1

    @classmethod
    def _missing_(cls, value):
        return cls.ONE


def looks_up_and_iterates(x):
    out = x + Mode(1).value + Level(5) + (Mode(2) is Mode.EVAL)
    for member in Mode:
        out = out * member.value
    return out + len(list(Level)) + sum(m.value for m in Mode)


def misses(x):
    try:
        return Mode(3)
    except ValueError:
        return x - 1


def custom_missing(x):
    return x + Lenient(7).value


def test_lookup_by_value_and_iteration_are_one_graph():
    check(looks_up_and_iterates, X, graphs=1)


def test_a_missing_value_raises_in_the_trace_as_in_eager():
    translation = translate_function(misses, X)
    assert not translation.breaks, translation.dump()
    assert torch.equal(run_rewritten(misses, translation, (X,), {}), misses(X))


def test_an_enum_with_its_own_missing_is_asked_in_the_trace():
    translation = translate_function(custom_missing, X)
    assert not translation.breaks, translation.dump()
    assert torch.equal(run_rewritten(custom_missing, translation, (X,), {}), custom_missing(X))


class Shade(enum.Enum):
    DARK = 1
    BLACK = 1  # an alias of DARK: in __members__, not in iteration


def members_mapping(x):
    names = list(Shade.__members__)
    return x + len(Shade.__members__) + len(Mode.__members__), names, Shade.__members__["BLACK"] is Shade.DARK, \
        "EVAL" in Mode.__members__


def test_members_mapping_is_read_from_the_class():
    """``Cls.__members__`` (enum's property on the metaclass) is read in the trace (a graph break before)."""
    check(members_mapping, X)

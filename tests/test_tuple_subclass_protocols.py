"""A named tuple subclass that writes ``__iter__``, ``__getitem__`` or ``__repr__`` in Python: what CPython
asks of it is what its class answers. ``f(*t)`` and ``a, b = t`` iterate anything but an exact tuple through
``__iter__``; the trace's model holds the tuple's slots (read with tuple's own ``__iter__``, also where the
class writes ``__getitem__``), and an f-string's ``!r`` asks the class's ``__repr__`` each call."""

from __future__ import annotations

import collections
import enum

import pytest
import torch

import loom

X = torch.ones(1)
STATE = {"v": 1}


class Shifted(collections.namedtuple("Shifted", "x y")):
    def __iter__(self):
        return iter([STATE["v"], 0])

    def __repr__(self):
        return "S" * STATE["v"]


class Indexed(collections.namedtuple("Indexed", "x y")):
    def __getitem__(self, i):
        return STATE["v"]

    def __iter__(self):
        return iter([STATE["v"], 0])


class Shade(enum.Enum):
    DARK = 1

    def __format__(self, spec):
        return "D" * STATE["v"]


SHIFTED, INDEXED = Shifted(5, 2), Indexed(5, 2)


def first(a, b):
    return a


PROGRAMS = {
    "star_args": lambda x: x + first(*SHIFTED),
    "unpacked": lambda x: x + [a for a, _ in [SHIFTED]][0],  # noqa: RUF015 (the unpacking is what is tested)
    "loop": lambda x: x + sum(v for v in SHIFTED),
    "repr_in_fstring": lambda x: x + len(f"{SHIFTED!r}"),
    "field_beside_own_getitem": lambda x: x + INDEXED.y + INDEXED[0] + first(*INDEXED),
    "enum_format_in_fstring": lambda x: x + len(f"{Shade.DARK}"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_class_answers_as_in_eager_on_every_call(name):
    fn = PROGRAMS[name]
    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    try:
        for value in (1, 3, 1):
            STATE["v"] = value
            assert torch.equal(compiled(X), fn(X)), value
        assert loom.stats()["graph_breaks"] == 0
    finally:
        STATE["v"] = 1

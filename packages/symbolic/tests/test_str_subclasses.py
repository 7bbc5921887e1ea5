"""Instances of a str subclass made while tracing, met the way CPython's string_tests and test_userstring meet
them: a Python method calling str's own (``self.upper()``), ``str.__eq__(self, ...)`` from an overriding
``__eq__``, a ``__new__`` calling ``super().__new__(cls, text)``, ``__str__``/``__len__`` overrides seen by
``str()``, ``format()``, ``%s``/``%r`` and ``len()``, slicing, iteration, operators and ``+=`` giving plain strs. Creating one
was a graph break ("instances of str subclasses are not modelled"). Also: ``==`` on a str subclass instance from
the frame compared identity (a wrong answer); it is a graph break now."""

import pytest
import torch
from harness import check


class Tagged(str):
    def shout(self):
        return self.upper() + "!"


class Folded(str):
    def __new__(cls, value):
        return super().__new__(cls, value.lower())

    def __init__(self, value):
        self.original = value

    def __eq__(self, other):
        return str.__eq__(self, other.lower())

    __hash__ = str.__hash__


class Reversing(str):
    def __str__(self):
        return self[::-1]

    def __len__(self):
        return 100


def methods_and_operators(x):
    y = x + 1
    s = Tagged("hey")
    t = s
    t += "!"
    parts = [s.shout(), s + "x", s * 2, s[1:], "".join(c for c in s), s.split("e"), repr(s), str(s), format(s, ">5")]
    kinds = [type(p).__name__ for p in parts] + [type(t).__name__]
    return y + len(s) + isinstance(s, str) + (type(s) is Tagged) + (s < "hz") + (s == "hey"), parts, kinds


def own_new_and_eq(x):
    y = x * 2
    s = Folded("MiXeD")
    return y + (s == "MIXED") + (s != "mixed") + len(s), str(s), s.original, s.upper(), hash(s) == hash("mixed")


def dunders_seen_by_builtins(x):
    y = x + 1
    s = Reversing("abc")
    return y + len(s) + len(str(s)), str(s) + format(s) + f"{s}" + format(s, "<4") + repr(s)


def returned_and_stored(x):
    s = Folded("AbC")
    s.tag = 3
    return x + s.tag, s, type(s).__name__, vars(s)


class Shown(str):
    def __str__(self):
        return self[::-1]

    def __repr__(self):
        return "Shown<" + str.__repr__(self) + ">"


def percent_formats_by_str_and_repr(x):
    y = x + 1
    r, t = Shown("ab\xe9"), Tagged("q")
    out = ["%s" % r, "%5r|%%" % r, "%a" % r, "%%%-4s." % t, "%r" % t, "%.1s" % r]
    return y + len(out), out


def test_str_subclass_instances_are_traced():
    for fn in (methods_and_operators, own_new_and_eq, dunders_seen_by_builtins, returned_and_stored,
               percent_formats_by_str_and_repr):
        check(fn, torch.arange(3.0))


def formatted_by_percent(x):
    y = x + 1
    try:
        wrong = "%d" % Reversing("ab")
    except TypeError as e:
        wrong = e.args[0]
    return y, "%s|%r" % (Reversing("ab"), Tagged("q")) + "%s" % Reversing("xy"), wrong


GLOBAL = Tagged("abc")


def compared_from_the_frame(x):
    return x + (GLOBAL == "abc") + (GLOBAL != "abc") * 10


def test_what_reads_more_than_the_text_stays_right():
    """``%`` of a tuple of instances, or with a conversion other than ``s``/``r``/``a``, is left to CPython (a
    break), and ``==`` on one from the frame is str's comparison of contents, never identity."""
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    for fn in (formatted_by_percent, compared_from_the_frame):
        expected = fn(torch.arange(3.0))
        loom.reset()
        actual = loom.compile(fn, backend="eager", options={"strict": True})(torch.arange(3.0))
        if isinstance(expected, tuple):
            assert torch.equal(actual[0], expected[0]) and actual[1:] == expected[1:]
        else:
            assert torch.equal(actual, expected)

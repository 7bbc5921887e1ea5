"""Missing attributes: the lookup goes on as Python's does (a deleted instance attribute falls back to the class and
its ``__getattr__``; a class's missing attribute asks its metaclass's ``__getattr__``), and the AttributeError
Python raises is known to the trace (message, ``args``, ``name``), so a handler that formats it stays in the graph."""

from __future__ import annotations

import types

import torch

import loom


def _check(fn, *args, graphs=1, breaks=0, reset=None):
    if reset:
        reset()
    expected = fn(*args)
    if reset:
        reset()
    loom.reset()
    report = loom.explain(fn)(*args)
    assert (report.graph_count, report.graph_break_count) == (graphs, breaks), report.breaks
    if reset:
        reset()
    got = loom.compile(fn)(*args)
    assert repr(got) == repr(expected)
    return got


class _AnswersAll(type):
    def __getattr__(cls, name):
        return len(name)


class _Answered(metaclass=_AnswersAll):
    present = 1


def test_metaclass_getattr_answers_what_the_class_lacks():
    def fn(x):
        try:
            value = _Answered.missing
        except AttributeError:
            value = 0
        return x + value + _Answered.present, hasattr(_Answered, "other"), getattr(_Answered, "third", -1)

    assert _check(fn, torch.ones(2))[1:] == (True, 5)


class _Fallback:
    shadowed = 3

    def __getattr__(self, name):
        return 10


_held = _Fallback()


def _restore():
    _held.shadowed = 1
    _held.plain = 2


def test_deleted_instance_attribute_falls_back_to_class_then_getattr():
    def fn(x):
        del _held.shadowed
        del _held.plain
        try:
            plain = _held.plain  # the class's __getattr__ answers
        except AttributeError:
            plain = 0
        return x + _held.shadowed + plain, hasattr(_held, "plain")

    result = _check(fn, torch.ones(2), reset=_restore)
    assert result[0].tolist() == [14.0, 14.0]


class _Plain:
    pass


def test_missing_attribute_errors_are_known_to_the_trace():
    def fn(x):
        found = []
        for lookup in (lambda: _Plain.nope, lambda: fn.nope, lambda: types.nope, lambda: super(_Plain, _Plain()).nope):
            try:
                lookup()
            except AttributeError as exc:
                found.append((str(exc), exc.args, exc.name))
        return x + len(found), found

    result = _check(fn, torch.ones(2))
    assert result[1][0] == ("type object '_Plain' has no attribute 'nope'", ("type object '_Plain' has no attribute 'nope'",), "nope")
    loom.reset()
    compiled = loom.compile(fn)
    compiled(torch.ones(2))
    compiled(torch.ones(2))
    assert loom.stats()["frames_compiled"] == 1 and loom.stats()["recompiles"] == 0


def test_deleting_a_missing_attribute_sets_no_name():
    def fn(x):
        made = _Plain()
        try:
            del made.nope
        except AttributeError as exc:
            return x + 1, str(exc), exc.name
        return x

    assert _check(fn, torch.ones(2))[2] is None

"""User exception classes raised and caught inside compiled code: their __init__ (with super()),
attributes, methods and properties are traced; one that escapes behaves exactly as in eager."""

from __future__ import annotations

import pytest
import torch
from breaks_harness import compare


class CodedError(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code

    def doubled(self):
        return self.code * 2

    @property
    def label(self):
        return f"E{self.code}"


class Unannotated(ValueError):
    pass


def caught_with_attributes(x):
    try:
        raise CodedError("bad", 3)
    except CodedError as e:
        return x + e.code + e.doubled(), e.args, e.label


def caught_with_keywords(x):
    try:
        raise CodedError("kw", code=5)
    except Exception as e:
        return x * e.code, str(e.args[0])


def builtin_subclass(x):
    try:
        raise Unannotated("plain", 2)
    except ValueError as e:
        return x + e.args[1]


def escapes(x):
    raise CodedError("out", x.shape[0])


def returned_from_the_handler(x):
    try:
        raise CodedError("kept", 7)
    except CodedError as e:
        return x + 1, e.code, type(e).__name__


@pytest.mark.parametrize("fn", [caught_with_attributes, caught_with_keywords, builtin_subclass],
                         ids=lambda fn: fn.__name__)
def test_caught_in_one_graph(fn):
    stats = compare(fn, torch.ones(2))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats


@pytest.mark.parametrize("fn", [escapes, returned_from_the_handler], ids=lambda fn: fn.__name__)
def test_same_behaviour_as_eager(fn):
    compare(fn, torch.ones(2))

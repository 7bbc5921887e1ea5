"""The TypeError (and ValueError) an operation on constants raises in the trace carries CPython's own
message (issue 29): iterating a non-iterable (``iter(3)``, a ``for`` over it, ``zip``, ``sum``,
``list.extend``), unpacking one (``a, b = 3``, ``[*3]``, ``{*3}``), calling one (``(3)()``), a builtin that
rewrites the message (``dict`` of pairs, ``functools.reduce``) and unpacking the wrong number of items.
Code that reads ``str(e)`` or ``e.args`` in its handler is one graph with no break, with eager's answer."""

import functools
import operator

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.ones(3)


def message_of(fn, *args):
    try:
        fn(*args)
    except (TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc), exc.args
    return "no error"


@case(X)
def iter_of_an_int_branches_on_the_message(x):
    try:
        iter(3)
        msg = "none"
    except TypeError as e:
        msg = str(e)
    return x + 1 if msg == "'int' object is not iterable" else x - 1, msg


@case(X)
def for_over_an_int_and_none(x):
    found = []
    for value in (3, None, 1.5):
        try:
            for _ in value:
                pass
        except TypeError as e:
            found.append(e.args)
    return x * len(found), found


def _unpack(value):
    a, b = value
    return a


def _unpack_starred(value):
    a, *rest = value
    return a


def _star_in_list(value):
    return [*value]


def _star_in_set(value):
    return {*value}


def _call(value):
    return value()


@case(X)
def unpacking_and_calling_an_int(x):
    found = [message_of(f, 3) for f in (_unpack, _unpack_starred, _star_in_list, _star_in_set, _call)]
    return x + len(found), found


@case(X)
def unpacking_the_wrong_number(x):
    return x + 1, message_of(_unpack, (1, 2, 3)), message_of(_unpack, (1,)), message_of(_unpack_starred, ())


@case(X)
def builtins_over_an_int(x):
    found = [message_of(f, 3) for f in (zip, sum, sorted, list, enumerate, [].extend)]
    return x + 1, found


@case(X)
def builtins_that_rewrite_the_message(x):
    return x + 1, message_of(dict, [(1, 2), 3]), message_of(functools.reduce, operator.add, 3)


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_type_error_messages_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)

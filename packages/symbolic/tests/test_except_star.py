"""``try``/``except*`` in one graph (CHECK_EG_MATCH and PREP_RERAISE_STAR, 3.12's intrinsic; before, the
frame ran uncompiled): matching and splitting, a naked exception wrapped, several clauses, the handled
exception inside a clause, a clause raising anew or re-raising (a bare ``raise`` keeps the traceback, so
the rest is re-raised as part of the original group, not wrapped in a new one), and CPython's TypeErrors."""

from __future__ import annotations

import sys

import pytest
import torch
from harness import check

X = torch.ones(3)


def shape(exc):
    if isinstance(exc, BaseExceptionGroup):
        return type(exc) is ExceptionGroup, exc.message, [shape(sub) for sub in exc.exceptions]
    return type(exc) is ValueError, exc.args


def _run(body, *clauses):
    """What ``body`` raising through ``except*`` clauses (kind, what the clause does) leaves: the clauses'
    view of what they caught, and the shape of what got out."""
    seen = []
    try:
        try:
            body()
        except* ValueError as e:
            seen.append(("value", shape(e), shape(sys.exc_info()[1])))
            if "value" in clauses:
                raise
            if "value-new" in clauses:
                raise KeyError("new") from None
        except* (TypeError, OSError) as e:
            seen.append(("type", shape(e)))
            if "type" in clauses:
                raise
    except BaseException as out:
        return seen, shape(out), out.__suppress_context__
    return seen, None, None


def _group():
    raise ExceptionGroup("eg", [ValueError(1), TypeError(2), ExceptionGroup("inner", [ValueError(3), KeyError(4)])])


def _naked():
    raise ValueError("naked")


def _other():
    raise KeyError("other")


def split_and_rest(x):
    return x + 1, _run(_group)


def reraise_rest(x):
    return x * 2, _run(_group, "value")


def reraise_both(x):
    return x - 1, _run(_group, "value", "type")


def raise_anew(x):
    return x + 2, _run(_group, "value-new")


def naked_matched(x):
    return x + 3, _run(_naked), _run(_naked, "value")


def not_matched(x):
    return x * 3, _run(_other)


def naked_raise_anew(x):
    return x - 2, _run(_naked, "value-new")


def handled_after(x):
    before = sys.exc_info()[0]
    try:
        raise ExceptionGroup("eg", [ValueError(1)])
    except* ValueError:
        pass
    return x + 1, before is sys.exc_info()[0]


def nested(x):
    log = []
    try:
        raise ExceptionGroup("n", [OSError("io")])
    except* OSError as outer:
        try:
            raise ExceptionGroup("m", [ValueError("v")])
        except* ValueError as inner:
            log.append((inner.message, sys.exc_info()[1].message))
        log.append((outer.message, sys.exc_info()[1].message))
    return x + 4, log


def _type_error(kind):
    try:
        try:
            raise ValueError("v")
        except* kind:
            pass
    except TypeError as exc:
        return exc.args
    return None


def invalid_types(x):
    return x * 5, _type_error(ExceptionGroup), _type_error((ValueError, 42)), _type_error((TypeError, ExceptionGroup))


@pytest.mark.parametrize("fn", [split_and_rest, reraise_rest, reraise_both, raise_anew, naked_matched, not_matched,
                                naked_raise_anew, handled_after, nested, invalid_types])
def test_except_star_in_one_graph(fn):
    check(fn, X)

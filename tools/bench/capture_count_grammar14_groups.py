"""CPython's test_except_star and test_exception_group as PyTorch's Dynamo suite runs them
(``test/dynamo/cpython/3_13/``), for ``capture_count.py --only grammar14``: what escapes an ``except*`` whose
handler raises (a new error, the named group again, ``raise ... from``), bare ``raise`` inside one, the
context and cause that result, ``sys.exception()`` there, notes and ``derive`` through ``split``.
"""

from __future__ import annotations

import sys


def _leaf_types(eg):
    out = []
    for e in eg.exceptions:
        out.extend(_leaf_types(e) if isinstance(e, BaseExceptionGroup) else [type(e).__name__])
    return out


def c_grammar14_groups_handler_raises_new_error(x):
    try:
        try:
            raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
        except* ValueError:
            raise KeyError("k")  # noqa: B904
    except ExceptionGroup as outer:
        got = (_leaf_types(outer), type(outer.exceptions[0].__context__).__name__)
    return x + len(got[0]), got


def c_grammar14_groups_bare_raise_keeps_match_only(x):
    try:
        try:
            raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
        except* ValueError:
            x = x + 1
            raise
    except ExceptionGroup as outer:
        got = sorted(_leaf_types(outer))
    return x, got


def c_grammar14_groups_raise_named_group(x):
    try:
        try:
            raise ExceptionGroup("eg", [ValueError(1), OSError(2)])
        except* ValueError as e:
            raise e
    except ExceptionGroup as outer:
        got = (outer.message, sorted(_leaf_types(outer)))
    return x * 2, got


def c_grammar14_groups_raise_from_in_handler(x):
    try:
        try:
            raise ExceptionGroup("eg", [ValueError(1)])
        except* ValueError as e:
            raise TypeError("t") from e
    except* TypeError as outer:
        leaf = outer.exceptions[0]
        got = (type(leaf.__cause__).__name__, leaf.__cause__.message)
    return x - 1, got


def c_grammar14_groups_sys_exception_inside(x):
    seen = []
    try:
        raise ExceptionGroup("eg", [ValueError(1), ValueError(2)])
    except* ValueError:
        e = sys.exception()
        seen.append((type(e).__name__, len(e.exceptions)))
        x = x + 3
    seen.append(sys.exception())
    return x, seen


def c_grammar14_groups_split_keeps_notes_and_traceback(x):
    eg = ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    eg.add_note("a note")
    eg.__cause__ = KeyError("c")
    match, rest = eg.split(ValueError)
    return x + 1, match.__notes__, rest.__notes__, type(match.__cause__).__name__, match is not eg


def c_grammar14_groups_derive_custom_message(x):
    class Tagged(ExceptionGroup):
        def __new__(cls, message, excs, tag=None):
            self = super().__new__(cls, message, excs)
            self.tag = tag
            return self

        def derive(self, excs):
            return Tagged(self.message, excs, self.tag)

    eg = Tagged("m", [ValueError(1), TypeError(2)], "t")
    sub = eg.subgroup(TypeError)
    return x + 2, type(sub).__name__, sub.tag, len(sub.exceptions)


def c_grammar14_groups_except_star_all_handled_no_raise(x):
    hits = []
    try:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2), ValueError(3)])
    except* ValueError as e:
        hits.append(len(e.exceptions))
    except* TypeError as e:
        hits.append(len(e.exceptions))
    else:
        hits.append("else")
    return x + sum(hits), hits


def c_grammar14_groups_nested_except_star_in_handler(x):
    order = []
    try:
        raise ExceptionGroup("outer", [ValueError(1)])
    except* ValueError:
        try:
            raise ExceptionGroup("inner", [KeyError(2), TypeError(3)])
        except* KeyError:
            order.append("inner key")
        except* TypeError:
            order.append("inner type")
        order.append("outer done")
    return x + len(order), order


def c_grammar14_groups_base_exception_group_split(x):
    beg = BaseExceptionGroup("b", [KeyboardInterrupt(), ValueError(1)])
    match, rest = beg.split(Exception)
    return x + 1, type(beg).__name__, type(match).__name__, type(rest).__name__, _leaf_types(rest)


CONSTRUCTS = [c_grammar14_groups_handler_raises_new_error, c_grammar14_groups_bare_raise_keeps_match_only,
              c_grammar14_groups_raise_named_group, c_grammar14_groups_raise_from_in_handler,
              c_grammar14_groups_sys_exception_inside, c_grammar14_groups_split_keeps_notes_and_traceback,
              c_grammar14_groups_derive_custom_message, c_grammar14_groups_except_star_all_handled_no_raise,
              c_grammar14_groups_nested_except_star_in_handler, c_grammar14_groups_base_exception_group_split]

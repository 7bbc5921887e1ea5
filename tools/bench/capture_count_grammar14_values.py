"""Value, literal, or- and as-patterns and their subjects (CPython's test_patma as PyTorch's Dynamo suite runs
it, ``test/dynamo/cpython/3_13/``), for ``capture_count.py --only grammar14``: the ``==`` a value pattern calls
on the subject, ``True``/``None`` matched by identity, NaN never equal, starred and walrus subjects, deep
or-patterns, ``UserList`` and ``Sequence`` classes, ``**rest`` copying, dataclass ``__match_args__``.
"""

from __future__ import annotations

import collections
import collections.abc
import dataclasses


class Consts:
    ONE = 1
    TWO = 2


def c_grammar14_val_eq_order(x):
    log = []

    class L:
        def __eq__(self, other):
            log.append(other)
            return other == 2
    match L():
        case 1:
            r = 1
        case Consts.TWO:
            r = 2
        case _:
            r = 3
    return x + r, log


def c_grammar14_val_star_subject(x):
    a, b = 1, [2, 3]
    match a, *b:
        case (1, 2, c):
            return x + c
    return x


def c_grammar14_val_walrus_subject(x):
    match (n := x.shape[0]):
        case 3:
            return x * n
    return x


def c_grammar14_val_or_as_capture(x):
    out = []
    for v in (0, 1, 2):
        match v:
            case (0 as z) | (1 as z):
                out.append(z + 10)
            case _:
                out.append(-1)
    return x + sum(out), out


def c_grammar14_val_deep_or(x):
    out = []
    for v in ({0: [1, 2, {}]}, {0: True}, {1: [[]]}, {1: []}):
        match v:
            case {0: [1, 2, {}] | True} | {1: [[]]}:
                out.append(1)
            case _:
                out.append(0)
    return x + sum(out), out


def c_grammar14_val_none_true_identity(x):
    out = []
    for v in (1, 1.0, True, 0, False, None):
        match v:
            case True:
                out.append("T")
            case False:
                out.append("F")
            case 1:
                out.append("one")
            case 0:
                out.append("zero")
            case None:
                out.append("N")
    return x + len(out), out


def c_grammar14_val_nan_value(x):
    nan = float("nan")

    class C:
        N = nan
    match nan:
        case C.N:
            r = "same"
        case _:
            r = "diff"
    return x + 1, r


def c_grammar14_val_userlist_seq(x):
    ul = collections.UserList([x, x + 1])
    match ul:
        case [a, b]:
            return a * b
    return x


def c_grammar14_val_getitem_raises_seq(x):
    class S(collections.abc.Sequence):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            if i >= 2:
                raise IndexError(i)
            return i * 10
    match S():
        case [a, b]:
            return x + a + b
    return x


def c_grammar14_val_seq_star_tail_large(x):
    match list(range(10)):
        case [0, *mid, 8, 9]:
            return x + len(mid), mid
    return x, None


def c_grammar14_val_mapping_rest_only(x):
    d = {"a": x, "b": 2}
    match d:
        case {**rest}:
            rest["c"] = 3
            return rest["a"] + rest["b"], sorted(d), rest is d
    return x, None, None


def c_grammar14_val_class_pattern_type_subclass_check(x):
    out = []
    for v in (True, 1, 1.5):
        match v:
            case int(i) if not isinstance(v, bool):
                out.append(("int", i))
            case bool(b):
                out.append(("bool", b))
            case float():
                out.append(("float", v))
    return x + len(out), out


def c_grammar14_val_match_args_from_dataclass_kwonly(x):
    @dataclasses.dataclass
    class D:
        a: int
        b: int = dataclasses.field(kw_only=True, default=5)
    match D(1):
        case D(a, b=bb):
            return x + a + bb, D.__match_args__
    return x, None


CONSTRUCTS = [c_grammar14_val_eq_order, c_grammar14_val_star_subject, c_grammar14_val_walrus_subject,
              c_grammar14_val_or_as_capture, c_grammar14_val_deep_or, c_grammar14_val_none_true_identity,
              c_grammar14_val_nan_value, c_grammar14_val_userlist_seq, c_grammar14_val_getitem_raises_seq,
              c_grammar14_val_seq_star_tail_large, c_grammar14_val_mapping_rest_only,
              c_grammar14_val_class_pattern_type_subclass_check, c_grammar14_val_match_args_from_dataclass_kwonly]

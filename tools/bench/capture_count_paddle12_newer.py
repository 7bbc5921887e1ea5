"""Programs with newer Python features beside Paddle's SOT tests (test_24_exceptions, test_enum, test_dataclass,
test_functools) for ``capture_count.py --only paddle12``: ``except*`` groups, ``StrEnum``, keyword-only and
slotted dataclasses, ``typing.NamedTuple`` methods, ``singledispatchmethod``, ``operator.call``, generic
aliases and the 3.9-3.11 helpers of ``str``, ``int`` and ``math``.
"""

from __future__ import annotations

import enum
import functools
import math
import operator
import typing
from dataclasses import dataclass

import torch


def c_p12n_except_star_splits_group(x):
    seen = []
    try:
        raise ExceptionGroup("two", [ValueError("v"), KeyError("k")])
    except* ValueError as group:
        seen.append(("value", len(group.exceptions)))
        x = x + 1
    except* KeyError as group:
        seen.append(("key", len(group.exceptions)))
        x = x * 2
    return x, seen


def c_p12n_exception_notes(x):
    try:
        err = ValueError("base")
        err.add_note("more")
        raise err
    except ValueError as e:
        notes = e.__notes__
    return x + len(notes), notes


class _Mode(enum.StrEnum):
    TRAIN = enum.auto()
    EVAL = "eval"


def c_p12n_strenum_members(x):
    m = _Mode("train")
    return x + len(m), m == "train", m.upper(), f"{_Mode.EVAL}", _Mode.EVAL in ("eval", "x")


@dataclass(kw_only=True, slots=True)
class _Opts:
    lr: float
    steps: int = 2


def c_p12n_kw_only_slots_dataclass(x):
    o = _Opts(lr=0.5)
    out = x
    for _ in range(o.steps):
        out = out * (1 - o.lr)
    return out, hasattr(o, "__dict__"), _Opts.__slots__


class _Point(typing.NamedTuple):
    x: float
    y: float = 0.0

    def norm2(self):
        return self.x * self.x + self.y * self.y


def c_p12n_typing_namedtuple_method(x):
    p = _Point(3.0, 4.0)
    q = _Point(1.0)
    return x + p.norm2() + q.norm2(), q, _Point._fields, p._replace(y=1.0).norm2()


class _Scaler:
    @functools.singledispatchmethod
    def scale(self, v):
        return v

    @scale.register
    def _(self, v: int):
        return v * 10

    @scale.register
    def _(self, v: torch.Tensor):
        return v * 2


def c_p12n_singledispatchmethod(x):
    s = _Scaler()
    return s.scale(x), s.scale(3), s.scale("a")


def c_p12n_operator_call_and_generic_alias(x):
    alias = list[int]
    return operator.call(torch.add, x, 1), alias.__origin__ is list, alias.__args__, typing.get_origin(dict[str, int])


def c_p12n_newer_str_int_math(x):
    s = "prefix_name_suffix"
    return (x + (13).bit_count() + math.cbrt(27.0) + math.exp2(3), s.removeprefix("prefix_"),
            s.removesuffix("_suffix"), math.lcm(4, 6), math.nextafter(1.0, 2.0) > 1.0)


def c_p12n_dict_merge_operators(x):
    a = {"p": 1, "q": 2}
    b = {"q": 3, "r": x}
    merged = a | b
    a |= {"s": 4}
    return merged["r"] + merged["q"], sorted(merged), a


def c_p12n_match_sequence_star_and_class(x):
    out = []
    for item in ([1, 2, 3], (x, 5), _Point(2.0, 1.0), "s"):
        match item:
            case (torch.Tensor() as t, int(n)):
                out.append(t * n)
            case [1, *rest]:
                out.append(sum(rest))
            case _Point(x=px, y=py):
                out.append(px - py)
            case str():
                out.append(-1)
    return out


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

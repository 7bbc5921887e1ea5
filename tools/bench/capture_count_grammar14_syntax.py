"""More of CPython's test_grammar, test_tuple, test_range and test_patma as PyTorch's Dynamo suite runs them
(``test/dynamo/cpython/3_13/``), for ``capture_count.py --only grammar14``: the ``@`` operator on user classes,
call forms and their TypeErrors (positional-only by keyword, a keyword twice), ``assert`` caught, ``return``
in ``finally``, selectors with ellipsis and tuples of slices, class definitions with keywords, and more
patterns (keys that are enum members or equal numbers, attribute reads that raise).
"""

from __future__ import annotations

import collections
import enum


class _Mat:
    def __init__(self, v):
        self.v = v

    def __matmul__(self, other):
        return _Mat(self.v * (other.v if isinstance(other, _Mat) else other))

    def __rmatmul__(self, other):
        return _Mat(other * self.v + 1)

    def __imatmul__(self, other):
        self.v = self.v - other
        return self


def c_grammar14_syntax_matmul_dunders(x):
    a = _Mat(2) @ _Mat(3)
    b = 4 @ _Mat(5)  # int has no __matmul__: the reflected one runs
    c = _Mat(10)
    c @= 3
    return x @ x + a.v + b.v + c.v


def c_grammar14_syntax_positional_only_by_keyword(x):
    def f(a, b, /, c):
        return a + b + c

    try:
        f(1, b=2, c=3)
    except TypeError as e:
        msg = str(e)
    return x + f(1, 2, c=3), msg


def c_grammar14_syntax_keyword_given_twice(x):
    def g(a, b=1):
        return a * b

    try:
        g(1, **{"a": 2})
    except TypeError as e:
        msg = str(e)
    return x + g(b=2, a=3), msg


def c_grammar14_syntax_assert_caught(x):
    try:
        assert x.numel() == 5, f"numel is {x.numel()}"
    except AssertionError as e:
        return x + 1, str(e)
    return x, None


def c_grammar14_syntax_return_in_finally(x):
    def f(t):
        try:
            return t + 1
        finally:
            return t - 1  # noqa: B012

    def g(t):
        for i in range(3):
            try:
                continue
            finally:
                t = t + i
        return t

    return f(x) + g(x)


def c_grammar14_syntax_selectors_tuple_index(x):
    y = x.reshape(1, 3)
    d = {(1, 2): "a", (slice(0, 1),): "b"} if False else {(1, 2): "a"}
    return y[..., 1:] + y[0, None, :2].sum(), d[1, 2], y[:, ::2]


def c_grammar14_syntax_class_keywords(x):
    class Base:
        def __init_subclass__(cls, scale=1, **kw):
            super().__init_subclass__(**kw)
            cls.scale = scale

    class Child(Base, scale=3):
        pass

    return x * Child.scale + Base.__dict__.get("scale", 0)


def c_grammar14_syntax_nested_scopes_in_comprehensions(x):
    k = 10
    rows = [[k * i + j for j in range(i)] for i in range(3)]
    table = {i: {j: i * j for j in range(2)} for i in range(2)}
    return x + sum(map(sum, rows)), rows, table


def c_grammar14_syntax_shift_and_mask_ops(x):
    vals = (1 << 10, -16 >> 2, 0xF0 & 0x3C, 0xF0 | 0x0F, 0xFF ^ 0x0F, ~0, -(-3) ** 2)
    return x + vals[0] // 1024, vals


def c_grammar14_syntax_generator_arg_forms(x):
    total = sum(v * 2 for v in range(4))
    joined = "".join(str(v) for v in range(3))
    m = max((v for v in [3, 1, 2]), default=0)
    return x + total + m, joined


def c_grammar14_syntax_if_else_expression_laziness(x):
    calls = []

    def t(v):
        calls.append(v)
        return v

    a = t(1) if t(0) else t(2)
    b = t(3) if t(4) else t(5)
    return x + a + b, calls


def c_grammar14_syntax_star_call_ordering(x):
    order = []

    def r(v):
        order.append(v)
        return v

    def f(*a, **k):
        return a, k

    a, k = f(r(1), *[r(2)], r(3), **{"z": r(4)}, y=r(5))
    return x + sum(a), order, sorted(k)


class _Suit(enum.Enum):
    HEART = "h"
    SPADE = "s"


def c_grammar14_syntax_match_enum_keys_and_equal_numbers(x):
    out = []
    for d in ({_Suit.HEART: 1}, {1: "one"}, {True: "t"}):
        match d:
            case {_Suit.HEART: v}:
                out.append(("suit", v))
            case {1.0: v}:
                out.append(("num", v))
    return x + len(out), out


def c_grammar14_syntax_match_attribute_raises_other_error(x):
    class Bad:
        __match_args__ = ("v",)

        @property
        def v(self):
            raise KeyError("v")

    try:
        match Bad():
            case Bad(1):
                r = "one"
            case _:
                r = "other"
    except KeyError as e:
        r = repr(e)
    return x + 1, r


def c_grammar14_syntax_match_counter_and_chainmap(x):
    out = []
    for m in (collections.Counter("aab"), collections.ChainMap({"a": 5}, {"b": 6})):
        match m:
            case {"a": a, "b": b}:
                out.append(a + b)
    return x + sum(out), out


def c_grammar14_syntax_tuple_unpack_errors(x):
    msgs = []
    for v in ((1, 2, 3), (1,)):
        try:
            _a, _b = v
        except ValueError as e:
            msgs.append(str(e))
    return x + len(msgs), msgs


def c_grammar14_syntax_range_negative_index_errors(x):
    r = range(3)
    try:
        r[5]
    except IndexError as e:
        msg = str(e)
    return x + r[-3], msg, r[-2:], r[::-1][0]


CONSTRUCTS = [c_grammar14_syntax_matmul_dunders, c_grammar14_syntax_positional_only_by_keyword,
              c_grammar14_syntax_keyword_given_twice, c_grammar14_syntax_assert_caught,
              c_grammar14_syntax_return_in_finally, c_grammar14_syntax_selectors_tuple_index,
              c_grammar14_syntax_class_keywords, c_grammar14_syntax_nested_scopes_in_comprehensions,
              c_grammar14_syntax_shift_and_mask_ops, c_grammar14_syntax_generator_arg_forms,
              c_grammar14_syntax_if_else_expression_laziness, c_grammar14_syntax_star_call_ordering,
              c_grammar14_syntax_match_enum_keys_and_equal_numbers,
              c_grammar14_syntax_match_attribute_raises_other_error, c_grammar14_syntax_match_counter_and_chainmap,
              c_grammar14_syntax_tuple_unpack_errors, c_grammar14_syntax_range_negative_index_errors]

"""Programs after CPython's test_grammar, test_generator_stop, test_exception_group, test_except_star,
test_setcomps, test_tuple, test_range, test_slice, test_enum and test_int_literal as PyTorch's Dynamo suite runs
them (``test/dynamo/cpython/3_13/``), for ``capture_count.py --only grammar14``. Each mixes the construct with
tensor work so that the frame is compiled.
"""

from __future__ import annotations

import enum
import operator

import torch

# ---- test_grammar --------------------------------------------------------------------------------------------


def c_grammar14_grammar_chained_assign_and_aug(x):
    a = b = [1]
    a += [2]  # in place: b sees it
    c = d = (1,)
    c += (2,)  # rebinds: d does not
    return x + len(b) + len(d), b, d


def c_grammar14_grammar_star_assign_targets(x):
    first, *middle, last = range(5)
    (p, q), *rest = [(x, x + 1), 3, 4]
    [*head, tail] = "abc"
    return p + q + first + last + sum(middle) + sum(rest), head, tail


def c_grammar14_grammar_global_nonlocal(x):
    counter = 0

    def bump(k):
        nonlocal counter
        counter += k
        return counter

    bump(2)
    bump(3)
    return x + counter


def c_grammar14_grammar_lambda_forms(x):
    f1 = lambda: 1  # noqa: E731
    f2 = lambda a, /, b=2, *args, c, d=4, **kw: (a, b, args, c, d, sorted(kw))  # noqa: E731
    return x + f1(), f2(1, c=3), f2(1, 5, 6, 7, c=8, z=9)


def c_grammar14_grammar_conditional_lambda_nesting(x):
    pick = (lambda t: t * 2) if x.numel() > 2 else (lambda t: t - 2)
    return pick(x), (1 if True else 2 if False else 3), [v for v in (0, 1, 2) if v if v != 1]


def c_grammar14_grammar_comparison_chains(x):
    n = 3
    checks = (1 < n < 5, 1 < n > 5, n == 3 != 4, None is None, "a" in "abc" not in ["z"], 1 not in [2])
    return x + sum(checks), checks


def c_grammar14_grammar_unary_power_precedence(x):
    vals = (-2 ** 2, (-2) ** 2, 2 ** -1, -x ** 2, ~5, not 0, 2 ** 3 ** 2)
    return vals[3] + vals[0], vals[:3] + vals[4:]


def c_grammar14_grammar_del_targets(x):
    d = {"a": 1, "b": 2, "c": 3}
    lst = [0, 1, 2, 3, 4]
    del d["a"], lst[1:3]
    y = x + 1
    del y
    try:
        y  # noqa: B018, F821
    except UnboundLocalError:
        state = "unbound"
    return x + len(d) + len(lst), state, lst


def c_grammar14_grammar_try_finally_break_in_loop(x):
    out = []
    for i in range(5):
        try:
            if i == 3:
                break
            out.append(i)
        finally:
            out.append(-i)
    return x + sum(out), out


def c_grammar14_grammar_while_else_continue(x):
    i = 0
    hits = []
    while i < 4:
        i += 1
        if i % 2:
            continue
        hits.append(i)
    else:
        hits.append("done")
    return x * len(hits), hits


def c_grammar14_grammar_walrus_in_while_and_if(x):
    it = iter([3, 2, 1, 0, 5])
    seen = []
    while (v := next(it)) != 0:
        seen.append(v)
    if (n := len(seen)) > 2:
        x = x + n
    return x, seen


def c_grammar14_grammar_dict_set_unpack_literals(x):
    a = {"p": 1}
    b = {"q": 2, "p": 3}
    merged = {**a, **b, "r": 4}
    s = {*"ab", *[1, 2], 3}
    t = (*range(2), *"xy")
    return x + len(merged) + len(s), merged, sorted(map(str, s)), t


def c_grammar14_grammar_keyword_only_star_call(x):
    def f(*args, **kwargs):
        return args, sorted(kwargs.items())

    pos = (x, 2)
    kw = {"k": 3}
    a, k = f(*pos, 1, *[4], **kw, z=5)
    return a[0] + a[1] + a[2], a[3], k


def c_grammar14_grammar_annotations_ignored(x):
    v: int = 3
    w: list[int]  # declared only
    y: torch.Tensor = x * v
    try:
        w  # noqa: B018
    except NameError:
        return y, "unbound"
    return y, "bound"


def c_grammar14_generator_stop_runtime_error(x):
    def gen():
        yield 1
        raise StopIteration

    out = []
    try:
        for v in gen():
            out.append(v)
    except RuntimeError as e:
        return x + len(out), type(e.__cause__).__name__, "StopIteration" in str(e)
    return x, None, None


def c_grammar14_generator_stop_inner_next(x):
    def gen(it):
        while True:
            yield next(it)

    try:
        vals = list(gen(iter([1, 2])))
    except RuntimeError as e:
        return x - 1, "runtime", isinstance(e.__cause__, StopIteration)
    return x + sum(vals), vals, None


# ---- setcomps, tuple, range, slice ---------------------------------------------------------------------------


def c_grammar14_setcomp_nested_and_scoping(x):
    i = "outer"
    s = {i * j for i in range(3) for j in range(3) if i != j}
    t = {(a, b) for a in "ab" for b in (a, a.upper())}
    return x + len(s), i, sorted(s), sorted(t)


def c_grammar14_setcomp_of_tensor_shapes(x):
    ts = [x, x.reshape(1, 3), x + 1, x.reshape(3, 1)]
    shapes = {tuple(t.shape) for t in ts}
    return sum(t.sum() for t in ts) + len(shapes), sorted(shapes)


def c_grammar14_tuple_hash_and_compare(x):
    a = (1, 2, (3, 4))
    b = tuple([1, 2, (3, 4)])
    checks = (a == b, hash(a) == hash(b), a < (1, 3), (1, 2) < (1, 2, 0), () < (0,), a[2:] == ((3, 4),))
    return x + sum(checks), checks


def c_grammar14_tuple_methods_and_repeat(x):
    t = (1, 2, 1, 3, 1)
    return x + t.count(1) + t.index(3), t * 2, 0 * t, t[::-2], t.index(1, 1)


def c_grammar14_tuple_index_missing(x):
    try:
        (1, 2).index(5)
    except ValueError as e:
        return x + 1, str(e)
    return x, None


def c_grammar14_range_contains_and_reversed(x):
    r = range(10, -5, -3)
    return x + len(r), 4 in r, 5 in r, list(reversed(r)), r.index(-2), r[-1], r[1:3]


def c_grammar14_range_large_and_empty(x):
    r = range(0, 10 ** 20, 10 ** 18)
    e = range(5, 1)
    return x + len(e), len(r), r[-1], bool(e), e == range(0), range(1, 1) == range(2, 2)


def c_grammar14_range_step_zero_error(x):
    try:
        range(1, 5, 0)
    except ValueError as e:
        return x + 1, str(e)
    return x, None


def c_grammar14_slice_indices_negative_step(x):
    s = slice(None, None, -2)
    t = slice(-100, 100, 3)
    return x[s.start:s.stop:1].sum(), s.indices(7), t.indices(5), slice(2).indices(1)


def c_grammar14_slice_hash_and_attrs(x):
    s = slice(1, 5, 2)
    return x[s.start:s.stop] * s.step, (s.start, s.stop, s.step), s == slice(1, 5, 2), repr(s)


def c_grammar14_slice_on_tensor_objects(x):
    s = slice(0, 2)
    lst = [x, x + 1, x + 2]
    return sum(lst[s]), x[s] + 1, operator.getitem(lst, slice(1, None))[0]


# ---- enum, int literals --------------------------------------------------------------------------------------


class _Shape(enum.IntEnum):
    SQUARE = 2
    CIRCLE = 3


class _Perm(enum.IntFlag):
    R = 4
    W = 2
    X = 1


def c_grammar14_enum_intenum_in_tensor_math(x):
    return x * _Shape.CIRCLE + _Shape.SQUARE, int(_Shape.CIRCLE), _Shape(2).name, _Shape["CIRCLE"].value


def c_grammar14_enum_intflag_combine(x):
    p = _Perm.R | _Perm.W
    return x + int(p), _Perm.W in p, _Perm.X in p, int(p & _Perm.R), bool(p & _Perm.X)


def c_grammar14_enum_iteration_and_len(x):
    names = [m.name for m in _Shape]
    return x + len(_Shape), names, list(_Shape.__members__)


def c_grammar14_enum_unique_missing_value(x):
    try:
        _Shape(7)
    except ValueError as e:
        return x + 1, str(e)
    return x, None


def c_grammar14_enum_compare_identity(x):
    a = _Shape.SQUARE
    return x + (a is _Shape.SQUARE), a == 2, a < _Shape.CIRCLE, isinstance(a, int), hash(a) == hash(2)


def c_grammar14_int_literal_forms(x):
    vals = (0x_ff, 0o17, 0b1010, 1_000_000, 0xFFFFFFFFFFFFFFFFF, 0o777777777777777777777, -0b1)
    return x + vals[0], vals


def c_grammar14_int_literal_negative_edges(x):
    vals = (-2147483648, -9223372036854775808, 9223372036854775807 + 1, 0x7FFFFFFF, -0x80000000)
    return x + len(vals), vals


# ---- except* -------------------------------------------------------------------------------------------------


def c_grammar14_except_star_reraise_unhandled(x):
    try:
        try:
            raise ExceptionGroup("g", [ValueError(1), TypeError(2), KeyError(3)])
        except* ValueError:
            x = x + 1
        except* TypeError:
            x = x + 10
    except ExceptionGroup as eg:
        return x, [type(e).__name__ for e in eg.exceptions]
    return x, None


def c_grammar14_except_star_raise_in_handler_chains(x):
    try:
        try:
            raise ExceptionGroup("g", [ValueError(1)])
        except* ValueError:
            raise KeyError("new") from None
    except* KeyError as eg:
        got = (len(eg.exceptions), type(eg.exceptions[0]).__name__)
    return x + got[0], got[1]


def c_grammar14_except_star_nested_groups_leaves(x):
    eg = ExceptionGroup("outer", [ValueError("a"), ExceptionGroup("inner", [ValueError("b"), OSError("c")])])
    vs = None
    try:
        raise eg
    except* ValueError as g:
        vs = g
    except* OSError:
        x = x * 2
    return x + 1, vs.message, len(vs.exceptions), repr(vs.exceptions[1].exceptions[0])


def c_grammar14_exception_group_split_subgroup_cond(x):
    eg = ExceptionGroup("m", [ValueError(1), ValueError(2), TypeError(3)])
    match_, rest = eg.split(lambda e: isinstance(e, ValueError) and e.args[0] > 1)
    sub = eg.subgroup(TypeError)
    return x + len(match_.exceptions) + len(rest.exceptions), len(sub.exceptions), eg.subgroup(KeyError)


CONSTRUCTS = [c_grammar14_grammar_chained_assign_and_aug, c_grammar14_grammar_star_assign_targets,
              c_grammar14_grammar_global_nonlocal, c_grammar14_grammar_lambda_forms,
              c_grammar14_grammar_conditional_lambda_nesting, c_grammar14_grammar_comparison_chains,
              c_grammar14_grammar_unary_power_precedence, c_grammar14_grammar_del_targets,
              c_grammar14_grammar_try_finally_break_in_loop, c_grammar14_grammar_while_else_continue,
              c_grammar14_grammar_walrus_in_while_and_if, c_grammar14_grammar_dict_set_unpack_literals,
              c_grammar14_grammar_keyword_only_star_call, c_grammar14_grammar_annotations_ignored,
              c_grammar14_generator_stop_runtime_error, c_grammar14_generator_stop_inner_next,
              c_grammar14_setcomp_nested_and_scoping, c_grammar14_setcomp_of_tensor_shapes,
              c_grammar14_tuple_hash_and_compare, c_grammar14_tuple_methods_and_repeat,
              c_grammar14_tuple_index_missing, c_grammar14_range_contains_and_reversed,
              c_grammar14_range_large_and_empty, c_grammar14_range_step_zero_error,
              c_grammar14_slice_indices_negative_step, c_grammar14_slice_hash_and_attrs,
              c_grammar14_slice_on_tensor_objects, c_grammar14_enum_intenum_in_tensor_math,
              c_grammar14_enum_intflag_combine, c_grammar14_enum_iteration_and_len,
              c_grammar14_enum_unique_missing_value, c_grammar14_enum_compare_identity,
              c_grammar14_int_literal_forms, c_grammar14_int_literal_negative_edges,
              c_grammar14_except_star_reraise_unhandled, c_grammar14_except_star_raise_in_handler_chains,
              c_grammar14_except_star_nested_groups_leaves, c_grammar14_exception_group_split_subgroup_cond]

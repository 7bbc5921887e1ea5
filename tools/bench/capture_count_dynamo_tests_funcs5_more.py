"""More of ``capture_count_dynamo_tests_funcs5.py``'s programs (test_functions.py): builtins on numbers and
strings, bytes, and the exceptions (type and message) Python's calls and builtins raise. Written afresh over one tensor.
"""

# ruff: noqa: UP031, RUF005 (the spellings ruff would rewrite are the constructs)
from __future__ import annotations

import math
import operator

import torch


# -- more builtins, numbers and strings ---------------------------------------------------------------------
def c_f5_format_fields_attribute_and_index(x):
    s = "{0.ndim}-{1[1]}-{k[a]}".format(x, [5, 6], k={"a": 7})
    t = format(x.shape[0], "b") + format(3.5, ".1e") + format(12, "#x") + format("ab", "*^6")
    return x + len(s) + len(t), s, t


def c_f5_int_methods(x):
    n = 300
    return x + n.bit_length() + (255).to_bytes(2, "big")[1] + int.from_bytes(b"\x01\x00", "little"), n.conjugate()


def c_f5_float_methods(x):
    v = 2.5
    return x + v.is_integer() + v.as_integer_ratio()[1] + (4.0).is_integer(), v.hex(), float.fromhex("0x1.8p1")


def c_f5_negative_floor_div_and_mod(x):
    vals = [(-7) // 2, (-7) % 2, 7 // -2, 7 % -2, -7.5 // 2, -7.5 % 2, math.floor(-2.5), math.trunc(-2.5)]
    return x + sum(vals), vals


def c_f5_round_half_even_and_ndigits(x):
    vals = [round(0.5), round(1.5), round(2.675, 2), round(-0.5), round(1234, -2), round(x.shape[0] / 3, 1)]
    return x + sum(vals), vals


def c_f5_big_int_and_float_comparisons(x):
    big = 10 ** 30
    flags = [big > 1e29, float("inf") > big, big == 10 ** 30, (2 ** 64) % 7, -big < -1e29]
    return x + sum(flags), flags


def c_f5_range_attributes_and_slices(x):
    r = range(2, 20, 3)
    s = r[::-2]
    return x + r.start + r.stop + r.step + len(s) + s[0], list(s), r.index(8), r.count(5), range(0, 6, 2) == range(0, 5, 2)


def c_f5_str_more_methods(x):
    s = "Hello\tWorld\nline two"
    parts = [s.expandtabs(4), s.casefold(), s.swapcase(), s.title(), "7".zfill(3), "a_b".isidentifier()]
    table = str.maketrans("lo", "01")
    return x + len(s.splitlines()), parts, s.translate(table), "x".join(reversed("abc"))


def c_f5_bytes_and_bytearray(x):
    b = b"abc"
    ba = bytearray(b)
    ba.append(100)
    return x + len(ba) + b[0] + ba[-1], b.hex(), bytes(ba), b.upper(), ba.decode()


def c_f5_operator_item_functions_on_lists(x):
    lst = [x, x * 2, x * 3]
    operator.setitem(lst, 0, x + 10)
    operator.delitem(lst, 1)
    got = operator.getitem(lst, slice(0, 2))
    return operator.neg(got[0]) + operator.matmul(x, x) + operator.truediv(got[1], 2), operator.not_(lst)


def c_f5_size_arithmetic_types(x):
    s = x.shape
    a = s + (1,)
    b = (1,) + s
    c = s[0:]
    d = s * 2
    return x + len(a) + len(b) + len(d), type(a).__name__, type(b).__name__, type(c).__name__, type(d).__name__


def c_f5_dtype_conversions_and_finfo(x):
    fi = torch.finfo(x.dtype)
    real = torch.complex64.to_real()
    cplx = torch.float64.to_complex()
    return x + fi.eps + fi.bits, real, cplx, torch.iinfo(torch.int16).max, fi.tiny > 0


def c_f5_device_constructor_forms(x):
    a = torch.device("cpu:0") if torch.cuda.is_available() else torch.device("cpu")
    b = torch.device(type="cpu")
    return x.to(b) * 2, str(a), repr(b), a.type == b.type, hash(b) == hash(torch.device("cpu"))


def c_f5_tensor_to_and_type_forms(x):
    a = x.to("cpu", torch.float64)
    b = x.type(torch.float16)
    c = x.to(dtype=torch.int32, copy=True)
    return a, b, c, x.type(), a.type(), x.to(x) is x


def c_f5_tensor_layout_queries(x):
    y = x.reshape(2, -1) if x.numel() % 2 == 0 else x.unsqueeze(0)
    t = y.t()
    return x + y.size(-1) + y.size(dim=0) + t.stride()[0] + t.storage_offset() + t.is_contiguous() + y.dim()


def c_f5_star_assignment_and_walrus(x):
    first, *middle, last = [1, 2, 3, 4, 5]
    vals = [y for v in range(6) if (y := v * v) % 2]
    *init, tail = x.shape
    return x + first + sum(middle) + last + sum(vals) + tail + len(init), middle, vals


def c_f5_nested_nonlocal_two_levels(x):
    count = 0

    def outer():
        def inner():
            nonlocal count
            count += 10

        inner()
        inner()
        return count

    return x + outer() + count


def c_f5_zero_arg_super_in_frame_class(x):
    class Base:
        def f(self, t):
            return t + 1

    class Child(Base):
        def f(self, t):
            return super().f(t) * 2

    return Child().f(x), Child.__mro__[1] is Base


def c_f5_dict_views_compare_and_setops(x):
    d = {"a": 1, "b": 2}
    flags = [d.keys() == {"a", "b"}, d.keys() & {"a", "z"} == {"a"}, list(d.values()) == [1, 2],
             ("a", 1) in d.items(), d.keys() - {"a"} == {"b"}]
    return x + sum(flags), flags


def c_f5_dunder_calls_on_builtins(x):
    return x + int.__add__(1, 2) + float.__mul__(2.0, 3.0) + (3).__neg__() + "ab".__len__() + [1, 2].__contains__(2)


def c_f5_object_setattr_and_getattribute(x):
    class P:
        pass

    p = P()
    object.__setattr__(p, "v", 3)
    return x + object.__getattribute__(p, "v") + p.__dict__["v"], type(p).__name__


def c_f5_sorted_items_by_itemgetter(x):
    d = {"b": 3, "a": 1, "c": 2}
    items = sorted(d.items(), key=operator.itemgetter(1), reverse=True)
    keys = dict(sorted(d.items()))
    return x + items[0][1], items, list(keys), max(d, key=d.get), min(d.items(), key=lambda kv: kv[1])


def c_f5_map_multiple_iterables_and_zip_star(x):
    m = list(map(operator.add, [1, 2, 3], [10, 20]))
    cols = list(zip(*[(1, 2, 3), (4, 5, 6)]))
    return x + sum(m) + sum(cols[2]), m, cols


def c_f5_exception_raise_from_and_args(x):
    try:
        try:
            raise KeyError("inner")
        except KeyError as e:
            raise ValueError("outer", 3) from e
    except ValueError as e:
        info = (e.args, type(e.__cause__).__name__, e.__suppress_context__, str(e.__cause__))
    return x + info[0][1], info


def c_f5_assert_message_caught(x):
    try:
        assert x.shape[0] > 100, f"too small: {x.shape[0]}"
        msg = "ok"
    except AssertionError as e:
        msg = str(e)
    return x + len(msg), msg


def c_f5_hash_of_values_consistent(x):
    hs = [hash((1, 2)) == hash((1, 2)), hash(x.shape) == hash(tuple(x.shape)), hash(3) == hash(3.0), hash("a") == hash("a")]
    return x + sum(hs), hs


def c_f5_kwargs_dict_mutation_isolated(x):
    def f(**kw):
        kw["extra"] = 1
        return len(kw)

    opts = {"a": 1}
    n = f(**opts)
    return x + n + len(opts), opts


def c_f5_args_tuple_identity_and_type(x):
    def f(*args):
        return type(args).__name__, len(args), args

    t = (x, 1)
    name, n, got = f(*t)
    return x + n, name, got[1], f() == ("tuple", 0, ())


# -- the exceptions (type and message) Python's calls and builtins raise ------------------------------------
def _f5_messages(thunks):
    out = []
    for thunk in thunks:
        try:
            thunk()
            out.append("no error")
        except Exception as e:  # the message is the construct
            out.append(f"{type(e).__name__}: {e}")
    return out


def c_f5_call_argument_error_messages(x):
    def f(a, b=1, *, k):
        return a + b + k

    def g(a, /, b):
        return a + b

    msgs = _f5_messages([
        lambda: f(1, 2, 3),
        lambda: f(1),
        lambda: f(1, k=2, z=3),
        lambda: f(1, a=2, k=3),
        lambda: g(a=1, b=2),
        lambda: g(),
    ])
    return x + len(msgs), msgs


def c_f5_builtin_error_messages(x):
    msgs = _f5_messages([
        lambda: int("z"),
        lambda: [][0],
        lambda: {}["k"],
        lambda: 1 / 0,
        lambda: 1.0 / 0,
        lambda: 5 // 0,
        lambda: 5 % 0,
        lambda: min([]),
        lambda: max((), key=abs),
        lambda: "abc".index("z"),
        lambda: [1].index(5),
        lambda: (1,).index(5),
        lambda: [].pop(),
        lambda: {}.popitem(),
        lambda: set().remove(1),
        lambda: set().pop(),
    ])
    return x + len(msgs), msgs


_F5_NOT_CALLABLE = 3


def c_f5_type_error_messages(x):
    msgs = _f5_messages([
        lambda: 1 + "a",
        lambda: "a" * 1.5,
        lambda: _F5_NOT_CALLABLE(),
        lambda: {[1]: 2},
        lambda: len(5),
        lambda: "%d" % "a",
        lambda: sum(["a", "b"]),
        lambda: sorted([1, "a"]),
        lambda: [1, 2] < [1, "x"],
        lambda: abs("x"),
        lambda: iter(5),
    ])
    return x + len(msgs), msgs


def c_f5_value_error_messages(x):
    msgs = _f5_messages([
        lambda: math.sqrt(-1),
        lambda: chr(-1),
        lambda: range(0, 1, 0),
        lambda: int("12", 40),
        lambda: float("x1"),
        lambda: "a,b".split(""),
        lambda: math.log(0),
        lambda: (1, 2).index(3),
        lambda: divmod(1, 0),
        lambda: pow(0, -1),
        lambda: list(zip([1], [2, 3], strict=True)),
    ])
    return x + len(msgs), msgs


def c_f5_unpack_error_messages(x):
    def two():
        a, b = [1, 2, 3]
        return a + b

    def three():
        a, b, c = (1, 2)
        return a + b + c

    def star():
        a, _b, *_c = [1]
        return a

    msgs = _f5_messages([two, three, star])
    return x + len(msgs), msgs


def c_f5_attribute_error_messages(x):
    class Box:
        __slots__ = ("v",)

    msgs = _f5_messages([
        lambda: x.nope,
        lambda: Box().v,
        lambda: Box().__dict__,
        lambda: (1).nope,
        lambda: math.nope,
        lambda: setattr(Box(), "w", 1),
        lambda: None.foo,
    ])
    return x + len(msgs), msgs


def c_f5_tensor_error_messages(x):
    msgs = _f5_messages([
        lambda: x.view(-1, -1),
        lambda: x + torch.ones(7, 5),
        lambda: x.reshape(x.numel() + 1),
        lambda: bool(x),
        lambda: x.sum(dim=5),
        lambda: torch.cat([]),
    ])
    return x + len(msgs), [m.split(":")[0] for m in msgs]



CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

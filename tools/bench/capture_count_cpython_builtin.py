"""Programs after CPython's test_builtin as PyTorch's Dynamo suite runs it (``test/dynamo/cpython/3_13/``), for
``capture_count.py``: the builtin functions (``abs``, ``all``/``any``, ``bin``/``hex``/``oct``, ``callable``,
``chr``/``ord``, ``divmod``, ``enumerate``, ``filter``/``map``/``zip``, ``format``, ``getattr`` and friends,
``hash``, ``isinstance``/``issubclass``, ``iter`` with a sentinel, ``max``/``min``, ``next``, ``pow``, ``repr``,
``reversed``, ``round``, ``sorted``, ``sum``, ``vars``) and the int/float constructors and methods. Each mixes the
construct with tensor work so that the frame is compiled. test_types, test_sys, test_numeric_tower,
test_int_literal and test_cmath are in ``capture_count_cpython_builtin_more.py``.
"""

from __future__ import annotations

# ---- test_builtin: numbers ------------------------------------------------------------------------------------

def c_cb_abs_int_float_bool(x):
    y = x + 1
    return y * (abs(-3) + abs(-2.5) + abs(True) + abs(0))


def c_cb_all_any_iterables(x):
    y = x * 2
    flags = [all([]), any([]), all([1, 2, 3]), any([0, 0, 1]), all(v > 0 for v in (1, 2, -1)), any(iter([0, "", 3]))]
    return y + sum(flags)


def c_cb_bin_hex_oct(x):
    y = x + 1
    text = bin(10) + hex(255) + oct(8) + bin(-3) + hex(-16)
    return y * len(text)


def c_cb_divmod_int_float(x):
    y = x - 1
    q, r = divmod(17, 5)
    nq, nr = divmod(-7, 2)
    fq, fr = divmod(7.5, 2)
    return y * q + r + nq + nr + fq + fr


def c_cb_pow_three_args(x):
    y = x + 2
    return y + pow(3, 4, 7) + pow(2, -1) + pow(2, 10) % 13 + pow(-2, 3)


def c_cb_pow_modular_inverse(x):
    y = x * 3
    return y + pow(38, -1, 97)


def c_cb_round_ndigits(x):
    y = x + 1
    vals = [round(2.5), round(3.5), round(-0.5), round(1.2345, 2), round(1234, -2), round(7.5)]
    return y + sum(vals)


def c_cb_int_from_string_base(x):
    y = x + 1
    vals = [int("ff", 16), int("0x1f", 0), int("  42  "), int("-101", 2), int("z", 36), int("1_000")]
    return y + sum(vals)


def c_cb_int_from_bad_string_valueerror(x):
    y = x + 1
    try:
        n = int("12a")
    except ValueError:
        n = -1
    return y * n


def c_cb_float_from_strings(x):
    y = x + 1
    vals = [float("1.5"), float(" -2e3 "), float("1_0.5"), float(3)]
    return y + sum(vals) + (float("inf") > 1e308) + (float("nan") != float("nan"))


def c_cb_int_bit_length_and_count(x):
    y = x + 1
    return y + (255).bit_length() + (-8).bit_length() + (0).bit_length() + (13).bit_count()


def c_cb_int_to_from_bytes(x):
    y = x * 2
    b = (1024).to_bytes(2, "big")
    n = int.from_bytes(b, "little")
    return y + n + len(b) + int.from_bytes(b"\xff", "big", signed=True)


def c_cb_float_is_integer_ratio(x):
    y = x + 1
    n, d = (0.75).as_integer_ratio()
    return y * n / d + (2.0).is_integer() + (2.5).is_integer()


def c_cb_int_float_truediv_floordiv(x):
    y = x + 1
    return y + 7 // 2 + -7 // 2 + 7 % -3 + 7 / 2 + 7.0 // 2


def c_cb_bool_arith(x):
    y = x + 1
    return y * (True + True) + (False * 5) + int(True) + (True & 1) + (True | False)


def c_cb_complex_builtin(x):
    y = x + 1
    c = complex(1, 2) * complex(3, -1)
    d = complex("1+2j")
    return y * c.real + c.imag + abs(complex(3, 4)) + d.imag


# ---- test_builtin: characters and text ------------------------------------------------------------------------

def c_cb_chr_ord_roundtrip(x):
    y = x + 1
    s = "".join(chr(ord(c) + 1) for c in "abc")
    return y * ord(s[0]) + ord("\u20ac") + len(chr(0x1F600))


def c_cb_ascii_and_repr(x):
    y = x + 1
    text = ascii("é") + repr("a'b") + repr([1, "x"]) + ascii([1, "ü"])
    return y * len(text)


def c_cb_format_spec(x):
    y = x + 1
    text = format(3.14159, ".2f") + format(255, "x") + format(42, ">6") + format(1234567, ",") + format(0.5, "%")
    return y * len(text)


def c_cb_format_dunder(x):
    class Temp:
        def __format__(self, spec):
            return "T" + spec

    y = x + 1
    return y * len(format(Temp(), "abc")) + len(f"{Temp():xy}")


def c_cb_repr_dunder_called(x):
    class R:
        def __repr__(self):
            return "R()"

    y = x + 1
    return y * len(repr(R())) + len(str(R())) + len(repr([R(), R()]))


# ---- test_builtin: callables and attributes -------------------------------------------------------------------

def c_cb_callable_kinds(x):
    class C:
        def meth(self):
            return 1

    class D:
        def __call__(self):
            return 2

    y = x + 1
    flags = [callable(len), callable(C), callable(C().meth), callable(D()), callable(C()), callable(1), callable(x)]
    return y + sum(flags)


def c_cb_getattr_setattr_hasattr_delattr(x):
    class A:
        pass

    a = A()
    y = x + 1
    setattr(a, "val", 3)  # noqa: B010 - the builtin is the construct
    before = hasattr(a, "val")
    v = getattr(a, "val")  # noqa: B009
    delattr(a, "val")
    after = hasattr(a, "val")
    return y * v + before + after + getattr(a, "missing", 10)


def c_cb_getattr_missing_raises(x):
    y = x + 1
    try:
        getattr(object(), "nope")  # noqa: B009
        r = 0
    except AttributeError:
        r = 1
    return y + r


def c_cb_vars_of_instance(x):
    class P:
        def __init__(self):
            self.a = 1
            self.b = 2

    y = x + 1
    d = vars(P())
    return y * len(d) + d["a"] + sum(d.values())


def c_cb_isinstance_tuple_and_union(x):
    y = x + 1
    flags = [isinstance(1, (str, int)), isinstance("s", int | str), isinstance(True, int), isinstance(1.0, int),
             isinstance(x, (int, type(x))), isinstance([], (list, (tuple, dict)))]
    return y + sum(flags)


def c_cb_issubclass_tuple(x):
    class Base:
        pass

    class Derived(Base):
        pass

    y = x + 1
    flags = [issubclass(Derived, Base), issubclass(Base, Derived), issubclass(bool, int),
             issubclass(Derived, (int, Base)), issubclass(int, object)]
    return y + sum(flags)


def c_cb_issubclass_non_class_typeerror(x):
    y = x + 1
    try:
        issubclass(1, int)
        r = 0
    except TypeError:
        r = 1
    return y * r


def c_cb_hash_equal_numbers(x):
    y = x + 1
    same = hash(1) == hash(1.0) == hash(True)
    return y + same + (hash((1, 2)) == hash((1, 2))) + (hash("a") == hash("a"))


def c_cb_hash_unhashable_typeerror(x):
    y = x + 1
    try:
        hash([1, 2])
        r = 0
    except TypeError:
        r = 1
    return y * r


# ---- test_builtin: iteration ------------------------------------------------------------------------------------

def c_cb_enumerate_start(x):
    y = x + 1
    total = 0
    for i, v in enumerate([10, 20, 30], start=5):
        total += i * v
    return y + total


def c_cb_filter_none_and_func(x):
    y = x + 1
    a = list(filter(None, [0, 1, "", 2, None, 3]))
    b = list(filter(lambda v: v % 2, range(7)))
    return y + sum(a) + sum(b)


def c_cb_map_multiple_iterables(x):
    y = x + 1
    m = list(map(lambda a, b: a * b, [1, 2, 3], [4, 5]))
    return y + sum(m) + sum(map(abs, [-1, -2]))


def c_cb_zip_strict_mismatch(x):
    y = x + 1
    pairs = list(zip([1, 2], "ab", strict=True))
    try:
        list(zip([1, 2, 3], [1], strict=True))
        r = 0
    except ValueError:
        r = 1
    return y * len(pairs) + r


def c_cb_iter_callable_sentinel(x):
    y = x + 1
    data = [3, 2, 1, 0, 9]
    it = iter(data)
    got = list(iter(lambda: next(it), 0))
    return y + sum(got) + len(got)


def c_cb_next_default_exhausted(x):
    y = x + 1
    it = iter([5])
    a = next(it)
    b = next(it, -1)
    return y * a + b


def c_cb_max_min_key_default(x):
    y = x + 1
    words = ["aa", "b", "cccc"]
    vals = [len(max(words, key=len)), len(min(words, key=len)), max([], default=7), min(3, 1, 2), max((1, 5), (1, 6))[1]]
    return y + sum(vals)


def c_cb_max_empty_valueerror(x):
    y = x + 1
    try:
        max([])
        r = 0
    except ValueError:
        r = 1
    return y * r


def c_cb_sorted_key_reverse(x):
    y = x + 1
    s = sorted([3, -1, 2, -5], key=abs, reverse=True)
    return y * s[0] + s[-1] + len(sorted("bca"))


def c_cb_reversed_sequence_protocol(x):
    class Seq:
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return (i + 1) * 10

    y = x + 1
    return y + sum(reversed(Seq())) + list(reversed(range(4)))[0] + list(reversed([1, 2]))[0]  # noqa: RUF015


def c_cb_sum_start_and_floats(x):
    y = x + 1
    return y + sum([1, 2, 3], 10) + sum([0.1] * 10) + sum([[1], [2]], [])[1] + sum(range(5), start=1)  # noqa: RUF017


def c_cb_sum_tensors_builtin(x):
    y = x + 1
    return sum([y, y * 2, x], x) + 1


def c_cb_len_dunder_and_overflow(x):
    class L:
        def __len__(self):
            return 4

    class Neg:
        def __len__(self):
            return -1

    y = x + 1
    try:
        len(Neg())
        r = 0
    except ValueError:
        r = 1
    return y * len(L()) + r


def c_cb_range_attributes(x):
    y = x + 1
    r = range(2, 20, 3)
    return y + r.start + r.stop + r.step + len(r) + r[2] + r.index(8) + (11 in r) + r.count(5)


def c_cb_slice_object_indices(x):
    y = x * 1
    s = slice(1, None, 2)
    start, stop, step = s.indices(7)
    return y[s].sum() + start + stop + step + (s.stop is None)


def c_cb_bytes_bytearray_builtin(x):
    y = x + 1
    b = bytes([65, 66]) + bytearray(b"C")
    ba = bytearray(3)
    ba[0] = 7
    return y * len(b) + b[0] + ba[0] + sum(ba)


def c_cb_dict_builtin_forms(x):
    y = x + 1
    d = dict([("a", 1)], b=2)
    e = dict(zip("xy", (3, 4)))
    f = dict.fromkeys("pq", 5)
    return y + sum(d.values()) + sum(e.values()) + sum(f.values())


def c_cb_set_frozenset_builtin(x):
    y = x + 1
    s = set([1, 2, 2, 3]) | frozenset({4})
    return y * len(s) + (frozenset([1, 2]) == {1, 2}) + max(s)


CONSTRUCTS = [c_cb_abs_int_float_bool, c_cb_all_any_iterables, c_cb_bin_hex_oct, c_cb_divmod_int_float,
              c_cb_pow_three_args, c_cb_pow_modular_inverse, c_cb_round_ndigits, c_cb_int_from_string_base,
              c_cb_int_from_bad_string_valueerror, c_cb_float_from_strings, c_cb_int_bit_length_and_count,
              c_cb_int_to_from_bytes, c_cb_float_is_integer_ratio, c_cb_int_float_truediv_floordiv,
              c_cb_bool_arith, c_cb_complex_builtin, c_cb_chr_ord_roundtrip, c_cb_ascii_and_repr,
              c_cb_format_spec, c_cb_format_dunder, c_cb_repr_dunder_called, c_cb_callable_kinds,
              c_cb_getattr_setattr_hasattr_delattr, c_cb_getattr_missing_raises, c_cb_vars_of_instance,
              c_cb_isinstance_tuple_and_union, c_cb_issubclass_tuple, c_cb_issubclass_non_class_typeerror,
              c_cb_hash_equal_numbers, c_cb_hash_unhashable_typeerror, c_cb_enumerate_start,
              c_cb_filter_none_and_func, c_cb_map_multiple_iterables, c_cb_zip_strict_mismatch,
              c_cb_iter_callable_sentinel, c_cb_next_default_exhausted, c_cb_max_min_key_default,
              c_cb_max_empty_valueerror, c_cb_sorted_key_reverse, c_cb_reversed_sequence_protocol,
              c_cb_sum_start_and_floats, c_cb_sum_tensors_builtin, c_cb_len_dunder_and_overflow,
              c_cb_range_attributes, c_cb_slice_object_indices, c_cb_bytes_bytearray_builtin,
              c_cb_dict_builtin_forms, c_cb_set_frozenset_builtin]

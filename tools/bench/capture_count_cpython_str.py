"""Programs after CPython's string_tests and test_string as PyTorch's Dynamo suite runs them
(``test/dynamo/cpython/3_13/``), for ``capture_count.py``: the str methods (searching, counting, splitting,
stripping, padding, case mapping, predicates, ``translate``/``maketrans``, ``replace``, ``join``), slicing and
iteration, ``%``-formatting, ``str.format``/``format_map``, f-strings with conversions and format specs, and the
errors these raise. Each mixes the construct with tensor work so that the frame is compiled.
``string.Template``/``Formatter``, str subclasses, ``UserString`` and the ``traceback`` module are in
``capture_count_cpython_str_more.py``.
"""

from __future__ import annotations

# ruff: noqa: B018, F507, F522, F524, UP012, UP030, UP031, UP032 (the spellings ruff would rewrite are the constructs)

# ---- string_tests: searching and counting -------------------------------------------------------------------


def c_cs_find_rfind_bounds(x):
    y = x + 1
    s = "abcdefghiabc"
    return y * (s.find("abc") + s.find("abc", 1) + s.rfind("abc") + s.find("xyz") + s.rfind("c", 0, 5))


def c_cs_find_negative_bounds(x):
    y = x * 2
    s = "hello world"
    return y + s.find("o", -5) + s.rfind("l", -100, -2) + s.find("", 20) + s.find("", 11)


def c_cs_index_valueerror(x):
    y = x - 1
    try:
        "abc".index("z")
        caught = 0
    except ValueError as e:
        caught = len(str(e))
    return y + caught + "abcabc".rindex("b")


def c_cs_count_overlapping(x):
    y = x + 2
    s = "aaaa"
    return y * (s.count("aa") + s.count("a", 1) + s.count("") + "abcabc".count("bc", 0, 4))


def c_cs_startswith_tuple(x):
    y = x + 1
    s = "helloworld"
    a = s.startswith(("he", "xx"))
    b = s.endswith(("ld", "zz"), 0, 10)
    c = s.startswith("world", 5)
    d = s.endswith("hello", 0, 5)
    return y + a + b + c + d


def c_cs_contains_operator(x):
    y = x * 3
    s = "the quick brown fox"
    found = sum(w in s for w in ("quick", "slow", "fox", ""))
    return y + found + ("q" not in s)


# ---- string_tests: splitting and joining ---------------------------------------------------------------------


def c_cs_split_maxsplit(x):
    y = x + 1
    parts = "a,b,,c,d".split(",", 2)
    words = "  one two   three ".split()
    return y + len(parts) + len(words) + len(parts[2])


def c_cs_rsplit_whitespace(x):
    y = x * 2
    parts = " a b  c ".rsplit(None, 1)
    other = "a|b|c".rsplit("|", 1)
    return y + len(parts) + len(parts[0]) + len(other[0])


def c_cs_split_empty_separator_error(x):
    y = x + 1
    try:
        "abc".split("")
        caught = 0
    except ValueError:
        caught = 7
    return y + caught


def c_cs_splitlines_keepends(x):
    y = x - 2
    text = "one\ntwo\r\nthree\rfour"
    a = text.splitlines()
    b = text.splitlines(keepends=True)
    return y + len(a) + sum(len(p) for p in b)


def c_cs_partition_rpartition(x):
    y = x + 3
    head, sep, tail = "key=value=more".partition("=")
    rhead, rsep, rtail = "key=value=more".rpartition("=")
    miss = "novalue".partition("=")
    return y + len(head) + len(tail) + len(rhead) + len(rtail) + len(miss[0]) + len(sep + rsep)


def c_cs_join_generator(x):
    y = x + 1
    joined = "-".join(str(i) for i in range(5))
    return y * len(joined), joined


def c_cs_join_non_string_typeerror(x):
    y = x * 2
    try:
        ",".join(["a", 1])
        msg = ""
    except TypeError as e:
        msg = str(e)
    return y + len(msg)


# ---- string_tests: stripping, padding, case ------------------------------------------------------------------


def c_cs_strip_chars(x):
    y = x + 1
    s = "xxhixyx"
    return y + len(s.strip("x")) + len(s.lstrip("x")) + len(s.rstrip("xy")) + len("  pad  ".strip())


def c_cs_removeprefix_suffix(x):
    y = x * 2
    a = "prefix_body".removeprefix("prefix_")
    b = "body.py".removesuffix(".py")
    c = "abc".removeprefix("zz")
    return y + len(a) + len(b) + len(c), a + b


def c_cs_center_ljust_rjust(x):
    y = x + 1
    a = "abc".center(8, "*")
    b = "abc".ljust(6, "-")
    c = "abc".rjust(2)
    return y + len(a) + len(b) + len(c), a + b + c


def c_cs_zfill_signs(x):
    y = x - 1
    vals = ["-42".zfill(6), "+7".zfill(4), "abc".zfill(2), "3".zfill(3)]
    return y + sum(len(v) for v in vals), vals


def c_cs_expandtabs(x):
    y = x + 2
    s = "a\tbc\td"
    return y + len(s.expandtabs()) + len(s.expandtabs(4)) + len(s.expandtabs(0))


def c_cs_case_mapping(x):
    y = x + 1
    s = "hello WORLD ßtraße"
    out = [s.upper(), s.lower(), s.swapcase(), s.title(), s.capitalize(), s.casefold()]
    return y + sum(len(o) for o in out), out


def c_cs_predicates(x):
    y = x * 2
    checks = ["123".isdigit(), "abc".isalpha(), "ab1".isalnum(), " \t".isspace(), "Title Case".istitle(),
              "UP".isupper(), "low".islower(), "x_1".isidentifier(), "½".isnumeric(), "\u0661".isdecimal(),
              "".isalpha(), "abc\n".isprintable(), "abc".isascii()]
    return y + sum(checks)


# ---- string_tests: replace and translate ---------------------------------------------------------------------


def c_cs_replace_count(x):
    y = x + 1
    s = "one one one"
    a = s.replace("one", "two", 2)
    b = s.replace("", "-")
    c = s.replace("zz", "yy")
    return y + len(a) + len(b) + len(c), a


def c_cs_translate_maketrans(x):
    y = x * 2
    table = str.maketrans("abc", "xyz", "d")
    out = "abcdabcd".translate(table)
    return y + len(out), out


def c_cs_maketrans_dict(x):
    y = x + 3
    table = str.maketrans({"a": "AA", "b": None, ord("c"): 100})
    out = "abcabc".translate(table)
    return y + len(out), out


def c_cs_translate_mapping_lookup_error(x):
    y = x - 1

    class Table:
        def __getitem__(self, k):
            if k == ord("a"):
                return "A"
            raise LookupError(k)

    out = "abca".translate(Table())
    return y + len(out), out


# ---- string_tests: slicing, iteration, operators -------------------------------------------------------------


def c_cs_slicing_steps(x):
    y = x + 1
    s = "abcdefghij"
    parts = [s[::2], s[::-1], s[1:8:3], s[-3:], s[100:], s[-100:2]]
    return y * len("".join(parts)), parts


def c_cs_index_out_of_range(x):
    y = x + 1
    try:
        "abc"[5]
        caught = 0
    except IndexError:
        caught = 1
    return y + caught + ord("abc"[-1])


def c_cs_iterate_chars_ord(x):
    y = x * 2
    total = 0
    for ch in "tensor":
        total += ord(ch)
    return y + total + len([c for c in "a1b2" if c.isdigit()])


def c_cs_repeat_and_concat(x):
    y = x + 1
    s = "ab" * 3 + "c" + 2 * "d"
    e = "x" * -1
    return y + len(s) + len(e), s


def c_cs_compare_ordering(x):
    y = x - 3
    words = sorted(["pear", "Apple", "banana", "apple"])
    return y + ("abc" < "abd") + ("a" * 3 >= "aaa") + ("B" < "a"), words


def c_cs_chr_ord_roundtrip(x):
    y = x + 1
    codes = [ord(c) for c in "Hi!"]
    back = "".join(chr(c + 1) for c in codes)
    return y + sum(codes), back


def c_cs_encode_decode(x):
    y = x * 2
    b = "héllo".encode("utf-8")
    s = b.decode("utf-8")
    a = "héllo".encode("ascii", "replace")
    return y + len(b) + len(s) + len(a), a


def c_cs_encode_error(x):
    y = x + 1
    try:
        "é".encode("ascii")
        caught = 0
    except UnicodeEncodeError as e:
        caught = e.start + e.end
    return y + caught


def c_cs_str_of_numbers(x):
    y = x + 1
    s = str(12) + str(3.5) + str(True) + str(None) + repr("q") + str(-0.0)
    return y + len(s), s


def c_cs_repr_escapes(x):
    y = x * 2
    r = repr("a'b\"c\n\t\\") + repr("it's") + ascii("é")
    return y + len(r), r


def c_cs_int_parse_bases(x):
    y = x + 1
    vals = [int("ff", 16), int("0b101", 0), int(" 42 "), int("-7"), int("1_000")]
    return y + sum(vals)


def c_cs_int_parse_error(x):
    y = x * 3
    try:
        int("12a")
        caught = 0
    except ValueError as e:
        caught = len(e.args[0])
    return y + caught


def c_cs_float_parse(x):
    y = x + 1
    return y * float("1.5") + float(" -2e1 ") + float("inf") * 0 + len(str(float("1e16")))


# ---- formatting: % ------------------------------------------------------------------------------------------


def c_cs_percent_format_basic(x):
    y = x + 1
    s = "%s-%d-%05.2f-%x-%o-%e" % ("a", 42, 3.14159, 255, 8, 12345.678)
    return y + len(s), s


def c_cs_percent_format_dict(x):
    y = x * 2
    s = "%(name)s is %(age)3d" % {"name": "Ann", "age": 7}
    return y + len(s), s


def c_cs_percent_star_width(x):
    y = x + 1
    s = "[%*d|%-*s|%.*f]" % (5, 42, 4, "ab", 2, 1.23456)
    return y + len(s), s


def c_cs_percent_repr_and_percent(x):
    y = x - 1
    s = "%r %a %% %c %c" % ("x", "é", 65, "z")
    return y + len(s), s


def c_cs_percent_wrong_arg_count(x):
    y = x + 1
    try:
        "%s %s" % ("only",)
        caught = 0
    except TypeError:
        caught = 1
    try:
        "%d" % "str"
    except TypeError:
        caught += 2
    return y + caught


def c_cs_percent_tensor_item(x):
    y = x.sum()
    s = "total=%.3f" % y.item()
    return x + len(s), s


# ---- formatting: str.format and format() ---------------------------------------------------------------------


def c_cs_format_positional_keyword(x):
    y = x + 1
    s = "{0}{1}{0}-{name}".format("a", "b", name="n")
    t = "{}|{}".format(1, 2)
    return y + len(s) + len(t), s + t


def c_cs_format_spec_mini_language(x):
    y = x * 2
    parts = [format(3.14159, ".2f"), format(42, "08b"), format(255, "#x"), format(1234567, ","),
             format(0.25, ".1%"), format("ab", "^6"), format(-3, "+d"), format(12, "_>5"), format(1e6, "g")]
    return y + sum(len(p) for p in parts), parts


def c_cs_format_attribute_index(x):
    y = x + 1

    class P:
        coords = (3, 4)
        name = "pt"

    s = "{0.name}:{0.coords[1]}:{1[k]}".format(P(), {"k": "v"})
    return y + len(s), s


def c_cs_format_nested_spec(x):
    y = x - 1
    s = "{:{fill}{align}{width}}".format("x", fill="*", align=">", width=5)
    return y + len(s), s


def c_cs_format_conversions(x):
    y = x + 1
    s = "{!r} {!s} {!a}".format("q", 5, "é")
    return y + len(s), s


def c_cs_format_braces_escape(x):
    y = x * 2
    s = "{{literal}} {}".format(1)
    return y + len(s), s


def c_cs_format_missing_key_error(x):
    y = x + 1
    try:
        "{missing}".format(other=1)
        caught = ""
    except KeyError as e:
        caught = e.args[0]
    try:
        "{0} {1}".format("a")
    except IndexError:
        caught += "!"
    return y + len(caught), caught


def c_cs_format_map_dict_subclass(x):
    y = x + 1

    class Default(dict):
        def __missing__(self, key):
            return "<" + key + ">"

    s = "{a} {b}".format_map(Default(a="A"))
    return y + len(s), s


def c_cs_format_dunder_custom(x):
    y = x * 3

    class Money:
        def __init__(self, v):
            self.v = v

        def __format__(self, spec):
            return "$" + format(self.v, spec or ".2f")

    s = "{} {:.0f}".format(Money(2.5), Money(3.7)) + format(Money(1))
    return y + len(s), s


def c_cs_format_invalid_spec(x):
    y = x + 1
    try:
        format(3, "q")
        caught = 0
    except ValueError:
        caught = 5
    return y + caught


# ---- formatting: f-strings ----------------------------------------------------------------------------------


def c_cs_fstring_expressions(x):
    y = x + 1
    n, name = 7, "loom"
    s = f"{name!r}:{n * 2:>5}|{n:#06x}|{name.upper()}|{n / 3:.3f}"
    return y + len(s), s


def c_cs_fstring_tensor_shape(x):
    y = x * 2
    s = f"shape={tuple(y.shape)} dtype={y.dtype} n={y.numel()}"
    return y + len(s), s


def c_cs_fstring_self_documenting(x):
    y = x + 1
    width = 3
    s = f"{width=} {width + 1 = }"
    return y + len(s), s


def c_cs_fstring_nested_format(x):
    y = x - 1
    prec, val = 2, 3.14159
    s = f"{val:.{prec}f}|{val:{prec + 6}.{prec}}"
    return y + len(s), s


def c_cs_fstring_tensor_item_value(x):
    y = x.mean()
    s = f"{y.item():.2f}"
    return x * float(s), s


CONSTRUCTS = [c_cs_find_rfind_bounds, c_cs_find_negative_bounds, c_cs_index_valueerror, c_cs_count_overlapping,
              c_cs_startswith_tuple, c_cs_contains_operator, c_cs_split_maxsplit, c_cs_rsplit_whitespace,
              c_cs_split_empty_separator_error, c_cs_splitlines_keepends, c_cs_partition_rpartition,
              c_cs_join_generator, c_cs_join_non_string_typeerror, c_cs_strip_chars, c_cs_removeprefix_suffix,
              c_cs_center_ljust_rjust, c_cs_zfill_signs, c_cs_expandtabs, c_cs_case_mapping, c_cs_predicates,
              c_cs_replace_count, c_cs_translate_maketrans, c_cs_maketrans_dict, c_cs_translate_mapping_lookup_error,
              c_cs_slicing_steps, c_cs_index_out_of_range, c_cs_iterate_chars_ord, c_cs_repeat_and_concat,
              c_cs_compare_ordering, c_cs_chr_ord_roundtrip, c_cs_encode_decode, c_cs_encode_error,
              c_cs_str_of_numbers, c_cs_repr_escapes, c_cs_int_parse_bases, c_cs_int_parse_error, c_cs_float_parse,
              c_cs_percent_format_basic, c_cs_percent_format_dict, c_cs_percent_star_width,
              c_cs_percent_repr_and_percent, c_cs_percent_wrong_arg_count, c_cs_percent_tensor_item,
              c_cs_format_positional_keyword, c_cs_format_spec_mini_language, c_cs_format_attribute_index,
              c_cs_format_nested_spec, c_cs_format_conversions, c_cs_format_braces_escape,
              c_cs_format_missing_key_error, c_cs_format_map_dict_subclass, c_cs_format_dunder_custom,
              c_cs_format_invalid_spec, c_cs_fstring_expressions, c_cs_fstring_tensor_shape,
              c_cs_fstring_self_documenting, c_cs_fstring_nested_format, c_cs_fstring_tensor_item_value]

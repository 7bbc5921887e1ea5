"""Programs after CPython's test_string, test_userstring and test_traceback as PyTorch's Dynamo suite runs them
(``test/dynamo/cpython/3_13/``), for ``capture_count.py``: ``string.Template`` (``substitute``,
``safe_substitute``, custom delimiters and patterns), ``string.Formatter`` and its overridable hooks,
``string.capwords`` and the module's constants, str subclasses (overridden methods, ``__new__``, dunders that
return the base type), ``collections.UserString``, and the ``traceback`` module as traced code meets it
(``format_exc``, ``format_exception_only``, ``extract_stack``, ``TracebackException``, ``FrameSummary``).
Each mixes the construct with tensor work so that the frame is compiled.
"""

from __future__ import annotations

import string
import traceback
from collections import UserString

# ruff: noqa: B018, UP031 (the spellings ruff would rewrite are the constructs)

# ---- test_string: string module ------------------------------------------------------------------------------


def c_cs_capwords(x):
    y = x + 1
    a = string.capwords("abc def  ghi")
    b = string.capwords("a-b-c", "-")
    return y + len(a) + len(b), a + b


def c_cs_string_constants(x):
    y = x * 2
    n = len(string.ascii_letters) + len(string.digits) + len(string.punctuation) + len(string.hexdigits)
    return y + n + ("z" in string.ascii_lowercase)


def c_cs_template_substitute(x):
    y = x + 1
    t = string.Template("$who likes ${what}s, $$5")
    s = t.substitute(who="tim", what="ham")
    return y + len(s), s


def c_cs_template_mapping_and_kwargs(x):
    y = x - 1
    t = string.Template("$a-$b")
    s = t.substitute({"a": 1, "b": 2}, b=3)
    return y + len(s), s


def c_cs_template_safe_substitute(x):
    y = x * 2
    t = string.Template("$known and $unknown and ${braced}")
    s = t.safe_substitute(known="k")
    return y + len(s), s


def c_cs_template_missing_keyerror(x):
    y = x + 1
    try:
        string.Template("$missing").substitute()
        caught = ""
    except KeyError as e:
        caught = e.args[0]
    return y + len(caught), caught


def c_cs_template_invalid_placeholder(x):
    y = x + 2
    try:
        string.Template("$").substitute()
        caught = 0
    except ValueError:
        caught = 3
    return y + caught


class _PercentTemplate(string.Template):
    delimiter = "%"


def c_cs_template_custom_delimiter(x):
    y = x + 1
    s = _PercentTemplate("%who owes %%%amount").substitute(who="bob", amount=5)
    return y + len(s), s


def c_cs_template_identifiers(x):
    y = x * 3
    t = string.Template("$a ${b} $$c $d")
    return y + len(t.get_identifiers()) + t.is_valid(), t.get_identifiers()


def c_cs_formatter_format(x):
    y = x + 1
    f = string.Formatter()
    s = f.format("{0}:{name:>4}", "z", name="ab")
    return y + len(s), s


class _UpperFormatter(string.Formatter):
    def format_field(self, value, format_spec):
        return super().format_field(value, format_spec).upper()


def c_cs_formatter_override_field(x):
    y = x - 1
    s = _UpperFormatter().format("{} and {:x}", "low", 255)
    return y + len(s), s


class _DefaultFormatter(string.Formatter):
    def get_value(self, key, args, kwargs):
        if isinstance(key, str):
            return kwargs.get(key, "?")
        return super().get_value(key, args, kwargs)


def c_cs_formatter_get_value(x):
    y = x + 1
    s = _DefaultFormatter().format("{a}{b}{0}", "p", a="A")
    return y + len(s), s


def c_cs_formatter_parse(x):
    y = x * 2
    parts = list(string.Formatter().parse("a{0!r:>3}b{x}"))
    return y + len(parts), parts


# ---- str subclasses and UserString ---------------------------------------------------------------------------


class _Tagged(str):
    def shout(self):
        return self.upper() + "!"


def c_cs_str_subclass_method(x):
    y = x + 1
    s = _Tagged("hey")
    out = s.shout()
    return y + len(out) + isinstance(s, str) + (type(s + "x") is str), out


class _Folded(str):
    def __new__(cls, value):
        return super().__new__(cls, value.lower())

    def __eq__(self, other):
        return str.__eq__(self, other.lower())

    __hash__ = str.__hash__


def c_cs_str_subclass_new_eq(x):
    y = x * 2
    s = _Folded("MiXeD")
    return y + (s == "MIXED") + len(s) + (s.upper() == "MIXED"), str(s)


class _Reversing(str):
    def __str__(self):
        return self[::-1]

    def __len__(self):
        return 100


def c_cs_str_subclass_dunders(x):
    y = x + 1
    s = _Reversing("abc")
    return y + len(s) + len(str(s)), str(s) + format(s) + "%s" % s


def c_cs_userstring_methods(x):
    y = x + 1
    u = UserString("Hello")
    v = u.upper() + "!"
    return y + len(v) + ("ell" in u) + (u == "Hello"), v.data


def c_cs_userstring_subclass(x):
    y = x - 1

    class Mutable(UserString):
        def append(self, more):
            self.data += more

    m = Mutable("ab")
    m.append("cd")
    return y + len(m) + m.count("c"), str(m[1:3])


# ---- test_traceback -----------------------------------------------------------------------------------------


def c_cs_traceback_format_exc(x):
    y = x + 1
    try:
        raise ValueError("boom")
    except ValueError:
        text = traceback.format_exc()
    return y + text.endswith("ValueError: boom\n")


def c_cs_traceback_format_exception_only(x):
    y = x * 2
    lines = traceback.format_exception_only(KeyError, KeyError("k"))
    return y + len(lines), lines


def c_cs_traceback_exception_object(x):
    y = x + 1
    try:
        {}["missing"]
    except KeyError as e:
        te = traceback.TracebackException.from_exception(e)
        last = list(te.format_exception_only())[-1]
    return y + len(last), last


def c_cs_traceback_extract_stack(x):
    y = x - 1
    stack = traceback.extract_stack(limit=1)
    return y + len(stack), stack[-1].name


def c_cs_traceback_frame_summary(x):
    y = x + 1
    fs = traceback.FrameSummary("file.py", 12, "fn", line="a = 1")
    return y + fs.lineno + len(fs.line), (fs.filename, fs.name)


def c_cs_traceback_exc_info_chain(x):
    y = x * 2
    try:
        try:
            1 / 0
        except ZeroDivisionError as inner:
            raise RuntimeError("outer") from inner
    except RuntimeError as e:
        lines = traceback.format_exception(e)
    return y + sum("ZeroDivisionError" in ln for ln in lines)


def c_cs_exception_str_repr(x):
    y = x + 1
    e = ValueError("bad", 3)
    s = str(e) + repr(e) + str(KeyError("k")) + str(Exception())
    return y + len(s), s


CONSTRUCTS = [c_cs_capwords, c_cs_string_constants, c_cs_template_substitute, c_cs_template_mapping_and_kwargs,
              c_cs_template_safe_substitute, c_cs_template_missing_keyerror, c_cs_template_invalid_placeholder,
              c_cs_template_custom_delimiter, c_cs_template_identifiers, c_cs_formatter_format,
              c_cs_formatter_override_field, c_cs_formatter_get_value, c_cs_formatter_parse,
              c_cs_str_subclass_method, c_cs_str_subclass_new_eq, c_cs_str_subclass_dunders,
              c_cs_userstring_methods, c_cs_userstring_subclass, c_cs_traceback_format_exc,
              c_cs_traceback_format_exception_only, c_cs_traceback_exception_object, c_cs_traceback_extract_stack,
              c_cs_traceback_frame_summary, c_cs_traceback_exc_info_chain, c_cs_exception_str_repr]

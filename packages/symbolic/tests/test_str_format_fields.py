"""``str.format``/``str.format_map`` with fields known only at run time, met the way CPython's string_tests and
test_string meet them: ``{0.attr}``/``{0[key]}`` accessors on objects made in the trace, a class's own
``__format__``, ``format_map`` over a dict subclass with ``__missing__``, nested specs. Each was a graph break
("its text is unknown while tracing"); the template is now parsed while tracing and the fields traced through
the stand-in (``polyfills/text_format.py``), which is also checked natively against ``str.format``. The
``format()`` builtin and f-strings inline a ``__format__`` written in Python. ``string.Formatter`` is traced: the C parsers
its Python ``vformat`` calls run on the constant template while tracing."""

# ruff: noqa: F523, F524, F525, UP030 (malformed format calls are what these tests make)

import string

import pytest
import torch
from harness import check

from loom_symbolic.polyfills import text_format


class Point:
    coords = (3, 4)
    name = "pt"


class Money:
    def __init__(self, v):
        self.v = v

    def __format__(self, spec):
        return "$" + format(self.v, spec or ".2f")


class Default(dict):
    def __missing__(self, key):
        return "<" + key + ">"


class Plain:
    def __str__(self):
        return "plain"


def format_accessors(x):
    y = x + 1
    s = "{0.name}:{0.coords[1]}:{1[k]}".format(Point(), {"k": "v"})
    return y + len(s), s


def format_custom_dunder(x):
    y = x * 2
    s = "{} {:.0f}|{m}".format(Money(2.5), Money(3.7), m=Plain()) + format(Money(1)) + f"{Money(4)}{Money(5):.1f}"
    return y + len(s), s


def format_map_missing(x):
    y = x - 1
    s = "{a} {b!r}".format_map(Default(a=Point()))
    return y + len(s), s.split(" ")[1]


def format_nested_spec_from_object(x):
    y = x + 1
    s = "{0.name:{fill}>{width}}".format(Point(), fill="*", width=6)
    return y + len(s), s


@pytest.mark.parametrize("fn", [format_accessors, format_custom_dunder, format_map_missing,
                                format_nested_spec_from_object])
def test_str_format_with_run_time_fields_is_traced(fn):
    check(fn, torch.arange(3.0))


def format_missing_field(x):
    y = x + 1
    try:
        "{0} {1}".format(Point())
        caught = ""
    except IndexError as e:
        caught = str(e)
    try:
        "{missing}".format(Point())
    except KeyError as e:
        caught += e.args[0]
    return y + len(caught), caught


def format_spec_refused_by_object(x):
    y = x + 1
    try:
        format(Plain(), ">5")
        caught = ""
    except TypeError as e:
        caught = str(e)
    return y + len(caught), caught


def test_format_errors_are_python_errors():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    for fn in (format_missing_field, format_spec_refused_by_object):
        expected = fn(torch.arange(3.0))
        loom.reset()
        compiled = loom.compile(fn, backend="eager", options={"strict": True})
        actual = compiled(torch.arange(3.0))
        assert actual[1] == expected[1] and torch.equal(actual[0], expected[0])
        assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


def format_mixed_numbering(x):
    y = x + 1
    try:
        "{} {0}".format(Point(), 1)
        caught = 0
    except ValueError:
        caught = 1
    return y + caught, caught


def test_template_left_to_cpython_breaks_once_and_stays_right():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    expected = format_mixed_numbering(torch.arange(3.0))
    loom.reset()
    actual = loom.compile(format_mixed_numbering, backend="eager", options={"strict": True})(torch.arange(3.0))
    assert actual[1] == expected[1] and torch.equal(actual[0], expected[0])
    assert loom.stats()["graph_breaks"] == 1, loom.stats()


class _Obj:
    a = [10, 20]
    b = {"k": 1.5}


@pytest.mark.parametrize("template", [
    "plain", "{}", "{0}{1}{0}", "{x}-{y!r}", "{0.a[1]}|{0.b[k]:>6}", "{:{}}", "{0:{1}{2}}", "{x!s:^7}",
    "{{}}{0!a}", "{:.{}f}", "a{0}b{1}c",
])
def test_stand_in_matches_str_format(template):
    args, kwargs = (_Obj(), 4, "é", 2.25), {"x": "ex", "y": "why"}
    if template in ("{0.a[1]}|{0.b[k]:>6}",):
        args = (_Obj(),)
    pieces = text_format.parse_template(template)
    assert pieces is not None
    try:
        expected = template.format(*args, **kwargs)
    except Exception as exc:
        with pytest.raises(type(exc)):
            text_format.str_format(pieces, *args, **kwargs)
    else:
        assert text_format.str_format(pieces, *args, **kwargs) == expected


@pytest.mark.parametrize("template", ["{} {0}", "{0} {}", "{", "}", "{0!x}", "{:{:{}}}"])
def test_templates_cpython_must_judge_are_not_parsed(template):
    assert text_format.parse_template(template) is None


def test_format_map_refuses_positional_fields():
    assert text_format.parse_template("{0}", positional=False) is None
    assert text_format.parse_template("{}", positional=False) is None
    pieces = text_format.parse_template("{a}{b}", positional=False)
    assert text_format.str_format_map(pieces, Default(a=1)) == "{a}{b}".format_map(Default(a=1))


class Upper(string.Formatter):
    def format_field(self, value, format_spec):
        return super().format_field(value, format_spec).upper()


def formatter_subclass(x):
    y = x + 1
    s = Upper().format("{0.name}|{1:x}|{k[1]!r:>5}", Point(), 255, k=("a", "b"))
    return y + len(s), s


def formatter_parse_pieces(x):
    y = x * 2
    it = string.Formatter().parse("a{0!r:>3}b{x}")
    parts = list(it)
    return y + len(parts), parts, type(it).__name__


def test_string_formatter_is_traced():
    """string.Formatter's C parsers run on the constant template while tracing: its Python vformat is traced
    (a graph break at _string.formatter_parser before, and another iterating what it returned)."""
    check(formatter_subclass, torch.arange(3.0))
    check(formatter_parse_pieces, torch.arange(3.0))


def formatter_malformed(x):
    y = x + 1
    try:
        string.Formatter().format("{0} {", 1)
        caught = 0
    except ValueError:
        caught = 1
    return y + caught


def test_malformed_template_is_left_to_the_c_parser():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    expected = formatter_malformed(torch.arange(3.0))
    loom.reset()
    actual = loom.compile(formatter_malformed, backend="eager", options={"strict": True})(torch.arange(3.0))
    assert torch.equal(actual, expected)
    assert loom.stats()["graph_breaks"] >= 1

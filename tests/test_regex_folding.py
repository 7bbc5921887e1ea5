"""Compiled patterns, matches and ``re``'s functions on strings known while tracing: folded on the real objects
(``fractions.Fraction("3/4")``, ``string.Template``), each program compared with eager, with no graph break."""

from __future__ import annotations

import fractions
import re
import string

import pytest
import torch

import loom

PAIR = re.compile(r"(\w+)=(\d+)")


def pattern_methods(x):
    m = PAIR.match("lr=3")
    return (x * int(m.group(2)), m.group(1), m[2], m.span(), m.groups(), m.groupdict(), PAIR.findall("a=1 b=2"),
            PAIR.sub(r"\2=\1", "k=9"), PAIR.subn("_", "a=1 b=2"), PAIR.split("a=1,b=2"), PAIR.search("..c=4").start(),
            PAIR.fullmatch("a=1 ") is None, m.re.pattern, PAIR.groups)


def module_functions(x):
    return (x + 1, re.match(r"\d+", "123abc").group(), re.sub("a", "b", "banana", count=2),
            re.findall("A", "aAa", flags=re.I), re.split(",", "a,b,c", maxsplit=1), re.compile("x+").pattern,
            re.fullmatch(PAIR, "z=0").group(1), re.subn("n", "m", "banana"))


def replacement_function(x):
    seen = []

    def shout(m):
        seen.append(m.group(1))
        return m.group(1).upper()

    return x * 2, PAIR.sub(shout, "a=1 bb=22 c=3", count=2), seen, PAIR.subn(lambda m: "", "a=1 b=2")


def library_users(x):
    text = string.Template("$who likes $what").substitute(who="tim", what="tea")
    return x * float(fractions.Fraction("3/4") * 2), text, string.Template("$a$$").safe_substitute(a=1)


@pytest.mark.parametrize("fn", [pattern_methods, module_functions, replacement_function, library_users])
def test_folded_as_eager_computes_it(fn):
    x = torch.arange(3.0)
    expected = fn(x)
    loom.reset()
    actual = loom.compile(fn, backend="eager")(x)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:]
    assert loom.stats()["graph_breaks"] == 0


def test_a_pattern_replaced_between_calls_is_read_again():
    holder = {"pattern": re.compile(r"(\d)")}

    def fn(x):
        return x + int(holder["pattern"].search("a7b8").group(1))

    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    assert compiled(torch.zeros(1)).item() == 7
    holder["pattern"] = re.compile(r"(\d)b(\d)")
    assert compiled(torch.zeros(1)).item() == 7
    holder["pattern"] = re.compile(r"b(\d)")
    assert compiled(torch.zeros(1)).item() == 8


def test_an_iterator_over_matches_walks_the_folded_matches():
    def fn(x):
        found = PAIR.finditer("a=1 b=2 c=3")
        first = next(found)
        return x + sum(int(m.group(2)) for m in found), first.group(1), type(found).__name__

    x = torch.ones(1)
    expected = fn(x)
    loom.reset()
    actual = loom.compile(fn, backend="eager")(x)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:] == ("a", "callable_iterator")
    assert loom.stats()["graph_breaks"] == 0


def test_a_scanner_breaks_and_names_it():
    def fn(x):
        return x + len(PAIR.scanner("a=1").match().group())

    x = torch.ones(1)
    report = loom.explain(fn, backend="eager")(x)
    assert any("Pattern.scanner" in b.what for b in report.breaks), report.breaks
    loom.reset()
    torch.testing.assert_close(loom.compile(fn, backend="eager")(x), fn(x))


def test_a_bad_pattern_raises_eager_error():
    def fn(x):
        return x + len(re.findall("(", "a"))

    loom.reset()
    with pytest.raises(re.error):
        loom.compile(fn, backend="eager")(torch.ones(1))

"""A str subclass instance the trace did not make (``torch.__version__``, an argument of ``class Tag(str)``)
where C code reads its text: ``list(tag)``, ``frozenset.issuperset(tag)``, ``pattern.fullmatch(tag)``. Each broke
the graph (iteration over a class with no Python ``__iter__``; a pattern called with a value known only at run
time), so ``packaging.version.parse(torch.__version__)`` broke twice; it is one graph now, guarded on the very
object where it comes from the frame."""

import re

import torch
from packaging import version

import loom


class _Tag(str):
    pass


_PATTERN = re.compile(r"(\d+)\.(\d+)")
_DIGITS = frozenset("0123456789.")


def _explain(fn, *args):
    loom.reset()
    return loom.explain(fn)(*args)


def _read_text(x, tag):
    found = _PATTERN.fullmatch(tag)
    return x + int(found.group(2)), found.string is tag, _DIGITS.issuperset(tag), list(tag)


def _torch_version(x):
    parsed = version.parse(torch.__version__)
    return x + 1, parsed >= version.parse("2.0"), parsed.major


def test_text_of_a_str_subclass_argument_is_read_in_graph():
    x = torch.ones(2)
    report = _explain(_read_text, x, _Tag("1.5"))
    expected = _read_text(x, _Tag("1.5"))
    assert torch.equal(report.result[0], expected[0]) and report.result[1:] == expected[1:]
    assert report.graph_count == 1 and report.break_count == 0


def test_another_str_subclass_object_recompiles():
    loom.reset()
    compiled = loom.compile(_read_text, backend="eager")
    x = torch.ones(2)
    assert torch.equal(compiled(x, _Tag("1.5"))[0], x + 5)
    assert torch.equal(compiled(x, _Tag("2.7"))[0], x + 7)


def test_packaging_parses_torch_version_in_one_graph():
    x = torch.ones(2)
    report = _explain(_torch_version, x)
    assert report.result[1:] == _torch_version(x)[1:]
    assert report.graph_count == 1 and report.break_count == 0

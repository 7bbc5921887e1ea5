"""Operators between collection kinds answer as CPython does, in one graph: in-place set operators on dict
views rebind the name to a new set (a view has none of its own, and a set's declines a view); a builtin
container meeting an operand its C method declines raises Python's own TypeError; a set looked up by a set
(``in``, ``remove``, ``discard``) finds the frozenset with its members."""

import operator

import pytest
import torch
from harness import check

X = torch.arange(3.0)


class _Members(set):
    pass


def view_inplace_operators(x):
    out = []
    for op in (operator.ior, operator.iand, operator.ixor, operator.isub):
        a = {"one": 1, "two": 2}.keys()
        b = {"one": 1, "three": 3}.items()
        s = {"one", "four"}
        out.append((op(a, {"two", "five"}), op(s, a), s, op(b, {("one", 1)})))
    return x * len(out), out


def view_augmented_assignment(x):
    d = {"one": 1, "two": 2, "three": 3}
    k = d.keys()
    k &= {"one", "four"}
    items = d.items()
    items -= {("two", 2)}
    u = _Members({"two"})
    u |= d.keys()
    return x + len(k), k, items, d, u, type(u).__name__


def container_operand_type_errors(x):
    caught = []
    for left, right in (
        ({"a": x}, 1),
        ({"a": x}, "s"),
        ({"a": x}, [x]),
        ({"a": x}, (1, 2)),
        ([x], (x,)),
        ((x,), [1]),
        ({1, 2}, [1]),
        ([x], {"k": 1}),
    ):
        for op in (operator.or_, operator.add, operator.sub):
            try:
                op(left, right)
            except TypeError as e:
                caught.append(str(e))
    return x + len(caught), caught


def text_and_object_operand_errors(x):
    class Plain:
        pass

    caught = []
    for right in ("s", b"b"):
        try:
            Plain() + right
        except TypeError as e:
            caught.append(str(e))
    return x, caught


class _Count:
    def __index__(self):
        return 2


def repeat_and_format_read_the_operand(x):
    # a sequence's repeat reads the count's __index__, a format its arguments: these answer, raising nothing
    out = []
    for make in (
        lambda: [x] * _Count(),
        lambda: (1,) * _Count(),
        lambda: "ab" * _Count(),
        lambda: "%d" % _Count(),
    ):
        try:
            out.append(make())
        except TypeError:  # (a trace that took the stand-in's TypeError for the real one came here)
            out.append("raised")
    return x, out


def set_looked_up_by_set(x):
    s = {frozenset("ab"), "c", frozenset()}
    found = [set("ab") in s, set("zz") in s, set() in s, _Members("ab") in s]
    s.remove(set("ab"))
    s.discard({"q"})
    s.discard(set())
    try:
        s.remove(set("q"))
    except KeyError:
        found.append("missing")
    return x + len(s), found, s


@pytest.mark.parametrize(
    "fn",
    [view_inplace_operators, view_augmented_assignment, container_operand_type_errors, set_looked_up_by_set],
)
def test_collection_operands(fn):
    check(fn, X)


def test_text_and_object_operand_errors():
    check(text_and_object_operand_errors, X, graphs=0)


def test_repeat_and_format_read_the_operand():
    """A count with ``__index__`` is no TypeError (loom may break there, but answers as eager does)."""
    loom = pytest.importorskip("loom", reason="compiles through the facade")
    loom.reset()
    expected = repeat_and_format_read_the_operand(X)
    actual = loom.compile(repeat_and_format_read_the_operand, backend="eager")(X)
    assert repr(actual) == repr(expected)

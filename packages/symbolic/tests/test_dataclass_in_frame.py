"""``@dataclasses.dataclass`` on a class statement inside the traced function (``opcodes/class_definitions.py``):
the class the trace made is processed natively, once, so the frame is one graph with eager's answer (plain,
``frozen=True`` through the decorator factory, returned instances). On a class from outside the trace, or
where ``dataclasses`` raises, it is one graph break at the call, with its reason."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from harness import check


def test_dataclass_defined_and_built_from_tensors():
    def fn(x):
        y = x + 1

        @dataclasses.dataclass
        class Pair:
            a: torch.Tensor
            b: int = 2

        p = Pair(y * 2)
        return p.a + p.b, p.b, repr(Pair(3)), [f.name for f in dataclasses.fields(p)]

    check(fn, torch.ones(2))


def test_frozen_dataclass_through_the_decorator_factory():
    def fn(x):
        @dataclasses.dataclass(frozen=True, eq=True)
        class Point:
            u: torch.Tensor
            v: int = 1

        p = Point(x * 3)
        try:
            p.v = 5
        except dataclasses.FrozenInstanceError:
            caught = True
        else:
            caught = False
        return p.u + p.v, caught, Point(1) == Point(1, 1), repr(Point(2)), dataclasses.is_dataclass(p)

    check(fn, torch.ones(2))


def test_returned_instance_of_a_dataclass_made_in_the_frame():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    def fn(x):
        @dataclasses.dataclass
        class Out:
            t: torch.Tensor
            n: int = 4

        return Out(x * 3)

    loom.reset()
    out = loom.compile(fn, backend="eager")(torch.ones(2))
    assert dataclasses.is_dataclass(out) and out.n == 4 and torch.equal(out.t, torch.full((2,), 3.0))
    assert type(out).__qualname__.endswith("Out") and loom.stats()["graph_breaks"] == 0


class _Outside:
    a: int = 1


def test_dataclass_of_a_class_from_outside_breaks_once_with_reason():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    def fn(x):
        made = dataclasses.dataclass(_Outside)
        return x + made().a

    loom.reset()
    report = loom.explain(fn)(torch.ones(2))
    assert "made outside this trace" in str(report)
    assert report.graph_count == 1 and report.break_count == 1


def test_dataclass_error_is_the_programs_and_caught_in_the_graph():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    def fn(x):
        y = x + 1
        try:
            @dataclasses.dataclass
            class Bad:
                a: list = []  # noqa: RUF008 - the mutable default dataclasses refuses
        except ValueError:
            return y, "refused"
        return y * 2, "made"

    loom.reset()
    actual = loom.compile(fn, backend="eager")(torch.ones(2))
    assert torch.equal(actual[0], torch.full((2,), 2.0)) and actual[1] == "refused"
    report = loom.explain(fn)(torch.ones(2))  # dataclass's ValueError, raised in the trace: the handler is traced
    assert report.graph_count == 1 and report.break_count == 0

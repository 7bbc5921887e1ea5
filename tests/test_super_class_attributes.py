"""``super().name`` where the base's ``name`` is a plain class attribute (an int, a string, a tuple: no
descriptor): Python returns the stored object as reading it off that base would. It stays in the graph,
guarded on the base's ``__dict__`` entry, so a later change to the attribute recompiles (issue 29)."""

import torch
from breaks_harness import compare

import loom


class Base:
    scale = 2
    tag = "base"

    def add(self, x):
        return x + 1


class Child(Base):
    scale = 10
    tag = "child"

    def run(self, x):
        return super().add(x) * super().scale + super(Child, self).scale + len(super().tag)  # noqa: UP008


class Grand(Child):
    scale = 100

    def run(self, x):
        return super().run(x) + super(Child, self).scale + super().scale


def through_super(x):
    return Child().run(x)


def through_two_supers(x):
    return Grand().run(x)


def test_plain_class_attributes_through_super_stay_in_the_graph():
    for fn in (through_super, through_two_supers):
        stats = compare(fn, torch.arange(3.0))
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)


def test_a_changed_base_attribute_is_seen_on_the_next_call():
    loom.reset()
    compiled = loom.compile(through_super, backend="eager")
    x = torch.arange(3.0)
    torch.testing.assert_close(compiled(x), through_super(x))
    Base.scale = 7
    try:
        torch.testing.assert_close(compiled(x), through_super(x))
    finally:
        Base.scale = 2


class _Owner:
    offset = 1


class _OwnerChild(_Owner):
    @classmethod
    def offset_seen(cls):
        return super().offset  # super(_OwnerChild, cls): the class-bound lookup


def assigns_then_reads_through_class_super(x):
    _Owner.offset = 5
    return x + _OwnerChild.offset_seen()


def test_a_class_bound_super_read_after_the_trace_assigned_the_name_is_eagers():
    # (the class-bound path handed out the real class's old value: 1 where eager reads 5)
    x = torch.zeros(1)
    try:
        want = assigns_then_reads_through_class_super(x)
    finally:
        _Owner.offset = 1
    loom.reset()
    try:
        got = loom.compile(assigns_then_reads_through_class_super, backend="eager")(x)
    finally:
        _Owner.offset = 1
    torch.testing.assert_close(got, want)

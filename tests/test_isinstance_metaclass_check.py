"""``isinstance()`` and class patterns where the class's metaclass writes ``__instancecheck__`` in Python (issue 29,
CPython's test_patma in PyTorch's Dynamo suite): CPython calls it, so the trace inlines it (one graph, eager's
answer) where the subclass relation answered instead (a wrong answer: ``isinstance(10, Big)`` was False); the
exact type still never asks it. A runtime-checkable Protocol with data members is checked on the instance as
typing does (the subclass check raised a TypeError eager does not raise); one that is not runtime-checkable
raises eager's TypeError, which a handler catches in the graph."""

from typing import Protocol, runtime_checkable

import torch
from breaks_harness import compare


class _Meta(type):
    def __instancecheck__(cls, inst):
        return isinstance(inst, int) and inst > 5


class Big(metaclass=_Meta):
    pass


@runtime_checkable
class HasXY(Protocol):
    x: int
    y: int


@runtime_checkable
class Closeable(Protocol):
    def close(self): ...


class _Point:
    def __init__(self):
        self.x = 1
        self.y = 2


class _OnlyX:
    def __init__(self):
        self.x = 1


class _Plain(Protocol):
    def close(self): ...


class _File:
    def close(self):
        return 5


def metaclass_check(x):
    kinds = []
    for v in (3, 10, "s"):
        match v:
            case Big():
                kinds.append("big")
            case _:
                kinds.append("small")
    return x + len(kinds), kinds, isinstance(10, Big), isinstance(Big(), Big), isinstance(10, (str, Big))


def method_protocol(x):
    f = _File()
    match f:
        case Closeable():
            return x + f.close()
    return x


def data_protocol(x):
    out = []
    for v in (_Point(), _OnlyX(), 3):
        match v:
            case HasXY(x=a, y=b):
                out.append(a + b)
            case _:
                out.append(0)
    return x * 2 + sum(out), out, isinstance(_OnlyX(), HasXY)


def not_runtime_checkable(x):
    try:
        match _File():
            case _Plain():
                r = "matched"
    except TypeError as e:
        r = str(e)
    return x + 1, r


def test_a_metaclass_instancecheck_is_inlined():
    stats = compare(metaclass_check, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_a_protocol_of_methods_stays_one_graph():
    stats = compare(method_protocol, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_a_protocol_with_data_members_is_checked_on_the_instance():
    stats = compare(data_protocol, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_a_protocol_not_runtime_checkable_raises_eagers_type_error():
    stats = compare(not_runtime_checkable, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


_ALLOWED_TAGS = {"a"}


class _TagMeta(type):
    def __instancecheck__(cls, inst):
        return getattr(inst, "tag", None) in _ALLOWED_TAGS


class _Tagged(metaclass=_TagMeta):
    pass


class _WithTag:
    def __init__(self, tag):
        self.tag = tag


def _branch_on_tagged(x, obj):
    return x + 1 if isinstance(obj, _Tagged) else x - 1


def test_written_check_on_a_real_object_follows_the_state_it_reads():
    """An object from outside the frame was asked natively while tracing: the answer became a constant with no
    guard on what the metaclass's check read, so a later call after that state changed got the stale branch."""
    import loom

    obj, x = _WithTag("a"), torch.zeros(1)
    loom.reset()
    compiled = loom.compile(_branch_on_tagged, backend="eager")
    try:
        assert torch.equal(compiled(x, obj), x + 1)
        _ALLOWED_TAGS.discard("a")
        assert torch.equal(compiled(x, obj), _branch_on_tagged(x, obj)) and torch.equal(compiled(x, obj), x - 1)
        obj.tag = "b"
        _ALLOWED_TAGS.add("b")
        assert torch.equal(compiled(x, obj), x + 1)
    finally:
        _ALLOWED_TAGS.clear()
        _ALLOWED_TAGS.add("a")


def test_abc_registration_after_compiling_is_seen():
    """``Base.register(cls)`` after the trace answered ``isinstance(obj, Base)`` (an object from outside, and a
    tensor) was not seen: the answer was a constant with no guard on the ABC's registry."""
    import abc

    import loom

    class Base(abc.ABC):  # noqa: B024 (registration is the point, not abstract methods)
        pass

    class Plain:
        pass

    def program(x, obj):
        return (x + 1 if isinstance(obj, Base) else x - 1), isinstance(x, Base), issubclass(Plain, Base)

    obj, x = Plain(), torch.zeros(1)
    loom.reset()
    compiled = loom.compile(program, backend="eager")
    first = compiled(x, obj)
    assert torch.equal(first[0], x - 1) and first[1:] == (False, False)
    Base.register(Plain)
    Base.register(torch.Tensor)
    second, expected = compiled(x, obj), program(x, obj)
    assert torch.equal(second[0], expected[0]) and second[1:] == expected[1:] == (True, True)

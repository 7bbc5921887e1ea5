"""Calling a module whose class overrides ``__call__``.

It was a graph break ("the module overrides __call__"): the class's own ``__call__`` now runs inlined in its
place, as Python calls it, and ``super().__call__`` in it reaches ``nn.Module.__call__`` as modelled by the
translator (forward hooks, then ``forward``)."""

import torch
from torch import nn

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


class Scaled(nn.Module):
    def __call__(self, x):
        return 5 * self.forward(x)

    def forward(self, x):
        return x * 3


class ThroughSuper(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = nn.Linear(3, 3)

    def __call__(self, x, scale=2):
        return super().__call__(x) * scale

    def forward(self, x):
        return self.lin(x)


SCALED = Scaled()
THROUGH_SUPER = ThroughSuper()
THROUGH_SUPER.register_forward_hook(lambda m, args, out: out + 100)


def calls_overriding_modules(x):
    return SCALED(x + 1) - 1, THROUGH_SUPER(x, scale=3)


def test_an_overriding_call_and_its_super_call_are_captured_with_hooks():
    x = torch.arange(3.0)
    expected = calls_overriding_modules(x)
    actual = _compiled(calls_overriding_modules)(x)
    torch.testing.assert_close(actual, expected)
    assert _counts() == (1, 0)


def test_a_call_assigned_on_the_class_after_compiling_recompiles():
    """The entry ran ``nn.Module.__call__`` because the class had no ``__call__``; one assigned to the class
    later is what Python calls (each class of the MRO above ``nn.Module`` is guarded not to define one)."""

    class Base(nn.Module):
        def forward(self, x):
            return x + 1

    class Child(Base):
        pass

    module = Child()
    compiled = _compiled(lambda x: module(x))
    x = torch.zeros(2)
    assert torch.equal(compiled(x), x + 1)
    Base.__call__ = lambda self, x: x + 100
    assert torch.equal(compiled(x), x + 100)
    Child.__call__ = lambda self, x: x + 7
    assert torch.equal(compiled(x), x + 7)
    del Child.__call__, Base.__call__
    assert torch.equal(compiled(x), x + 1)

"""Attribute stores on an ``nn.Module`` from the frame, as ``Module.__setattr__`` makes them.

A module class's own ``__setattr__`` (one that logs, then calls ``super().__setattr__``) was skipped: the
store went straight to the module, a wrong answer. It now runs inlined, and the ``Module.__setattr__`` its
``super()`` reaches is the translator's own store (torch's reads ``self.__dict__``). And a submodule
assigned in the frame went to the module's attributes only, so ``_modules`` read later in the same frame
missed it (a wrong answer too): it is now filed in ``_modules``, as ``Module.__setattr__`` files it."""

import torch
from torch import nn

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


class Logged(nn.Module):
    def __init__(self):
        super().__init__()
        self.writes = []
        self.buffer = torch.ones(3)

    def __setattr__(self, name, value):
        if name != "writes":
            self.writes.append(name)
        return super().__setattr__(name, value)

    def forward(self, x):
        self.buffer = self.buffer.to(x) * 2
        self.scale = 3
        return self.buffer + x * self.scale


def logged_stores(x, mod):
    return mod(x + 1), list(mod.writes), mod.scale


def test_a_module_class_setattr_runs_for_stores_in_the_frame():
    x = torch.arange(3.0)
    eager_mod, loom_mod = Logged(), Logged()
    expected = logged_stores(x, eager_mod)
    actual = _compiled(logged_stores)(x, loom_mod)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:] == (["buffer", "buffer", "scale"], 3)
    assert loom_mod.writes == eager_mod.writes and loom_mod.scale == 3
    assert _counts() == (1, 0)


class Swaps(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()

    def forward(self, x):
        self.extra = nn.Tanh()
        self.act = nn.Sigmoid()
        return self.extra(self.act(x))


def submodules_assigned(x, mod):
    out = mod(x)
    return out, type(mod._modules["act"]).__name__, type(mod._modules["extra"]).__name__, "extra" in mod._modules


def test_submodules_assigned_in_the_frame_are_in_modules_at_once():
    x = torch.arange(3.0)
    expected = submodules_assigned(x, Swaps())
    mod = Swaps()
    actual = _compiled(submodules_assigned)(x, mod)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:] == ("Sigmoid", "Tanh", True)
    assert list(mod._modules) == ["act", "extra"] and "extra" not in mod.__dict__
    assert _counts() == (1, 0)


def children_after_assignment(x, mod):
    out = mod(x)
    return out, [type(m).__name__ for m in mod.children()]


def test_children_listed_after_an_assignment_are_eagers():
    x = torch.arange(3.0)
    expected = children_after_assignment(x, Swaps())
    actual = _compiled(children_after_assignment)(x, Swaps())
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1] == ["Sigmoid", "Tanh"]

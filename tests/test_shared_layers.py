"""Layers of one class share one compiled entry: modules are guarded by type and structure, not identity.

After a graph break inside a model each layer's ``forward`` runs as a frame of its own; with modules
guarded by identity every layer compiled an entry of its own and a deep model hit the recompile limit.
Now one entry serves every instance whose type, submodules, attributes read, hooks and parameters'
metadata match, and parameters are graph inputs read through the module at call time. Each way an
instance can differ must fail the guard and recompile (or read the difference through its source).
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

import loom
import loom_framehook as framehook


@loom.disable
def opaque(x):
    """A call loom runs natively: a graph break inside every block."""
    return x


class Block(nn.Module):
    def __init__(self, d=8, act=nn.GELU):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.lin = nn.Linear(d, d)
        self.act = act()
        self.scale = 0.5

    def forward(self, x):
        h = self.act(self.lin(self.norm(x)))
        h = opaque(h)
        return x + h * self.scale


class Deep(nn.Module):
    def __init__(self, n=32, d=8):
        super().__init__()
        self.layers = nn.ModuleList([Block(d) for _ in range(n)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def apply(layer, x):
    """A compiled function taking the module as an argument."""
    return layer(x)


def test_a_32_layer_model_with_a_break_in_each_block_compiles_the_blocks_forward_once():
    model = Deep().eval()
    x = torch.randn(2, 8)
    compiled = loom.compile(model, backend="eager")
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        for _ in range(2):
            torch.testing.assert_close(compiled(x), model(x))
    entries = framehook.entries(Block.forward.__code__)
    assert len(entries) == 1, entries  # was 8: one per layer up to the recompile limit
    assert not [w for w in caught if "Block.forward" in str(w.message)]
    compiled_before = loom.stats()["frames_compiled"]
    with torch.no_grad():  # other weights, the same structure: the same entries serve them
        other = Deep().eval()
        torch.testing.assert_close(loom.compile(other, backend="eager")(x), other(x))
    assert len(framehook.entries(Block.forward.__code__)) == 1
    assert loom.stats()["frames_compiled"] == compiled_before


def test_a_module_argument_is_guarded_by_type_and_its_parameters_read_at_call_time():
    layers = [Block() for _ in range(12)]
    run = loom.compile(apply, backend="eager")
    x = torch.randn(2, 8)
    for layer in layers:
        torch.testing.assert_close(run(layer, x), layer(x))
    assert loom.stats()["recompiles"] == 0
    with torch.no_grad():
        layers[0].lin.weight.mul_(3)  # parameters are inputs, not constants of the graph
    torch.testing.assert_close(run(layers[0], x), layers[0](x))
    guards = "\n".join(loom.explain(apply)(layers[0], x).guards)
    assert "type(L['layer']) is" in guards and "L['layer'] is " not in guards


class Scaled(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.scale = scale

    def forward(self, x):
        return self.lin(x) * self.scale


class Activated(nn.Module):
    def __init__(self, act):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.act = act()

    def forward(self, x):
        return self.act(self.lin(x))


class Modal(nn.Module):
    def forward(self, x):
        return x * 2 if self.training else x * 3


class Children(nn.Module):
    def __init__(self, *mods):
        super().__init__()
        for i, m in enumerate(mods):
            self.add_module(f"m{i}", m)

    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x


class Pair(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.a, self.b = a, b

    def forward(self, x):
        if self.a is self.b:
            return self.a(x) * 10
        return self.a(x) + self.b(x)


def _run_each(instances, x):
    """Call ``apply`` compiled on each instance; every answer must be eager's."""
    run = loom.compile(apply, backend="eager")
    with torch.no_grad():
        for m in instances:
            torch.testing.assert_close(run(m, x), m(x))
    return loom.stats()


def _ids(module):
    return {id(m) for m in module.modules()}


@pytest.mark.parametrize("name,make_pair", [
    ("an attribute value forward reads", lambda: (Scaled(2.0), Scaled(3.0))),
    ("training vs eval", lambda: (Modal().train(), Modal().eval())),
    ("a submodule of another class", lambda: (Activated(nn.GELU), Activated(nn.ReLU))),
    ("an extra submodule", lambda: (Children(nn.Linear(4, 4)), Children(nn.Linear(4, 4), nn.Tanh()))),
    ("a parameter that is None", lambda: (nn.Linear(4, 4), nn.Linear(4, 4, bias=False))),
    ("a parameter of another shape", lambda: (nn.Linear(4, 4), nn.Linear(4, 6))),
    ("two submodules that are one", lambda: (Pair(nn.Linear(4, 4), nn.Linear(4, 4)), Pair(*[nn.Linear(4, 4)] * 2))),
])
def test_an_instance_that_differs_recompiles_and_answers_right(name, make_pair):
    first, second = make_pair()
    x = torch.randn(2, 4)
    stats = _run_each([first, second, first, second], x)
    assert stats["recompiles"] == 1 and stats["frames_compiled"] == 2, stats


def test_a_hook_on_one_instance_runs_for_that_instance_only():
    plain, hooked = Scaled(2.0), Scaled(2.0)
    hooked.register_forward_hook(lambda mod, args, out: out + 100)
    x = torch.randn(2, 4)
    stats = _run_each([plain, hooked, plain, hooked], x)
    assert stats["recompiles"] == 1, stats
    late = Scaled(2.0)
    _run_each([late], x)
    late.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    _run_each([late, plain], x)


TABLE: dict = {}
BY_ID: dict = {}


class Keyed(nn.Module):
    def forward(self, x):
        return x * TABLE[self]


class ById(nn.Module):
    def forward(self, x):
        return x * BY_ID[id(self)]


@pytest.mark.parametrize("cls,table,key", [(Keyed, TABLE, lambda m: m), (ById, BY_ID, id)])
def test_a_module_used_by_identity_is_pinned(cls, table, key):
    a, b = cls(), cls()
    table.update({key(a): 2.0, key(b): 3.0})
    try:
        stats = _run_each([a, b, a, b], torch.randn(3))
    finally:
        table.clear()
    assert stats["frames_compiled"] == 2, stats  # one entry per instance: the answer depends on which


def test_a_trace_that_stores_on_a_module_is_not_reused_when_two_sources_alias():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

    class Two(nn.Module):
        def __init__(self, a, b):
            super().__init__()
            self.a, self.b = a, b

        def forward(self, x):
            self.a.calls = self.a.calls + 1
            return x * self.b.calls

    x = torch.randn(3)
    run = loom.compile(apply, backend="eager")
    eager_models = [Two(Counter(), Counter()), Two(*[Counter()] * 2)]
    compiled_models = [Two(Counter(), Counter()), Two(*[Counter()] * 2)]
    for _ in range(2):
        for eager, compiled in zip(eager_models, compiled_models):
            torch.testing.assert_close(run(compiled, x), eager(x))

"""Everything a compiled entry relied on is guarded: change it between calls and loom must answer as
eager Python does (by recompiling), never with the stale trace.

Each case builds two copies of the same little program, one run eagerly and one through
``loom.compile``, then applies the same changes to both between calls and compares every answer.
"""

from __future__ import annotations

import pytest
import torch

import loom

G_SCALE = 1.0


def _scaled_by_global():
    def f(x):
        return x * G_SCALE

    return f, None


def _set_global(value):
    def change(f, state):
        global G_SCALE
        G_SCALE = value

    return change


def _closure_cell():
    scale = 1.0

    def f(x):
        return x * scale

    def setter(value):
        nonlocal scale
        scale = value

    return f, setter


def _module_attribute():
    class Scale(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 1.0

        def forward(self, x):
            return x * self.scale if self.training else x * self.scale * 3

    return Scale(), None


def _calls_a_linear():
    layer = torch.nn.Linear(2, 2)
    with torch.no_grad():
        layer.weight.fill_(1.0)
        layer.bias.zero_()

    def f(x):
        return layer(x) + 1

    return f, layer


class _Adder:
    def step(self, x):
        return x + 1


def _object_method():
    cls = type("Adder", (_Adder,), {"step": _Adder.step})
    obj = cls()

    def f(x):
        return obj.step(x)

    return f, obj


def _module_list():
    layers = torch.nn.ModuleList([torch.nn.Identity()])

    def f(x):
        for layer in layers:
            x = layer(x) + 1
        return x

    return f, layers


def _parameter_sum():
    block = torch.nn.Sequential(torch.nn.Linear(2, 2))
    for p in block.parameters():
        torch.nn.init.ones_(p)

    def f(x):
        return x + sum(p.sum() for p in block.parameters())

    return f, block


class _Plain:
    pass


def _getattr_with_default():
    obj = _Plain()
    return (lambda x: x * getattr(obj, "scale", 1.0)), obj


def _hasattr_branch():
    obj = type("Plain", (), {})()  # its own class: the cases change the class
    return (lambda x: x + 1 if hasattr(obj, "flag") else x - 1), obj


def _module_with_optional_extra():
    class Optional(torch.nn.Module):
        def forward(self, x):
            return x * getattr(self, "extra", 1.0)

    module = Optional()
    return (lambda x: module(x)), module


def _call_setter(value):
    return lambda f, setter: setter(value)


def _set_attribute(name, value):
    return lambda f, state: setattr(f, name, value)


def _register_forward_hook(f, layer):
    layer.register_forward_hook(lambda module, args, out: out * 10)


def _register_forward_pre_hook(f, layer):
    layer.register_forward_pre_hook(lambda module, args: (args[0] + 5,))


def _swap_class_method(f, obj):
    type(obj).step = lambda self, x: x + 100


def _set_instance_method(f, obj):
    obj.step = lambda x: x + 1000


def _nothing(f, state):
    pass


def _table_keyed_by_classes():
    import typing

    table = {int: 1.0, typing.Union: 2.0}

    def f(x):
        return x * sum(weight for key, weight in table.items() if key is not float)

    return f, table


def _rekey_table(f, table):
    table[float] = table.pop(int)


def _reads_an_environment_flag():
    import os

    os.environ.pop("LOOM_GUARD_TEST_FLAG", None)

    def f(x):
        return x * 5 if os.environ.get("LOOM_GUARD_TEST_FLAG") == "1" else x * 2

    return f, None


def _set_environment_flag(value):
    def change(f, state):
        import os

        if value is None:
            os.environ.pop("LOOM_GUARD_TEST_FLAG", None)
        else:
            os.environ["LOOM_GUARD_TEST_FLAG"] = value

    return change


def _set_membership():
    members = {1}

    def f(x):
        return x + (3 in members) + len(members)

    return f, members


CASES = {
    "global rebound": (_scaled_by_global, [_set_global(1.0), _set_global(2.0), _set_global(1.0)]),
    "closure cell rebound": (_closure_cell, [_nothing, _call_setter(2.0), _call_setter(3.0)]),
    "module attribute changed": (_module_attribute, [_nothing, _set_attribute("scale", 2.0)]),
    "module training flag": (_module_attribute, [_nothing, lambda f, s: f.train(False)]),
    "forward hook registered": (_calls_a_linear, [_nothing, _register_forward_hook]),
    "forward pre-hook registered": (_calls_a_linear, [_nothing, _register_forward_pre_hook]),
    "module appended to a ModuleList": (_module_list, [_nothing, lambda f, layers: layers.append(torch.nn.Identity())]),
    "parameter removed": (_parameter_sum, [_nothing, lambda f, block: setattr(block[0], "bias", None)]),
    "instance attribute shadows a method": (_object_method, [_nothing, _set_instance_method]),
    "attribute added after getattr's default": (_getattr_with_default, [_nothing, lambda f, o: setattr(o, "scale", 9.0)]),
    "attribute added after hasattr was False": (_hasattr_branch, [_nothing, lambda f, o: setattr(o, "flag", 1)]),
    "class attribute added after hasattr was False": (
        _hasattr_branch, [_nothing, lambda f, o: setattr(type(o), "flag", 1), lambda f, o: delattr(type(o), "flag")]),
    "module attribute added after getattr's default": (
        _module_with_optional_extra, [_nothing, lambda f, m: setattr(m, "extra", 7.0)]),
    "module buffer registered after getattr's default": (
        _module_with_optional_extra, [_nothing, lambda f, m: m.register_buffer("extra", torch.full((2,), 3.0))]),
    "class method replaced": (_object_method, [_nothing, _swap_class_method]),
    "dict keyed by classes re-keyed": (_table_keyed_by_classes, [_nothing, _rekey_table]),
    "set changed in place": (_set_membership, [_nothing, lambda f, s: s.add(3), lambda f, s: s.discard(1)]),
    "environment variable set, changed and unset": (
        _reads_an_environment_flag,
        [_nothing, _set_environment_flag("1"), _set_environment_flag("0"), _set_environment_flag(None)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_change_between_calls_is_seen_by_the_compiled_program(name):
    make, changes = CASES[name]
    eager_fn, eager_state = make()
    loom_raw, loom_state = make()
    compiled = loom.compile(loom_raw, backend="eager")
    for step, change in enumerate(changes):
        change(eager_fn, eager_state)
        change(loom_raw, loom_state)
        x = torch.ones(2)
        expected, actual = eager_fn(x), compiled(x)
        assert torch.equal(actual, expected), f"call {step}: loom {actual} != eager {expected}"

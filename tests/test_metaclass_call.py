"""A metaclass's own ``__call__`` (registries, singletons, post-init hooks) inlined when its class is called in a
compiled frame, with ``super().__call__(...)`` making the instance as ``type`` does: one graph, eager's objects."""

from __future__ import annotations

import torch

import loom


class _Tagging(type):
    def __call__(cls, *args, **kwargs):
        instance = super().__call__(*args, **kwargs)
        instance.made_by_meta = True
        return instance


class _Scaled(metaclass=_Tagging):
    def __init__(self, factor, shift=0):
        self.factor = factor
        self.shift = shift


class _Single(type):
    instances: dict = {}

    def __call__(cls, *args):
        if cls not in cls.instances:
            cls.instances[cls] = super().__call__(*args)
        return cls.instances[cls]


class _Config(metaclass=_Single):
    def __init__(self, scale):
        self.scale = scale


class _Swapping(type):
    def __call__(cls, value):
        return value * 2  # a metaclass may return anything: no __init__ then


class _Doubled(metaclass=_Swapping):
    def __init__(self, value):
        raise AssertionError("never run")


def _explain(fn, *args):
    loom.reset()
    report = loom.explain(fn)(*args)
    return report.graph_count, report.graph_break_count


def test_metaclass_call_runs_around_type_call():
    def fn(x):
        made = _Scaled(3, shift=1)
        return x * made.factor + made.shift, made.made_by_meta, type(made) is _Scaled

    x = torch.arange(3.0)
    assert _explain(fn, x) == (1, 0)
    got, want = loom.compile(fn)(x), fn(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:] == (True, True)


def test_a_singleton_metaclass_keeps_one_instance_across_calls():
    _Single.instances.clear()

    def fn(x):
        first = _Config(2)
        second = _Config(5)
        return x * second.scale, first is second

    assert _explain(fn, torch.ones(2)) == (1, 0)
    _Single.instances.clear()
    want = fn(torch.ones(2))
    eager_instance = _Single.instances[_Config]
    _Single.instances.clear()
    loom.reset()
    compiled = loom.compile(fn)
    got = compiled(torch.ones(2))
    torch.testing.assert_close(got[0], want[0])
    assert got[1] is True and _Single.instances[_Config] is not eager_instance
    kept = _Single.instances[_Config]
    again = compiled(torch.ones(2))  # the registry is filled now: the same object comes back
    assert again[1] is True and _Single.instances[_Config] is kept


def test_a_metaclass_call_returning_another_value():
    def fn(x):
        return _Doubled(x) + 1

    assert _explain(fn, torch.ones(2)) == (1, 0)
    torch.testing.assert_close(loom.compile(fn)(torch.ones(2)), fn(torch.ones(2)))

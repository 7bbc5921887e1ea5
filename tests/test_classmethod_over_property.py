"""``@classmethod`` over ``@property`` (CPython 3.11 and 3.12 chain ``classmethod.__get__`` to the property: the
getter runs with the class), read on a class, a subclass, an instance and an ``IntEnum`` whose members build a
slice for indexing, after PyTorch's test_repros (issue 134451). Before, loom bound the property as a method and
failed while compiling (``'property' object has no attribute '__qualname__'``). 3.13 dropped the chaining:
there the read is a bound method, as before."""

from __future__ import annotations

import enum
import sys
import warnings

import pytest
import torch

import loom

_CHAINS = sys.version_info < (3, 13)
chaining_only = pytest.mark.skipif(not _CHAINS, reason="3.13 no longer chains classmethod descriptors")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)

    class Cfg:
        _scale = 3

        @classmethod
        @property
        def scale(cls):
            return cls._scale * 2

    class Sub(Cfg):
        _scale = 5

    class Box(enum.IntEnum):
        _X = 0
        _Y = 1
        _HEADING = 2

        @classmethod
        @property
        def POINT(cls):
            return slice(cls._X, cls._Y + 1)

        @classmethod
        @property
        def HEADING(cls):
            return cls._HEADING


def on_classes(x):
    return x * Cfg.scale + Sub.scale


def on_instances(x, obj):
    return x * obj.scale + type(obj).scale + Cfg().scale


def enum_slices(x):
    states = x.reshape(1, 3).repeat(2, 1)
    states[..., Box.POINT] = states[..., Box.POINT].tanh() * 4
    states[..., Box.HEADING] = states[..., Box.HEADING] * 2
    return states


def _check(fn, *args):
    expected = fn(*args)
    loom.reset()
    result = loom.compile(fn, backend="eager", options={"strict": True})(*args)
    torch.testing.assert_close(result, expected)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
    return loom.compile(fn, backend="eager", options={"strict": True})


@chaining_only
def test_read_on_classes():
    _check(on_classes, torch.arange(3.0))


@chaining_only
def test_read_on_instances():
    _check(on_instances, torch.arange(3.0), Sub())


@chaining_only
def test_intenum_members_build_slices():
    _check(enum_slices, torch.arange(3.0))


@chaining_only
def test_getter_result_follows_class_attribute():
    compiled = _check(on_classes, torch.arange(3.0))
    old = Cfg._scale
    try:
        Cfg._scale = 7
        torch.testing.assert_close(compiled(torch.arange(3.0)), on_classes(torch.arange(3.0)))
    finally:
        Cfg._scale = old


@pytest.mark.skipif(_CHAINS, reason="on 3.11 and 3.12 the getter runs (the tests above)")
def test_unchained_read_raises_as_eager():
    """On 3.13 ``Cfg.scale`` is a method whose function is the property: multiplying a tensor by it raises
    eager's TypeError (before, the translator failed describing the property as a function)."""
    with pytest.raises(TypeError) as eager:
        on_classes(torch.arange(3.0))
    loom.reset()
    with pytest.raises(TypeError) as compiled:
        loom.compile(on_classes, backend="eager", options={"strict": True})(torch.arange(3.0))
    assert str(compiled.value) == str(eager.value)

"""More programs for ``capture_count.py --only dynamo_tests_decorators``: class decorators, decorated methods and
properties, ``contextlib.contextmanager`` / ``ContextDecorator`` / grad modes used as decorators, and caches.
"""

from __future__ import annotations

import contextlib
import functools

import torch
from torch import nn


def _logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1
    return wrapper


# -- class decorators, decorated methods, properties --------------------------------------------------------------
def _add_describe(cls):
    cls.describe = lambda self: self.scale * 10
    return cls


@_add_describe
class _Scaled:
    def __init__(self, scale):
        self.scale = scale


def c_dd_class_decorator_adds_method(x):
    return x * _Scaled(2).describe()


def _frozen_scale(k):
    def deco(cls):
        cls.k = k
        return cls
    return deco


@_frozen_scale(7)
class _WithK:
    def apply(self, t):
        return t * self.k


def c_dd_class_decorator_with_arguments(x):
    return _WithK().apply(x + 1) - 1


class _Ops:
    def __init__(self, k):
        self.k = k

    @_logged
    def shifted(self, t):
        return t + self.k

    @staticmethod
    @_logged
    def static_sq(t):
        return t * t

    @classmethod
    def make(cls, k):
        return cls(k)

    @property
    def doubled(self):
        return self.k * 2

    @functools.cached_property
    def tripled(self):
        return self.k * 3


def c_dd_decorated_method(x):
    return _Ops(2).shifted(x) * 2


def c_dd_decorated_staticmethod(x):
    return _Ops.static_sq(x + 1) + _Ops(1).static_sq(x)


def c_dd_classmethod_factory(x):
    return _Ops.make(4).shifted(x) - 1


def c_dd_property_decorator(x):
    return x * _Ops(3).doubled


def c_dd_cached_property(x):
    ops = _Ops(2)
    first = ops.tripled
    ops.k = 100
    return x * first + ops.tripled, "tripled" in vars(ops)


class _ModuleWithDecoratedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        with torch.no_grad():
            self.lin.weight.fill_(0.5)
            self.lin.bias.zero_()

    @_logged
    def forward(self, t):
        return self.lin(t)


_DECORATED_FORWARD = _ModuleWithDecoratedForward()


def c_dd_decorated_module_forward(x):
    return _DECORATED_FORWARD(x).detach() * 2


# -- contextmanager / ContextDecorator / grad-mode decorators -------------------------------------------------------
_TRACE = []


@contextlib.contextmanager
def _tagged(tag):
    _TRACE.append(("enter", tag))
    try:
        yield tag
    finally:
        _TRACE.append(("exit", tag))


@_tagged("deco")
def _under_tag(t):
    return t + len(_TRACE)


def c_dd_contextmanager_as_decorator(x):
    _TRACE.clear()
    y = _under_tag(x * 2)
    out = y, list(_TRACE)
    _TRACE.clear()
    return out


class _Counted(contextlib.ContextDecorator):
    def __init__(self):
        self.entered = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, *exc):
        return False


def c_dd_context_decorator_class(x):
    counted = _Counted()

    @counted
    def inner(t):
        return t * 2

    y = inner(inner(x))
    return y + counted.entered


@torch.no_grad()
def _no_grad_helper(t):
    return t * 2, torch.is_grad_enabled()


def c_dd_no_grad_decorator(x, w):
    y, enabled = _no_grad_helper(w)
    return (y + w).requires_grad, enabled, torch.is_grad_enabled(), (y * x).sum().item()


c_dd_no_grad_decorator.extra_args = lambda: (torch.ones(3, requires_grad=True),)


@torch.enable_grad()
def _enable_grad_helper(t):
    return t * 2


def c_dd_enable_grad_decorator_under_no_grad(x, w):
    with torch.no_grad():
        y = _enable_grad_helper(w)
    return y.requires_grad, y.detach() + x


c_dd_enable_grad_decorator_under_no_grad.extra_args = lambda: (torch.ones(3, requires_grad=True),)


@torch.inference_mode()
def _inference_helper(t):
    return t * 2


def c_dd_inference_mode_decorator(x):
    y = _inference_helper(x)
    return y.is_inference(), y.clone() + 1


# -- caches as decorators -----------------------------------------------------------------------------------------
@functools.cache
def _fib(n):
    return n if n < 2 else _fib(n - 1) + _fib(n - 2)


def c_dd_lru_cache_on_ints(x):
    return x * _fib(10)


@functools.cache
def _table(n):
    return tuple(range(n))


def c_dd_functools_cache_tuple(x):
    return x + sum(_table(4)), len(_table(4))


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

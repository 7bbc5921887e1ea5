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


# -- library decorators: dataclasses, total_ordering, singledispatch, wraps on methods, generators --------------
import dataclasses  # noqa: E402


@dataclasses.dataclass
class _Config:
    scale: float = 2.0
    shift: int = 1


def c_dd_dataclass_decorator_instance(x):
    cfg = _Config(scale=3.0)
    return x * cfg.scale + cfg.shift, cfg == _Config(3.0, 1), repr(cfg)


@dataclasses.dataclass(frozen=True)
class _Frozen:
    k: int


def c_dd_frozen_dataclass_assignment_raises(x):
    f = _Frozen(2)
    try:
        f.k = 3
    except dataclasses.FrozenInstanceError:
        return x * f.k, "frozen"
    return x


@functools.total_ordering
class _Version:
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return self.n == other.n

    def __lt__(self, other):
        return self.n < other.n


def c_dd_total_ordering_decorator(x):
    a, b = _Version(1), _Version(2)
    return x + (a <= b) + (b >= a) * 2 + (a > b) * 4


@functools.singledispatch
def _describe(value):
    return 0


@_describe.register
def _(value: int):
    return value * 10


@_describe.register(float)
def _(value):
    return value / 2


def c_dd_singledispatch_decorator(x):
    return x + _describe(3) + _describe(4.0) + _describe("s")


def _traced_generator(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        yield from fn(*args)
    return wrapper


@_traced_generator
def _pairs(t):
    yield t + 1
    yield t * 2


def c_dd_decorator_around_generator(x):
    return sum(_pairs(x))


class _Retrying:
    def __init__(self, times):
        self.times = times

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(t):
            for attempt in range(self.times):
                try:
                    return fn(t, attempt)
                except ValueError:
                    continue
            raise RuntimeError("gave up")
        return wrapper


@_Retrying(3)
def _flaky(t, attempt):
    if attempt < 2:
        raise ValueError(attempt)
    return t * attempt


def c_dd_retrying_decorator_catches(x):
    return _flaky(x + 1)


def c_dd_decorated_lambda_chain(x):
    compose = functools.reduce(lambda f, g: lambda t: g(f(t)), [torch.sin, _logged(torch.cos), lambda t: t * 2])
    return compose(x)


class _Hooked(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = []

    @torch.no_grad()
    def forward(self, t):
        self.calls.append(len(self.calls))
        return t * 2


_HOOKED = _Hooked()


def c_dd_no_grad_decorated_forward(x, w):
    y = _HOOKED(w)
    n = len(_HOOKED.calls)
    _HOOKED.calls.clear()
    return y.requires_grad, y + x, n


c_dd_no_grad_decorated_forward.extra_args = lambda: (torch.ones(3, requires_grad=True),)


@contextlib.contextmanager
def _scaled_ctx(box, k):
    box.append(k)
    try:
        yield k
    finally:
        box.pop()


def c_dd_contextmanager_decorator_raises_through(x):
    box = []

    @_scaled_ctx(box, 3)
    def inner(t):
        if len(box) == 1:
            raise KeyError("inside")
        return t

    try:
        inner(x)
    except KeyError as e:
        return x * 2, len(box), e.args
    return x


def c_dd_wraps_preserves_dict_attribute(x):
    def base(t):
        return t + 1

    base.tag = "relu"
    wrapped = functools.wraps(base)(lambda t: base(t) * 2)
    return wrapped(x), wrapped.tag, wrapped.__wrapped__ is base


def c_dd_staticmethod_decorator_in_frame_class(x):
    class Local:
        @staticmethod
        def double(t):
            return t * 2

        @classmethod
        def name(cls):
            return cls.__name__

    return Local.double(x) + 1, Local().name()


def c_dd_cache_info_after_calls(x):
    @functools.lru_cache(maxsize=4)
    def sq(n):
        return n * n

    total = sq(3) + sq(3) + sq(4)
    info = sq.cache_info()
    return x + total, info.hits, info.misses


def c_dd_no_grad_decorating_generator_in_frame(x, w):
    @torch.no_grad()
    def steps(t):
        yield t * 2
        yield torch.is_grad_enabled()

    doubled, enabled = steps(w)
    return doubled.requires_grad, enabled, doubled.detach() + x


c_dd_no_grad_decorating_generator_in_frame.extra_args = lambda: (torch.ones(3, requires_grad=True),)


@torch.enable_grad()
def _grad_steps(t):
    yield (t * 2).requires_grad


def c_dd_enable_grad_generator_under_no_grad(x, w):
    with torch.no_grad():
        flags = list(_grad_steps(w))
    return x + 1, flags


c_dd_enable_grad_generator_under_no_grad.extra_args = lambda: (torch.ones(3, requires_grad=True),)


def c_dd_inference_mode_decorating_generator(x):
    @torch.inference_mode()
    def steps(t):
        yield torch.is_inference_mode_enabled()
        yield (t * 2).is_inference()

    return list(steps(x)), x + 1


def c_dd_contextmanager_made_in_frame_escapes(x, box):
    previous = x
    if "manager" in box:  # the second call uses what the first one left
        with box["manager"](x) as value:
            previous = value

    def steps(t):
        yield t + 1

    box["manager"] = contextlib.contextmanager(steps)
    return previous * 2, box["manager"].__name__


c_dd_contextmanager_made_in_frame_escapes.calls = 2
c_dd_contextmanager_made_in_frame_escapes.extra_args = lambda: ({},)


def c_dd_wraps_made_in_frame_escapes_and_runs(x, box):
    def base(t):
        return t - 1

    box["f"] = functools.wraps(base)(functools.partial(base))
    box["g"] = _logged(base)
    return x + 1, box["f"](x), box["g"](x)


c_dd_wraps_made_in_frame_escapes_and_runs.extra_args = lambda: ({},)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

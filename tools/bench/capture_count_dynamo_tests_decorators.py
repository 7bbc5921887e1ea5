"""Small programs in the manner of PyTorch's test/dynamo/test_decorators.py, for
``capture_count.py --only dynamo_tests_decorators``: ``torch._dynamo.disable`` / ``torch.compiler.disable``
(as a decorator, called, with and without ``recursive``, on methods, modules and classes, stacked under
``functools.wraps``), ``allow_in_graph``, ``graph_break``, ``nonstrict_trace``, ``mark_dynamic`` /
``mark_static`` on the inputs, and the plain Python decorator patterns a user writes around compiled code:
``functools.wraps``, stacked decorators, decorators with arguments, class-based decorators, class decorators,
decorated methods, ``contextlib.contextmanager`` and ``ContextDecorator`` used as decorators, caches.
More are in ``capture_count_dynamo_tests_decorators_more.py``; those after test_recompiles.py in
``capture_count_dynamo_tests_decorators_recompiles.py``.
"""

from __future__ import annotations

import functools

import torch
from torch import nn


# -- torch._dynamo.disable / torch.compiler.disable (test_disable_*) -----------------------------------------------
@torch._dynamo.disable
def _disabled_scale(t):
    return t * 3


def c_dd_disable_decorated_helper(x):
    y = torch.sin(x)
    y = _disabled_scale(y)
    return torch.cos(y)


def _plain_shift(t, k):
    return t + k


_disabled_shift = torch._dynamo.disable(_plain_shift)


def c_dd_disable_called_form(x):
    return _disabled_shift(x * 2, 4) - 1


@torch._dynamo.disable(recursive=False)
def _nonrecursive_outer(t):
    return _plain_shift(t, 1) * 2


def c_dd_disable_nonrecursive(x):
    return _nonrecursive_outer(x + 1) + 1


@torch.compiler.disable
def _compiler_disabled(t):
    return t.relu() + 2


def c_dd_compiler_disable_alias(x):
    return _compiler_disabled(x - 1) * 2


@torch._dynamo.disable()
def _disabled_with_parens(t):
    return t.abs()


def c_dd_disable_with_parens(x):
    return _disabled_with_parens(x - 2) + x


class _WithDisabledMethod:
    def __init__(self):
        self.k = 5

    @torch._dynamo.disable
    def work(self, a, b):
        return a + b - self.k

    def run(self, a):
        return self.work(a, a * 2)


def c_dd_disable_method(x):
    obj = _WithDisabledMethod()
    return obj.run(x + 1) * 2


class _Doubler(nn.Module):
    def forward(self, t):
        return t * 2 + 1


_DISABLED_MODULE = torch._dynamo.disable(_Doubler())


def c_dd_disable_module_instance(x):
    return _DISABLED_MODULE(torch.sin(x)) + 1


class _TwoLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = _Doubler()
        self.inner.forward = torch._dynamo.disable(self.inner.forward)

    def forward(self, t):
        return self.inner(t + 1) * 3


_TWO_LAYERS = _TwoLayers()


def c_dd_disable_module_forward_attribute(x):
    return _TWO_LAYERS(x) - 1


@torch._dynamo.disable
class _DisabledClassModule(nn.Module):
    def forward(self, t):
        return t.sigmoid() * 4


_DISABLED_CLASS_INSTANCE = _DisabledClassModule()


def c_dd_disable_class_decorator(x):
    return _DISABLED_CLASS_INSTANCE(torch.cos(x)) + 1


def c_dd_disable_lambda_in_frame(x):
    y = torch._dynamo.disable(lambda t: t * 2)(x + 1)
    return y + 1


def c_dd_disable_builtin_and_partial_in_frame(x):
    sin = torch._dynamo.disable(torch.sin)
    add = torch.compiler.disable(functools.partial(torch.add, alpha=2))
    return sin(x) + 1, add(x, x)


@torch._dynamo.disable
def _disabled_inner(t):
    return t + 1


@functools.wraps(_disabled_inner)
def _wraps_disabled(t):
    return _disabled_inner(t) * 2


def c_dd_disable_under_functools_wraps(x):
    return _wraps_disabled(x - 1) + 1, _wraps_disabled.__name__


_DISABLED_TWICE = torch._dynamo.disable(torch._dynamo.disable(_plain_shift))


def c_dd_disable_twice(x):
    return _DISABLED_TWICE(x, 2) * x


@torch._dynamo.disable
def _disabled_pair(t):
    return [t + 1, t - 1]


def c_dd_disable_returns_list(x):
    a, b = _disabled_pair(x * 2)
    return a * b


@torch._dynamo.disable
def _disabled_append(items, t):
    items.append(t * 2)
    return len(items)


def c_dd_disable_mutates_list(x):
    items = [x]
    n = _disabled_append(items, x + 1)
    return items[-1] + n, len(items)


def c_dd_disable_in_loop(x):
    for i in range(3):
        x = _disabled_shift(x, i) * 2
    return x


@torch._dynamo.disable
def _disabled_kwargs(t, *, scale=1, shift=0):
    return t * scale + shift


def c_dd_disable_keyword_arguments(x):
    return _disabled_kwargs(x + 1, scale=3, shift=2) - x


@torch._dynamo.disable
def _disabled_raises(t):
    raise ValueError("from a disabled function")


def c_dd_disable_raises_caught(x):
    y = x + 1
    try:
        _disabled_raises(y)
    except ValueError as e:
        return y * 2, str(e)
    return y


def c_dd_disable_attribute_flag(x):
    return x + 1, hasattr(_disabled_scale, "_torchdynamo_orig_callable")


# -- allow_in_graph / graph_break / nonstrict_trace (test_allow_in_graph, test_graph_break, test_nonstrict_*) -------
def _allowed_helper(t):
    return t + 1


torch._dynamo.allow_in_graph(_allowed_helper)


def c_dd_allow_in_graph_helper(x):
    x = torch.add(x, 1)
    x = _allowed_helper(x)
    return torch.add(x, 1)


def _not_allowed(t):
    torch._dynamo.graph_break()
    return t + 1


def c_dd_graph_break_in_helper(x):
    x = torch.add(x, 1)
    x = _not_allowed(x)
    return torch.add(x, 1)


def c_dd_graph_break_between_ops(x):
    y = torch.sin(x)
    torch._dynamo.graph_break()
    return torch.cos(y) + 1


def c_dd_graph_break_in_loop(x):
    for _ in range(2):
        x = x * 2
        torch._dynamo.graph_break()
    return x + 1


def c_dd_graph_break_under_no_grad(x):
    with torch.no_grad():
        y = x * 2
        torch._dynamo.graph_break()
        y = y + 1
    return y, torch.is_grad_enabled()


@torch._dynamo.nonstrict_trace
def _nonstrict_mul_add(a, b, c):
    return a * b + c


def c_dd_nonstrict_trace_tensors(x):
    t0 = x + 1
    t1 = _nonstrict_mul_add(x, t0, t0)
    return t0 * (t1 + 1)


@torch._dynamo.nonstrict_trace
def _nonstrict_dict(t, d):
    return t * d["a"]


def c_dd_nonstrict_trace_new_dict(x):
    d = {}
    d["a"] = 2
    return _nonstrict_dict(x, d) + 1


def c_dd_nonstrict_trace_dict_argument(x, d):
    d["a"] = x + 1
    return _nonstrict_dict(x, d) + 2, d["a"]


c_dd_nonstrict_trace_dict_argument.extra_args = lambda: ({"a": 0},)


def c_dd_is_compiling_not_in_result(x):
    if torch.compiler.is_compiling():
        return x + 1
    return x + 1.0


# -- mark_dynamic / mark_static / maybe_mark_dynamic on the inputs (test_mark_*) -----------------------------------
def _marked(mark, *dims):
    def make():
        t = torch.arange(4.0)
        mark(t, *dims)
        return (t,)
    return make


def c_dd_mark_dynamic_input(x, y):
    return y * 2 + y.shape[0], x.sum()


c_dd_mark_dynamic_input.extra_args = _marked(torch._dynamo.mark_dynamic, 0)


def c_dd_mark_static_input(x, y):
    return y * 2 + y.shape[0]


c_dd_mark_static_input.extra_args = _marked(torch._dynamo.mark_static, 0)


def c_dd_maybe_mark_dynamic_input(x, y):
    return y.sum() + x.size(0)


c_dd_maybe_mark_dynamic_input.extra_args = _marked(torch._dynamo.maybe_mark_dynamic, 0)


def c_dd_mark_dynamic_size_branch(x, y):
    if y.size(0) > 2:
        return y[:2] + 1
    return y - 1


c_dd_mark_dynamic_size_branch.extra_args = _marked(torch._dynamo.mark_dynamic, 0)
c_dd_mark_dynamic_size_branch.calls = 2


# -- plain decorators (functools.wraps, stacked, with arguments, class-based) --------------------------------------
def _logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1
    return wrapper


@_logged
def _logged_square(t):
    """Squares its argument."""
    return t * t


def c_dd_wraps_simple(x):
    return _logged_square(x + 1) - 1


def c_dd_wraps_metadata(x):
    return _logged_square(x), _logged_square.__name__, _logged_square.__doc__, _logged_square.__wrapped__(x)


def _times(k):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(t):
            return fn(t) * k
        return wrapper
    return deco


@_times(3)
@_logged
@_times(2)
def _stacked(t):
    return t - 1


def c_dd_stacked_decorators(x):
    return _stacked(torch.sin(x)) + 1


def c_dd_decorator_with_arguments_in_frame(x):
    @_times(4)
    def inner(t):
        return t + 2
    return inner(x * 2) + 1


class _CountCalls:
    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        return self.fn(*args)


def c_dd_class_based_decorator(x):
    @_CountCalls
    def twice(t):
        return t * 2

    y = twice(twice(x + 1))
    return y + twice.calls, twice.__name__


def _counting(fn):
    count = 0

    @functools.wraps(fn)
    def wrapper(t):
        nonlocal count
        count += 1
        return fn(t) + count
    return wrapper


def c_dd_decorator_closure_counter(x):
    f = _counting(lambda t: t * 2)
    return f(x) + f(x + 1)


def c_dd_decorator_defined_in_frame(x):
    def add_one(fn):
        def wrapper(t):
            return fn(t) + 1
        return wrapper

    @add_one
    @add_one
    def base(t):
        return t.cos()

    return base(x) * 2


def _check_positive(fn):
    @functools.wraps(fn)
    def wrapper(t, k):
        if k <= 0:
            raise ValueError("k must be positive")
        return fn(t, k)
    return wrapper


@_check_positive
def _scaled(t, k):
    return t * k


def c_dd_validating_decorator_raises(x):
    y = _scaled(x, 2)
    try:
        _scaled(x, -1)
    except ValueError as e:
        return y + 1, e.args
    return y


def _swap_args(fn):
    def wrapper(a, b):
        return fn(b, a)
    return wrapper


def c_dd_decorator_rewrites_arguments(x):
    sub = _swap_args(torch.sub)
    return sub(x, x * 3) + 1


def _kw_defaults(**defaults):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(t, **kwargs):
            return fn(t, **{**defaults, **kwargs})
        return wrapper
    return deco


@_kw_defaults(scale=2, shift=1)
def _affine(t, scale, shift):
    return t * scale + shift


def c_dd_decorator_keyword_defaults(x):
    return _affine(x) + _affine(x, shift=5)


def c_dd_update_wrapper_in_frame(x):
    def base(t):
        """base doc"""
        return t + 1

    def wrapper(t):
        return base(t) * 2

    functools.update_wrapper(wrapper, base)
    return wrapper(x), wrapper.__name__, wrapper.__doc__


def c_dd_partial_as_decorator(x):
    def scale_by(k, fn):
        def wrapper(t):
            return fn(t) * k
        return wrapper

    @functools.partial(scale_by, 3)
    def inner(t):
        return t + 1

    return inner(x) - 1


_REGISTRY = {}


def _register(name):
    def deco(fn):
        _REGISTRY[name] = fn
        return fn
    return deco


@_register("relu_plus")
def _relu_plus(t):
    return t.relu() + 1


def c_dd_registering_decorator(x):
    return _REGISTRY["relu_plus"](x - 1) * 2


def c_dd_registering_decorator_in_frame(x):
    table = {}

    def register(fn):
        table[fn.__name__] = fn
        return fn

    @register
    def neg(t):
        return -t

    return table["neg"](x) + 1, sorted(table)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

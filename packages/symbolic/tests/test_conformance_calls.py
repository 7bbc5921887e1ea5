"""Conformance: calls and control flow — inlined functions, closures, lambdas, defaults, *args/**kwargs,
loops over ranges and containers, branches on constants, nested calls."""

import functools
import os

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES


X = torch.randn(3, 4)
Y = torch.randn(3, 4)


def helper_add(a, b):
    return a + b


def helper_defaults(a, scale=2, *, shift=1):
    return a * scale + shift


def helper_varargs(*args, **kwargs):
    total = 0
    for a in args:
        total = total + a
    for k in sorted(kwargs):
        total = total * kwargs[k]
    return total


def helper_posonly(a, b, /, c=3):
    return a * b + c


def helper_recursive(x, n):
    if n == 0:
        return x
    return helper_recursive(x * 2, n - 1)


def helper_returns_tuple(x):
    return x.sin(), x.cos()


def helper_nested_call(x):
    return helper_add(x, helper_defaults(x))


def make_scaler(factor):
    def scale(x):
        return x * factor

    return scale


SCALE_BY_3 = make_scaler(3)


def make_counter():
    count = 0

    def bump(x):
        nonlocal count
        count += 1
        return x + count

    return bump


COUNTER = make_counter()


@case(X, Y)
def call_simple(x, y):
    return helper_add(x, y)


@case(X)
def call_defaults(x):
    return helper_defaults(x), helper_defaults(x, 3), helper_defaults(x, shift=5), helper_defaults(x, scale=1, shift=0)


@case(X)
def call_varargs(x):
    return helper_varargs(x, x, 2), helper_varargs(x, a=2, b=3), helper_varargs()


@case(X)
def call_star_args(x):
    args = (x, 2)
    kwargs = {"shift": 4}
    return helper_defaults(*args, **kwargs), helper_add(*[x, x])


@case(X)
def call_posonly(x):
    return helper_posonly(x, 2), helper_posonly(x, 2, c=0)


@case(X)
def call_recursive(x):
    return helper_recursive(x, 3)


@case(X)
def call_nested(x):
    return helper_nested_call(x)


@case(X)
def call_returning_tuple(x):
    a, b = helper_returns_tuple(x)
    return a * b


@case(X)
def call_global_closure(x):
    return SCALE_BY_3(x)


@case(X)
def call_closure_with_nonlocal_state(x):
    return COUNTER(x)


@case(X)
def local_closure(x):
    k = 4

    def inner(y):
        return y * k

    return inner(x)


@case(X)
def local_closure_nonlocal(x):
    total = x

    def add(v):
        nonlocal total
        total = total + v

    add(1)
    add(x)
    return total


@case(X)
def local_closure_late_binding(x):
    fns = []
    for i in range(3):
        fns.append(lambda v, i=i: v * i)
    return [f(x) for f in fns]


@case(X)
def lambda_inline(x):
    square = lambda v: v * v
    return square(x) + (lambda: 2)()


@case(X)
def lambda_with_defaults_and_kwonly(x):
    f = lambda a, b=2, *, c=3: a * b + c
    return f(x), f(x, c=0), f(x, 1, c=1)


@case(X)
def nested_def_with_defaults(x):
    def inner(a, *rest, scale=2, **opts):
        return a * scale + len(rest) + len(opts)

    return inner(x, 1, 2, scale=3, z=1)


@case(X)
def higher_order(x):
    def apply(fn, v):
        return fn(v)

    return apply(torch.relu, x), apply(lambda t: t - 1, x)


@case(X)
def generator_expression_in_sum(x):
    return sum(x * i for i in range(4))


@case(X)
def comprehension_over_tensor_list(x):
    parts = [x, x * 2, x * 3]
    return torch.stack([p.sum(0) for p in parts])


@case(X)
def functools_reduce_like(x):
    acc = x
    for i in range(1, 4):
        acc = acc * i + 1
    return acc


@case(X)
def for_range_unrolled(x):
    for i in range(5):
        x = x + i
    return x


@case(X)
def for_with_break_continue(x):
    for i in range(10):
        if i == 1:
            continue
        if i == 4:
            break
        x = x * 1.5
    return x


@case(X)
def for_else(x):
    for i in range(3):
        if i == 10:
            break
    else:
        x = x + 100
    return x


@case(X)
def while_loop_on_constant(x):
    i = 0
    while i < 4:
        x = x + 1
        i += 1
    return x


@case(X)
def while_true_break(x):
    n = 0
    while True:
        n += 1
        if n > 3:
            break
    return x * n


@case(X)
def nested_loops(x):
    out = x
    for i in range(2):
        for j in range(3):
            out = out + i * j
    return out


@case(X)
def loop_over_tuple_of_tensors(x):
    total = 0
    for t in (x, x * 2, x * 3):
        total = total + t
    return total


@case(X)
def loop_over_dict_items(x):
    weights = {"a": 1.0, "b": 2.0}
    for name, w in weights.items():
        x = x * w
    return x


@case(X)
def loop_with_enumerate_and_zip(x):
    ys = [x, x + 1]
    zs = [2, 3]
    out = []
    for i, (a, b) in enumerate(zip(ys, zs)):
        out.append(a * b + i)
    return out


@case(X)
def if_on_shape(x):
    if x.shape[0] > 2:
        x = x * 2
    else:
        x = x / 2
    if x.dim() == 3:
        return x.sum()
    return x


@case(X)
def if_on_dtype(x):
    if x.dtype == torch.float32:
        return x.double()
    return x


@case(X, True)
def if_on_bool_arg(x, flag):
    if flag:
        return x + 1
    return x - 1


@case(X, "relu")
def if_on_string_arg(x, mode):
    if mode == "relu":
        return torch.relu(x)
    elif mode == "gelu":
        return torch.nn.functional.gelu(x)
    return x


@case(X)
def early_return_in_loop(x):
    for i in range(10):
        x = x + 1
        if i == 2:
            return x
    return x * 0


@case(X)
def isinstance_dispatch(x):
    def process(v):
        if isinstance(v, torch.Tensor):
            return v * 2
        if isinstance(v, (list, tuple)):
            return [process(i) for i in v]
        return v

    return process([x, (x, 3), 4])


@case(X)
def assert_passes(x):
    assert x.shape[0] == 3, "shape"
    assert isinstance(x, torch.Tensor)
    return x + 1


@case(X)
def try_finally_no_exception(x):
    try:
        y = x + 1
    finally:
        y = y * 2
    return y


@case(X)
def try_except_no_exception(x):
    try:
        y = x + 1
    except ValueError:
        y = x - 1
    return y


class Tracker:
    """A user context manager that records entering and leaving."""

    def __init__(self):
        self.log = []

    def __enter__(self):
        self.log.append("enter")
        return 5

    def __exit__(self, *exc):
        self.log.append("exit")
        return False


@case(X, Tracker())
def with_user_context_manager(x, tracker):
    with tracker as k:
        y = x * k
    return y, len(tracker.log)


class Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k

    def twice(self, x):
        return self(self(x))

    @property
    def double_k(self):
        return self.k * 2

    @staticmethod
    def static_add(a, b):
        return a + b

    @classmethod
    def make(cls, k):
        return k + 1


SCALER = Scale(3)


@case(X)
def user_object_call(x):
    return SCALER(x), SCALER.twice(x), SCALER.k


@case(X)
def user_object_property_static_class(x):
    return x * SCALER.double_k, Scale.static_add(x, 1), SCALER.static_add(x, 2), Scale.make(2), SCALER.make(3)


@case(X, Scale(2))
def user_object_arg(x, s):
    return s(x) + s.k


@case(X)
def functools_partial_global(x):
    return PARTIAL_ADD(x)


PARTIAL_ADD = functools.partial(helper_add, b=10)


@case(X)
def functools_partial_made_and_called(x):
    scale = functools.partial(helper_defaults, scale=3)
    nested = functools.partial(scale, shift=5)
    return scale(x), nested(x), functools.partial(torch.add, alpha=2)(x, x), nested.keywords["shift"]


@case(X)
def functools_partial_of_a_torch_function(x):
    return PARTIAL_GELU(x) + PARTIAL_ADD(x, b=1)


PARTIAL_GELU = functools.partial(torch.nn.functional.gelu, approximate="tanh")


@case(X)
def environment_reads(x):
    if os.environ.get("LOOM_CONFORMANCE_UNSET_FLAG", "0") == "1" or "LOOM_CONFORMANCE_UNSET" in os.environ:
        x = x * 100
    return x * len(os.getenv("LOOM_CONFORMANCE_UNSET_NAME", "ab")) + len(os.environ["PATH"]) * 0


@case(X)
def names_of_builtins(x):
    kind = KeyError
    return x + 1, kind.__name__, len.__qualname__, dict.__module__


@case(X, {1: 2})
def double_star_with_a_non_string_key(x, options):
    try:
        helper_varargs(**options)
    except TypeError:
        x = x + 1
    return x


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_call_and_control_semantics_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


def test_nested_function_keeps_its_identity_across_a_graph_break():
    from harness import assert_same, run_rewritten

    from loom_symbolic import translate_function

    def f(x):
        def count(v, store=[]):  # noqa: B006 - the shared default is the point
            store.append(v)
            return len(store)

        alias = count
        hex(id(x))  # a graph break (the id as a number): count is rebuilt once for both names
        alias.__defaults__ = ([9],)
        return x + count(1), alias is count

    translation = translate_function(f, X)
    assert translation.breaks
    assert_same(run_rewritten(f, translation, (X,), {}), f(X))


def test_a_global_defined_later_is_seen_instead_of_the_builtin_or_the_name_error():
    import types

    import loom_guards
    from loom_symbolic import translate_function

    namespace = {}  # the function's own globals, to change freely
    exec("def f(x):\n    try:\n        v = DEFINED_LATER\n    except NameError:\n        v = 1\n"
         "    return x * len(x) + v\n", namespace)
    f = namespace["f"]
    guard = loom_guards.compile(translate_function(f, X).guards)
    frame = types.SimpleNamespace(f_locals={"x": X}, f_globals=namespace, closure=f)
    assert guard.why_failed(frame) is None
    namespace["DEFINED_LATER"] = 5  # the trace took the NameError
    assert guard.why_failed(frame) is not None
    del namespace["DEFINED_LATER"]
    namespace["len"] = lambda v: 100  # the trace used builtins.len
    assert guard.why_failed(frame) is not None


def test_replacing_the_code_of_an_inlined_function_recompiles():
    import types

    import loom_guards
    from loom_symbolic import translate_function

    def scale(v):
        return v * 2

    def f(x, fn):
        return fn(x) + 1

    guard = loom_guards.compile(translate_function(f, X, scale).guards)
    frame = types.SimpleNamespace(f_locals={"x": X, "fn": scale}, f_globals=f.__globals__, closure=f)
    assert guard.why_failed(frame) is None
    scale.__code__ = (lambda v: v - 2).__code__  # the same function object, another body
    assert guard.why_failed(frame) is not None

"""Graph breaks inside nested calls, modelled on PyTorch's test/dynamo/test_nested_graph_breaks.py and
test/dynamo/_test_nested_graph_breaks_helper.py, for ``capture_count.py --only dynamo_tests_nested7``: a break
(``torch._dynamo.graph_break()``, a ``torch.compiler.disable``d helper or ``print``) two or three user calls
deep, inside loops, ``with`` blocks, try/finally, generators and comprehensions, nn.Module methods, with outer
locals, cells and returned values live across it. ``_more`` holds the module, generator and side-effect cases.
Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib

import torch

_SINK = []


@torch.compiler.disable
def _brk():
    """A real break: torch.compile and loom both run a disabled function natively (graph_break() loom erases)."""
    _SINK.append(None) if len(_SINK) < 0 else None


@torch.compiler.disable
def _opaque(t):
    return t * 2


@torch.compiler.disable
def _grad_on():
    return torch.is_grad_enabled()


def _leaf_break(t):
    t = t + 1
    torch._dynamo.graph_break()
    return t + 2


def _mid(t):
    return _leaf_break(t + 4) * 8


def _top(t):
    return _mid(t - 16) + 32


# -- depth ---------------------------------------------------------------------------------------------------
def c_nest7_three_deep(x):
    return _top(x) + 1


def c_nest7_two_calls_same_leaf(x):
    a = _leaf_break(x)
    b = _leaf_break(x * 3)
    return a + b


def c_nest7_break_each_level(x):
    def inner(t):
        t = t.cos()
        _brk()
        return t + 1

    def middle(t):
        t = t.sin()
        _brk()
        return inner(t) * 2

    return middle(x + 1) - 3


def c_nest7_many_args(x):
    def f1(a, b):
        s = a + b
        _brk()
        return s * 2

    def f2(a, b, c, d):
        return f1(a + b, c + d) - 1

    def f3(a, b):
        return f2(a, a + 1, b, b + 2) + 5

    return f3(x, x * 2)


def c_nest7_outer_locals_live(x):
    def f1(t):
        loc = t + 1
        _brk()
        return loc * 2

    def f2(t):
        l1 = t.sin()
        l2 = t.cos()
        return f1(t) + l1 + l2

    k1 = x + 10
    k2 = x * 3
    return f2(x) + k1 + k2


def c_nest7_opaque_deep(x):
    def f1(t):
        return _opaque(t + 1) + 1

    def f2(t):
        return f1(t * 2) * 3

    return f2(x) + x


def c_nest7_print_deep(x):
    def f1(t):
        print("inner", end="")
        return t.exp()

    def f2(t):
        return f1(t - 1) + 2

    return f2(x).sum() + x


def c_nest7_return_tuple_flows(x):
    def f1(t):
        a = t + 1
        _brk()
        return a, a * 2

    def f2(t):
        p, q = f1(t)
        return p - q, q

    u, v = f2(x)
    return u * v


def c_nest7_return_dict_flows(x):
    def f1(t):
        d = {"a": t + 1}
        _brk()
        d["b"] = d["a"] * 2
        return d

    def f2(t):
        out = f1(t)
        return out["a"] + out["b"]

    return f2(x)


def c_nest7_kwargs_through(x):
    def f1(t, *, scale=1.0, shift=0.0):
        t = t * scale
        _brk()
        return t + shift

    def f2(t, **kw):
        return f1(t, **kw) + 1

    return f2(x, scale=2.0, shift=3.0)


def c_nest7_varargs_through(x):
    def f1(*ts):
        s = sum(ts)
        _brk()
        return s / len(ts)

    def f2(t):
        return f1(t, t + 1, t + 2) * 2

    return f2(x)


def c_nest7_python_scalars_live(x):
    def f1(t, n):
        t = t + n
        _brk()
        return t * n

    def f2(t):
        n = 3
        m = 1.5
        return f1(t, n) + m

    return f2(x)


def c_nest7_default_arg_cell(x):
    def make(bias=2.0):
        def inner(t):
            t = t + bias
            _brk()
            return t * bias

        return inner

    return make()(x + 1) + 4


# -- loops ---------------------------------------------------------------------------------------------------
def c_nest7_loop_calls_breaking(x):
    def step(t, i):
        t = t + i
        _brk()
        return t * 0.5

    acc = x
    for i in range(3):
        acc = step(acc, i)
    return acc


def c_nest7_loop_in_callee(x):
    def f1(t):
        for i in range(2):
            t = t + i
            _brk()
        return t

    def f2(t):
        return f1(t * 2) + 1

    return f2(x)


def c_nest7_while_nested_break(x):
    def f1(t):
        _brk()
        return t.sin()

    i = 0
    while i < 3:
        x = f1(x) + i
        i += 1
    return x


def c_nest7_loop_over_list_nested(x):
    def f1(t, w):
        t = t * w
        _brk()
        return t + w

    out = []
    for w in [1.0, 2.0, 3.0]:
        out.append(f1(x, w))
    return torch.stack(out)


def c_nest7_enumerate_zip_nested(x):
    def f1(t, a, b):
        _brk()
        return t * a + b

    acc = x.clone()
    for i, (a, b) in enumerate(zip([1, 2], [3, 4])):
        acc = acc + f1(x, a, b) * i
    return acc


# -- with blocks ---------------------------------------------------------------------------------------------
def c_nest7_no_grad_outer_break_inner(x):
    def f1(t):
        t = t + 1
        _brk()
        return t * 2, torch.is_grad_enabled()

    def f2(t):
        with torch.no_grad():
            return f1(t + 4)

    r, g = f2(x)
    return r + 1, g


def c_nest7_grad_modes_stacked(x):
    def f1(t):
        with torch.no_grad():
            t = t + 1
            ok = _grad_on()
            return t + 2, ok

    def f2(t):
        with torch.enable_grad():
            t = t + 4
            a, ok1 = f1(t)
            ok2 = _grad_on()
            return a + 8, ok1, ok2

    with torch.no_grad():
        return f2(x + 16), _grad_on()


def c_nest7_user_ctx_break_inside(x):
    log = []

    class Ctx:
        def __enter__(self):
            log.append("in")
            return self

        def __exit__(self, *exc):
            log.append("out")
            return False

    def f1(t):
        with Ctx():
            t = t + 1
            _brk()
            t = t * 2
        return t

    return f1(x) + 3, log


def c_nest7_contextmanager_break_inside(x):
    log = []

    @contextlib.contextmanager
    def scope(tag):
        log.append(tag)
        yield tag
        log.append(tag + "!")

    def f1(t):
        with scope("a"):
            t = t.sin()
            _brk()
        return t + 1

    def f2(t):
        with scope("b"):
            return f1(t) * 2

    return f2(x), log


def c_nest7_ctx_created_before_break(x):
    def f1(t, ctx):
        t = t + 1
        _brk()
        with ctx:
            g = torch.is_grad_enabled()
        return t * 2, g

    def f2(t):
        return f1(t, torch.no_grad())

    return f2(x)


def c_nest7_inference_mode_nested(x):
    def f1(t):
        t = t * 3
        _brk()
        return t + 1

    def f2(t):
        with torch.inference_mode():
            return f1(t).clone()

    return f2(x) + 0


def c_nest7_set_grad_enabled_nested(x):
    def f1(t):
        _brk()
        return t * 2, torch.is_grad_enabled()

    def f2(t):
        with torch.set_grad_enabled(False):
            return f1(t + 1)

    return f2(x)


# -- try / finally -------------------------------------------------------------------------------------------
def c_nest7_finally_around_nested_break(x):
    log = []

    def f1(t):
        _brk()
        return t + 1

    def f2(t):
        try:
            return f1(t) * 2
        finally:
            log.append(1)

    return f2(x), log


def c_nest7_break_in_finally_callee(x):
    def f1(t):
        try:
            t = t + 1
        finally:
            _brk()
        return t * 3

    return f1(x) - 1


def c_nest7_except_after_nested_break(x):
    def f1(t):
        _brk()
        raise ValueError("boom")

    def f2(t):
        try:
            return f1(t)
        except ValueError:
            return t * 5

    return f2(x) + 1


def c_nest7_try_except_callee_breaks(x):
    def f1(t):
        try:
            _brk()
            return t.sqrt()
        except RuntimeError:
            return t

    def f2(t):
        return f1(t + 1) * 2

    return f2(x)


# -- closures and cells --------------------------------------------------------------------------------------
def c_nest7_cells_mutated_across(x):
    def f1(t):
        c1 = t + 1
        c2 = t + 2

        def f2(a):
            nonlocal c1
            c1 = c1 + 8

            def f3(b):
                nonlocal c2
                c2 = c2 + 16
                _brk()
                return b + c1 + c2

            return f3(a * 2)

        return f2(t), c1, c2

    return f1(x)


def c_nest7_cell_double_break(x):
    def f1(t):
        c = t + 1

        def f2(a):
            nonlocal c
            c = c * 2
            _brk()
            _brk()
            return a + c

        return f2(t + 4), c

    return f1(x)


def c_nest7_closure_over_outer_tensor(x):
    w = x * 2

    def f1(t):
        _brk()
        return t + w

    def f2(t):
        return f1(t) * w

    return f2(x + 1)


def c_nest7_closure_returned_then_called(x):
    def f1(t):
        def g(u):
            _brk()
            return u + t

        return g

    g = f1(x * 3)
    return g(x) + 1


def c_nest7_nonlocal_counter_across(x):
    n = 0

    def f1(t):
        nonlocal n
        n += 1
        _brk()
        n += 1
        return t + n

    y = f1(x)
    y = f1(y)
    return y, n
CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

"""Breaks several calls deep, in the manner of PyTorch's test/dynamo/test_nested_graph_breaks.py, for
``capture_count.py --only dynamo_tests_subgraphs``: a helper two or three calls down breaks while its callers
hold locals, arguments, cells, globals, loops, ``try`` blocks and context managers; the same breaking helper
called twice; breaks in ``__setattr__``/``__setitem__``/``__init__``/properties/operators of user classes,
in generators drained by the caller, in recursion, and in callees reached through closures.
A break is a call of a ``torch._dynamo.disable`` function or a ``print`` to a sink: both compilers break on them.
"""

from __future__ import annotations

import io

import torch

_SINK = io.StringIO()


def _say(*values):
    print(*values, file=_SINK)


@torch._dynamo.disable
def _disabled_add(a, b):
    return a + b


@torch._dynamo.disable
def _grad_mode():
    return torch.is_grad_enabled()


# -- one break, three calls deep (test_single_graph_break, test_doubly_nested_graph_break) ------------------
def _f1(x1):
    x1 = x1 + 1
    _say("f1")
    return x1 + 2


def _f2(x2):
    return _f1(x2 + 4) + 8


def c_dsg_nested_single_break(x):
    return _f2(x + 16) + 32


def _f2_twice(x2):
    tmp1 = _f1(x2 + 4)
    tmp2 = _f1(x2 + 8) * 16
    return tmp1 + tmp2


def c_dsg_nested_break_helper_called_twice(x):
    return _f2_twice(x + 256) + 512


def _f2_breaks_too(x2):
    x2 = x2 + 4
    _say("f2")
    return _f1(x2 + 8) + 16


def c_dsg_nested_break_at_two_depths(x):
    return _f2_breaks_too(x + 32) + 64


def _g1(a, b):
    t = a + b
    _say("g1")
    return t + 1


def _g2(a, b, c, d):
    return _g1(a + b, c + d) + 2


def _g3(a, b):
    return _g2(a, a + 4, b, b + 8) + 16


def c_dsg_nested_differing_arg_counts(x):
    return _g3(x, x + 32) + 64


def _h1(x1):
    loc1 = x1 + 1
    _say("h1")
    return loc1 + 2


def _h2(x2):
    loc1 = x2 + 4
    loc2 = x2 + 8
    return _h1(x2) + loc1 + loc2


def c_dsg_nested_callers_hold_locals(x):
    loc1 = x + 16
    loc2 = x + 32
    loc3 = x + 64
    return _h2(x) + loc1 + loc2 + loc3


def c_dsg_nested_break_in_one_trip_loop(x):
    x = x + 16
    for _ in range(1):
        x = _f2(x)
    return x + 32


def c_dsg_nested_break_then_own_break(x):
    x = x + 4
    x = _f1(x)
    _say("own")
    return x + 8


# -- context managers held by the callers (test_supported_ctx_manager, test_inactive_ctx_manager) -------------
def _in_no_grad(x):
    with torch.no_grad():
        x = x + 1
        seen = _grad_mode()
        return x + 2, seen


def _in_enable_grad(x):
    with torch.enable_grad():
        x = x + 4
        seen = _grad_mode()
        y, inner = _in_no_grad(x)
        return y + 8, seen, inner


def c_dsg_nested_grad_modes_across_breaks(x):
    with torch.no_grad():
        x = x + 16
        seen = _grad_mode()
        y, mid, inner = _in_enable_grad(x)
        return y + 32, seen, mid, inner, torch.is_grad_enabled()


def _enter_later(x, ctx1):
    x = x + 1
    ctx2 = torch.no_grad()
    _say("break")
    with ctx1:
        a = torch.is_grad_enabled()
    with ctx2:
        b = torch.is_grad_enabled()
    return x + 2, a, b


def c_dsg_nested_unentered_ctx_across_break(x):
    x = x + 16
    ctx = torch.no_grad()
    y, a, b = _enter_later(x, torch.no_grad())
    with ctx:
        c = torch.is_grad_enabled()
    return y + 32, a, b, c


def c_dsg_nested_no_grad_around_breaking_call(x):
    x = x + 4
    with torch.no_grad():
        x = _f1(x)
    return x + 8, torch.is_grad_enabled()


def _checks_no_grad(x):
    return _disabled_add(x, 1), _grad_mode()


def _no_grad_caller(x):
    with torch.no_grad():
        y, seen = _checks_no_grad(x + 2)
        return y + 4, seen


def c_dsg_nested_ctx_active_in_disabled_callee(x):
    with torch.enable_grad():
        y, seen = _no_grad_caller(x + 8)
        return y + 16, seen


class _BreakingCtx:
    def __init__(self, t):
        self.t = t
        _say("init")

    def __enter__(self):
        return self.t * 2

    def __exit__(self, *exc):
        return False


def c_dsg_ctx_whose_init_breaks(x):
    y = x + 1
    with _BreakingCtx(y) as z:
        y = y + z
    return y * 2


# -- cells and globals kept across a nested break (test_cells, test_side_effects_*) --------------------------
def c_dsg_nested_cells_written_then_break(x):
    cell1 = x + 1
    cell2 = x + 2

    def f2(x2, x3):
        nonlocal cell1
        cell3 = x2 + x3 + 4
        cell1 += 8

        def f3(x4):
            nonlocal cell2, cell3
            cell2 += 16
            cell3 += 32
            _say("f3")
            return x4 + cell1 + cell2 + cell3

        return f3(x2 + x3), cell3

    return (*f2(x + 64, x + 128), cell1, cell2)


def _adds_cell(x, cell1):
    cell1 += 2
    x = x + cell1
    _say("break")
    return x + cell1


def _maker(cell1=0):
    def inner(x):
        x += 4
        x = _adds_cell(x, cell1)
        return x + 8

    return inner


def c_dsg_nested_dead_cell_of_made_function(x):
    return _maker()(x + 16) + 32


def c_dsg_nested_cell_two_breaks(x):
    cell1 = x + 1

    def f2(x2):
        nonlocal cell1
        cell1 += 2
        _say("one")
        _say("two")
        return x2 + cell1

    return f2(x + 4), cell1


def c_dsg_nested_cells_rebound_by_callee(x):
    cell1, cell2, cell3, cell4 = x * 0, x * 0 + 4, x * 0, x * 0 + 8

    def f1():
        nonlocal cell1
        cell1 += 1
        _say("break")
        return cell1 + cell2

    def f2():
        nonlocal cell3
        cell3 += 2
        return f1() + cell3 + cell4

    return f2(), cell1, cell3


_G1 = _G2 = _G3 = _G4 = None


def _glob_f1():
    global _G1
    _G1 += 1
    _say("break")
    return _G1 + _G2


def _glob_f2():
    global _G3
    _G3 += 2
    return _glob_f1() + _G3 + _G4


def c_dsg_nested_globals_rebound_by_callee(x):
    global _G1, _G2, _G3, _G4
    _G1, _G2, _G3, _G4 = torch.zeros(3), torch.zeros(3) + 4, torch.zeros(3), torch.zeros(3) + 8
    return x + _glob_f2(), _G1, _G3


# -- loops, try blocks and returns around a nested break ---------------------------------------------------
def _loop_f1(x, i):
    x = x + 1
    if i == 5:
        _say("five")
    return x + 1


def _loop_f2(x, i):
    x = x + 1
    x = _loop_f1(x, i)
    return x + 1


def _loop_f3(x):
    for i in range(8):
        x = _loop_f2(x, i)
    return x


def c_dsg_nested_break_on_one_iteration(x):
    x = x + 1
    x = _loop_f3(x)
    return x + 1


def _always_breaks_in_loop(x):
    for i in range(6):
        x = _loop_f2(x, 5) + i
    return x


def c_dsg_nested_break_every_iteration(x):
    return _always_breaks_in_loop(x + 1) * 2


def _try_f3(x):
    x = x + 1
    try:
        x = x + 1
        x = _f2(x)
        x = x + 1
    finally:
        pass
    return x + 1


def c_dsg_nested_break_in_try_block(x):
    x = x + 1
    return _try_f3(x) + 1


def _gen(x):
    yield x + 1
    _say("gen")
    yield x + 2


def c_dsg_nested_generator_drained_by_list(x):
    x = x + 4
    return list(_gen(x))[1] + 16


def _returns_break_result(inner, x):
    x += 2
    return inner(x)


def _inner_returns_none(x):
    x += 1
    _say("break")


def c_dsg_nested_return_right_after_break(x):
    result = _returns_break_result(_inner_returns_none, x)
    x += 4
    if result is not None:
        x += result
    return x


@torch._dynamo.disable
def _disabled_inplace(x):
    x += 8
    return x


def _inplace_then_disabled(x):
    x += 1
    return _disabled_inplace(x)


def c_dsg_nested_every_callee_returns_disabled(x):
    x += 4
    return _returns_break_result(_inplace_then_disabled, x)


def _d2(x):
    return _disabled_add(x + 2, 1)


def _d4(x):
    x = _d2(x + 8)
    return x + 16


def _d6(x):
    return _d4(x + 64)


def c_dsg_nested_deep_disabled_returns(x):
    x = _d6(x + 128)
    return x + 256


def _inner_with_attr_holder(x1, x2):
    _say("break")
    return x1 + x2


class _Holder:
    def __init__(self):
        self.attr = 1


def c_dsg_nested_object_made_before_break(x):
    z = _Holder()
    y = _inner_with_attr_holder(x + 1, x + 2)
    return y + z.attr


def _recurse(x, n):
    if n <= 0:
        return x
    _say(n)
    return _recurse(x + 1, n - 1)


def c_dsg_nested_recursion_breaking_each_level(x):
    return _recurse(x * 2, 3) - 1


# -- breaks inside methods and dunders of user classes (test_nested_store_*_graph_break) ----------------------
class _SetattrBreaks:
    def __setattr__(self, name, value):
        _say("setattr")
        super().__setattr__(name, value + 1)


def c_dsg_nested_setattr_breaks(x):
    foo = _SetattrBreaks()
    foo.attr = x + 2
    return x + 4, foo.attr


class _SetitemBreaks:
    def __setitem__(self, name, value):
        _say("setitem")
        object.__setattr__(self, name, value + 1)


def c_dsg_nested_setitem_breaks(x):
    foo = _SetitemBreaks()
    foo["attr"] = x + 2
    return x + 4, foo.attr


class _Scaled:
    def __init__(self, t):
        self.t = t

    @property
    def doubled(self):
        _say("property")
        return self.t * 2

    def __add__(self, other):
        return _Scaled(_disabled_add(self.t, other))

    def step(self, k):
        y = self.t + k
        _say("step")
        return y * 2


def c_dsg_nested_property_breaks(x):
    s = _Scaled(x + 1)
    return s.doubled + 1


def c_dsg_nested_operator_breaks(x):
    s = _Scaled(x + 1) + 3
    return s.t * 2


def c_dsg_nested_method_breaks(x):
    s = _Scaled(x * 3)
    return s.step(1) - s.t


def c_dsg_nested_closure_callee_breaks(x):
    scale = x + 1

    def helper(t):
        t = t * scale
        _say("closure")
        return t + scale

    return helper(x) * 2


def c_dsg_nested_break_in_conditional_expression(x):
    y = x + 1
    z = _f1(y) if y.shape[0] == 3 else y
    return z * 2


def _kw_only_breaks(x, *, scale=2, shift=0):
    y = x * scale
    _say("kw")
    return y + shift


def c_dsg_nested_keyword_only_callee(x):
    return _kw_only_breaks(x + 1, shift=3) - 1


def _varargs_breaks(*ts, **kw):
    total = sum(ts)
    _say("varargs")
    return total * kw["k"]


def c_dsg_nested_varargs_callee(x):
    return _varargs_breaks(x, x + 1, x * 2, k=3) + 1


def _breaks_in_loop_body(x):
    for k in range(3):
        x = x + k
        _say(k)
    return x


def c_dsg_nested_callee_loop_breaks(x):
    y = x + 1
    y = _breaks_in_loop_body(y)
    return y * 2


def _breaks_in_with(x):
    with torch.no_grad():
        y = x * 2
        _say("with")
        return y + 1


def c_dsg_nested_callee_with_breaks(x):
    y = _breaks_in_with(x + 1)
    return y - 1, torch.is_grad_enabled()


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

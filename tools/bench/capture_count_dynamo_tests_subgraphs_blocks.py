"""Breaks inside blocks and expressions, after the restarts PyTorch's test/dynamo/test_subgraphs.py checks, for
``capture_count.py --only dynamo_tests_subgraphs``: a break in a user context manager's body, ``__enter__`` and
``__exit__``, in ``try``/``except``/``finally`` with the exception raised by the breaking call itself, in
``for``-``else`` and ``while True`` loops, in short-circuit and chained comparisons, in augmented assignments
to items and attributes, in ``match`` cases, with names unbound or deleted across it, and in ``return``
under ``finally``. A break is a call of a ``torch._dynamo.disable`` function or a ``print`` to a sink.
"""

from __future__ import annotations

import contextlib
import io

import torch

_SINK = io.StringIO()
_LOG = []


def _say(*values):
    print(*values, file=_SINK)


@torch._dynamo.disable
def _disabled_add(a, b):
    return a + b


@torch._dynamo.disable
def _disabled_raise(t, exc_type=ValueError):
    raise exc_type(f"bad {t.shape[0]}")


class _Scope:
    """A context manager written in Python that logs its entry and exit."""

    def __init__(self, tag, breaks_on=""):
        self.tag = tag
        self.breaks_on = breaks_on

    def __enter__(self):
        if self.breaks_on == "enter":
            _say("enter")
        _LOG.append(("in", self.tag))
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.breaks_on == "exit":
            _say("exit")
        _LOG.append(("out", self.tag, exc_type is not None))
        return self.tag == "swallow"


# -- user context managers ---------------------------------------------------------------------------------
def c_dsg_break_in_user_ctx_body(x):
    _LOG.clear()
    y = x + 1
    with _Scope("a"):
        y = _disabled_add(y, x)
        y = y * 2
    return y, list(_LOG)


def c_dsg_break_in_user_ctx_enter(x):
    _LOG.clear()
    y = x + 1
    with _Scope("a", "enter") as s:
        y = y * 2
    return y, s.tag, list(_LOG)


def c_dsg_break_in_user_ctx_exit(x):
    _LOG.clear()
    y = x + 1
    with _Scope("a", "exit"):
        y = y * 2
    return y + 1, list(_LOG)


def c_dsg_user_ctx_swallows_raise_after_break(x):
    _LOG.clear()
    y = x + 1
    with _Scope("swallow"):
        y = _disabled_add(y, x)
        raise KeyError("gone")
    return y, list(_LOG)


def c_dsg_two_ctx_in_one_with_break(x):
    _LOG.clear()
    y = x + 1
    with _Scope("a"), torch.no_grad():
        y = _disabled_add(y, x)
        g = torch.is_grad_enabled()
    return y * 2, g, list(_LOG)


def c_dsg_suppress_around_break(x):
    y = x + 1
    with contextlib.suppress(KeyError):
        y = _disabled_add(y, x)
        {}["missing"]
        y = y * 100
    return y - 1


# -- exceptions raised by the breaking call --------------------------------------------------------------
def c_dsg_disabled_call_raises_caught(x):
    y = x + 1
    try:
        _disabled_raise(y)
    except ValueError as e:
        y = y * len(str(e))
    return y


def c_dsg_disabled_call_raises_uncaught(x):
    y = x + 1
    _disabled_raise(y, KeyError)
    return y


def c_dsg_disabled_call_raises_under_no_grad(x):
    y = x + 1
    try:
        with torch.no_grad():
            y = y * 2
            _disabled_raise(y)
    except ValueError:
        pass
    return y, torch.is_grad_enabled()


def c_dsg_disabled_call_raises_through_finally(x):
    y = x + 1
    seen = []
    try:
        try:
            _disabled_raise(y, IndexError)
        finally:
            seen.append("finally")
            y = y * 3
    except IndexError:
        seen.append("caught")
    return y, seen


def c_dsg_reraise_after_break_in_handler(x):
    y = x + 1
    try:
        try:
            raise ValueError("first")
        except ValueError:
            y = _disabled_add(y, x)
            raise
    except ValueError as e:
        return y * 2, e.args


def c_dsg_return_break_under_finally(x):
    _LOG.clear()

    def inner(t):
        try:
            return _disabled_add(t, t)
        finally:
            _LOG.append("finally")

    return inner(x + 1) * 2, list(_LOG)


# -- loops -------------------------------------------------------------------------------------------------
def c_dsg_break_in_for_else(x):
    y = x + 1
    for k in range(2):
        y = _disabled_add(y, x * k)
    else:
        y = y * 10
    return y


def c_dsg_break_in_while_true(x):
    y = x + 1
    n = 0
    while True:
        y = _disabled_add(y, x)
        n += 1
        if n == 3:
            break
    return y, n


def c_dsg_break_in_while_tensor_condition(x):
    y = x + 1
    while y.sum() < 40:
        y = _disabled_add(y, y)
    return y


def c_dsg_break_in_loop_over_zip(x):
    y = x
    for a, b in zip([1, 2, 3], "abc"):
        y = _disabled_add(y, x * a)
        _LOG.append(b)
    return y


# -- expressions --------------------------------------------------------------------------------------------
def c_dsg_break_in_short_circuit_and(x):
    y = x + 1
    ok = y.shape[0] == 3 and _disabled_add(y, x).sum() > 0
    return y * 2 if ok else y


def c_dsg_break_in_chained_comparison(x):
    y = x + 1
    inside = 0 < _disabled_add(y, x).sum() < 100
    return y * (2 if inside else 3)


def c_dsg_break_in_conditional_test(x):
    y = x + 1
    return y * 2 if _disabled_add(y, x).sum() > 5 else y - 2


def c_dsg_break_in_keyword_argument(x):
    y = x + 1
    return torch.sum(y * 2, dim=_disabled_add(0, 0), keepdim=True)


def c_dsg_break_in_item_augassign(x):
    d = {"k": x + 1}
    lst = [x * 2]
    d["k"] += _disabled_add(x, x)
    lst[0] -= _disabled_add(x, 1)
    return d, lst


class _Box:
    def __init__(self, t):
        self.t = t


def c_dsg_break_in_attribute_augassign(x):
    b = _Box(x + 1)
    b.t *= _disabled_add(x, 2)
    return b.t + 1


def c_dsg_break_with_star_unpacking(x):
    first, *rest = _disabled_add(x, 1).unbind(0)
    return first * 2, torch.stack(rest) + 1


def c_dsg_break_walrus_kept(x):
    if (n := _disabled_add(x, 1).sum()) > 3:
        return x * n
    return x - n


# -- names across a break --------------------------------------------------------------------------------
def c_dsg_name_unbound_on_one_path(x):
    y = x + 1
    if y.shape[0] == 4:
        z = y * 2
    _say("break")
    try:
        return z
    except UnboundLocalError:
        return y - 1


def c_dsg_name_deleted_before_break(x):
    y = x + 1
    tmp = y * 2
    del tmp
    y = _disabled_add(y, x)
    return y, "tmp" in locals()


def c_dsg_global_assigned_across_break(x):
    global _STATE
    _STATE = x + 1
    y = _disabled_add(_STATE, x)
    _STATE = _STATE * y
    return _STATE - 1


_STATE = None


def c_dsg_closure_made_after_break(x):
    y = _disabled_add(x, 1)
    k = 3

    def scale(t):
        return t * k + y

    k = 4
    return scale(x)


def c_dsg_break_in_match_case(x):
    y = x + 1
    match y.shape:
        case (3,):
            y = _disabled_add(y, x)
        case _:
            y = y * 0
    return y * 2


def c_dsg_break_in_set_comprehension(x):
    y = x + 1
    keys = {int(_disabled_add(y, x * k).sum()) % 4 for k in range(4)}
    return y * len(keys), sorted(keys)


def c_dsg_break_in_dict_comprehension(x):
    y = x + 1
    d = {k: _disabled_add(y, x * k) for k in range(3)}
    return d[2] - d[0], list(d)


def c_dsg_break_in_generator_expression_tuple(x):
    y = x + 1
    return tuple(_disabled_add(y, x * k) for k in range(3))



# -- more from test_nested_graph_breaks.py ---------------------------------------------------------------
def _grad_f1(t):
    t = t * 2
    _say("grad")
    return t * 4


def _grad_f2(t):
    return (_grad_f1(t * 8) * 16).sum()


def c_dsg_nested_break_under_func_grad(x):
    return torch.func.grad(_grad_f2)(x * 32) * 64


def _tuple_with_break(x):
    x = x + 1
    ctx = (torch.no_grad(), _say("in tuple"))[0]
    x = x + 64
    _say("after")
    with ctx:
        g = torch.is_grad_enabled()
    return x + 2, g


def c_dsg_nested_ctx_made_beside_a_break(x):
    x = x + 16
    y, g = _tuple_with_break(x)
    return y + 32, g


def c_dsg_contextmanager_generator_breaks(x):
    inner = contextlib.contextmanager(_closing_gen)

    with inner(x + 1) as v:
        y = v * 2
    return y + 2


def _closing_gen(t):
    _say("enter")
    yield t * 3
    _say("exit")


def _rec(x, n):
    if n <= 0:
        return x
    _say(n)
    return _rec(x + 1, n - 1)


def c_dsg_recursive_break_at_each_depth(x):
    return _rec(x * 2, 4) + 1


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

"""Graph breaks and the subgraphs around them, in the manner of PyTorch's test/dynamo/test_subgraphs.py, for
``capture_count.py --only dynamo_tests_subgraphs``: a break before, after and between tensor work, a break in a
helper the frame calls (with positional, keyword and star arguments, with constants and tensors waiting on the
stack), branches on tensors, breaks inside ``if``/``for``/``while``/``with``/``try`` bodies, early returns,
iterators, ranges, lists and aliases of builtins live across a break, and grad-mode blocks resumed after one.
The breaks several calls deep (test_nested_graph_breaks.py) are in ``capture_count_dynamo_tests_subgraphs_more.py``.
A break is a call of a ``torch._dynamo.disable`` function or a ``print`` to a sink: both compilers break on them.
"""

from __future__ import annotations

import io

import torch

_SINK = io.StringIO()
_RELU = torch.nn.ReLU()


@torch._dynamo.disable
def _unsupported(a, b):
    return a + b


def _indirectly_unsupported(a, b):
    c = a + b
    return _unsupported(a, c)


def _say(*values):
    print(*values, file=_SINK)


# -- branches on tensors (test_control_flow*) -----------------------------------------------------------------
def c_dsg_branch_returns_either_difference(x):
    c1 = x - 1
    c2 = 1 - x
    if c1.sum() > c2.sum():
        return c1
    return c2


def c_dsg_branch_returns_constant(x):
    if x.sum() > (x * 2).sum():
        return 1
    return 2


def c_dsg_branch_calls_global_module(x):
    c1 = x - 1
    c2 = 1 - x
    m = _RELU
    if c1.sum() > c2.sum():
        return m(c1)
    return m(c2)


def c_dsg_and_of_tensor_comparisons(x):
    tmp = x.sum() > (x - 1).sum() and x.sum() > 0
    if tmp:
        return x + 1
    return x - 1


def c_dsg_or_and_kept_as_values(x):
    a, b = x, x - 1.5
    tmp1 = a.sum() > b.sum() and a.sum() > 0
    tmp2 = a.sum() < b.sum() or b.sum() > 0
    if tmp1 and tmp2:
        return 1, tmp1, tmp2
    return 2, tmp1, tmp2


def c_dsg_multigraph_negate_when_negative(x):
    y = (x - 5) / 2.0
    if y.sum() < 0:
        return y * -1.0
    return y


# -- a disabled callee (test_capi_call*, test_indirect_unsupported*, test_stack_state*) ---------------------
def c_dsg_disabled_call_is_result(x):
    c1 = x - 1
    c2 = 1 - x
    return _unsupported(c1, c2)


def c_dsg_disabled_call_inside_expression(x):
    c1 = x - 1
    c2 = 1 - x
    return x - (x * 2 - _unsupported(c1, c2))


def c_dsg_indirectly_disabled(x):
    return _indirectly_unsupported(x - 1, 1 - x)


def c_dsg_indirect_with_constants_on_stack(x):
    local_const1 = 7
    local_const2 = 22
    c1 = x - 1
    c2 = 1 - x
    return local_const1 / (local_const2 - _indirectly_unsupported(c1, c2))


def c_dsg_indirect_with_star_args(x):
    args = [x - 1, 1 - x]
    return _indirectly_unsupported(*args)


def c_dsg_tensors_waiting_on_stack(x):
    t1 = 1.23 * x
    t2 = 4.56 * x
    return t1 / (t2 - _unsupported(x - 1, 1 - x))


def c_dsg_tensors_waiting_on_stack_indirect(x):
    t1 = 1.23 * x
    t2 = 4.56 * x
    return t1 / (t2 - _indirectly_unsupported(x - 1, 1 - x))


# -- resuming after a break (test_resume*, test_start*) --------------------------------------------------------
def c_dsg_resume_after_disabled(x):
    y = (x + 1) / 2.0 + 2.0
    y = _unsupported(y, x)
    return y + 2.0 + 2.0 + 2.0


def c_dsg_resume_after_indirect_keyword(x):
    y = (x + 1) / 2.0 + 2.0
    y = _indirectly_unsupported(y, b=x)
    return y + 2.0 + 2.0


def c_dsg_resume_after_indirect_all_keywords(x):
    y = (x + 1) / 2.0 + 2.0
    y = _indirectly_unsupported(a=y, b=x)
    return y + 2.0 + 2.0


def c_dsg_resume_after_print(x):
    y = (x + 1) / 2.0 + 2.0
    _say(y)
    return y + 2.0 + 2.0 + 2.0


def c_dsg_start_with_print(x):
    _say("start")
    y = x + 1
    return y + 2.0 + 2.0


def c_dsg_start_with_indirect(x):
    y = _indirectly_unsupported(x, x + 1)
    return y + 2.0 + 2.0


def c_dsg_start_with_disabled(x):
    y = _unsupported(x, x)
    return y + 2.0 + 2.0


def c_dsg_resume_reads_freevars(x):
    c1 = torch.ones(3)
    c2 = torch.full((3,), 0.5)

    def fn(a):
        y = a + (c1 - c2)
        y = _unsupported(y, y)
        return y + (c1 - c2)

    return fn(x * 2)


def c_dsg_builtin_alias_live_across(x):
    len_ = len
    y = x + 1
    y = torch.add(_unsupported(y, y), 1)
    return x * y + len_(x)


def c_dsg_range_live_across(x):
    y = x + 1
    rng = range(3, 8, 2)
    y = _unsupported(y, y)
    for i in rng:
        y = y + i
    return y


def c_dsg_range_iterator_live_across(x):
    y = x + 1
    rng = iter(range(3, 8, 2))
    y = _unsupported(y, y)
    y += next(rng)
    return y, list(rng)


def c_dsg_list_popped_after_resume(x):
    tmp = [x + 1, x + 2, x * 2]
    y = x
    y = _unsupported(y, y)
    for _ in range(3):
        y += tmp.pop(-1)
    return y, len(tmp)


def c_dsg_tuple_iterator_across(x):
    it = iter(tuple(range(10)))
    y = x + next(it)
    y = y + next(it)
    y = _unsupported(y, y)
    y = y + next(it)
    y = y + next(it)
    return y


def c_dsg_tuple_iterator_returned(x):
    it = iter(tuple(range(10)))
    y = x + next(it)
    y = _unsupported(y, y)
    y = y + next(it)
    y = _unsupported(y, y)
    y = y + next(it)
    return y, list(it)


def c_dsg_item_read_and_dropped(x):
    y = x + 2 - 1.5
    y = y.sum()
    y.item()
    return y / (x + 2)


def c_dsg_tolist_between(x):
    y = x + 1
    values = y.sum().tolist()
    return y * values


def c_dsg_enumerate_shape(x):
    b = x
    for _, n in enumerate(x.shape):
        b = b + n
    for i, n in enumerate(b.shape, 8):
        b = b + n * i
    return b


def c_dsg_paths_join_on_flags(x, c1, c2, c3):
    x = x + 1
    if c1:
        x = x + 2
    x = x + 3
    if c2:
        x = x + 4
    x = x + 5
    if c3:
        x = x + 6
    return x + 7


c_dsg_paths_join_on_flags.extra_args = lambda: (True, False, True)


def c_dsg_paths_join_on_tensor_flags(x):
    y = x + 1
    if (x > 1).any():
        y = y + 2
    y = y + 3
    if (x > 5).any():
        y = y + 4
    return y + 5


# -- grad-mode blocks resumed after a break (test_resume_with_no_grad*) -------------------------------------
def c_dsg_no_grad_break_inside(x):
    y = x + 1
    with torch.no_grad():
        y = y + 1
        y.sum().tolist()
        y = y + 2
    return y + 3, torch.is_grad_enabled()


def c_dsg_no_grad_two_breaks_inside(x):
    y = x + 1
    with torch.no_grad():
        y = y + 1
        _say("one")
        y = y + 2
        _say("two")
        y = y + 3
    return y + 4


def c_dsg_no_grad_nested_enable_grad_break(x):
    y = x.requires_grad_(True) * 1
    with torch.no_grad():
        with torch.no_grad():
            y = y + 1
            with torch.enable_grad():
                _say("inside")
                y = y[0] + 2
                inner = torch.is_grad_enabled()
            y = y + 3
    return y + 4, inner, y.requires_grad


# -- breaks inside statement bodies -------------------------------------------------------------------------
def c_dsg_break_in_if_body(x):
    y = x * 2
    if y.shape[0] == 3:
        _say("taken")
        y = y + 1
    return y - 1


def c_dsg_break_in_else_body(x):
    y = x * 2
    if y.shape[0] == 4:
        y = y + 1
    else:
        y = _unsupported(y, x)
    return y - 1


def c_dsg_break_in_for_body(x):
    y = x + 1
    for i in range(4):
        y = y * 2
        y = _unsupported(y, x)
        y = y - i
    return y + 1


def c_dsg_break_in_for_over_list(x):
    y = x + 1
    total = 0
    for k in [1, 2, 3]:
        y = _unsupported(y, x * k)
        total += k
    return y * total


def c_dsg_break_in_while_body(x):
    y = x + 1
    n = 0
    while n < 3:
        y = y + n
        _say(n)
        n += 1
    return y * n


def c_dsg_break_in_nested_loops(x):
    y = x
    for i in range(2):
        for j in range(2):
            y = _unsupported(y, x) + i * j
    return y.sum()


def c_dsg_break_in_loop_then_return_early(x):
    y = x + 1
    for i in range(5):
        y = _unsupported(y, x)
        if i == 1:
            return y * 10
    return y


def c_dsg_break_in_with_body(x):
    y = x + 1
    with torch.enable_grad():
        y = _unsupported(y, x)
        y = y * 2
    return y + 1


def c_dsg_break_in_try_body(x):
    y = x + 1
    try:
        y = _unsupported(y, x)
        y = y * 2
    finally:
        y = y + 1
    return y - 1


def c_dsg_break_in_except_body(x):
    y = x + 1
    try:
        raise ValueError("caught")
    except ValueError:
        y = _unsupported(y, x)
    return y * 2


def c_dsg_break_in_finally_body(x):
    y = x + 1
    try:
        y = y * 3
    finally:
        _say("finally")
    return y - 1


def c_dsg_break_then_raise_caught(x):
    y = x + 1
    try:
        y = _unsupported(y, x)
        if y.shape[0] == 3:
            raise KeyError("k")
    except KeyError as e:
        y = y + len(e.args)
    return y


def c_dsg_early_return_before_break(x):
    y = x * 2
    if y.shape[0] == 3:
        return y + 1
    _say("never")
    return y


def c_dsg_early_return_after_break(x):
    y = x * 2
    y = _unsupported(y, x)
    if y.dim() == 1:
        return y + 1
    return y - 1


def c_dsg_three_breaks_in_a_row(x):
    y = x + 1
    _say("a")
    y = y * 2
    _say("b")
    y = y - 3
    _say("c")
    return y / 2


def c_dsg_break_between_call_args(x):
    a = x + 1
    return torch.cat([a, _unsupported(a, x), a * 2])


def c_dsg_break_in_list_comprehension(x):
    y = x + 1
    parts = [_unsupported(y, x * k) for k in range(3)]
    return torch.stack(parts).sum(0)


def c_dsg_break_in_generator_sum(x):
    y = x + 1
    return sum(_unsupported(y, x * k) for k in range(3)) * 2


def c_dsg_break_in_lambda(x):
    f = lambda t: _unsupported(t, t) + 1  # noqa: E731
    return f(x * 2) - 1


def c_dsg_constants_live_across(x):
    scale, name, opts = 2.5, "w", {"k": 3, "flag": True}
    y = x * scale
    y = _unsupported(y, x)
    return y * opts["k"] + len(name) if opts["flag"] else y


def c_dsg_tensors_live_across(x):
    a, b, c = x + 1, x * 2, x - 3
    _say("break")
    return a * b + c


def c_dsg_dict_of_tensors_live_across(x):
    d = {"a": x + 1, "b": x * 2}
    _say("break")
    d["c"] = d["a"] - d["b"]
    return d


def c_dsg_kwargs_live_across(x, **kw):
    y = x * kw.get("scale", 1)
    y = _unsupported(y, x)
    return y + kw.get("shift", 0)


def c_dsg_counter_global_across(x):
    global _TICKS
    _TICKS = 0
    y = x + 1
    _TICKS += 1
    y = _unsupported(y, x)
    _TICKS += 1
    return y * _TICKS


_TICKS = 0


def c_dsg_cell_written_after_break(x):
    acc = x + 1

    def bump(k):
        nonlocal acc
        acc = acc + k

    bump(1)
    _say("break")
    bump(2)
    return acc


def c_dsg_restart_from_argument_reassigned(x):
    x = x * 2
    x = _unsupported(x, x)
    x = x + 1
    x = _unsupported(x, x)
    return x


def c_dsg_tensor_method_break_tolist(x):
    y = (x + 1).tolist()
    return torch.tensor(y) * 2 + x


def c_dsg_print_formatted_tensor(x):
    y = x * 2
    _say(f"sum={y.sum()}")
    return y + 1


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

"""Programs that break (``print``) and go on, after Paddle's SOT test_analysis_inputs and test_break_graph for
``capture_count.py --only paddle12``: what the code after the break reads (locals set in one branch only, a
name read before it is bound, loops with ``continue`` after dead code, a loop whose range comes from a tensor
size), and breaks inside ``with``, ``try``, loops and nested calls. torch.compile breaks at each ``print`` too:
these check that loom breaks no more often, and resumes with the right locals.
"""

from __future__ import annotations

import torch


def _noisy(v):
    print("noisy", v.shape)
    return v + 1


def c_p12r_branch_local_read_after_break(x):
    y = x + 1
    z = x + 2
    print("break")
    if z.sum() > 0:
        a = y * 2
    else:
        a = y - 2
    return a + z


def c_p12r_unbound_local_raises_after_break(x):
    z = x + 2
    print("break")
    try:
        if z.sum() < 0:
            a = 1
        else:
            a += 1  # reading it unbound is the construct
    except UnboundLocalError:
        a = -1
    return z + a


def c_p12r_loop_continue_dead_code_after_break(x):
    x = _noisy(x)
    for i in range(10):
        x += 1
        if i > 5:
            continue
            x += 10086  # unreachable on purpose
        x += i
    return x


def c_p12r_range_of_size_after_break(x):
    n = x.shape[0]
    print("break")
    y = None
    for i in range(n):
        y = x[i] + i
    return y + 1


def c_p12r_break_inside_with_no_grad(x):
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        a = w * x
        print("inside")
        b = w * x + 1
    c = w * x
    return a, b, c, b.requires_grad, c.requires_grad


def c_p12r_break_inside_try_finally(x):
    log = []
    try:
        x = x + 1
        print("inside try")
        x = x * 2
    finally:
        log.append("finally")
    return x, log


def c_p12r_break_in_loop_body(x):
    acc = []
    for i in range(3):
        x = x + i
        print("step", i)
        acc.append(x * 2)
    return torch.stack(acc), x


def c_p12r_break_two_calls_deep(x):
    def outer(v):
        return inner(v) * 2

    def inner(v):
        v = v + 1
        print("deep")
        return v - 3

    return outer(x) + 1


def c_p12r_closure_cell_written_after_break(x):
    count = 0

    def bump(v):
        nonlocal count
        count += 1
        return v + count

    y = bump(x)
    print("break")
    y = bump(y)
    return y, count


def c_p12r_generator_consumed_across_break(x):
    gen = (x * i for i in range(4))
    first = next(gen)
    print("break")
    rest = list(gen)
    return first, torch.stack(rest)


def c_p12r_dict_and_list_built_across_break(x):
    d = {"a": x + 1}
    items = [x]
    print("break")
    d["b"] = d["a"] * 2
    items.append(d["b"])
    return d, items


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

"""Loops over iterators with a graph break in every pass, one small program each, for ``capture_count.py``:
``for`` over list, tuple, range, dict-key, enumerate and zip iterators passed in or made by ``iter()`` in the
frame, comprehensions (3.11: their own function looping over the iterator ``.0``) with a break in the
element, nested loops, an early ``break``, ``else:`` clauses, a body that raises, and a caller that keeps
using the iterator afterwards (its state is part of the answer). The break is a ``print``, which loom and
torch.compile both leave to ordinary Python.
"""

from __future__ import annotations

import torch


def _brk(t):
    print("", end="")  # prints nothing: a break under loom and torch.compile
    return t


def _over(x, it):
    out = x
    for i in it:
        out = _brk(out * 0.5 + i) + 1
    return out


# ---- a loop over an iterator passed in, then the caller reads what is left ----

def c_il_list_iter_passed(x):
    it = iter([k % 7 + 1 for k in range(30)])
    return _over(x, it), list(it)


def c_il_tuple_iter_passed(x):
    it = iter(tuple(k * 3 for k in range(30)))
    return _over(x, it), next(it, "end")


def c_il_range_iter_passed(x):
    it = iter(range(30))
    return _over(x, it), list(it)


def c_il_dict_keys_iter_passed(x):
    it = iter({k * 2 + 1: k for k in range(30)})
    return _over(x, it), list(it)


def c_il_list_iter_four(x):
    it = iter([3, 1, 4, 1])
    return _over(x, it), list(it)


def c_il_list_iter_hundred(x):
    it = iter([k % 9 for k in range(100)])
    return _over(x, it)


def c_il_iter_argument(x, it):
    out = x
    for i in it:
        out = _brk(out * 0.5 + i) + 1
    return out, list(it)


c_il_iter_argument.extra_args = lambda: (iter([k % 5 for k in range(30)]),)


def c_il_iter_made_in_frame(x):
    it = iter(list(range(30)))
    out = x
    for i in it:
        out = _brk(out + i)
    return out, list(it)


# ---- early exit, else, raising ----

def _until(x, it, stop):
    out = x
    for i in it:
        out = _brk(out * 0.9 + i)
        if i >= stop:
            break
    else:
        out = out - 100
    return out


def c_il_early_break_rest_kept(x):
    it = iter(range(40))
    first = _until(x, it, 25)
    return first, list(it)


def c_il_for_else(x):
    it = iter(list(range(30)))
    return _until(x, it, 1000), list(it)


def _raising(x, it):
    out = x
    for i in it:
        out = _brk(out + i)
        if i == 20:
            raise ValueError("at", i)
    return out


def c_il_body_raises(x):
    it = iter(range(30))
    try:
        _raising(x, it)
    except ValueError as exc:
        return exc.args, list(it)
    return None


def c_il_resume_after_loop(x):
    it = iter(range(60))
    a = _until(x, it, 20)
    b = _until(a, it, 45)
    return b, list(it)


# ---- enumerate, zip ----

def c_il_enumerate_iter(x):
    it = iter([k % 4 for k in range(30)])
    out = x
    for n, v in enumerate(it):
        out = _brk(out * 0.5 + v) + n
    return out, list(it)


def c_il_zip_iters(x):
    a = iter(range(30))
    b = iter([k % 3 for k in range(40)])
    out = x
    for i, v in zip(a, b):
        out = _brk(out + i * v)
    return out, list(a), list(b)


def c_il_enumerate_passed(x):
    it = enumerate([k % 4 for k in range(30)])
    return _over(x, (v for _, v in it))


# ---- comprehensions with a break in the element ----

def c_il_listcomp_range(x):
    ys = [_brk(x * i) + 1 for i in range(30)]
    return sum(ys)


def c_il_listcomp_over_iterator(x):
    it = iter([k % 6 for k in range(30)])
    ys = [_brk(x * v) for v in it]
    return torch.stack(ys).sum(0), list(it)


def c_il_dictcomp_range(x):
    d = {i: _brk(x + i) for i in range(30)}
    return d[29], len(d)


def c_il_setcomp_range(x):
    s = {_brk(x * i).shape[0] * (i % 7) for i in range(30)}
    return x + len(s), sorted(s)


# ---- nested loops ----

def c_il_nested_iters(x):
    out = x
    outer = iter(range(6))
    for i in outer:
        inner = iter(range(5))
        for j in inner:
            out = _brk(out * 0.99 + i * j)
    return out


def c_il_nested_comprehension(x):
    rows = [[_brk(x + i * j) for j in range(5)] for i in range(6)]
    return torch.stack([torch.stack(r) for r in rows]).sum()


def c_il_generator_passed(x):
    return _over(x, (k % 8 for k in range(30)))


def c_il_float_items(x):
    it = iter([1.0 + k / 10 for k in range(30)])  # a float item: a SymFloat input once it changed
    return _over(x, it), list(it)


def c_il_float_list_loop(x):
    out = x
    for v in [0.5 + k / 16 for k in range(30)]:  # each pass's resume functions receive another float
        out = _brk(out * v) + v * 2.0
    return out


def c_il_nested_comprehension_three(x):
    cube = [[[_brk(x * i + j - k) for k in range(3)] for j in range(4)] for i in range(5)]
    return torch.stack([torch.stack([torch.stack(r) for r in plane]) for plane in cube]).sum()


CONSTRUCTS = [
    c_il_list_iter_passed, c_il_tuple_iter_passed, c_il_range_iter_passed, c_il_dict_keys_iter_passed,
    c_il_list_iter_four, c_il_list_iter_hundred, c_il_iter_argument, c_il_iter_made_in_frame,
    c_il_early_break_rest_kept, c_il_for_else, c_il_body_raises, c_il_resume_after_loop,
    c_il_enumerate_iter, c_il_zip_iters, c_il_enumerate_passed, c_il_listcomp_range, c_il_listcomp_over_iterator,
    c_il_dictcomp_range, c_il_setcomp_range, c_il_nested_iters, c_il_nested_comprehension, c_il_generator_passed,
    c_il_float_items, c_il_float_list_loop, c_il_nested_comprehension_three,
]

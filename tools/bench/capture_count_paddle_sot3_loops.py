"""Loops with breaks inside them, after Paddle's SOT tests (test_12_for_loop, test_analysis_inputs, test_listcomp,
test_resume_cache), with torch, for ``capture_count.py --only paddle_sot3``: a print (a break in both compilers)
inside for loops over lists, ranges, dict views, argument iterators and generators, with locals made in the loop,
names shadowing globals, ``None`` checks filled in the loop, and values read after the loop.
"""

from __future__ import annotations

import torch


def _gener():
    yield 1
    yield 2
    yield 3


def c_ps3l_break_in_loop_over_list(x):
    y = None
    z = None
    for i in [1, 2, 3]:
        if y is None:
            y = i
        if z is None:
            z = i
        x = x + y + z
        print("step", i)
    return x


def c_ps3l_break_in_loop_over_range_reads_later(x):
    total = 0
    for i in range(3):
        shadow = i + 3
        print("range", i)
        total += shadow
    return x + total, shadow


_global_shadow = None


def c_ps3l_local_named_like_global_across_break(x):
    total = 0
    for i in range(2):
        _global_shadow = i + 3
        print("shadow")
        total += _global_shadow
    return x + total, _global_shadow is None


def c_ps3l_break_in_loop_over_argument_iterator(x, it):
    s = x
    for i in it:
        tmp = i
        s = s + tmp
        print("iter", i)
    return s, tmp


c_ps3l_break_in_loop_over_argument_iterator.extra_args = lambda: (iter([1, 2, 3]),)


def c_ps3l_break_in_loop_over_generator(x, gen):
    for item in gen:
        x = x + item
        if item == 2:
            print("two")
    return x


c_ps3l_break_in_loop_over_generator.extra_args = lambda: (_gener(),)


def c_ps3l_break_in_nested_loops(x):
    for i in [1, 2]:
        for j in range(i):
            x = x + i * j
            print("inner", i, j)
        x = x * 2
    return x


def c_ps3l_break_in_loop_over_dict_items(x):
    table = {1: 2, 3: 4}
    for k, v in table.items():
        x = x + k * v
        print("kv", k)
    return x, list(table)


def c_ps3l_pop_argument_dict_in_loop(x, res):
    out = {"logits": x}
    for key in list(res):
        out[key] = res.pop(key)
    return out, res


c_ps3l_pop_argument_dict_in_loop.extra_args = lambda: ({"a": 1, "b": torch.ones(2)},)


def c_ps3l_undefined_until_loop(x):
    for i in [1, 2]:
        print("before")
        aaa = i
    for i in [1, 3]:
        zzz = i
    return x + zzz + aaa


def c_ps3l_modules_by_enumerate(x, layers):
    out = None
    for idx, layer in enumerate(layers):
        out = layer(x.reshape(1, 3)[idx])
    return out


c_ps3l_modules_by_enumerate.extra_args = lambda: (torch.nn.ModuleList([torch.nn.Linear(3, 2)]),)


def c_ps3l_module_list_loop_with_break(x, layers):
    for net in layers:
        x = net(x)
        print("layer")
    return x


c_ps3l_module_list_loop_with_break.extra_args = lambda: (
    torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)]),)


def c_ps3l_loop_over_arange_tensor(x):
    for i in torch.arange(0, 3):
        x = x + i
    return x


def c_ps3l_comprehension_after_break(x):
    print("fallback")
    sizes = [len(t) for t in (x, x[:2])]
    return torch.tensor(sizes) + 1, [t.chunk(2) for t in (x.reshape(1, 3), x.reshape(3, 1))]


def c_ps3l_continue_and_break_on_ints(x, it):
    for i in [1, 2, 3]:
        if i == 2:
            continue
        x = x + i
    for i in it:
        x = x + i
        if i == 2:
            break
    return x, list(it)


c_ps3l_continue_and_break_on_ints.extra_args = lambda: (iter([1, 2, 3, 4]),)


def c_ps3l_while_with_break_and_counter(x):
    n = 0
    while True:
        n += 1
        x = x * 2
        if n >= 3:
            break
        print("while", n)
    return x, n


def c_ps3l_loop_skipped_reads_default(x, items):
    last = None
    for last in items:  # noqa: B007 - the loop variable read after the loop is the construct
        pass
    return x + (0 if last is None else last)


c_ps3l_loop_skipped_reads_default.extra_args = lambda: ([],)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

"""Paddle's SOT tests (``test/sot/test_01`` .. ``test_12``: basic, in-place stores, tuples, lists, dicts, calls,
unpacking, stack rotation, f-strings, build-unpack, jumps, for loops) rebuilt in our own words with torch, for
``capture_count.py`` (``--only paddle_sot`` runs them with ``capture_count_paddle_sot_more.py``'s).
"""

from __future__ import annotations

import contextlib
import operator

import torch


# -- basic, in-place stores, tuples --------------------------------------------------------------
def c_sot_inplace_store_subscr(x):
    a = [x, x + 1]
    a[0] += 2
    a[1] *= a[0]
    d = {"k": x}
    d["k"] -= 1
    return a, d


def c_sot_tuple_ops(x):
    s = x.sum()
    t = (1, s, 2, s)
    return x + t.count(1) + t.index(2) + t[1] + len(t[1:3]), t + (3,), t * 2 == t + t, (1, 2) < (1, 3)  # noqa: RUF005


def c_sot_tuple_of_tensors_index(x):
    s = x.sum()
    y = s + 1
    t = (s, y, s)
    return t.index(y), t.count(s), t[-1] + t[0] + x


# -- lists ---------------------------------------------------------------------------------------
def c_sot_list_methods_mixed(x):
    z = [2, x, 1]
    z.insert(1, 5)
    z.remove(5)
    z.append(x * 2)
    a = z.pop(0)
    z.extend((x, 3))
    del z[-1]
    b = z.copy()
    z.reverse()
    z.clear()
    return a, b, z


def c_sot_list_index_count_ints(x):
    n = 2
    z = [n, n, 1, 3]
    return x + z.count(n) + z.index(3), [1, 2, 3] == [1, 2, 3], [1, 2] != [1, 3]


def c_sot_list_sort_variants(x):
    n = 4
    z = [n + 2, n, n + 1]
    z.sort()
    w = [n + 2, n, n + 1]
    w.sort(reverse=True)
    v = sorted([n, -n, 1], key=abs)
    return x + z[0] + w[0] + v[0], z, w, v


def c_sot_list_of_tensors_sort(x):
    z = [x.sum() + 2, x.sum(), x.sum() + 1]
    z.sort()
    return z[0] + z[2]


def c_sot_list_max_min_tensors(x):
    return max([x.sum(), x.sum() * 2, 1.0]), min([x[0], x[1]])


def c_sot_list_count_index_tensor_arg(x, items):
    return items.count(items[1]), items.index(items[2]), x + len(items)


c_sot_list_count_index_tensor_arg.extra_args = lambda: ([torch.tensor(1.0), torch.tensor(0.0), torch.tensor(2.0)],)


# -- dicts ---------------------------------------------------------------------------------------
def c_sot_dict_int_keys(x):
    n = 2
    z = {1: x, n: x + 1}
    z[n] = z[n] * 2
    return z[n] + z.get(3, 1) + z.get(1), z.get(4, x)


def c_sot_dict_setdefault_pop_popitem(x):
    z = {1: x, 2: x + 1, 3: x * 2}
    a = z.setdefault(4)
    b = z.setdefault(1, 2)
    c = z.pop(2)
    d = z.pop(9, 5)
    e = z.popitem()
    return z, a, b, c, d, e


def c_sot_dict_update_copy_clear(x):
    z = {1: x, 2: x + 1}
    w = z.copy()
    z.update({1: x * 2, 3: z[2] + 2})
    z.update(k=1)
    del w[1]
    q = dict(w)
    w.clear()
    return z, w, q


def c_sot_dict_constructors(x):
    a = dict([[1, 2], [3, 4]])
    b = dict(((1, 2), (3, 4)))
    c = dict(p=1, q=2)
    d = {k: v + 1 for k, v in a.items()}
    return x + a[3] + b[1] + c["q"] + d[1], dict.fromkeys([1, 2]), dict.fromkeys((1, 2), x)


def c_sot_dict_keyerror_caught(x):
    y = x + 1
    try:
        y = y * 3
        {}["missing"]
        y = y - 3
    except KeyError as e:
        y = y / 3 + len(e.args)
    return y


class _Lookup:
    def __init__(self, data):
        self.data = data

    def __getitem__(self, key):
        try:
            return self.data[key]
        except KeyError:
            raise


def c_sot_user_getitem_reraises_keyerror(x):
    table = _Lookup({"a": 1})
    try:
        x = x + table["a"]
        x = x + table["b"]
    except KeyError:
        x = x * 5
    return x


# -- calls ---------------------------------------------------------------------------------------
def _mixed_signature(a, b=2, *args, c, d=4, **kwargs):
    return a + b + sum(args) + c + d + sum(kwargs.values())


def c_sot_call_full_signature(x):
    extra = {"e": 1, "f": 2}
    return (_mixed_signature(x, c=1) + _mixed_signature(x, 3, 4, 5, c=1, d=0)
            + _mixed_signature(x, *(1, 2), c=3, **extra) + _mixed_signature(a=x, c=2, **{"g": 5}))


def _recurse(x, n):
    return x if n == 0 else _recurse(x + n, n - 1)


def c_sot_call_recursive_and_kwonly(x):
    def kw_only(*, scale=2):
        return x * scale

    return _recurse(x, 3) + kw_only() + kw_only(scale=3)


def c_sot_call_builtin_callables(x):
    fns = [abs, operator.neg, torch.relu]
    out = x
    for fn in fns:
        out = out + fn(x - 1)
    return out, callable(fns[0]), callable(3)


# -- unpack, rot ---------------------------------------------------------------------------------
def c_sot_unpack_nested_and_star(x):
    (a, b), c = (x, x + 1), x + 2
    first, *mid, last = [1, 2, 3, 4]
    p, q = {"u": 1, "v": 2}
    h, *t = "abc"
    return a + b + c + first + sum(mid) + last, p + q, h, t


def c_sot_unpack_tensor_rows(x):
    m = x.reshape(3, 1).expand(3, 2)
    r0, r1, r2 = m
    u, v = r1
    return r0 + r2 + u * v


def c_sot_rot_swaps(x):
    a, b, c, d = x, x + 1, x + 2, x + 3
    a, b = b, a
    a, b, c = c, a, b
    a, b, c, d = d, c, b, a
    return a - 2 * b + 3 * c - 4 * d


# -- f-strings, build-unpack ---------------------------------------------------------------------
def c_sot_fstring_formats(x):
    n, f, s = 7, 3.14159, "ab"
    text = f"{n:03d}|{f:.2f}|{s!r}|{s:>4}|{n!s}|{x.shape[0]}|{n:x}"
    return x + len(text), text


def c_sot_build_unpack_all(x):
    a, b = [1, 2], (3, 4)
    lst = [*a, *b, x]
    tup = (*a, *b)
    st = {*a, *b}
    dct = {**{"a": 1}, **{"b": 2}, "c": 3}
    return lst[-1] + sum(tup) + len(st) + len(dct), lst[:-1], dct


def _take(*args, **kwargs):
    return sum(args) + sum(kwargs.values())


def c_sot_call_ex_unpacked(x):
    a, b = [1, 2], (3,)
    return x + _take(*a, *b, 4, **{"p": 1}, **{"q": 2}, r=3)


# -- jumps ---------------------------------------------------------------------------------------
def c_sot_jumps_on_python_values(x):
    flags = [True, False, None, 0, "", [1]]
    out = x
    for f in flags:
        if f:
            out = out + 1
        elif f is None:
            out = out * 2
        if not f and f is not None:
            out = out - 1
    return out


def c_sot_jump_and_or_short_circuit(x):
    a, b = 0, 3
    c = a or b
    d = a and b
    e = (b > 1) and (a < 1) or False  # noqa: RUF021
    return x + c + d + e


def c_sot_jump_is_none_default(x, y=None):
    if y is None:
        y = x * 3
    if y is not None:
        y = y + 1
    return y


# -- for loops -----------------------------------------------------------------------------------
def c_sot_for_dict_views(x):
    table = {1: 2, 3: 4}
    for k in table.keys():
        x = x + k
    for v in table.values():
        x = x + v
    for k, v in table.items():
        x = x + k * v
    return x


def c_sot_for_break_continue_else(x):
    for i in [1, 2, 3, 4]:
        if i == 2:
            continue
        x = x + i
        if i == 3:
            break
    else:
        x = x * 100
    for i in range(2):
        x = x + i
    else:
        x = x - 1
    return x


def _three():
    yield 1
    yield 2
    yield 3


def c_sot_for_over_generator_arg(x, it):
    for item in it:
        x = x + item
        if item == 2:
            break
    return x


c_sot_for_over_generator_arg.extra_args = lambda: (_three(),)


def c_sot_for_over_list_iterator_arg(x, it):
    tmp = None
    for item in it:
        tmp = item
        x = x + tmp
    return x, tmp


c_sot_for_over_list_iterator_arg.extra_args = lambda: (iter([1, 2, 3]),)


def c_sot_for_pop_dict_argument(x, state):
    out = {"logits": x}
    for key in list(state):
        out[key] = state.pop(key)
    return out, state


c_sot_for_pop_dict_argument.extra_args = lambda: ({"a": 1, "b": torch.ones(1)},)


def c_sot_for_module_list(x):
    layers = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])
    for net in layers:
        x = net(x)
    return x


def c_sot_for_enumerate_calls(x):
    fns = [torch.sin, torch.cos]
    parts = [x, x + 1]
    out = None
    for idx, fn in enumerate(fns):
        out = fn(parts[idx]) if out is None else out + fn(parts[idx])
    return out


def c_sot_for_over_tensor_arange(x):
    for i in torch.arange(0, 3):
        x = x + i
    return x


def c_sot_list_comp_chunk(x):
    rows = [x.reshape(1, 3).expand(2, 3), x.reshape(1, 3)]
    return [r.chunk(3, dim=1) for r in rows]


def c_sot_loop_var_after_loop(x):
    for i in [1, 2]:
        last = i
    for j in range(3):  # noqa: B007
        pass
    return x + last + j


# -- with, globals (Paddle's test_25_with, test_21_global) ----------------------------------------
class _Swallow:
    def __enter__(self):
        return self

    def __exit__(self, *exc_details):
        return True


class _Propagate(_Swallow):
    def __exit__(self, kind, value, tb):
        return False


def c_sot_with_exit_result_decides(x):
    with _Swallow():
        x = x * 3
        raise ValueError("dropped")
    with _Swallow():
        x = x + 5
        1 / 0  # noqa: B018
    try:
        with _Propagate():
            x = x * 4
            1 / 0  # noqa: B018
    except ZeroDivisionError:
        x = x / 4
    return x


_FLAG = False


@contextlib.contextmanager
def _flagged():
    global _FLAG
    try:
        _FLAG = True
        yield
    finally:
        _FLAG = False


def c_sot_with_contextmanager_sets_global_flag(x):
    with _flagged():
        x = x / 7 if _FLAG else x * 7
    if not _FLAG:
        x = x + 8
    return x


_GT = torch.ones(3)
_GD = {}
_GL = [1, 2]
_GI = 0


def _bump_inner():
    global _GI
    _GI += 1


def _bump_outer():
    global _GI
    _bump_inner()
    _GI += 1


def c_sot_global_tensor_dict_list_del(x):
    global _GT, _GI, _GTEMP
    _GT, _GI = torch.ones(3), 0  # each run starts afresh, so eager's and loom's runs compare
    _GD.clear()
    _GL[:] = [1, 2]
    _GT = _GT + _GT + x
    _GD["key"] = "value"
    _GD.update({"k2": "v2"})
    if "key" in _GD:
        del _GD["key"]  # noqa: RUF051
    for i in range(len(_GL)):
        _GL[i] = _GL[i] + 1
    _bump_outer()
    _GTEMP = 1
    del _GTEMP
    return _GT + _GI + sum(_GL), dict(_GD), "_GTEMP" in globals()


CONSTRUCTS = [c_sot_inplace_store_subscr, c_sot_tuple_ops, c_sot_tuple_of_tensors_index,
              c_sot_list_methods_mixed, c_sot_list_index_count_ints, c_sot_list_sort_variants,
              c_sot_list_of_tensors_sort, c_sot_list_max_min_tensors, c_sot_list_count_index_tensor_arg,
              c_sot_dict_int_keys, c_sot_dict_setdefault_pop_popitem,
              c_sot_dict_update_copy_clear, c_sot_dict_constructors, c_sot_dict_keyerror_caught,
              c_sot_user_getitem_reraises_keyerror, c_sot_call_full_signature, c_sot_call_recursive_and_kwonly,
              c_sot_call_builtin_callables, c_sot_unpack_nested_and_star, c_sot_unpack_tensor_rows,
              c_sot_rot_swaps, c_sot_fstring_formats, c_sot_build_unpack_all,
              c_sot_call_ex_unpacked, c_sot_jumps_on_python_values, c_sot_jump_and_or_short_circuit,
              c_sot_jump_is_none_default,
              c_sot_for_dict_views, c_sot_for_break_continue_else, c_sot_for_over_generator_arg,
              c_sot_for_over_list_iterator_arg, c_sot_for_pop_dict_argument, c_sot_for_module_list,
              c_sot_for_enumerate_calls, c_sot_for_over_tensor_arange, c_sot_list_comp_chunk,
              c_sot_loop_var_after_loop, c_sot_with_exit_result_decides,
              c_sot_with_contextmanager_sets_global_flag, c_sot_global_tensor_dict_list_del]

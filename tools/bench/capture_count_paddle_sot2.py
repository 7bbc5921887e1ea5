"""Small programs after Paddle's SOT tests (test/sot/ in PaddlePaddle/Paddle, the files past test_26), written
with torch, for ``capture_count.py --only paddle_sot2``: builtins dispatched on tensors and Python values (len,
reversed, sum, pow, chr, min/max, any/all, hasattr, int/bool/float of a tensor), truth of user objects, map, zip,
enumerate and range over tensors and module lists, side effects on argument lists, dicts and objects, del of
locals around breaks, dtypes as dict keys, IntEnum members, functools.reduce.
"""

from __future__ import annotations

import functools
import math
import operator
import weakref
from enum import IntEnum, IntFlag

import torch


# -- builtin dispatch (test_builtin_dispatch) ------------------------------------------------------
def c_ps2_len_of_shape_and_tensor(x):
    m = torch.outer(x, x)
    return x + len(m.shape) + len(m)


def c_ps2_reversed_mixed_list(x):
    items = list(reversed([x + 1, 2 - 1, x * 10, 1000]))
    return items[0] + items[2], items[1], items[3]


def c_ps2_truth_of_shape(x):
    return x + (operator.truth(x.shape) and bool(x.shape)), operator.truth(x.new_zeros(()).shape)


def c_ps2_ceil_of_tensor_item(x):
    # math.ceil of a 0-d tensor reads its value: a Python int (torch.compile breaks here too)
    return x + math.ceil(x[1] + 0.2)


def c_ps2_sum_with_start(x):
    return sum((x, x * 2)), sum([x, 1], x), sum((), x), sum([[1], [2]], [0])


def c_ps2_sum_of_tensor_rows(x):
    return sum(torch.outer(x, x + 1))


def c_ps2_pow_builtin_forms(x):
    return pow(x, 2), pow(2, 3, 5), math.pow(2, 3) + x, pow(torch.tensor(2.0), x)


def c_ps2_chr_ord(x):
    return x + ord(chr(65)) - ord("a"), chr(0x41) + chr(97)


def c_ps2_min_max_many_ints(x):
    return x + min(9, 8, 2, 4, 1, 7) * max(3, 5, 6, 0), min("ba", "ab"), max([3, 1], key=lambda v: -v)


def c_ps2_any_all_of_containers(x):
    mixed, empty = [1, False, 0, 3], {}
    return (x + any(mixed) + all(mixed) + any({"a": 1}) + all(empty) + any(iter(mixed)),
            all(iter([1, True])))


def c_ps2_mixed_type_equality(x):
    a, b, c, d = 1, [], (), {}
    eq = (a == b, a == c, b == c, b == d, c == d, a != b, b != d, c != a)
    return x + sum(eq), eq


def c_ps2_is_of_tensors_and_none(x):
    y = x + 1
    return x + (x is y) + (y is None) * 2 + ([x] is None) * 4, None is None, y is y  # noqa: F632


def c_ps2_getattr_hasattr_tensor(x):
    attr = "dtype"
    return x + 1, getattr(x, attr), hasattr(x, "shape"), hasattr(x, "abs"), hasattr(x, "no_such_attr")


class _Hollow:
    def __init__(self):
        local_only = 1  # noqa: F841 (a local, not an attribute: hasattr is False)


def c_ps2_hasattr_of_object_and_module(x):
    obj, net = _Hollow(), torch.nn.Linear(3, 3)
    return x + hasattr(obj, "local_only"), hasattr(net, "parameters"), hasattr(net, "weight"), hasattr(net, "nope")


class _Referent:
    pass


def c_ps2_weakref_to_object(x):
    obj = _Referent()
    ref = weakref.ref(obj)
    return x + (ref() is obj)


def c_ps2_int_bool_float_of_tensor(x):
    t = x[1] + 0.2
    return int(t), bool(t), float(t)


def c_ps2_locals_of_the_frame(x):
    # test_unsupport_function: locals() lists the program's names only
    y = x + 1
    tmp = locals()
    return y + len(tmp), list(tmp), sorted(dir())


def c_ps2_native_capability_queries(x):
    return (x + torch.cuda.is_available() + torch.backends.mkldnn.is_available() * 0,
            torch.backends.openmp.is_available(), torch.distributed.is_available())


# -- truth of user objects (test_builtin_bool) -----------------------------------------------------
class _Plain:
    pass


class _FalseByBool:
    def __bool__(self):
        return False


class _SizedByLen:
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)


class _BoolAndLen(_SizedByLen):
    def __bool__(self):
        return False


def c_ps2_truth_of_user_objects(x):
    objs = (_Plain(), _FalseByBool(), _SizedByLen([1, 2]), _SizedByLen([]), _BoolAndLen([1]))
    flags = [bool(o) for o in objs] + [operator.truth(o) for o in objs]
    out = x
    for o in objs:
        if o:
            out = out + 1
    return out, flags


# -- map (test_builtin_map, test_map) ---------------------------------------------------------------
def _double(v):
    return v * 2


def c_ps2_map_over_containers(x):
    return (list(map(_double, [1, 2, 3])), tuple(map(_double, (x, 4))), [i for i in map(_double, range(3))],
            list(map(lambda k: f"dict_{k}", {"a": 1, "b": 2})))


def c_ps2_map_unpack_and_loop(x):
    a, b, c = map(_double, [x, 1, x + 1])
    total = 0
    for v in map(_double, [7, 8]):
        total += v
    return a + b + c + total


def c_ps2_map_two_iterables(x):
    p, q, r = map(lambda u, v: u + v, x, (2, 4, 6))
    return p, q, r


def c_ps2_map_zip_star_transpose(x):
    pairs = [(1, 2), (3, 4), (5, 6)]
    rows = tuple(map(list, zip(*map(lambda t: (0, *t), pairs))))
    return x + rows[1][2], rows


def c_ps2_map_over_dict_keys_of_tensors(x):
    d = {"w": x, "b": x + 1}
    return dict(zip(d, map(torch.sin, d.values())))


# -- zip, enumerate, range (test_builtin_zip, test_enumerate, test_builtin_range, test_range) ------------------
def c_ps2_zip_enumerate_range(x):
    y = x
    for (i, val), other in zip(enumerate(range(6)), range(6)):
        if i % 2 == 0:
            y = y + val + other
    return y, list(zip([2, 4, 6], range(3))), tuple(enumerate([5, 7]))


def c_ps2_zip_over_tensor_rows(x):
    m = torch.outer(x, x + 1)
    total = 0
    for i, row in zip(range(len(m)), m):
        for _ in range(i):
            total = total + row
    return total


def c_ps2_enumerate_nonzero_rows(x):
    total = 0
    for _i, row in enumerate(torch.nonzero(x)):
        total = total + row
    return total


def c_ps2_range_over_tensor_value(x):
    total = 0
    for val in torch.tensor([1, 2]):
        for _ in range(val):
            total = total + val
    return x + total


_LAYERS3 = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(3)])


def c_ps2_zip_enumerate_module_list(x):
    total = 0
    for _i, layer in zip(range(len(_LAYERS3)), _LAYERS3):
        total = total + layer(x)
    for _i, layer in enumerate(_LAYERS3):
        total = total + layer(x)
    return total


def c_ps2_range_objects(x):
    r = range(3, 10, 2)
    return x + r[1] + len(r) + list(range(10))[4], r, range(5)[-1], list(range(len(x.shape)))[0]  # noqa: RUF015


def c_ps2_nested_range_inplace(x):
    t = x.clone()
    for i in range(3):
        for j in range(i + 1):
            t += j
    return t


def c_ps2_zip_argument_iterator(x, it):
    total = x
    for a, b in zip(it, [4, 5, 6]):
        total = total + a * b
    return total, list(it)


c_ps2_zip_argument_iterator.extra_args = lambda: (iter([1, 2, 3, 9]),)


# -- side effects (test_side_effects, test_sir_rollback, test_dup_top) ------------------------------------
def c_ps2_dict_argument_edits(x, d):
    inner = d[0]
    del d[0]
    inner[0] = x + 1
    d[2] = {1: 2}
    d[1][0] = d[1][0] + d[1][1]
    return d, inner


c_ps2_dict_argument_edits.extra_args = lambda: ({0: {0: 1, 1: 2}, 1: {0: 3, 1: 4}},)


def c_ps2_nested_dict_argument_aliases(x, d):
    a, b = d[0], d[1]
    del a[0]
    a[1] = b[0]
    b[0] = x * 2
    del a[1]
    return a, b, d


c_ps2_nested_dict_argument_aliases.extra_args = lambda: ({0: {0: 1, 1: 2}, 1: {0: 5, 1: 6}},)


def c_ps2_list_argument_methods(x, lst):
    lst.append(x + 1)
    lst.insert(0, 9)
    lst.remove(1)
    lst.pop(0)
    lst.pop()
    lst.extend([4, 0])
    lst.sort()
    lst.reverse()
    del lst[0]
    return x + lst[0], lst


c_ps2_list_argument_methods.extra_args = lambda: ([3, 1, 2],)


def c_ps2_list_nested_in_new_list(x, lst):
    holder = []
    holder.append(lst)
    holder[-1].append(x * 3)
    return lst


c_ps2_list_nested_in_new_list.extra_args = lambda: ([1],)


def c_ps2_list_reversed_then_sliced(x, lst):
    lst.reverse()
    total = x
    for _i, v in zip(range(2), lst[2:]):
        total = total + v
    return total, lst


c_ps2_list_reversed_then_sliced.extra_args = lambda: ([1, 2, 3, 4],)


class _Holder:
    def __init__(self):
        self.x = 2
        self.y = torch.ones(1)

    def collect(self, v):
        self.outputs = []
        self.outputs.append(v)
        return self.outputs


def c_ps2_object_attr_set_and_del(x):
    obj = _Holder()
    t = x + 1
    obj.x = t
    del obj.y
    got = obj.collect(x * 2)
    return t, obj.x, hasattr(obj, "y"), got, obj.outputs


def c_ps2_argument_object_attr_edits(x, obj):
    obj.x = x + 1
    del obj.y
    obj.collect(3)
    return obj.x, obj.outputs, hasattr(obj, "y"), getattr(obj, "y", None)


c_ps2_argument_object_attr_edits.extra_args = lambda: (_Holder(),)


def _edit_then_print(lst, y):
    lst[0] += 10
    lst[1] += 20
    lst[2] -= 10
    print("sir_rollback", y.shape)  # a break inside the callee: edits before it must happen once


def c_ps2_edits_around_break_in_callee(x, lst):
    lst[0] += 1
    _edit_then_print(lst, x)
    return lst[0] + x, lst


c_ps2_edits_around_break_in_callee.extra_args = lambda: ([1, 2, 3],)


def c_ps2_augmented_item_of_list(x, lst):
    lst[0] += lst[1]
    return lst


c_ps2_augmented_item_of_list.extra_args = lambda: ([torch.ones(2), torch.full((2,), 2.0)],)


# -- del of locals (test_delete_fast) ---------------------------------------------------------------------
def _printed_plus_one(a):
    print("delete_fast", a.shape)
    return a + 1


def c_ps2_del_locals_around_breaks(x):
    a = x + 2
    t1 = a * 3
    out1 = _printed_plus_one(a + t1)
    t2, t3 = a - 4, a / 5
    out2 = _printed_plus_one(t1 + t2)
    del t1, t2, t3
    return a + out1 + out2


# -- dtypes (test_dtype) ------------------------------------------------------------------------------------
def c_ps2_astype_from_other_dtype(x):
    y = torch.ones(2, 3, dtype=torch.int32)
    return x.to(y.dtype), x.type(y.dtype)


def c_ps2_dtype_made_then_reused(x):
    t = torch.tensor(1)
    dt = t.dtype
    y = torch.tensor(1, dtype=dt) if t > 0 else 1
    return x + y, dt


def c_ps2_dtype_dict_key_cast(x):
    cast_map = {torch.float32: torch.float64, torch.int64: torch.int32}
    out = x.to(cast_map[x.dtype])
    return out, out.dtype


# -- IntEnum (test_enum) ------------------------------------------------------------------------------------
class _Dir(IntEnum):
    UP = 1
    RIGHT = 2


class _Compass(IntEnum):
    EAST = 1
    WEST = 2


class _Perm(IntFlag):
    R = 4
    W = 2


def c_ps2_intenum_compare_name_lookup(x):
    u = _Dir.UP
    return (x + (u == _Dir.UP) + (u == _Compass.EAST) * 2 + (u != 0) * 4 + (u is _Dir.RIGHT) * 8,
            u.name, _Dir["RIGHT"], _Dir(2), u + 1, x * (_Perm.R | _Perm.W))


# -- functools (test_functools) ---------------------------------------------------------------------------
def c_ps2_reduce_forms(x):
    return (functools.reduce(lambda a, b: a + b, [1, 3, 4]), functools.reduce(lambda a, b: a * b, (1, 3, 4), -2),
            functools.reduce(operator.add, iter([x, 2, 3])),
            functools.reduce(lambda a, b: {**a, **b}, [{"a": 1, "b": 2}, {"a": 3, "c": 4}]))


def c_ps2_reduce_of_exhausted_iterator(x):
    it = iter([1, 2])
    for _ in it:
        pass
    try:
        return functools.reduce(operator.add, it)
    except TypeError as e:
        return x + 1, str(e)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

"""Conformance: Python values — constants, operators, containers, unpacking, strings — around tensors."""

import math
import operator

import pytest
import torch
from harness import check


def t(*shape):
    return torch.randn(*shape)


CASES = []


def case(*args, **kwargs):
    def register(fn):
        CASES.append(pytest.param(fn, args, kwargs, id=fn.__name__))
        return fn

    return register


X = t(4, 3)
Y = t(4, 3)


@case(X)
def const_arith(x):
    return x * (2 + 3) - 7 // 2 + 2 ** 3 % 5


@case(X)
def float_int_mix(x):
    return x / 2.5 + (7 / 2) - (-3 // 2)


@case(X, 3)
def int_arg_arith(x, n):
    return x * n + n**2 - n % 2


@case(X, 2.5)
def float_arg(x, s):
    return x * s, s * 2


@case(X)
def unary_ops(x):
    return -x, +x, abs(x), -(-3), ~5


@case(X.bool())
def bool_invert(x):
    return ~x, x & x, x | ~x, x ^ x


@case(X)
def comparisons_tensor(x):
    return x > 0, x <= 0.5, x == x, x != 0


@case(X, 3)
def comparisons_const(x, n):
    return x * (n > 2), n == 3, n != 3, 1 < n < 5


@case(X)
def chained_comparisons_fold(x):
    a = 1 < 2 < 3
    b = 3 > 2 > 5
    return x + int(a) - int(b)


@case(X, 5)
def inplace_int(x, n):
    n += 2
    n *= 3
    n -= 1
    n //= 2
    return x * n


@case(X)
def inplace_tensor_add(x):
    y = x.clone()
    y += 1
    y *= 2
    y -= x
    return y


@case(X)
def inplace_on_input(x):
    x += 1
    return x


@case(X)
def inplace_on_input_no_return(x):
    x.mul_(2)


@case(X, Y)
def matmul_op(x, y):
    return x @ y.T


@case(X, Y)
def tensor_power_and_mod(x, y):
    return x ** 2, y.abs() % 0.7, 2 ** x


@case(X)
def tuple_build_and_index(x):
    tup = (x, x + 1, 3)
    return tup[0] + tup[1] * tup[2]


@case(X)
def tuple_negative_index(x):
    tup = (x, x * 2, x * 3)
    return tup[-1], tup[-2]


@case(X)
def tuple_slice(x):
    tup = (1, 2, 3, 4, 5)
    return x * sum(tup[1:4]), tup[::2], tup[::-1]


@case(X)
def list_build_mutate(x):
    lst = [x, 1]
    lst.append(x * 2)
    lst.extend([3, 4])
    lst.insert(0, -1)
    return lst


@case(X)
def list_pop_remove(x):
    lst = [1, 2, 3, 2]
    a = lst.pop()
    b = lst.pop(0)
    lst.remove(2)
    return x * a + b, lst


@case(X)
def list_setitem_delitem(x):
    lst = [1, 2, 3, 4]
    lst[0] = x
    lst[-1] = 10
    del lst[1]
    return lst


@case(X)
def list_slice_assign(x):
    lst = [1, 2, 3, 4, 5]
    lst[1:3] = [x, x * 2, x * 3]
    return lst


@case(X)
def list_concat_repeat(x):
    a = [x] + [1, 2]
    b = [0] * 3
    c = (1,) * 2 + (3,)
    return a, b, c


@case(X)
def list_reverse_sort(x):
    lst = [3, 1, 2]
    lst.sort()
    lst.reverse()
    return x * lst[0], lst, sorted([5, 4, 6], reverse=True)


@case(X)
def list_count_index(x):
    lst = [1, 2, 2, 3]
    return x + lst.count(2) + lst.index(3)


@case(X)
def list_copy_is_new(x):
    a = [1, 2]
    b = a.copy()
    b.append(3)
    return a, b, x


@case(X)
def list_clear(x):
    lst = [x, x]
    lst.clear()
    return lst, len(lst)


@case(X)
def list_aliasing(x):
    a = [1]
    b = a
    b.append(x)
    return a, b, a is b


@case(X)
def list_comprehension(x):
    return [x * i for i in range(3)]


@case(X)
def list_comprehension_filter(x):
    return [x + i for i in range(6) if i % 2 == 0]


@case(X)
def nested_comprehension(x):
    return [[i * j for j in range(3)] for i in range(2)], x


@case(X)
def dict_build_and_read(x):
    d = {"a": x, "b": 2}
    return d["a"] * d["b"]


@case(X)
def dict_mutation(x):
    d = {"a": 1}
    d["b"] = x
    d.update({"c": 3}, e=5)
    d.setdefault("d", 4)
    del d["a"]
    return d


@case(X)
def dict_methods(x):
    d = {"a": x, "b": 2, "c": 3}
    keys = list(d.keys())
    values = [v for v in d.values() if not isinstance(v, torch.Tensor)]
    items = [(k, v) for k, v in d.items() if k != "a"]
    return keys, values, items, d.get("z", 7), d.get("b"), "a" in d, "z" not in d


@case(X)
def dict_pop_popitem(x):
    d = {"a": x, "b": 2, "c": 3}
    a = d.pop("a")
    b = d.pop("zz", 9)
    k, v = d.popitem()
    return a, b, k, v, d


@case(X)
def dict_comprehension(x):
    return {f"k{i}": x * i for i in range(3)}


@case(X)
def dict_copy_clear(x):
    d = {"a": x}
    e = d.copy()
    d.clear()
    return d, e


@case(X)
def dict_iteration_order(x):
    d = {"z": 1, "a": 2, "m": 3}
    out = []
    for k in d:
        out.append(k)
    return out, x


@case(X)
def set_ops(x):
    s = {1, 2, 3}
    s.add(4)
    s.discard(1)
    return x * len(s), 2 in s, 9 in s, sorted(s), s | {7}


@case(X)
def set_comprehension(x):
    s = {i % 3 for i in range(10)}
    return x * len(s), sorted(s)


@case(X)
def frozenset_const(x):
    return x * (3 in frozenset([1, 2, 3]))


@case(X)
def unpack_tuple(x):
    a, b, c = x, 2, 3
    return a * b + c


@case(X)
def unpack_star(x):
    a, *rest = (x, 1, 2, 3)
    *init, last = [1, 2, 3]
    return a * last, rest, init


@case(X)
def unpack_nested(x):
    (a, b), c = (x, 2), 3
    return a * b * c


@case(X)
def swap_variables(x):
    a, b = x, 1
    a, b = b, a
    return a, b


@case(X, "name")
def fstring(x, s):
    label = f"{s}-{3:02d}-{2.5:.1f}-{s!r}"
    return x, label


@case(X)
def string_methods(x):
    s = "Hello, World"
    return x, s.lower(), s.split(", "), "-".join(["a", "b"]), s.startswith("He"), s.replace("l", "L")


@case(X)
def string_concat_format(x):
    return x, "a" + "b" * 3, "{}-{}".format(1, "x"), "%d %s" % (3, "y")


@case(X)
def slice_objects(x):
    s = slice(1, 3)
    return x[s], x[::2], x[1:], x[:-1], x[..., 0], x[None]


@case(X)
def constant_folding_math(x):
    return x * math.sqrt(16) + math.pi + math.floor(2.7) + math.log(math.e)


@case(X)
def operator_module(x):
    return operator.add(x, 1), operator.mul(2, 3), operator.getitem((1, 2), 0), operator.neg(x)


@case(X)
def builtins_minmax(x):
    return x * max(1, 5, 3) + min([4, 2, 8]), max((1, 9)), min(3, 1, key=None) if False else min(3, 1)


@case(X)
def builtins_sum_all_any(x):
    return sum([1, 2, 3]), sum((x, x, x)), all([True, 1]), any([0, 0, 1]), all([]), any(())


@case(X)
def builtins_abs_round_divmod(x):
    return abs(-3), round(2.567, 2), divmod(17, 5), pow(2, 5), x


@case(X)
def builtins_int_float_bool_str(x):
    return int("12") + int(3.9), float("1.5"), bool(0), str(5), x


@case(X)
def builtins_len(x):
    return len(x), len([1, 2]), len((1,)), len({"a": 1}), len("abc"), len(range(4))


@case(X)
def builtins_isinstance(x):
    return (
        isinstance(x, torch.Tensor),
        isinstance(3, int),
        isinstance(3, (str, float)),
        isinstance([], list),
        isinstance(x, (int, torch.Tensor)),
        issubclass(bool, int),
    )


@case(X)
def builtins_type(x):
    return int is int, type(x) is torch.Tensor, type((1,)) is tuple, x


@case(X)
def builtins_tuple_list_dict(x):
    return tuple([1, 2]), list((3, 4)), dict(a=1, b=2), dict([("c", 3)]), list(range(3)), x


@case(X)
def builtins_enumerate_zip(x):
    out = []
    for i, (a, b) in enumerate(zip([1, 2, 3], "abc")):
        out.append((i, a, b))
    return out, x


@case(X)
def builtins_enumerate_start(x):
    return [i for i, _ in enumerate([5, 6], start=10)], x


@case(X)
def builtins_reversed(x):
    return list(reversed([1, 2, 3])), list(reversed(range(3))), x


@case(X)
def builtins_map_filter(x):
    return list(map(lambda v: v * 2, [1, 2])), list(filter(lambda v: v > 1, [1, 2, 3])), list(filter(None, [0, 1, 2])), x


@case(X)
def builtins_map_two_iterables(x):
    return list(map(operator.add, [1, 2], [10, 20])), x


@case(X)
def builtins_iter_next(x):
    it = iter([x, 1, 2])
    a = next(it)
    b = next(it)
    return a * b, next(it), next(it, "done")


@case(X)
def builtins_getattr_hasattr(x):
    return x.shape, hasattr(x, "shape"), hasattr(x, "nope_nope"), (3).real, getattr(x, "zz", 5)


@case(X)
def builtins_callable(x):
    return callable(len), callable(3), callable(lambda: 1), x


@case(X)
def builtins_range_forms(x):
    return list(range(5)), list(range(1, 7, 2)), list(range(5, 0, -2)), range(3)[1], 2 in range(3), x


@case(X)
def builtins_sorted_key(x):
    return sorted(["bb", "a", "ccc"], key=len), x


@case(X)
def none_checks(x, y=None):
    if y is None:
        return x + 1
    return x - 1


@case(X, None)
def none_arg(x, y):
    return x if y is None else y


@case(X, [1, 2, 3])
def list_arg_read(x, lst):
    return x * lst[0] + len(lst), lst[-1]


@case(X, (1, 2.5))
def tuple_arg(x, tup):
    a, b = tup
    return x * a + b


@case(X, {"scale": 2.0, "shift": 1})
def dict_arg(x, cfg):
    return x * cfg["scale"] + cfg["shift"]


@case(X, [t(2), t(2)])
def list_of_tensors_arg(x, tensors):
    return x.sum() + tensors[0] * tensors[1]


@case(X, {"w": t(3), "b": t(3)})
def dict_of_tensors_arg(x, params):
    return x * params["w"] + params["b"]


@case(X)
def conditional_expression(x):
    a = 1 if x.shape[0] > 2 else 2
    return x * a


@case(X)
def boolean_operators_fold(x):
    a = 0 or 5
    b = 3 and 4
    c = None or [] or "z"
    return x * a * b, c


@case(X)
def ellipsis_and_none_constants(x):
    return x[..., None], ..., None


@case(X)
def complex_numbers(x):
    c = complex(1, 2)
    return x * c.real + c.imag, abs(c)


@case(X)
def bytes_ops(x):
    b = b"abc"
    return x, b + b"d", len(b), b[0]


@case(X)
def chained_method_calls(x):
    return x.abs().add(1).mul(2).sum(dim=1).softmax(dim=0)


@case(X)
def walrus(x):
    if (n := x.shape[0]) > 2:
        return x * n
    return x


@case(X)
def global_constant_read(x):
    return x * GLOBAL_SCALE


@case(X)
def global_tensor_read(x):
    return x + GLOBAL_TENSOR


@case(X)
def global_store(x):
    global GLOBAL_COUNTER
    GLOBAL_COUNTER = GLOBAL_COUNTER + 1
    return x * GLOBAL_COUNTER


@case(X)
def global_list_mutation(x):
    GLOBAL_LOG.append(3)
    return x * len(GLOBAL_LOG)


GLOBAL_SCALE = 3
GLOBAL_TENSOR = torch.randn(3)
GLOBAL_COUNTER = 0
GLOBAL_LOG = [1]


@pytest.mark.parametrize(("fn", "args", "kwargs"), CASES)
def test_value_semantics_match_eager(fn, args, kwargs):
    check(fn, *args, graphs=None, **kwargs)

"""More of the second half of PyTorch's test/dynamo/test_functions.py, for ``capture_count.py --only
dynamo_tests_functions4``: ``operator`` functions on constants and tensors, ranges indexed and sliced,
``random`` and the torch seed inside the frame, closures returned or kept across a break, tensor
defaults mutated, torch-typed defaults, dataclass factories, sets and frozensets of tensors, ``is`` on
tensors changed in place, ``zip(strict=True)``, attributes on the function itself, ``str`` of objects.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import operator
import random
from typing import Any

import torch
from torch import nn

_SINK = io.StringIO()


# -- operator on constants and tensors (test_compare_constant_and_tensor, test_pos, test_index, test_truth) ----
def c_f4m_compare_constant_with_tensor(x):
    ops = (operator.lt, operator.le, operator.gt, operator.ge, operator.ne, operator.eq)
    return [op(-1, x) for op in ops], operator.is_(-10, x), operator.is_not(-10, x)


def c_f4m_operator_pos(x):
    return operator.pos(x) * +x, operator.pos(-1.5) * +True, operator.pos(3)


def c_f4m_operator_index(x):
    v = operator.index(10) + operator.index(True) + operator.index(-4)
    return torch.mul(x, v)


def c_f4m_operator_truth(x):
    return operator.truth(1) and bool(100), operator.truth(x[2]) and bool(x[1]), operator.truth(-1.1) and bool(0.0)


def c_f4m_unary_fold_over_range(x):
    a = range(-3, 3)
    out = [list(map(op, a)) for op in (operator.abs, abs, operator.neg, operator.pos, operator.truth)]
    return x + sum(out[0]), out


def c_f4m_length_hint_fold(x):
    seqs = [tuple(range(-3, i)) for i in range(4)]
    hints = tuple(map(operator.length_hint, seqs))
    return x + sum(hints) + operator.length_hint([x, x]), hints, operator.length_hint(iter([1, 2, 3]))


# -- ranges (test_range_*, test_indexed_range, test_sliced_range) ---------------------------------------------
def c_f4m_range_with_slice_index(x):
    acc = 1
    for k in range(2)[1::2]:
        acc *= acc * k
    for k in range(1, 10, 2)[-3:7:2]:
        acc += k
    return x * acc


def c_f4m_range_indexed(x):
    r = range(10, 20, 2)
    return x * r[2] + r[-1], len(range(10, 1, -3)), len(range(1, 1, 1)), len(range(-10))


def c_f4m_range_sliced_values(x):
    r = range(-1, -5, -3)
    s = range(10)[-1:7:2]
    return x + len(r[5::-3]), r[5::-3], s, range(1, 10, 2)[3:7:2] == range(7, 11, 4)


def c_f4m_range_from_tensor_size(x):
    out = x
    for _ in range(x.size(0) + 2):
        out = out / 2
    return out, torch.tensor(range(x.size(0)))


# -- random and seeds inside the frame (test_rand_inlined, test_manual_seed) -----------------------------------
def c_f4m_random_inlined_list_index(x):
    sizes = [3]
    sizes[random.randint(0, 0)] = random.randint(1, 8)
    t = tuple(sizes)
    more = [random.randint(1, 5) + s for s in sizes]
    return x + torch.empty(t).shape[0] * 0 + len(more), more


def c_f4m_manual_seed_then_randint(x):
    torch.manual_seed(3)
    a = torch.randint(0, 5, (5,))
    torch.manual_seed(3)
    return x.sum() + a, torch.equal(a, torch.randint(0, 5, (5,)))


def c_f4m_tensor_to_meta(x):
    y = torch.ones(2).to("meta")
    return x + 1, y.shape, y.device.type


# -- closures (test_no_recompile_inner_*, test_complex_closure, test_non_inlined_closure) ----------------------
def c_f4m_inner_function_after_print(x):
    def g(y):
        return x + y

    print("break", file=_SINK)
    return g(torch.ones(1))


def c_f4m_inner_lambda_after_print(x):
    g = lambda y: x * y  # noqa: E731
    print("break", file=_SINK)
    return g(torch.ones(1) * 2)


def c_f4m_nested_closure_returned(x):
    def outer():
        def inner(z):
            return x + z

        return inner

    f = outer()
    return f(x), f(2)


def c_f4m_closure_rebound_across_print(x):
    one = lambda a, b: a + b  # noqa: E731

    def inner():
        print("break", file=_SINK)
        return one(x, x)

    res = inner()
    one = lambda a, b: a - b  # noqa: E731
    res = res + inner()
    return res


# -- defaults of functions and methods (DefaultsTests) ---------------------------------------------------------
def _default_tensors(x=torch.zeros(2), *, kw_x=torch.zeros(1)):  # noqa: B008 (a shared default is the point)
    x.add_(1)
    kw_x.add_(1)
    return x, kw_x


def c_f4m_default_tensor_args_mutated(x):
    a, b = _default_tensors()
    before = a.clone()  # the defaults carry over from call to call (and from eager's run): compare two calls
    a, b = _default_tensors()
    return x + (a - before).sum(), a is _default_tensors.__defaults__[0], b is _default_tensors.__kwdefaults__["kw_x"]


class _WithDefaults(nn.Module):
    def forward(self, x=torch.zeros(2), *, kw_x=torch.zeros(1)):  # noqa: B008
        x.add_(1)
        kw_x.add_(1)
        return x, kw_x


_WRAPPED = nn.Sequential()
_WRAPPED.inner = _WithDefaults()


def c_f4m_method_default_tensor_args(x):
    a, b = _WRAPPED.inner()
    before = b.clone()
    a, b = _WRAPPED.inner()
    return x * (b - before), a.shape


def c_f4m_torch_typed_defaults(x):
    def make(dt=torch.float16, ds=torch.Size((1, 2, 3)), dd=torch.device("cpu")):  # noqa: B008
        return torch.ones(ds, dtype=dt, device=dd)

    out = make()
    return x + out.sum(), out.dtype, out.shape, out.device


# -- dataclasses (test_dataclass_factory, test_dataclass_nested) -----------------------------------------------
@dataclasses.dataclass
class _Output:
    scalar: int = 2
    named: dict = dataclasses.field(default_factory=dict)
    items: list = dataclasses.field(default_factory=list)

    def scale(self):
        return self.scalar * 2


def c_f4m_dataclass_factory_defaults(x):
    a = _Output(1)
    scaled = a.scale()
    b = _Output(5, named={"x": x})
    c = _Output()
    if isinstance(a.named, dict):
        x = torch.sin(x)
    c.scalar = 6
    c.named["x"] = x
    return torch.cos(x) * scaled + b.named["x"] + c.scalar, c.scalar, len(c.items), sorted(c.named)


@dataclasses.dataclass
class _Base:
    outer_a: int
    outer_b: int


@dataclasses.dataclass
class _Derived(_Base):
    inner: Any = dataclasses.field(default_factory=list)


def c_f4m_dataclass_nested(x):
    d = _Derived(1, 2)
    return d.outer_a * x + d.outer_b, d.inner


# -- sets, frozensets and `is` on tensors (test_set_*, test_frozenset_*, test_is_*) ----------------------------
def c_f4m_listlike_of_tensor_contains_constant(x):
    t = x[:1]  # one element: `1 in [t]` compares 1 == t and takes its truth
    t.add_(1)
    return 1 in [t], 1 in {t}, x.sum()


def c_f4m_set_of_tensor_and_its_alias(x):
    y = x.add_(1)
    s = set({x})
    s.add(y)
    return len(s), x * 2


def c_f4m_frozenset_of_tensor(x):
    s = frozenset({x})
    return len(frozenset(s)), x + 1


_BY_FROZENSET = {frozenset(): torch.ones(3) * 2}


def c_f4m_frozenset_key_across_print(x):
    k = frozenset()
    print("break", file=_SINK)
    return _BY_FROZENSET[k] * x


def c_f4m_frozenset_has_no_add(x):
    s = frozenset((1, 2, 3))
    try:
        s.add(4)
    except AttributeError:
        return x - len(s)
    return x


def c_f4m_is_between_tensors(x, y):
    first = x * 2 if x is y else x + y
    second = x * 2 if x is not y else x + y
    return first, second, (x * 3 if x is x else x)


c_f4m_is_between_tensors.extra_args = lambda: (torch.ones(3),)


def c_f4m_is_after_inplace(x):
    y = x.add_(1)
    z = x.clone()
    w = z.add_(1)
    return x is y, y is x, w is z, z is x


def c_f4m_vmap_inplace_is(x):
    z = x.reshape(3, 1).clone() * 0.1
    y = torch.vmap(torch.Tensor.acos_)(z)
    return y is z, z


def c_f4m_in_set_of_other_tensor(x, other):
    x.add_(1)
    y = torch.Tensor.add_(x, 1)
    members = set([other])
    return x in members, y in members and x in members


c_f4m_in_set_of_other_tensor.extra_args = lambda: (torch.zeros(3, 2),)


# -- zip(strict=True), function attributes, str of objects (test_zip_strict, test_fn_with_attr, test_str_*) ----
def c_f4m_zip_strict(x):
    out = x.clone()
    for y, z in zip([1.0, 2.0, 3.0], [2.0, 5.0, 8.0], strict=True):
        out += y * z
    return out


def c_f4m_zip_strict_mismatch(x):
    out = x.clone()
    try:
        for y, z in zip([1.0], [2.0, 5.0], strict=True):
            out += y * z
    except ValueError as e:
        return out - 1, "zip()" in str(e)
    return out


def _with_attr(x):
    return torch.relu(x * 2) if _with_attr.pred else torch.abs(x + 3)


_with_attr.pred = True


def c_f4m_function_attribute_branch(x):
    return _with_attr(x), _with_attr.pred


class _CustomStr:
    def __str__(self):
        return "ok"


class _DefaultStr:
    pass


def c_f4m_str_of_user_objects(x):
    return x + 1, str(_CustomStr()), str(_DefaultStr()).split(" object at")[0]


# -- values handed in (test_np_constant_collections_*, test_elipsis, test_pybind_object, test_reconstructed_name) ---
def c_f4m_numpy_info_of_argument(x, dt, info):
    import numpy as np

    return x + np.iinfo(dt).max + info.max, np.finfo(np.dtype("float16")).bits


c_f4m_numpy_info_of_argument.extra_args = lambda: ("int16", __import__("numpy").iinfo(__import__("numpy").int8))


def c_f4m_numpy_setitem_with_index_expression(x, arr):
    import numpy as np

    arr[np.s_[0, ...]] = np.zeros(2)
    arr[np.s_[..., 1]] = np.array([3, 3])
    return x + 1, arr


c_f4m_numpy_setitem_with_index_expression.extra_args = lambda: (__import__("numpy").array([[1, 1], [2, 2]]),)


def c_f4m_pybind_object_attribute(x, obj):
    return torch.cos(x) if obj.result else torch.sin(x)


c_f4m_pybind_object_attribute.extra_args = lambda: (torch._C._dynamo.guards.GuardDebugInfo(True, ["a==1"], 0),)

_NAMES_SEEN = []


@torch._dynamo.disable
def _record_name(g):
    _NAMES_SEEN.append(g.__name__)
    return len(g.__name__)


def c_f4m_inner_function_name_to_disabled(x):
    def inner_fn():
        return ()

    n = _record_name(inner_fn)
    _NAMES_SEEN.clear()
    return x + n


def c_f4m_partial_handed_in_twice(x, f0, f1):
    return f0(x) * f1(x)


c_f4m_partial_handed_in_twice.calls = 2
c_f4m_partial_handed_in_twice.extra_args = lambda: (functools.partial(lambda a, y: a * y, y=torch.ones(3) * 2),
                                                    functools.partial(lambda a, y: a + y, 3))


def c_f4m_foreach_lerp_and_pow(x):
    xs = [x * 4.0, x * 3.0]
    ys = [torch.ones(3), torch.zeros(3)]
    out = torch._foreach_lerp(xs, ys, 0.5)
    return out, torch._foreach_pow(torch.tensor(0.8), [x, x + 1])


# -- sizes, powers and casts (test_tensor_size_indexed_by_symint, test_pow_int, test_cast_tensor_single_elem) --------
def c_f4m_size_indexed_by_a_size(x):
    y = torch.zeros(2, 5, 4)
    index = x.reshape(3, 1).shape[-1]
    return x + y.shape[index], y.size(index + 1)


def c_f4m_pow_by_python_int(x):
    return torch.pow(x, 2), torch.pow(2, x), x ** 3


def c_f4m_cast_single_element_tensor(x):
    t = x[1:2] + 1
    return float(t), int(t), bool(t), x * float(t)


def c_f4m_vmap_two_inplace_results_is(x):
    a = x.reshape(3, 1).clone() * 0.1
    b = a.clone()

    def both(p, q):
        return p.acos_(), q.acos_()

    c, d = torch.vmap(both)(a, b)
    return c is a, d is b, a is c is b is d, c


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

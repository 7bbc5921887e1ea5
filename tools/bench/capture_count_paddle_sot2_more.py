"""More programs after Paddle's SOT tests (past test_26), with torch, for ``capture_count.py --only paddle_sot2``:
outputs rebuilt from nested containers, user iterables, callable objects and patched methods, functions kept on
module objects, no_grad decorators and blocks around inner calls, in-place slice writes, namedtuples with
defaults, dataclasses with __post_init__, str.format with keyword mappings, numpy values in branches and
arithmetic, branches on tensor values, generator expressions made after a print.
"""

from __future__ import annotations

import dataclasses
import types
from collections import namedtuple

import numpy as np
import torch


# -- outputs (test_output_restoration, test_guard_outputs) --------------------------------------------------------
def c_ps2m_output_nested_containers(x):
    z = 3
    a = x + 1
    return [1, a, z + 1, x], {1: a, z + 1: x}, [1 + 1, (z, a + z), [z + 1]]


# -- user iterables (test_iter) --------------------------------------------------------------------------------
class _ListIterable:
    def __init__(self):
        self._items = [1, 2, 3]

    def __iter__(self):
        return iter(self._items)


class _DictIterable:
    def __init__(self):
        self._map = {0: 1, 1: 2, 2: 3}

    def __iter__(self):
        return iter(self._map)


class _RangeIterable:
    def __iter__(self):
        return iter(range(4))


def c_ps2m_user_iterables(x):
    for source in (_ListIterable(), _DictIterable(), _RangeIterable()):
        for i in source:
            x = x + i
    return x, list(_DictIterable()), sorted(_ListIterable(), reverse=True)


# -- callable objects and patched methods (test_call_object, test_patched_method) -------------------------------
_scaled = lambda self, v: v * self.a  # noqa: E731 (a lambda stored as a class attribute is the point)


class _Adder:
    def __init__(self, a):
        self.a = a

    def __call__(self, v):
        return self.add(v)

    def add(self, v):
        return v + self.a

    multi = _scaled


class _Dispatcher:
    def __init__(self, a):
        self.a = _Adder(a)

    def __call__(self, v, name):
        return getattr(self.a, name)(v)

    def self_call(self, v, name):
        return getattr(self.a, name)(self.a, v)


def c_ps2m_call_object_by_name(x):
    d = _Dispatcher(13)
    return _Adder(13)(x), _Adder(2).multi(x), d(x, "multi"), d(x, "add")


def c_ps2m_instance_patched_lambda(x, d):
    # the instance attribute (a plain function, no binding) shadows the class's lambda
    return d.self_call(x, "multi"), d(x, "add")


def _patched_dispatcher():
    d = _Dispatcher(13)
    d.a.multi = lambda self, v: v * self.a + 3
    return (d,)


c_ps2m_instance_patched_lambda.extra_args = _patched_dispatcher


class _ScaleOp:
    def __init__(self, w, b):
        self.w, self.b = w, b

    def apply(self, v):
        return v * self.w + self.b


class _PatchedModule(types.ModuleType):
    def __init__(self):
        super().__init__("patched")
        self.scale = _ScaleOp(2, 3).apply


_PATCHED = _PatchedModule()


def c_ps2m_bound_method_on_module_object(x):
    return _PATCHED.scale(x)


def c_ps2m_callable_or_none_argument(x, fn):
    return 0 if fn is None else fn(x)


c_ps2m_callable_or_none_argument.extra_args = lambda: (torch.nn.functional.relu,)


class _ReluCall:
    def __call__(self, v):
        return torch.relu(v - 1)


def c_ps2m_callable_instance_argument(x, fn):
    return 0 if fn is None else fn(x)


c_ps2m_callable_instance_argument.extra_args = lambda: (_ReluCall(),)


# -- no_grad (test_no_grad) --------------------------------------------------------------------------------------
@torch.no_grad()
def _inner_no_grad(a, b):
    return a * b + a**2


def _inner_no_grad_block(a, b):
    with torch.no_grad():
        return a * b + a**2


def c_ps2m_no_grad_decorated_callee(x, w):
    z = _inner_no_grad(x * w, w)
    return z + x * w + x**3 - 1, z.requires_grad


c_ps2m_no_grad_decorated_callee.extra_args = lambda: (torch.ones(3, requires_grad=True),)


@torch.no_grad()
def c_ps2m_no_grad_decorated_frame(x, w):
    return x * w + x**2 + _inner_no_grad(x, w), torch.is_grad_enabled()


c_ps2m_no_grad_decorated_frame.extra_args = lambda: (torch.ones(3, requires_grad=True),)


def c_ps2m_return_inside_no_grad_callee(x, w):
    z = _inner_no_grad_block(x * w, w)
    with torch.no_grad():
        a = _inner_no_grad_block(x, w)
    return z + a + x * w, z.requires_grad, torch.is_grad_enabled()


c_ps2m_return_inside_no_grad_callee.extra_args = lambda: (torch.ones(3, requires_grad=True),)


# -- in-place writes (test_inplace_api) -----------------------------------------------------------------------------
def c_ps2m_setitem_then_read_alias(x):
    a, b = x.clone(), x + 3
    a[0] = 3.0
    held = [b]
    b[1] = 5.0
    return a[0] + a[1] + held[0][1] + b[0] + b[1]


def c_ps2m_setitem_in_loop_over_iterator(x, it):
    a, b = x.clone(), x + 3
    ret = 0
    for i in it:
        a[0] = 1
        held = [b]
        b[1] = 2 * i + 1
        ret += a[0] + a[1] + held[0][1] + b[0] + b[1]
    return ret, list(it)


c_ps2m_setitem_in_loop_over_iterator.extra_args = lambda: (iter(range(4)),)


def c_ps2m_setitem_under_tensor_branch(x, flag):
    a, b = x.clone(), x + 3
    if flag > 0:
        a[0] = 3.0
        b[1] = 5.0
        return a + b
    return None


c_ps2m_setitem_under_tensor_branch.extra_args = lambda: (torch.tensor(1),)


def c_ps2m_strided_slice_writes_in_list(x, lst):
    lst[0][0, 0::2] = 1.0
    t = lst[1]
    t[:, 0::2] = t[:, 0::2] * 0
    t[:, 1::2] = t[:, 1::2] + 2
    full = x.clone()
    full[:] = 7.0
    return lst, full


c_ps2m_strided_slice_writes_in_list.extra_args = lambda: ([torch.zeros(1, 4), torch.ones(1, 4)],)


def c_ps2m_slice_assign_keeps_grad(x, w):
    m, n = w * 2, w * 3
    y = m
    y[:] = n
    return y, y.requires_grad


c_ps2m_slice_assign_keeps_grad.extra_args = lambda: (torch.ones(3, requires_grad=True),)


# -- namedtuples and dataclasses (test_collections_namedtuple, test_dataclass) -------------------------------------
_Single = namedtuple("_Single", ["a"])
_Duo = namedtuple("_Duo", ["a", "b"])
_Quad = namedtuple("_Quad", ["a", "b", "c", "d"], defaults=[1, 2, 3])


def c_ps2m_namedtuples_with_defaults(x):
    q = _Quad(10), _Quad(8, 9), _Quad(5, 6, 7)
    total = sum(v.a + v.b + v.c + v.d for v in q)
    return x + total, _Single(1)._fields + _Duo(2, 3)._fields, _Duo(x + 1, x + 2).b


def c_ps2m_namedtuple_arguments(x, s, d):
    return x + s.a + d.a + d.b


c_ps2m_namedtuple_arguments.extra_args = lambda: (_Single(torch.ones(3)), _Duo(torch.full((3,), 2.0), 3))


@dataclasses.dataclass
class _Data:
    x: torch.Tensor


@dataclasses.dataclass
class _DataPost:
    x: torch.Tensor

    def __post_init__(self):
        self.x += 1


def c_ps2m_dataclass_returned(x):
    return _Data(x + 1).x, _DataPost(x.clone()).x


def c_ps2m_dataclass_object_returned(x):
    d = _DataPost(x * 2)
    return d.x, dataclasses.asdict(_Data(x))["x"], dataclasses.fields(d)[0].name


# -- strings (test_str_format, test_constant_graph) ---------------------------------------------------------------
def c_ps2m_format_with_unpacked_mapping(x):
    fullname = "fullname"
    name = "spec_for_{fullname}".format(**{"self": None, "fullname": fullname})
    method = getattr(x, name, lambda: None)
    return x + 1, name, method()


def c_ps2m_format_method_bound_then_called(x):
    fmt = "{xx} is xx"
    s = fmt.format(xx=12)
    bound = "{xx} = 12".format
    return x + 1, s, bound(xx=12), f"{10} = 12", "%s is xx" % 10  # noqa: UP031


def c_ps2m_str_split_unbound(x):
    parts = str.split("1,2,3,4,5", ",")
    return x + len(parts), parts, str.join("-", parts)


# -- numpy (test_numpy, test_numpy_var_if) ---------------------------------------------------------------------------
def c_ps2m_tensor_plus_numpy_scalar(x):
    return x + np.int64(2), np.float32(1.5) * x


def c_ps2m_numpy_array_in_branch(x, arr):
    if arr == 0:
        return x + 2
    return x * 2


c_ps2m_numpy_array_in_branch.extra_args = lambda: (np.array([1]),)


def c_ps2m_numpy_round_trip(x):
    return torch.from_numpy(x.numpy() + x.numpy()), torch.tensor(np.sum(x.numpy()))


def c_ps2m_tensor_plus_ndarray(x, arr):
    y = x + arr  # NumPy computes (float64 here), the tensor comes back from __array_wrap__
    y *= arr
    return y, x - arr


c_ps2m_tensor_plus_ndarray.extra_args = lambda: (np.arange(1.0, 4.0),)


def c_ps2m_inplace_update_beside_ndarray(x, buf, arr):
    buf.add_(1)  # an input updated in place: the storage-overlap guard reads the array's memory too
    buf += torch.from_numpy(arr)
    return (buf * torch.from_numpy(arr)).sum() * x


c_ps2m_inplace_update_beside_ndarray.extra_args = lambda: (torch.zeros(3), np.arange(3, dtype=np.float32))


def c_ps2m_inplace_update_beside_numpy_scalar(x, buf, s):
    buf.add_(1)
    return buf.sum() * x * s


c_ps2m_inplace_update_beside_numpy_scalar.extra_args = lambda: (torch.zeros(3), np.float32(2.0))


_PS2M_OFFSET = 2.0


def c_ps2m_globals_reads(x):  # test_21_global: reads of globals() by name
    if "_PS2M_OFFSET" in globals():
        x = x + globals()["_PS2M_OFFSET"]
    return x * globals().get("_PS2M_NOT_DEFINED", 3.0)


def c_ps2m_missing_tensor_attribute_caught(x):
    try:
        x.not_an_attribute  # noqa: B018 (the read is the point: it raises)
    except AttributeError as e:
        return x + 1, str(e)
    return x


# -- breaks (test_break_graph, test_capture_control_flow, test_listcomp) --------------------------------------------------------
def c_ps2m_branch_on_tensor_then_outputs(x):
    m = x + 1
    if m.sum() > 0:
        return m
    return 2 * m


def c_ps2m_inplace_in_tensor_branch(x):
    y = x.clone()
    if y.sum() > 0:
        y += 1
    else:
        y -= 1
    return y + 1


def c_ps2m_tensor_of_tensor_nested(x):
    out = torch.tensor(torch.tensor(torch.tensor([1.0])))
    return x + out, x + torch.nn.functional.relu(torch.tensor([4.0]))


def c_ps2m_conditional_slice_argument(x, y):
    return torch.add(x, y[0:3] if y is not None else None)


c_ps2m_conditional_slice_argument.extra_args = lambda: (torch.ones(6),)


def c_ps2m_list_of_generator_over_list(x):
    out = 0
    for v in list(t for t in [x, x * 2]):  # a generator handed to list()
        out = out + v
    return out


def c_ps2m_print_then_comprehensions(x):
    print("listcomp", x.shape)
    squares = [i * i for i in range(5)]
    gen = (i for i in range(3))
    return x + sum(squares), list(gen)


def c_ps2m_shape_slice_to_reshape(x):
    feat = torch.outer(x, x).reshape(1, 3, 3)
    size = torch.zeros(1, 2, 3, 3).shape[2:]
    h, w = size[0], size[1]
    return feat.reshape(1, h, w, feat.shape[-1] // 3).permute(0, 3, 1, 2)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

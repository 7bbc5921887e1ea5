"""The last programs after PyTorch's split test_misc.py (parts 1 to 4) for ``capture_count.py --only misc14``: objects
whose ``__setattr__`` renames, context managers returned with what they collected, closures written at several
depths, ``out=`` ops that resize, iterators passed in and advanced, grad mode switched around an in-place update,
foreach ops with a tensor scalar, NumPy integers and dtypes in tensor code.
"""

from __future__ import annotations

import typing

import numpy as np
import torch


# -- objects and managers ------------------------------------------------------------------------------------------
class _Prefixed:
    def __setattr__(self, name, value):
        super().__setattr__("pfx_" + name, value)

    def __getattr__(self, name):
        return self.__dict__["pfx_" + name]


def c_m14_setattr_renames_fresh_object(x):
    obj = _Prefixed()
    obj.a = x
    obj.b = obj.a + 1
    return obj.b, sorted(obj.__dict__)


class _Collector:
    def __init__(self):
        self.items = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def c_m14_context_manager_returned_with_items(x):
    with _Collector() as ctx:
        z = x + 1
        ctx.items["k"] = x + 2
    return z, ctx.items["k"], type(ctx).__name__


def _add_one(t):
    return t + 1


_PARAM_WITH_FN = torch.nn.Parameter(torch.ones(3))
_PARAM_WITH_FN.add_one = _add_one


def c_m14_tensor_instance_function_attr(x):
    return _PARAM_WITH_FN.add_one(_PARAM_WITH_FN) + x


_KEY_T = typing.TypeVar("_KEY_T")


def c_m14_typevar_as_dict_key(x):
    d = {_KEY_T: x + 1, "other": x}
    return d[_KEY_T]


class _Cfg:
    def __init__(self):
        self.val = 0.5
        self.count = 3


def c_m14_getattr_default_on_config(x):
    cfg = _Cfg()
    if getattr(cfg, "shortcut", False):
        return x + 7
    for _ in range(cfg.count):
        x = x + cfg.val
    return x


def c_m14_size_unpacked_in_frame(x):
    a, b = x.view(1, 3).size()
    return x + (a - b)


def c_m14_dict_keys_union_loop(x):
    left, right = {"a": x, "b": x + 1}, {"b": x * 2, "c": x - 1}
    total = torch.zeros(3)
    for k in sorted(left.keys() | right.keys()):
        if k in left:
            total = total + left[k]
        if k in right:
            total = total + right[k]
    return total


# -- closures at several depths ----------------------------------------------------------------------------------------
def c_m14_nonlocal_three_levels(x):
    v1 = x + 1

    def level2():
        v2 = x * 2

        def level3():
            nonlocal v1, v2
            v1 = v1 + 1
            v2 = v2 + 2
            return v1 + v2

        return level3

    fn = level2()
    fn()
    return fn(), v1


def c_m14_counter_closure_twice(x):
    def make_counter():
        state = x.clone()

        def counter():
            nonlocal state
            state = state + 1
            return state

        return counter

    c = make_counter()
    return c() + c()


def c_m14_returned_nested_fn_with_defaults(x):
    out = None
    c = x + 1

    def inner(f: int = 7, g: float = 9.0):
        nonlocal out
        out = x * 10
        return c * f - g

    res = inner(1.5)
    return res, out


def c_m14_cell_read_after_later_binding(x):
    t = torch.zeros(3)

    def fill():
        t[0] = later

    later = 1.0
    fill()
    return t + x


def c_m14_existing_cell_both_sides(x):
    shared = x * 2

    def get_inner():
        def inner():
            return shared + shared

        return inner(), inner

    res, fn = get_inner()
    return res, fn()


# -- out= ops and iterators passed in -----------------------------------------------------------------------------------
def c_m14_out_resizes_fresh_tensor(x):
    y = torch.empty(0)
    torch.cosh(x, out=y)
    return y + 1


def c_m14_outer_with_out_kwargs(x):
    out = torch.empty(3, 3)
    inputs = {"input": x, "vec2": x + 1, "out": out}
    res = torch.outer(**inputs)
    return res, out


def c_m14_mv_out_through_helper(x):
    def mv_out(a, b, c):
        torch.mv(b, c, out=a)
        return a

    def call(op, *args):
        return op(*args)

    return call(mv_out, torch.empty(0), torch.ones(3, 3), x)


def c_m14_range_iterator_passed_in(x, it):
    n = next(it)
    return x + n


c_m14_range_iterator_passed_in.extra_args = lambda: (iter(range(1, 3)),)


# -- grad mode, foreach and numpy ---------------------------------------------------------------------------------------
def c_m14_grad_toggles_around_param_add(x):
    p = torch.nn.Parameter(torch.ones(3))
    prev = torch.is_grad_enabled()
    try:
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(True)
        torch.set_grad_enabled(False)
        p.add_(x)
    finally:
        torch.set_grad_enabled(prev)
    return p.detach() * 1, torch.is_grad_enabled()


def c_m14_foreach_with_tensor_scalar(x):
    val = torch.tensor(0.5, dtype=torch.float64)
    a = torch._foreach_addcmul([x], [x + 1], [x + 2], value=1 - val)
    b = torch._foreach_mul([x], 1 - val)
    return a[0], b[0]


def c_m14_numpy_int_mod_constant(x):
    return x + (4096 % np.int64(7))


def c_m14_numpy_issubdtype_of_int(x):
    n = 4096
    return np.issubdtype(type(n), np.integer) + x


def c_m14_to_builtin_types_chain(x):
    return (x * 5).to(bool).to(float).to(int) + 8


def c_m14_numpy_ints_to_long_tensor(x):
    arr = np.array([1, 2, 3, 4, 5, 6], dtype=np.int64)
    return torch.LongTensor([arr[0], arr[2], arr[4]]) + x.long()


def c_m14_empty_of_dtype_isinstance(x):
    checks = [(torch.float64, torch.DoubleTensor), (torch.float16, torch.HalfTensor), (torch.uint8, torch.ByteTensor),
              (torch.int8, torch.CharTensor), (torch.int16, torch.ShortTensor), (torch.bool, torch.BoolTensor)]
    return x + sum(isinstance(torch.empty(2, dtype=dt), cls) for dt, cls in checks)


def c_m14_min_of_shape_and_int(x):
    return x + min(x.shape[0], 2), max(x.shape[0], 5)


def c_m14_inference_mode_param_mul(x):
    with torch.inference_mode():
        t = torch.ones(3)
        p = torch.nn.Parameter(t, requires_grad=False)
        y = t * p
    return y + x, y.is_inference()


def c_m14_named_parameters_with_prefix(x):
    mod = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 3, bias=False))
    names = [n for n, _ in mod.named_parameters(prefix="top")]
    subs = [n for n, _ in mod.named_modules(prefix="m", remove_duplicate=False)]
    return x + len(names), names, subs


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]

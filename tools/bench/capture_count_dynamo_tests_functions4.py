"""Small programs in the manner of the second half of PyTorch's test/dynamo/test_functions.py, for
``capture_count.py --only dynamo_tests_functions4``: numpy arrays taken from tensors and their methods,
``functools.partial`` over torch ops, user functions, modules and lambdas (made in the frame, handed in,
kept across a break), lists grown and tested with ``in``, ``filter`` on tensor flags, ``operator`` folds,
ranges indexed and sliced, ``random`` inside the frame, and closures returned or kept across a break.
"""

from __future__ import annotations

import functools
import io
from collections import namedtuple

import numpy as np
import torch
from torch import nn

_SINK = io.StringIO()  # a print here is the graph break the test wants, not output


# -- numpy arrays from tensors (test_numpy_*, test_ndarray_*) ---------------------------------------------------
def c_f4_numpy_meshgrid(x):
    r1, r2 = np.meshgrid(x.numpy(), (x + 1).numpy())
    return torch.from_numpy(r1), torch.from_numpy(r2)


def c_f4_from_numpy_size_branch(x):
    b = torch.from_numpy(x.numpy())
    return torch.tensor(b.size(0) == 1), x.numpy().size


def c_f4_numpy_attributes(x):
    a = x.reshape(1, 3).numpy()
    return a.itemsize, a.strides, a.shape, a.ndim, a.size, torch.from_numpy(a.T), torch.from_numpy(a.real)


def c_f4_numpy_mean_then_sum(x):
    m = np.mean(x.reshape(3, 1).numpy(), 1)
    return torch.from_numpy(np.asarray(np.sum(m)))


def c_f4_numpy_returned_transposed(x):
    a = x.reshape(3, 1).numpy()
    return a.T, a.real


def c_f4_ndarray_copy_transpose_reshape(x):
    a = x.reshape(3, 1).numpy()
    return a.copy(), a.transpose(1, 0), a.reshape([1, a.size])


def c_f4_ndarray_reductions(x):
    a = x.reshape(3, 1).numpy()
    return a.max(axis=0), a.all(axis=0), a + a, a - a


def c_f4_numpy_dtype_arguments(x):
    dt = np.dtype("float")
    return np.ones_like(x, dtype=np.float64), np.full_like(x, 2.4, dtype=dt)


def c_f4_numpy_norm_and_fftshift(x):
    a = x.reshape(3, 1).numpy()
    return np.linalg.norm(a, axis=0), np.fft.fftshift(x.numpy())


def c_f4_numpy_info_max(x):
    return x + np.iinfo(np.int16).max, x + float(np.finfo(np.float32).min) * 0 + np.finfo("float16").max


# -- functools.partial (test_partials_*) ------------------------------------------------------------------------
def _udf_mul(x, y):
    return x * y


def _udf_mul3(x, y, z):
    return x * y * z


def _udf_add(x, y):
    return x + y


class _PairNN(nn.Module):
    def forward(self, x, y):
        out = torch.cat((x, y), dim=0)
        return nn.ReLU()(nn.ReLU()(out))


def _udf_module(mod, x, y):
    return mod(x, y)


def c_f4_partial_torch_op_keyword(x):
    return functools.partial(torch.mul, other=torch.ones(3) * 2)(x)


def c_f4_partial_torch_op_positional(x):
    return functools.partial(torch.mul, torch.ones(3) * 3)(x)


def c_f4_partial_user_function(x):
    first = functools.partial(_udf_mul, torch.ones(3))
    second = functools.partial(_udf_mul, y=x + 1)
    return first(x) + second(x)


def c_f4_partial_module_keyword(x):
    return functools.partial(_udf_module, mod=_PairNN())(x=x, y=-x)


def c_f4_partial_bound_method_keyword(x):
    return functools.partial(_udf_module, mod=_PairNN().forward)(x=x, y=x - 1)


def c_f4_partial_lambda_keyword(x):
    triple = functools.partial(lambda a, b: a * b, b=3)
    return triple(x)


def c_f4_partial_hasattr(x):
    p = functools.partial(lambda a, b: torch.sin(a) + torch.cos(b), b=x)
    present = [hasattr(p, n) for n in ("args", "keywords", "func", "__call__", "__dict__", "__repr__", "__eq__")]
    absent = [hasattr(p, n) for n in ("__code__", "__defaults__", "__name__", "__qualname__", "__closure__")]
    return (p(x) if all(present) and not any(absent) else torch.zeros_like(x)), present, absent


def c_f4_partials_handed_in(x, f0, f1):
    return f0(x) * f1(x)


c_f4_partials_handed_in.extra_args = lambda: (functools.partial(lambda a, b: a * b, b=3),
                                              functools.partial(_udf_mul, y=torch.ones(3) * 2))


def c_f4_partial_modules_handed_in(x, f0, f1):
    return f0(x) * f1(x)


c_f4_partial_modules_handed_in.extra_args = lambda: (functools.partial(_PairNN(), y=torch.ones(3)),
                                                     functools.partial(_PairNN(), y=-torch.ones(3)))


def c_f4_partials_across_print(x, mul, add):
    first = functools.partial(mul, y=x)
    second = functools.partial(add, x)
    print("break", file=_SINK)
    return torch.mul(first(x), second(x))


c_f4_partials_across_print.extra_args = lambda: (_udf_mul, _udf_add)


def c_f4_partial_local_lambda_across_print(x):
    add = lambda a, b: a + b  # noqa: E731 (a lambda made in the frame is the point)
    first = functools.partial(_udf_mul, y=x)
    second = functools.partial(add, x)
    print("break", file=_SINK)
    return torch.mul(first(x), second(x))


def c_f4_partial_args_and_keywords(x):
    first = functools.partial(_udf_mul3, x, 4, z=x)
    second = functools.partial(_udf_mul3, 4, z=x)
    return torch.mul(first(), second(5)), first.args[1], sorted(second.keywords)


def c_f4_partial_star_args_handed_in(x, f0, f1):
    return f0(*[x]) * f1(*[x])


c_f4_partial_star_args_handed_in.extra_args = lambda: (functools.partial(_udf_mul, y=2),
                                                       functools.partial(_udf_mul, 3))


def c_f4_partial_uninvoked_across_print(x):
    def bar(v, **kwargs):
        return v + v + len(kwargs)

    def inner():
        print("break", file=_SINK)
        return op(x)

    op = functools.partial(bar, dim=10)
    first = inner()
    op = functools.partial(bar, other=10, more=1)
    return inner() + first


def c_f4_partial_torch_rand_namedtuple(x):
    Shape = namedtuple("Shape", ["batch", "heads", "seq", "dim"])
    make = functools.partial(torch.rand, device="cpu", dtype=torch.float16)
    make_q = functools.partial(make, Shape(2, 2, 3, 4))
    t = make_q() + make_q()
    return x + t.shape[-1], t.shape, t.dtype


# -- lists and membership (test_list_add_then_mutate, test_in_not_in, test_filter*) ----------------------------
def c_f4_list_add_then_mutate(x):
    items = [1, x]
    y = x / 4.0
    items = items + [x / 2.0, 4]  # noqa: RUF005 (list + list is the point)
    items.append(y)
    return sum(items), len(items)


def c_f4_list_repeat_left(x):
    return sum(4 * [x]), sum([x] * 2)


def c_f4_in_not_in_assert(x):
    mine = [1, 2, 3, 4, 5, x]
    others = [1, 2, 3, 4, 5]
    assert 3 in mine
    assert 6 not in others
    return sum(mine)


def c_f4_filter_on_requires_grad(x, inputs):
    out = inputs[0]
    for inp in filter(lambda t: t.requires_grad, inputs):
        out = out * inp
    return out.detach()


c_f4_filter_on_requires_grad.extra_args = lambda: ([torch.arange(2.0), torch.arange(2.0).requires_grad_(True)],)


def c_f4_filter_on_tensor_value(x, inputs):
    out = inputs[0]
    for inp in filter(lambda t: t[0] == 1, inputs):
        out = out * inp
    return out


c_f4_filter_on_tensor_value.extra_args = lambda: ([torch.ones(2), torch.arange(2.0)],)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

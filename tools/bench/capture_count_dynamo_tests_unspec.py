"""Small programs in the manner of PyTorch's test/dynamo/test_unspec.py, for ``capture_count.py --only
dynamo_tests_unspec``: Python ints, floats and bools handed in as arguments (compared, used as sizes and
indices, folded into tensor arithmetic), numpy scalars and arrays next to tensors, ``item()`` and
``tolist()`` results fed back into tensor factories and ``math``, the ``random`` module's draws scaling
tensors and shaping factories, size arithmetic, ``torch._check`` and ``torch.tensor`` built from scalars.
Each mixes the scalar work with tensor work before and after it; written afresh over one small tensor.
The module globals side (``global`` statements, other modules' globals) is in the ``_more`` sibling.
"""

from __future__ import annotations

import math
import random

import numpy as np
import torch
import torch.nn.functional as F

# read by the globals programs of the _more sibling through this module, as another module's globals
g_tensor_export = torch.ones(3)
global_flag = False
delete_value = True


def set_flag_true():
    global global_flag
    global_flag = True


def set_flag_false():
    global global_flag
    global_flag = False


def delete_value_fn():
    global delete_value
    del delete_value


def delete_then_store_value_fn():
    global delete_value
    del delete_value
    delete_value = 7  # noqa: F841 (a global: ruff misreads the deletion before it)


# -- numpy scalars and arrays next to tensors --------------------------------------------------------------------
def c_du_numpy_views_in_dict(x, y, z):
    xy = [x + y, y, False]
    np_x = x.numpy()
    np_y = y.numpy()
    return {"x": x, "z": z, "a": np_y.sum(), "b": xy, "c": np_y[0] / 68, "d": np_x.sum(),
            "e": np_x + np_y}, x + np_y.sum() + z


c_du_numpy_views_in_dict.extra_args = lambda: (torch.ones(3, dtype=torch.int64), np.int64(12))


def c_du_numpy_int_argument_divided(x, y):
    return {"a": x + 1, "b": y / 2}


c_du_numpy_int_argument_divided.extra_args = lambda: (np.int64(7),)
c_du_numpy_int_argument_divided.calls = 2


def c_du_max_min_numpy_and_int(x, a, b):
    return x + 1, max(a, b), min(a - 4, b)


c_du_max_min_numpy_and_int.extra_args = lambda: (np.int64(12), 10)


def c_du_numpy_float32_in_branch(x, y):
    if y > 1.0:
        return x + 1
    return x - 1


c_du_numpy_float32_in_branch.extra_args = lambda: (np.float32(1.23),)


def c_du_numpy_float16_in_branch(x, y):
    out = x * 2
    if y > 1.0:
        return out + 1
    return out - 1


c_du_numpy_float16_in_branch.extra_args = lambda: (np.float16(0.5),)


def c_du_numpy_float_times_tensor(x, s):
    y = x * s
    return y + 1, float(s) * 2


c_du_numpy_float_times_tensor.extra_args = lambda: (np.float64(1.5),)


def c_du_numpy_int_as_size(x, n):
    return torch.ones(n) + x.sum(), x.sum() * n


c_du_numpy_int_as_size.extra_args = lambda: (np.int64(4),)


def c_du_numpy_int_indexes_tensor(x, i):
    y = x + 1
    return y[i], y[i:] * 2


c_du_numpy_int_indexes_tensor.extra_args = lambda: (np.int64(1),)


def c_du_numpy_float_into_math(x, s):
    r = math.sqrt(s)
    return x * math.exp(s) + r, r


c_du_numpy_float_into_math.extra_args = lambda: (np.float64(0.25),)


def c_du_tensor_of_numpy_arrays(x):
    a = np.array([1, 2])
    return torch.tensor([a, a]) + x[:2]


def c_du_numpy_array_sum_into_tensor(x):
    a = np.arange(4).reshape(2, 2)
    return x * a.sum() + a[1, 0], a.shape


# -- Python scalars handed in -----------------------------------------------------------------------------------
def c_du_int_indexes_list_argument(x, lst, idx):
    return torch.zeros(idx), lst[idx], lst[idx:], x + lst[idx]


c_du_int_indexes_list_argument.extra_args = lambda: (list(range(50)), 48)


def c_du_int_argument_compared_equal(x, y):
    x = x + y
    if y == 2:
        return x - 1
    return x + 1


c_du_int_argument_compared_equal.extra_args = lambda: (2,)


def c_du_int_argument_compared_unequal(x, y):
    x = x + y
    if y == 2:
        return x - 1
    return x + 1


c_du_int_argument_compared_unequal.extra_args = lambda: (3,)


def c_du_int_argument_added_twice(x, y):
    return x + y


c_du_int_argument_added_twice.extra_args = lambda: (100,)
c_du_int_argument_added_twice.calls = 2


def c_du_relu_module_times_float(x, scaler):
    m = torch.nn.ReLU()
    return m(x - 1) * scaler


c_du_relu_module_times_float.extra_args = lambda: (0.23,)


def c_du_interpolate_float_scale_shape(x, scale_factor):
    image = x.reshape(1, 1, 3).expand(3, 3, 3)
    image = F.interpolate(image[None], size=None, scale_factor=scale_factor, mode="bilinear",
                          recompute_scale_factor=True, align_corners=False)[0]
    return image.shape, image.sum()


c_du_interpolate_float_scale_shape.extra_args = lambda: (1.873536229133606,)


def c_du_sum_over_dim_tuple_argument(x, dim):
    inputs = x.reshape(1, 3, 1, 1).expand(2, 3, 2, 2)
    return torch.sum(inputs, dim)


c_du_sum_over_dim_tuple_argument.extra_args = lambda: ((-1, 1, 0, 2),)


def c_du_amin_int_dim_argument(x, dim):
    t = x.reshape(1, 3) + x.reshape(3, 1)
    return torch.amin(t, dim=dim, keepdim=True)


c_du_amin_int_dim_argument.extra_args = lambda: (1,)


def c_du_exponential_kwargs_dict(x, opts):
    return x.clone().exponential_(**opts) + x


c_du_exponential_kwargs_dict.extra_args = lambda: ({"lambd": 10, "generator": None},)


def c_du_default_int_argument(x):
    def g(t, i=8):
        return t * i

    return g(x) + 1


def c_du_float_argument_compared_equal(x, y):
    if y == 5.0:
        return x + 2
    return x + y


c_du_float_argument_compared_equal.extra_args = lambda: (5.0,)


def c_du_float_argument_compared_unequal(x, y):
    if y == 5.0:
        return x + 2
    return x + y


c_du_float_argument_compared_unequal.extra_args = lambda: (3.0,)
c_du_float_argument_compared_unequal.calls = 2


def c_du_float_nan_argument(x, y):
    if y == 5.0:
        return x + 2
    return x + y, y != y


c_du_float_nan_argument.extra_args = lambda: (math.nan,)


def c_du_float_argument_returned_doubled(x, y):
    return x + 1, y * 2


c_du_float_argument_returned_doubled.extra_args = lambda: (3.0,)


def c_du_bool_argument_branch_and_arith(x, flag):
    y = x * (flag + 1)
    if flag:
        y = y - 1
    return y, flag * 3, not flag


c_du_bool_argument_branch_and_arith.extra_args = lambda: (True,)


def c_du_float_argument_into_full(x, v):
    return torch.full((3,), v) + x, torch.full_like(x, v * 2)


c_du_float_argument_into_full.extra_args = lambda: (2.5,)


def c_du_int_arith_chain_arguments(x, a, b):
    c = a * 2 + b // 3 - (a % b)
    return x * c, c, a / b


c_du_int_arith_chain_arguments.extra_args = lambda: (7, 5)


def c_du_round_float_argument(x, v):
    return x + round(v, 2), round(v), math.floor(v) + math.ceil(v)


c_du_round_float_argument.extra_args = lambda: (2.71828,)


def c_du_divmod_int_argument(x, a):
    q, r = divmod(a, 4)
    return x * q + r, (q, r)


c_du_divmod_int_argument.extra_args = lambda: (11,)


def c_du_tensor_pow_int_argument(x, a):
    return x ** a, 2 ** a, a ** -1


c_du_tensor_pow_int_argument.extra_args = lambda: (2,)


def c_du_tensor_from_float_arguments(x, a, b):
    return torch.tensor([a, b]) + x[:2], torch.tensor(a) * x


c_du_tensor_from_float_arguments.extra_args = lambda: (0.5, -1.25)


def c_du_torch_check_int_argument(x, y):
    torch._check(y + 5 == 85)
    return x + y


c_du_torch_check_int_argument.extra_args = lambda: (80,)


# -- sizes as Python ints ---------------------------------------------------------------------------------------
def c_du_isinstance_size_int(x):
    assert isinstance(x.size(0), int)
    return x * 2


def c_du_ceil_padding_from_shape(x):
    kernel = torch.ones(1, 1, 4)
    padding = math.ceil((kernel.shape[-1] + x.shape[-1] % 2) / 2) - 1
    return F.conv1d(x.reshape(1, 1, -1), kernel, padding=padding, stride=2)


def c_du_int_of_size_comparison(x):
    y = x.size(0)
    return x * int(y == 0), x * int(y == 3)


def c_du_size_arith_into_arange(x):
    n = x.shape[0] * 2 + 1
    return torch.arange(n) + x.sum(), n


def c_du_torch_check_size(x):
    torch._check(x.size(0) != 4)
    torch._check(x.size(0) != 5)
    return x + 2


def c_du_tensor_of_numel_test(x):
    y = torch.empty((x.size(0) // 13) * 13)
    return torch.tensor(y.numel() == 0), x + 1


def c_du_prod_keepdim_dim3(x):
    t = x.reshape(1, 3, 1, 1).expand(2, 3, 2, 2) + 1
    return torch.prod(t, 3, keepdim=True)


def c_du_rshift_uint8(x):
    t = (x * 8).to(torch.uint8)
    return (t >> 2).to(torch.long)


# -- item() and tolist() ---------------------------------------------------------------------------------------
def c_du_item_into_tensor_factories(x):
    v = x.sum() + 1
    return (torch.tensor([v.item()]), torch.tensor([[v.item()], [2.0]]), torch.tensor(v.item()),
            torch.tensor((v.item(),)))


def c_du_tensor_of_zero_dim_tensors(x):
    a = torch.tensor(123)
    b = torch.tensor([[[456]]])
    return torch.tensor([a, a]) + x[:2], torch.tensor([a, b])


def c_du_ones_of_item_max(x):
    t = x.long().sum()
    return torch.ones(max(t.item(), 4)) + 1


def _above_two(y):
    if y > 2:
        return True
    return False


def c_du_item_branch_in_helper(x):
    x = x + 1
    y = x.sum().item()
    if _above_two(y):
        return x * 2
    return x * 3


def c_du_tolist_sizes_split(x, i):
    y, z = i.tolist()
    return torch.split(torch.arange(10.0) + x.sum(), [y, z])


c_du_tolist_sizes_split.extra_args = lambda: (torch.tensor([7, 3]),)


def c_du_math_on_item(x):
    v = (x + 1).sum().item()
    return x * math.sqrt(v), math.floor(v), math.isclose(v, 6.0)


def c_du_float_of_tensor(x):
    f = float(x.max() + 1)
    return x / f, f


def c_du_int_of_tensor_indexes_list(x):
    i = int(x[1])
    return x + [10, 20, 30][i]


def c_du_item_arith_back_into_tensor(x):
    s = x.sum().item()
    m = x.max().item()
    return x * (s - m) + s / 2


def c_du_item_chained_comparison(x):
    v = x.sum().item()
    return x + (1 if 0 < v < 10 else 2)


def c_du_long_item_repeats(x):
    i = x.long()[2].item()
    return x.repeat(i), i


# -- the random module -----------------------------------------------------------------------------------------
def c_du_random_randint_scales_randn(x):
    torch.manual_seed(123)
    y = torch.randn(2, 3) * random.randint(30, 100)
    return y, x + 1


def c_du_random_values_around_item(x):
    r1 = random.random()
    y = x + random.uniform(10, 20)
    y.sum().item()
    r2 = random.randint(2, 18)
    y.sum().item()
    return y + r1, r2


def c_du_random_randrange_shapes_rand(x):
    dim1 = random.randrange(start=0, stop=5)
    dim2 = random.randrange(start=0, stop=5)
    dim3 = random.randrange(start=0, stop=5)
    y = torch.rand(dim1, dim2, dim3)
    return x + 2, y


def c_du_random_uniform_scales_output(x):
    return (x + 1) * random.uniform(0, 1)


def c_du_random_randrange_while_loop(x):
    dim1 = random.randrange(start=0, stop=3)
    dim2 = dim1
    while dim1 == dim2:
        dim2 = random.randrange(start=0, stop=3)
    return x * 2, dim2


def c_du_random_seeded_inside(x):
    random.seed(5)
    a = random.random()
    return x + a


def c_du_random_choice_from_list(x):
    return x * random.choice([1, 2, 3]) + 1


def c_du_random_shuffle_list(x):
    lst = [1, 2, 3, 4]
    random.shuffle(lst)
    return x + lst[0], lst


def c_du_random_getstate_setstate(x):
    state = random.getstate()
    a = random.random()
    random.setstate(state)
    b = random.random()
    return x + a, a == b


def c_du_random_instance_draws(x):
    r = random.Random(3)
    return x + r.randint(1, 9), r.random()


def c_du_random_gauss_and_tensor(x):
    y = x.sin()
    return y + random.gauss(0.0, 1.0), y * random.betavariate(2.0, 3.0)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

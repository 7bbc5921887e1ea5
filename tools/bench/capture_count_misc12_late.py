"""Programs for ``capture_count.py --only misc12`` after PyTorch's test_misc part 6: grad mode switched off
inside the frame (the change outlives it), a descriptor whose ``__get__`` asks ``hasattr`` of the owner,
``hasattr`` on constants and partials, a NumPy integer as a shape, a tensor spread into ``permute``, a 0-d
integer tensor as ``topk``'s ``k``, dicts keyed by builtin types, a ``torch.Size`` added to itself, and
``any``/``all`` over comparisons of sizes.
"""

from __future__ import annotations

import functools

import numpy as np
import torch


def c_m12_set_grad_enabled_outlives_frame(x):
    before = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    y = x.clone().requires_grad_() * 2
    torch.set_grad_enabled(before)
    return y + 1, y.requires_grad


class _FlagDescriptor:
    def __get__(self, instance, owner):
        return 1 if hasattr(owner, "flag") else 0


class _WithFlag:
    flag = True
    prop = _FlagDescriptor()


class _WithoutFlag:
    prop = _FlagDescriptor()


def c_m12_descriptor_hasattr_owner(x):
    return x + _WithFlag().prop + 2 * _WithoutFlag().prop + _WithFlag.prop


def c_m12_hasattr_on_constants(x):
    checks = (hasattr("hi", "upper"), hasattr("hi", "nope"), hasattr(42, "bit_length"), hasattr(4.5, "is_integer"),
              hasattr(2.5, "missing"), hasattr(None, "x"))
    return x + sum(checks), checks


def _two_args(a, b):
    return a + b


def c_m12_hasattr_name_of_callables(x):
    part = functools.partial(_two_args, b=4)
    lam = lambda v: v + 1  # noqa: E731
    return x + 1, hasattr(part, "__name__"), hasattr(lam, "__name__"), hasattr(_two_args, "__qualname__")


def c_m12_numpy_int_shape(x):
    n = np.int_(3)
    return x.reshape(n) * 2, x.reshape(1, np.int64(3))


def c_m12_permute_with_tensor_spread(x):
    y = x.reshape(1, 3, 1)
    order = torch.tensor([0, 2, 1])
    return y.permute(*order)


def c_m12_topk_zero_dim_k(x):
    k = torch.tensor(2, dtype=torch.int32)
    return torch.topk(x, k, sorted=True)[0]


def c_m12_roll_with_int_shifts(x):
    shift = 4
    return torch.roll(torch.roll(x.reshape(1, 3), shifts=shift - 1, dims=1), shifts=shift + 1, dims=0)


def _result_dtype(kind):
    return {bool: torch.float32, int: torch.int64}[kind]


def c_m12_dict_keyed_by_builtin_types(x):
    return torch.ones(3, dtype=_result_dtype(bool)) + x, _result_dtype(int)


def c_m12_size_plus_size(x):
    s = x.reshape(3, 1).size()
    total = s + s
    return x + len(total), type(total).__name__, total


def c_m12_any_all_size_comparisons(x):
    t = x.size(0) >= 2
    f = x.size(0) >= 100
    if any([]) or any([f]) or all([t, f]):
        return x - 1
    if not (all([]) and all([t]) and any([f, t])):
        return x - 2
    return x + 1


def c_m12_torch_objects_as_keys(x):
    remap = {torch.float16: torch.float32, torch.int8: torch.int32}
    return x.to(remap[torch.float16]) + torch.ones(3, dtype=remap[torch.int8])


def c_m12_deterministic_flag_roundtrip(x):
    before = torch.are_deterministic_algorithms_enabled()
    warn = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    inside = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(before, warn_only=warn)
    return x + inside, before


def c_m12_dim_order_of_permuted(x):
    y = x.reshape(1, 3, 1, 1).permute(3, 0, 2, 1)
    return y * 2, y.dim_order(), x.reshape(3, 1).as_strided((3, 1), (1, 3)).dim_order()


def c_m12_str_dunder_iter_next(x):
    text = "ab"
    if next(text.__iter__()) == "a":
        return x + 1
    return x


def c_m12_format_shape_slices(x):
    img = x.reshape(1, 1, 3, 1)
    template = "{} / {n:.1f}"
    return img.sin(), f"shape {img.shape[-2:]} batch {img.shape[0]}", template.format(img.shape[-2:], n=img.shape[0])


def c_m12_set_pop_products(x):
    y = x + 1
    pair = {x, y}
    first = pair.pop()
    return first * pair.pop(), len(pair)


def c_m12_torch_assert_with_fstring(x):
    shape = x.reshape(1, 3).shape[-2:]
    torch._assert(len(shape) == 2, f"shape {x.shape}")
    return x + len(shape)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]

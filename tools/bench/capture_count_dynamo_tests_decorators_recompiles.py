"""The programs of PyTorch's test/dynamo/test_recompiles.py, for ``capture_count.py --only dynamo_tests_decorators``.

A recompile program runs more than once (``calls``) on state its ``extra_args`` make afresh, which the frame
itself changes before it returns (a flag flipped, a size grown, a global rebound, a module put in eval mode, a
method patched, a default replaced), so a later call must miss the earlier calls' guards and recompile, or
must not where nothing it read changed; its result is every call's answer, its state what all calls left.
"""

from __future__ import annotations

import torch
from torch import nn


# -- recompiles (test_recompiles.py): the second call sees changed state ------------------------------------------
def c_dd_recompile_bool_flag_flop(x, box):
    out = x * 2 if box["flag"] else x * x
    box["flag"] = not box["flag"]
    return out


c_dd_recompile_bool_flag_flop.calls = 2
c_dd_recompile_bool_flag_flop.extra_args = lambda: ({"flag": True},)


def c_dd_recompile_size_grows(x, box):
    t = box["t"]
    out = t * 2 + t.shape[0]
    box["t"] = torch.ones(t.shape[0] + 1)
    return out + 0, x + 1


c_dd_recompile_size_grows.calls = 3
c_dd_recompile_size_grows.extra_args = lambda: ({"t": torch.ones(2)},)


def c_dd_recompile_tensor_then_scalar(x, box):
    out = x * box["y"]
    box["y"] = 3 if isinstance(box["y"], torch.Tensor) else torch.ones(3)
    return out


c_dd_recompile_tensor_then_scalar.calls = 3
c_dd_recompile_tensor_then_scalar.extra_args = lambda: ({"y": torch.arange(3.0)},)


def c_dd_recompile_int_argument_changes(x, box):
    n = box["n"]
    y = x + n
    box["n"] = n + 1
    return y * n


c_dd_recompile_int_argument_changes.calls = 3
c_dd_recompile_int_argument_changes.extra_args = lambda: ({"n": 1},)


def c_dd_no_recompile_same_value_rewritten(x, box):
    y = x * box["k"]
    box["k"] = 2
    return y + 1


c_dd_no_recompile_same_value_rewritten.calls = 2
c_dd_no_recompile_same_value_rewritten.extra_args = lambda: ({"k": 2},)


def c_dd_recompile_float_changes(x, box):
    y = x * box["scale"]
    box["scale"] = box["scale"] / 2
    return y


c_dd_recompile_float_changes.calls = 2
c_dd_recompile_float_changes.extra_args = lambda: ({"scale": 1.5},)


def c_dd_recompile_float_each_call(x, box):
    s = box["scale"]  # a new float on every call: a SymFloat input from the second compile on
    box["scale"] = s * 0.75 + 0.125
    return x * s + s * s, s / 3


c_dd_recompile_float_each_call.calls = 12
c_dd_recompile_float_each_call.extra_args = lambda: ({"scale": 1.5},)


def c_dd_recompile_string_changes(x, box):
    y = x + 1 if box["mode"] == "add" else x * 3
    box["mode"] = "mul"
    return y, box["mode"]


c_dd_recompile_string_changes.calls = 2
c_dd_recompile_string_changes.extra_args = lambda: ({"mode": "add"},)


def c_dd_recompile_none_then_tensor(x, box):
    bias = box["bias"]
    y = x * 2 if bias is None else x * 2 + bias
    box["bias"] = torch.ones(3)
    return y


c_dd_recompile_none_then_tensor.calls = 2
c_dd_recompile_none_then_tensor.extra_args = lambda: ({"bias": None},)


def c_dd_recompile_dtype_changes(x, box):
    t = box["t"]
    y = (t * 2).to(torch.float32) + x
    box["t"] = t.to(torch.float64 if t.dtype == torch.float32 else torch.float32)
    return y, str(t.dtype)


c_dd_recompile_dtype_changes.calls = 3
c_dd_recompile_dtype_changes.extra_args = lambda: ({"t": torch.ones(3)},)


def c_dd_recompile_requires_grad_changes(x, box):
    t = box["t"]
    y = t * 2
    box["t"] = t.detach().requires_grad_(not t.requires_grad)
    return y.requires_grad, y.detach() + x


c_dd_recompile_requires_grad_changes.calls = 3
c_dd_recompile_requires_grad_changes.extra_args = lambda: ({"t": torch.ones(3)},)


class _TrainBranch(nn.Module):
    def forward(self, t):
        return t * 2 if self.training else t - 1


def c_dd_recompile_module_train_eval(x, m):
    y = m(x)
    m.train(not m.training)
    return y, m.training


c_dd_recompile_module_train_eval.calls = 4
c_dd_recompile_module_train_eval.extra_args = lambda: (_TrainBranch(),)


class _ScaledBy(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c

    def forward(self, t):
        return t * self.c


def c_dd_recompile_module_int_attribute(x, m):
    y = m(x)
    m.c = m.c + 10
    return y


c_dd_recompile_module_int_attribute.calls = 3
c_dd_recompile_module_int_attribute.extra_args = lambda: (_ScaledBy(10),)


class _Holder:
    def __init__(self):
        self.w = 1


def c_dd_recompile_object_attribute(x, h):
    y = x + h.w
    h.w = h.w * 5
    return y


c_dd_recompile_object_attribute.calls = 2
c_dd_recompile_object_attribute.extra_args = lambda: (_Holder(),)


def c_dd_recompile_list_grows(x, items):
    out = x
    for v in items:
        out = out + v
    items.append(len(items))
    return out


c_dd_recompile_list_grows.calls = 3
c_dd_recompile_list_grows.extra_args = lambda: ([1],)


def c_dd_recompile_dict_key_added(x, d):
    out = x * len(d) + sum(d.values())
    d[f"k{len(d)}"] = len(d)
    return out, list(d)


c_dd_recompile_dict_key_added.calls = 3
c_dd_recompile_dict_key_added.extra_args = lambda: ({"a": 1},)


def c_dd_recompile_tuple_length_changes(x, box):
    out = x
    for v in box["t"]:
        out = out * v
    box["t"] = box["t"] + (2,)
    return out


c_dd_recompile_tuple_length_changes.calls = 3
c_dd_recompile_tuple_length_changes.extra_args = lambda: ({"t": (1,)},)


def _closure_over(i):
    def g(y):
        return y + i
    return g


def c_dd_recompile_closed_int(x, box):
    y = box["g"](x)
    box["g"] = _closure_over(box["i"] + 1)
    box["i"] += 1
    return y


c_dd_recompile_closed_int.calls = 3
c_dd_recompile_closed_int.extra_args = lambda: ({"g": _closure_over(0), "i": 0},)


def c_dd_recompile_closure_cell_mutated(x, box):
    y = box["g"](x)
    box["bump"]()
    return y


def _cell_pair():
    k = 1

    def g(t):
        return t * k

    def bump():
        nonlocal k
        k += 1
    return ({"g": g, "bump": bump},)


c_dd_recompile_closure_cell_mutated.calls = 3
c_dd_recompile_closure_cell_mutated.extra_args = _cell_pair


_GLOBAL_SCALE = 1
_GLOBAL_BIAS = torch.zeros(3)


def _reset_globals():
    global _GLOBAL_SCALE, _GLOBAL_BIAS
    _GLOBAL_SCALE = 1
    _GLOBAL_BIAS = torch.zeros(3)
    return ()


def c_dd_recompile_global_int_rebound(x):
    global _GLOBAL_SCALE
    y = x * _GLOBAL_SCALE
    _GLOBAL_SCALE += 1
    return y


c_dd_recompile_global_int_rebound.calls = 3
c_dd_recompile_global_int_rebound.extra_args = _reset_globals


def c_dd_recompile_global_tensor_rebound(x):
    global _GLOBAL_BIAS
    y = x + _GLOBAL_BIAS
    _GLOBAL_BIAS = _GLOBAL_BIAS + 1
    return y


c_dd_recompile_global_tensor_rebound.calls = 3
c_dd_recompile_global_tensor_rebound.extra_args = _reset_globals


class _Tunable:
    level = 0


def c_dd_recompile_class_attribute(x, cls):
    y = x + cls.level
    cls.level += 2
    return y


c_dd_recompile_class_attribute.calls = 3
c_dd_recompile_class_attribute.extra_args = lambda: (type("Tunable", (_Tunable,), {"level": 1}),)


def c_dd_recompile_aliasing_inputs(x, a, b):
    a.add_(b)
    return b + 1, a.clone()


c_dd_recompile_aliasing_inputs.calls = 2
c_dd_recompile_aliasing_inputs.extra_args = lambda: (lambda t: (t, t))(torch.ones(3))


def c_dd_recompile_aliasing_global(x, a):
    a.add_(_GLOBAL_BIAS)
    return _GLOBAL_BIAS + 1, a.clone()


c_dd_recompile_aliasing_global.calls = 2
c_dd_recompile_aliasing_global.extra_args = lambda: (_reset_globals() or _GLOBAL_BIAS,)


def c_dd_recompile_parameter_shape(x, box):
    w = box["w"]
    out = box["p"] @ w
    box["p"] = nn.Parameter(torch.ones(box["p"].shape[0] + 1, 3))
    return out.detach() + 0, x


c_dd_recompile_parameter_shape.calls = 3
c_dd_recompile_parameter_shape.extra_args = lambda: ({"w": torch.ones(3, 2), "p": nn.Parameter(torch.ones(1, 3))},)


def c_dd_recompile_function_swapped(x, box):
    y = box["f"](x)
    box["f"] = torch.cos if box["f"] is torch.sin else torch.sin
    return y


c_dd_recompile_function_swapped.calls = 3
c_dd_recompile_function_swapped.extra_args = lambda: ({"f": torch.sin},)


def c_dd_recompile_disabled_helper_twice(x, box):
    y = _disabled_affine(x, box["k"])
    box["k"] += 1
    return y + 1


@torch._dynamo.disable
def _disabled_affine(t, k):
    return t * k


c_dd_recompile_disabled_helper_twice.calls = 2
c_dd_recompile_disabled_helper_twice.extra_args = lambda: ({"k": 1},)


# -- many calls: the cache limit, and modes flipping back and forth (test_*_cache_limit_hit, test_simple_module_*) --
def c_dd_recompile_past_the_cache_limit(x, box):
    tag = box["tags"][box["i"] % len(box["tags"])]
    box["i"] += 1
    return x * len(tag) + box["i"], tag


c_dd_recompile_past_the_cache_limit.calls = 14
c_dd_recompile_past_the_cache_limit.extra_args = lambda: ({"i": 0, "tags": [chr(97 + n) * (n + 1) for n in range(12)]},)


def _add_then_inner(x, n):
    x = x + n
    return _add_inner(x, n)


def _add_inner(x, n):
    x = x + n
    _sink.append(n)
    return x + n


_sink = []


def c_dd_recompile_nested_frames_past_the_limit(x, box):
    n = box["n"]
    box["n"] = n + 1
    _sink.clear()
    return _add_then_inner(x, n * 1.5)


c_dd_recompile_nested_frames_past_the_limit.calls = 12
c_dd_recompile_nested_frames_past_the_limit.extra_args = lambda: ({"n": 0},)


class _DropoutLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 1)
        with torch.no_grad():
            self.linear.weight.fill_(0.25)
            self.linear.bias.fill_(0.5)

    def forward(self, t):
        out = self.linear(t)
        return out * 2 if self.training else out


def c_dd_recompile_train_eval_many_times(x, m):
    y = m(x)
    m.train(not m.training)
    return y.detach()


c_dd_recompile_train_eval_many_times.calls = 20
c_dd_recompile_train_eval_many_times.extra_args = lambda: (_DropoutLinear(),)


def c_dd_recompile_true_false_then_sizes(x, box):
    flag, t = box["plan"][box["i"]]
    box["i"] += 1
    return (t * 2 if flag else t * t).sum() + x


c_dd_recompile_true_false_then_sizes.calls = 5
c_dd_recompile_true_false_then_sizes.extra_args = lambda: ({"i": 0, "plan": [
    (True, torch.ones(2)), (False, torch.ones(2)), (True, torch.ones(3)), (True, torch.ones(4)), (True, torch.ones(5))]},)


def c_dd_recompile_tensor_scalar_swaps(x, box):
    y = box["plan"][box["i"]]
    box["i"] += 1
    t = torch.ones(box["i"] + 1)
    return (t * y).sum() + x


c_dd_recompile_tensor_scalar_swaps.calls = 5
c_dd_recompile_tensor_scalar_swaps.extra_args = lambda: ({"i": 0, "plan": [
    torch.full((2,), 2.0), 3, torch.full((4,), 2.0), 4, torch.full((6,), 2.0)]},)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

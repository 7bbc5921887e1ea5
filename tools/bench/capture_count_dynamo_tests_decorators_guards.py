"""More recompile programs for ``capture_count.py --only dynamo_tests_decorators``, as in
``capture_count_dynamo_tests_decorators_recompiles.py``: between calls the frame changes what a guard must
watch beyond plain values (a function's defaults or code, a method or property patched on the class, an
instance attribute shadowing or unshadowing the class's, a forward hook, a submodule, strides, an object's
class, a partial's keywords, a decorator's configuration or counter, a global function, the grad mode).
"""

from __future__ import annotations

import functools

import torch
from torch import nn


class _TrainBranch(nn.Module):
    def forward(self, t):
        return t * 2 if self.training else t - 1


class _ScaledBy(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c

    def forward(self, t):
        return t * self.c


# -- state a guard must see change: defaults, methods, hooks, strides, cells, partials ----------------------------
def _with_default(t, k=2):
    return t * k


def c_dd_recompile_function_defaults_replaced(x, box):
    f = box["f"]
    y = f(x)
    f.__defaults__ = (f.__defaults__[0] + 1,)
    return y


c_dd_recompile_function_defaults_replaced.calls = 3
c_dd_recompile_function_defaults_replaced.extra_args = lambda: ({"f": functools.wraps(_with_default)(
    lambda t, k=2: t * k)},)


def c_dd_recompile_decorated_defaults_replaced(x, box):
    y = box["f"](x)
    box["f"].__wrapped__.__defaults__ = (5,)
    return y


def _wrapped_copy():
    def base(t, k=2):
        return t * k

    @functools.wraps(base)
    def wrapper(t):
        return base(t) + 1
    return ({"f": wrapper},)


c_dd_recompile_decorated_defaults_replaced.calls = 2
c_dd_recompile_decorated_defaults_replaced.extra_args = _wrapped_copy


def c_dd_recompile_method_patched_on_class(x, obj):
    y = obj.step(x)
    type(obj).step = lambda self, t: t - self.k
    return y


def _patchable():
    cls = type("Patchable", (), {"k": 3, "step": lambda self, t: t + self.k})
    return (cls(),)


c_dd_recompile_method_patched_on_class.calls = 2
c_dd_recompile_method_patched_on_class.extra_args = _patchable


def c_dd_recompile_instance_shadows_class_attribute(x, obj):
    y = x * obj.k
    obj.k = obj.k + 5
    return y


c_dd_recompile_instance_shadows_class_attribute.calls = 3
c_dd_recompile_instance_shadows_class_attribute.extra_args = lambda: (type("Shadowed", (), {"k": 2})(),)


def c_dd_recompile_instance_attribute_deleted(x, obj):
    y = x * obj.k
    if "k" in vars(obj):
        del obj.k
    return y


def _shadowing():
    obj = type("Shadow", (), {"k": 2})()
    obj.k = 7
    return (obj,)


c_dd_recompile_instance_attribute_deleted.calls = 2
c_dd_recompile_instance_attribute_deleted.extra_args = _shadowing


def c_dd_recompile_forward_hook_added(x, m):
    y = m(x)
    if not m._forward_hooks:
        m.register_forward_hook(lambda mod, args, out: out * 10)
    return y


c_dd_recompile_forward_hook_added.calls = 2
c_dd_recompile_forward_hook_added.extra_args = lambda: (_TrainBranch(),)


def c_dd_recompile_submodule_swapped(x, m):
    y = m(x)
    m.inner = _ScaledBy(7) if isinstance(m.inner, _TrainBranch) else _TrainBranch()
    return y


class _Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = _TrainBranch()

    def forward(self, t):
        return self.inner(t) + 1


c_dd_recompile_submodule_swapped.calls = 3
c_dd_recompile_submodule_swapped.extra_args = lambda: (_Outer(),)


def c_dd_recompile_stride_changes(x, box):
    t = box["t"]
    y = t.reshape(-1) * 2 if t.is_contiguous() else t.sum(0)
    box["t"] = t.t()
    return y, t.stride()


c_dd_recompile_stride_changes.calls = 3
c_dd_recompile_stride_changes.extra_args = lambda: ({"t": torch.arange(6.0).reshape(2, 3)},)


def c_dd_recompile_list_item_changed(x, items):
    y = x * items[0]
    items[0] += 1
    return y


c_dd_recompile_list_item_changed.calls = 3
c_dd_recompile_list_item_changed.extra_args = lambda: ([1, 2],)


def c_dd_recompile_dict_order_changes(x, d):
    out = x
    for k, v in d.items():
        out = out * v if k == "a" else out + v
    d["a"] = d.pop("a")
    return out, list(d)


c_dd_recompile_dict_order_changes.calls = 2
c_dd_recompile_dict_order_changes.extra_args = lambda: ({"a": 2, "b": 3},)


def c_dd_recompile_set_grows(x, s):
    y = x + len(s) + (5 in s)
    s.add(len(s) + 4)
    return y


c_dd_recompile_set_grows.calls = 3
c_dd_recompile_set_grows.extra_args = lambda: ({1},)


def c_dd_recompile_partial_keywords_mutated(x, p):
    y = p(x)
    p.keywords["k"] = p.keywords["k"] + 1
    return y


c_dd_recompile_partial_keywords_mutated.calls = 3
c_dd_recompile_partial_keywords_mutated.extra_args = lambda: (functools.partial(_with_default, k=2),)


def c_dd_recompile_code_replaced(x, box):
    f = box["f"]
    y = f(x)
    f.__code__ = (lambda t, k=2: t - k).__code__
    return y


c_dd_recompile_code_replaced.calls = 2
c_dd_recompile_code_replaced.extra_args = lambda: ({"f": lambda t, k=2: t * k},)


def c_dd_recompile_object_class_changed(x, obj):
    y = obj.value(x)
    obj.__class__ = _Minus if type(obj) is _Plus else _Plus
    return y


class _Plus:
    def value(self, t):
        return t + 1


class _Minus:
    def value(self, t):
        return t - 1


c_dd_recompile_object_class_changed.calls = 3
c_dd_recompile_object_class_changed.extra_args = lambda: (_Plus(),)


def c_dd_recompile_parameter_requires_grad_toggled(x, m):
    y = m(x)
    m.weight.requires_grad_(not m.weight.requires_grad)
    return y.requires_grad, y.detach()


def _linear():
    m = nn.Linear(3, 3)
    with torch.no_grad():
        m.weight.fill_(0.5)
        m.bias.zero_()
    m.bias.requires_grad_(False)
    return (m,)


c_dd_recompile_parameter_requires_grad_toggled.calls = 3
c_dd_recompile_parameter_requires_grad_toggled.extra_args = _linear


def c_dd_recompile_decorator_config_mutated(x, box):
    y = box["f"](x)
    box["config"]["scale"] += 1
    return y


def _configured():
    config = {"scale": 2}

    def configured(fn):
        @functools.wraps(fn)
        def wrapper(t):
            return fn(t) * config["scale"]
        return wrapper

    @configured
    def f(t):
        return t + 1
    return ({"f": f, "config": config},)


c_dd_recompile_decorator_config_mutated.calls = 3
c_dd_recompile_decorator_config_mutated.extra_args = _configured


def c_dd_recompile_counting_decorator_across_calls(x, box):
    return box["f"](x)


def _counted():
    calls = 0

    def counting(fn):
        @functools.wraps(fn)
        def wrapper(t):
            nonlocal calls
            calls += 1
            return fn(t) + calls
        return wrapper
    return ({"f": counting(lambda t: t * 2)},)


c_dd_recompile_counting_decorator_across_calls.calls = 3
c_dd_recompile_counting_decorator_across_calls.extra_args = _counted


def c_dd_recompile_global_function_rebound(x):
    global _STEP
    y = _STEP(x)
    _STEP = torch.cos if _STEP is torch.sin else torch.sin
    return y


_STEP = torch.sin


def _reset_step():
    global _STEP
    _STEP = torch.sin
    return ()


c_dd_recompile_global_function_rebound.calls = 3
c_dd_recompile_global_function_rebound.extra_args = _reset_step


def c_dd_recompile_property_replaced(x, obj):
    y = x * obj.scale
    type(obj).scale = property(lambda self: 10)
    return y


c_dd_recompile_property_replaced.calls = 2
c_dd_recompile_property_replaced.extra_args = lambda: (type("Props", (), {"scale": property(lambda self: 3)})(),)


def c_dd_recompile_tensor_in_list_resized(x, items):
    y = items[0] * 2
    items[0] = torch.ones(items[0].shape[0] + 1)
    return y.sum() + x


c_dd_recompile_tensor_in_list_resized.calls = 3
c_dd_recompile_tensor_in_list_resized.extra_args = lambda: ([torch.ones(2)],)


def c_dd_recompile_grad_mode_set_in_frame(x, w):
    y = w * 2
    torch.set_grad_enabled(not torch.is_grad_enabled())
    return y.requires_grad


c_dd_recompile_grad_mode_set_in_frame.calls = 3
c_dd_recompile_grad_mode_set_in_frame.extra_args = lambda: (torch.ones(3, requires_grad=True),)


# -- state the trace itself changed, read back in the same frame --------------------------------------------------
def c_dd_class_dict_after_class_assignment(x, cls):
    before = vars(cls)["level"]
    cls.level = before + 3
    return x * cls.level, vars(cls)["level"]


c_dd_class_dict_after_class_assignment.calls = 2
c_dd_class_dict_after_class_assignment.extra_args = lambda: (type("Levels", (), {"level": 1}),)


def c_dd_namespace_dict_after_store(x, ns):
    ns.k = ns.k + 1
    return x * vars(ns)["k"], sorted(vars(ns))


c_dd_namespace_dict_after_store.calls = 2
c_dd_namespace_dict_after_store.extra_args = lambda: (__import__("types").SimpleNamespace(k=1),)


class _WithRunning(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(3))
        self.scale = nn.Parameter(torch.ones(3))

    def forward(self, t):
        self.running = self.running * 0.5 + t
        return t * self.scale


def c_dd_module_buffer_reassigned_then_listed(x, m):
    y = m(x).detach()
    return y, [b.clone() for b in m.buffers()], len(list(m.parameters()))


c_dd_module_buffer_reassigned_then_listed.calls = 2
c_dd_module_buffer_reassigned_then_listed.extra_args = lambda: (_WithRunning(),)


def c_dd_module_parameter_assigned_then_listed(x, m):
    m.extra = nn.Parameter(torch.full((3,), float(len(list(m.parameters())))))
    return (x * m.extra).detach(), [p.detach().clone() for p in m.parameters()]


c_dd_module_parameter_assigned_then_listed.calls = 2
c_dd_module_parameter_assigned_then_listed.extra_args = lambda: (_WithRunning(),)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

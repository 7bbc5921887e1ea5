"""Module state changed inside the compiled frame and read back in the same frame, modelled on PyTorch's
test/dynamo/test_modules.py (``test_no_op_assignment``, ``test_assign_does_not_exist``,
``test_setattr_on_compiled_module``, ``test_param_order``/``test_buffer_order``/``test_module_order``,
``test_module_setattr``, ``HasAttrModule``, ``IsNoneLayer``, ``ParametersModule5``, ``test_mark_static_with_freezing``),
for ``capture_count.py --only dynamo_tests_modules4``: an assignment ``Module.__setattr__`` files in
``_parameters``, ``_buffers`` or ``_modules`` (a buffer reassigned, None over a submodule or a parameter, a parameter
or submodule over a buffer's name, a new plain attribute), followed by a read of the tables (``buffers()``,
``named_parameters()``, ``children()``, ``name in m._modules``, ``hasattr``). Most are called twice on one module,
so that the second call starts from what the first one left. Each is written afresh over one tensor.
"""

from __future__ import annotations

import torch
from torch import nn


def _fresh(cls, *args):
    return lambda: (cls(*args),)


class _Running(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(3))
        self.register_buffer("steps", torch.zeros(()), persistent=False)
        self.scale = nn.Parameter(torch.ones(3))
        self.act = nn.ReLU()


def _names(pairs):
    return [name for name, _ in pairs]


# -- a buffer reassigned stays a buffer ----------------------------------------------------------------------
def c_dm4_buffer_reassigned_named_buffers(x, m):
    m.running = m.running * 0.5 + x
    return [(n, b.clone()) for n, b in m.named_buffers()]


c_dm4_buffer_reassigned_named_buffers.calls = 2
c_dm4_buffer_reassigned_named_buffers.extra_args = _fresh(_Running)


def c_dm4_buffer_no_op_assignment(x, m):
    # test_no_op_assignment: self.buffer = self.buffer.to(x)
    x = x + 1
    m.running = m.running.to(x)
    return m.running + x, len(list(m.buffers())), list(m._buffers)


c_dm4_buffer_no_op_assignment.calls = 2
c_dm4_buffer_no_op_assignment.extra_args = _fresh(_Running)


def c_dm4_non_persistent_buffer_reassigned(x, m):
    m.steps = m.steps + 1
    return [b.clone() for b in m.buffers()], list(m._buffers)


c_dm4_non_persistent_buffer_reassigned.calls = 2
c_dm4_non_persistent_buffer_reassigned.extra_args = _fresh(_Running)


def c_dm4_buffer_set_to_none_then_listed(x, m):
    m.running = None
    return x + 1, [n for n, _ in m.named_buffers()], "running" in m._buffers, m.running is None


c_dm4_buffer_set_to_none_then_listed.extra_args = _fresh(_Running)


def c_dm4_buffer_reassigned_twice_in_frame(x, m):
    m.running = x * 2
    m.running = m.running + 1
    return [b.clone() for b in m.buffers()]


c_dm4_buffer_reassigned_twice_in_frame.calls = 2
c_dm4_buffer_reassigned_twice_in_frame.extra_args = _fresh(_Running)


class _Freezable(nn.Module):
    def __init__(self):
        super().__init__()
        self.buf = nn.Buffer(torch.ones(3))

    def forward(self, x):
        return self.buf * x


def c_dm4_buffer_from_rand_like_then_call(x, m):
    # test_mark_static_with_freezing: mod.buf = torch.rand_like(buf), then the module runs
    m.buf = torch.ones_like(m.buf) * 3
    return m(x), len(list(m.buffers()))


c_dm4_buffer_from_rand_like_then_call.calls = 2
c_dm4_buffer_from_rand_like_then_call.extra_args = _fresh(_Freezable)


# -- parameters ----------------------------------------------------------------------------------------------
def c_dm4_parameter_set_to_none_then_listed(x, m):
    m.scale = None
    return x * 2, _names(m.named_parameters()), m.scale is None, "scale" in m._parameters


c_dm4_parameter_set_to_none_then_listed.extra_args = _fresh(_Running)


def c_dm4_tensor_over_parameter_raises(x, m):
    try:
        m.scale = x * 2
    except TypeError:
        return x - 1, _names(m.named_parameters())
    return x + 1, []


c_dm4_tensor_over_parameter_raises.extra_args = _fresh(_Running)


class _Duplicated(nn.Module):
    # ParametersModule5: one parameter under two names
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(3))
        self.scale_dup = self.scale


def c_dm4_parameter_aliased_then_counted(x, m):
    m.other = m.scale
    count = 0
    for _ in m.parameters():
        count += 1
    return x * count, _names(m.named_parameters(remove_duplicate=False))


c_dm4_parameter_aliased_then_counted.extra_args = _fresh(_Duplicated)


class _Ordered(nn.Module):
    def __init__(self):
        super().__init__()
        self.param1 = nn.Parameter(torch.ones(1))
        self.param2 = nn.Parameter(torch.ones(2))
        self.b1 = nn.Buffer(torch.ones(1))
        self.b2 = nn.Buffer(torch.ones(2))


def c_dm4_param_order_after_set_none_and_back(x, m):
    # test_param_order: the order of _parameters decides what parameters() yields
    p1 = m.param1
    m.param1 = None
    m.param1 = p1
    total = x.sum()
    for idx, p in enumerate(m.parameters()):
        total = total + p.sum() * (idx + 2)
    return total, _names(m.named_parameters())


c_dm4_param_order_after_set_none_and_back.calls = 2
c_dm4_param_order_after_set_none_and_back.extra_args = _fresh(_Ordered)


def c_dm4_buffer_order_after_reassign(x, m):
    # test_buffer_order: reassigning b1 keeps its place in _buffers
    m.b1 = m.b1 + x[0]
    total = x.sum()
    for idx, (_, b) in enumerate(m.named_buffers()):
        total = total + b.sum() * (idx + 2)
    return total, list(m._buffers)


c_dm4_buffer_order_after_reassign.calls = 2
c_dm4_buffer_order_after_reassign.extra_args = _fresh(_Ordered)


# -- submodules ----------------------------------------------------------------------------------------------
class _Layers(nn.Module):
    # IsNoneLayer, with the layers swapped in the frame
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(3, 3)
        self.layer2 = nn.ReLU()

    def forward(self, x):
        if self.layer1 is not None:
            x = self.layer1(x)
        if self.layer2 is not None:
            x = self.layer2(x)
        return x


def c_dm4_layer_set_to_none_then_children(x, m):
    m.layer2 = None
    return m(x).detach(), [type(c).__name__ for c in m.children()], _names(m.named_modules())


c_dm4_layer_set_to_none_then_children.extra_args = _fresh(_Layers)


def c_dm4_layer_restored_after_none(x, m):
    keep = m.layer2
    m.layer2 = None
    y = m(x)
    m.layer2 = keep
    return (y + m(x)).detach(), list(m._modules), m._modules["layer2"] is keep


c_dm4_layer_restored_after_none.extra_args = _fresh(_Layers)


def c_dm4_tensor_over_submodule_raises(x, m):
    try:
        m.layer2 = x
    except TypeError:
        return x + 5, "layer2" in m._modules
    return x, False


c_dm4_tensor_over_submodule_raises.extra_args = _fresh(_Layers)


def c_dm4_module_over_buffer_name(x, m):
    m.running = nn.Tanh()
    return m.running(x), list(m._buffers), list(m._modules)


c_dm4_module_over_buffer_name.extra_args = _fresh(_Running)


def c_dm4_parameter_over_buffer_name(x, m):
    m.running = nn.Parameter(torch.ones(3) * 2)
    return (x * m.running).detach(), list(m._buffers), _names(m.named_parameters())


c_dm4_parameter_over_buffer_name.extra_args = _fresh(_Running)


def c_dm4_parameter_over_submodule_name(x, m):
    m.act = nn.Parameter(torch.ones(3))
    return (x + m.act).detach(), list(m._modules), list(m._parameters)


c_dm4_parameter_over_submodule_name.extra_args = _fresh(_Running)


def c_dm4_new_submodule_then_named_children(x, m):
    m.extra = nn.Identity()
    return m.extra(x) + 1, _names(m.named_children()), "extra" in m._modules


c_dm4_new_submodule_then_named_children.extra_args = _fresh(_Running)


def c_dm4_sequential_child_attr_then_run(x, m):
    # test_module_setattr / test_unspecialized_seq: a plain attribute and training of a child, then the call
    m[0].abc = True
    m[0].training = False
    return m(x).detach(), m[0].abc, [c.training for c in m.children()]


c_dm4_sequential_child_attr_then_run.extra_args = lambda: (nn.Sequential(nn.Linear(3, 3)),)


# -- plain attributes go to __dict__ -------------------------------------------------------------------------
class _Encoder(nn.Module):
    # test_assign_does_not_exist / test_setattr_on_compiled_module: a tensor kept on the module
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.x = None

    def forward(self, inp):
        res = self.lin(inp)
        self.x = res
        self.text_encoding = inp + 1
        return res


def c_dm4_tensor_attribute_kept_then_listed(x, m):
    out = m(x)
    return out.detach(), len(list(m.buffers())), _names(m.named_parameters()), "text_encoding" in m._buffers


c_dm4_tensor_attribute_kept_then_listed.calls = 2
c_dm4_tensor_attribute_kept_then_listed.extra_args = _fresh(_Encoder)


def c_dm4_hasattr_after_buffer_none(x, m):
    # HasAttrModule: hasattr over a name the frame just set to None
    m.running = None
    y = x
    if hasattr(m, "running"):
        y = y + 1
    if hasattr(m, "scale2"):
        y = y * 2
    return y, getattr(m, "running", "missing")


c_dm4_hasattr_after_buffer_none.extra_args = _fresh(_Running)


class _Counting(nn.Module):
    # SelfMutatingModule: a counter, with a buffer updated alongside it
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(3, 3)
        self.counter = 0
        self.register_buffer("seen", torch.zeros(()))

    def forward(self, x):
        result = self.layer(x) + self.counter
        self.counter += 1
        self.seen = self.seen + 1
        return torch.relu(result)


def c_dm4_self_mutating_then_buffers(x, m):
    y = m(x)
    return y.detach(), m.counter, [b.clone() for b in m.buffers()]


c_dm4_self_mutating_then_buffers.calls = 2
c_dm4_self_mutating_then_buffers.extra_args = _fresh(_Counting)


class _OwnSetattr(nn.Module):
    # test_no_op_assignment's Mod2: a __setattr__ that reaches Module's through super()
    def __init__(self):
        super().__init__()
        self.register_buffer("buffer", torch.zeros(3))

    def __setattr__(self, name, value):
        return super().__setattr__(name, value)

    def forward(self, x):
        x = x + 1
        self.buffer = self.buffer.to(x) + x
        return self.buffer + x


def c_dm4_own_setattr_buffer_then_listed(x, m):
    y = m(x)
    return y, [b.clone() for b in m.buffers()]


c_dm4_own_setattr_buffer_then_listed.calls = 2
c_dm4_own_setattr_buffer_then_listed.extra_args = _fresh(_OwnSetattr)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

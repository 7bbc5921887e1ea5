"""More programs for ``capture_count.py --only dynamo_tests_modules2`` (see ``capture_count_dynamo_tests_modules2.py``),
after the second half of PyTorch's test/dynamo/test_modules.py, written afresh: the order of ``parameters``,
``buffers``, ``modules``, ``children`` and their ``named_*`` forms (modules as dict keys, duplicates, prefixes,
``get_submodule``), module attribute mutation in the frame (new attributes, ``training``, counters, tensors kept
on the module, ``requires_grad``), submodule swaps and deletions, a monkeypatched ``forward``, and attribute
precedence between instance attributes, submodules and methods.
"""

from __future__ import annotations

import itertools
import types

import torch
import torch.nn.functional as F
from torch import nn


def _seeded(make):
    torch.manual_seed(0)
    return make()


def _fresh(make):
    return lambda: (_seeded(make),)

# -- parameters / buffers / modules and their order ----------------------------------------------------------
class _TwoParams(nn.Module):
    def __init__(self):
        super().__init__()
        self.param1 = nn.Parameter(torch.ones([1]))
        self.param2 = nn.Parameter(torch.ones([2]))
        self.b1 = nn.Buffer(torch.ones([1]))
        self.b2 = nn.Buffer(torch.full([2], 2.0))


_TWO = _TwoParams()
_COEFFS = [2, 3]


def c_dm_parameters_order_enumerate(x):
    y = x + 0
    for idx, p in enumerate(_TWO.parameters()):
        y = y + p.sum() * _COEFFS[idx]
    for idx, p in enumerate(_TWO.named_parameters()):
        y = y + p[1].sum() * _COEFFS[idx]
    return y


def c_dm_buffers_order_enumerate(x):
    y = x + 0
    for idx, b in enumerate(_TWO.buffers()):
        y = y + b.sum() * _COEFFS[idx]
    for idx, (name, b) in enumerate(_TWO.named_buffers()):
        y = y + b.sum() * _COEFFS[idx] + len(name)
    return y


class _TwoLinears(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(3, 3)
        self.linear2 = nn.Linear(3, 3)


_TWO_LIN = _seeded(_TwoLinears)
_MOD_COEFF = {_TWO_LIN: 10, _TWO_LIN.linear1: 20, _TWO_LIN.linear2: 30}


def c_dm_modules_as_dict_keys_in_order(x):
    y = x * 1
    coeffs = [2, 3, 4]
    for idx, m in enumerate(_TWO_LIN.modules()):
        y = y + _MOD_COEFF[m] * coeffs[idx]
    for idx, (_, m) in enumerate(_TWO_LIN.named_modules()):
        y = y + _MOD_COEFF[m] * coeffs[idx]
    for idx, m in enumerate(_TWO_LIN.children()):
        y = y + _MOD_COEFF[m] * coeffs[idx]
    for idx, pair in enumerate(_TWO_LIN.named_children()):
        y = y + _MOD_COEFF[pair[1]] * coeffs[idx]
    return y


_NET = _seeded(lambda: nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))))


def c_dm_named_parameters_as_dict(x):
    params = dict(_NET.named_parameters())
    return x @ params["2.0.weight"] + params["0.bias"].sum(), sorted(params)


def c_dm_named_modules_prefix_and_names(x):
    names = [name for name, _ in _NET.named_modules(prefix="root")]
    return x + len(names), names


def c_dm_named_buffers_of_batchnorm(x):
    bufs = dict(_NET.named_buffers())
    return x * bufs["2.1.running_var"] + bufs["2.1.running_mean"], list(bufs)


def c_dm_parameters_recurse_false_dtype(x):
    p = next(_NET[0].parameters(recurse=False))
    ones = torch.ones(3, dtype=p.dtype)
    return x + ones, len(list(_NET.parameters(recurse=False)))


def c_dm_any_requires_grad_over_parameters(x):
    if any(p.requires_grad for p in _NET.parameters()):
        return x + 1
    return x - 1


class _SharedScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(3, 3)
        self.scale = nn.Parameter(torch.full((3,), 2.0))
        self.scale_dup = self.scale


_SHARED = _seeded(_SharedScale)


def c_dm_parameters_deduplicated_count(x):
    counter = 0
    for _ in _SHARED.parameters():
        counter += 1
    return x * _SHARED.scale * counter, len(list(_SHARED.named_parameters(remove_duplicate=False)))


def c_dm_chain_parameters_buffers_dtype(x):
    first = next(itertools.chain(_NET.parameters(), _NET.buffers()))
    return x.to(first.dtype) * 2, first.dtype


def c_dm_get_submodule_and_parameter(x):
    lin = _NET.get_submodule("2.0")
    w = _NET.get_parameter("2.0.weight")
    return lin(x.new_ones(1, 4)) + w.sum() + x


def c_dm_numel_sum_over_parameters(x):
    total = sum(p.numel() for p in _NET.parameters() if p.requires_grad)
    return x + total


def c_dm_state_dict_keys(x):
    keys = list(_NET.state_dict().keys())
    return x + len(keys), keys[:3]


# -- attribute mutation ----------------------------------------------------------------------------------------
def c_dm_setattr_on_module_in_sequential(x, models):
    models[0].abc = True
    return models(x) + 1, models[0].abc


c_dm_setattr_on_module_in_sequential.extra_args = _fresh(lambda: nn.Sequential(nn.Linear(3, 3)))


class _AssignsNew(nn.Module):
    def forward(self, x):
        self.text_encoding = x + 1
        return self.text_encoding


def c_dm_forward_assigns_new_attribute(x, mod):
    out = mod(x * 2)
    return out * 3, mod.text_encoding is out


c_dm_forward_assigns_new_attribute.extra_args = _fresh(_AssignsNew)


def c_dm_training_flag_set_in_frame(x, models):
    models[0].training = False
    return models(x) - 1, models.training, models[0].training


c_dm_training_flag_set_in_frame.extra_args = _fresh(lambda: nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5)))


class _NoOpAssign(nn.Module):
    def __init__(self):
        super().__init__()
        self.buffer = torch.full([3], 0.5)

    def forward(self, x):
        x = x + 1
        self.buffer = self.buffer.to(x)
        return self.buffer + x


def c_dm_no_op_tensor_reassignment(x, mod):
    return mod(x) * 2, mod.buffer


c_dm_no_op_tensor_reassignment.extra_args = _fresh(_NoOpAssign)


class _SelfMutating(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(3, 3)
        self.counter = 0

    def forward(self, x):
        result = self.layer(x) + self.counter
        self.counter += 1
        return F.relu(result)


def c_dm_self_mutating_counter_three_calls(x, mod):
    return mod(x) + mod(x) + mod(x), mod.counter


c_dm_self_mutating_counter_three_calls.extra_args = _fresh(_SelfMutating)


class _KeepsIntermediate(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = nn.Linear(3, 4)
        self.lin2 = nn.Linear(4, 3)
        self.x = None

    def forward(self, inp):
        res = self.lin1(inp)
        self.x = res
        return self.lin2(res)


def c_dm_forward_stores_intermediate(x, mod):
    mod.x = torch.tensor([100.0, 200.0])
    out = mod(x)
    return out, mod.x


c_dm_forward_stores_intermediate.extra_args = _fresh(_KeepsIntermediate)


def c_dm_train_eval_switch_in_frame(x, mod):
    mod.eval()
    a = mod(x)
    mod.train()
    return a + 1, mod.training, mod[1].training


c_dm_train_eval_switch_in_frame.extra_args = _fresh(lambda: nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.0)))


def c_dm_requires_grad_toggled_in_frame(x, mod):
    for p in mod.parameters():
        p.requires_grad = False
    y = mod(x) * 2
    return y, y.requires_grad, [p.requires_grad for p in mod.parameters()]


c_dm_requires_grad_toggled_in_frame.extra_args = _fresh(lambda: nn.Linear(3, 3))


def c_dm_register_buffer_non_persistent_in_frame(x, mod):
    mod.register_buffer("cache", x * 2, persistent=False)
    return mod(x) + mod.cache, "cache" in mod.state_dict()


c_dm_register_buffer_non_persistent_in_frame.extra_args = _fresh(lambda: nn.Linear(3, 3))


def c_dm_int_attribute_bumped_between_calls(x, mod):
    a = mod(x) + mod.step
    mod.step += 1
    return a + mod.step


def _with_step(mod):
    mod.step = 10
    return mod


c_dm_int_attribute_bumped_between_calls.extra_args = _fresh(lambda: _with_step(nn.Linear(3, 3)))


# -- submodule swaps -------------------------------------------------------------------------------------------
class _Swappable(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(3, 3)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.layer(x))


def c_dm_submodule_swapped_in_frame(x, mod):
    before = mod(x)
    mod.act = nn.Tanh()
    return before + mod(x), type(mod.act).__name__


c_dm_submodule_swapped_in_frame.extra_args = _fresh(_Swappable)


def c_dm_submodule_replaced_by_setattr_identity(x, mod):
    mod.__setattr__("layer", nn.Identity())
    return mod(x - 1), list(mod._modules)


c_dm_submodule_replaced_by_setattr_identity.extra_args = _fresh(_Swappable)


def c_dm_submodule_deleted_in_frame(x, mod):
    del mod.act
    return mod.layer(x) * 2, hasattr(mod, "act"), list(mod._modules)


c_dm_submodule_deleted_in_frame.extra_args = _fresh(_Swappable)


def c_dm_submodule_set_to_none(x, mod):
    mod.act = None
    y = mod.layer(x)
    if mod.act is not None:
        y = mod.act(y)
    return y + 1, "act" in mod._modules


c_dm_submodule_set_to_none.extra_args = _fresh(_Swappable)


class _Cos(nn.Module):
    def forward(self, x):
        return torch.cos(x)


def _sine_forward(self, x):
    return torch.sin(x)


def _patched():
    mod = _Cos()
    mod.forward = types.MethodType(_sine_forward, mod)
    return mod


_PATCHED = _patched()


def c_dm_monkeypatched_forward(x):
    return _PATCHED(x * 2) + 1


def c_dm_forward_patched_in_frame(x, mod):
    a = mod(x)
    mod.forward = types.MethodType(_sine_forward, mod)
    return a + mod(x)


c_dm_forward_patched_in_frame.extra_args = _fresh(_Cos)


class _Empty(nn.Module):
    pass


def _empty_patched():
    mod = _Empty()
    mod.forward = types.MethodType(lambda self, x: x - 1, mod)
    return mod


_EMPTY_PATCHED = _empty_patched()


def c_dm_forward_patched_onto_empty_module(x):
    return _EMPTY_PATCHED(x + 3) * 2


# -- attribute precedence ------------------------------------------------------------------------------------
class _PrecedenceBase(nn.Module):
    def linear(self, x, flag=None):
        return x * 2.0 if flag else x * 3.0


class _Precedence(_PrecedenceBase):
    def __init__(self):
        super().__init__()
        self.activation = nn.ReLU()
        self.linear = nn.Linear(3, 3)
        self.initializer = torch.ones([3])
        self.scale = 0.5

    def activation(self, x):
        return x * 1.2

    def initializer(self):
        return torch.zeros([3])

    def scale(self):
        return 2.0

    def forward(self, x):
        return self.activation(self.linear(self.initializer + x)) * self.scale


_PRECEDENCE = _seeded(_Precedence)


def c_dm_instance_attributes_shadow_methods(x):
    return _PRECEDENCE(x - 2) + 1


def c_dm_hasattr_getattr_default_on_module(x):
    y = F.relu(x)
    if hasattr(_PRECEDENCE, "scale"):
        y = y * _PRECEDENCE.scale
    if hasattr(_PRECEDENCE, "scale2"):
        y = y * _PRECEDENCE.scale2
    return y + getattr(_PRECEDENCE, "missing", 7)


class _Comparison(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer0 = nn.Linear(3, 3)
        self.layer1 = nn.Linear(3, 3)

    @property
    def encoder_layers(self):
        return [self.layer0, self.layer1]

    def forward(self, x):
        out = x
        for layer in self.encoder_layers:
            out = layer(out)
            out = F.relu6(out) if layer is None or layer == self.layer0 else F.relu(out)
        return out


_COMPARISON = _seeded(_Comparison)


def c_dm_module_equality_in_property_list(x):
    return _COMPARISON(x * 4) + 1


def c_dm_class_name_checks(x):
    if _COMPARISON.__class__.__name__ == "ABC":
        return x
    if _COMPARISON.layer0.__class__.__name__ == "Linear":
        return F.relu(_COMPARISON.layer0(x) + 10)
    return x - 1


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_dm_")]

"""Module programs after the second half of PyTorch's test/dynamo/test_modules.py, for ``capture_count.py --only
dynamo_tests_modules2``, written afresh: forward hooks and forward pre-hooks (output-rewriting, recording,
``with_kwargs``, ``prepend``, bound methods of plain objects, hooks swapped in ``_forward_hooks``, explicit
``__call__``), parametrizations, lazy modules (``LazyLinear``, ``LazyModuleMixin`` with list, named-tuple and
keyword inputs), and ``ModuleDict``/``ModuleList``/``Sequential``/``ParameterList`` iteration, slicing and
membership. ``capture_count_dynamo_tests_modules2_more.py`` holds the order of ``parameters``/``modules`` and
attribute mutation; ``capture_count_dynamo_tests_modules2_outputs.py`` ``__getattr__`` overrides and
``ModelOutput``-style outputs.

A module a program mutates (a hook registered, a lazy module materialised) is made afresh for each run
(``extra_args``); the runner compares results, exceptions, the RNG state and the global torch state with eager's.
"""

from __future__ import annotations

import collections
import functools
import typing

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.modules.lazy import LazyModuleMixin
from torch.nn.utils import parametrizations, parametrize


def _seeded(make):
    """``make()`` under a fixed seed, so that the module's parameters are the same on every run."""
    torch.manual_seed(0)
    return make()


def _fresh(make):
    """An ``extra_args`` that hands the program a module made afresh (and seeded) for each run."""
    return lambda: (_seeded(make),)


# -- forward hooks -----------------------------------------------------------------------------------------
class _TwiceAndOne(nn.Module):
    def forward(self, x):
        return 2 * x + 1


def _hooked_twice_and_one():
    m = _TwiceAndOne()
    m.register_forward_hook(lambda mod, args, out: 2 * out + 1)
    return m


_HOOKED = _hooked_twice_and_one()


def c_dm_forward_hook_rewrites_output(x):
    y = x * 2 + 1
    return _HOOKED(y) - 1


def _net():
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 3), nn.ReLU())


def c_dm_hooks_on_named_modules_record(x, net):
    seen = []
    for name, module in net.named_modules():
        module.register_forward_hook(functools.partial(lambda n, m, args, out: seen.append(n), name))
    out = net(x + 1)
    return out * 2, seen


c_dm_hooks_on_named_modules_record.extra_args = _fresh(_net)


def _net_rewriting_hooks():
    net = _net()
    for module in net.modules():
        module.register_forward_hook(lambda m, args, out: 2 * out + 1)
    return net


_REWRITTEN = _seeded(_net_rewriting_hooks)


def c_dm_output_hooks_on_every_module_called_twice(x):
    return _REWRITTEN(x) * _REWRITTEN(x - 1)


class _CallsDunderCall(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 3)

    def forward(self, x):
        return self.linear.__call__(x)


def _dunder_call_hooked():
    m = _CallsDunderCall()
    m.linear.register_forward_hook(lambda mod, args, out: out * 10)
    return m


_DUNDER_CALL = _seeded(_dunder_call_hooked)


def c_dm_explicit_dunder_call_fires_hooks(x):
    return _DUNDER_CALL(x.sin()) + 1


class _PreHookOwner:
    """A plain object whose bound method is a module's forward pre-hook (prepended, with kwargs)."""

    def __init__(self, module):
        self.module = module
        self.handle = module.register_forward_pre_hook(self.shift, prepend=True, with_kwargs=True)

    def shift(self, module, args, kwargs):
        return (args[0] + 1,), kwargs

    def __call__(self, x):
        return self.module(x)


class _Square(nn.Module):
    def forward(self, x):
        return x * x


_PRE_OWNER = _PreHookOwner(_Square())


def c_dm_bound_method_pre_hook_with_kwargs(x):
    return _PRE_OWNER(x * 2) - 1


def c_dm_pre_hook_returns_bare_tensor(x, lin):
    lin.register_forward_pre_hook(lambda m, args: args[0] * 3)
    return lin(x + 1) + 1


c_dm_pre_hook_returns_bare_tensor.extra_args = _fresh(lambda: nn.Linear(3, 3))


def c_dm_pre_hook_returns_none_records(x, lin):
    calls = []
    lin.register_forward_pre_hook(lambda m, args: calls.append(args[0].shape))
    y = lin(x) + lin(x * 2)
    return y, len(calls), calls[0]


c_dm_pre_hook_returns_none_records.extra_args = _fresh(lambda: nn.Linear(3, 3))


def c_dm_forward_hook_with_kwargs(x, lin):
    def hook(module, args, kwargs, out):
        return out + kwargs.get("bias_shift", 0) + args[0]
    lin.register_forward_hook(hook, with_kwargs=True)
    return lin(x * 2).relu()


c_dm_forward_hook_with_kwargs.extra_args = _fresh(lambda: nn.Linear(3, 3))


def c_dm_prepended_hooks_run_first(x, lin):
    order = []
    lin.register_forward_hook(lambda m, a, out: order.append("second") or out * 2)
    lin.register_forward_hook(lambda m, a, out: order.append("first") or out + 1, prepend=True)
    return lin(x).sum() + x, order


c_dm_prepended_hooks_run_first.extra_args = _fresh(lambda: nn.Linear(3, 3))


def c_dm_hook_removed_then_called(x, lin):
    handle = lin.register_forward_hook(lambda m, a, out: out * 100)
    hooked = lin(x)
    handle.remove()
    return hooked + lin(x), len(lin._forward_hooks)


c_dm_hook_removed_then_called.extra_args = _fresh(lambda: nn.Linear(3, 3))


def _hook_swapped():
    m = _TwiceAndOne()
    handle = m.register_forward_hook(lambda mod, args, out: 2 * out + 1)
    m._forward_hooks[handle.id] = lambda mod, args, out: 2 * out + 2
    return m


_SWAPPED = _hook_swapped()


def c_dm_hook_swapped_in_hook_dict(x):
    return _SWAPPED(x * 2 + 1) + 1


class _CustomLinear(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(a, b))

    def forward(self, x):
        return torch.mm(x, self.weight)


def _with_backward_hooks():
    net = nn.Sequential(_CustomLinear(3, 4), _CustomLinear(4, 2))
    net.grads = {}
    for name, module in net.named_modules():
        module.register_full_backward_hook(
            functools.partial(lambda n, m, gi, go: net.grads.__setitem__(n, go[0].shape), name))
    return net


def c_dm_full_backward_hooks_forward_only(x, net):
    out = net(x.reshape(1, 3) + 1)
    return out * 2, sorted(net.grads)


c_dm_full_backward_hooks_forward_only.extra_args = _fresh(_with_backward_hooks)


def c_dm_global_forward_hook_registered_in_frame(x, lin):
    handle = nn.modules.module.register_module_forward_hook(lambda m, a, out: out * 3)
    try:
        y = lin(x)
    finally:
        handle.remove()
    return y + lin(x)


c_dm_global_forward_hook_registered_in_frame.extra_args = _fresh(lambda: nn.Linear(3, 3))


# -- parametrizations --------------------------------------------------------------------------------------
class _Symmetric(nn.Module):
    def forward(self, w):
        return w.triu() + w.triu(1).transpose(-1, -2)


def _symmetric_linear():
    lin = nn.Linear(3, 3)
    parametrize.register_parametrization(lin, "weight", _Symmetric())
    return lin


_SYMMETRIC = _seeded(_symmetric_linear)


def c_dm_parametrized_weight_used(x):
    return _SYMMETRIC(x + 1) * 2


def c_dm_parametrized_weight_read_and_original(x):
    w = _SYMMETRIC.weight
    original = _SYMMETRIC.parametrizations.weight.original
    return x @ w + (w - original).abs().sum(), parametrize.is_parametrized(_SYMMETRIC, "weight")


def c_dm_parametrize_cached_context(x):
    with parametrize.cached():
        y = _SYMMETRIC(x) + _SYMMETRIC(x * 2)
    return y.sigmoid()


_WEIGHT_NORMED = _seeded(lambda: parametrizations.weight_norm(nn.Linear(3, 3)))


def c_dm_weight_norm_parametrization(x):
    g = _WEIGHT_NORMED.parametrizations.weight.original0
    return _WEIGHT_NORMED(x - 1) + g.sum()


def c_dm_parametrization_registered_in_frame(x, lin):
    parametrize.register_parametrization(lin, "weight", _Symmetric())
    return lin(x) + 1, type(lin).__name__


c_dm_parametrization_registered_in_frame.extra_args = _fresh(lambda: nn.Linear(3, 3))


# -- lazy modules ------------------------------------------------------------------------------------------
def c_dm_lazy_linear_materialised_in_frame(x, lazy):
    y = lazy(x.reshape(1, 3) * 2)
    return y.relu(), type(lazy).__name__, tuple(lazy.weight.shape)


c_dm_lazy_linear_materialised_in_frame.extra_args = _fresh(lambda: nn.LazyLinear(4))


class _LazyMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.LazyLinear(4)
        self.fc2 = nn.LazyLinear(1)

    def forward(self, inp):
        return F.relu(self.fc2(F.relu(self.fc1(inp))))


def c_dm_lazy_mlp_two_lazy_layers(x, mlp):
    return mlp(x.reshape(1, 3) + 1) * 3


c_dm_lazy_mlp_two_lazy_layers.extra_args = _fresh(_LazyMLP)


class _LazySumOfList(LazyModuleMixin, nn.Module):
    def initialize_parameters(self, inputs):
        with torch.no_grad():
            self._param = nn.Parameter(torch.empty(inputs[0].shape).fill_(0.5))

    def forward(self, inputs):
        total = 0
        for i in range(len(inputs)):
            total = total + inputs[i]
        return total * self._param


def c_dm_lazy_mixin_list_input(x, lazy):
    parts = [x, x * 2, x + 1, None]
    return lazy(parts[:-1]) - 1


c_dm_lazy_mixin_list_input.extra_args = _fresh(_LazySumOfList)


class _Packed(typing.NamedTuple):
    x: dict
    y: torch.Tensor


class _LazyNamedTuple(LazyModuleMixin, nn.Module):
    def initialize_parameters(self, packed):
        with torch.no_grad():
            self._param = nn.Parameter(torch.empty(packed.x["a"][0].shape).fill_(0.25))

    def forward(self, packed):
        parts = packed.x["a"]
        total = packed.y
        for i in range(len(parts)):
            total = total + parts[i]
        return total * self._param


def c_dm_lazy_mixin_namedtuple_dict_input(x, lazy):
    packed = _Packed(x={"a": [x, x * 3], "b": x - 1}, y=x + 5)
    return lazy(packed).sum() + x


c_dm_lazy_mixin_namedtuple_dict_input.extra_args = _fresh(_LazyNamedTuple)


class _LazyTwoInputs(LazyModuleMixin, nn.Module):
    def initialize_parameters(self, xs, ys):
        with torch.no_grad():
            self._px = nn.Parameter(torch.empty(xs[0].shape).fill_(0.5))
            self._py = nn.Parameter(torch.empty(ys[0].shape).fill_(2.0))

    def forward(self, xs, ys):
        return sum(xs) * self._px + sum(ys) * self._py


class _LazyMakesLayer(LazyModuleMixin, nn.Module):
    def initialize_parameters(self, *args, **kwargs):
        with torch.no_grad():
            self.layer = _LazyTwoInputs()

    def forward(self, xs, ys):
        return self.layer(xs, ys=ys)


def c_dm_lazy_mixin_makes_lazy_layer_kwargs(x, lazy):
    return lazy([x, x + 1], [x * 2]) + 1


c_dm_lazy_mixin_makes_lazy_layer_kwargs.extra_args = _fresh(_LazyMakesLayer)


class _LazyParent(LazyModuleMixin, nn.Module):
    def impl(self, x):
        return x.cos() + self._val


class _LazyChildNoClsToBecome(_LazyParent):
    def forward(self, x):
        return super().impl(x.sin())

    def initialize_parameters(self, inp):
        self._val = nn.Parameter(torch.ones(3))


def c_dm_lazy_without_cls_to_become_super(x, lazy):
    return lazy(x * 2) * 3, type(lazy).__name__


c_dm_lazy_without_cls_to_become_super.extra_args = _fresh(_LazyChildNoClsToBecome)


def c_dm_lazy_batchnorm_materialised(x, bn):
    return bn(x.reshape(3, 1) + 1).flatten(), type(bn).__name__


c_dm_lazy_batchnorm_materialised.extra_args = _fresh(
    lambda: nn.LazyBatchNorm1d(affine=False, track_running_stats=False))


def c_dm_lazy_has_uninitialized_params(x, lazy):
    before = lazy.has_uninitialized_params()
    y = lazy(x.reshape(1, 3))
    return y + 1, before, isinstance(lazy, LazyModuleMixin)


c_dm_lazy_has_uninitialized_params.extra_args = _fresh(lambda: nn.LazyLinear(2))


# -- containers ----------------------------------------------------------------------------------------------
class _Activations(nn.Module):
    def __init__(self):
        super().__init__()
        self.acts = nn.ModuleDict([["lrelu", nn.LeakyReLU()], ["prelu", nn.PReLU()]])


_ACTS = _seeded(_Activations)


def c_dm_module_dict_iter_names(x):
    y = x - 1
    for name in _ACTS.acts:
        y = _ACTS.acts[name](y)
    return y * 2


def c_dm_module_dict_keys_values_items(x):
    y = x - 1
    for key in _ACTS.acts.keys():
        y = _ACTS.acts[key](y) + 1
    for act in _ACTS.acts.values():
        y = act(y)
    names = [name for name, _ in _ACTS.acts.items()]
    return y, names


_CONV_DICT = nn.ModuleDict({"foo": nn.Identity()})


def c_dm_module_dict_contains(x):
    y = torch.mul(x, 1.0)
    if "foo" in _CONV_DICT:
        y = y * 3
    if "bar" in _CONV_DICT:
        y = y * 5
    return torch.add(y, 1.0), len(_CONV_DICT)


class _Odd(nn.ModuleDict):
    def __init__(self):
        super().__init__()
        for i in range(2):
            self.add_module(f"l@yer-{i + 1:d}", nn.Linear(3, 3))

    def forward(self, x):
        for layer in self.values():
            x = layer(x)
        return x


_ODD = _seeded(_Odd)


def c_dm_module_dict_names_not_identifiers(x):
    return _ODD(x + 1) + getattr(_ODD, "l@yer-1")(x)


class _DuplicatedRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()
        self.layer = nn.Sequential(collections.OrderedDict([
            ("linear1", nn.Linear(3, 4)), ("relu1", self.relu),
            ("linear2", nn.Linear(4, 3)), ("relu2", self.relu)]))

    def forward(self, x):
        return self.layer(x)


_DUPLICATED = _seeded(_DuplicatedRelu)


def c_dm_sequential_ordered_dict_duplicated_module(x):
    return _DUPLICATED(x) + len(list(_DUPLICATED.modules())) + _DUPLICATED.layer.linear2(x[:4].new_ones(4)).sum()


_SEQ = _seeded(lambda: nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3), nn.Tanh()))


def c_dm_sequential_slice_and_negative_index(x):
    head = _SEQ[:2]
    return head(x) + _SEQ[-1](x), type(head).__name__, len(head)


_LIST = _seeded(lambda: nn.ModuleList([nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3)]))


def c_dm_module_list_reversed_and_enumerate(x):
    y = x
    for idx, layer in enumerate(reversed(_LIST)):
        y = layer(y) * (idx + 1)
    return y + _LIST[-1](x)


def c_dm_module_list_concatenated(x):
    both = _LIST + nn.ModuleList([nn.Tanh()])
    for layer in both:
        x = layer(x)
    return x, len(both)


def c_dm_module_list_appended_in_frame(x, layers):
    layers.append(nn.Sigmoid())
    layers.insert(0, nn.Tanh())
    for layer in layers:
        x = layer(x)
    return x, len(layers)


c_dm_module_list_appended_in_frame.extra_args = _fresh(lambda: nn.ModuleList([nn.Linear(3, 3)]))


def c_dm_sequential_append_in_frame(x, seq):
    seq.append(nn.ReLU())
    return seq(x - 1), len(seq)


c_dm_sequential_append_in_frame.extra_args = _fresh(lambda: nn.Sequential(nn.Linear(3, 3)))


_PLIST = nn.ParameterList([nn.Parameter(torch.ones(3)), nn.Parameter(torch.full((3,), 2.0))])
_PDICT = nn.ParameterDict({"a": nn.Parameter(torch.ones(3)), "b": nn.Parameter(torch.full((3,), 3.0))})


def c_dm_parameter_list_and_dict_iteration(x):
    y = x * 1
    for p in _PLIST:
        y = y * p
    for name, p in _PDICT.items():
        y = y + p if name == "a" else y - p
    return y + _PDICT["b"] + _PLIST[-1]


class _DenseBlock(nn.ModuleDict):
    def __init__(self):
        super().__init__()
        for i in range(3):
            self.add_module(f"denselayer{i + 1:d}", nn.Identity())

    def forward(self, init):
        features = [init]
        for idx, layer in enumerate(self.values()):
            features.append(1.5 * layer(features[-1]) + idx)
        return torch.cat(features)


_DENSE = _DenseBlock()


def c_dm_module_dict_subclass_enumerate_values(x):
    return _DENSE(x + 1) * 2


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_dm_")]

"""nn.Module and object-model constructs, in our own words, for ``capture_count.py --only modules``: modules
made in the compiled function (their parameters drawn from the RNG), ``ModelOutput``-style dataclasses that
subclass ``OrderedDict``, ``str``/``repr`` of objects, hooks added and removed in the frame, iterating
``named_modules``/``children``/``buffers``, slicing and indexing ``ModuleList``/``ModuleDict``/``Sequential``,
``register_buffer`` in ``forward``, ``training`` branches, ``super().forward``, properties, descriptors and
``__getattr__`` overrides on modules, ``functools.partial`` of ``forward``, modules as arguments.

Modules a construct mutates are made afresh for each run (``extra_args``); the runner compares results,
exceptions, the RNG state afterwards and the global torch state with eager's.
"""

from __future__ import annotations

import collections
import dataclasses
import functools

import torch
from torch import nn


# -- modules made in the compiled function -------------------------------------------------------------
def c_linear_made_inside(x):
    return nn.Linear(3, 3)(x)


def c_sequential_made_inside(x):
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    return net(x).sum() + x


def c_parameter_made_inside(x):
    w = nn.Parameter(torch.ones(3) * 2)
    return x * w, w.requires_grad


def c_parameter_free_module_made_inside(x):
    act = nn.Sequential(nn.Tanh(), nn.Dropout(0.0), nn.Identity())
    return act(x) + nn.Softmax(dim=0)(x)


# -- ModelOutput-style dataclasses (diffusers' BaseOutput, transformers' ModelOutput) -----------------------
class _Output(collections.OrderedDict):
    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is not None:
                self[field.name] = value

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def __setattr__(self, name, value):
        if name in self.keys() and value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclasses.dataclass
class _SampleOutput(_Output):
    sample: torch.Tensor
    extra: torch.Tensor | None = None


def c_model_output_made(x):
    out = _SampleOutput(sample=x * 2)
    return out.sample + 1, out["sample"], len(out)


def c_model_output_written(x):
    out = _SampleOutput(sample=x * 2)
    out.sample = out.sample + 1
    out["extra"] = x - 1
    out.extra = out.extra * 3
    return out.to_tuple(), list(out.keys())


# -- str / repr of objects ---------------------------------------------------------------------------
class _Plain:
    pass


def c_str_of_object_with_address(x):
    text = str(_Plain())
    return x + len(text.split(" ")), text.startswith("<")


def c_repr_of_module(x):
    text = repr(nn.Linear(3, 3, bias=False))
    return x + len(text) + len(str(nn.ReLU()))


# -- hooks -------------------------------------------------------------------------------------------
def _linear():
    torch.manual_seed(0)
    return nn.Linear(3, 3)


def c_hook_registered_and_removed(x, lin):
    handle = lin.register_forward_hook(lambda m, args, out: out * 2)
    y = lin(x)
    handle.remove()
    return y + lin(x)


c_hook_registered_and_removed.extra_args = lambda: (_linear(),)


def c_pre_hook_with_kwargs(x, lin):
    def pre(m, args, kwargs):
        return (args[0] + 1,), kwargs
    lin.register_forward_pre_hook(pre, with_kwargs=True)
    return lin(x)


c_pre_hook_with_kwargs.extra_args = lambda: (_linear(),)


class _HookedTwice(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = nn.Linear(3, 3)
        self.seen = []
        for name, m in self.named_children():
            m.register_forward_hook(functools.partial(self._record, name))

    def _record(self, name, module, args, out):
        self.seen.append(name)
        return out + 1

    def forward(self, x):
        return self.b(self.a(x))


_HOOKED_TWICE = _HookedTwice()


def c_partial_method_hooks(x):
    _HOOKED_TWICE.seen.clear()
    return _HOOKED_TWICE(x), list(_HOOKED_TWICE.seen)


# -- containers ----------------------------------------------------------------------------------------
class _Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(3, 3) for _ in range(4)])
        self.heads = nn.ModuleDict({"mean": nn.Linear(3, 1), "std": nn.Linear(3, 1)})
        self.seq = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3), nn.Sigmoid())
        self.register_buffer("scale", torch.full((3,), 0.5))

    def forward(self, x):
        for block in self.blocks[1:3]:
            x = block(x)
        x = self.blocks[-1](x) + self.seq[:2](x) + self.seq[-2:](x)
        out = {k: head(x) for k, head in self.heads.items()}
        return x * self.scale + out["mean"] + self.heads["std"](x) + len(self.seq[::2])


_TOWER = _Tower()


def c_container_slicing_indexing(x):
    return _TOWER(x)


def c_modules_buffers_iteration(x):
    out = x
    for name, buf in _TOWER.named_buffers():
        out = out + buf + len(name)
    for i, m in enumerate(_TOWER.modules()):
        if isinstance(m, nn.Linear) and i % 2 == 0:
            out = out + m.out_features
    n = sum(p.numel() for p in _TOWER.parameters() if p.requires_grad)
    names = [name for name, _ in _TOWER.blocks.named_children()]
    return out + n, names, "heads.mean" in dict(_TOWER.named_modules())


def c_module_list_methods(x):
    layers = nn.ModuleList()
    layers.append(nn.ReLU())
    layers.extend([nn.Tanh(), nn.Sigmoid()])
    layers.insert(0, nn.Identity())
    for layer in layers:
        x = layer(x)
    return x, len(layers), type(layers[1:]).__name__


def c_module_dict_methods(x):
    acts = nn.ModuleDict({"relu": nn.ReLU()})
    acts["tanh"] = nn.Tanh()
    acts.update({"gelu": nn.GELU()})
    out = x
    for key in acts:
        out = acts[key](out)
    return out, list(acts.keys()), "tanh" in acts


def c_sequential_append_len(x):
    seq = nn.Sequential(nn.ReLU())
    seq.append(nn.Tanh())
    return seq(x) + len(seq), [type(m).__name__ for m in seq]


# -- forward-time state ----------------------------------------------------------------------------------
class _LazyBuffer(nn.Module):
    def forward(self, x):
        if not hasattr(self, "cache"):
            self.register_buffer("cache", x * 0 + 1, persistent=False)
        return x + self.cache


def c_register_buffer_in_forward(x, m):
    return m(x), "cache" in dict(m.named_buffers())


c_register_buffer_in_forward.extra_args = lambda: (_LazyBuffer(),)


class _Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        self.calls += 1
        return self.lin(x) * self.calls


def c_module_attribute_mutation(x, m):
    return m(x) + m(x), m.calls


c_module_attribute_mutation.extra_args = lambda: (_Counter(),)


class _Drop(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        if self.training:
            return self.drop(x) * 0 + x * 2
        return x - 1


def c_training_branch_train_eval(x, m):
    a = m.train()(x)
    b = m.eval()(x)
    return a + b, m.training, m.drop.training


c_training_branch_train_eval.extra_args = lambda: (_Drop(),)


# -- class hierarchy, properties, descriptors, __getattr__ ------------------------------------------------
class _BaseBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x)


class _DerivedBlock(_BaseBlock):
    def forward(self, x):
        return super().forward(x).relu() + super(_DerivedBlock, self).forward(x)  # noqa: UP008 (the two-argument form is the construct)


_DERIVED = _DerivedBlock()


def c_super_forward(x):
    return _DERIVED(x)


class _Scaled:
    """A data descriptor: reads and writes go through the owner's ``_scales``."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        return self if obj is None else obj._scales[self.name]

    def __set__(self, obj, value):
        obj._scales[self.name] = value


class _Described(nn.Module):
    alpha = _Scaled()

    def __init__(self):
        super().__init__()
        self._scales = {"alpha": 2.0}
        self.lin = nn.Linear(3, 3)

    @property
    def width(self):
        return self.lin.out_features

    @functools.cached_property
    def double_width(self):
        return self.width * 2

    @staticmethod
    def shift(t):
        return t + 1

    @classmethod
    def tag(cls):
        return len(cls.__name__)

    def __getattr__(self, name):
        if name.startswith("virtual_"):
            return len(name)
        return super().__getattr__(name)

    def forward(self, x):
        self.alpha = self.alpha * 2
        return self.shift(self.lin(x)) * self.alpha + self.width + self.double_width + self.tag() + self.virtual_ab


def c_descriptors_properties_getattr(x, m):
    return m(x), m._scales["alpha"]


c_descriptors_properties_getattr.extra_args = lambda: (_Described(),)


def c_module_setattr_submodule(x, m):
    m.extra = nn.Tanh()
    m.lin.weight.data.fill_(0.25)
    return m.extra(m(x)), hasattr(m, "extra")


c_module_setattr_submodule.extra_args = lambda: (_BaseBlock(),)


def c_partial_of_forward(x):
    fwd = functools.partial(_DERIVED.forward)
    call = functools.partial(_DERIVED.__call__)
    return fwd(x) + call(x)


def c_functional_call(x):
    params = {name: p * 0 + 1 for name, p in _DERIVED.named_parameters()}
    return torch.func.functional_call(_DERIVED, params, (x,))


def c_module_state_dict(x):
    sd = _DERIVED.state_dict()
    return x + sum(v.sum() for v in sd.values()), list(sd)


def c_module_apply_and_zero_grad(x, m):
    m.apply(lambda mod: mod.eval() if isinstance(mod, nn.Linear) else None)
    m.zero_grad(set_to_none=True)
    return m(x), m.lin.training


c_module_apply_and_zero_grad.extra_args = lambda: (_BaseBlock(),)


def c_requires_grad_toggle(x, m):
    m.requires_grad_(False)
    y = m(x)
    frozen = all(not p.requires_grad for p in m.parameters())
    m.requires_grad_(True)
    return y, frozen


c_requires_grad_toggle.extra_args = lambda: (_BaseBlock(),)


class _Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.alias = self.lin  # one module under two names

    def forward(self, x):
        return self.alias(self.lin(x)) + len(list(self.modules())) + (self.alias is self.lin)


_SHARED = _Shared()


def c_shared_submodule(x):
    return _SHARED(x)


def c_module_eq_hash_in_dict(x):
    table = {_DERIVED: 1, _SHARED: 2}
    return x + table[_SHARED] + (_DERIVED in table) + (_DERIVED == _SHARED) + len({_DERIVED, _DERIVED.lin})


CONSTRUCTS = [c_linear_made_inside, c_sequential_made_inside, c_parameter_made_inside,
              c_parameter_free_module_made_inside, c_model_output_made, c_model_output_written,
              c_str_of_object_with_address, c_repr_of_module, c_hook_registered_and_removed, c_pre_hook_with_kwargs,
              c_partial_method_hooks, c_container_slicing_indexing, c_modules_buffers_iteration,
              c_module_list_methods, c_module_dict_methods, c_sequential_append_len, c_register_buffer_in_forward,
              c_module_attribute_mutation, c_training_branch_train_eval, c_super_forward,
              c_descriptors_properties_getattr, c_module_setattr_submodule, c_partial_of_forward, c_functional_call,
              c_module_state_dict, c_module_apply_and_zero_grad, c_requires_grad_toggle, c_shared_submodule,
              c_module_eq_hash_in_dict]

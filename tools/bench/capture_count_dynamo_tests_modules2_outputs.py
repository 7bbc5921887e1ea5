"""Output and attribute-hook programs for ``capture_count.py --only dynamo_tests_modules2`` (see
``capture_count_dynamo_tests_modules2.py``), after PyTorch's test/dynamo/test_modules.py and test_model_output.py,
written afresh: ``__getattr__``/``__setattr__`` overrides on modules, an overridden ``__call__``, ``forward``
called directly, and transformers-style ``ModelOutput`` dataclasses (an ``OrderedDict`` subclass: attribute and
index access, ``to_tuple``, ``keys``, dict conversion, made in the frame or handed in), with transformers' own
classes where it is installed.
"""

from __future__ import annotations

import collections
import dataclasses
import importlib.util

import torch
from torch import nn


def _seeded(make):
    torch.manual_seed(0)
    return make()


def _fresh(make):
    return lambda: (_seeded(make),)

# -- __getattr__ / __setattr__ overrides -------------------------------------------------------------------
class _Wrapper(nn.Module):
    """A DDP-style wrapper that forwards unknown attributes to the module it wraps."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.module, name)

    def forward(self, x):
        return self.module(x)


_WRAPPED = _seeded(lambda: _Wrapper(nn.Linear(3, 3)))


def c_dm_getattr_forwards_to_wrapped(x):
    return _WRAPPED(x) + _WRAPPED.weight.sum() + _WRAPPED.in_features


class _Extras(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.__dict__["_extras"] = {"gain": 3.0}

    def __getattr__(self, name):
        extras = self.__dict__["_extras"]
        if name in extras:
            return extras[name]
        return super().__getattr__(name)

    def forward(self, x):
        return self.lin(x) * self.gain


_EXTRAS = _seeded(_Extras)


def c_dm_getattr_reads_extra_dict(x):
    return _EXTRAS(x + 1) - 1, getattr(_EXTRAS, "nothing", None)


def c_dm_getattr_override_missing_raises(x):
    y = x * 2
    try:
        y = y + _EXTRAS.absent
    except AttributeError as exc:
        return y + 1, "absent" in str(exc)
    return y


class _SetattrOverride(nn.Module):
    def __init__(self):
        super().__init__()
        self.writes = []
        self.buffer = torch.ones(3)

    def __setattr__(self, name, value):
        if name != "writes":
            self.writes.append(name)
        return super().__setattr__(name, value)

    def forward(self, x):
        self.buffer = self.buffer.to(x) * 2
        self.lin = nn.Identity()
        return self.buffer + self.lin(x)


def c_dm_setattr_override_calls_super(x, mod):
    return mod(x + 1), list(mod.writes), mod.buffer, list(mod._modules)


c_dm_setattr_override_calls_super.extra_args = _fresh(_SetattrOverride)


class _Config:
    def __init__(self):
        self.val = 0.5
        self.count = 2


class _WithConfig(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = _Config()
        self.layer = nn.Linear(3, 3)

    def __getattr__(self, name):
        if name.startswith("cfg_"):
            return getattr(self.cfg, name[4:])
        return super().__getattr__(name)

    def forward(self, x):
        for _ in range(self.cfg_count):
            x = self.layer(x + self.cfg_val)
        return x


_WITH_CONFIG = _seeded(_WithConfig)


def c_dm_getattr_prefix_reads_config(x):
    return _WITH_CONFIG(x) * 2


# -- __call__ override and forward called directly -------------------------------------------------------
class _OverriddenCall(nn.Module):
    def __call__(self, x):
        return 5 * self.forward(x)

    def forward(self, x):
        return x * 3


_OVERRIDDEN = _OverriddenCall()


def c_dm_overridden_dunder_call(x):
    return _OVERRIDDEN(x + 1) - 1


class _Direct(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(3, 3)
        self.conv = nn.Conv1d(1, 2, 2)

    def forward(self, x):
        y = self.layer1.forward(x)
        return self.conv.forward(y.reshape(1, 1, 3)).flatten()


_DIRECT = _seeded(_Direct)


def c_dm_forward_called_directly(x):
    return _DIRECT(x) * 2


class _Conv1dSuper(nn.Conv1d):
    def forward(self, inputs, mask=None):
        if inputs.numel() > 0:
            return super().forward(inputs)
        return inputs


_CONV_SUPER = _seeded(lambda: _Conv1dSuper(in_channels=1, out_channels=2, kernel_size=2))


def c_dm_conv_subclass_super_forward(x):
    return _CONV_SUPER(x.reshape(1, 1, 3) + 1).sum(-1)


class _ConvFwd(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 1, 1)

    def _conv_forward(self, x):
        return self.conv._conv_forward(x, self.conv.weight, self.conv.bias)

    def forward(self, x):
        return self._conv_forward(x)


_CONV_FWD = _seeded(_ConvFwd)


def c_dm_private_conv_forward_called(x):
    return _CONV_FWD(x.reshape(1, 1, 3)) * 2


# -- ModelOutput-style outputs (transformers' ModelOutput, in our words) -----------------------------------
class _ModelOutput(collections.OrderedDict):
    """An ``OrderedDict`` whose dataclass fields that are not ``None`` are also its items, as transformers' is."""

    def __post_init__(self):
        fields = dataclasses.fields(self)
        first = getattr(self, fields[0].name)
        rest_none = all(getattr(self, f.name) is None for f in fields[1:])
        if rest_none and isinstance(first, dict):
            setattr(self, fields[0].name, None)
            for key, value in first.items():
                setattr(self, key, value)
                if value is not None:
                    self[key] = value
            return
        for f in fields:
            value = getattr(self, f.name)
            if value is not None:
                self[f.name] = value

    def __delitem__(self, *args, **kwargs):
        raise Exception(f"You cannot use ``__delitem__`` on a {self.__class__.__name__} instance.")

    def pop(self, *args, **kwargs):
        raise Exception(f"You cannot use ``pop`` on a {self.__class__.__name__} instance.")

    def __getitem__(self, k):
        if isinstance(k, str):
            return dict(self.items())[k]
        return self.to_tuple()[k]

    def __setattr__(self, name, value):
        if name in self.keys() and value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclasses.dataclass
class _BaseOutput(_ModelOutput):
    last_hidden_state: torch.Tensor = None
    hidden_states: torch.Tensor = None
    attentions: torch.Tensor = None


@dataclasses.dataclass
class _LMOutput(_ModelOutput):
    loss: torch.Tensor = None
    logits: torch.Tensor = None
    past_key_values: tuple = None


def c_dm_mo_created_and_returned(x):
    return _BaseOutput(x + 1, attentions=x + 3)


def c_dm_mo_assigned_by_attr_and_item(x):
    out = _BaseOutput(last_hidden_state=x + 3)
    out.hidden_states = x + 7
    out["attentions"] = x * 2 + 6
    return out, list(out.keys())


def _handed_in():
    return (_BaseOutput(last_hidden_state=torch.full((3,), 2.0), attentions=torch.full((3,), 5.0)),)


def c_dm_mo_getattr_none_checks(x, obj):
    y = obj.last_hidden_state * 10 + x
    if obj.hidden_states is not None:
        y = y + obj.hidden_states
    if obj.attentions is not None:
        y = y + obj.attentions
    return y


c_dm_mo_getattr_none_checks.extra_args = _handed_in


def c_dm_mo_getattr_missing_default(x, obj):
    if getattr(obj, "asdf", None) is not None:
        return x
    return obj.attentions + x


c_dm_mo_getattr_missing_default.extra_args = _handed_in


def c_dm_mo_getitem_and_contains(x, obj):
    y = obj["last_hidden_state"] * 10 + x
    if "hidden_states" in obj:
        y = y + obj["hidden_states"]
    if "attentions" in obj:
        y = y + obj["attentions"]
    return y


c_dm_mo_getitem_and_contains.extra_args = _handed_in


def c_dm_mo_to_tuple_unpacked(x, obj):
    a, b = obj.to_tuple()
    return a + b * 10 + x


c_dm_mo_to_tuple_unpacked.extra_args = _handed_in


def c_dm_mo_int_index_and_slice(x, obj):
    head = obj[:1]
    return obj[0] * 10 + obj[1] + obj[-1] + x, len(head)


c_dm_mo_int_index_and_slice.extra_args = _handed_in


def c_dm_mo_keys_values_items_dict(x, obj):
    as_dict = dict(obj)
    total = x.clone()
    for value in obj.values():
        total = total + value
    return total, list(obj.keys()), [k for k, _ in obj.items()], sorted(as_dict), len(obj)


c_dm_mo_keys_values_items_dict.extra_args = _handed_in


def c_dm_mo_fields_walked(x, obj):
    fields = dataclasses.fields(obj)
    assert all(f.default is None for f in fields[1:])
    total = getattr(obj, fields[0].name) + x
    for f in fields[1:]:
        v = getattr(obj, f.name)
        if v is not None:
            total = total + v
    return total, [f.name for f in fields]


c_dm_mo_fields_walked.extra_args = _handed_in


def c_dm_mo_made_from_dict_first_field(x):
    out = _BaseOutput({"last_hidden_state": x * 2, "attentions": x - 1})
    return out.attentions + out[0], list(out.keys())


def c_dm_mo_none_field_index(x):
    y = x + 1
    return _LMOutput(loss=None, logits=y)[0] * 2


def c_dm_mo_pop_raises(x):
    out = _LMOutput(loss=x.sum(), logits=x * 2)
    try:
        out.pop("loss")
    except Exception as exc:  # ModelOutput raises a bare Exception
        return out.logits + 1, str(exc)
    return x


def c_dm_mo_kwargs_unpacked(x):
    out = _BaseOutput(last_hidden_state=x * 3, hidden_states=x + 2)

    def consume(last_hidden_state, hidden_states):
        return last_hidden_state - hidden_states
    return consume(**out)


class _Pooler(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = nn.Linear(3, 3)

    def forward(self, hidden):
        return torch.tanh(self.dense(hidden[0]))


class _Encoder(nn.Module):
    def forward(self, hidden):
        return _BaseOutput(last_hidden_state=hidden, hidden_states=None, attentions=None)


class _Bert(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = _Encoder()
        self.pooler = _Pooler()

    def forward(self, seq):
        enc = self.encoder(seq)
        seq_out = enc[0]
        pooled = self.pooler(seq_out) if self.pooler is not None else None
        result = _LMOutput(loss=pooled, logits=seq_out, past_key_values=enc.hidden_states)
        result.loss = pooled * 2
        result["logits"] = seq_out + 1
        return result


_BERT = _seeded(_Bert)


def c_dm_mo_bert_style_nested_outputs(x):
    out = _BERT(x.reshape(1, 3) * 2)
    return out.loss + out["logits"], out.past_key_values, list(out)


@dataclasses.dataclass
class _PlainOutput:
    sample: torch.Tensor
    scale: float = 1.0


def c_dm_dataclass_asdict_astuple_replace(x):
    out = _PlainOutput(sample=x + 1, scale=2.0)
    again = dataclasses.replace(out, scale=3.0)
    as_dict = dataclasses.asdict(again)
    as_tuple = dataclasses.astuple(out)
    return as_dict["sample"] * as_dict["scale"] + as_tuple[0] * as_tuple[1]


# -- transformers' own classes (where transformers is installed) -------------------------------------------
def _hf_outputs():
    import transformers.modeling_outputs as outputs

    return outputs


def c_dm_hf_base_output_read(x, obj):
    return obj[0] * 10 + obj["attentions"] + obj.last_hidden_state + x, list(obj.keys())


c_dm_hf_base_output_read.extra_args = lambda: (_hf_outputs().BaseModelOutput(
    last_hidden_state=torch.full((3,), 2.0), attentions=torch.ones(3)),)


def c_dm_hf_output_made_and_written(x, cls):
    out = cls(last_hidden_state=x + 3)
    out.hidden_states = x + 7
    out["attentions"] = x * 2
    return out.to_tuple(), list(out.keys())


c_dm_hf_output_made_and_written.extra_args = lambda: (_hf_outputs().BaseModelOutput,)


def c_dm_hf_causal_lm_none_loss_index(x, cls):
    y = x + 1
    return cls(loss=None, logits=y)[0] * 2


c_dm_hf_causal_lm_none_loss_index.extra_args = lambda: (_hf_outputs().CausalLMOutputWithPast,)


def c_dm_hf_pretrained_config_reads(x, cfg):
    if hasattr(cfg, "somekey"):
        x = x + 1
    if cfg.return_dict:
        return x + torch.ones(3) * cfg.hidden_size
    return x


def _config():
    import transformers

    return (transformers.PretrainedConfig(return_dict=True, hidden_size=20),)


c_dm_hf_pretrained_config_reads.extra_args = _config


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_dm_")]
if importlib.util.find_spec("transformers") is None:  # their extra_args import it
    CONSTRUCTS = [fn for fn in CONSTRUCTS if not fn.__name__.startswith("c_dm_hf_")]

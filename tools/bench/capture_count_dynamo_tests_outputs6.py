"""Model outputs and structured values after PyTorch's test/dynamo/test_model_output.py and test_base_output.py,
for ``capture_count.py --only dynamo_tests_outputs6``: transformers' ``ModelOutput`` and diffusers' ``BaseOutput``
shapes re-created here in our own words (an ``OrderedDict`` dataclass whose ``__post_init__``, ``__setitem__`` and
``__setattr__`` go through ``super()``), made in the frame and returned, handed in and read by key, attribute and
index, ``to_tuple()``, and written. Its part ``_more`` holds plain dataclasses, ``typing.NamedTuple`` and
``collections.namedtuple`` and pytree flatten/unflatten of all of them. Each program is written afresh over one
small tensor.
"""

from __future__ import annotations

import collections
import dataclasses

import torch


class _Output(collections.OrderedDict):
    """An ``OrderedDict`` dataclass whose non-``None`` fields are also its items, after transformers' class."""

    def __post_init__(self):
        names = [f.name for f in dataclasses.fields(self)]
        head = getattr(self, names[0])
        others_empty = all(getattr(self, n) is None for n in names[1:])
        if others_empty and isinstance(head, dict):
            object.__setattr__(self, names[0], None)
            for key, value in head.items():
                self[key] = value
            return
        for n in names:
            value = getattr(self, n)
            if value is not None:
                self[n] = value

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def __setattr__(self, name, value):
        if name in self.keys() and value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __getitem__(self, k):
        if isinstance(k, str):
            return dict(self.items())[k]
        return self.to_tuple()[k]

    def __delitem__(self, *args, **kwargs):
        raise RuntimeError(f"{type(self).__name__} refuses __delitem__")

    def setdefault(self, *args, **kwargs):
        raise RuntimeError(f"{type(self).__name__} refuses setdefault")

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclasses.dataclass
class _Hidden(_Output):
    last_hidden_state: torch.Tensor | None = None
    hidden_states: tuple | None = None
    attentions: torch.Tensor | None = None


@dataclasses.dataclass
class _CausalLM(_Output):
    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    past_key_values: tuple | None = None


@dataclasses.dataclass
class _Pooled(_Output):
    last_hidden_state: torch.Tensor | None = None
    pooler_output: torch.Tensor | None = None
    cross_attentions: torch.Tensor | None = None


@dataclasses.dataclass
class _Sample(_Output):
    """diffusers' one-field shape: ``sample`` required."""

    sample: torch.Tensor


def _hidden_in():
    return (_Hidden(last_hidden_state=torch.arange(3.0) + 1, attentions=torch.arange(3.0) * 2),)


def _sample_in():
    return (_Sample(sample=torch.arange(3.0) - 1),)


def _plain(out):
    """What the runner compares: the items as a plain dict."""
    return dict(out.items())


# -- built in the frame ---------------------------------------------------------------------------------------
def c_o6_mo_positional_made(x):
    out = _Hidden(x + 1, None, x * 3)
    return _plain(out), out.attentions


def c_o6_mo_attr_then_item_written(x):
    out = _Hidden(last_hidden_state=x + 2)
    out.hidden_states = (x * 4,)
    out["attentions"] = x - 5
    return list(out.keys()), out.to_tuple()


def c_o6_mo_attr_write_none_keeps_key(x):
    out = _Hidden(last_hidden_state=x + 1, attentions=x + 2)
    out.attentions = None
    return list(out.keys()), out.attentions is None, out["attentions"]


def c_o6_mo_dict_as_first_field(x):
    out = _Hidden({"attentions": x * 2, "last_hidden_state": x + 1})
    return list(out.keys()), out.last_hidden_state, out[0]


def c_o6_mo_index_skips_none(x):
    out = _CausalLM(loss=None, logits=x * 3)
    return out[0], len(out), out.to_tuple()


def c_o6_mo_slice_of_outputs(x):
    out = _CausalLM(loss=x.sum(), logits=x + 1, past_key_values=((x, x * 2),))
    head = out[:2]
    return head[0] + head[1], out[-1][0][1]


def c_o6_mo_len_and_bool(x):
    empty = _CausalLM()
    full = _CausalLM(logits=x)
    return len(empty), bool(empty), len(full), bool(full)


def c_o6_mo_contains_and_get(x):
    out = _Hidden(last_hidden_state=x + 1)
    r = x.clone()
    if "attentions" in out:
        r = r + 100
    if "last_hidden_state" in out:
        r = r + out.get("last_hidden_state")
    return r, out.get("attentions", 7)


def c_o6_mo_nested_encoder_pooler(x):
    def encoder(h):
        return _Hidden(last_hidden_state=h.tanh(), hidden_states=None, attentions=None)

    enc = encoder(x)
    seq = enc[0]
    pooled = seq[:1].relu()
    res = _Pooled(last_hidden_state=seq, pooler_output=pooled, cross_attentions=enc.attentions)
    res.pooler_output = pooled * 2
    res["pooler_output"] = pooled * 3
    return _plain(res), res.pooler_output


def c_o6_mo_setdefault_refused(x):
    out = _Hidden(last_hidden_state=x)
    try:
        out.setdefault("attentions", x)
    except RuntimeError:
        return x * 2, len(out)
    return x


def c_o6_mo_getattr_default_for_missing(x):
    out = _CausalLM(logits=x)
    extra = getattr(out, "aux_loss", None)
    if extra is not None:
        return x + extra
    return out.logits * 5


def c_o6_mo_kwargs_splat(x):
    def consume(last_hidden_state=None, attentions=None, hidden_states=None):
        return last_hidden_state * 2 + (0 if attentions is None else attentions)

    out = _Hidden(last_hidden_state=x, attentions=x + 1)
    return consume(**out)


def c_o6_mo_fields_walk_total(x):
    out = _Hidden(x, (x + 1, x + 2), x * 3)
    total = getattr(out, dataclasses.fields(out)[0].name).clone()
    for f in dataclasses.fields(out)[1:]:
        value = getattr(out, f.name)
        if isinstance(value, torch.Tensor):
            total = total + value
    return total


def c_o6_mo_loss_computed_conditionally(x):
    def forward(h, labels=None):
        logits = h * 2
        loss = None
        if labels is not None:
            loss = ((logits - labels) ** 2).mean()
        return _CausalLM(loss=loss, logits=logits)

    a = forward(x)
    b = forward(x, labels=x)
    return a[0], b[0], len(a), len(b)


def c_o6_mo_copy_keeps_items(x):
    out = _CausalLM(logits=x + 3)
    other = out.copy()
    return type(other).__name__, dict(other), out.logits


def c_o6_mo_union_with_dict(x):
    out = _CausalLM(logits=x)
    merged = out | {"loss": x.sum()}
    return type(merged).__name__, merged.loss, _plain(merged), len(out)


def c_o6_mo_inplace_union_sets_attributes(x):
    out = _CausalLM(logits=x)
    out |= {"loss": x.mean()}
    out.update(logits=x * 2)
    return out.loss, out.logits, out.to_tuple()


def c_o6_od_subclass_init_stores_through_setitem(x):
    class Logged(collections.OrderedDict):
        def __init__(self, *args, **kwargs):
            self.log = []
            super().__init__(*args, **kwargs)

        def __setitem__(self, key, value):
            self.log.append(key)
            super().__setitem__(key, value)

    d = Logged({"p": x, "q": x + 1}, r=x * 2)
    d.update([("s", x - 1)])
    return d.log, dict(d)


# -- handed in -----------------------------------------------------------------------------------------------
def c_o6_mo_in_attr_reads(x, obj):
    r = obj.last_hidden_state * 10
    if obj.hidden_states is not None:
        r = r + 1000
    if obj.attentions is not None:
        r = r + obj.attentions
    return r + x


c_o6_mo_in_attr_reads.extra_args = _hidden_in


def c_o6_mo_in_attr_written_back(x, obj):
    obj.attentions = obj.attentions + x
    return obj.attentions, obj["attentions"]


c_o6_mo_in_attr_written_back.extra_args = _hidden_in


def c_o6_mo_in_new_key_read(x, obj):
    obj["hidden_states"] = (x,)
    return obj["hidden_states"][0] + obj.hidden_states[0], len(obj)


c_o6_mo_in_new_key_read.extra_args = _hidden_in


def c_o6_bo_made_and_reassigned(x):
    out = _Sample(x + 1)
    out.sample = x + 2
    return out.sample, out[0], out["sample"]


def c_o6_bo_required_field_missing(x):
    try:
        _Sample()
    except TypeError:
        return x + 1
    return x


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

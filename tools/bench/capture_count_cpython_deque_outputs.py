"""diffusers' ``BaseOutput`` in our words, for ``capture_count.py --only cpython_deque`` (see
``capture_count_cpython_deque.py``), after PyTorch's test/dynamo/test_base_output.py: an ``OrderedDict``
dataclass whose ``__post_init__``, ``__setitem__`` and ``__setattr__`` go through ``super()``, made in the frame
or handed in, read by key, index and attribute, written by attribute and key, turned into a tuple or a dict, and
refusing ``pop``/``setdefault``/``update``/``del``.
"""

from __future__ import annotations

import collections
import dataclasses

import torch


class _BaseOutput(collections.OrderedDict):
    """An ``OrderedDict`` whose non-``None`` dataclass fields are also its items, as diffusers' is."""

    def __post_init__(self):
        fields = dataclasses.fields(self)
        if not len(fields):
            raise ValueError(f"{self.__class__.__name__} has no fields.")
        first = getattr(self, fields[0].name)
        rest_none = all(getattr(self, f.name) is None for f in fields[1:])
        if rest_none and isinstance(first, dict):
            for key, value in first.items():
                self[key] = value
        else:
            for f in fields:
                value = getattr(self, f.name)
                if value is not None:
                    self[f.name] = value

    def __delitem__(self, *args, **kwargs):
        raise Exception(f"You cannot use ``__delitem__`` on a {self.__class__.__name__} instance.")

    def setdefault(self, *args, **kwargs):
        raise Exception(f"You cannot use ``setdefault`` on a {self.__class__.__name__} instance.")

    def pop(self, *args, **kwargs):
        raise Exception(f"You cannot use ``pop`` on a {self.__class__.__name__} instance.")

    def update(self, *args, **kwargs):
        raise Exception(f"You cannot use ``update`` on a {self.__class__.__name__} instance.")

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
class _UNetOutput(_BaseOutput):
    sample: torch.Tensor


@dataclasses.dataclass
class _PipelineOutput(_BaseOutput):
    images: torch.Tensor
    nsfw: list = None
    latents: torch.Tensor = None


def _unet_out():
    return (_UNetOutput(sample=torch.arange(3.0) * 0.5 + 1),)


def c_cq_bo_create(x):
    return _UNetOutput(x + 1)


def c_cq_bo_assign_attribute(x):
    tmp = _UNetOutput(x + 1)
    tmp.sample = x + 2
    return tmp, tmp["sample"], list(tmp.keys())


def c_cq_bo_getattr(x, obj):
    return obj.sample * 10 + x


c_cq_bo_getattr.extra_args = _unet_out


def c_cq_bo_getitem_key(x, obj):
    return obj["sample"] * 10 + x


c_cq_bo_getitem_key.extra_args = _unet_out


def c_cq_bo_to_tuple(x, obj):
    a = obj.to_tuple()
    return a[0] * 10 + x, len(a)


c_cq_bo_to_tuple.extra_args = _unet_out


def c_cq_bo_index(x, obj):
    return obj[0] * 10 + x


c_cq_bo_index.extra_args = _unet_out


def c_cq_bo_none_fields_left_out(x):
    out = _PipelineOutput(x * 2, latents=x + 5)
    return out[1] + out.images, list(out.keys()), out.nsfw is None, len(out)


def c_cq_bo_first_field_dict(x):
    out = _PipelineOutput({"images": x + 1, "extra": x * 3})
    return out["extra"] + out.extra, list(out.keys()), isinstance(out.images, dict)


def c_cq_bo_setitem_sets_attribute(x):
    out = _PipelineOutput(x - 1)
    out["latents"] = x * 4
    return out.latents + out[1], list(out.keys())


def c_cq_bo_forbidden_methods(x):
    out = _UNetOutput(x + 3)
    messages = []
    for call in (lambda: out.pop("sample"), lambda: out.setdefault("a", 1), lambda: out.update(a=1)):
        try:
            call()
        except Exception as exc:
            messages.append(str(exc))
    try:
        del out["sample"]
    except Exception as exc:
        messages.append(str(exc))
    return out.sample * len(messages), messages


def c_cq_bo_handed_in_attribute_written(x, obj):
    obj.sample = obj.sample + x
    return obj.to_tuple()[0] * 2, obj


c_cq_bo_handed_in_attribute_written.extra_args = _unet_out


def c_cq_bo_chained_outputs(x):
    first = _UNetOutput(x.sin())
    second = _PipelineOutput(first.sample * 2, nsfw=[False])
    return second.to_tuple()[0] + first[0], second.nsfw, list(second.values())[1]


def c_cq_bo_dict_conversion(x, obj):
    d = dict(obj)
    return d["sample"] + x, list(d), obj == {"sample": obj.sample}


c_cq_bo_dict_conversion.extra_args = _unet_out


def c_cq_bo_iteration_and_items(x):
    out = _PipelineOutput(x + 1, latents=x * 2)
    total = x * 0
    names = []
    for name, value in out.items():
        names.append(name)
        total = total + value
    return total, names, [k for k in out]


def c_cq_bo_no_fields_raises(x):
    @dataclasses.dataclass
    class Empty(_BaseOutput):
        pass

    y = x + 1
    try:
        Empty()
    except ValueError as exc:
        return y, str(exc)
    return y * 2, "made"


def c_cq_bo_fields_and_replace(x):
    out = _PipelineOutput(x + 2)
    names = [f.name for f in dataclasses.fields(out)]
    return out.images * len(names), names, dataclasses.is_dataclass(out)


CONSTRUCTS = [c_cq_bo_create, c_cq_bo_assign_attribute, c_cq_bo_getattr, c_cq_bo_getitem_key, c_cq_bo_to_tuple,
              c_cq_bo_index, c_cq_bo_none_fields_left_out, c_cq_bo_first_field_dict,
              c_cq_bo_setitem_sets_attribute, c_cq_bo_forbidden_methods,
              c_cq_bo_handed_in_attribute_written, c_cq_bo_chained_outputs, c_cq_bo_dict_conversion,
              c_cq_bo_iteration_and_items, c_cq_bo_no_fields_raises, c_cq_bo_fields_and_replace]

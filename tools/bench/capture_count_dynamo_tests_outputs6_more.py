"""Plain dataclasses, ``typing.NamedTuple``, ``collections.namedtuple`` and pytree flatten/unflatten, for
``capture_count.py --only dynamo_tests_outputs6`` (see ``capture_count_dynamo_tests_outputs6.py``), after
PyTorch's test/dynamo/test_model_output.py, test_base_output.py and the dataclass and namedtuple cases of
test_misc.py: defaults, ``field(default_factory=...)``, ``frozen=True``, ``__post_init__``,
``fields``/``asdict``/``astuple``/``replace``/``is_dataclass``, ``_replace``/``_asdict``/``_fields``/``_make``, and
``tree_map``/``tree_flatten``/``tree_unflatten`` over them. Each program is written afresh over one small tensor.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import NamedTuple

import torch
from torch.utils import _pytree as pytree


@dataclasses.dataclass
class _Pair:
    first: torch.Tensor
    second: torch.Tensor
    scale: float = 2.0


@dataclasses.dataclass
class _Bag:
    items: list = dataclasses.field(default_factory=list)
    tags: dict = dataclasses.field(default_factory=dict)
    count: int = 0


@dataclasses.dataclass(frozen=True)
class _Frozen:
    weight: torch.Tensor
    bias: float = 0.5


@dataclasses.dataclass
class _Derived:
    base: torch.Tensor
    doubled: torch.Tensor | None = None
    norm: float = dataclasses.field(default=0.0, repr=False)

    def __post_init__(self):
        if self.doubled is None:
            self.doubled = self.base * 2
        self.norm = 3.0


@dataclasses.dataclass
class _Child(_Pair):
    third: torch.Tensor | None = None

    def total(self):
        out = (self.first + self.second) * self.scale
        return out if self.third is None else out + self.third


class _Point(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor
    w: float = 1.0

    def norm(self):
        return (self.x * self.x + self.y * self.y) * self.w


_Span = collections.namedtuple("_Span", ["lo", "hi"])
_Cfg = collections.namedtuple("_Cfg", "width depth act", defaults=(2, "relu"))


def _pair_in():
    return (_Pair(torch.arange(3.0) + 1, torch.arange(3.0) * 2),)


def _point_in():
    return (_Point(torch.arange(3.0), torch.ones(3), 0.5),)


# -- dataclasses ---------------------------------------------------------------------------------------------
def c_o6_dc_default_factory_fresh(x):
    a = _Bag()
    b = _Bag()
    a.items.append(x + 1)
    a.count += 1
    return len(a.items), len(b.items), a.items[0], a.items is b.items


def c_o6_dc_frozen_write_raises(x):
    f = _Frozen(x)
    try:
        f.bias = 3.0
    except dataclasses.FrozenInstanceError:
        return x + 10
    return x


def c_o6_dc_post_init_fills(x):
    d = _Derived(x + 1)
    return d.doubled, d.norm


def c_o6_dc_fields_of_instance_loop(x):
    p = _Pair(x, x * 3, 4.0)
    acc = 0
    for f in dataclasses.fields(p):
        value = getattr(p, f.name)
        acc = acc + value
    return acc


def c_o6_dc_asdict(x):
    d = dataclasses.asdict(_Pair(x, x + 2))
    return d["first"] + d["second"] * d["scale"], sorted(d)


def c_o6_dc_astuple(x):
    a, b, s = dataclasses.astuple(_Pair(x, x - 1, 0.5))
    return a * s + b


def c_o6_dc_replace(x):
    p = _Pair(x, x + 1)
    q = dataclasses.replace(p, second=x * 10, scale=1.0)
    return (q.first + q.second) * q.scale, p.second


def c_o6_dc_replace_frozen(x):
    f = _Frozen(x)
    g = dataclasses.replace(f, bias=2.0)
    return g.weight * g.bias, f.bias


def c_o6_dc_inherited_method(x):
    c = _Child(x, x + 1, 3.0, third=x * 2)
    return c.total(), len(dataclasses.fields(c))


def c_o6_dc_made_in_frame_local_class(x):
    @dataclasses.dataclass
    class Local:
        v: torch.Tensor
        k: int = 3

    obj = Local(x)
    return obj.v * obj.k


def c_o6_dc_handed_in_read(x, pair):
    return pair.first * x + pair.second * pair.scale


c_o6_dc_handed_in_read.extra_args = _pair_in


def c_o6_dc_handed_in_mutated(x, pair):
    pair.scale = 5.0
    pair.first = pair.first + x
    return pair.first * pair.scale


c_o6_dc_handed_in_mutated.extra_args = _pair_in


# -- NamedTuple and namedtuple -------------------------------------------------------------------------------
def c_o6_nt_typed_method(x):
    return _Point(x, x * 2, 3.0).norm()


def c_o6_nt_replace(x):
    p = _Point(x, x)
    q = p._replace(y=x * 5, w=2.0)
    return q.norm(), p.y


def c_o6_nt_fields_and_defaults(x):
    return _Point._fields, dict(_Point._field_defaults), _Cfg._fields, x + len(_Point._fields)


def c_o6_nt_make(x):
    s = _Span._make([x - 1, x + 1])
    return s.hi - s.lo, s


def c_o6_nt_equality_with_tuple(x):
    a = _Cfg(1, 2, "gelu")
    return a == (1, 2, "gelu"), a._replace(act="relu") == _Cfg(1), x + 1


def c_o6_nt_handed_in_replace(x, point):
    moved = point._replace(x=point.x + x)
    return moved.norm(), tuple(moved)


c_o6_nt_handed_in_replace.extra_args = _point_in


def c_o6_nt_returned_from_helper(x):
    def split(t):
        return _Span(t.min(), t.max())

    lo, hi = split(x)
    return hi - lo, split(x * 2).hi


# -- pytree ----------------------------------------------------------------------------------------------------
def c_o6_pt_tree_map_dict_list(x):
    tree = {"a": x, "b": [x + 1, (x * 2, 3)]}
    return pytree.tree_map(lambda t: t * 2 if isinstance(t, torch.Tensor) else t, tree)


def c_o6_pt_flatten_unflatten(x):
    leaves, spec = pytree.tree_flatten({"k": (x, x + 1), "v": [x * 2]})
    doubled = [leaf * 2 for leaf in leaves]
    return pytree.tree_unflatten(doubled, spec), len(leaves)


def c_o6_pt_namedtuple_mapped(x):
    s = pytree.tree_map(lambda t: t + 1, _Span(x, x * 2))
    return type(s).__name__, s.lo, s.hi


def c_o6_pt_typed_namedtuple_flatten(x):
    leaves, spec = pytree.tree_flatten(_Point(x, x + 1, 2.0))
    back = pytree.tree_unflatten([leaf * 3 for leaf in leaves], spec)
    return len(leaves), back.x, back.w


def c_o6_pt_map_only_tensors(x):
    tree = {"t": x, "n": 3, "s": "keep"}
    return pytree.tree_map_only(torch.Tensor, lambda t: t + 1, tree)


def c_o6_pt_asdict_then_mapped(x):
    d = dataclasses.asdict(_Pair(x, x + 1, 3.0))
    return pytree.tree_map(lambda v: v * 2, d)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

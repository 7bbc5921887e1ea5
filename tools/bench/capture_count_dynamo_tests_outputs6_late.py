"""Corners of structured values for ``capture_count.py --only dynamo_tests_outputs6`` (see
``capture_count_dynamo_tests_outputs6.py``), after PyTorch's test/dynamo/test_model_output.py and the dataclass,
namedtuple and pytree cases of test_misc.py and test_pytree: ``InitVar``, ``kw_only``, ``order``, ``slots`` and
``field(init=False, metadata=...)`` dataclasses, frozen records as dict keys, ``match`` over dataclasses and
namedtuples, ``torch.return_types`` records, outputs that register themselves as pytree nodes, pytree key paths
and ``register_dataclass``. Each program is written afresh over one small tensor.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import operator
from typing import ClassVar

import torch
from torch.utils import _pytree as pytree


@dataclasses.dataclass
class _Scaled:
    value: torch.Tensor
    factor: dataclasses.InitVar[float] = 1.0
    scaled: torch.Tensor | None = dataclasses.field(default=None, init=False)

    def __post_init__(self, factor):
        self.scaled = self.value * factor


@dataclasses.dataclass(kw_only=True)
class _Opts:
    lr: float = 0.1
    steps: int = 2


@dataclasses.dataclass(order=True)
class _Ranked:
    rank: int
    name: str = dataclasses.field(compare=False, default="")


@dataclasses.dataclass(slots=True)
class _Slotted:
    a: torch.Tensor
    b: float = 2.0


@dataclasses.dataclass(frozen=True)
class _Key:
    layer: int
    kind: str


@dataclasses.dataclass
class _Meta:
    data: torch.Tensor = dataclasses.field(metadata={"unit": "m"})
    registry: ClassVar[int] = 7


@dataclasses.dataclass(frozen=True)
class _FrozenPost:
    base: float
    square: float = dataclasses.field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "square", self.base * self.base)


class _Registered(collections.OrderedDict):
    """Registers each dataclass subclass as a pytree node, as transformers' output base does."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        pytree.register_pytree_node(
            cls,
            lambda out: (list(out.values()), list(out.keys())),
            lambda values, keys: cls(**dict(zip(keys, values))),
            serialized_type_name=f"{__name__}.{cls.__name__}",
        )

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None:
                self[f.name] = value


@dataclasses.dataclass
class _RegOut(_Registered):
    logits: torch.Tensor | None = None
    hidden: torch.Tensor | None = None


@dataclasses.dataclass
class _Node:
    left: torch.Tensor
    right: torch.Tensor


pytree.register_dataclass(_Node)


_Step = collections.namedtuple("_Step", "index value")


class _Named(collections.namedtuple("_NamedBase", "a b")):
    """A namedtuple subclass with a method and no ``__dict__``."""

    __slots__ = ()

    def combined(self):
        return self.a * 2 + self.b


# -- dataclass options -----------------------------------------------------------------------------------------
def c_o6_dl_initvar_post_init(x):
    s = _Scaled(x, 3.0)
    return s.scaled, [f.name for f in dataclasses.fields(s)]


def c_o6_dl_kw_only(x):
    o = _Opts(steps=3)
    r = x
    for _ in range(o.steps):
        r = r - o.lr * r
    return r


def c_o6_dl_order_sorted(x):
    recs = [_Ranked(3, "c"), _Ranked(1, "a"), _Ranked(2, "b")]
    ordered = sorted(recs)
    return [r.name for r in ordered], x * ordered[0].rank, _Ranked(1, "x") < _Ranked(2, "y")


def c_o6_dl_sorted_by_attrgetter(x):
    recs = [_Ranked(5, "e"), _Ranked(2, "b")]
    best = min(recs, key=operator.attrgetter("rank"))
    return x + best.rank, best.name


def c_o6_dl_slots(x):
    s = _Slotted(x + 1)
    s.b = 4.0
    return s.a * s.b, hasattr(s, "__dict__")


def c_o6_dl_frozen_as_dict_key(x):
    table = {_Key(0, "attn"): x + 1, _Key(1, "mlp"): x * 2}
    return table[_Key(1, "mlp")], _Key(0, "attn") in table, len({_Key(0, "a"), _Key(0, "a")})


def c_o6_dl_field_metadata(x):
    f = dataclasses.fields(_Meta)[0]
    return f.metadata["unit"], len(dataclasses.fields(_Meta)), _Meta(x).data * _Meta.registry


def c_o6_dl_frozen_post_init(x):
    fp = _FrozenPost(3.0)
    return x * fp.square, fp.base


def c_o6_dl_asdict_nested(x):
    @dataclasses.dataclass
    class Outer:
        inner: _Key
        scores: list

    d = dataclasses.asdict(Outer(_Key(2, "ln"), [1, 2]))
    return d, x + d["inner"]["layer"]


def c_o6_dl_fields_of_non_dataclass(x):
    try:
        dataclasses.fields(x)
    except TypeError:
        return x - 1
    return x


def c_o6_dl_post_init_validation(x):
    @dataclasses.dataclass
    class Positive:
        v: float

        def __post_init__(self):
            if self.v <= 0:
                raise ValueError("must be positive")

    try:
        Positive(-1.0)
    except ValueError as exc:
        return x * Positive(2.0).v, str(exc)
    return x


def c_o6_dl_copy_of_dataclass(x):
    s = _Slotted(x, 3.0)
    t = copy.copy(s)
    t.b = 5.0
    return s.a * s.b + t.a * t.b


def c_o6_dl_vars_of_instance(x):
    @dataclasses.dataclass
    class Plain:
        a: int = 1
        b: int = 2

    return vars(Plain(b=5)), x + 1


# -- match statements --------------------------------------------------------------------------------------
def c_o6_match_dataclass_class_pattern(x):
    s = _Slotted(x, 3.0)
    match s:
        case _Slotted(a=t, b=k) if k > 2:
            return t * k
        case _:
            return x


def c_o6_match_namedtuple_sequence(x):
    match _Step(2, x):
        case (i, v):
            return v * i
    return x


def c_o6_match_namedtuple_positional(x):
    match _Step(1, x + 1):
        case _Step(0, v):
            return v
        case _Step(1, v):
            return v * 10
    return x


def c_o6_match_mapping_over_output(x):
    out = _RegOut(logits=x + 1)
    match out:
        case {"logits": t, "hidden": h}:
            return t + h
        case {"logits": t}:
            return t * 2
    return x


# -- namedtuple subclasses and return types ------------------------------------------------------------------
def c_o6_rt_max_values_indices(x):
    r = x.view(1, 3).max(dim=1)
    return r.values + r.indices, r[0], type(r).__name__


def c_o6_rt_sort_unpacked(x):
    values, order = torch.sort(-x)
    return values, order


def c_o6_rt_tree_map(x):
    r = torch.topk(x, 2)
    doubled = pytree.tree_map(lambda t: t * 2, r)
    return doubled.values, doubled.indices, type(doubled).__name__


def c_o6_nts_subclass_method(x):
    n = _Named(x, x + 1)
    return n.combined(), n._replace(b=x).combined(), n._fields


def c_o6_nts_make_from_generator(x):
    s = _Step._make(v for v in (4, x * 2))
    return s.value * s.index, s.index


def c_o6_nts_replace_bad_field(x):
    try:
        _Step(0, x)._replace(missing=1)
    except ValueError as exc:
        return x + 1, "missing" in str(exc)
    return x


def c_o6_nts_count_index_and_compare(x):
    s = _Step(3, 3)  # the field ``index`` hides tuple.index
    return s.count(3), tuple.index(s, 3), _Step(1, 2) < _Step(1, 3), x + s.index


def c_o6_nts_asdict_splat(x):
    def use(index, value):
        return value ** index

    return use(**_Step(2, x)._asdict())


def c_o6_nts_zip_fields(x):
    s = _Step(2, x + 1)
    return {name: val for name, val in zip(s._fields, s)}


# -- pytree nodes ------------------------------------------------------------------------------------------
def c_o6_pr_registered_output_mapped(x):
    out = _RegOut(logits=x, hidden=x + 1)
    mapped = pytree.tree_map(lambda t: t * 3, out)
    return type(mapped).__name__, dict(mapped), mapped.hidden


def c_o6_pr_registered_output_flatten(x):
    leaves, spec = pytree.tree_flatten([_RegOut(logits=x), x * 2])
    back = pytree.tree_unflatten([leaf + 1 for leaf in leaves], spec)
    return len(leaves), back[0].logits, back[1]


def c_o6_pr_register_dataclass_mapped(x):
    n = pytree.tree_map(lambda t: t - 1, _Node(x, x * 2))
    return type(n).__name__, n.left, n.right


def c_o6_pr_flatten_with_path(x):
    pairs, _ = pytree.tree_flatten_with_path({"a": [x, x + 1], "b": (x * 2,)})
    return [pytree.keystr(path) for path, _ in pairs], sum(leaf for _, leaf in pairs)


def c_o6_pr_tree_all_any(x):
    tree = {"a": x, "b": [x + 1, x + 2]}
    positive = pytree.tree_all(lambda t: bool((t >= 0).all()), tree)
    big = pytree.tree_any(lambda t: bool((t > 3).any()), tree)
    return positive, big, x + 1


def c_o6_pr_map_only_tuple_of_types(x):
    tree = [x, 2, 3.5, "s"]
    return pytree.tree_map_only((int, float), lambda v: v * 10, tree)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

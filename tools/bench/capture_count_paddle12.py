"""A fourth round of small programs after Paddle's SOT tests (test/sot/ in PaddlePaddle/Paddle), written with
torch, for ``capture_count.py --only paddle12``: dataclasses (test_dataclass), functools (test_functools),
IntEnum members (test_enum), plain classes made in the frame (test_pure_class), bound methods stored on module
objects (test_patched_method), methods calling each other (test_bound_static_method_call), callables guarded
by identity (test_guard_user_defined_fn), builtins on mixed values (test_builtin_dispatch), ``del`` of locals
(test_delete_fast) and comprehensions (test_listcomp).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
import operator
import types
from dataclasses import dataclass, field

import torch


# -- dataclasses (test_dataclass) ----------------------------------------------------------------------------
@dataclass
class _Box:
    x: torch.Tensor
    scale: float = 2.0
    tags: list = field(default_factory=list)


@dataclass
class _Pair:
    left: _Box
    right: _Box

    def total(self):
        return self.left.x * self.left.scale + self.right.x * self.right.scale


def c_p12_dataclass_default_factory(x):
    b = _Box(x + 1)
    b.tags.append("a")
    b.tags.append(len(b.tags))
    return b.x * b.scale, b.tags


def c_p12_nested_dataclass_method(x):
    p = _Pair(_Box(x), _Box(x - 1, scale=3.0))
    return p.total(), p.left.scale + p.right.scale


def c_p12_dataclass_equality_in_frame(x):
    a = _Box(x, 1.0)
    b = _Box(x, 1.0)
    return x + (a.scale == b.scale), dataclasses.is_dataclass(a), dataclasses.is_dataclass(_Box)


def c_p12_dataclass_fields_loop(x):
    b = _Box(x * 2, 0.5)
    names = [f.name for f in dataclasses.fields(b)]
    out = x
    for name in names:
        v = getattr(b, name)
        if isinstance(v, torch.Tensor):
            out = out + v
    return out, names


@dataclass
class _WithPost:
    x: torch.Tensor
    y: torch.Tensor = None

    def __post_init__(self):
        if self.y is None:
            self.y = self.x * 2


def c_p12_dataclass_post_init_default(x):
    a = _WithPost(x)
    b = _WithPost(x, x + 10)
    return a.y, b.y


@dataclass(frozen=True)
class _Cfg:
    depth: int = 2
    width: int = 3


def c_p12_frozen_dataclass_hash_key(x):
    table = {_Cfg(): x + 1, _Cfg(1, 1): x - 1}
    return table[_Cfg(2, 3)], table[_Cfg(depth=1, width=1)], len(table)


def c_p12_dataclass_replace_in_loop(x):
    cfg = _Cfg()
    out = x
    for _ in range(cfg.depth):
        cfg = dataclasses.replace(cfg, width=cfg.width + 1)
        out = out * cfg.width
    return out, cfg.width


# -- functools (test_functools) ------------------------------------------------------------------------------
@functools.lru_cache(maxsize=8)
def _cached_plus(v):
    return v + 1


def c_p12_lru_cache_ints_then_tensor(x):
    a1 = _cached_plus(1)
    b1 = _cached_plus(x)
    a2 = _cached_plus(1)
    c1 = _cached_plus(2)
    return a1, a2, b1, c1


def c_p12_reduce_tuple_product(x):
    return x * functools.reduce(lambda acc, v: acc * v, (1, 3, 4))


def c_p12_reduce_over_iter_of_list(x):
    it = iter([x, x + 1, x + 2])
    return functools.reduce(lambda acc, v: acc + v, it)


def c_p12_reduce_exhausted_iterator_caught(x):
    it = iter([1, 2, 3])
    for _ in it:
        pass
    try:
        functools.reduce(operator.add, it)
    except TypeError:
        return x - 1
    return x + 1


def c_p12_reduce_with_init_negative(x):
    return x + functools.reduce(operator.add, [1, 3, 4], -2)


def c_p12_reduce_dict_merge_lambda(x):
    merged = functools.reduce(lambda a, b: {**a, **b}, [{"a": 1, "b": 2}, {"a": 3, "c": 4}])
    return x * merged["a"] + merged["c"], sorted(merged)


def c_p12_partial_attributes(x):
    p = functools.partial(torch.add, alpha=2)
    return p(x, x), p.keywords["alpha"], p.func is torch.add, p.args


# -- IntEnum (test_enum) -------------------------------------------------------------------------------------
class _Dir(enum.IntEnum):
    UP = 1
    RIGHT = 2
    DOWN = 3
    LEFT = 4


class _Dir2(enum.IntEnum):
    EAST = 1
    WEST = 2


def c_p12_intenum_cross_class_compare(x):
    return (_Dir.UP == _Dir2.EAST, _Dir.UP != _Dir2.EAST, _Dir.UP is _Dir2.EAST, _Dir.RIGHT == 2,
            x + _Dir.LEFT)


def c_p12_intenum_by_name_and_value(x):
    a = _Dir["DOWN"]
    b = _Dir(2)
    return x * a + b, a.name, b.name, a.value


def c_p12_intenum_members_iterated(x):
    out = x
    for d in _Dir:
        out = out + d.value
    return out, len(_Dir), [d.name for d in _Dir], _Dir.UP in _Dir


def c_p12_intenum_argument_guard(x, d):
    if d == _Dir.RIGHT:
        return x + 1, d.name
    return x - 1, d.name


c_p12_intenum_argument_guard.extra_args = lambda: (_Dir.RIGHT,)


def c_p12_enum_dict_keys(x):
    table = {_Dir.UP: x + 1, _Dir.DOWN: x - 1}
    return table[_Dir.UP] + table[_Dir(3)], list(table)


class _Color(enum.Enum):
    RED = enum.auto()
    GREEN = enum.auto()


def c_p12_enum_auto_values(x):
    return x + _Color.GREEN.value, _Color.RED.name, _Color["GREEN"] is _Color.GREEN


# -- plain classes made in the frame (test_pure_class) -------------------------------------------------------
class _Mesh:
    def __init__(self, ids, dim_names=None):
        self.ids = ids
        self.dim_names = dim_names or [f"d{i}" for i in range(len(ids))]
        self.shape = [len(ids), len(ids[0])]


class _Placement:
    def __init__(self, dim=None):
        self.dim = dim

    def is_shard(self):
        return self.dim is not None


class _Shard(_Placement):
    pass


class _Replicate(_Placement):
    def __init__(self):
        super().__init__(None)


def c_p12_pure_objects_made(x):
    mesh = _Mesh([[0, 1], [2, 3]], dim_names=["x", "y"])
    placements = [_Shard(0), _Replicate(), _Placement()]
    return x + mesh.shape[0] * mesh.shape[1], [p.is_shard() for p in placements], mesh.dim_names


def c_p12_pure_objects_default_names(x):
    mesh = _Mesh([[0, 1, 2]])
    return x * len(mesh.dim_names), mesh.dim_names, type(_Shard(1)).__name__


# -- bound methods on module objects (test_patched_method) ----------------------------------------------------
class _ScaleOp:
    def __init__(self, weight, bias):
        self.weight = weight
        self.bias = bias

    def apply(self, x):
        return x * self.weight + self.bias


class _Mod(types.ModuleType):
    def __init__(self):
        super().__init__("p12_module")
        self.scale = _ScaleOp(2, 3).apply


_MOD = _Mod()
_NS = types.SimpleNamespace(scale=_ScaleOp(4, -1).apply)


def c_p12_module_object_bound_method(x):
    return _MOD.scale(x)


def c_p12_namespace_bound_method(x):
    return _NS.scale(x) + _MOD.scale(x)


# -- methods calling each other (test_bound_static_method_call) ----------------------------------------------
class _Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dim = 2
        self.lin = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.lin(torch.relu(x[:, : self.dim]))

    def step(self, x):
        return self.forward(x).mean()

    @staticmethod
    def helper(v):
        return v * 2

    @classmethod
    def make_scale(cls, v):
        return v + cls.__name__.count("L")


def c_p12_step_calls_forward(x, m):
    return m.step(x.reshape(1, 3).expand(2, 3))


c_p12_step_calls_forward.extra_args = lambda: (_init(_Layer()),)


def c_p12_static_and_class_method_via_instance(x, m):
    return m.helper(x) + m.make_scale(x) + _Layer.helper(x), m.make_scale(1)


c_p12_static_and_class_method_via_instance.extra_args = lambda: (_init(_Layer()),)


def c_p12_bound_method_stored_then_called(x, m):
    step = m.step
    fwd = m.forward
    return step(x.reshape(1, 3)) + fwd(x.reshape(1, 3)).sum()


c_p12_bound_method_stored_then_called.extra_args = lambda: (_init(_Layer()),)


def _init(m):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))
    return m


# -- callables guarded by identity (test_guard_user_defined_fn) ----------------------------------------------
def _guard_fn(fn, inp):
    if fn is None:
        return 0
    return fn(inp)


def c_p12_functional_argument_or_none(x):
    return (_guard_fn(torch.nn.functional.relu, x - 1), _guard_fn(torch.nn.functional.gelu, x - 1),
            _guard_fn(None, x))


class _Relu:
    def __call__(self, v):
        return torch.relu(v)


def c_p12_callable_instance_through_helper(x, f):
    return _guard_fn(f, x - 1) + _guard_fn(_Relu(), x - 2)


c_p12_callable_instance_through_helper.extra_args = lambda: (_Relu(),)


# -- builtins on mixed values (test_builtin_dispatch) --------------------------------------------------------
def c_p12_sum_with_tensor_start(x):
    return sum((), x), sum([], x + 1), sum((x, x), x), sum([x, 1])


def c_p12_sum_of_lists_with_list_start(x):
    return x + len(sum([[1, 2], [3, 4]], [0])), sum(([1], [2]), [])  # noqa: RUF017 - the construct


def c_p12_pow_three_args_and_math_pow(x):
    return x + pow(2, 3, 5) + math.pow(2, 3), pow(x, 2), x.pow(2), pow(2, x)


def c_p12_any_all_of_dicts_and_iters(x):
    flags = [1, False, 0, 3]
    return (x + any(iter(flags)) + all(iter(flags)), any({"a": 1}), all({}), any({}), all([1, True, 5]))


def c_p12_getattr_name_in_variable(x):
    attr = "dtype"
    names = ["shape", "ndim"]
    return getattr(x, attr), [getattr(x, n) for n in names], x + getattr(x, "ndim")  # noqa: B009


def c_p12_hasattr_of_module_argument(x, m):
    return x + hasattr(m, "parameters"), hasattr(m, "children"), hasattr(m, "not_here"), hasattr(x, "abs")


c_p12_hasattr_of_module_argument.extra_args = lambda: (torch.nn.Module(),)


def c_p12_reversed_tensor_pair(x):
    y = x + 10
    return list(reversed([x + 1, y - 1, x * 10, y + 1000]))


# -- del of locals (test_delete_fast) ------------------------------------------------------------------------
def c_p12_del_then_rebind(x):
    a = x + 1
    b = a * 2
    del a
    a = b - 1
    del b
    return a


def c_p12_del_in_loop(x):
    out = x
    for i in range(3):
        tmp = out * (i + 1)
        out = tmp + 1
        del tmp
    return out


def c_p12_del_caught_unbound(x):
    a = x + 1
    del a
    try:
        return a  # noqa: F821 - reading the deleted name is the construct
    except UnboundLocalError:
        return x - 1


# -- comprehensions and generator expressions (test_listcomp) ------------------------------------------------
def c_p12_listcomp_range_then_tensor(x):
    idx = [i for i in range(3)]
    return x[idx] * 2, idx


def c_p12_genexpr_returned_consumed(x):
    gen = (x * i for i in range(3))
    return torch.stack(list(gen))


def c_p12_nested_comprehension_scope(x):
    k = 2
    grid = [[i * k + j for j in range(2)] for i in range(3)]
    return x + torch.tensor(grid).sum(), {i: [j for j in range(i)] for i in range(3)}


def c_p12_set_comprehension_of_shapes(x):
    ts = [x, x + 1, x.reshape(1, 3)]
    return x + len({t.shape for t in ts}), sorted({t.ndim for t in ts})


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

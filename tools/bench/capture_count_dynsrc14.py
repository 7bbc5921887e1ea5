"""Typing objects, sources and interop after PyTorch's test/dynamo/test_typing.py, test_sources.py,
test_buffers_override.py, test_interop.py and test_view.py, for ``capture_count.py --only dynsrc14``: TypeVars and
``typing.Callable`` in annotations evaluated when an inner function is defined, ``X | None`` unions made, compared
and handed back, generics subscripted and instantiated, ``typing.Mapping`` in ``isinstance``, a TypeVar as a dict
key, a property whose getter is a closure, pytree's node table read, a module whose ``buffers``/``named_buffers``
are overridden by plain attributes, FX-traced, scripted and traced functions called inside, ``torch.vmap`` over an
unbound Tensor method. Its part ``_more`` holds test_reconstruct.py, test_python_autograd.py, test_resume.py,
test_skip_non_tensor.py and test_nops.py's constructs. Annotations here are evaluated (no ``__future__`` import):
that is part of what is tested. Each is written afresh over one tensor.
"""

import collections.abc
import typing

import torch
import torch.utils._pytree as pytree

_T = typing.TypeVar("_T")
_U = typing.TypeVar("_U")


def c_dynsrc14_typevar_callable_annotation(x):
    def total(v: torch.Tensor) -> torch.Tensor:
        return v.sum()

    def apply(f: typing.Callable[[_T], _T], v: _T) -> _T:
        return f(v)

    return apply(total, x) + 1


def c_dynsrc14_jit_annotate_optional_dicts(x):
    a = torch.jit.annotate(dict[str, torch.Tensor | None], {})
    b = torch.jit.annotate(typing.Dict[str, typing.Optional[torch.Tensor]], {})  # noqa: UP006, UP045
    a["k"] = x * 2
    return a, b, x + 1


def c_dynsrc14_union_annotations_defined(x):
    def first(v: torch.Tensor | None):
        return v

    def second(v: None | torch.Tensor):  # noqa: RUF036
        return v

    def third(v: torch.Tensor | list[int]):
        return v

    return first(x) + second(x) * third(x)


def c_dynsrc14_union_returned(x):
    return x + 1, torch.Tensor | None, None | torch.Tensor


def c_dynsrc14_isinstance_typing_mapping(x):
    m = {"x": x}
    seq = [x]
    out = x + 1 if isinstance(m, typing.Mapping) else x - 1
    out = out * 2 if isinstance(seq, typing.Sequence) else out
    return out if not isinstance(seq, typing.Mapping) else out * 0


def c_dynsrc14_typevar_dict_key(x):
    d = {_T: x, _U: x * 2}
    return d[_T] + d[_U]


class _Box(typing.Generic[_T]):
    def __init__(self, value=None):
        self.value = value


def c_dynsrc14_generic_subscript_instantiated(x):
    box = _Box[int]()
    if box is not None and box.value is None:
        return x.sin()
    return x.cos()


def c_dynsrc14_generic_subscript_with_value(x):
    box = _Box[torch.Tensor](x * 3)
    return box.value + 1


class _Tag:
    pass


def c_dynsrc14_union_equality(x):
    t = typing.Union[_Tag, int]  # noqa: UP007
    y = x * 2
    y = y + (t == typing.Union[_Tag, int])  # noqa: UP007
    y = y + (t == _Tag | int)
    y = y + (typing.Optional[int] == typing.Union[int, None])  # noqa: UP007, UP045
    return y.sin()


def c_dynsrc14_type_of_int_returned(x):
    return x.sin(), type[int]


def c_dynsrc14_list_of_any_returned(x):
    return x.sin(), list[typing.Any], dict[str, int]


class _Triple(typing.Generic[_T, _U]):
    pass


def c_dynsrc14_generic_two_params(x):
    alias = _Triple[int, float]
    return x.cos(), alias


def c_dynsrc14_abc_callable_subscript(x):
    return x.sin(), collections.abc.Callable[[int], int]


def c_dynsrc14_generic_origin_args(x):
    alias = dict[str, int]
    n = len(typing.get_args(alias)) + (typing.get_origin(alias) is dict)
    return x * n


def _closure_getter():
    hidden = 7

    def getter(self):
        return hidden

    return getter


class _WithClosureProperty:
    prop = property(_closure_getter())


def c_dynsrc14_property_getter_closure(x):
    obj = _WithClosureProperty()
    if not obj.prop:
        return x + 1
    return x + obj.prop


class _PyTreeThing:
    value = 5


pytree.register_pytree_node(_PyTreeThing, lambda t: ((), None), lambda values, ctx: _PyTreeThing())


def c_dynsrc14_pytree_supported_nodes_read(x):
    if pytree.SUPPORTED_NODES[_PyTreeThing].type is _PyTreeThing:
        return torch.sin(x)
    return torch.cos(x)


class _BuffersShadowed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("a", torch.ones(3))
        self.buffers = []

    def forward(self, x):
        return self.a * x + len(self.buffers)


def c_dynsrc14_buffers_attr_overridden(x):
    return _BuffersShadowed()(x)


class _NamedBuffersShadowed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b", torch.full((3,), 2.0))
        self.named_buffers = ["b"]

    def forward(self, x):
        return self.b * x, self.named_buffers[0]


_SHADOWED = _NamedBuffersShadowed()


def c_dynsrc14_named_buffers_overridden_global(x):
    out, name = _SHADOWED(x)
    return out + 1, name


def _plain(a, b):
    return a + b * 0.5


_FX_PLAIN = torch.fx.symbolic_trace(_plain)


def c_dynsrc14_fx_traced_call(x):
    return _FX_PLAIN(x, x + 1) + 1


_SCRIPTED = torch.jit.script(_plain)


def c_dynsrc14_jit_script_call(x):
    return _SCRIPTED(x, x * 2) + 1


_TRACED = torch.jit.trace(_plain, (torch.zeros(3), torch.zeros(3)))


def c_dynsrc14_jit_trace_call(x):
    return _TRACED(x, x - 1) + 1


def c_dynsrc14_vmap_unbound_tensor_method(x):
    batch = x.reshape(1, 3).expand(2, 3).reshape(2, 3, 1) * torch.ones(2, 3, 2)
    return torch.vmap(torch.Tensor.t)(batch)


def c_dynsrc14_view_with_python_ints(x):
    n, m = 2, 3
    a = torch.arange(float(n * m)) + x.sum()
    return a.view(-1, m), a.view(n * m)


def _scale_shift(a, s: float):
    return a * s + 1.0


_SCRIPTED_SCALE = torch.jit.script(_scale_shift)
_SCRIPTED_TABLE = {"plain": _SCRIPTED, "scale": _SCRIPTED_SCALE}


def c_dynsrc14_jit_script_from_table_twice(x):
    y = _SCRIPTED_TABLE["plain"](x, x)
    return _SCRIPTED_TABLE["scale"](y, 2.0) + _SCRIPTED_TABLE["scale"](x, 0.5)


def c_dynsrc14_jit_script_handed_in(x, fn):
    return fn(x, x + 2) * 3


c_dynsrc14_jit_script_handed_in.extra_args = lambda: (_SCRIPTED,)


def c_dynsrc14_jit_script_attrs_and_call(x):
    name = _SCRIPTED.name
    return _SCRIPTED(x, x) - 1, name


class _Affine(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.full((3,), 2.0))

    def forward(self, x):
        return x * self.w + 1


_TRACED_MODULE = torch.jit.trace(_Affine(), (torch.zeros(3),))


def c_dynsrc14_jit_traced_module_call(x):
    return _TRACED_MODULE(x) + 1


class _Cellar:
    pass


def c_dynsrc14_typing_cast_and_checking(x):
    y = typing.cast(torch.Tensor, x * 2)
    if typing.TYPE_CHECKING:
        y = y * 0
    return typing.cast("torch.Tensor", y) + 1


@typing.runtime_checkable
class _HasScale(typing.Protocol):
    def scale(self) -> float: ...


class _Scaler:
    def scale(self) -> float:
        return 2.0


def c_dynsrc14_runtime_checkable_protocol(x):
    obj = _Scaler()
    if isinstance(obj, _HasScale):
        return x * obj.scale()
    return x


_P = typing.ParamSpec("_P")


def c_dynsrc14_paramspec_concatenate_annotations(x):
    def call(f: typing.Callable[typing.Concatenate[torch.Tensor, _P], torch.Tensor], *args: _P.args,
             **kwargs: _P.kwargs) -> torch.Tensor:
        return f(x, *args, **kwargs)

    def body(t: torch.Tensor, k: int, *, shift: float = 0.0) -> torch.Tensor:
        return t * k + shift

    return call(body, 3, shift=1.0)


def c_dynsrc14_literal_and_annotated(x):
    mode: typing.Literal["sum", "mean"] = "sum"

    def reduce(t: typing.Annotated[torch.Tensor, "vector"], how: typing.Literal["sum", "mean"]) -> torch.Tensor:
        return t.sum() if how == "sum" else t.mean()

    kinds = typing.get_args(typing.Literal["sum", "mean"])
    return reduce(x, mode) + len(kinds)


_Bounded = typing.TypeVar("_Bounded", bound=torch.nn.Module)


class _Registry(typing.Generic[_Bounded]):
    def __init__(self):
        self.items: list = []

    def add(self, m: _Bounded) -> "_Registry[_Bounded]":
        self.items.append(m)
        return self


def c_dynsrc14_generic_registry_chain(x):
    reg = _Registry[torch.nn.Identity]().add(torch.nn.Identity()).add(torch.nn.Identity())
    for m in reg.items:
        x = m(x) + 1
    return x, len(reg.items)


def c_dynsrc14_generic_alias_attributes(x):
    alias = _Triple[int, str]
    n = len(alias.__args__) + (alias.__origin__ is _Triple)
    return x + n


class _Pair(typing.NamedTuple):
    left: torch.Tensor
    right: typing.Optional[torch.Tensor] = None  # noqa: UP045


def c_dynsrc14_typed_namedtuple_default(x):
    p = _Pair(x)
    q = p._replace(right=x * 2)
    return q.left + q.right, p.right is None, _Pair.__annotations__["left"] is torch.Tensor


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

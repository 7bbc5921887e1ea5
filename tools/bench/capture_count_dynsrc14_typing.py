"""The ``_typing`` part of ``capture_count.py --only dynsrc14``: more of test_typing.py and test_interop.py's ideas in
other shapes: ``typing.NewType`` called, ``typing.assert_type``, ``typing.final``/``no_type_check``/``overload``
decorators applied in the frame, ``typing.get_type_hints`` of a function, ``isinstance`` against the
``typing``/``collections.abc`` aliases (``Hashable``, ``Iterable``, ``Callable``), a generic dataclass, a nested
generic alias compared, a function made ``allow_in_graph`` and wrapped by ``functools.wraps``, and a
``torch.jit.script``'ed function calling another one. Annotations are evaluated. Each is written afresh over one
tensor.
"""

import collections.abc
import dataclasses
import functools
import typing

import torch

_T = typing.TypeVar("_T")
_Count = typing.NewType("_Count", int)


def c_dynsrc14_newtype_called(x):
    n = _Count(3)
    return x * n, n


def c_dynsrc14_assert_type_passthrough(x):
    y = typing.assert_type(x + 1, torch.Tensor)
    return y * 2


def c_dynsrc14_typing_decorators_in_frame(x):
    @typing.final
    def scale(v: torch.Tensor) -> torch.Tensor:
        return v * 2

    @typing.no_type_check
    def shift(v):
        return v + 1

    return shift(scale(x))


def _hinted(a: torch.Tensor, b: int = 1) -> torch.Tensor:
    return a * b


def c_dynsrc14_get_type_hints(x):
    hints = typing.get_type_hints(_hinted)
    return _hinted(x, len(hints)), hints["b"] is int


def c_dynsrc14_isinstance_abc_aliases(x):
    n = 0
    n += isinstance(x, typing.Hashable)
    n += isinstance([x], typing.Iterable)
    n += isinstance(len, typing.Callable)
    n += isinstance({}, collections.abc.MutableMapping)
    n += isinstance((1,), typing.Sequence)
    return x + n


@dataclasses.dataclass
class _Holder(typing.Generic[_T]):
    value: _T
    scale: float = 2.0


def c_dynsrc14_generic_dataclass(x):
    h = _Holder[torch.Tensor](x)
    return h.value * h.scale, dataclasses.fields(h)[1].name


def c_dynsrc14_nested_alias_equality(x):
    a = dict[str, list[typing.Optional[int]]]  # noqa: UP045
    b = dict[str, list[typing.Optional[int]]]  # noqa: UP045
    same = a == b
    other = a == dict[str, list[int]]
    return x + int(same) - int(other)


def _plain_add(a, b):
    return a + b


_ALLOWED = torch._dynamo.allow_in_graph(_plain_add)


@functools.wraps(_ALLOWED)
def _wrapped_allowed(*args, **kwargs):
    return _ALLOWED(*args, **kwargs)


def c_dynsrc14_allow_in_graph_wrapped(x):
    return _wrapped_allowed(x, x * 2) + 1


def _inner_scripted(a):
    return a * 2


_INNER = torch.jit.script(_inner_scripted)


def _outer_scripted(a):
    return _INNER(a) + 1


_OUTER = torch.jit.script(_outer_scripted)


def c_dynsrc14_script_calling_script(x):
    return _OUTER(x) * 3


def c_dynsrc14_protocol_generic_call(x):
    class Doubler(typing.Protocol[_T]):
        def __call__(self, v: _T) -> _T: ...

    def run(f: Doubler[torch.Tensor], v: torch.Tensor) -> torch.Tensor:
        return f(v)

    return run(lambda v: v * 2, x)


def c_dynsrc14_typeddict_made(x):
    class Config(typing.TypedDict):
        scale: float
        name: str

    cfg = Config(scale=3.0, name="s")
    return x * cfg["scale"], cfg["name"], len(Config.__annotations__)


@torch.jit.ignore
def _ignored(v):
    return v * 4


@torch.jit.unused
def _unused(v):
    return v - 4


def c_dynsrc14_jit_ignore_unused_called(x):
    return _ignored(x) + _unused(x)


def c_dynsrc14_jit_is_scripting_tracing(x):
    if torch.jit.is_scripting() or torch.jit.is_tracing():
        return x * 0
    return x + 1


def c_dynsrc14_jit_isinstance_containers(x):
    n = torch.jit.isinstance([1, 2], list[int]) + torch.jit.isinstance({"a": x}, dict[str, torch.Tensor])
    return x * n


class _WithFinal(torch.nn.Module):
    scale: torch.jit.Final[float]

    def __init__(self):
        super().__init__()
        self.scale = 3.0

    @torch.jit.export
    def helper(self, v):
        return v * self.scale

    def forward(self, v):
        return self.helper(v) + 1


def c_dynsrc14_jit_final_and_export(x):
    return _WithFinal()(x)


def _keyword_scale(a, s: float = 2.0, shift: float = 0.0):
    return a * s + shift


_SCRIPTED_KW = torch.jit.script(_keyword_scale)


def c_dynsrc14_jit_script_keyword_call(x):
    return _SCRIPTED_KW(x, s=3.0, shift=1.0) + _SCRIPTED_KW(x)


class _Lin(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.full((3,), 0.5))

    def forward(self, v):
        return v * self.w


_SCRIPTED_MODULE = torch.jit.script(_Lin())


def c_dynsrc14_jit_scripted_module_call(x):
    return _SCRIPTED_MODULE(x) + 1


_FROZEN = torch.jit.freeze(torch.jit.script(_Lin()).eval())


def c_dynsrc14_jit_frozen_module_call(x):
    return _FROZEN(x) * 2


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

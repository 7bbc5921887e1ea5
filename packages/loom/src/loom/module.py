"""``loom.compile(module)``: a module whose calls run through loom, everything else passing through.

The wrapper is an ``nn.Module`` (so it nests in containers and passes ``isinstance`` checks) that owns
no state of its own: every ``nn.Module`` method (``state_dict``, ``parameters``, ``to``, ``train``,
``register_forward_hook``, ``_apply``, ...) and every attribute is the original module's. Methods that
return the module itself (``to``, ``train``, ``eval``, ``double``, ``requires_grad_``...) return the
wrapper instead, so ``model = model.to(dtype)`` keeps it compiled. State-dict keys carry no prefix.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

import torch

import loom_framehook as framehook
import loom_symbolic

from . import distributed
from .frame_compiler import FrameCompiler, request

# Defined by CompiledModule itself (or never to be forwarded): the rest of nn.Module's methods forward.
_OWN = {"__init__", "__call__", "__deepcopy__", "forward", "__getattr__", "__setattr__", "__delattr__", "__repr__", "__dir__",
        "_call_impl", "_wrapped_call_impl", "__getstate__", "__setstate__", "__class__"}


class CompiledModule(torch.nn.Module):
    """Wraps an ``nn.Module``: calls run under loom; everything else is the original module's.

    ``compiled(x)`` runs the original module's ``__call__`` (hooks included) with loom's hook on;
    ``compiled.forward(x)`` runs its ``forward`` the same way. The original is ``compiled._orig_mod``.
    """

    _orig_mod: torch.nn.Module
    _loom_compiler: FrameCompiler

    def __init__(self, module: torch.nn.Module, compiler: FrameCompiler) -> None:
        if not isinstance(module, torch.nn.Module):
            raise TypeError(f"CompiledModule wraps an nn.Module, got {type(module).__name__}; use loom.compile()")
        if not isinstance(compiler, FrameCompiler):
            raise TypeError(f"CompiledModule needs a loom FrameCompiler, got {type(compiler).__name__}; use loom.compile()")
        # nn.Module.__init__ is deliberately not called: the wrapper keeps no parameters, buffers,
        # hooks or flags of its own, so every read falls through to the original (__getattr__).
        object.__setattr__(self, "_orig_mod", module)
        object.__setattr__(self, "_loom_compiler", compiler)
        object.__setattr__(self, "_loom_ranks_agreed", False)  # see distributed.first_call
        distributed.check_ready(module)
        # A torch.nn container's forward is compiled too; for DDP, the wrapped module's (DDP's own runs as is).
        request(distributed.forward_to_compile(module))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._loom_ranks_agreed:
            distributed.first_call(self)  # under DDP: every rank must compile with the same settings
        previous = framehook.set_callback(self._loom_compiler)
        try:
            return self._orig_mod(*args, **kwargs)
        finally:
            framehook.set_callback(previous)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The original module's ``forward``, compiled (module hooks do not run; call the wrapper for those)."""
        previous = framehook.set_callback(self._loom_compiler)
        try:
            return self._orig_mod.forward(*args, **kwargs)
        finally:
            framehook.set_callback(previous)

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_orig_mod"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._orig_mod, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._orig_mod, name)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self._orig_mod)) | {"_orig_mod", "_loom_compiler", "_loom_ranks_agreed"})

    def __repr__(self) -> str:
        return f"CompiledModule({self._orig_mod!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> CompiledModule:
        # A copy of the original, compiled with the same settings (and sharing their compiler).
        return wrap_module(copy.deepcopy(self._orig_mod, memo), self._loom_compiler)


#: Container protocol methods a wrapper forwards when the module's class has them (``len(seq)``,
#: ``seq[0]``, ``for layer in seq``). Only then: a ``__len__`` on every wrapper would make
#: ``bool(wrapper)`` raise for modules that have none.
_CONTAINER_METHODS = ("__len__", "__getitem__", "__setitem__", "__delitem__", "__iter__", "__contains__")
_wrapper_classes: dict[tuple[str, ...], type[CompiledModule]] = {}


def wrap_module(module: torch.nn.Module, compiler: FrameCompiler) -> CompiledModule:
    """``CompiledModule(module, compiler)``, of a subclass with the container methods ``module`` has."""
    names = tuple(n for n in _CONTAINER_METHODS if getattr(type(module), n, None) is not None)
    cls = _wrapper_classes.get(names)
    if cls is None:
        methods = {n: _container_forwarder(n) for n in names}
        cls = type("CompiledModule", (CompiledModule,), {"__module__": __name__, **methods}) if names else CompiledModule
        _wrapper_classes[names] = cls
    return cls(module, compiler)


def _container_forwarder(name: str) -> Callable[..., Any]:
    def forward_to_original(self: CompiledModule, *args: Any) -> Any:
        return getattr(object.__getattribute__(self, "_orig_mod"), name)(*args)

    forward_to_original.__name__ = name
    return forward_to_original


def _forwarder(name: str) -> Callable[..., Any]:
    original = getattr(torch.nn.Module, name)

    @functools.wraps(original)
    def forward_to_original(self: CompiledModule, *args: Any, **kwargs: Any) -> Any:
        inner = object.__getattribute__(self, "_orig_mod")
        result = getattr(inner, name)(*args, **kwargs)
        return self if result is inner else result

    return forward_to_original


def _install_forwarders() -> None:
    for name, value in vars(torch.nn.Module).items():
        if name in _OWN or (name.startswith("__") and name.endswith("__")) or not callable(value):
            continue
        setattr(CompiledModule, name, _forwarder(name))


_install_forwarders()
# As for compiled functions (see api.py): a compiled module called from traced code is a graph break.
loom_symbolic.skip_code(CompiledModule.__call__.__code__)
loom_symbolic.skip_code(CompiledModule.forward.__code__)

"""``loom.compile(module)``: a module whose forward runs through loom, everything else passing through."""

from __future__ import annotations

from typing import Any

import torch

import loom_framehook as framehook

from .frame_compiler import FrameCompiler


class CompiledModule(torch.nn.Module):
    """Wraps an ``nn.Module``: calls run under loom; parameters, state dict, attributes, ``train()``
    and ``eval()`` are the original module's (the wrapper adds no prefix to state-dict keys)."""

    def __init__(self, module: torch.nn.Module, compiler: FrameCompiler) -> None:
        super().__init__()
        # Attribute reads fall through to the original (see __getattr__), `training` included.
        del self.__dict__["training"]
        # Not registered as a submodule: state_dict() and parameters() come from the original as is.
        object.__setattr__(self, "_orig_mod", module)
        object.__setattr__(self, "_loom_compiler", compiler)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        previous = framehook.set_callback(self._loom_compiler)
        try:
            return self._orig_mod(*args, **kwargs)
        finally:
            framehook.set_callback(previous)

    forward = __call__

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_orig_mod"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._orig_mod, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._orig_mod, name)

    def state_dict(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod.state_dict(*args, **kwargs)

    def load_state_dict(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod.load_state_dict(*args, **kwargs)

    def named_parameters(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod.named_parameters(*args, **kwargs)

    def parameters(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod.parameters(*args, **kwargs)

    def named_buffers(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod.named_buffers(*args, **kwargs)

    def buffers(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod.buffers(*args, **kwargs)

    def named_modules(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod.named_modules(*args, **kwargs)

    def modules(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod.modules(*args, **kwargs)

    def children(self) -> Any:
        return self._orig_mod.children()

    def train(self, mode: bool = True) -> CompiledModule:
        self._orig_mod.train(mode)
        return self

    def eval(self) -> CompiledModule:
        self._orig_mod.eval()
        return self

    def to(self, *args: Any, **kwargs: Any) -> CompiledModule:
        self._orig_mod.to(*args, **kwargs)
        return self

    def __repr__(self) -> str:
        return f"CompiledModule({self._orig_mod!r})"

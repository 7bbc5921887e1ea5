"""Test helpers shared by the test modules (imported relatively: the tests are a package)."""

from __future__ import annotations

import builtins
from typing import Any


class FrameView:
    """Shaped like loom_framehook's frame view: f_locals, f_globals, f_builtins, closure, f_code."""

    def __init__(
        self,
        f_locals: dict,
        f_globals: dict | None = None,
        f_builtins: Any = None,
        closure: tuple | None = None,
        code: Any = None,
    ) -> None:
        self.f_locals = f_locals
        self.f_globals = f_globals if f_globals is not None else {}
        self.f_builtins = f_builtins if f_builtins is not None else builtins.__dict__
        self.closure = closure
        self.f_code = code


def make_closure(scale: Any):
    def fn(x):
        return x * scale

    return fn


class Counter:
    """An object whose attribute reads are counted (to prove each source is read once)."""

    def __init__(self, value: Any) -> None:
        object.__setattr__(self, "reads", 0)
        object.__setattr__(self, "_value", value)

    @property
    def value(self) -> Any:
        object.__setattr__(self, "reads", self.reads + 1)
        return self._value

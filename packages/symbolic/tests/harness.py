"""Run a function through the translator without the frame hook, and compare with eager."""

from __future__ import annotations

import copy
import inspect
import types
from typing import Any

import pytest
import torch
from bytecode import Bytecode

from loom_symbolic import Translation, translate_function


def run_rewritten(fn: types.FunctionType, translation: Translation, args: tuple, kwargs: dict) -> Any:
    """Call ``fn``'s rewritten code with ``fn``'s globals and closure (graphs run as traced)."""
    assert translation.code is not None, "\n".join(str(b) for b in translation.breaks)
    translation.install(fn.__globals__, lambda graph: graph.graph_module)
    rewritten = types.FunctionType(translation.code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    rewritten.__kwdefaults__ = fn.__kwdefaults__
    assert_stacksize(translation.code)
    return rewritten(*args, **kwargs)


def assert_stacksize(code: types.CodeType) -> None:
    """The stack size build_code chose is the one the bytecode library computes from the code's CFG."""
    assert code.co_stacksize == Bytecode.from_code(code).compute_stacksize(), code


def assert_same(actual: Any, expected: Any) -> None:
    """Structural equality: same container types, tensors equal in value, dtype and shape."""
    assert type(actual) is type(expected), f"{type(actual)} != {type(expected)}"
    if isinstance(expected, torch.Tensor):
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        assert actual.requires_grad == expected.requires_grad
        torch.testing.assert_close(actual, expected, equal_nan=True, rtol=1e-5, atol=1e-6)
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e)
    elif isinstance(expected, dict):
        assert list(actual) == list(expected)
        for k in expected:
            assert_same(actual[k], expected[k])
    elif hasattr(expected, "__dict__") and type(expected).__eq__ is object.__eq__ and not inspect.isroutine(expected) and not isinstance(expected, type):
        assert_same(vars(actual), vars(expected))
    else:
        assert actual == expected or (actual != actual and expected != expected), f"{actual!r} != {expected!r}"


def check(fn: types.FunctionType, *args: Any, graphs: int | None = 1, **kwargs: Any) -> Translation:
    """Translate ``fn`` for these arguments, run the result, and compare with eager on copies.

    Checks the return value, arguments mutated in place, and the function's globals.
    """
    eager_args, eager_kwargs = copy.deepcopy((args, kwargs))
    loom_args, loom_kwargs = copy.deepcopy((args, kwargs))
    globals_before = _snapshot_globals(fn)
    translation = translate_function(fn, *copy.deepcopy(args), **copy.deepcopy(kwargs))
    expected = fn(*eager_args, **eager_kwargs)
    globals_after_eager = _snapshot_globals(fn)
    _restore_globals(fn, globals_before)
    actual = run_rewritten(fn, translation, loom_args, loom_kwargs)
    assert_same(actual, expected)
    assert_same(loom_args, eager_args)
    assert_same(loom_kwargs, eager_kwargs)
    assert_same(_snapshot_globals(fn), globals_after_eager)
    assert not translation.breaks, translation.dump()
    if graphs is None:
        assert len(translation.graphs) <= 1, translation.dump()  # captured in one piece
    else:
        assert len(translation.graphs) == graphs, translation.dump()
    return translation


def _snapshot_globals(fn: types.FunctionType) -> dict:
    names = _global_names(fn.__code__)
    return {n: copy.deepcopy(fn.__globals__[n]) for n in sorted(names) if n in fn.__globals__
            and not callable(fn.__globals__[n]) and not inspect.ismodule(fn.__globals__[n])}


def _restore_globals(fn: types.FunctionType, snapshot: dict) -> None:
    for name in _global_names(fn.__code__):
        if name in snapshot:
            fn.__globals__[name] = copy.deepcopy(snapshot[name])
        elif name in fn.__globals__ and not callable(fn.__globals__[name]) and not inspect.ismodule(fn.__globals__[name]):
            del fn.__globals__[name]


def _global_names(code: types.CodeType) -> set[str]:
    import dis

    names = {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "STORE_GLOBAL", "DELETE_GLOBAL")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


class CaseRegistry(list):
    """The cases of one conformance file: ``@cases(*args, graphs=N, **kwargs)`` registers a function.

    Each entry is a ``pytest.param(fn, args, kwargs, graphs)`` named after the function, ready for
    ``parametrize``; ``graphs`` is the expected graph count (``None``: not checked).
    """

    def __init__(self, default_graphs: int | None = 1) -> None:
        super().__init__()
        self.default_graphs = default_graphs

    def __call__(self, *args: Any, graphs: Any = "default", **kwargs: Any):
        expected = self.default_graphs if graphs == "default" else graphs

        def register(fn):
            self.add(fn, args, kwargs, expected)
            return fn

        return register

    def add(self, fn: Any, args: tuple, kwargs: dict, graphs: int | None) -> None:
        """Register ``fn(*args, **kwargs)`` directly (for generated cases)."""
        self.append(pytest.param(fn, args, kwargs, graphs, id=fn.__name__))

"""Run a function eagerly and through loom, and compare everything a user could observe."""

from __future__ import annotations

import contextlib
import copy
import io
import traceback
from dataclasses import dataclass
from typing import Any

import pytest
import torch

import loom


@loom.disable(recursive=False)
def show(*values: Any, **options: Any) -> None:
    """``print``, as a graph break where it stands: loom records a plain print of tensors and constants in
    the graph (``variables/graph_prints.py``), and the cases here test what crosses a break, with printed
    output to compare with eager's."""
    print(*values, **options)


@dataclass
class Outcome:
    """What one run did: its result or exception, what it printed, and its arguments afterwards."""

    result: Any
    error: BaseException | None
    printed: str
    args: Any
    last_frame: tuple | None


def run(fn: Any, args: tuple, kwargs: dict) -> Outcome:
    buffer = io.StringIO()
    result, error, last = None, None, None
    with contextlib.redirect_stdout(buffer):
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:  # the program's own exception is part of its behaviour
            error = exc
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            last = (frame.filename, frame.lineno, frame.name)
    return Outcome(result, error, buffer.getvalue(), (args, kwargs), last)


#: Iterators an argument may be (issue 29), compared by the items they have left.
_WALKED_ITERATORS = (type(iter([])), type(iter(())), type(iter({})), type(iter({}.items())))


def assert_same(actual: Any, expected: Any) -> None:
    assert type(actual) is type(expected), f"{type(actual)} != {type(expected)}"
    if isinstance(expected, torch.Tensor):
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        assert actual.requires_grad == expected.requires_grad
        torch.testing.assert_close(actual, expected, equal_nan=True)
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e)
    elif isinstance(expected, dict):
        assert list(actual) == list(expected)
        for key in expected:
            assert_same(actual[key], expected[key])
    elif type(expected) in _WALKED_ITERATORS:  # where it stands: the items it has left (read from a copy)
        assert_same(list(copy.copy(actual)), list(copy.copy(expected)))
    elif hasattr(expected, "__dict__") and type(expected).__eq__ is object.__eq__ and not callable(expected):
        assert_same(vars(actual), vars(expected))
    else:
        assert actual == expected, f"{actual!r} != {expected!r}"


def compare(fn: Any, *args: Any, backend: str = "eager", **kwargs: Any) -> dict[str, int]:
    """Run ``fn`` eagerly and compiled on copies of the arguments; assert the same behaviour.

    Returns loom's counters for the compiled run (graphs, graph breaks, ...).
    """
    eager = run(fn, *copy.deepcopy((args, kwargs)))
    loom.reset()
    compiled = loom.compile(fn, backend=backend)
    actual = run(compiled, *copy.deepcopy((args, kwargs)))
    stats = loom.stats()
    assert actual.printed == eager.printed, f"printed {actual.printed!r}, eager printed {eager.printed!r}"
    if eager.error is not None:
        assert actual.error is not None, f"eager raised {eager.error!r}, loom returned {actual.result!r}"
        assert type(actual.error) is type(eager.error)
        assert str(actual.error) == str(eager.error)
        assert actual.last_frame == eager.last_frame, f"{actual.last_frame} != {eager.last_frame}"
    else:
        assert actual.error is None, f"loom raised {actual.error!r}"
        assert_same(actual.result, eager.result)
    assert_same(actual.args, eager.args)
    # A second call is served by the cache (or compiles once more for a resumed loop) and still agrees.
    again = run(compiled, *copy.deepcopy((args, kwargs)))
    assert again.printed == eager.printed
    if eager.error is None:
        assert_same(again.result, eager.result)
    return stats


class BreakCases(list):
    """The cases of one graph-break file: ``@cases(*args, graphs=G, breaks=B, **kwargs)`` registers one.

    ``graphs``/``breaks`` are the counts loom must report after the first compiled call; each entry
    is a ``pytest.param(fn, args, kwargs, graphs, breaks)`` named after the function.
    """

    def __call__(self, *args: Any, graphs: int, breaks: int, **kwargs: Any):
        def register(fn):
            self.append(pytest.param(fn, args, kwargs, graphs, breaks, id=fn.__name__))
            return fn

        return register

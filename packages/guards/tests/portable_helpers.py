"""Helpers of the portable-guard tests: a subject module written to a directory of its own (so that a
second process imports the very same file, or an edited one), and checks of two guard lists."""

from __future__ import annotations

import importlib
import itertools
import json
import sys
import textwrap
from pathlib import Path

import loom_guards

SUBJECT = textwrap.dedent(
    """
    import enum
    import math
    from collections import namedtuple

    import torch

    SCALE = 3


    def helper(x, y=2, *, z=(1.5, "a")):
        return x * y + SCALE


    def counting():
        yield 1


    class Colour(enum.Enum):
        RED = 1
        GREEN = 2


    Point = namedtuple("Point", "x y")


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 2)
            self.eps = 1e-5

        def forward(self, x):
            return self.lin(x) * math.pi + self.eps
    """
)

_names = itertools.count()


def write_subject(directory: Path, source: str = SUBJECT, name: str | None = None):
    """Write ``source`` as a fresh module in ``directory`` (put first on sys.path) and import it."""
    name = name or f"loom_portable_subject_{next(_names)}"
    (directory / f"{name}.py").write_text(source)
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))
    importlib.invalidate_caches()
    return importlib.import_module(name)


def round_trip(guards: list) -> list:
    """The guards rebuilt from their records after a trip through JSON text; asserts each step works."""
    records, why = loom_guards.to_records(guards)
    assert why is None and records is not None, why
    rebuilt, why = loom_guards.from_records(json.loads(json.dumps(records)))
    assert why is None and rebuilt is not None, why
    return rebuilt


def same_verdicts(build, original: list, rebuilt: list, frames: list) -> list[bool]:
    """Each frame's verdict from both guard lists, asserted equal (and the guard that fails)."""
    a, b = build(original), build(rebuilt)
    out = []
    for frame in frames:
        ok = a(frame)
        assert b(frame) is ok, (frame, a.why_failed(frame), b.why_failed(frame))
        why_a, why_b = a.why_failed(frame), b.why_failed(frame)
        if not ok:  # the same guard fails (its text may differ: a frozenset prints in hash order)
            assert original.index(why_a.guard) == rebuilt.index(why_b.guard), (why_a, why_b)
        out.append(ok)
    return out

"""Every guard holds on the frame it was built from: an identical second call is a cache hit."""

from __future__ import annotations

import warnings

import pytest
import torch

import loom
import loom_guards


class Scaled:
    @staticmethod
    def factor():
        return 2.0

    @classmethod
    def offset(cls):
        return 1.0

    def run(self, x):
        return x * self.factor() + self.offset() + type(self).factor()


SCALED = Scaled()
LIMIT = 3


def through_static_and_class_methods(x):
    return SCALED.run(x)


def test_an_identical_second_call_never_recompiles():
    compiled = loom.compile(through_static_and_class_methods, backend="eager")
    x = torch.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the self-check below would warn
        assert torch.equal(compiled(x), through_static_and_class_methods(x))
        assert torch.equal(compiled(x), through_static_and_class_methods(x))
    stats = loom.stats()
    assert stats["frames_compiled"] == 1 and stats["recompiles"] == 0 and stats["cache_hits"] == 1, stats


def test_guards_that_fail_on_their_own_frame_are_an_internal_error(monkeypatch):
    real_compile = loom_guards.compile

    def never_passes(guards):
        return real_compile([*guards, loom_guards.ConstantMatch(loom_guards.Global("LIMIT"), 4)])  # LIMIT is 3

    monkeypatch.setattr(loom_guards, "compile", never_passes)
    x = torch.ones(2)
    with pytest.raises(loom.InternalError, match="do not hold on the frame they were built from"):
        loom.compile(through_static_and_class_methods, options={"raise_on_internal_error": True}, backend="eager")(x)

"""``os.fspath``'s polyfill against the real one natively, and traced in a frame (one graph, no break)."""

from __future__ import annotations

import os
import pathlib

import pytest
import torch

from loom_symbolic import polyfills, translate_function


class _Path:
    def __init__(self, value):
        self.value = value

    def __fspath__(self):
        return self.value


class _RaisesInside:
    def __fspath__(self):
        raise AttributeError("inside")


def _outcome(fn, arg):
    try:
        return ("value", fn(arg))
    except Exception as exc:
        return ("raised", type(exc), str(exc))


@pytest.mark.parametrize("arg", [".", b"a", pathlib.PurePosixPath("/tmp/x"), _Path("p"), _Path(b"q"), _Path(3), 3,
                                 None, _RaisesInside()])
def test_fspath_matches_os(arg):
    assert _outcome(polyfills.replacement_for(os.fspath), arg) == _outcome(os.fspath, arg)


def test_fspath_traced_is_one_graph():
    def f(x):
        return torch.sin(x), os.fspath("."), os.fspath(b"a"), os.fspath(_Path("p"))

    result = translate_function(f, torch.ones(3))
    assert (len(result.graphs), result.breaks) == (1, [])

"""``with torch.nn.attention.sdpa_kernel(backends):`` (issue 29): a region of the graph that enters a real
one around the attention, as torch.compile records it; the backend flags are eager's inside and after the
block, and a break inside costs one break (the resume function's graph re-enters the region)."""

from __future__ import annotations

import io

import pytest
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import loom

_SINK = io.StringIO()


def _flags():
    return torch.backends.cuda.math_sdp_enabled(), torch.backends.cuda.flash_sdp_enabled()


def block(x):
    q = x.reshape(1, 1, 2, 3)
    with sdpa_kernel([SDPBackend.MATH]):
        out = torch.nn.functional.scaled_dot_product_attention(q, q, q)
        inside = torch.backends.cuda.flash_sdp_enabled()
    return out, inside, _flags()


def break_inside(x):
    q = x.reshape(1, 1, 2, 3)
    with sdpa_kernel(SDPBackend.MATH):
        print("break", file=_SINK)
        out = torch.nn.functional.scaled_dot_product_attention(q, q, q)
    return out, _flags()


@pytest.mark.parametrize(("fn", "graphs"), [(block, 1), (break_inside, 2)])
def test_sdpa_kernel_is_a_region_with_eagers_flags(fn, graphs):
    x = torch.arange(6.0)
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    expected = fn(x)
    for _ in range(2):
        actual = compiled(x)
        assert _flags() == (True, True)
        torch.testing.assert_close(actual[0], expected[0])
        assert actual[1:] == expected[1:]
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, graphs - 1), stats

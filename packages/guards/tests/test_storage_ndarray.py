"""``StorageOverlap`` over NumPy ndarrays: an array stands for the tensor ``torch.from_numpy`` makes of it
(same bytes), so it overlaps exactly where that tensor's storage would."""

from __future__ import annotations

import pytest
import torch

from loom_guards import Local, StorageOverlap, overlapping_pairs

np = pytest.importorskip("numpy")

A, B = Local("a"), Local("b")


def _as_tensor(value):
    return torch.from_numpy(value) if isinstance(value, np.ndarray) else value


@pytest.mark.parametrize("case", ["separate", "same_buffer", "array_of_tensor", "disjoint_views",
                                  "touching_views", "strided_view", "transposed", "empty"])
def test_array_spans_match_from_numpy(case):
    """The pairs found on arrays are those found on ``torch.from_numpy`` of them: the compiled
    graph's example is that tensor, and the guard reads the array at every call."""
    big = np.arange(20, dtype=np.float32).reshape(4, 5)
    t = torch.arange(6.0)
    pair = {
        "separate": (np.ones(3, np.float32), torch.ones(3)),
        "same_buffer": (big, torch.from_numpy(big[2:])),
        "array_of_tensor": (t[2:].numpy(), t),
        "disjoint_views": (big[:2], big[2:]),
        "touching_views": (big[:2, :3], big[1:, 3:]),  # the spans meet at one byte boundary
        "strided_view": (big[::2], big[1]),
        "transposed": (big.T, torch.from_numpy(big[3:])),
        "empty": (big[:0], big),
    }[case]
    assert overlapping_pairs(pair) == overlapping_pairs([_as_tensor(v) for v in pair])


def test_negative_strides_reach_below_the_data_pointer():
    big = np.arange(10, dtype=np.int64)
    assert overlapping_pairs([big[::-1][:3], big[9:]]) == {(0, 1)}  # the reversed view starts at big[9]
    assert overlapping_pairs([big[::-1][:3], big[:7]]) == frozenset()


def test_guard_on_arrays(build):
    check = build([StorageOverlap([A, B], [(0, 1)])])
    x = torch.zeros(4)
    assert check({"a": x, "b": x.numpy()})
    assert not check({"a": x, "b": np.zeros(4, np.float32)})  # no longer shared: a different graph
    none = build([StorageOverlap([A, B])])
    assert none({"a": x, "b": np.zeros(4, np.float32)})
    assert not none({"a": x, "b": x[1:].numpy()})
    assert not none({"a": x, "b": np.float32(1.0)})  # not memory it can place: fails, does not raise
    assert not none({"a": x, "b": [1.0]})

"""``int.from_bytes``, ``float.fromhex``, ``bytes.fromhex``: alternative constructors read from a builtin
type are folded on constant arguments. The read was a graph break at ``LOAD_METHOD`` that no resume
function could follow, so the whole frame ran uncompiled."""

import pytest
import torch
from harness import check


def from_bytes_and_hex(x):
    n = int.from_bytes(b"\x01\x00", "big") + int.from_bytes(b"\x02", byteorder="little", signed=True)
    return x * n + float.fromhex("0x1.8p1"), bytes.fromhex("ff 00")


def test_alternative_constructors_are_folded():
    check(from_bytes_and_hex, torch.ones(3))


def wrong_byteorder(x):
    try:
        int.from_bytes(b"\x01", "middle")
    except ValueError as exc:
        return x + 1, str(exc)
    return x


@pytest.mark.parametrize("fn", [wrong_byteorder])
def test_their_errors_are_python_s(fn):
    check(fn, torch.ones(3), graphs=None)

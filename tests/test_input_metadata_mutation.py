"""In-place ops that change a graph input's metadata (``x.unsqueeze_(0)``, ``t_``, ``squeeze_``,
``transpose_``, ``as_strided_``, ``resize_``) under symbolic sizes: the backend must compile for the layout
the input arrives with, not the one the trace left it in (the FakeTensor the trace goes on with is changed
in place). ``aot_eager`` returned ``x.shape`` as ``(1, 1)`` and the ``c`` backend raised IndexError once a
second size made the frame dynamic, loom's default."""

from __future__ import annotations

import pytest
import torch

import loom


def unsqueeze_in_place(x):
    x.unsqueeze_(0)
    return x + 1, x.shape


def transpose_in_place(x):
    x.t_()
    return x * 2, x.shape, x.stride()


def squeeze_then_unsqueeze(x):
    x.unsqueeze_(1)
    y = x.sum(1)
    x.squeeze_(1)
    return y, x.shape


def swap_dims_in_place(x):
    x.transpose_(0, 1)
    return x.contiguous() - 1, x.shape


def as_strided_in_place(x):
    x.as_strided_((x.shape[0] // 2,), (2,))
    return x * 3, x.shape


PROGRAMS = [
    (unsqueeze_in_place, lambda n: torch.arange(float(n))),
    (transpose_in_place, lambda n: torch.arange(float(2 * n)).reshape(2, n)),
    (squeeze_then_unsqueeze, lambda n: torch.arange(float(n))),
    (swap_dims_in_place, lambda n: torch.arange(float(3 * n)).reshape(n, 3)),
    (as_strided_in_place, lambda n: torch.arange(float(2 * n))),
]


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return a.shape == b.shape and a.stride() == b.stride() and torch.equal(a, b)
    if isinstance(a, tuple):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
@pytest.mark.parametrize("dynamic", [True, None], ids=["dynamic", "automatic"])
@pytest.mark.parametrize("program, make", PROGRAMS, ids=[p.__name__ for p, _ in PROGRAMS])
def test_an_input_changed_in_place_keeps_eagers_layout_and_answers(program, make, backend, dynamic):
    loom.reset()
    compiled = loom.compile(program, backend=backend, dynamic=dynamic, options={"strict": True})
    for n in (4, 6, 10):  # automatic: the second size makes the frame dynamic
        ours, theirs = make(n), make(n)
        got, want = compiled(ours), program(theirs)
        assert _same(got, want), (n, got, want)
        assert ours.shape == theirs.shape and ours.stride() == theirs.stride()


def sigmoid_into_a_resized_local(x):
    out = torch.tensor(0.0)
    torch.sigmoid(torch.outer(x, x), out=out)
    return out, out.numel()


def sort_into_resized_locals(x):
    values, indices = torch.empty(0), torch.empty(0, dtype=torch.long)
    torch.sort(torch.outer(x, x), dim=1, out=(values, indices))
    return values.shape, indices.sum(), values.numel()


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
@pytest.mark.parametrize("program", [sigmoid_into_a_resized_local, sort_into_resized_locals])
def test_an_out_tensor_resized_under_symbolic_sizes_gives_eagers_sizes(program, backend):
    """``out=`` resizing its tensor: AOTAutograd's functional graph lost the resize under symbolic sizes
    (``numel()`` read 1, ``sort``'s lowering raised), so such a call runs as the program runs there."""
    loom.reset()
    compiled = loom.compile(program, backend=backend, dynamic=True, options={"strict": True})
    for n in (3, 5):
        x = torch.arange(float(n))
        assert _same(compiled(x), program(x))

"""Views are folded into indexing: on stored buffers they are new strides over the same memory, on lazy
values remapped indices; neither ever copies. Every view rule is checked against eager ATen."""

from __future__ import annotations

import pytest
import torch

aten = torch.ops.aten

VIEWS = {
    "view_split": lambda x: aten.view.default(x, [2, 3, 4, 5]),
    "view_merge": lambda x: aten.view.default(x, [6, 20]),
    "view_flat": lambda x: aten.view.default(x, [-1]),
    "unsafe_view": lambda x: aten._unsafe_view.default(x, [3, 40]),
    "permute": lambda x: aten.permute.default(x, [2, 0, 1]),
    "transpose": lambda x: aten.transpose.int(x, 0, 2),
    "expand": lambda x: aten.expand.default(aten.unsqueeze.default(x, 1), [6, 3, 4, 5]),
    "squeeze_unsqueeze": lambda x: aten.squeeze.dim(aten.unsqueeze.default(x, 2), 2),
    "slice": lambda x: aten.slice.Tensor(x, 1, 1, 4),
    "slice_step": lambda x: aten.slice.Tensor(x, 2, 0, 5, 2),
    "slice_negative": lambda x: aten.slice.Tensor(x, 0, -3, None),
    "select": lambda x: aten.select.int(x, 1, -1),
    "diagonal": lambda x: aten.diagonal.default(x, 1, 1, 2),
    "split": lambda x: aten.split.Tensor(x, 2, 0),
    "split_with_sizes": lambda x: aten.split_with_sizes.default(x, [1, 3], 1),
    "unbind": lambda x: aten.unbind.int(x, 1),
    "alias": lambda x: aten.alias.default(x),
    "flip": lambda x: aten.flip.default(x, [0, 2]),
    "repeat": lambda x: aten.repeat.default(x, [2, 1, 1, 2]),
}


def _input(layout):
    x = torch.randn(6, 4, 5)
    if layout == "permuted":
        x = torch.randn(5, 6, 4).permute(1, 2, 0)
    return x


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("where", ["buffer", "lazy"])
def test_view_rules(name, where, check):
    view = VIEWS[name]
    if where == "buffer":
        fn = lambda x: view(x)
    else:
        fn = lambda x: view(aten.mul.Tensor(x, 2.0))
    x = _input("contiguous")
    if name.startswith(("view_", "unsafe")):
        x = x.reshape(6, 4, 5)
    check.aten(fn, x)
    # the same view consumed by a pointwise op, on a non-contiguous input
    if name.startswith("view") or name == "unsafe_view":
        return  # eager's view of a permuted tensor would not be a view
    several = name in ("split", "split_with_sizes", "unbind")
    consume = lambda x: aten.add.Tensor(view(x)[1] if several else view(x), 1.0)
    check.aten(consume, _input("permuted"))


def test_views_of_inputs_make_no_kernel(check):
    compiled = check.aten(lambda x: (aten.permute.default(x, [1, 0]), aten.slice.Tensor(x, 0, 1, 3)), torch.randn(4, 3))
    assert compiled.kernels == []
    out = compiled(check.device(torch.randn(4, 3)))
    x = check.device(torch.randn(4, 3))
    assert compiled(x)[0].data_ptr() == x.data_ptr()  # a view, not a copy
    assert out[1].shape == (2, 3)


def test_view_chain_on_a_lazy_value_is_one_kernel(check):
    def fn(x):
        y = aten.exp.default(x)
        y = aten.permute.default(aten.view.default(y, [2, 3, 4]), [2, 0, 1])
        return aten.add.Tensor(y, 1.0)

    compiled = check.aten(fn, torch.randn(6, 4))
    assert len(compiled.kernels) == 1


def test_reshape_of_a_transposed_buffer_is_fused_not_copied(check):
    def fn(x):
        return aten.mul.Tensor(aten._unsafe_view.default(aten.clone.default(aten.t.default(x), memory_format=torch.contiguous_format), [12]), 3.0)

    compiled = check.aten(fn, torch.randn(3, 4))
    assert len(compiled.kernels) == 1 and len(compiled.kernels[0].stored) == 1


def test_a_strided_input_is_read_in_place(check):
    x = torch.randn(8, 10)[::2, 1::3]  # offset, two strides
    compiled = check.aten(lambda a: aten.sin.default(a), x)
    assert len(compiled.kernels) == 1
    assert compiled.kernels[0].bytes_read < x.untyped_storage().nbytes()  # only the window is counted


def test_an_extern_gets_a_view_not_a_copy(check):
    def fn(a, b):
        return aten.mm.default(aten.t.default(a), aten.permute.default(b, [1, 0]))

    compiled = check.aten(fn, torch.randn(5, 3), torch.randn(4, 5), externs=1)
    assert compiled.kernels == []
    assert "reinterpret(arg0" in compiled.source


def test_as_strided_of_a_computed_buffer(check):
    def fn(x):
        y = aten.mul.Tensor(x, 2.0)
        z = aten.mm.default(y, y)  # stores y
        return aten.as_strided.default(aten.add.Tensor(z, 1.0), [2, 2], [1, 2], 1)

    check.aten(fn, torch.randn(3, 3), externs=1)

"""Buffer reuse in the C backend's host code (kernels/reuse.py): a kernel output takes over the storage
of a buffer whose last use has passed, and a graph keeps its large buffers' storage from one call to the
next, taking it again only when nothing else holds it. Results must equal eager's and never alias a
tensor the caller or autograd still holds."""

from __future__ import annotations

import pytest
import torch

import loom_backends
from loom_backends.kernels.config import config

from .conftest import compile_aten

aten = torch.ops.aten
N = (128, 256)  # 128 KiB of float32: above the smallest buffer a graph keeps between calls

_lib = torch.library.Library("loomreusetest", "DEF")
_lib.define("ext(Tensor x) -> Tensor")  # an extern call (no lowering rule) that returns a new tensor
_lib.define("alias(Tensor(a) x) -> Tensor(a)")  # ... and one that returns a view of its input
_lib.impl("ext", lambda x: x.sin() + 1, "CPU")
_lib.impl("ext", lambda x: torch.empty_like(x), "Meta")
_lib.impl("alias", lambda x: x.view(x.shape), "CPU")
_lib.impl("alias", lambda x: x.view(x.shape), "Meta")
ext, alias = torch.ops.loomreusetest.ext.default, torch.ops.loomreusetest.alias.default


def chain(x, y):
    a = aten.mul.Tensor(x, 2.0)  # a kernel's buffer ...
    b = ext(a)  # ... read last by an extern call
    c = aten.add.Tensor(b, y)  # a later kernel's buffer of the same size: takes a's storage
    d = ext(c)
    return (aten.mul.Tensor(d, 3.0), aten.sub.Tensor(d, x))


def aliased(x, y):
    a = aten.mul.Tensor(x, 2.0)
    v = alias(a)  # v is a's storage: a's name dies here, its memory does not
    b = ext(aten.add.Tensor(y, 1.0))
    return (v, aten.add.Tensor(b, 1.0))


def test_a_dead_buffer_backs_a_later_kernel_output():
    x, y = torch.randn(N), torch.randn(N)
    compiled = compile_aten(chain, x, y, generator="c")
    assert "reuses buf" in compiled.host_source
    want = chain(x, y)
    for _ in range(3):
        got = compiled(x, y)
        torch.testing.assert_close(got, want)
        assert got[0].data_ptr() != got[1].data_ptr()


def test_a_buffer_an_extern_call_may_return_a_view_of_is_not_reused():
    x, y = torch.randn(N), torch.randn(N)
    compiled = compile_aten(aliased, x, y, generator="c")
    want = aliased(x, y)
    first = compiled(x, y)
    torch.testing.assert_close(first, want)
    second = compiled(x, y)
    torch.testing.assert_close(first, want)  # the first call's outputs are still the caller's
    torch.testing.assert_close(second, want)
    ptrs = {t.data_ptr() for t in (*first, *second)}
    assert len(ptrs) == 4


def test_a_returned_buffer_is_taken_again_only_once_nothing_holds_it():
    x, y = torch.randn(N), torch.randn(N)
    compiled = compile_aten(chain, x, y, generator="c")
    want = chain(x, y)
    held = compiled(x, y)
    again = compiled(x, y)  # `held` is alive: fresh storage
    assert {t.data_ptr() for t in held}.isdisjoint(t.data_ptr() for t in again)
    ptr = again[0].data_ptr()
    del again
    other = torch.empty(N)  # the graph kept the memory: not handed to the next allocation of its size
    third = compiled(x, y)  # nothing holds the second call's outputs any more: their storage comes back
    assert other.data_ptr() != ptr and third[0].data_ptr() == ptr
    torch.testing.assert_close(held, want)
    torch.testing.assert_close(third, want)


def test_a_held_storage_object_keeps_its_memory_from_being_taken():
    x, y = torch.randn(N), torch.randn(N)
    compiled = compile_aten(chain, x, y, generator="c")
    want = chain(x, y)
    out = compiled(x, y)[0]
    storage, ptr = out.untyped_storage(), out.data_ptr()
    del out
    again = compiled(2 * x, y)[0]
    assert again.data_ptr() != ptr
    kept = torch.empty(0).set_(storage).view(N)
    torch.testing.assert_close(kept, want[0])


def test_nothing_is_kept_when_switched_off(monkeypatch):
    monkeypatch.setattr(config, "c_keep_buffer_bytes", 0)
    x, y = torch.randn(N), torch.randn(N)
    compiled = compile_aten(chain, x, y, generator="c")
    assert "_pool[" not in compiled.host_source
    torch.testing.assert_close(compiled(x, y), chain(x, y))


class Net(torch.nn.Module):
    """Convolution, batch norm (train mode), ReLU: the forward saves kernel outputs for the backward."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(16)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x))).mean(dim=(2, 3))


@pytest.mark.parametrize("backward_between", [True, False])
def test_saved_tensors_are_not_taken_while_autograd_holds_them(backward_between):
    torch.manual_seed(0)
    net, reference = Net(), Net()
    reference.load_state_dict(net.state_dict())
    x1, x2 = torch.randn(4, 3, 32, 32), torch.randn(4, 3, 32, 32)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(net), [x1])
    for _ in range(2):  # the second round runs on storage kept from the first
        out1 = compiled(x1)
        if backward_between:
            out1.sum().backward()
        out2 = compiled(x2)  # two forwards alive at once: the second must not take the first's saved tensors
        if not backward_between:
            out1.sum().backward()
        (out2 * 2).sum().backward()
        ref1 = reference(x1)
        ref1.sum().backward()
        ref2 = reference(x2)
        (ref2 * 2).sum().backward()
        torch.testing.assert_close(out1, ref1)
        torch.testing.assert_close(out2, ref2)
        for p, q in zip(net.parameters(), reference.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5)
    forward, backward = (
        [g.compiled for g in compiled.graphs if g.kind == kind] for kind in ("forward", "backward")
    )
    assert "storage_shared" in forward[0].host_source


def transposed_chain(x):
    a = aten.mul.Tensor(x, 2.0)  # [128, 256]
    b = ext(a)
    c = aten.add.Tensor(aten.t.default(b), 1.0)  # [256, 128]: takes a's storage reinterpreted, dies inside
    return (aten.sum.dim_IntList(ext(c), [1]),)  # a smaller output: c's chain ends inside the graph


def test_storage_taken_over_under_another_layout_comes_back_next_call():
    x = torch.randn(N)
    compiled = compile_aten(transposed_chain, x, generator="c")
    assert "reinterpret(buf" in compiled.host_source and "] = buf2.detach()  # kept" in compiled.host_source
    (pool,) = (cell.cell_contents for cell in compiled.call.__closure__ if isinstance(cell.cell_contents, dict))
    want = transposed_chain(x)
    torch.testing.assert_close(compiled(x), want)
    kept = {slot: t.data_ptr() for slot, t in pool.items()}
    assert kept  # the chain's storage went back to the pool at its last use ...
    torch.testing.assert_close(compiled(x), want)
    assert {slot: t.data_ptr() for slot, t in pool.items()} == kept  # ... and was taken again, not replaced

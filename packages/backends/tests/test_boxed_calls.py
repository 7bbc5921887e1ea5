"""Compiled graphs take their inputs boxed (AOTAutograd's convention: ``f(args)``, the list emptied) and
delete each input after its last use: a backward frees the activations its forward saved as it goes, as
eager's autograd does, instead of holding all of them until it returns (which made glibc give the memory
back to the system after every training step and fault it in again on the next)."""

from __future__ import annotations

import weakref

import pytest
import torch

import loom_backends

from .conftest import graph_compiler

aten = torch.ops.aten
SEEN: list[bool] = []  # probe's record: was the graph's first input already freed when probe ran?
FIRST: list[weakref.ref] = []

_lib = torch.library.Library("loomboxedtest", "DEF")
_lib.define("probe(Tensor x) -> Tensor")


def _probe(x: torch.Tensor) -> torch.Tensor:
    SEEN.append(bool(FIRST) and FIRST[0]() is None)
    return x + 1


def _remember(x: torch.Tensor) -> torch.Tensor:
    out = x + 1
    FIRST[:] = [weakref.ref(out)]
    return out


_lib.define("remember(Tensor x) -> Tensor")
for _name, _fn in (("probe", _probe), ("remember", _remember)):
    _lib.impl(_name, _fn, "CPU")
    _lib.impl(_name, lambda x: torch.empty_like(x), "Meta")


def graph(x, y):
    a = aten.mul.Tensor(x, 2.0)  # x's last use
    b = torch.ops.loomboxedtest.probe.default(a)  # an extern call: no rule for it
    return (aten.add.Tensor(b, y),)


@pytest.mark.parametrize("which", ["c", "triton"])
def test_an_input_is_freed_after_its_last_use(which):
    x, y = torch.randn(8, 16), torch.randn(8, 16)
    compiled = graph_compiler(which)(torch.fx.symbolic_trace(graph), [x, y])
    assert compiled.fallback_reason is None
    FIRST.clear()
    want = graph(x, y)
    args = [torch.randn(8, 16), y]
    args[0].copy_(x)
    FIRST[:] = [weakref.ref(args[0])]
    SEEN.clear()
    boxed = compiled.boxed()
    assert boxed._boxed_call
    (got,) = boxed(args)
    assert args == [] and SEEN == [True]  # the list was emptied, x deleted before the extern call ran
    torch.testing.assert_close(got, want[0])
    # called unboxed (tests, tools), the caller's tensors stay its own
    (again,) = compiled(x, y)
    torch.testing.assert_close(again, want[0])


def test_a_graph_running_through_aten_is_boxed_too():
    compiled = graph_compiler("c")(torch.fx.symbolic_trace(lambda x: (x.numpy(),)), [torch.randn(3)])
    assert compiled.fallback_reason is not None
    args = [torch.arange(3.0)]
    assert list(compiled.boxed()(args)[0]) == [0.0, 1.0, 2.0]


def test_a_backward_deletes_saved_activations_as_it_goes():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8), torch.nn.Tanh())
    x = torch.randn(4, 16, requires_grad=True)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(net), [x])
    out = compiled(x)
    out.sum().backward()
    reference = net(x.detach().requires_grad_())
    torch.testing.assert_close(out, reference)
    (backward,) = [g.compiled for g in compiled.graphs if g.kind == "backward"]
    body = backward.host_source.split("args.clear()", 1)[1]
    deleted = [line for line in body.splitlines() if line.strip().startswith("del ") and "arg" in line]
    assert deleted and "return" in body.split(deleted[0], 1)[1]  # an input deleted before the graph returns


def extern_then_kernel(x):
    a = torch.ops.loomboxedtest.remember.default(x)  # an extern call's output ...
    b = aten.mul.Tensor(a, 2.0)  # ... read last by a kernel
    return (torch.ops.loomboxedtest.probe.default(b),)


@pytest.mark.parametrize("which", ["c", "triton"])
def test_an_extern_output_is_freed_after_its_last_use(which):
    x = torch.randn(8, 16)
    compiled = graph_compiler(which)(torch.fx.symbolic_trace(extern_then_kernel), [x])
    assert compiled.fallback_reason is None and len(compiled.externs) == 2
    SEEN.clear()
    (got,) = compiled(x)
    assert SEEN == [True]  # remember's output was gone when probe ran
    torch.testing.assert_close(got, (x + 1) * 2 + 1)

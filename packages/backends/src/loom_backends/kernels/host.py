"""The host side of a compiled graph, shared by the code generators: one Python module with a ``call`` that runs it.

``make_call(<constants>)`` returns ``call(args)``, which takes the list of the graph's inputs and empties it
(AOTAutograd's boxed calling convention: ``call._boxed_call``; each input is deleted after its last use, so
that the activations a forward saved are freed as the backward goes, as eager's autograd frees them), checks
the input layouts the kernels were generated for, allocates buffers (or reuses dead ones and, where the
code generator keeps storage between calls, takes kept ones: ``reuse.py``), launches the kernels, makes the extern
ATen calls and returns the graph's outputs (views of buffers where the graph returns views). Reading it top to bottom is reading
the compiled graph. A code generator subclasses :class:`HostCodegen` for its header (imports, kernels)
and for how a kernel is launched (``_kernel_lines``).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import sympy
import torch
from torch.utils import _pytree as pytree

from . import symbols
from .graph import ExternScalar, GraphLowering, HostScalar, _RuntimeInput
from .ir import BufferView, ComputedBuffer, ConstantBuffer, ExternBuffer
from .reuse import ReusePlan, escaping, keep_between_calls, plan_reuse
from .scheduler import ExternStep, FusedKernel, Step


def _size(value: Any) -> str:
    """Host source for a size: an int, or an expression over the size symbols (``3*s0``)."""
    i = symbols.static_int(value)
    return str(i) if i is not None else symbols.texpr(value)


def _sizes(values: Any) -> str:
    """Host source for a tuple of sizes; ``(2, 3)`` exactly as Python prints a tuple of ints."""
    items = [_size(v) for v in values]
    return f"({', '.join(items)}{',' if len(items) == 1 else ''})"


_HOST_OPERATORS = {
    operator.truediv: "{0} / {1}",
    operator.mul: "{0} * {1}",
    operator.add: "{0} + {1}",
    operator.sub: "{0} - {1}",
    operator.neg: "-{0}",
    operator.pow: "{0} ** {1}",
    torch.sym_float: "float({0})",
}


def _device(device: torch.device) -> str:
    return f"torch.device({device.type!r}, {device.index})" if device.index is not None else f"torch.device({device.type!r})"


class HostCodegen:
    """Writes the host module of one graph; subclasses say how kernels are declared and launched."""

    def __init__(self, graph: GraphLowering, steps: list[Step], kernels: dict[int, Any], name: str) -> None:
        self.graph = graph
        self.steps = steps
        self.kernels = kernels
        self.name = name
        self.constants: list[Any] = []
        self.constant_names: list[str] = []
        self._scalar_calls: set[str] | None = None  # see _scalar_results
        self._viewed: set[str] | None = None  # see _viewed_buffers
        self.reuse = ReusePlan()  # filled by generate()
        self.keep_bytes = 0  # how much of its buffers' storage a graph keeps between calls (reuse.py)

    # ------------------------------------------------------------------------------------- values
    def const(self, value: Any, prefix: str = "const") -> str:
        for name, known in zip(self.constant_names, self.constants):
            if known is value:
                return name
        name = f"_{prefix}{len(self.constants)}"
        self.constants.append(value)
        self.constant_names.append(name)
        return name

    def view_text(self, view: BufferView) -> str:
        if view.is_whole_buffer():
            return view.buffer.name
        lay = view.layout
        return f"reinterpret({view.buffer.name}, {_sizes(lay.size)}, {_sizes(lay.stride)}, {_size(lay.offset)})"

    def arg_text(self, value: Any) -> str:
        if isinstance(value, BufferView):
            return self.view_text(value)
        if isinstance(value, ExternScalar):
            return value.call.name + "".join(f"[{i}]" for i in value.path)
        if isinstance(value, _RuntimeInput):
            return f"arg{value.position}"
        if isinstance(value, (list, tuple)):
            inner = ", ".join(self.arg_text(v) for v in value)
            return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
        if value is None or isinstance(value, (bool, int, str)):
            return repr(value)
        if isinstance(value, sympy.Expr):  # a size computed by the graph (s0 * 3)
            return _size(value)
        if isinstance(value, float):
            return repr(value) if math.isfinite(value) else f'float("{value}")'
        if isinstance(value, torch.dtype):
            return str(value)
        if isinstance(value, torch.device):
            return _device(value)
        if isinstance(value, (torch.memory_format, torch.layout)):
            return str(value)
        return self.const(value)

    @staticmethod
    def op_text(op: Any) -> str | None:
        if isinstance(op, torch._ops.OpOverload):
            return f"torch.ops.{op.namespace}.{op._schema.name.split('::')[-1]}.{op._overloadname}"
        return None

    # ------------------------------------------------------------------------------------ program
    def generate(self) -> str:
        g = self.graph
        lines: list[str] = []
        last_use = self._last_uses()
        keep = {v.buffer.name for v in pytree.tree_leaves(g.outputs) if isinstance(v, BufferView)}
        externs = [step.call for step in self.steps if isinstance(step, ExternStep)]
        allocations = [
            self.allocated(step, self.kernels[p]) if isinstance(step, FusedKernel) else [] for p, step in enumerate(self.steps)
        ]
        escapes = escaping(g.outputs, externs)
        self.reuse = plan_reuse(allocations, last_use, escapes)
        if self.keep_bytes > 0:
            keep_between_calls(self.reuse, allocations, escapes, keep, self.keep_bytes)
        for position, step in enumerate(self.steps):
            if isinstance(step, FusedKernel):
                lines += self._kernel_lines(step, self.kernels[position])
            else:
                lines += self._extern_lines(step)
            dead = sorted(n for n, last in last_use.items() if last == position and n not in keep)
            dead = [n for n in dead if not isinstance(g.buffers.get(n), ConstantBuffer) and n not in self.reuse.held]
            # detached: a buffer that took over another's storage by `reinterpret` is a view holding that one
            lines += [f"_pool[{self.reuse.to_pool[n]!r}] = {n}.detach()  # kept for the next call" for n in dead if n in self.reuse.to_pool]
            if dead:
                lines.append(f"del {', '.join(dead)}")
        outputs = [self.arg_text(v) for v in g.outputs]
        # a returned buffer's storage comes back next call if nothing holds it by then (detached: autograd
        # may give the returned tensor a history)
        lines += [f"_pool[{slot!r}] = {name}.detach()" for name, slot in self.reuse.at_return.items()]
        if g.output_kind == "single":
            lines.append(f"return {outputs[0]}")
        elif g.output_kind == "list":
            lines.append(f"return [{', '.join(outputs)}]")
        else:
            lines.append(f"return ({', '.join(outputs)}{',' if len(outputs) == 1 else ''})")
        check = self._size_lines() + self._input_checks()
        device = self._cuda_device()
        if device is not None:  # launch on the graph's GPU whatever the current device is
            check = [f"with torch.cuda.device({device}):", *("    " + line for line in check + lines)]
            lines = []
        args = [f"arg{i}" for i in range(len(g.inputs))]
        # boxed: `call` owns the list of inputs it is given and empties it, so that an input (a tensor the
        # forward saved for the backward) is freed after its last use, not when the whole graph returns
        unpack = [f"{', '.join(args)}, = args"] if args else []
        check = [*unpack, "args.clear()", *check]
        for b in g.constants:
            self.constants.append(b.value)
            self.constant_names.append(b.name)
        body = "\n".join("        " + line for line in check + lines)
        params = ", ".join(self.constant_names)
        return (
            self.header()
            + f"\n\ndef make_call({params}):\n    _pool = {{}}\n    def call(args):\n{body}\n\n    call._boxed_call = True\n    return call\n"
        )

    def _cuda_device(self) -> int | None:
        for node in self.graph.nodes:
            if isinstance(node, ComputedBuffer) and node.device.type == "cuda":
                return node.device.index if node.device.index is not None else 0
        return None

    def _size_lines(self) -> list[str]:
        """Symbolic sizes (dynamic shapes): each size symbol, computed from the inputs of this call, then
        the floats computed from them."""
        lines = [f"{symbol.name} = {text}" for symbol, text in self.graph.sizevars.bound()]
        for scalar in self.graph.host_scalars:
            lines.append(f"{scalar.symbol.name} = {self._scalar_text(scalar)}")
        return lines

    def _scalar_text(self, scalar: HostScalar) -> str:
        def operand(v: Any) -> str:
            text = self.arg_text(v)
            return text if text.replace(".", "").replace("_", "").isalnum() else f"({text})"

        template = _HOST_OPERATORS.get(scalar.target)
        if template is not None and not scalar.kwargs:
            return template.format(*(operand(a) for a in scalar.args))
        fn = self.op_text(scalar.target) or self.const(scalar.target, "fn")
        args = [self.arg_text(a) for a in scalar.args] + [f"{k}={self.arg_text(v)}" for k, v in scalar.kwargs.items()]
        return f"{fn}({', '.join(args)})"

    def _input_checks(self) -> list[str]:
        lines = []
        for buf in self.graph.inputs:
            if buf is None:
                continue
            stride = _sizes(buf.layout.stride)
            lines.append(f"if {buf.name}.stride() != {stride}:")
            lines.append(f"    {buf.name} = restride({buf.name}, {stride})")
        return lines

    def _last_uses(self) -> dict[str, int]:
        last: dict[str, int] = {}
        for position, step in enumerate(self.steps):
            if isinstance(step, FusedKernel):
                for name in self.kernels[position].args:
                    last[name] = position
            else:
                for v in pytree.tree_leaves((step.call.args, step.call.kwargs)):
                    if isinstance(v, BufferView):
                        last[v.buffer.name] = position
                for out in step.call.outputs:
                    last.setdefault(out.name, position)
        return last

    @staticmethod
    def allocated(kernel: FusedKernel, src: Any) -> list[ComputedBuffer]:
        """The buffers the host allocates before launching ``kernel``: its outputs."""
        return [n for n in kernel.nodes if n.name in src.outputs]

    def alloc_lines(self, buf: ComputedBuffer) -> list[str]:
        """A kernel output's buffer: the storage of a dead buffer when the reuse plan says so (see
        ``reuse.py``; the dead one's name is dropped here, not at its last use), else a fresh one."""
        old = self.reuse.takes.get(buf.name)
        if old is None and buf.name in self.reuse.from_pool:
            return self._from_pool_lines(buf, self.reuse.from_pool[buf.name])
        if old is None:
            return [self._alloc(buf)]
        lay, old_lay = buf.layout, self.graph.buffers[old].layout
        if (lay.size, lay.stride) == (old_lay.size, old_lay.stride):
            return [f"{buf.name} = {old}; del {old}  # reuses {old}'s storage"]
        view = f"reinterpret({old}, {_sizes(lay.size)}, {_sizes(lay.stride)}, 0)"
        return [f"{buf.name} = {view}; del {old}  # reuses {old}'s storage"]

    def _from_pool_lines(self, buf: ComputedBuffer, slot: str) -> list[str]:
        """Take the storage kept from the last call, unless anything else (a caller's tensor, autograd's
        saved tensor) still holds it; the kept tensor has the layout of the chain's last buffer."""
        last = {**{s: n for n, s in self.reuse.to_pool.items()}, **{s: n for n, s in self.reuse.at_return.items()}}[slot]
        lay, kept = buf.layout, self.graph.buffers[last].layout
        lines = [f"{buf.name} = _pool.pop({slot!r}, None)", f"if {buf.name} is None or storage_shared({buf.name}):",
                 "    " + self._alloc(buf)]  # fmt: skip
        if (lay.size, lay.stride) != (kept.size, kept.stride):
            lines += ["else:", f"    {buf.name} = reinterpret({buf.name}, {_sizes(lay.size)}, {_sizes(lay.stride)}, 0)"]
        return lines

    def _alloc(self, buf: ComputedBuffer) -> str:
        lay = buf.layout
        return f"{buf.name} = empty_strided({_sizes(lay.size)}, {_sizes(lay.stride)}, dtype={lay.dtype}, device={_device(lay.device)})"

    def header(self) -> str:
        """The module's text before ``make_call``: imports, and the kernels where they are Python."""
        raise NotImplementedError

    def _kernel_lines(self, kernel: FusedKernel, src: Any) -> list[str]:
        """The host lines that allocate a kernel's outputs and launch it."""
        raise NotImplementedError

    def _extern_lines(self, step: ExternStep) -> list[str]:
        call = step.call
        op = self.op_text(call.op) or self.const(call.op, "op")
        args = [self.arg_text(a) for a in call.args]
        args += [f"{k}={self.arg_text(v)}" for k, v in call.kwargs.items()]
        lines = [f"{call.name} = {op}({', '.join(args)})  # {call.reason}"]
        lines += [f"{out.name} = {call.name}" + "".join(f"[{i}]" for i in out.path) for out in call.outputs]
        if call.name not in self._scalar_results():
            # the call's result holds its outputs: without this, an extern's output (a convolution's, a
            # matmul's) lived until the graph returned, whatever `del` its buffer got after its last use
            lines.append(f"del {call.name}")
        for out in call.outputs:
            if self._read_by_kernel(out) or out.name in self._viewed_buffers():
                stride = _sizes(out.layout.stride)
                lines.append(f"if {out.name}.stride() != {stride}:")
                lines.append(f"    {out.name} = restride({out.name}, {stride})")
        return lines

    def _scalar_results(self) -> set[str]:
        """Names of the extern calls a non-tensor result of which is read later (``extern3[1]``)."""
        if self._scalar_calls is None:
            leaves = pytree.tree_leaves(self.graph.outputs)
            for step in self.steps:
                if isinstance(step, ExternStep):
                    leaves += pytree.tree_leaves((step.call.args, step.call.kwargs))
            self._scalar_calls = {v.call.name for v in leaves if isinstance(v, ExternScalar)}
        return self._scalar_calls

    def _read_by_kernel(self, buf: ExternBuffer) -> bool:
        return any(buf.name in src.args for src in self.kernels.values())

    def _viewed_buffers(self) -> set[str]:
        """Names of the buffers an extern call or the graph's outputs read through a view (``reinterpret``):
        the view's strides were computed for the example tensor's layout, so an extern output read that
        way must have it (a convolution of a buffer a kernel wrote contiguously, where eager's was
        channels-last, comes out contiguous: a channel slice of it read the wrong elements)."""
        if self._viewed is None:
            leaves = pytree.tree_leaves(self.graph.outputs)
            for step in self.steps:
                if isinstance(step, ExternStep):
                    leaves += pytree.tree_leaves((step.call.args, step.call.kwargs))
            self._viewed = {v.buffer.name for v in leaves if isinstance(v, BufferView) and not v.is_whole_buffer()}
        return self._viewed

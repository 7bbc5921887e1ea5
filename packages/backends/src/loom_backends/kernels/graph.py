"""Lowering an ATen FX graph into loom's IR, one node at a time through the rules in ``lowering/``.

Each ``call_function`` node is looked up in the lowering table. A rule returns IR values (lazy
:class:`~.ir.Pointwise` values, :class:`~.ir.BufferView` s of stored buffers, or lists of them); a node
with no rule, or whose rule raises :class:`Unsupported` for these arguments, becomes an extern call to
ATen (``fallbacks.py``). The result is the list of buffers and extern calls in program order, which the
scheduler groups into kernels.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import operator
from typing import Any

import sympy
import torch
import torch.fx
from torch.utils import _pytree as pytree

from . import symbols
from .config import config
from .context import GraphUnsupported, Unsupported, lowering
from .fallbacks import fallback_reason
from .ir import (
    BufferView,
    ComputedBuffer,
    ConstantBuffer,
    ExternBuffer,
    ExternCall,
    InputBuffer,
    Layout,
    Pointwise,
    PointwiseLoops,
    ReductionLoops,
    TensorValue,
    contiguous_strides,
)
from .lowering import lookup
from .ops import record
from .sizevars import SizeVars, SymbolicSizeError, is_symbolic, tensor_is_symbolic
from .symbols import Expr

log = logging.getLogger("loom.kernels")


class ExternScalar:
    """A non-tensor result of an extern call (known only at run time)."""

    def __init__(self, call: ExternCall, path: tuple[int, ...]) -> None:
        self.call, self.path = call, path


def _dense_strides(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    dims = sorted((i for i in range(len(shape)) if shape[i] != 1), key=lambda i: stride[i])
    expected = 1
    for i in dims:
        if stride[i] != expected:
            return False
        expected *= shape[i]
    return True


class GraphLowering:
    def __init__(self, gm: torch.fx.GraphModule, example_inputs: list[Any], store_reused_math: bool = False) -> None:
        self.gm = gm
        # store a lazy value that several nodes read when computing it takes math library calls (exp, erf):
        # on a CPU each is tens of cycles, more than writing and reading the value back (the C generator)
        self.store_reused_math = store_reused_math
        self.example_inputs = example_inputs
        self.inputs: list[InputBuffer | None] = []
        self.constants: list[ConstantBuffer] = []
        self.nodes: list[ComputedBuffer | ExternCall] = []  # program order
        self.buffers: dict[str, Any] = {}
        self.outputs: list[Any] = []
        self.output_kind = "tuple"  # what the graph returns: a "tuple", a "list" or a "single" value
        self.env: dict[torch.fx.Node, Any] = {}
        self.current_node: torch.fx.Node | None = None
        self._names: dict[str, int] = {}
        self._realized: dict[int, tuple[Pointwise, BufferView]] = {}
        self._produced_by: dict[int, tuple[Pointwise, torch.fx.Node]] = {}  # id of a node's lazy value -> it, node
        self.sizevars = SizeVars()
        self.host_scalars: list[HostScalar] = []  # floats computed from sizes at the start of each call

    # ------------------------------------------------------------------------------------- naming
    def new_name(self, prefix: str) -> str:
        n = self._names.get(prefix, 0)
        self._names[prefix] = n + 1
        return f"{prefix}{n}"

    def activate(self) -> contextlib.AbstractContextManager[GraphLowering]:
        """Make this the graph :func:`~.context.current` returns (the lowering rules read it)."""
        return lowering(self)

    # ---------------------------------------------------------------------------------------- walk
    def run(self) -> GraphLowering:
        with self.activate():
            try:
                self._bind_sizes()
            except SymbolicSizeError as err:
                raise GraphUnsupported(str(err)) from err
            for node in self.gm.graph.nodes:
                self.current_node = node
                getattr(self, f"_lower_{node.op}")(node)
            self.current_node = None
        return self

    def _bind_sizes(self) -> None:
        """Name the size symbols of the inputs and say how the host computes each from them."""
        sv = self.sizevars
        found: list[tuple[Expr, str]] = []
        for position, example in enumerate(self.example_inputs):
            if isinstance(example, torch.Tensor) and tensor_is_symbolic(example):
                sv.attach(example)
                for d, size in enumerate(example.shape):
                    found.append((sv.expr(size), f"arg{position}.shape[{d}]"))
                for d, stride in enumerate(example.stride()):
                    found.append((sv.expr(stride), f"arg{position}.stride({d})"))
            elif is_symbolic(example):
                if not isinstance(example, torch.SymInt):
                    raise GraphUnsupported(f"symbolic {type(example).__name__} inputs are not lowered")
                sv.attach(example)
                found.append((sv.expr(example), f"arg{position}"))
        for expr, text in found:
            sv.bind(expr, text)
        for expr, text in found:
            sv.bind_multiple(expr, text)
        if sv.dynamic:
            sv.freeze()

    def _lower_placeholder(self, node: torch.fx.Node) -> None:
        position = len(self.inputs)
        example = self.example_inputs[position]
        if isinstance(example, torch.Tensor):
            sv = self.sizevars
            layout = Layout(
                sv.exprs(example.shape), sv.exprs(example.stride()), sympy.Integer(0), example.dtype, example.device
            )
            buf = InputBuffer(f"arg{position}", layout, position=position)
            self.buffers[buf.name] = buf
            self.inputs.append(buf)
            self.env[node] = BufferView(buf, buf.layout)
        elif isinstance(example, torch.SymInt):
            self.inputs.append(None)
            self.env[node] = self.sizevars.value(example)
        else:
            self.inputs.append(None)
            self.env[node] = _RuntimeInput(position)

    def _lower_get_attr(self, node: torch.fx.Node) -> None:
        value = operator.attrgetter(node.target)(self.gm)
        if isinstance(value, torch.Tensor):
            buf = ConstantBuffer(self.new_name("const"), Layout.of_tensor(value), value=value)
            self.buffers[buf.name] = buf
            self.constants.append(buf)
            self.env[node] = BufferView(buf, buf.layout)
        else:
            self.env[node] = value

    def _lower_call_module(self, node: torch.fx.Node) -> None:
        raise GraphUnsupported("call_module nodes: loom's kernel backends take ATen graphs (through AOTAutograd)")

    def _lower_call_method(self, node: torch.fx.Node) -> None:
        raise GraphUnsupported("call_method nodes: loom's kernel backends take ATen graphs (through AOTAutograd)")

    def _lower_call_function(self, node: torch.fx.Node) -> None:
        if self.sizevars.dynamic and self._lower_size_arithmetic(node):
            return
        args, kwargs = pytree.tree_map(self._lookup, (node.args, node.kwargs))
        if node.target is operator.getitem:
            self.env[node] = args[0][args[1]]
            return
        self.env[node] = self.lower_op(node.target, args, kwargs)
        if isinstance(self.env[node], Pointwise):  # stored later (for an extern call): in eager's strides
            self._produced_by[id(self.env[node])] = (self.env[node], node)  # kept alive: ids stay unique
        self._maybe_realize_on_reuse(node)

    def _lower_size_arithmetic(self, node: torch.fx.Node) -> bool:
        """A node computing a size (``sym_size``, ``s0 * 3``): its value is the expression its meta holds."""
        val = node.meta.get("val")
        if isinstance(val, torch.SymInt):
            expr = self.sizevars.try_expr(val)
            if expr is None:
                return False  # e.g. a size read back from a tensor (unbacked): an extern call computes it
            self.env[node] = int(expr) if isinstance(expr, sympy.Integer) else expr
            return True
        if isinstance(val, torch.SymFloat) and is_symbolic(val):
            self.env[node] = self._host_scalar(node)
            return True
        if isinstance(val, torch.SymBool) and is_symbolic(val):
            raise GraphUnsupported(f"symbolic bools ({node.target}) are not lowered")
        return False

    def _host_scalar(self, node: torch.fx.Node) -> sympy.Symbol:
        """A float computed from sizes (``s0 / 3``, a batch norm's element count): the host computes it
        once per call, before any step, and kernels take it as an argument (``f0``)."""
        args, kwargs = pytree.tree_map(self._lookup, (node.args, node.kwargs))
        for leaf in pytree.tree_leaves((args, kwargs)):
            if not isinstance(leaf, (bool, int, float, sympy.Expr)):
                raise GraphUnsupported(f"a symbolic float computed from {type(leaf).__name__} ({node.target})")
        symbol = sympy.Symbol(f"f{len(self.host_scalars)}", real=True)
        self.host_scalars.append(HostScalar(symbol, node.target, tuple(args), dict(kwargs)))
        return symbol

    def _lower_output(self, node: torch.fx.Node) -> None:
        (result,) = node.args
        flat = result if isinstance(result, (list, tuple)) else [result]
        self.output_kind = "list" if isinstance(result, list) else ("tuple" if isinstance(result, tuple) else "single")

        def output(item: Any, value: Any) -> Any:
            if isinstance(value, TensorValue):
                hint = self._meta_strides(item, value.shape) if isinstance(item, torch.fx.Node) else None
                return self.realize(value, strides=hint)
            if isinstance(value, (list, tuple)):  # an op returning several tensors, returned as they are
                return type(value)(output(None, v) for v in value)
            return value

        results: list[Any] = [None] * len(flat)
        views, hidden_bases = _views_of_other_outputs(flat, node.graph)  # done after their bases, whatever the order
        for i, item in enumerate(flat):
            if i not in views and i not in hidden_bases:
                results[i] = output(item, self._lookup(item) if isinstance(item, torch.fx.Node) else item)
        for i, base in views.items():
            results[i] = self._view_of_output(flat[i], flat[base], results[base])
        for i, base_node in hidden_bases.items():  # views of one value the graph does not return
            results[i] = self._view_of_output(flat[i], base_node, output(base_node, self._lookup(base_node)))
        self.outputs.extend(results)

    def _view_of_output(self, item: torch.fx.Node, base_item: torch.fx.Node, base: Any) -> Any:
        """Output ``item``, which eager returns as a view of output ``base_item``: a window onto the buffer
        ``base`` was stored in (AOTAutograd trusts the compiled graph to return such views as views)."""
        if not isinstance(base, BufferView):
            return self.realize(self._lookup(item))
        val, base_val = item.meta["val"], base_item.meta["val"]
        if val.dtype != base_val.dtype:  # c.real of an output c: a window counts in its buffer's elements
            raise GraphUnsupported(f"an output is a {val.dtype} view of a {base_val.dtype} output")
        size, stride = self.sizevars.exprs(val.shape), self.sizevars.exprs(val.stride())
        (offset,) = self.sizevars.exprs((val.storage_offset() - base_val.storage_offset(),))
        layout = Layout(tuple(size), tuple(stride), base.layout.offset + offset, val.dtype, val.device)
        return BufferView(base.buffer, layout)

    def _lookup(self, x: Any) -> Any:
        return self.env[x] if isinstance(x, torch.fx.Node) else x

    # -------------------------------------------------------------------------------------- lower
    def lower_op(self, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        rule = lookup(target)
        reason = fallback_reason(target)
        leaves = pytree.tree_leaves((args, kwargs))
        if any(isinstance(x, (ExternScalar, _RuntimeInput)) for x in leaves):
            rule, reason = None, "takes a value known only at run time"
        if rule is not None and reason is None:
            try:
                return rule(*args, **kwargs)
            except Unsupported as err:
                reason = f"unsupported here: {err}"
            except Exception as err:  # a bug in a rule must not become a wrong answer
                if config.strict:
                    raise
                log.warning("lowering %s failed (%s: %s); running it through ATen", target, type(err).__name__, err)
                reason = f"lowering failed: {type(err).__name__}"
        return self.extern(target, args, kwargs, reason or "no lowering rule")

    def _maybe_realize_on_reuse(self, node: torch.fx.Node) -> None:
        value = self.env[node]
        if not isinstance(value, Pointwise):
            return
        if value.identity_of is not None:
            return  # a plain copy: recomputing it is one load
        rec = record(value.fn, [symbols.sym(f"d{i}") for i in range(len(value.shape))])
        reads = len({name for name, _ in rec.reads})
        heavy = reads > config.realize_reads_threshold or rec.opcount > config.realize_opcount_threshold
        heavy = heavy or (self.store_reused_math and rec.math_calls > 0)
        shared = len(node.users) > 1 and (heavy or _stored_by_a_user(node))
        too_long = rec.opcount > config.realize_max_inlined_ops
        if reads > config.realize_acc_reads_threshold or shared or too_long:
            self.env[node] = self.realize(value, strides=self._meta_strides(node, value.shape))

    # -------------------------------------------------------------------------------- realization
    def _meta_strides(self, node: torch.fx.Node, shape: tuple[Any, ...]) -> tuple[Any, ...] | None:
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            return None
        if self.sizevars.dynamic:
            return self._symbolic_meta_strides(val, shape)
        try:
            size, stride = tuple(int(s) for s in val.shape), tuple(int(s) for s in val.stride())
        except TypeError:
            return None
        if size != tuple(symbols.static_int(s) for s in shape) or not _dense_strides(size, stride):
            return None
        return stride

    def _symbolic_meta_strides(self, val: torch.Tensor, shape: tuple[Any, ...]) -> tuple[Expr, ...] | None:
        """The strides eager gives a tensor of symbolic sizes, if they are dense for every size."""
        sv = self.sizevars
        try:
            size, stride = sv.exprs(val.shape), sv.exprs(val.stride())
        except SymbolicSizeError:
            return None
        if len(size) != len(shape) or any(sympy.expand(a - b) != 0 for a, b in zip(size, shape)):
            return None
        # order the dims by their strides at the traced sizes, then check density symbolically
        order = [i for i in range(len(size)) if size[i] != 1]
        hints = [sv.hint(stride[i]) for i in order]
        if any(h is None for h in hints):
            return None
        order = [i for _, i in sorted(zip(hints, order), key=lambda p: p[0])]  # type: ignore[arg-type, return-value]
        expected: Expr = sympy.Integer(1)
        for i in order:
            if sympy.expand(stride[i] - expected) != 0:
                return None
            expected = expected * size[i]
        return stride

    def _eager_strides(self, value: TensorValue) -> tuple[Any, ...] | None:
        """The strides eager gives the node whose lazy value ``value`` is (None: not a node's value): an
        extern call reading it gets it in that layout (a channels-last activation into a convolution), not
        contiguous, so that the kernel writing it and the call reading it both walk it as eager does."""
        known = self._produced_by.get(id(value)) if isinstance(value, Pointwise) else None
        return self._meta_strides(known[1], value.shape) if known is not None else None

    def realize(self, value: TensorValue, strides: tuple[Any, ...] | None = None, alias_ok: bool = False) -> BufferView:
        """Store a lazy value in a new buffer (or return the view it already is)."""
        if isinstance(value, BufferView):
            return value
        assert isinstance(value, Pointwise), value
        known = self._realized.get(id(value))
        if known is not None:
            return known[1]
        if alias_ok and value.identity_of is not None and (
            strides is None or tuple(value.identity_of.layout.stride) == tuple(symbols.as_expr(s) for s in strides)
        ):  # a copy that changes the layout (to channels-last, for a convolution) stays a copy
            return value.identity_of
        if value.view_base is not None and value.view_replay is not None:
            replayed = value.view_replay(self.realize(value.view_base, alias_ok=alias_ok))
            if isinstance(replayed, BufferView):
                self._realized[id(value)] = (value, replayed)
                return replayed
            value = replayed  # the view needs a copy after all (e.g. a reshape of a transposed buffer)
            assert isinstance(value, Pointwise)
        stride = tuple(symbols.as_expr(s) for s in strides) if strides else contiguous_strides(value.shape)
        layout = Layout(tuple(value.shape), stride, sympy.Integer(0), value.dtype, value.device)
        buf = ComputedBuffer(self.new_name("buf"), layout, PointwiseLoops(tuple(value.shape), value.fn), value.origins)
        view = self.register(buf)
        self._realized[id(value)] = (value, view)
        return view

    def register(self, buf: ComputedBuffer) -> BufferView:
        self.buffers[buf.name] = buf
        self.nodes.append(buf)
        return BufferView(buf, buf.layout)

    def reduction_buffer(
        self, kept_shape: tuple[Any, ...], dtype: torch.dtype, device: torch.device, loops: ReductionLoops, origins: tuple[str, ...]
    ) -> BufferView:
        hint = self._meta_strides(self.current_node, kept_shape) if self.current_node is not None else None
        stride = tuple(symbols.as_expr(s) for s in hint) if hint else contiguous_strides(kept_shape)
        layout = Layout(tuple(kept_shape), stride, sympy.Integer(0), dtype, device)
        return self.register(ComputedBuffer(self.new_name("buf"), layout, loops, origins))

    # ------------------------------------------------------------------------------------- externs
    def extern(self, op: Any, args: tuple[Any, ...], kwargs: dict[str, Any], reason: str) -> Any:
        """Run ``op`` through ATen at run time; returns its result with BufferViews for the tensors."""
        args, kwargs = pytree.tree_map(
            lambda v: self.realize(v, strides=self._eager_strides(v), alias_ok=True) if isinstance(v, TensorValue) else v,
            (args, kwargs),
        )
        mutates = bool(getattr(getattr(op, "_schema", None), "is_mutable", False))
        if mutates:
            self._realize_readers_of(_written_buffers(op, args, kwargs))
        call = ExternCall(self.new_name("extern"), op, tuple(args), dict(kwargs), reason, mutates=mutates)
        meta = self._extern_meta(op, args, kwargs)

        def build(val: Any, path: tuple[int, ...]) -> Any:
            if isinstance(val, torch.Tensor):
                try:
                    size, stride = self.sizevars.exprs(val.shape), self.sizevars.exprs(val.stride())
                except SymbolicSizeError as err:
                    raise GraphUnsupported(f"output of {op}: {err}") from err
                layout = Layout(
                    size,
                    stride,
                    sympy.Integer(0),
                    val.dtype,
                    self._extern_device(val, args, kwargs),
                )
                buf = ExternBuffer(self.new_name("buf"), layout, call=call, path=path)
                self.buffers[buf.name] = buf
                call.outputs.append(buf)
                return BufferView(buf, layout)
            if isinstance(val, (list, tuple)):
                return type(val)(build(v, (*path, i)) for i, v in enumerate(val))
            if val is None:
                return None
            return ExternScalar(call, path)

        call.result_structure = build(meta, ())
        self.nodes.append(call)
        return call.result_structure

    def _realize_readers_of(self, written: set[str]) -> None:
        """Store every lazy value that reads one of the ``written`` buffers, before the extern call that
        writes them: a lazy value is computed where it is used, which may come after the write (``p + 0``
        returned from a graph that later runs ``p.set_(...)`` would otherwise read ``p``'s new data)."""
        if not written:
            return
        for node, value in list(self.env.items()):
            if not isinstance(value, Pointwise) or id(value) in self._realized:
                continue
            reads = record(value.fn, [symbols.sym(f"d{i}") for i in range(len(value.shape))]).reads
            if any(name in written for name, _ in reads):
                self.env[node] = self.realize(value, strides=self._meta_strides(node, value.shape))

    def _extern_meta(self, op: Any, args: Any, kwargs: Any) -> Any:
        node = self.current_node
        if node is not None and node.op == "call_function" and node.target is op and "val" in node.meta:
            return node.meta["val"]

        def to_meta(v: Any) -> Any:
            if isinstance(v, BufferView):
                lay = v.layout
                if any(symbols.static_int(s) is None for s in (*lay.size, *lay.stride)):
                    raise GraphUnsupported(f"cannot infer the output of {op} on symbolic sizes")
                return torch.empty_strided(
                    [int(s) for s in lay.size], [int(s) for s in lay.stride], dtype=lay.dtype, device="meta"
                )
            return v

        margs, mkwargs = pytree.tree_map(to_meta, (args, kwargs))
        try:
            return op(*margs, **mkwargs)
        except Exception as err:
            raise GraphUnsupported(f"cannot infer the output of {op} ({type(err).__name__}: {err})") from err

    @staticmethod
    def _extern_device(val: torch.Tensor, args: Any, kwargs: Any) -> torch.device:
        if val.device.type != "meta":
            return val.device
        if isinstance(kwargs.get("device"), torch.device):
            return kwargs["device"]
        for leaf in pytree.tree_leaves(args):
            if isinstance(leaf, BufferView):
                return leaf.device
        return torch.device("cpu")


_VIEW_OPS = {
    "view", "_unsafe_view", "reshape", "permute", "expand", "squeeze", "unsqueeze", "alias", "t", "transpose",
    "slice", "select", "split", "split_with_sizes", "unbind", "diagonal", "getitem",
}  # fmt: skip


def _stored_by_a_user(node: torch.fx.Node, depth: int = 0) -> bool:
    """Will some user store this value anyway (graph output, extern call), directly or through views?"""
    for user in node.users:
        if user.op == "output":
            return True
        if user.op != "call_function":
            continue
        name = getattr(getattr(user.target, "overloadpacket", user.target), "__name__", "")
        if name in _VIEW_OPS and depth < 8:
            if _stored_by_a_user(user, depth + 1):
                return True
        elif lookup(user.target) is None or fallback_reason(user.target) is not None:
            return True
    return False


@dataclasses.dataclass(frozen=True)
class HostScalar:
    """``symbol = target(*args, **kwargs)``, computed by the host from sizes and other host scalars."""

    symbol: sympy.Symbol
    target: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class _RuntimeInput:
    """A non-tensor graph input (its value is only known when the graph runs)."""

    def __init__(self, position: int) -> None:
        self.position = position


def _written_buffers(op: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> set[str]:
    """The buffers an ATen op writes: its arguments whose schema marks them written (``Tensor(a!)``)."""
    written: set[str] = set()
    for position, argument in enumerate(op._schema.arguments):
        if argument.alias_info is None or not argument.alias_info.is_write:
            continue
        value = args[position] if position < len(args) else kwargs.get(argument.name)
        for leaf in pytree.tree_leaves(value):
            if isinstance(leaf, BufferView):
                written.add(leaf.buffer.name)
    return written


def _views_of_other_outputs(flat: list[Any], graph: torch.fx.Graph) -> tuple[dict[int, int], dict[int, torch.fx.Node]]:
    """Outputs that must alias each other, as eager's do: position -> the position of the output it is a
    view of, for outputs whose recorded fake values share a storage with one that spans that whole storage
    (fake views traced under functionalization carry no ``_base``); and position -> the node spanning the
    storage, for groups of outputs that are all windows onto a value the graph does not return
    (``y[:3], y[1:]``). A group with no such value cannot keep its aliasing: the graph is unsupported."""
    groups: dict[int, list[int]] = {}
    for i, item in enumerate(flat):
        val = item.meta.get("val") if isinstance(item, torch.fx.Node) else None
        if isinstance(val, torch.Tensor) and val.layout == torch.strided:
            groups.setdefault(val.untyped_storage()._cdata, []).append(i)
    views: dict[int, int] = {}
    hidden_bases: dict[int, torch.fx.Node] = {}
    for storage, members in groups.items():
        if len(members) < 2:
            continue
        whole = [i for i in members if _spans_its_storage(flat[i].meta["val"])]
        if whole:
            views.update({i: whole[0] for i in members if i != whole[0]})
            continue
        base = _node_spanning(graph, storage)
        if base is None:
            raise GraphUnsupported("graph outputs share a storage that no value of the graph spans")
        hidden_bases.update({i: base for i in members})
    return views, hidden_bases


def _node_spanning(graph: torch.fx.Graph, storage: int) -> torch.fx.Node | None:
    """The first node of ``graph`` whose fake value is the whole of ``storage``."""
    for node in graph.nodes:
        val = node.meta.get("val") if node.op != "output" else None
        if (
            isinstance(val, torch.Tensor)
            and val.layout == torch.strided
            and val.untyped_storage()._cdata == storage
            and _spans_its_storage(val)
        ):
            return node
    return None


def _exact(value: Any) -> sympy.Expr:
    """An int or SymInt as a sympy expression, read without adding a guard."""
    return sympy.Integer(value) if type(value) is int else sympy.sympify(value.node.expr)


def _spans_its_storage(val: torch.Tensor) -> bool:
    """Whether ``val`` is its storage from the first byte to the last, densely. Symbolic sizes are compared
    as expressions, never by evaluating them: that would add guards the graph's caller does not know of;
    what the expressions cannot prove counts as not spanning."""
    try:
        nbytes, offset = _exact(val.untyped_storage().nbytes()), _exact(val.storage_offset())
        shape, stride = [_exact(s) for s in val.shape], [_exact(s) for s in val.stride()]
    except AttributeError:  # a size with no expression behind it
        return False
    expected: sympy.Expr = sympy.Integer(1)
    for size, step in reversed(list(zip(shape, stride))):
        if size != 1 and sympy.expand(step - expected) != 0:
            return False
        expected = expected * size
    return offset == 0 and sympy.expand(expected * val.element_size() - nbytes) == 0

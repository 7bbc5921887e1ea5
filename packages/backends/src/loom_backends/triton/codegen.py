"""Triton source for one fused kernel: runs each node's loop body under an ``ops`` handler that emits code.

A pointwise kernel is one flat loop over ``xnumel`` elements, ``XBLOCK`` per program. A reduction
kernel gives each program ``XBLOCK`` rows; a *persistent* one holds each whole row in ``RBLOCK`` lanes,
a looped one walks the row ``RBLOCK`` at a time, once per stage (see ``scheduler.py``). Values are
common-subexpression-eliminated; index arithmetic on ``xindex``/``rindex`` is named once (``x0``,
``r1``) so the loads read like the tensor expressions they come from.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import sympy
import torch

from ..kernels import symbols
from ..kernels.ir import Buffer, ComputedBuffer, ReductionLoops
from ..kernels.kernel_walk import KernelWalk, Scope, Var
from ..kernels.numbers import register_dtype
from ..kernels.scheduler import FusedKernel
from ..kernels.sizevars import size_arg_order
from ..kernels.symbols import RINDEX, XINDEX, FloorDiv, ModularIndexing
from .device import interpreting
from .textops import TEXT_OPS, TRITON_DTYPES, literal

INT32_LIMIT = 2**31 - 1


class CodegenError(RuntimeError):
    pass


@dataclass
class KernelSource:
    name: str
    source: str
    args: list[str]  # buffer names, in the kernel's parameter order
    outputs: list[str]  # the stored ones among them
    kind: str  # "pointwise", "persistent_reduction", "reduction"
    xnumel: Any
    rnumel: Any
    needs_int64: bool
    # (name, size expression) of the size arguments passed after the buffers (dynamic shapes)
    size_args: list[tuple[str, Any]] = field(default_factory=list)


def _downcast(text: str, dtype: torch.dtype) -> str:
    """``text`` converted to ``dtype``. Triton's interpreter truncates float32 -> bfloat16 where a GPU
    rounds to nearest even, so under the interpreter the rounding is spelled out."""
    if dtype == torch.bfloat16 and interpreting():
        return f"helpers.round_to_bf16({text}).to(tl.bfloat16)"
    return f"{text}.to({TRITON_DTYPES[dtype]})"


def _identity(reduction_type: str, dtype: torch.dtype) -> str:
    if reduction_type == "sum":
        return literal(0, dtype)
    if reduction_type == "prod":
        return literal(1, dtype)
    largest = reduction_type in ("min", "argmin")
    if dtype.is_floating_point:
        return 'float("inf")' if largest else 'float("-inf")'
    info = torch.iinfo(dtype)
    return str(info.max if largest else info.min)


class KernelCodegen(KernelWalk):
    """Emits one kernel; also the ``ops`` handler its nodes' loop bodies run under."""

    def __init__(self, kernel: FusedKernel, name: str, buffers: dict[str, Buffer], persistent: bool) -> None:
        self.kernel = kernel
        self.name = name
        self.buffers = buffers
        self.persistent = persistent or not kernel.is_reduction
        self.ranges = kernel.ranges()
        self.by_name = {n.name: n for n in kernel.nodes}
        self.in_args: list[str] = []
        self.out_args: list[str] = []
        self.counter = itertools.count()
        self.mask_stack: list[Var] = []
        self.indirect: dict[sympy.Symbol, Var] = {}
        self.size_args: dict[str, sympy.Expr] = {}  # kernel argument name -> the size expression it is
        self.needs_int64 = self._needs_int64()
        self.outer = Scope(None, [])
        self.sections: list[tuple[str, Any]] = [("lines", self.outer.lines)]
        self.scope = self.outer
        self.loop_scope: Scope | None = None

    def _needs_int64(self) -> bool:
        sizes = [self.kernel.xnumel * self.kernel.rnumel]
        for n in self.kernel.nodes:
            sizes.append(n.layout.storage_numel())
        return any(symbols.static_int(s) is None or symbols.static_int(s) > INT32_LIMIT for s in sizes)

    # ------------------------------------------------------------------------------ emitting code
    def _emit(self, scope: Scope, line: str) -> None:
        scope.lines.append(line)

    def _scope_for(self, shape: frozenset[str]) -> Scope:
        if "r" in shape and not self.persistent:
            if self.loop_scope is None:
                raise CodegenError("an r value outside a loop")
            return self.loop_scope
        return self.outer

    def cse(self, text: str, dtype: torch.dtype, shape: frozenset[str]) -> Var:
        if dtype == torch.bool and not shape and interpreting():
            # Triton's interpreter types a 0-d comparison like its operands (int64), so broadcasting it
            # makes an int64 block, and a mask `xmask & tmp3` that tl.load rejects: re-typed as a bool
            text = f"tl.where({text}, True, False)"
        scope = self._scope_for(shape)
        hit = scope.find("cache", text)
        if hit is not None:
            return hit
        var = Var(f"tmp{next(self.counter)}", dtype, shape)
        self._emit(scope, f"{var} = {text}")
        scope.cache[text] = var
        return var

    def literal_text(self, value: Any, dtype: torch.dtype) -> str:
        return literal(value, dtype)

    def _materialize(self, v: Var) -> Var:
        if not v.is_literal:
            return v
        reg = register_dtype(v.dtype)
        return self.cse(f"tl.full([], {v.name}, {TRITON_DTYPES[reg]})", v.dtype, frozenset())

    # ---------------------------------------------------------------------------------- indexing
    def _shape_of_expr(self, expr: sympy.Expr) -> frozenset[str]:
        shape: set[str] = set()
        for s in expr.free_symbols:
            if s == XINDEX:
                shape.add("x")
            elif s == RINDEX:
                shape.add("r")
            elif s in self.indirect:
                shape |= self.indirect[s].shape
        return frozenset(shape)

    def _sizes_in(self, expr: sympy.Expr) -> sympy.Expr:
        """``expr`` with its size symbols (dynamic shapes) made kernel arguments: a plain symbol is
        passed as itself (``s0``); a ``min``/``max`` of sizes is computed by the host and passed as
        ``ks0``. Returns ``expr`` in terms of those arguments."""
        hoisted: dict[Any, Any] = {}
        for atom in expr.atoms(sympy.Min, sympy.Max):
            name = next((n for n, e in self.size_args.items() if e == atom), None)
            if name is None:
                name = f"ks{sum(1 for n in self.size_args if n.startswith('ks'))}"
                self.size_args[name] = atom
            hoisted[atom] = symbols.sym(name)
        expr = expr.xreplace(hoisted) if hoisted else expr
        for s in expr.free_symbols:
            if s not in (XINDEX, RINDEX) and s not in self.indirect and s.name not in self.size_args:  # type: ignore[attr-defined]
                self.size_args[s.name] = s  # type: ignore[attr-defined]
        return expr

    def index_text(self, expr: sympy.Expr) -> str:
        names: dict[Any, str] = {}
        expr = self._sizes_in(expr)
        atoms = sorted(expr.atoms(FloorDiv, ModularIndexing), key=lambda a: (len(str(a)), str(a)))
        for atom in atoms:
            free = {s for s in atom.free_symbols if s.name not in self.size_args}  # type: ignore[attr-defined]
            if free == {XINDEX}:
                names[atom] = self._index_var(atom, "x", self.outer)
            elif free == {RINDEX}:
                scope = self.outer if self.persistent else self.loop_scope
                assert scope is not None
                names[atom] = self._index_var(atom, "r", scope)
        return symbols.texpr(expr, names)

    def _index_var(self, atom: sympy.Expr, prefix: str, scope: Scope) -> str:
        name = scope.index_vars.get(atom)
        if name is None:
            name = f"{prefix}{len([k for k in scope.index_vars.values() if k.startswith(prefix)])}"
            if scope is self.outer:
                self.header_index.append(f"{name} = {symbols.texpr(atom)}")
            else:
                scope.lines.insert(0, f"{name} = {symbols.texpr(atom)}")
            scope.index_vars[atom] = name
        return name

    def _block(self, shape: frozenset[str]) -> str:
        """The block shape of a value varying over ``shape`` (``x`` and/or ``r``)."""
        if not self.kernel.is_reduction:
            return "[XBLOCK]"
        return f"[{'XBLOCK' if 'x' in shape else 1}, {'RBLOCK' if 'r' in shape else 1}]"

    def _mask(self, shape: frozenset[str]) -> str | None:
        parts = [m for m, dim in (("xmask", "x"), ("rmask", "r")) if dim in shape]
        parts += [str(m) for m in self.mask_stack]
        return " & ".join(parts) if parts else None

    # -------------------------------------------------------------------------- the ops handler
    def load(self, name: str, index: sympy.Expr) -> Var:
        index = symbols.simplify(index, self.ranges)
        if name in self.by_name:
            return self._load_local(name, index)
        buf = self.buffers[name]
        if name not in self.in_args:
            self.in_args.append(name)
        shape = self._shape_of_expr(index) | frozenset().union(*(m.shape for m in self.mask_stack))
        mask = self._mask(shape)
        where = self.index_text(index)
        if self._shape_of_expr(index) != shape:  # e.g. one element read under a cat's mask: a block address
            where = f"{where} + tl.full({self._block(shape)}, 0, tl.int32)"
        text = f"tl.load({name} + ({where})" + (f", {mask}, other=0)" if mask else ")")
        if buf.dtype in (torch.float16, torch.bfloat16):
            return replace(self.cse(text + ".to(tl.float32)", buf.dtype, shape), rounded=True)
        return self.cse(text, buf.dtype, shape)

    def _load_local(self, name: str, index: sympy.Expr) -> Var:
        hit = self.scope.find("stored", (name, index))
        if hit is not None:
            return hit
        producer = self.by_name[name]
        if isinstance(producer.loops, ReductionLoops):
            raise CodegenError(f"{name} is read before its reduction finished")
        if index == self.kernel.store_index(producer):
            coords = self.kernel.node_index(producer)
        else:  # another element of a buffer computed from outside this kernel: recompute it there
            coords = [symbols.simplify(c, self.ranges) for c in producer.layout.coordinates(index)]
        value = producer.loops.fn(coords)
        if not self.mask_stack:  # computed under a mask, it is only valid where the mask holds
            self._scope_for(value.shape).stored[(name, index)] = value
        return value

    def index_expr(self, expr: sympy.Expr, dtype: torch.dtype) -> Var:
        expr = symbols.simplify(expr, self.ranges)
        if isinstance(expr, sympy.Integer):
            return self._literal(int(expr), dtype)
        reg = register_dtype(dtype)
        shape = self._shape_of_expr(expr)
        if not shape:  # only sizes: a scalar (tl.full also takes a size Triton specialised to a constant)
            return self.cse(f"tl.full([], {self.index_text(expr)}, {TRITON_DTYPES[reg]})", dtype, shape)
        return self.cse(f"({self.index_text(expr)}).to({TRITON_DTYPES[reg]})", dtype, shape)

    def _convert(self, x: Var, dtype: torch.dtype, src: torch.dtype, dst: torch.dtype, exact: bool) -> Var:
        if exact and dtype in (torch.float16, torch.bfloat16):
            as_f32 = x.name if src == torch.float32 else f"{x}.to(tl.float32)"
            return replace(self.cse(f"{_downcast(as_f32, dtype)}.to(tl.float32)", dtype, x.shape), rounded=True)
        if src == dst:
            return Var(x.name, dtype, x.shape)
        return self.cse(f"{x}.to({TRITON_DTYPES[dst]})", dtype, x.shape)

    def where(self, cond: Var, a: Var, b: Var) -> Var:
        if a.is_literal and b.is_literal:
            a = self._materialize(a)
        a, b = self._operand(a, (a, b)), self._operand(b, (a, b))
        cond = self._materialize(cond)
        dtype = a.dtype if not a.is_literal else b.dtype
        return self.cse(f"tl.where({cond}, {a}, {b})", dtype, cond.shape | a.shape | b.shape)

    def masked(self, mask: Var, body: Callable[[], Any], other: Any, dtype: torch.dtype) -> Var:
        mask = self._materialize(mask)
        self.mask_stack.append(mask)
        try:
            value = body()
        finally:
            self.mask_stack.pop()
        return self.where(mask, value, self._literal(other, dtype))

    def indirect_indexing(self, x: Var, size: sympy.Expr, wrap_negative: bool = True,
                          eager_error: type[Exception] = IndexError) -> sympy.Symbol:
        x = self._materialize(x)
        size_text = symbols.texpr(self._sizes_in(symbols.as_expr(size)))
        # (unchecked: an index out of range is not caught on the GPU; see docs/backends.md)
        wrapped = self.cse(f"tl.where({x} < 0, {x} + {size_text}, {x})", x.dtype, x.shape)
        symbol = sympy.Symbol(wrapped.name, integer=True)
        self.indirect[symbol] = wrapped
        return symbol

    def call(self, name: str, *args: Var) -> Var:
        if name == "convert":
            return self.to_dtype(args[0], args[1], exact=True)
        op = TEXT_OPS.get(name)
        if op is None:
            raise CodegenError(f"no Triton spelling for ops.{name}")
        extern = op(*args)[0].startswith("libdevice.")  # CUDA's library: give it typed tensors, not literals
        args = tuple(self._materialize(a) if extern else self._operand(a, args) for a in args)
        text, dtype = op(*args)
        return self.cse(text, dtype, frozenset().union(*(a.shape for a in args)))

    def _operand(self, a: Var, args: tuple[Var, ...]) -> Var:
        if not a.is_literal:
            return a
        partner = next((b for b in args if not b.is_literal), None)
        # a bare literal takes its partner's type in Triton: fine when the dtypes already agree
        if partner is not None and partner.dtype == a.dtype and a.dtype != torch.bool:
            return a
        return self._materialize(a)

    # ----------------------------------------------------------------------------- reductions
    def reduction(self, node: ComputedBuffer, value: Var, pre: Scope) -> Var:
        loops = node.loops
        assert isinstance(loops, ReductionLoops)
        kind, acc = loops.reduction_type, register_dtype(loops.src_dtype)
        value = self._materialize(value)
        if value.dtype != loops.src_dtype:
            value = self.to_dtype(value, loops.src_dtype)
        block = "[XBLOCK, RBLOCK]"
        full = frozenset({"x", "r"})
        if value.shape != full:
            value = self.cse(f"tl.broadcast_to({value}, {block})", value.dtype, full)
        init = _identity(kind, acc)
        tl_acc = TRITON_DTYPES[acc]
        body = self._scope_for(full)
        if kind in ("argmax", "argmin"):
            return self._arg_reduction(kind, value, init, tl_acc, pre, body)
        combine = {
            "sum": "{0} + {1}",
            "prod": "{0} * {1}",
            "max": "helpers.maximum({0}, {1})" if acc.is_floating_point else "tl.maximum({0}, {1})",
            "min": "helpers.minimum({0}, {1})" if acc.is_floating_point else "tl.minimum({0}, {1})",
        }[kind]
        final = {  # triton.language's own tl.sum / tl.max are @jit functions: see textops.py
            "sum": "tl.reduce({0}, 1, helpers.sum_combine)[:, None]",
            "prod": "tl.reduce({0}, 1, helpers.prod_combine)[:, None]",
            "max": "tl.reduce({0}, 1, helpers.maximum)[:, None]",
            "min": "tl.reduce({0}, 1, helpers.minimum)[:, None]",
        }[kind]
        n = next(self.counter)
        if self.persistent:
            masked = Var(f"tmp{n}", loops.src_dtype, full)
            self._emit(body, f"{masked} = tl.where(xmask & rmask, {value}, {init})")
            out = Var(f"tmp{next(self.counter)}", loops.src_dtype, frozenset({"x"}))
            self._emit(self.outer, f"{out} = {final.format(masked)}")
            return out
        accumulator = f"_acc{n}"
        self._emit(pre, f"{accumulator} = tl.full({block}, {init}, {tl_acc})")
        self._emit(body, f"{accumulator} = tl.where(xmask & rmask, {combine.format(accumulator, value)}, {accumulator})")
        out = Var(f"tmp{next(self.counter)}", loops.src_dtype, frozenset({"x"}))
        self.post_lines.append(f"{out} = {final.format(accumulator)}")
        return out

    def _arg_reduction(self, kind: str, value: Var, init: str, tl_acc: str, pre: Scope, body: Scope) -> Var:
        combine = f"helpers.{kind}_combine"
        n = next(self.counter)
        index = "tl.broadcast_to(rindex, [XBLOCK, RBLOCK])"
        out = Var(f"tmp{n}", torch.int64, frozenset({"x"}))
        if self.persistent:
            self._emit(body, f"_v{n} = tl.where(xmask & rmask, {value}, {init})")
            self._emit(self.outer, f"_, _i{n} = tl.reduce((_v{n}, {index}), 1, {combine})")
            self._emit(self.outer, f"{out} = _i{n}[:, None].to(tl.int64)")
            return out
        self._emit(pre, f"_accv{n} = tl.full([XBLOCK, RBLOCK], {init}, {tl_acc})")
        index_dtype = "tl.int64" if self.needs_int64 else "tl.int32"
        self._emit(pre, f"_acci{n} = tl.full([XBLOCK, RBLOCK], {INT32_LIMIT}, {index_dtype})")
        self._emit(body, f"_nv{n}, _ni{n} = {combine}(_accv{n}, _acci{n}, {value}, {index})")
        self._emit(body, f"_accv{n} = tl.where(xmask & rmask, _nv{n}, _accv{n})")
        self._emit(body, f"_acci{n} = tl.where(xmask & rmask, _ni{n}, _acci{n})")
        self.post_lines.append(f"_, _i{n} = tl.reduce((_accv{n}, _acci{n}), 1, {combine})")
        self.post_lines.append(f"{out} = _i{n}[:, None].to(tl.int64)")
        return out

    # ----------------------------------------------------------------------------------- stores
    def store(self, node: ComputedBuffer, index: sympy.Expr, value: Var, role: str, scope: Scope | list[str]) -> None:
        if node.name not in self.out_args:
            self.out_args.append(node.name)
        want = frozenset({"x", "r"}) if role == "r" else frozenset({"x"})
        if not self.kernel.is_reduction:
            block = "[XBLOCK]"
        else:
            block = "[XBLOCK, RBLOCK]" if role == "r" else "[XBLOCK, 1]"
        dtype = node.dtype
        if value.is_literal:
            text = f"tl.full({block}, {value.name}, {TRITON_DTYPES[register_dtype(value.dtype)]})"
        elif value.shape != want:
            text = f"tl.broadcast_to({value}, {block})"
        else:
            text = value.name
        if dtype == torch.bool and value.dtype != torch.bool:
            text = f"({text}) != 0"
        elif register_dtype(value.dtype) != dtype:
            text = _downcast(f"({text})", dtype)
        mask = "xmask & rmask" if role == "r" else "xmask"
        where = self.index_text(index)
        if self._shape_of_expr(index) != want:  # e.g. a 0-dim result: the address must be a block too
            where = f"{where} + tl.full({block}, 0, tl.int32)"
        line = f"tl.store({node.name} + ({where}), {text}, {mask})"
        (scope.lines if isinstance(scope, Scope) else scope).append(line)

    # ----------------------------------------------------------------------------------- driver
    def generate(self) -> KernelSource:
        self.header_index: list[str] = []
        self.post_lines: list[str] = []
        return self._walk()

    def _emit_loop(self, nodes: list[ComputedBuffer]) -> None:
        if self.persistent:
            self.loop_scope = self.outer
            for node in nodes:
                self._emit_node(node, self.outer)
            return
        pre = Scope(None, [])
        body = Scope(self.outer, [])
        self.post_lines = []
        self.sections.append(("lines", pre.lines))
        self.sections.append(("loop", body.lines))
        self.loop_scope = self.scope = body
        for node in nodes:
            self._emit_node(node, pre)
        self.loop_scope, self.scope = None, self.outer
        post = self.post_lines
        self.outer.lines = post  # later per-row code follows the loop
        self.sections.append(("lines", post))

    def _emit_node(self, node: ComputedBuffer, pre: Scope | None) -> None:
        k = self.kernel
        role = k.roles[node.name]
        index = k.node_index(node)
        store_at = k.store_index(node)
        loops = node.loops
        if isinstance(loops, ReductionLoops):
            assert pre is not None
            value = loops.fn(index)
            result = self.reduction(node, value, pre)
            self.outer.stored[(node.name, store_at)] = result
            if node.name in k.stores:
                target = self.post_lines if not self.persistent else self.outer.lines
                self.store(node, store_at, result, "x", target)
            return
        value = loops.fn(index)
        if not isinstance(value, Var):
            raise CodegenError(f"loop body of {node.name} returned {value!r}")
        self._scope_for(value.shape).stored[(node.name, store_at)] = value
        if node.name in k.stores:
            scope = self._scope_for(frozenset({"x", "r"}) if role == "r" else frozenset({"x"}))
            self.store(node, store_at, value, role, scope)

    def _assemble(self) -> KernelSource:
        k = self.kernel
        sizes = sorted(self.size_args, key=size_arg_order)
        params = [*self.in_args, *self.out_args, *sizes, "xnumel"] + (["rnumel"] if k.is_reduction else [])
        lines = [
            "@triton.jit",
            f"def {self.name}({', '.join(params)}, XBLOCK: tl.constexpr"
            + (", RBLOCK: tl.constexpr):" if k.is_reduction else "):"),
        ]
        body: list[str] = []
        pid = "tl.program_id(0).to(tl.int64)" if self.needs_int64 else "tl.program_id(0)"
        body.append(f"xoffset = {pid} * XBLOCK")
        if k.is_reduction:
            body.append("xindex = xoffset + tl.arange(0, XBLOCK)[:, None]")
        else:
            body.append("xindex = xoffset + tl.arange(0, XBLOCK)")
        body.append("xmask = xindex < xnumel")
        if k.is_reduction:
            rbase = "tl.arange(0, RBLOCK)[None, :]" + (".to(tl.int64)" if self.needs_int64 else "")
            if self.persistent:
                body += [f"rindex = {rbase}", "rmask = rindex < rnumel"]
            else:
                body.append(f"rbase = {rbase}")
        body += self.header_index
        for kind, section in self.sections:
            if kind == "lines":
                body += section
            else:
                body.append("for roffset in range(0, rnumel, RBLOCK):")
                inner = ["rindex = roffset + rbase", "rmask = rindex < rnumel", *section]
                body += ["    " + line for line in inner]
        lines += ["    " + line for line in body]
        kind = "pointwise" if not k.is_reduction else ("persistent_reduction" if self.persistent else "reduction")
        return KernelSource(
            self.name, "\n".join(lines) + "\n", [*self.in_args, *self.out_args], list(self.out_args), kind,
            k.xnumel, k.rnumel, self.needs_int64, [(n, self.size_args[n]) for n in sizes],
        )  # fmt: skip

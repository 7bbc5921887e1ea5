"""C source for one fused kernel: runs each node's loop body under an ``ops`` handler that emits C.

A pointwise kernel is one flat loop over ``xnumel`` elements (``omp parallel for simd``). A reduction
kernel loops over its ``xnumel`` rows (``omp parallel for``) and, inside each row, runs one ``omp simd``
loop over the row's ``rnumel`` elements per stage of the scheduler (softmax: max, sum of exp, outputs).
Values of a row (``x``) are computed once per row, before the loop that needs them; values of an element
(``r``) inside the loop. Both loops go parallel only when the work is large enough
(``config.c_parallel_min_elements``) and more than one thread is asked for. Values are
common-subexpression-eliminated per scope and index arithmetic is named once (``x0 = xindex % 16``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import sympy
import torch

from ..kernels import symbols
from ..kernels.config import config
from ..kernels.ir import Buffer, ComputedBuffer, ReductionLoops
from ..kernels.kernel_walk import KernelWalk, Scope, Var
from ..kernels.numbers import register_dtype
from ..kernels.scheduler import FusedKernel
from ..kernels.sizevars import size_arg_order
from ..kernels.symbols import RINDEX, XINDEX, FloorDiv, ModularIndexing
from .columns import COLUMNS, column_body, column_grain, prefers_columns
from .entry import rows_entry_source
from .full_reduction import Accumulator, applies, full_reduction_source, staged_applies, staged_source
from .lanes import lane_loop, lane_sums
from .selects import Selects
from .textops import C_OPS, C_TYPES, VECTOR_MATH, VECTOR_MATH2, literal, storage_type
from .tiling import (
    RI,
    RO,
    TILE,
    XI,
    XO,
    hoist_invariant,
    row_length,
    row_loops,
    short_row_length,
    split_index,
    transposed_row_length,
)


class CodegenError(RuntimeError):
    """The kernel uses something this generator cannot write in C (the graph then runs through ATen)."""


def ctype(dtype: torch.dtype) -> str:
    """The C type a value of ``dtype`` is held in (half types: ``float``)."""
    return C_TYPES[register_dtype(dtype)]


@dataclass
class CKernelSource:
    """One generated C function and what its caller passes it."""

    name: str
    source: str
    args: list[str]  # buffer names, in parameter order
    outputs: list[str]  # the stored ones among them
    kind: str  # "pointwise" or "reduction"
    xnumel: Any
    rnumel: Any
    dtypes: dict[str, torch.dtype] = field(default_factory=dict)  # buffer name -> its dtype
    # (name, size expression) of the size arguments passed after the buffers (dynamic shapes)
    size_args: list[tuple[str, Any]] = field(default_factory=list)


_IDENTITY = {"sum": 0, "prod": 1}
_OMP_REDUCTION = {"sum": "+", "prod": "*", "max": "max", "min": "min"}


class CKernelCodegen(KernelWalk):
    """Emits one kernel; also the ``ops`` handler its nodes' loop bodies run under."""

    def __init__(
        self, kernel: FusedKernel, name: str, buffers: dict[str, Buffer], comment: str,
        split: int | None = None, tiled: bool = False, rsplit: int | None = None, columns: bool = False,
    ) -> None:  # fmt: skip
        self.kernel = kernel
        # a pointwise kernel's flat xindex split as xo * split + xi (rows of `split` elements), so that the
        # `xindex % split` and `xindex // split` of its addresses become loop variables (an int64 `%` per
        # element made a vector expf loop 4x slower); `tiled`: walked in 16x16 tiles (a transposed read)
        self.split, self.tiled = split, tiled
        # a reduction's rindex split the same way, as ro * rsplit + ri: `rindex // 256` (a group norm's
        # channel) is then the outer loop's `ro`, not a gather in the vector loop
        self.rsplit = rsplit
        # a column reduction (c/columns.py): blocks of rows, the vector loop over a block's rows inside the
        # reduction loop, one accumulator per row of the block (`acc3[xl]`)
        self.columns = columns
        self.arg_reduction = False  # an argmax/argmin: a scalar loop, never a column reduction
        self.column_sums: list[tuple[str, str]] = []  # (C type, name) of a column reduction's float sums
        self.accumulators: list[Accumulator] = []  # how partials combine (c/full_reduction.py)
        self.r_atoms: set[sympy.Expr] = set()
        self.x_atoms: set[sympy.Expr] = set()
        self.name = name
        self.buffers = buffers
        self.comment = comment
        self.ranges = kernel.ranges()
        self.by_name = {n.name: n for n in kernel.nodes}
        self.in_args: list[str] = []
        self.out_args: list[str] = []
        self.counter = itertools.count()
        self.mask_stack: list[Var] = []
        self.indirect: dict[sympy.Symbol, Var] = {}
        self.size_args: dict[str, sympy.Expr] = {}
        self.row = Scope(None, [])
        self.sections: list[tuple[str, Any]] = [("lines", self.row.lines)]
        self.loop: Scope | None = None
        self.loop_pragma: list[str] = []  # reduction clauses of the open loop
        self.checks_indices = False  # an index loaded from a tensor is checked (loom_bad_index in the rows)
        self.scalar_loop = False  # an argmax/argmin in the open loop: no `omp simd`
        self.post: list[str] = []
        self.load_indices: list[sympy.Expr] = []  # every address read from memory (for tiling)
        # values of a reduction kernel's loops by what they compute, whatever their names: an expression
        # with each variable replaced by the first one computing the same (`canon`) -> (value, its loop)
        self.loop_exprs: dict[str, tuple[Var, Scope]] = {}
        self.canon: dict[str, str] = {}
        self.cost: dict[str, int] = {}  # libm calls behind each loop value (what recomputing it costs)
        self.math_call = False  # the text being emitted is a libm call
        self.scratch: dict[str, Var] = {}  # scratch row name -> the earlier loop's value it holds
        self.selects = Selects(self.call, self.where)  # exp of `c ? -inf : x` as `c ? exp(-inf) : exp(x)`

    # ------------------------------------------------------------------------------ emitting code
    def _scope_for(self, shape: frozenset[str]) -> Scope:
        if "r" in shape:
            if self.loop is None:
                raise CodegenError("an r value outside a loop")
            return self.loop
        return self.row

    def cse(self, text: str, dtype: torch.dtype, shape: frozenset[str]) -> Var:
        math_call, self.math_call = self.math_call, False
        scope = self._scope_for(shape)
        hit = scope.find("cache", text)
        if hit is not None:
            return hit
        earlier, key, cost = None, "", 0
        if scope is self.loop:
            key = _NAME.sub(lambda m: self.canon.get(m.group(0), m.group(0)), text)
            cost = int(math_call) + sum(self.cost.get(t, 0) for t in _NAME.findall(text))
            earlier = self.loop_exprs.get(key)
            if earlier is not None and earlier[1] is not scope and cost > 0:
                saved = self._from_scratch(*earlier)
                if saved is not None:
                    scope.cache[text] = saved
                    return saved
        var = Var(f"tmp{next(self.counter)}", dtype, shape)
        scope.lines.append(f"{ctype(dtype)} {var} = {text};")
        scope.cache[text] = var
        if scope is self.loop:
            self.cost[var.name] = cost
            if earlier is None:
                self.loop_exprs[key] = (var, scope)
            else:
                self.canon[var.name] = earlier[0].name
        return var

    def _from_scratch(self, value: Var, loop: Scope) -> Var | None:
        """``value``, computed with libm calls by an earlier loop of this row (softmax's ``exp``), read back
        from a scratch row that loop now also writes, rather than computed again (eager's softmax stores its
        exponentials too). Only for a static row length whose scratch row (on each thread's stack) fits in
        :data:`SCRATCH_BYTES`; else None and the value is recomputed."""
        length = symbols.static_int(self.kernel.rnumel)
        size = torch.empty((), dtype=register_dtype(value.dtype)).element_size()
        if length is None or length * size > SCRATCH_BYTES:
            return None
        row = next((n for n, v in self.scratch.items() if v is value), None)
        if row is None:
            row = f"row{next(self.counter)}"
            self.scratch[row] = value
            loop.lines.append(f"{row}[rindex] = {value};")
        assert self.loop is not None
        var = Var(f"tmp{next(self.counter)}", value.dtype, value.shape, rounded=value.rounded)
        self.loop.lines.append(f"{ctype(value.dtype)} {var} = {row}[rindex];")
        self.canon[var.name] = value.name
        return var

    def literal_text(self, value: Any, dtype: torch.dtype) -> str:
        return literal(value, dtype)

    # ---------------------------------------------------------------------------------- indexing
    def _split_ranges(self) -> dict[sympy.Symbol, Any]:
        assert self.split is not None
        return {XO: self.kernel.xnumel // self.split, XI: sympy.Integer(self.split)}

    def _shape_of_expr(self, expr: sympy.Expr) -> frozenset[str]:
        shape: set[str] = set()
        for s in expr.free_symbols:
            if s in (XINDEX, XO, XI):
                shape.add("x")
            elif s in (RINDEX, RO, RI):
                shape.add("r")
            elif s in self.indirect:
                shape |= self.indirect[s].shape
        return frozenset(shape)

    def _sizes_in(self, expr: sympy.Expr) -> sympy.Expr:
        """``expr`` with its size symbols made kernel arguments (``s0``; a min/max of sizes: ``ks0``)."""
        hoisted: dict[Any, Any] = {}
        for atom in sorted(expr.atoms(sympy.Min, sympy.Max), key=str):  # sorted: the same text in every process
            name = next((n for n, e in self.size_args.items() if e == atom), None)
            if name is None:
                name = f"ks{sum(1 for n in self.size_args if n.startswith('ks'))}"
                self.size_args[name] = atom
            hoisted[atom] = symbols.sym(name)
        expr = expr.xreplace(hoisted) if hoisted else expr
        for s in sorted(expr.free_symbols, key=str):
            if s not in (XINDEX, RINDEX, XO, XI, RO, RI) and s not in self.indirect and s.name not in self.size_args:  # type: ignore[attr-defined]
                self.size_args[s.name] = s  # type: ignore[attr-defined]
        return expr

    def index_text(self, expr: sympy.Expr) -> str:
        names: dict[Any, str] = {}
        if self.split is not None and XINDEX in expr.free_symbols:
            expr = split_index(expr, XINDEX, XO, XI, self.split, self._split_ranges())
        if self.rsplit is not None and RINDEX in expr.free_symbols:
            ranges = {**self.ranges, RO: self.kernel.rnumel // self.rsplit, RI: sympy.Integer(self.rsplit)}
            expr = split_index(expr, RINDEX, RO, RI, self.rsplit, ranges)
        expr = self._sizes_in(expr)
        for atom in sorted(expr.atoms(FloorDiv, ModularIndexing), key=lambda a: (len(str(a)), str(a))):
            free = {s for s in atom.free_symbols if s.name not in self.size_args}  # type: ignore[attr-defined]
            if free == {XINDEX}:
                self.x_atoms.add(atom)
                names[atom] = self._index_var(atom, "x", self.row)
            elif free and free <= {XO, XI}:
                names[atom] = self._index_var(atom, "x", self.row)
            elif free == {RINDEX} and self.loop is not None:
                self.r_atoms.add(atom)
                names[atom] = self._index_var(atom, "r", self.loop)
            elif free and free <= {RO, RI} and self.loop is not None:
                names[atom] = self._index_var(atom, "r", self.loop)
        return symbols.cexpr(expr, names)

    def _index_var(self, atom: sympy.Expr, prefix: str, scope: Scope) -> str:
        name = scope.index_vars.get(atom)
        if name is None:
            name = f"{prefix}{next(self.counter)}"
            scope.header.append(f"int64_t {name} = {symbols.cexpr(atom)};")
            self.canon[name] = f"({symbols.cexpr(atom)})"  # the same index in every loop
            scope.index_vars[atom] = name
        return name

    def _mask_text(self) -> str | None:
        return " && ".join(str(m) for m in self.mask_stack) if self.mask_stack else None

    # -------------------------------------------------------------------------- the ops handler
    def load(self, name: str, index: sympy.Expr) -> Var:
        index = symbols.simplify(index, self.ranges)
        if name in self.by_name:
            return self._load_local(name, index)
        buf = self.buffers[name]
        if name not in self.in_args:
            self.in_args.append(name)
        shape = self._shape_of_expr(index) | frozenset().union(*(m.shape for m in self.mask_stack))
        self.load_indices.append(index)
        text = f"{name}[{self.index_text(index)}]"
        if buf.dtype == torch.bfloat16:
            text = f"loom_bf16_to_f32({text})"
        elif buf.dtype == torch.float16:
            text = f"(float){text}"
        mask = self._mask_text()
        if mask:  # C's ?: reads memory only where the mask holds (cat, padding)
            text = f"({mask}) ? {text} : 0"
        return replace(self.cse(text, buf.dtype, shape), rounded=buf.dtype in (torch.float16, torch.bfloat16))

    def _load_local(self, name: str, index: sympy.Expr) -> Var:
        scope = self.loop if self.loop is not None else self.row
        hit = scope.find("stored", (name, index))
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
        if not self.mask_stack:
            self._scope_for(value.shape).stored[(name, index)] = value
        return value

    def index_expr(self, expr: sympy.Expr, dtype: torch.dtype) -> Var:
        expr = symbols.simplify(expr, self.ranges)
        if isinstance(expr, sympy.Integer):
            return self._literal(int(expr), dtype)
        return self.cse(f"({ctype(dtype)})({self.index_text(expr)})", dtype, self._shape_of_expr(expr))

    def _convert(self, x: Var, dtype: torch.dtype, src: torch.dtype, dst: torch.dtype, exact: bool) -> Var:
        if exact and dtype in (torch.float16, torch.bfloat16):
            helper = "loom_round_f16" if dtype == torch.float16 else "loom_round_bf16"
            return replace(self.cse(f"{helper}((float){x})", dtype, x.shape), rounded=True)
        if src == dst:
            return Var(x.name, dtype, x.shape, rounded=x.rounded)
        if src.is_floating_point and not dst.is_floating_point and dst != torch.int64:
            return self.cse(f"({C_TYPES[dst]})(int64_t){x}", dtype, x.shape)  # as ATen on x86
        return self.cse(f"({C_TYPES[dst]}){x}", dtype, x.shape)

    def where(self, cond: Var, a: Var, b: Var) -> Var:
        dtype = a.dtype if not a.is_literal else b.dtype
        return self.selects.note_where(self.cse(f"{cond} ? {a} : {b}", dtype, cond.shape | a.shape | b.shape), cond, a, b)

    def masked(self, mask: Var, body: Callable[[], Any], other: Any, dtype: torch.dtype) -> Var:
        self.mask_stack.append(mask)
        try:
            value = body()
        finally:
            self.mask_stack.pop()
        return self.where(mask, value, self._literal(other, dtype))

    def indirect_indexing(self, x: Var, size: sympy.Expr, wrap_negative: bool = True,
                          eager_error: type[Exception] = IndexError) -> sympy.Symbol:
        size_text = symbols.cexpr(self._sizes_in(symbols.as_expr(size)))
        if wrap_negative:
            index = self.cse(f"(int64_t){x} < 0 ? (int64_t){x} + {size_text} : (int64_t){x}", torch.int64, x.shape)
        else:
            index = x if x.dtype == torch.int64 else self.cse(f"(int64_t){x}", torch.int64, x.shape)
        # checked as eager checks it: one out of range reads element 0 (never memory outside the tensor) and
        # sets the rows' flag, an OR gcc vectorises (a store to the run's status in the loop would not be)
        in_range = self.cse(f"(uint64_t){index} < (uint64_t)({size_text})", torch.bool, x.shape)
        kind = INDEX_ERRORS.index(eager_error)  # the bit of the rows' flag (and of the run's status, shifted)
        self._scope_for(x.shape).lines.append(f"loom_bad_index |= !{in_range}{f' << {kind}' if kind else ''};")
        self.checks_indices = True
        wrapped = self.cse(f"{in_range} ? {index} : 0", torch.int64, x.shape)
        symbol = sympy.Symbol(wrapped.name, integer=True)
        self.indirect[symbol] = wrapped
        return symbol

    def call(self, name: str, *args: Var) -> Var:
        if name == "convert":
            return self.to_dtype(args[0], args[1], exact=True)
        if (op := C_OPS.get(name)) is None:
            raise CodegenError(f"no C spelling for ops.{name}")
        if (distributed := self.selects.distribute(name, args)) is not None:
            return distributed
        text, dtype = op(*args)
        self.math_call = name in MATH_CALLS
        return self.selects.note_call(name, args, self.cse(text, dtype, frozenset().union(*(a.shape for a in args))))

    # ----------------------------------------------------------------------------- reductions
    def reduction(self, node: ComputedBuffer, value: Var, pre: list[str]) -> Var:
        loops = node.loops
        assert isinstance(loops, ReductionLoops) and self.loop is not None
        kind, dtype = loops.reduction_type, loops.src_dtype
        if value.dtype != dtype:
            value = self.to_dtype(value, dtype)
        # bools accumulate in an int: gcc vectorises an int or/and reduction, not a _Bool one
        acc_dtype = torch.int32 if dtype == torch.bool else register_dtype(dtype)
        acc_t = C_TYPES[acc_dtype]
        n = next(self.counter)
        acc = self._accumulator(f"acc{n}")
        body = self.loop.lines
        if kind in ("argmax", "argmin"):
            self.scalar_loop = self.arg_reduction = True
            better = ">" if kind == "argmax" else "<"
            init = literal(float("-inf") if kind == "argmax" else float("inf"), acc_dtype) if acc_dtype.is_floating_point else (
                _int_text(torch.iinfo(acc_dtype).min if kind == "argmax" else torch.iinfo(acc_dtype).max)
            )
            pre += [f"{acc_t} {acc} = {init};", f"int64_t {acc}_index = 0;"]  # never a column reduction
            # the first extreme wins ties; a NaN is more extreme than any number (as eager's argmax)
            test = f"{acc} == {acc} && ({value} {better} {acc} || {value} != {value})" if acc_dtype.is_floating_point else f"{value} {better} {acc}"
            body.append(f"if ({test}) {{ {acc} = {value}; {acc}_index = rindex; }}")
            self.accumulators.append(Accumulator(kind, acc, acc_t, init, "", floating=acc_dtype.is_floating_point))
            return Var(f"{acc}_index", torch.int64, frozenset({"x"}))
        if kind in ("sum", "prod"):
            pre += self._declare(acc_t, acc, literal(_IDENTITY[kind], acc_dtype))
            op = "+" if kind == "sum" else "*"
            if dtype == torch.bool:  # bools: any/all as or/and
                op = "|" if kind == "sum" else "&"
            into = acc
            if self.columns and kind == "sum" and acc_dtype.is_floating_point:  # chunked: see column_rows
                self.column_sums.append((acc_t, f"acc{n}"))
                into = f"acc{n}_part[xl]"
            body.append(f"{into} = {into} {op} {value};")
            self.loop_pragma.append(f"reduction({op}:{acc})")
            self.accumulators.append(Accumulator(kind, acc, acc_t, literal(_IDENTITY[kind], acc_dtype), op))
            return Var(acc, dtype, frozenset({"x"}))
        largest = kind == "max"
        if acc_dtype.is_floating_point:
            init = literal(float("-inf") if largest else float("inf"), acc_dtype)
        else:
            info = torch.iinfo(acc_dtype)
            init = _int_text(info.min if largest else info.max)
        pre += self._declare(acc_t, acc, init)
        body.append(f"{acc} = {value} {'>' if largest else '<'} {acc} ? {value} : {acc};")
        self.loop_pragma.append(f"reduction({kind}:{acc})")
        self.accumulators.append(Accumulator(kind, acc, acc_t, init, ""))
        if not acc_dtype.is_floating_point:
            return Var(acc, dtype, frozenset({"x"}))
        # NaN propagates (as eager's max/min): a flag beside the vectorised extreme (an int: a _Bool flag
        # halves the loop's speed)
        nan = self._accumulator(f"acc{n}_nan")
        pre += self._declare("int", nan, "0")
        body.append(f"{nan} = {nan} | ({value} != {value});")
        self.loop_pragma.append(f"reduction(|:{nan})")
        self.accumulators[-1].nan = nan
        out = Var(f"tmp{next(self.counter)}", dtype, frozenset({"x"}))
        self.post.append(f"{acc_t} {out} = {nan} ? {literal(float('nan'), acc_dtype)} : {acc};")
        return out

    def _accumulator(self, name: str) -> str:
        """How the loop reads an accumulator: a scalar, or in a column reduction its block row's element."""
        return f"{name}[xl]" if self.columns else name

    def _declare(self, ctype_: str, acc: str, init: str) -> list[str]:
        """Declaration of accumulator ``acc`` starting at ``init`` (an array of the block's rows for columns)."""
        if not self.columns:
            return [f"{ctype_} {acc} = {init};"]
        name = acc.removesuffix("[xl]")
        return [f"{ctype_} {name}[{COLUMNS}];", f"for (int64_t xl = 0; xl < {COLUMNS}; xl++) {name}[xl] = {init};"]

    # ----------------------------------------------------------------------------------- stores
    def store(self, node: ComputedBuffer, index: sympy.Expr, value: Var, lines: list[str]) -> None:
        if node.name not in self.out_args:
            self.out_args.append(node.name)
        dtype = node.dtype
        if dtype == torch.bool and value.dtype != torch.bool:
            text = f"{value} != 0"
        elif dtype == torch.bfloat16:
            text = f"loom_f32_to_bf16({value})"
        elif dtype == torch.float16:
            text = f"(_Float16){value}"
        elif register_dtype(value.dtype) != dtype:
            text = f"({C_TYPES[dtype]}){value}"
        else:
            text = value.name
        lines.append(f"{node.name}[{self.index_text(index)}] = {text};")

    # ----------------------------------------------------------------------------------- driver
    def generate(self) -> CKernelSource:
        flat = self._generate()
        if self.kernel.is_reduction:
            if self.columns or self.rsplit is not None:
                return flat
            if not self.arg_reduction and not self.scratch and prefers_columns(self.load_indices, self.kernel.xnumel):
                return CKernelCodegen(self.kernel, self.name, self.buffers, self.comment, columns=True)._generate()
            length = row_length(self.r_atoms, self.kernel.rnumel)
            if length is None or length == symbols.static_int(self.kernel.rnumel):
                return flat
            kernel = CKernelCodegen(self.kernel, self.name, self.buffers, self.comment, rsplit=length)
            return kernel._generate()
        if self.split is not None:
            return flat
        tiled = transposed_row_length(self.load_indices, self.kernel.xnumel) or short_row_length(self.load_indices, self.kernel.xnumel)
        split = tiled or row_length(self.x_atoms, self.kernel.xnumel)
        if split is None:
            return flat
        again = CKernelCodegen(self.kernel, self.name, self.buffers, self.comment, split, tiled is not None)
        return again._generate()

    def _generate(self) -> CKernelSource:
        return self._walk()

    def _emit_loop(self, nodes: list[ComputedBuffer]) -> None:
        if not self.kernel.is_reduction:  # a pointwise kernel: its one loop is the x loop itself
            for node in nodes:
                self._emit_node(node, None)
            return
        pre: list[str] = []
        self.loop = Scope(self.row, [])
        self.loop_pragma, self.scalar_loop, self.post = [], False, []
        for node in nodes:
            self._emit_node(node, pre)
        pragma = None if self.scalar_loop else " ".join(["#pragma omp simd", *self.loop_pragma])
        self.sections += [("lines", pre), ("loop", (pragma, self.loop))]
        self.loop = None
        self.row.lines = self.post  # later per-row code follows the loop
        self.sections.append(("lines", self.post))

    def _emit_node(self, node: ComputedBuffer, pre: list[str] | None) -> None:
        k = self.kernel
        index = k.node_index(node)
        store_at = k.store_index(node)
        loops = node.loops
        if isinstance(loops, ReductionLoops):
            assert pre is not None
            result = self.reduction(node, loops.fn(index), pre)
            self.row.stored[(node.name, store_at)] = result
            if node.name in k.stores:
                self.store(node, store_at, result, self.post)
            return
        value = loops.fn(index)
        if not isinstance(value, Var):
            raise CodegenError(f"loop body of {node.name} returned {value!r}")
        self._scope_for(value.shape).stored[(node.name, store_at)] = value
        if node.name in k.stores:
            role = k.roles[node.name]
            scope = self.loop if role == "r" and k.is_reduction else self.row
            assert scope is not None
            self.store(node, store_at, value, scope.lines)

    def _assemble(self) -> CKernelSource:
        k = self.kernel
        sizes = sorted(self.size_args, key=size_arg_order)
        params = [f"const {storage_type(self.buffers[n].dtype)} *restrict {n}" for n in self.in_args]
        params += [f"{storage_type(self.buffers[n].dtype)} *restrict {n}" for n in self.out_args]
        params += [f"{'double' if n.startswith('f') else 'int64_t'} {n}" for n in sizes]
        params += ["int64_t xnumel"] + (["int64_t rnumel"] if k.is_reduction else [])
        names = [p.rsplit(" ", 1)[-1] for p in params]
        work = "xnumel * rnumel" if k.is_reduction else "xnumel"
        # the rows [x_begin, x_end): called once (serial) or by each thread (parallel), so that a small
        # kernel never enters an OpenMP region (an `if(0)` region still costs microseconds)
        rows = f"{self.name}_rows"
        out = [f"/* {self.comment} */", f"static void {rows}({', '.join([*params, 'int64_t x_begin', 'int64_t x_end'])})", "{"]
        tile = self.split
        closing = "    }"
        if tile is not None:  # rows of `tile` elements (xo the row, xi the element), tiles, or short rows
            opening, closing = row_loops(tile, self.tiled)
            out += opening
        elif self.columns:
            closing = ""
        else:
            if not k.is_reduction:
                out.append("#pragma omp simd")
            out.append("    for (int64_t xindex = x_begin; xindex < x_end; xindex++) {")
        length = symbols.static_int(k.rnumel)
        # scratch rows: before the row loop (one per thread: each thread runs its own call of this function)
        out[3:3] = [f"    {storage_type(register_dtype(v.dtype))} {row}[{length}] __attribute__((aligned(64)));" for row, v in self.scratch.items()]
        body: list[str] = list(self.row.header)
        if self.columns:
            body = column_body(self.row.header, self.sections, self.column_sums)  # one loop or several
        for kind, section in [] if self.columns else self.sections:
            if kind == "lines":
                body += section
                continue
            pragma, scope = section
            if pragma:
                body.append(pragma)
            inner = [*scope.header, *scope.lines]
            if self.scratch or self.selects.used:  # what a scratch row or a distributed exp replaced is dead
                inner = without_dead_lines(inner, body + [line for _, s in self.sections if _ == "lines" for line in s])
            if self.rsplit is None and (sums := lane_sums(pragma, self.accumulators, k.rnumel)) and not self.columns:
                body[-1:] = lane_loop(pragma, inner, sums, "0", "rnumel")  # several vector accumulators
                continue
            if self.rsplit is None:
                body += ["for (int64_t rindex = 0; rindex < rnumel; rindex++) {", *("    " + line for line in inner), "}"]
                continue
            if pragma:  # the pragma belongs to the inner (vector) loop
                body.pop()
            outer, inner = hoist_invariant(inner, {"ri", "rindex"})
            body += [f"for (int64_t ro = 0; ro < rnumel / {self.rsplit}; ro++) {{", *("    " + line for line in outer)]
            body += [*([pragma] if pragma else []), f"    for (int64_t ri = 0; ri < {self.rsplit}; ri++) {{"]
            if any(re.search(r"\brindex\b", line) for line in inner):
                body.append(f"        int64_t rindex = ro * {self.rsplit} + ri;")
            body += [*("        " + line for line in inner), "}}"]
        indent = "    " if self.columns else "        "
        out += [indent + line if not line.startswith("#") else line for line in (without_dead_lines(body, []) if self.selects.used else body)]
        if self.checks_indices:  # each thread's rows keep their own flag, set in the loops, and pass it on once
            out.insert(3, "    int loom_bad_index = 0;")
            out += [*([closing] if closing else []), "    if (loom_bad_index) loom_index_out_of_range(loom_bad_index);"]
            closing = ""
        out += [*([closing] if closing else []), "}", ""]
        if not re.search(r"\bxnumel\b", "\n".join(out[3:])):  # the rows come as [x_begin, x_end) only
            row_params = [p for p, n in zip(params, names) if n != "xnumel"]
            out[1] = f"static void {rows}({', '.join([*row_params, 'int64_t x_begin', 'int64_t x_end'])})"
        if k.is_reduction and symbols.static_int(k.xnumel) == 1:  # a full reduction: see LOOM_NOIPA (textops)
            out[1] = "LOOM_NOIPA " + out[1]
        row_args = [n for n in names if n != "xnumel" or "int64_t xnumel" in out[1]]
        # each thread's share: whole rows; whole tiles of rows; whole vectors
        grain = (column_grain(self.sections) if self.columns else 1) if k.is_reduction else (tile * (TILE if self.tiled else 1) if tile is not None else 64)
        serial = f"{rows}({', '.join([*row_args, '0', 'xnumel'])})"
        full = not (self.columns or self.rsplit or self.scratch or self.checks_indices) and k.is_reduction
        threshold = config.c_parallel_min_elements
        if full and applies(self.sections, self.accumulators, k.xnumel, k.rnumel, threshold):
            out += full_reduction_source(self.name, self.comment, params, self.row.header, self.sections,
                                         self.accumulators, serial)  # fmt: skip
        elif full and staged_applies(self.sections, self.accumulators, k.xnumel, k.rnumel, staged := config.c_parallel_min_staged_elements):
            out += staged_source(self.name, params, self.row.header, self.sections, self.accumulators, serial, staged)
        else:
            out += rows_entry_source(self.name, params, rows, row_args, grain, work, serial)
        kind = "reduction" if k.is_reduction else "pointwise"
        dtypes = {n: self.buffers[n].dtype for n in [*self.in_args, *self.out_args]}
        return CKernelSource(
            self.name, "\n".join(out) + "\n", [*self.in_args, *self.out_args], list(self.out_args), kind,
            k.xnumel, k.rnumel, dtypes, [(n, self.size_args[n]) for n in sizes],
        )  # fmt: skip


#: the errors an index out of range raises in eager, by the bit of ``loom_bad_index`` that records them
INDEX_ERRORS = (IndexError, RuntimeError)
# ops spelled as a libm call: a scratch row is cheaper than computing them again in a later loop
MATH_CALLS = frozenset({*VECTOR_MATH, *VECTOR_MATH2, "sigmoid", "lgamma", "erf", "sqrt", "rsqrt"})
SCRATCH_BYTES = 65536  # a scratch row (per thread, on its stack) at most this long: 4096 floats is 16 KiB
_NAME = re.compile(r"\b(?:tmp|r)\d+\b")  # a loop's value or index variable
_DECLARATION = re.compile(r"^\w+ ((?:tmp|r)\d+) = ")


def _int_text(value: int) -> str:
    """An integer literal; int64's minimum as an expression (``-9223372036854775808`` is unsigned in C)."""
    return "(-9223372036854775807 - 1)" if value == -(2**63) else str(value)


def without_dead_lines(lines: list[str], others: list[str]) -> list[str]:
    """``lines`` (one loop's body) without the declarations of variables nothing reads."""
    while True:
        text = "\n".join([*lines, *others])
        used = {}
        for name in _NAME.findall(text):
            used[name] = used.get(name, 0) + 1
        kept = [line for line in lines if not ((m := _DECLARATION.match(line)) and used[m.group(1)] == 1)]
        if len(kept) == len(lines):
            return lines
        lines = kept

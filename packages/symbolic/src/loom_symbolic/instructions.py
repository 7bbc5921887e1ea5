"""Decoding a code object into the instruction list the translator walks.

Instructions are indexed by position, jump targets are resolved to positions, and the exception table
is decoded into :class:`ExceptionRange` entries. On the CPython versions the translator models (3.11,
3.12, 3.13) the decoder reads ``co_code`` directly with per-opcode tables: :func:`dis.get_instructions` also
builds a ``repr`` of every constant, a ``Positions`` tuple and an argument text per instruction, which
made decoding about a tenth of a cold translation. Elsewhere the :mod:`dis` decoder is used; it is
also the reference the fast decoder is tested against.
"""

from __future__ import annotations

import dis
import opcode
import types
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from .versions import current as _version


class Instruction(NamedTuple):
    """One decoded instruction. ``target`` is the index of a jump's destination, or None."""

    index: int
    offset: int
    opname: str
    arg: int | None
    argval: object
    lineno: int | None
    target: int | None
    is_jump_target: bool


@dataclass(frozen=True)
class ExceptionRange:
    """An exception-table entry: instructions [start, end) jump to ``target`` with ``depth`` kept."""

    start: int
    end: int
    target: int
    depth: int
    lasti: bool


@dataclass(frozen=True)
class DecodedCode:
    """A code object's instructions, an offset → index map, and its exception table by index."""

    code: types.CodeType
    instructions: tuple[Instruction, ...]
    index_of_offset: dict[int, int]
    exception_ranges: tuple[ExceptionRange, ...]

    def handler_for(self, index: int) -> ExceptionRange | None:
        """The innermost exception-table entry covering instruction ``index``."""
        for entry in self.exception_ranges:
            if entry.start <= index < entry.end:
                return entry
        return None


@lru_cache(maxsize=512)
def decode(code: types.CodeType) -> DecodedCode:
    """Decode ``code`` once (cached: code objects are immutable)."""
    raw, index_of_offset = _decode_fast(code) if _FAST else _decode_with_dis(code)
    ranges = tuple(
        ExceptionRange(
            index_of_offset[e.start],
            index_of_offset.get(e.end, len(raw)),
            index_of_offset[e.target],
            e.depth,
            e.lasti,
        )
        for e in _exception_table(code)
    )
    return DecodedCode(code, tuple(raw), index_of_offset, ranges)


def _exception_table(code: types.CodeType) -> list:
    parse = getattr(dis, "_parse_exception_table", None)
    return list(parse(code)) if parse is not None else []


# Both decoders return the instruction list and the offset → index map.


def _resolve_targets(decoded: list[Instruction], index_of_offset: dict[int, int], jumps: list[int]) -> None:
    """Turn the byte-offset targets of the instructions at ``jumps`` into indexes, and mark their targets."""
    for at in jumps:
        ins = decoded[at]
        target = index_of_offset.get(ins.target)
        decoded[at] = ins._replace(target=target)
        if target is not None and not decoded[target].is_jump_target:
            decoded[target] = decoded[target]._replace(is_jump_target=True)


def _decode_with_dis(code: types.CodeType) -> tuple[list[Instruction], dict[int, int]]:
    """The reference decoder, on any CPython version."""
    jumps = set(dis.hasjrel) | set(dis.hasjabs)
    lineno = None
    decoded = []
    for i, ins in enumerate(dis.get_instructions(code)):
        if ins.positions is not None and ins.positions.lineno is not None:
            lineno = ins.positions.lineno
        target = ins.argval if ins.opcode in jumps else None
        argval = ins.argval
        if ins.opcode in dis.hasconst and argval is getattr(dis, "UNKNOWN", None):
            argval = code.co_consts[ins.arg]  # dis leaves KW_NAMES' tuple of names unresolved
        decoded.append(Instruction(i, ins.offset, ins.opname, ins.arg, argval, lineno, target, ins.is_jump_target))
    index_of_offset = {ins.offset: ins.index for ins in decoded}
    _resolve_targets(decoded, index_of_offset, [ins.index for ins in decoded if ins.target is not None])
    return decoded, index_of_offset


# --- the direct decoder ------------------------------------------------------------------------------
# How each opcode's argument becomes its ``argval``, as the running CPython's dis computes it: dis's
# generic tables (hasconst, hasname, ...) and, where an opcode packs flags beside an index, the
# version module's ``DECODE_RULES`` (``versions/py311.py``, ``versions/py312.py``, ``versions/py313.py``).

(_PLAIN, _CONST, _NAME, _NAME_SHIFT1, _FORWARD, _BACKWARD, _ABSOLUTE, _LOCAL, _COMPARE, _FORMAT,
 _NAME_SHIFT2, _COMPARE_SHIFT4, _LOCAL_PAIR, _COMPARE_SHIFT5, _CONVERT) = range(15)
_RULES = {"name>>1": _NAME_SHIFT1, "name>>2": _NAME_SHIFT2, "compare": _COMPARE, "compare>>4": _COMPARE_SHIFT4,
          "compare>>5": _COMPARE_SHIFT5, "format": _FORMAT, "local pair": _LOCAL_PAIR, "convert": _CONVERT}
#: What FORMAT_VALUE's low bits (3.11, 3.12) and CONVERT_VALUE's argument (3.13) name.
_CONVERTERS = (None, str, repr, ascii)


def _argument_kinds(rules: dict[str, str]) -> list[int]:
    kinds = [_PLAIN] * 256
    for table, kind in (
        (opcode.hasconst, _CONST),
        (opcode.hasname, _NAME),
        (opcode.hasjabs, _ABSOLUTE),
        (opcode.haslocal, _LOCAL),
        (opcode.hasfree, _LOCAL),
    ):
        for op in table:
            if op < 256:  # 3.12 lists pseudo-instructions too; co_code never holds them
                kinds[op] = kind
    for op in opcode.hasjrel:
        if op < 256:
            kinds[op] = _BACKWARD if "JUMP_BACKWARD" in opcode.opname[op] else _FORWARD
    for name, rule in rules.items():
        kinds[opcode.opmap[name]] = _RULES[rule]
    return kinds


def _cache_sizes() -> list[int]:
    """Inline cache entries per opcode (a list by opcode up to 3.12, a dict by name from 3.13)."""
    entries = opcode._inline_cache_entries
    if not isinstance(entries, dict):
        return list(entries)
    sizes = [0] * 256
    for name, count in entries.items():
        sizes[opcode.opmap[name]] = count
    return sizes


_FAST = bool(_version.DECODE_RULES)
if _FAST:
    _KINDS = _argument_kinds(_version.DECODE_RULES)
    _CACHES = _cache_sizes()
    _EXTENDED_ARG = opcode.EXTENDED_ARG
    # Opcodes from HAVE_ARGUMENT on take an argument, except where ``opcode.hasarg`` (3.12+) says
    # otherwise (3.13's WITH_EXCEPT_START sits at HAVE_ARGUMENT and takes none).
    _TAKES_ARG = [op in opcode.hasarg if hasattr(opcode, "hasarg") else op >= opcode.HAVE_ARGUMENT
                  for op in range(256)]
    _INT_OVERFLOW = 2**31  # opargs are C ints: an EXTENDED_ARG prefix can wrap them negative


def _decode_fast(code: types.CodeType) -> tuple[list[Instruction], dict[int, int]]:
    """Bytecode straight from ``co_code`` (which CPython returns unspecialised), without :mod:`dis`."""
    raw = code.co_code
    ops = raw[0::2]
    opargs = raw[1::2]
    names, consts, local_name = code.co_names, code.co_consts, code._varname_from_oparg
    kinds, caches_of, opnames, takes_arg = _KINDS, _CACHES, opcode.opname, _TAKES_ARG
    new = tuple.__new__  # Instruction's own __new__ is a Python function: a frame per instruction
    decoded: list[Instruction] = []
    index_of_offset: dict[int, int] = {}
    jumps: list[int] = []
    # Line ranges in code-unit order; each instruction takes the line of the range holding its first
    # unit, and one without a line keeps the previous instruction's.
    lines = [(end // 2, line) for _, end, line in code.co_lines()]
    line_at = 0
    lineno = None
    extended = 0
    unit = 0
    units = len(ops)
    while unit < units:
        while lines[line_at][0] <= unit:
            line_at += 1
        line = lines[line_at][1]
        if line is not None:
            lineno = line
        op = ops[unit]
        offset = unit * 2
        following = unit + 1 + caches_of[op]  # relative jumps count from after the inline caches
        target = None
        if takes_arg[op]:
            arg = opargs[unit] | extended
            if op == _EXTENDED_ARG:
                extended = arg << 8
                if extended >= _INT_OVERFLOW:
                    extended -= 2 * _INT_OVERFLOW
            else:
                extended = 0
            kind = kinds[op]
            if kind == _PLAIN:
                argval = arg
            elif kind == _NAME:
                argval = names[arg]
            elif kind == _LOCAL:
                argval = local_name(arg)
            elif kind == _CONST:
                argval = consts[arg]
            elif kind == _NAME_SHIFT1:
                argval = names[arg >> 1]
            elif kind == _LOCAL_PAIR:  # 3.13's LOAD_FAST_LOAD_FAST and friends: two 4-bit local indexes
                argval = (local_name(arg >> 4), local_name(arg & 15))
            elif kind == _FORWARD:
                argval = target = (following + arg) * 2
            elif kind == _BACKWARD:
                argval = target = (following - arg) * 2
            elif kind == _ABSOLUTE:
                argval = target = arg * 2
            elif kind == _COMPARE_SHIFT5:
                argval = opcode.cmp_op[arg >> 5]
            elif kind == _COMPARE_SHIFT4:
                argval = opcode.cmp_op[arg >> 4]
            elif kind == _COMPARE:
                argval = opcode.cmp_op[arg]
            elif kind == _NAME_SHIFT2:
                argval = names[arg >> 2]
            elif kind == _CONVERT:
                argval = _CONVERTERS[arg]
            else:  # _FORMAT
                argval = (_CONVERTERS[arg & 0x3], bool(arg & 0x4))
            if target is not None:
                jumps.append(len(decoded))
        else:
            arg = argval = None
            extended = 0
        index_of_offset[offset] = index = len(decoded)
        decoded.append(new(Instruction, (index, offset, opnames[op], arg, argval, lineno, target, False)))
        unit = following
    _resolve_targets(decoded, index_of_offset, jumps)
    return decoded, index_of_offset

"""Decoding a code object into the instruction list the translator walks.

A thin, version-neutral layer over :mod:`dis`: instructions are indexed by position, jump targets are
resolved to positions, and the exception table is decoded into :class:`ExceptionRange` entries.
"""

from __future__ import annotations

import dis
import types
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Instruction:
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
    raw = list(dis.get_instructions(code))
    index_of_offset = {ins.offset: i for i, ins in enumerate(raw)}
    jumps = set(dis.hasjrel) | set(dis.hasjabs)
    lineno = None
    decoded = []
    for i, ins in enumerate(raw):
        if ins.positions is not None and ins.positions.lineno is not None:
            lineno = ins.positions.lineno
        target = index_of_offset.get(ins.argval) if ins.opcode in jumps else None
        decoded.append(
            Instruction(i, ins.offset, ins.opname, ins.arg, ins.argval, lineno, target, ins.is_jump_target)
        )
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
    return DecodedCode(code, tuple(decoded), index_of_offset, ranges)


def _exception_table(code: types.CodeType) -> list:
    parse = getattr(dis, "_parse_exception_table", None)
    return list(parse(code)) if parse is not None else []

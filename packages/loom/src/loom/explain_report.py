"""The objects ``loom.explain`` returns: a report of frames, graphs, graph breaks, guards and times."""

from __future__ import annotations

import io
import textwrap
import types
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import loom_guards
import loom_symbolic

from . import render, versions

__all__ = ["BreakInfo", "ExplainReport", "FrameInfo", "GraphInfo"]


@dataclass
class GraphInfo:
    """One captured graph: its name, the frame it came from, its ops and its code."""

    name: str
    frame: str
    graph_module: Any
    ops: list[str]
    compiled: Any = None

    @property
    def op_count(self) -> int:
        """How many operations the graph runs."""
        return len(self.ops)

    @property
    def code(self) -> str:
        """The graph as Python source (FX's ``graph_module.code``)."""
        return self.graph_module.code.strip()


@dataclass
class BreakInfo:
    """One graph break: what and why, where in the user's code (file, line, source line), a hint."""

    frame: str
    what: str
    why: str
    hint: str
    filename: str | None
    lineno: int | None
    source_line: str
    reason: loom_symbolic.Reason

    @classmethod
    def from_reason(cls, frame: str, reason: loom_symbolic.Reason) -> BreakInfo:
        """Flatten a translator :class:`loom_symbolic.Reason`."""
        loc = reason.location
        return cls(
            frame=frame,
            what=reason.what,
            why=reason.why,
            hint=reason.hint,
            filename=loc.filename if loc else None,
            lineno=loc.lineno if loc else None,
            source_line=loc.source_line if loc else "",
            reason=reason,
        )

    @property
    def where(self) -> str:
        """``file:line`` (``?`` when unknown)."""
        return f"{render.short_path(self.filename)}:{self.lineno}" if self.filename else "?"

    def __str__(self) -> str:
        return render.reason(self.reason, verbose=True)


@dataclass
class FrameInfo:
    """One frame loom translated during the run (a function, or a resume function after a break)."""

    name: str
    filename: str
    firstlineno: int
    captured: bool
    graphs: list[GraphInfo] = field(default_factory=list)
    breaks: list[BreakInfo] = field(default_factory=list)
    guards: str = ""
    guard_count: int = 0
    compile_seconds: float = 0.0
    backend_seconds: float = 0.0
    recompile_reason: str | None = None
    error: str | None = None
    translation: loom_symbolic.Translation | None = None

    @property
    def where(self) -> str:
        """``qualname (file:line)``."""
        return f"{self.name} ({render.short_path(self.filename)}:{self.firstlineno})"

    @classmethod
    def from_compiled(cls, built: Any) -> FrameInfo:
        """From what the frame compiler built (``frame_compiler.CompiledFrame``)."""
        code = built.code
        translation = built.translation
        graphs = [
            GraphInfo(g.name, code.co_qualname, g.graph_module, render.ops(g), built.compiled_graphs.get(g.name))
            for g in translation.graphs
        ]
        guard_fn = built.guard_fn
        return cls(
            name=code.co_qualname,
            filename=code.co_filename,
            firstlineno=code.co_firstlineno,
            captured=True,
            graphs=graphs,
            breaks=[BreakInfo.from_reason(code.co_qualname, b.reason) for b in translation.breaks],
            guards=render.guards(guard_fn) if guard_fn is not None else "",
            guard_count=len(guard_fn.guards) if guard_fn is not None else 0,
            compile_seconds=built.seconds,
            backend_seconds=built.backend_seconds,
            recompile_reason=built.recompile_reason,
            translation=translation,
        )

    @classmethod
    def not_captured(cls, code: types.CodeType, breaks: list[Any], seconds: float) -> FrameInfo:
        """A frame the translator could not capture at all: it ran as it is."""
        return cls(
            name=code.co_qualname,
            filename=code.co_filename,
            firstlineno=code.co_firstlineno,
            captured=False,
            breaks=[BreakInfo.from_reason(code.co_qualname, b.reason) for b in breaks],
            compile_seconds=seconds,
        )

    @classmethod
    def failed(cls, code: types.CodeType, exc: BaseException) -> FrameInfo:
        """A frame loom failed on (an internal error): it ran as it is."""
        return cls(code.co_qualname, code.co_filename, code.co_firstlineno, False, error=f"{type(exc).__name__}: {exc}")

    def bytecode(self) -> str:
        """Original and rewritten bytecode (and resume functions) of this frame."""
        if self.translation is None:
            return f"{self.where}: not rewritten ({self.error or 'nothing captured'})"
        return render.bytecode(self.translation)


@dataclass
class ExplainReport:
    """What ``loom.explain(fn)(*args)`` found. ``print(report)`` shows it; the fields are for programs.

    ``result`` is what ``fn`` returned. ``graphs``, ``breaks`` and ``frames`` list what was captured,
    where capture broke and every frame translated; ``guards`` holds each compiled frame's guards
    (``GuardFn.describe()``), ``ops_per_graph`` the ops of each graph, ``compile_times`` seconds per
    frame. ``bytecode()`` gives the rewritten bytecode; ``format(verbose=True)`` adds each graph's code.
    ``unsupported_python`` says why nothing was compiled on a CPython loom-symbolic does not translate.
    """

    name: str
    backend: str
    result: Any
    frames: list[FrameInfo]
    wall_seconds: float
    counts: dict[str, int] = field(default_factory=dict)
    includes_first_use: bool = False  # the compile times include loom's one-off first-use imports
    # Why nothing could be compiled in this process (a CPython loom-symbolic does not translate), if so.
    unsupported_python: str | None = field(default_factory=versions.unsupported_reason)

    @property
    def graphs(self) -> list[GraphInfo]:
        """Every captured graph, in the order they were captured."""
        return [g for f in self.frames for g in f.graphs]

    @property
    def graph_count(self) -> int:
        """How many graphs were captured."""
        return len(self.graphs)

    @property
    def breaks(self) -> list[BreakInfo]:
        """Every graph break, in the order they were found."""
        return [b for f in self.frames for b in f.breaks]

    @property
    def break_count(self) -> int:
        """How many graph breaks were found."""
        return len(self.breaks)

    @property
    def graph_break_count(self) -> int:
        """Graph breaks counted as ``loom.stats()`` counts them: one per construct, so a construct met by a
        helper's frame after its caller broke at the call, or again on each pass of a loop, counts once
        (``break_count`` counts every one listed in ``breaks``)."""
        return self.counts.get("graph_breaks", 0)

    @property
    def op_count(self) -> int:
        """Ops across every graph."""
        return sum(g.op_count for g in self.graphs)

    @property
    def ops_per_graph(self) -> list[list[str]]:
        """The ops of each graph, in graph order."""
        return [g.ops for g in self.graphs]

    @property
    def guards(self) -> list[str]:
        """Each compiled frame's guards: ``GuardFn.describe()``'s header, then one line per guard."""
        return [f.guards for f in self.frames if f.captured]

    @property
    def compile_times(self) -> dict[str, float]:
        """Seconds spent compiling each frame (translation, backend and guards), by ``qualname (file:line)``."""
        times: dict[str, float] = {}
        for f in self.frames:
            times[f.where] = times.get(f.where, 0.0) + f.compile_seconds
        return times

    @property
    def compile_seconds(self) -> float:
        """Total seconds spent compiling."""
        return sum(f.compile_seconds for f in self.frames)

    @property
    def recompiles(self) -> int:
        """Frames compiled again during the run because a guard failed."""
        return self.counts.get("recompiles", 0)

    def bytecode(self) -> str:
        """The original and rewritten bytecode of every translated frame."""
        return "\n\n".join(f.bytecode() for f in self.frames)

    def __str__(self) -> str:
        return self.format()

    def _breaks_summary(self) -> str:
        counted = _n(self.graph_break_count, "graph break")
        if self.break_count == self.graph_break_count:
            return counted
        return (f"{counted} ({self.break_count} met: one construct met by several frames or passes counts once, and "
                "an exception leaving its frame is none)")

    def format(self, verbose: bool = False) -> str:
        """The report as text; ``verbose`` adds each graph's Python code."""
        out = io.StringIO()
        frames_compiled = sum(1 for f in self.frames if f.captured)
        out.write(
            f"loom.explain({self.name}): {_n(self.graph_count, 'graph')}, {self._breaks_summary()}, "
            f"{_n(frames_compiled, 'frame')} compiled in {self.compile_seconds * 1e3:.1f} ms "
            f"(backend {self.backend!r}; the call took {self.wall_seconds * 1e3:.1f} ms)\n"
        )
        if self.unsupported_python is not None:
            out.write(self.unsupported_python + "\n")
        if self.includes_first_use:
            out.write("(the first compile in this process includes a few seconds of one-off imports: torch's "
                      "FakeTensor machinery imports torch._dynamo)\n")
        if (why := loom_guards.accelerator_error()) is not None:
            out.write(f"guards: pure-Python back end (the C++ accelerator is unavailable: {why})\n")
        not_captured = [f for f in self.frames if not f.captured]
        if not_captured:
            out.write("\nFrames that ran uncompiled:\n")
            for f in not_captured:
                out.write(f"  {f.where}: {f.error or 'nothing could be captured (see its graph break)'}\n")
        if self.breaks:
            out.write(f"\nGraph breaks ({self.break_count}):\n")
            for i, b in enumerate(self.breaks, 1):
                out.write(f"  {i}. in {b.frame}: " + textwrap.indent(str(b), "     ").lstrip() + "\n")
        if self.graphs:
            out.write(f"\nGraphs ({self.graph_count}, {self.op_count} ops):\n")
            for i, g in enumerate(self.graphs, 1):
                out.write(f"  {i}. {g.name} in {g.frame}: {g.op_count} ops\n")
                out.write(textwrap.indent(textwrap.fill(_op_summary(g.ops), 100), "       ") + "\n")
                for line in getattr(g.compiled, "explain_lines", lambda: [])():  # a DDP bucket split
                    out.write(f"       {line}\n")
                if verbose:
                    out.write(textwrap.indent(g.code, "       | ") + "\n")
        compiled = [f for f in self.frames if f.captured]
        if compiled:
            out.write("\nGuards:\n")
            for f in compiled:
                out.write(f"  {f.where}" + (f", recompiled because {f.recompile_reason}" if f.recompile_reason else "") + "\n")
                out.write(textwrap.indent(_first_lines(f.guards, None if verbose else GUARD_LINES), "    ") + "\n")
            out.write("\nCompile times:\n")
            for f in self.frames:
                out.write(f"  {f.where}: {f.compile_seconds * 1e3:.1f} ms (backend {f.backend_seconds * 1e3:.1f} ms)\n")
        out.write("\n(report.bytecode() shows the rewritten bytecode; report.format(verbose=True) each graph's code "
                  "and every guard)")
        return out.getvalue()


GUARD_LINES = 12  # guards shown per frame by str(report); format(verbose=True) and report.guards have all


def _first_lines(text: str, limit: int | None) -> str:
    lines = text.splitlines()
    if limit is None or len(lines) <= limit + 1:
        return text
    return "\n".join([*lines[: limit + 1], f"  ... and {len(lines) - limit - 1} more (report.guards has them all)"])


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _op_summary(ops: list[str]) -> str:
    """``torch.sin, operator.add x3, ...`` in first-seen order."""
    counts = Counter(ops)
    seen: dict[str, None] = dict.fromkeys(ops)
    return ", ".join(f"{op} x{counts[op]}" if counts[op] > 1 else op for op in seen) or "(no ops)"


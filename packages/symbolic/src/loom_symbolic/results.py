"""What a translation produces: graphs, rewritten code, guards, graph breaks, and a readable dump."""

from __future__ import annotations

import dis
import io
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from torch import fx

from .errors import Reason
from .provenance import Provenance


@dataclass
class CapturedGraph:
    """One FX graph: its module, its example inputs, and where each input comes from.

    ``example_inputs`` are the real values of the traced call — except for a graph over symbolic sizes
    (dynamic shapes), where they are the FakeTensors/SymInts of its placeholders, so that a backend
    compiles for every size. ``real_inputs`` always holds the real values.
    """

    name: str
    graph_module: fx.GraphModule
    example_inputs: list[Any]
    input_sources: list[Any]
    real_inputs: list[Any] = field(default_factory=list)

    @property
    def is_dynamic(self) -> bool:
        """Whether the graph works on symbolic sizes."""
        return self.example_inputs is not self.real_inputs and bool(self.real_inputs)

    @property
    def op_count(self) -> int:
        """How many operations the graph runs."""
        return sum(1 for n in self.graph_module.graph.nodes if n.op in ("call_function", "call_method"))


@dataclass
class GraphBreak:
    """Where and why capture stopped: what broke, why, the user's file:line, and a hint."""

    reason: Reason

    def __str__(self) -> str:
        return str(self.reason)


@dataclass
class Translation:
    """The result of translating one code object.

    ``code`` is None when nothing could be captured (then ``breaks`` says why and the frame runs as
    it is). Otherwise ``code`` is the rewritten code object; it loads each graph by its global
    ``name``, bound by :meth:`install`.
    """

    original_code: types.CodeType
    code: types.CodeType | None = None
    graphs: list[CapturedGraph] = field(default_factory=list)
    resume_functions: list[Any] = field(default_factory=list)
    guards: list[Any] = field(default_factory=list)
    breaks: list[GraphBreak] = field(default_factory=list)
    side_effects: list[str] = field(default_factory=list)
    #: Why the frame was not translated at all (a module body, a generator, an unsupported Python),
    #: as opposed to a graph break inside a function that was translated.
    refused: Reason | None = None
    #: Rebuilds ``guards`` (dynamic shapes only): a backend that traces a graph over symbolic sizes
    #: (AOTAutograd) can add decisions of its own to the ShapeEnv, which must be guarded too.
    rebuild_guards: Callable[[], list[Any]] | None = field(default=None, repr=False, compare=False)
    #: The files whose code ran and the library globals taken as fixed (:class:`~loom_symbolic.provenance.Provenance`),
    #: for a result kept for another process; None when nothing was captured.
    provenance: Provenance | None = field(default=None, repr=False, compare=False)

    @property
    def captured(self) -> bool:
        """Whether a rewritten code object was produced."""
        return self.code is not None

    def install(self, f_globals: dict[str, Any], compile_graph: Callable[[CapturedGraph], Callable]) -> None:
        """Bind every name the rewritten code loads: each graph, compiled by ``compile_graph``."""
        for graph in self.graphs:
            f_globals[graph.name] = compile_graph(graph)
        if self.rebuild_guards is not None:
            self.guards = self.rebuild_guards()

    def dump(self) -> str:
        """The original and rewritten bytecode, each graph's code, the guards and any breaks."""
        out = io.StringIO()
        out.write(f"=== original bytecode of {self.original_code.co_qualname}\n")
        dis.dis(self.original_code, file=out)
        if self.code is not None:
            out.write("\n=== rewritten bytecode\n")
            dis.dis(self.code, file=out)
        for graph in self.graphs:
            out.write(f"\n=== graph {graph.name} ({graph.op_count} ops)\n")
            out.write(graph.graph_module.code.strip() + "\n")
        if self.guards:
            out.write("\n=== guards\n")
            for guard in self.guards:
                out.write(f"  {guard}\n")
        if self.side_effects:
            out.write("\n=== side effects\n")
            for effect in self.side_effects:
                out.write(f"  {effect}\n")
        for item in self.breaks:
            out.write(f"\n=== graph break\n{item}\n")
        for resume in self.resume_functions:
            out.write(f"\n=== resume function {resume.co_qualname}\n")
            dis.dis(resume, file=out)
        if self.refused is not None:
            out.write(f"\n=== not translated\n{self.refused}\n")
        return out.getvalue()

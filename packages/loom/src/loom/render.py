"""Text for people: how logs and ``loom.explain`` show code locations, breaks, graphs and bytecode."""

from __future__ import annotations

import dis
import io
import os
import types
from typing import Any

import loom_symbolic


def where(code: types.CodeType) -> str:
    """``qualname (file:line)`` for a code object."""
    return f"{code.co_qualname} ({short_path(code.co_filename)}:{code.co_firstlineno})"


def short_path(filename: str) -> str:
    """A filename relative to the working directory when it lies below it (shorter logs)."""
    try:
        rel = os.path.relpath(filename)
    except ValueError:  # another drive
        return filename
    return filename if rel.startswith("..") else rel


def location(loc: loom_symbolic.Location | None) -> str:
    """``file:line in function`` plus the source line on the next line, when known."""
    if loc is None:
        return "(location unknown)"
    text = f"{short_path(loc.filename)}:{loc.lineno} in {loc.function}"
    line = loc.source_line
    return f"{text}\n    {line}" if line else text


def reason(item: loom_symbolic.Reason, verbose: bool = False) -> str:
    """A graph-break reason: what and why, where (file:line and source line), the hint; with
    ``verbose``, the inlined calls that led there."""
    text = f"{item.what}: {item.why}\n  at {location(item.location)}"
    if verbose and item.stack:
        text += "\n  reached through:" + "".join(f"\n    {location(loc)}" for loc in item.stack)
    if item.hint:
        text += f"\n  hint: {item.hint}"
    return text


def bytecode(translation: loom_symbolic.Translation) -> str:
    """The original and the rewritten bytecode of one translated frame."""
    out = io.StringIO()
    out.write(f"original bytecode of {where(translation.original_code)}:\n")
    dis.dis(translation.original_code, file=out)
    if translation.code is not None:
        out.write(f"\nrewritten bytecode of {translation.original_code.co_qualname}:\n")
        dis.dis(translation.code, file=out)
    for fn in translation.resume_functions:
        code = getattr(fn, "__code__", fn)
        if isinstance(code, types.CodeType):
            out.write(f"\nresume function {code.co_qualname}:\n")
            dis.dis(code, file=out)
    return out.getvalue().rstrip()


def graph(captured: loom_symbolic.CapturedGraph, code: types.CodeType | None = None, verbose: bool = False) -> str:
    """One captured graph as Python, with its op count; with ``verbose`` a table of its nodes and shapes."""
    head = f"graph {captured.name}"
    if code is not None:
        head += f" of {where(code)}"
    text = f"{head}, {captured.op_count} ops:\n{captured.graph_module.code.strip()}"
    if verbose:
        text += "\n" + node_table(captured.graph_module)
    return text


def node_table(graph_module: Any) -> str:
    """``op  name  target  shape`` for every node of an FX graph."""
    rows = [("op", "name", "target", "value")]
    for node in graph_module.graph.nodes:
        rows.append((node.op, node.name, _target(node.target), _meta(node.meta.get("val"))))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join(f"  {r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}" for r in rows)


def _target(target: Any) -> str:
    if isinstance(target, str):
        return target
    name = getattr(target, "__name__", None) or repr(target)
    module = getattr(target, "__module__", None)
    return f"{module}.{name}" if module and module not in ("builtins", "_operator") else name


def _meta(val: Any) -> str:
    shape = getattr(val, "shape", None)
    if shape is None:
        return "" if val is None else type(val).__name__
    dtype = str(getattr(val, "dtype", "")).replace("torch.", "")
    return f"{dtype}[{', '.join(str(s) for s in shape)}]"


def ops(captured: loom_symbolic.CapturedGraph) -> list[str]:
    """The operations a graph runs, in order (``torch.sin``, ``Tensor.add`` style names)."""
    out = []
    for node in captured.graph_module.graph.nodes:
        if node.op == "call_function":
            out.append(_target(node.target))
        elif node.op == "call_method":
            out.append(f"Tensor.{node.target}")
    return out


def output_code(captured: loom_symbolic.CapturedGraph, compiled: Any, backend_name: str) -> str:
    """What a backend made of a graph: its repr and the names of the kernels it carries (their source
    is the backend's to log: the ``triton`` backend logs it on the same logger)."""
    text = f"graph {captured.name} compiled by backend {backend_name!r}: {compiled!r}"
    kernels = getattr(compiled, "kernels", None) or []
    if kernels:
        text += "; kernels: " + ", ".join(str(getattr(k, "name", k)) for k in kernels)
    return text


def guards(guard_fn: Any, limit: int | None = None) -> str:
    """A compiled guard check as a header and one line per guard (multi-line reprs folded), at most ``limit``."""
    items = list(getattr(guard_fn, "guards", ()))
    header = guard_fn.describe().splitlines()[0] if items else "no guards"
    shown = items if limit is None or len(items) <= limit + 1 else items[:limit]
    lines = [header] + [f"  {i}. {' '.join(g.describe().split())}" for i, g in enumerate(shown, 1)]
    if len(shown) < len(items):
        lines.append(f"  ... and {len(items) - len(shown)} more")
    return "\n".join(lines)

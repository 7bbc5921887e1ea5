"""A disk cache of compiled ATen graphs, so that a second process lowers, schedules and generates nothing.

A code generator asks :func:`key_for` for the key of the ATen graph AOTAutograd hands it; on a hit,
:func:`load` returns what it stored with :func:`store` (its generated sources and what its host program
needs), and the generator rebuilds its compiled graph from that: the C compiler's own disk cache
(:mod:`loom_backends.c_toolchain`) then finds the shared object, so a warm process compiles nothing.

- **The key** hashes everything the generated code depends on: every node of the graph and of its
  sub-graphs (op, target, arguments; the contents of tensor constants), the example inputs' dtype,
  device, sizes, strides and offset, the graph's kind (forward, backward, inference), the generator's
  name and :data:`loom_backends.kernels.config.config`, the default dtype, and the versions of Python,
  torch, sympy and loom_backends' own source files (a digest of their bytes, taken once per process).
  A graph the key cannot describe exactly is not cached (:func:`key_for` returns None): symbolic sizes,
  a target or argument of a type it does not know (printed text could then name two different things).
- **Where**: ``<cache root>/graphs/<key>.json`` (the root is :func:`~loom_backends.c_toolchain.cache_root`),
  tensors the host program holds in ``<key>.pt`` beside it (written first; the JSON records their digest).
- **Safety**: files are written to a temporary name and ``os.replace``d, so several processes may store
  the same key at once and a reader sees a whole file or none. An entry that cannot be read, has another
  format or key, or whose tensors do not match their digest is ignored (logged at debug level on
  ``loom.graph_cache``) and the graph is compiled again: a cache entry can cost a compile, never give a
  wrong answer.
- ``LOOM_GRAPH_CACHE=0`` turns it off (read at every compile); :func:`stats` counts hits, misses,
  stores and graphs that bypassed it in this process.
"""

from __future__ import annotations

import builtins
import functools
import hashlib
import importlib
import io
import json
import logging
import operator
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from . import c_toolchain
from .cache_counts import CacheCounts, switched_off
from .kernels.config import config

log = logging.getLogger("loom.graph_cache")

#: Bump when what an entry holds, or how a generator rebuilds a graph from it, changes.
FORMAT = 1

_counts = CacheCounts()
_source_digest: str | None = None


class Uncacheable(Exception):
    """The graph cannot be described exactly by a key: it is compiled, not cached."""


def enabled() -> bool:
    """Whether the cache is used: unless ``LOOM_GRAPH_CACHE`` is ``0``/``false``/``no``/``off``."""
    return not switched_off("LOOM_GRAPH_CACHE")


def cache_dir() -> Path:
    """``<cache root>/graphs`` (see :func:`loom_backends.c_toolchain.cache_root`); read at every call."""
    return c_toolchain.cache_root() / "graphs"


def stats() -> dict[str, int]:
    """This process's counts: ``hits``, ``misses``, ``stored``, ``bypassed`` (no key) and ``ignored``
    (an unreadable, stale or mismatching entry)."""
    return _counts.stats()


def count(name: str) -> None:
    """Add one to a count of :func:`stats`."""
    _counts.count(name)


# --- the key -----------------------------------------------------------------------------------------


def key_for(gm: torch.fx.GraphModule, example_inputs: list[Any], kind: str, generator: str) -> str | None:
    """The cache key of compiling ``gm`` at ``example_inputs`` as a ``kind`` graph with ``generator``;
    None when the cache is off or the graph cannot be described exactly (counted as ``bypassed``)."""
    if not enabled():
        return None
    try:
        parts = [
            f"format {FORMAT}", f"generator {generator}", f"kind {kind}", _versions(),
            config_text(), f"default dtype {torch.get_default_dtype()}",
            *(f"input {input_text(x)}" for x in example_inputs),
            *graph_lines(gm),
        ]  # fmt: skip
    except Exception as why:  # Uncacheable, or a graph this walk did not expect: compiled, not cached
        count("bypassed")
        log.debug("graph %s not cached: %s: %s", kind, type(why).__name__, why)
        return None
    return digest(parts)


def digest(parts: list[str]) -> str:
    """The key made of ``parts``: a SHA-256 of the texts, each ended by a NUL byte."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:40]


def config_text() -> str:
    """The fields of :data:`loom_backends.kernels.config.config` that shape generated code, as text."""
    return f"config {sorted((k, str(v)) for k, v in vars(config).items() if k not in _CONFIG_IGNORED)}"


# Config fields that do not change generated code: where Triton writes its modules, whether to raise.
_CONFIG_IGNORED = frozenset({"cache_dir", "strict"})


def versions() -> str:
    """The versions of Python, torch, sympy and loom_backends' own sources (a digest), as text."""
    return _versions()


def _versions() -> str:
    return f"python {sys.version} torch {torch.__version__} sympy {_sympy_version()} loom {_loom_digest()}"


@functools.cache
def _sympy_version() -> str:
    """sympy's version from its installed metadata: importing sympy (0.25 s) only to read it would cost a
    process whose graphs all come from the cache more than the rest of reloading them. Read once (0.3 ms
    a lookup, and every graph key asks)."""
    from importlib import metadata

    try:
        return metadata.version("sympy")
    except metadata.PackageNotFoundError:  # not installed as a distribution: ask the module
        import sympy

        return sympy.__version__


def _loom_digest() -> str:
    """A digest of loom_backends' source files: an edited lowering rule or generator misses every entry."""
    global _source_digest
    if _source_digest is None:
        root = Path(__file__).parent
        h = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
        _source_digest = h.hexdigest()[:20]
    return _source_digest


def input_text(x: Any) -> str:
    """A graph input by what compiled code depends on: a tensor's dtype, device, sizes, strides, offset and
    layout; a number's type and value. :class:`Uncacheable` for symbolic sizes or another type."""
    if isinstance(x, torch.Tensor):
        sizes = (*x.shape, *x.stride(), x.storage_offset())
        if not all(type(s) is int for s in sizes):
            raise Uncacheable("an input has symbolic sizes")
        return f"tensor {x.dtype} {x.device} {tuple(x.shape)} {x.stride()} {x.storage_offset()} {x.layout}"
    if type(x) in (int, float, bool) or x is None:
        return f"{type(x).__name__} {x!r}"
    raise Uncacheable(f"an input of type {type(x).__name__}")


# Python callables a graph may call besides torch ops (getitem on a multi-output op, size arithmetic).
_PLAIN_CALLABLES = {
    id(f): f"{f.__module__}.{f.__name__}"
    for f in (*vars(operator).values(), *vars(builtins).values())
    if callable(f) and getattr(f, "__module__", None) in ("_operator", "operator", "builtins") and hasattr(f, "__name__")
}


def graph_lines(gm: torch.fx.GraphModule, where: str = "root", *, named_callables: bool = False) -> list[str]:
    """One line per node of ``gm`` and of its sub-graphs: op, name, target, arguments by type and exact
    text, tensor constants by their bytes. ``named_callables``: a call to any function importable by
    ``module:qualname`` (a captured graph's ``torch.relu``) and method calls are described by name;
    otherwise only ATen ops and ``operator``/``builtins`` functions (an ATen graph). :class:`Uncacheable`
    for anything else."""
    lines = []
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            value = _attr(gm, node.target)
            if isinstance(value, torch.fx.GraphModule):
                lines += graph_lines(value, f"{where}.{node.target}", named_callables=named_callables)
                text = f"graph {node.target}"
            elif isinstance(value, torch.Tensor):
                text = tensor_digest(value)
            else:
                raise Uncacheable(f"an attribute of type {type(value).__name__}")
        elif node.op == "call_function":
            text = _target_text(node.target, named_callables)
        elif node.op == "call_method" and named_callables:
            text = f"method {node.target}"
        elif node.op in ("placeholder", "output"):
            text = str(node.target)
        else:  # call_module, call_method: not in AOTAutograd's graphs
            raise Uncacheable(f"a {node.op} node")
        lines.append(f"{where} {node.op} {node.name} {text} {_arg_text(node.args)} {_arg_text(node.kwargs)}")
    return lines


def _attr(gm: Any, target: str) -> Any:
    value = gm
    for part in target.split("."):
        value = getattr(value, part)
    return value


def _target_text(target: Any, named_callables: bool = False) -> str:
    if isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return f"op {target}"
    if isinstance(target, torch._ops.HigherOrderOperator):
        return f"hop {target.name()}"
    name = _PLAIN_CALLABLES.get(id(target))
    if name is not None:
        return f"fn {name}"
    if named_callables and (name := callable_name(target)) is not None:
        return f"named {name}"
    raise Uncacheable(f"a call to {target!r}")


def _arg_text(value: Any) -> str:
    if isinstance(value, torch.fx.Node):
        return f"%{value.name}"
    if isinstance(value, (list, tuple)):
        inner = ",".join(_arg_text(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k!r}:{_arg_text(v)}" for k, v in value.items()) + "}"
    if value is None or type(value) in (int, float, bool, str):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return f"{type(value).__name__}:{value}"
    if isinstance(value, slice):
        return f"slice({_arg_text(value.start)},{_arg_text(value.stop)},{_arg_text(value.step)})"
    raise Uncacheable(f"an argument of type {type(value).__name__}")


def tensor_digest(t: torch.Tensor) -> str:
    """A tensor by its metadata and the bytes it holds (a tensor constant of a graph)."""
    if t.is_sparse or not t.device.type == "cpu" or isinstance(t, torch._subclasses.FakeTensor):
        raise Uncacheable("a tensor constant off the CPU or not a plain tensor")
    data = t.detach().contiguous().view(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""  # any dtype
    meta = f"{t.dtype} {tuple(t.shape)} {t.stride()} {t.storage_offset()} {t.requires_grad}"
    return f"tensor {meta} {hashlib.sha256(data).hexdigest()}"


# --- entries -----------------------------------------------------------------------------------------


def load(
    key: str, *, directory: Path | None = None, tally: Callable[[str], None] | None = None, fmt: int = FORMAT
) -> tuple[dict[str, Any], list[torch.Tensor]] | None:
    """The entry stored under ``key`` and its tensors; None on a miss (counted) or an entry that cannot be
    read (counted as ``ignored``). ``directory``, ``tally`` and ``fmt``: another cache's directory, counts
    and entry format (the AOTAutograd cache's), else this one's."""
    root = cache_dir() if directory is None else directory
    tally = count if tally is None else tally
    path = root / f"{key}.json"
    try:
        text = path.read_text()
    except FileNotFoundError:
        tally("misses")
        return None
    except OSError as exc:
        return _ignored(key, f"unreadable ({exc})", tally)
    try:
        entry = json.loads(text)
        if entry.get("format") != fmt or entry.get("key") != key:
            return _ignored(key, "another format or key", tally)
        tensors: list[torch.Tensor] = []
        if entry.get("tensors"):
            data = (root / f"{key}.pt").read_bytes()
            if hashlib.sha256(data).hexdigest() != entry["tensors"]:
                return _ignored(key, "its tensors do not match their digest", tally)
            tensors = torch.load(io.BytesIO(data), weights_only=True)
    except Exception as exc:  # a truncated or edited file: compile again
        return _ignored(key, f"unreadable ({type(exc).__name__}: {exc})", tally)
    return entry, tensors  # a hit once the generator has rebuilt its graph from it (it counts "hits")


def ignore(key: str, why: str, tally: Callable[[str], None] | None = None) -> None:
    """Count and log an entry a generator could not rebuild a graph from (it compiles the graph again)."""
    _ignored(key, why, tally)


def _ignored(key: str, why: str, tally: Callable[[str], None] | None = None) -> None:
    (count if tally is None else tally)("ignored")
    log.debug("cache entry %s ignored: %s", key, why)
    return None


def store(
    key: str,
    entry: dict[str, Any],
    tensors: list[torch.Tensor] = (),  # type: ignore[assignment]
    *,
    directory: Path | None = None,
    tally: Callable[[str], None] | None = None,
    fmt: int = FORMAT,
) -> bool:
    """Write ``entry`` (JSON-serialisable) and ``tensors`` under ``key`` (in ``directory``, counted by
    ``tally``, as for :func:`load`); whether it was written. A failure to write is logged at debug level
    and otherwise ignored (the next process compiles again)."""
    root = cache_dir() if directory is None else directory
    entry = {**entry, "format": fmt, "key": key}
    try:
        root.mkdir(parents=True, exist_ok=True)
        if tensors:
            buffer = io.BytesIO()
            torch.save(list(tensors), buffer)
            data = buffer.getvalue()
            c_toolchain.write_atomic(root / f"{key}.pt", data)
            entry["tensors"] = hashlib.sha256(data).hexdigest()
        c_toolchain.write_atomic(root / f"{key}.json", json.dumps(entry).encode())
    except Exception as exc:  # a full disk, an unwritable directory: the next process compiles again
        log.debug("cache entry %s not stored: %s: %s", key, type(exc).__name__, exc)
        return False
    (count if tally is None else tally)("stored")
    return True


def real_tensors() -> Any:
    """A context in which no dispatch mode is active (a caller's FakeTensorMode, while torch.compile
    traces): the cache digests, saves and loads real tensors."""
    from torch.utils._python_dispatch import _disable_current_modes

    return _disable_current_modes()


# --- what a host program holds -------------------------------------------------------------------------


def object_name(value: Any) -> str | None:
    """``"module:qualname"`` when importing that name gives back ``value`` itself; else None."""
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not module or not qualname or "<" in qualname:
        return None
    try:
        return f"{module}:{qualname}" if resolve_object(f"{module}:{qualname}") is value else None
    except Exception:
        return None


def callable_name(value: Any) -> str | None:
    """A ``module:qualname`` that imports back to ``value`` itself, also for torch's builtins whose own
    qualname does not import (``torch.relu``'s is ``_VariableFunctionsClass.relu``: named ``torch:relu``;
    ``torch.Tensor.view``'s module is None: named ``torch._C:TensorBase.view``); else None."""
    named = object_name(value)
    if named is not None:
        return named
    module, name = getattr(value, "__module__", None), getattr(value, "__name__", None)
    owner = getattr(value, "__objclass__", None)
    candidates = [f"{module}:{name}"] if module and name else []
    if owner is not None and name:
        candidates.append(f"{owner.__module__}:{owner.__qualname__}.{name}")
    for candidate in candidates:
        try:
            if resolve_object(candidate) is value:
                return candidate
        except Exception:
            continue
    return None


def resolve_object(name: str) -> Any:
    """The object :func:`object_name` named."""
    module, qualname = name.split(":")
    value: Any = importlib.import_module(module)
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


def as_records(items: list[Any]) -> list[dict[str, Any]]:
    """Dataclass instances (a compiled graph's KernelInfo/ExternInfo) as JSON objects."""
    return [asdict(item) for item in items]

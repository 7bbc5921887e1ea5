"""The settings of one ``loom.compile(...)`` call, checked once, up front, with errors that say what was expected."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import loom_backends

DEFAULT_RECOMPILE_LIMIT = 8

#: Every key ``options=`` accepts, with what it means (used in error messages and the README).
KNOWN_OPTIONS: dict[str, str] = {
    "recompile_limit": "compiled entries allowed per code object before it runs uncompiled (a positive int, default 8)",
    "raise_on_internal_error": "raise loom.InternalError instead of running uncompiled when loom itself fails (a bool)",
    "suppress_backend_errors": "True: run a frame uncompiled, with one warning, when the backend fails on its graph "
    "(the default unless fullgraph or strict); False: raise loom.BackendCompilerFailed (a bool)",
    "strict": "raise loom's own failures (loom.InternalError) and the backend's (loom.BackendCompilerFailed) "
    "instead of running the frame uncompiled with one warning (a bool, default False)",
}


@dataclass(frozen=True)
class Settings:
    """What a compiled function was asked for; equal settings share one frame compiler (and its entries)."""

    backend: Callable[..., Any]
    backend_name: str
    fullgraph: bool
    dynamic: bool | None
    recompile_limit: int
    raise_on_internal_error: bool
    suppress_backend_errors: bool | None = None
    strict: bool = False

    def key(self) -> tuple[Any, ...]:
        """Hashable identity: the backend by identity (a callable may be unhashable), the rest by value."""
        return (id(self.backend), self.fullgraph, self.dynamic, self.recompile_limit, self.raise_on_internal_error,
                self.suppress_backend_errors, self.strict)

    @property
    def raises_backend_errors(self) -> bool:
        """Whether a failing backend raises ``BackendCompilerFailed`` (else the frame runs uncompiled):
        ``suppress_backend_errors`` when given, else ``fullgraph`` or ``strict``."""
        if self.suppress_backend_errors is not None:
            return not self.suppress_backend_errors
        return self.fullgraph or self.strict

    @property
    def raises_internal_errors(self) -> bool:
        """Whether loom's own failure raises ``InternalError`` (else the frame runs uncompiled)."""
        return self.raise_on_internal_error or self.strict or self.fullgraph


def make_settings(backend: Any, fullgraph: Any, dynamic: Any, options: Any) -> Settings:
    """Check every argument of ``loom.compile`` and resolve the backend; raise TypeError/ValueError otherwise."""
    if not isinstance(fullgraph, bool):
        raise TypeError(f"loom.compile(): fullgraph must be a bool, got {type(fullgraph).__name__}")
    if dynamic is not None and not isinstance(dynamic, bool):
        raise TypeError(f"loom.compile(): dynamic must be None, True or False, got {type(dynamic).__name__}")
    opts = check_options(options)
    resolved, name = resolve_backend(backend)
    return Settings(
        backend=resolved,
        backend_name=name,
        fullgraph=fullgraph,
        dynamic=dynamic,
        recompile_limit=opts.get("recompile_limit", DEFAULT_RECOMPILE_LIMIT),
        raise_on_internal_error=opts.get("raise_on_internal_error", False),
        suppress_backend_errors=opts.get("suppress_backend_errors"),
        strict=opts.get("strict", False),
    )


def check_options(options: Any) -> dict[str, Any]:
    """Validate ``options=`` (None or a dict of known keys with well-typed values)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"loom.compile(): options must be a dict or None, got {type(options).__name__}")
    unknown = sorted(str(k) for k in options if k not in KNOWN_OPTIONS)
    if unknown:
        known = "; ".join(f"{k!r}: {v}" for k, v in KNOWN_OPTIONS.items())
        raise ValueError(f"loom.compile(): unknown option(s) {unknown}; known options are {known}")
    if "recompile_limit" in options:
        limit = options["recompile_limit"]
        if type(limit) is not int:
            raise TypeError(f"options['recompile_limit'] must be a positive int, got {type(limit).__name__}")
        if limit < 1:
            raise ValueError(f"options['recompile_limit'] must be a positive int, got {limit}")
    for flag in ("raise_on_internal_error", "suppress_backend_errors", "strict"):
        if flag in options and not isinstance(options[flag], bool):
            raise TypeError(f"options[{flag!r}] must be a bool, got {type(options[flag]).__name__}")
    return dict(options)


def resolve_backend(backend: Any) -> tuple[Callable[..., Any], str]:
    """The backend callable and a name for messages, from a registered name or a callable."""
    if isinstance(backend, str):
        try:
            return loom_backends.get(backend), backend
        except KeyError as exc:  # UnknownBackendError: its str() lists the known names
            raise ValueError(f"loom.compile(): {exc}") from None
        except ValueError as exc:  # an empty or padded name
            raise ValueError(f"loom.compile(): {exc}") from None
    if callable(backend):
        return backend, getattr(backend, "__qualname__", None) or type(backend).__name__
    raise TypeError(
        f"loom.compile(): backend must be a registered backend name ({', '.join(loom_backends.names())}) "
        f"or a callable backend(gm, example_inputs) -> callable, got {type(backend).__name__}"
    )

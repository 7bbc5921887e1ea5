"""The backend registry: a name -> backend table with a decorator to fill it, and a table of reloaders.

A backend is any callable ``fn(gm: torch.fx.GraphModule, example_inputs: list) -> callable``; the returned
callable takes the graph's inputs positionally and returns what the graph returns.

A backend whose compiled functions carry a ``cache_key`` registers a *reloader* beside itself
(:func:`register_reloader`): ``fn(key) -> CompiledFunction | None``, the compiled function rebuilt from
the backend's disk caches alone, which :func:`reload` calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .compiled import CompiledFunction

if TYPE_CHECKING:  # pragma: no cover - typing only, keeps `import loom_backends` free of torch
    import torch.fx

    Backend = Callable[[torch.fx.GraphModule, list[Any]], Callable[..., Any]]
else:
    Backend = Callable[..., Any]

#: A backend's reloader: its compiled function from a ``cache_key``, or None (see :func:`register_reloader`).
Reloader = Callable[[str], CompiledFunction | None]

B = TypeVar("B", bound=Callable[..., Any])

_REGISTRY: dict[str, Callable[..., Any]] = {}
_RELOADERS: dict[str, Reloader] = {}


class UnknownBackendError(KeyError):
    """Raised by :func:`get` for a name no backend was registered under.

    A :class:`KeyError` subclass (the lookup of a key failed) whose message lists the known names;
    ``err.name`` is the name asked for and ``err.known`` the sorted registered names.
    """

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(name)

    def __str__(self) -> str:  # KeyError's default str() would quote the message
        return f"unknown loom backend {self.name!r}; known backends: {', '.join(self.known) or '(none)'}"


def _check_name(name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"a backend name must be a str, got {type(name).__name__}")
    if not name or name != name.strip():
        raise ValueError(f"a backend name must be a non-empty string without surrounding spaces, got {name!r}")
    return name


def register(name: str, *, replace: bool = False) -> Callable[[B], B]:
    """Register the decorated function as the backend called ``name``; returns it unchanged.

    ``@register("mine")`` over ``def mine(gm, example_inputs): ...``. Registering a *different* function
    under a taken name raises :class:`ValueError` unless ``replace=True``; registering the same function
    again is a no-op. A non-str name or a non-callable backend raises :class:`TypeError`.
    """
    return _registering(_REGISTRY, name, replace, "backend", f"a backend named {name!r} is already registered")


def get(name: str) -> Backend:
    """The backend registered as ``name``; :class:`UnknownBackendError` (a ``KeyError``) if there is none."""
    _check_name(name)
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownBackendError(name, names()) from None


def names() -> list[str]:
    """The registered backend names, sorted."""
    return sorted(_REGISTRY)


def unregister(name: str) -> None:
    """Remove a backend (for tests and plugins that registered a temporary one). Its reloader stays with
    the name (:func:`reload` refuses an unregistered name), so a backend registered again — the usual
    save, replace, restore — has it back; ``register_reloader(name, replace=True)`` changes it."""
    _check_name(name)
    if name not in _REGISTRY:
        raise UnknownBackendError(name, names())
    del _REGISTRY[name]


def register_reloader(name: str, *, replace: bool = False) -> Callable[[B], B]:
    """Register the decorated function as the reloader of backend ``name``; returns it unchanged.

    A reloader is ``fn(key: str) -> CompiledFunction | None``: the compiled function whose ``cache_key``
    was ``key``, rebuilt from the backend's caches alone, or None when they do not hold it; it raises
    :class:`ValueError` for a string that is not one of its keys. Registering a different function under
    a name that has one raises :class:`ValueError` unless ``replace=True``."""
    return _registering(_RELOADERS, name, replace, "reloader", f"backend {name!r} already has a reloader")


def _registering(table: dict[str, Any], name: str, replace: bool, what: str, taken: str) -> Callable[[B], B]:
    """The decorator :func:`register` and :func:`register_reloader` return: it puts a callable into
    ``table`` under ``name``; another one there already is ``taken`` (a ValueError) unless ``replace``."""
    _check_name(name)
    if not isinstance(replace, bool):
        raise TypeError("replace must be a bool")

    def decorator(fn: B) -> B:
        if not callable(fn):
            raise TypeError(f"a {what} must be callable, got {type(fn).__name__}")
        existing = table.get(name)
        if existing is not None and existing is not fn and not replace:
            raise ValueError(f"{taken} ({existing!r}); pass replace=True")
        table[name] = fn
        return fn

    return decorator


def has_reloader(name: str) -> bool:
    """Whether backend ``name`` registered a reloader (so that :func:`reload` can give its graphs back);
    a cache of whole translations asks this before looking for anything kept for that backend."""
    return isinstance(name, str) and name in _RELOADERS


def reload(name: str, key: str) -> CompiledFunction | None:
    """The compiled function of backend ``name`` whose ``cache_key`` was ``key``, from the backend's disk
    caches alone: no capture, no tracing, no ``FakeTensorMode`` (so ``torch._dynamo`` is not imported), in
    this process or another one. It behaves as the function the backend returned (an inference graph runs
    with grad mode off inside; a training graph is a ``torch.autograd.Function``, backward included) and
    carries the same ``cache_key``.

    None when the backend has no reloader, or its caches do not hold the key's entry (missing, damaged,
    written by other versions, or its compiled graphs gone). :class:`TypeError` for a non-str argument;
    :class:`ValueError` for a malformed name or key, or an unknown backend name (the message lists the
    known ones)."""
    _check_name(name)
    if not isinstance(key, str):
        raise TypeError(f"a cache key must be a str, got {type(key).__name__}")
    if name not in _REGISTRY:
        raise ValueError(f"unknown loom backend {name!r}; known backends: {', '.join(names()) or '(none)'}")
    reloader = _RELOADERS.get(name)
    return None if reloader is None else reloader(key)

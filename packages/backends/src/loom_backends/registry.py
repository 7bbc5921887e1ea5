"""The backend registry: a name -> backend table with a decorator to fill it.

A backend is any callable ``fn(gm: torch.fx.GraphModule, example_inputs: list) -> callable``; the returned
callable takes the graph's inputs positionally and returns what the graph returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # pragma: no cover - typing only, keeps `import loom_backends` free of torch
    import torch.fx

    Backend = Callable[[torch.fx.GraphModule, list[Any]], Callable[..., Any]]
else:
    Backend = Callable[..., Any]

B = TypeVar("B", bound=Callable[..., Any])

_REGISTRY: dict[str, Callable[..., Any]] = {}


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
    _check_name(name)
    if not isinstance(replace, bool):
        raise TypeError("replace must be a bool")

    def decorator(fn: B) -> B:
        if not callable(fn):
            raise TypeError(f"a backend must be callable, got {type(fn).__name__}")
        existing = _REGISTRY.get(name)
        if existing is not None and existing is not fn and not replace:
            raise ValueError(f"a backend named {name!r} is already registered ({existing!r}); pass replace=True")
        _REGISTRY[name] = fn
        return fn

    return decorator


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
    """Remove a backend (for tests and plugins that registered a temporary one)."""
    _check_name(name)
    if name not in _REGISTRY:
        raise UnknownBackendError(name, names())
    del _REGISTRY[name]
